/**
 * Replay scenarios: the marketData checks of checkScenario, and an
 * end-to-end run of scenarios/replay-market-maker.ts over
 * data/default-sample.arrow (skipped until that recording exists).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { replayMarketMaker } from "../../agents/replay-market-maker.ts";
import { DATA_DIR, formatReplaySummary, runReplayScenario, writeReplayOutputs } from "../../src/backtest/run.ts";
import { checkScenario, type MarketDataSettings, type Scenario } from "../../src/sim/scenario.ts";
import replayScenario from "../../scenarios/replay-market-maker.ts";

const base = (marketData: Partial<MarketDataSettings> & Record<string, unknown>, extra: Partial<Scenario> = {}): Scenario =>
  ({
    name: "replay-check",
    description: "",
    seed: 1,
    durationSeconds: 60,
    prices: [],
    agents: [],
    marketData: { recording: "x.arrow", strategy: replayMarketMaker, ...marketData },
    ...extra,
  }) as Scenario;

describe("marketData checks", () => {
  it("accepts a complete replay scenario", () => {
    expect(() => checkScenario(base({ queue: { model: "probabilistic", split: { fn: "log" } }, fees: { makerRate: "-0.0001", takerRate: "0.0004" } }))).not.toThrow();
  });

  it.each([
    [{ recording: "" }, /marketData.recording must name a recording file/],
    [{ queue: { model: "fifo" } }, /marketData.queue.model "fifo" must be riskAverse or probabilistic/],
    [{ queue: { model: "probabilistic", split: { fn: "power", n: 0 } } }, /marketData.queue.split.n "0" must be a number greater than 0/],
    [{ queue: { model: "probabilistic", split: { fn: "custom" } } }, /marketData.queue.split.probabilityAhead must be a function/],
    [{ queue: { model: "probabilistic", split: { fn: "cubic" } } }, /marketData.queue.split.fn "cubic" must be power, log or custom/],
    [{ impact: "yes" }, /marketData.impact "yes" must be true or false/],
    [{ tradeTiming: "late" }, /marketData.tradeTiming "late" must be match or publication/],
    [{ strategy: { kind: "agent", name: "x" } }, /marketData.strategy must be a replay strategy/],
    [{ fees: { makerRate: "0", takerRate: "1.5" } }, /marketData.fees.takerRate "1.5" must be a decimal string between -1 and 1/],
    [{ markets: ["ETHRUSDPERP", "ETHRUSDPERP"] }, /marketData.markets\[1\] "ETHRUSDPERP" is listed twice/],
  ])("refuses %j", (settings, message) => {
    expect(() => checkScenario(base(settings as Record<string, unknown>))).toThrow(message);
  });

  it("refuses simulated agents beside a recorded market", () => {
    const agent = { name: "mm", agent: {} as never };
    expect(() => checkScenario(base({}, { agents: [agent] }))).toThrow(/marketData and agents exclude each other/);
  });
});

const sample = join(DATA_DIR, "default-sample.arrow");

describe.skipIf(!existsSync(sample))("scenarios/replay-market-maker.ts over data/default-sample.arrow", () => {
  it("replays the three recorded markets, fills the maker from the recorded trades, and writes its outputs", () => {
    const run = runReplayScenario(replayScenario);
    const { result } = run;
    expect(run.decoded.tapes.map((tape) => tape.symbol).sort()).toEqual(["BTCRUSDPERP", "ETHRUSDPERP", "WETHRUSD"]);
    expect(run.decoded.tapes.every((tape) => !tape.inferredGrid)).toBe(true);
    expect(result.events).toBeGreaterThan(1_000);
    expect(result.counts.orders).toBeGreaterThan(10);
    expect(result.total.fills).toBeGreaterThan(0);
    // A postOnly maker never takes: every fill is a maker fill, and the zero maker fee leaves no fees.
    expect(result.markets.every((market) => market.takerFills === 0)).toBe(true);
    expect(result.total.fees).toBe("0");
    // PnL adds up: realized + unrealized - fees.
    for (const market of result.markets) {
      expect(Number(market.pnl)).toBeCloseTo(Number(market.realizedPnl) + Number(market.unrealizedPnl) - Number(market.fees), 6);
    }
    expect(formatReplaySummary(run)).toContain("probabilistic power n=2, impact off, trades at match time");

    const again = runReplayScenario(replayScenario);
    expect(again.result.total).toEqual(result.total);
    expect(again.result.fills.length).toBe(result.fills.length);

    const dir = mkdtempSync(join(tmpdir(), "replay-out-"));
    try {
      const files = writeReplayOutputs(dir, run);
      expect(files.map((file) => file.slice(dir.length + 1))).toEqual(["fills.arrow", "summary.json"]);
      const table = tableFromIPC(readFileSync(join(dir, "fills.arrow")));
      expect(table.numRows).toBe(result.fills.length);
      expect(table.getChild("qtyLots")!.get(0)).toBe(BigInt(result.fills[0]!.qtyLots));
      const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as { total: unknown; queueModel: string; events: number };
      expect(summary.total).toEqual(result.total);
      expect(summary.queueModel).toBe("probabilistic power n=2");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
