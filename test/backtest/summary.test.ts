/**
 * The accounts of a replay against a small hand-made recording of two
 * markets, figure by figure: every fill's price, side and liquidity, then
 * the per-market rows and the totals of summary.json and of the printed
 * table, computed by hand in the comments (quote currency rUSD for both).
 */
import { describe, expect, it } from "vitest";
import { memoryRecording, type MemoryRow } from "../../src/backtest/recording.ts";
import { formatReplaySummary, replaySummaryJson, runReplayScenario } from "../../src/backtest/run.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { defineReplayStrategy, type OrderRequest } from "../../src/backtest/strategy.ts";
import { snapshot, SYMBOL, trades, update } from "./helpers.ts";

const SPOT = "TESTSPOT";
const spotDepth = (recvMicros: number, type: "SNAPSHOT" | "UPDATE", bids: [string, string][], asks: [string, string][]): MemoryRow => {
  const ms = Math.floor(recvMicros / 1000);
  const contents = { symbol: SPOT, type, bids: bids.map(([px, qty]) => ({ px, qty })), asks: asks.map(([px, qty]) => ({ px, qty })), updatedAt: ms };
  const channel = `/v2/market/${SPOT}/depth`;
  return type === "SNAPSHOT" ? { recvMicros, frame: { type: "subscribed", channel, contents } } : { recvMicros, frame: { type: "channel_data", timestamp: ms, channel, data: contents } };
};

// TESTPERP on a grid of whole units; TESTSPOT's grid inferred from its decimals (tickSize 0.01, qtyStepSize 0.1).
const rows: MemoryRow[] = [
  snapshot(1_000, [[99, 5]], [[101, 3], [102, 4]]),
  spotDepth(1_000, "SNAPSHOT", [["20.00", "10.0"]], [["20.10", "10.0"]]),
  update(3_000, [[100, 4]], []),
  // A sell of 5 matched at 5 ms: 4 at 100, 1 at 99.
  update(5_000, [[100, 0], [99, 4]], []),
  trades(6_000, [{ side: "A", price: 100, qty: 4, matchMs: 5 }, { side: "A", price: 99, qty: 1, matchMs: 5 }]),
  update(9_000, [[99, 5]], [[101, 3]]),
  spotDepth(9_000, "UPDATE", [["19.90", "1.0"]], []),
];

/** What the strategy sends, and when (µs on its clock; the recording starts at 1 ms). */
const actions: readonly { at: number; request: OrderRequest }[] = [
  // TESTSPOT: sells 1.5 (15 lots) at 20.00 (2000 ticks) IOC: takes 1.5 of the bid at 20.00 (taker).
  { at: 1_000, request: { symbol: SPOT, side: "A", priceTicks: 2_000, qtyLots: 15, timeInForce: "IOC" } },
  // TESTPERP: takes 3 at 101 (taker; the other 2 of the IOC are cancelled).
  { at: 1_000, request: { symbol: SYMBOL, side: "B", priceTicks: 101, qtyLots: 5, timeInForce: "IOC" } },
  // Rests a sell of 1 at 100 (the best bid is 99): the bid at 100 at 3 ms crosses it, a maker fill at 100.
  { at: 2_000, request: { symbol: SYMBOL, side: "A", priceTicks: 100, qtyLots: 1 } },
  // Rests a buy of 2 at 100 behind the 4 recorded there; the sell at 5 ms trades through it (at 99): all 2 at 100 (maker).
  { at: 3_500, request: { symbol: SYMBOL, side: "B", priceTicks: 100, qtyLots: 2 } },
];
const strategy = defineReplayStrategy({
  name: "by-hand",
  defaults: {},
  init: () => ({}),
  onStart(ctx) {
    actions.forEach((action, index) => ctx.setTimer(action.at, String(index)));
  },
  onTimer(ctx, _state, tag) {
    ctx.submit(actions[Number(tag)]!.request);
  },
});

describe("a replay's accounts, by hand", () => {
  it("books fills, fees, positions and PnL per market, and totals them", () => {
    const scenario = defineScenario({
      name: "accounts-by-hand",
      description: "two hand-made markets",
      seed: 1,
      durationSeconds: 60,
      prices: [],
      agents: [],
      marketData: {
        recording: "memory.arrow",
        strategy,
        fees: { makerRate: "-0.0001", takerRate: "0.0004" },
        latency: { orderEntry: { model: "constant", micros: 100 }, responses: { model: "constant", micros: 100 }, marketData: { model: "constant", micros: 0 } },
      },
    });
    const run = runReplayScenario(scenario, { recording: memoryRecording(rows) });
    const { result } = run;
    expect(result.fills.map((fill) => [fill.symbol, fill.side, fill.priceTicks, fill.qtyLots, fill.maker, fill.fee, fill.positionLots, fill.atMicros])).toEqual([
      [SPOT, "A", 2_000, 15, false, 0.012, -15, 1_100], // 30 x 0.0004
      [SYMBOL, "B", 101, 3, false, 0.1212, 3, 1_100], // 303 x 0.0004
      [SYMBOL, "A", 100, 1, true, -0.01, 2, 3_000], // 100 x -0.0001: a rebate
      [SYMBOL, "B", 100, 2, true, -0.02, 4, 5_000], // 200 x -0.0001
    ]);
    const json = replaySummaryJson(run) as { markets: unknown; total: unknown };
    expect(json.markets).toEqual([
      {
        // Bought 3 at 101, sold 1 at 100 (realized 1 x -1), bought 2 at 100: long 4 at a cost of 2 x 101 + 200 = 402.
        // Marked at the final mid (99 + 101) / 2 = 100: 400 - 402 = -2. Fees 0.1212 - 0.01 - 0.02.
        symbol: SYMBOL,
        fills: 3,
        makerFills: 2,
        takerFills: 1,
        volumeLots: 6,
        position: "4",
        volume: "603",
        fees: "0.0912",
        cash: "-403.0912", // -303 + 100 - 200 - 0.0912; + 4 x 100 = pnl
        realizedPnl: "-1",
        unrealizedPnl: "-2",
        pnl: "-3.0912",
        markPrice: "100",
      },
      {
        // Short 1.5 at 20.00, marked at the final mid (20.00 + 20.10) / 2 = 20.05: 30 - 1.5 x 20.05 = -0.075.
        symbol: SPOT,
        fills: 1,
        makerFills: 0,
        takerFills: 1,
        volumeLots: 15,
        position: "-1.5",
        volume: "30",
        fees: "0.012",
        cash: "29.988",
        realizedPnl: "0",
        unrealizedPnl: "-0.075",
        pnl: "-0.087",
        markPrice: "20.05",
      },
    ]);
    expect(json.total).toEqual({ fills: 4, volume: "633", fees: "0.1032", realizedPnl: "-1", unrealizedPnl: "-2.075", pnl: "-3.1782" });
    const table = formatReplaySummary(run).split("\n");
    expect(table).toContain("  strategy    by-hand: 4 orders, 0 cancels (0 too late), 0 rejected");
    expect(table).toContain(`  TESTPERP           3      2      1         603.00       0.09          4       -1.00       -2.00       -3.09`);
    expect(table).toContain(`  TESTSPOT           1      0      1          30.00       0.01       -1.5        0.00       -0.08       -0.09`);
    expect(table).toContain(`  total              4                       633.00       0.10                  -1.00       -2.08       -3.18`);
  });
});
