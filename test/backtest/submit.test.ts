/**
 * ctx.submit refuses a request the exchange would refuse at admission
 * (spec 7.3; DESIGN.md "Errors and bad input"), synchronously, with a
 * ReplayStrategyError naming the field, the rule and the spec's code; a
 * refused request changes nothing (no order id used, no order counted, no
 * local order).
 */
import { describe, expect, it } from "vitest";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { defineReplayStrategy, ReplayStrategyError, type OrderRequest } from "../../src/backtest/strategy.ts";
import { decodeRecording } from "../../src/backtest/tape.ts";
import { gridsOf } from "../../src/backtest/run.ts";
import { replayMarketMaker } from "../../agents/replay-market-maker.ts";
import { constantLatency, GRID, snapshot, SYMBOL, syntheticRows, update } from "./helpers.ts";

const rows = [snapshot(1_000, [[99, 5]], [[101, 5]]), update(2_000, [[99, 4]], []), update(3_000, [[98, 1]], [])];

/** Submits `bad` then a good order at the start; returns the refusal, the good order's id and what the run counted. */
function refuse(bad: Record<string, unknown>) {
  let refusal: unknown = null;
  let goodId = 0;
  let open = -1;
  const strategy = defineReplayStrategy({
    name: "refused",
    defaults: {},
    init: () => ({}),
    onStart(ctx) {
      try {
        ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 99, qtyLots: 1, ...bad } as OrderRequest);
      } catch (error) {
        refusal = error;
      }
      goodId = ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 98, qtyLots: 1 });
      open = ctx.orders().length;
    },
  });
  const result = runReplay(decodeRecording(memoryRecording(rows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: constantLatency(100) });
  return { refusal, goodId, open, orders: result.counts.orders, fills: result.fills.length };
}

describe("ctx.submit refusals", () => {
  it.each([
    [{ timeInForce: "IOC", postOnly: true }, 'submit postOnly with timeInForce "IOC": a postOnly order must be GTC (INPUT_VALIDATION_ERROR)'],
    [{ side: "S" }, 'submit side "S" must be B or A (INPUT_VALIDATION_ERROR)'],
    [{ timeInForce: "GTT" }, 'submit timeInForce "GTT" must be GTC or IOC (INPUT_VALIDATION_ERROR)'],
    [{ priceTicks: 99.5 }, 'submit priceTicks "99.5" must be a positive whole number of ticks (PRICE_QTY_BOUNDS_ERROR)'],
    [{ qtyLots: 0 }, 'submit qtyLots "0" must be a positive whole number of lots (PRICE_QTY_BOUNDS_ERROR)'],
    // 2^33 ticks x 2^21 lots: a notional of 2^54 units, beyond the account's safe integers.
    [{ priceTicks: 2 ** 33, qtyLots: 2 ** 21 }, 'submit priceTicks "8589934592" x qtyLots "2097152" is beyond 9007199254740991 ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)'],
    [{ symbol: "NOPE" }, 'submit symbol "NOPE" is not a replayed market (TESTPERP) (SYMBOL_NOT_FOUND_ERROR)'],
  ])("refuses %j and changes nothing", (bad, message) => {
    const { refusal, goodId, open, orders, fills } = refuse(bad);
    expect(refusal).toBeInstanceOf(ReplayStrategyError);
    expect((refusal as Error).message).toBe(message);
    expect(goodId).toBe(1);
    expect(open).toBe(1);
    expect(orders).toBe(1);
    expect(fills).toBe(0);
  });
});

describe("ctx.submit and the accounts' integers", () => {
  it("refuses a sell whose fills at the recording's highest price could not be counted (a sell takes bids above its limit)", () => {
    // Bids at 2^33 ticks for 2^21 lots: a sell of 2^21 lots at 1 tick would take them, a notional of 2^54.
    const high = 2 ** 33;
    const bigRows = [snapshot(1_000, [[high, 2 ** 21]], [[high + 1, 1]]), update(2_000, [[high - 1, 1]], [])];
    let refusal: unknown = null;
    const strategy = defineReplayStrategy({
      name: "big-sell",
      defaults: {},
      init: () => ({}),
      onStart(ctx) {
        try {
          ctx.submit({ symbol: SYMBOL, side: "A", priceTicks: 1, qtyLots: 2 ** 21, timeInForce: "IOC" });
        } catch (error) {
          refusal = error;
        }
      },
    });
    const result = runReplay(decodeRecording(memoryRecording(bigRows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: constantLatency(100) });
    expect((refusal as Error | null)?.message).toBe(
      'submit qtyLots "2097152" x priceTicks "8589934593" (the recording\'s highest price: a sell may fill up to it) is beyond 9007199254740991 ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)',
    );
    expect(result.counts.orders).toBe(0);
  });
});

describe("ctx.submit and minOrderQty", () => {
  it("refuses a quantity below the market's minOrderQty, and tells the strategy the minimum", () => {
    // A grid of whole units with a minimum of 3 lots.
    const grid = { ...GRID, minOrderQty: "3" };
    const seen: number[] = [];
    const refusals: string[] = [];
    const strategy = defineReplayStrategy({
      name: "min-qty",
      defaults: {},
      init: () => ({}),
      onStart(ctx) {
        seen.push(...ctx.markets.map((market) => market.minOrderLots));
        for (const qtyLots of [2, 3]) {
          try {
            ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 98, qtyLots });
          } catch (error) {
            refusals.push((error as Error).message);
          }
        }
      },
    });
    const result = runReplay(decodeRecording(memoryRecording(rows), { grids: [grid] }), { seed: 1, queue: riskAverseQueue, strategy, latency: constantLatency(100) });
    expect(seen).toEqual([3]);
    expect(refusals).toEqual(['submit qtyLots "2" is below minOrderQty "3" (3 lots) (PRICE_QTY_BOUNDS_ERROR)']);
    expect(result.counts.orders).toBe(1);
  });

  it("the shipped market maker quotes at least the minimum", () => {
    // quoteLots 1 on a market whose minimum is 2 lots: it quotes 2 (refused at 1, the run would stop).
    const decoded = decodeRecording(memoryRecording(syntheticRows(200)), { grids: [{ ...GRID, minOrderQty: "2" }] });
    const result = runReplay(decoded, {
      seed: 1,
      queue: riskAverseQueue,
      strategy: replayMarketMaker,
      params: { symbols: [SYMBOL], quoteLots: 1, maxPositionLots: 6, refreshMicros: 3_000, edgeTicks: 0 },
      latency: constantLatency(300),
    });
    expect(result.counts.orders).toBeGreaterThan(10);
    expect(result.fills.length).toBeGreaterThan(0);
    expect(result.fills.every((fill) => fill.qtyLots <= 2)).toBe(true);
  });

  it("takes the minimum from the scenario's markets, as the grids", () => {
    expect(gridsOf().find((grid) => grid.symbol === "BTCRUSDPERP")).toEqual({ symbol: "BTCRUSDPERP", tickSize: "0.1", qtyStepSize: "0.0001", minOrderQty: "0.0001" });
  });
});
