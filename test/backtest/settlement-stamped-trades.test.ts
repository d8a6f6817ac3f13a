/**
 * Trades whose executions carry their settlement time, as shadowbook's do
 * (the block's time, a block after the match). The depth change a trade
 * caused reaches the recording before its print and carries an earlier
 * time; "match" timing must still put the trade before that change, so
 * that the queue sees "trade, then the decrease it caused" and counts the
 * traded volume once. Before (found by an audit, session 20) such trades
 * stayed after their decrease, which the models first took for a cancel:
 * the own order below then filled 2 lots where it should fill none.
 */
import { describe, expect, it } from "vitest";
import { probabilisticQueue, powerSplit, riskAverseQueue, type QueueModel } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { decodeRecording, type TradeTiming } from "../../src/backtest/tape.ts";
import { constantLatency, GRID, scripted, snapshot, trades, update } from "./helpers.ts";

/**
 * Level 100 holds 10 lots; an own bid of 3 joins behind them. A seller takes
 * 4 at 10 ms (depth 10 -> 6), settled and printed at 110 ms; another takes 4
 * at 200 ms (6 -> 2), printed at 300 ms. Ahead of the bid: 10 -> 6 -> 2, so
 * it never fills.
 */
function rows(stampedAt: "settlement" | "match") {
  const settled = stampedAt === "settlement";
  return [
    snapshot(1_000, [[100, 10]], [[105, 5]]),
    update(10_000, [[100, 6]], []),
    trades(110_000, [{ side: "A", price: 100, qty: 4, matchMs: settled ? 110 : 10 }]),
    update(200_000, [[100, 2]], []),
    trades(300_000, [{ side: "A", price: 100, qty: 4, matchMs: settled ? 300 : 200 }]),
    update(400_000, [[99, 1]], []),
  ];
}

function filled(stampedAt: "settlement" | "match", queue: QueueModel, tradeTiming: TradeTiming = "match"): number[][] {
  const decoded = decodeRecording(memoryRecording(rows(stampedAt)), { grids: [GRID], tradeTiming });
  const result = runReplay(decoded, {
    seed: 1,
    queue,
    strategy: scripted([{ at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 3 } }]),
    latency: constantLatency(100, 100, 0),
  });
  return result.fills.map((fill) => [fill.qtyLots, fill.priceTicks, fill.atMicros]);
}

describe("trades stamped at settlement", () => {
  for (const [name, queue] of [
    ["riskAverse", riskAverseQueue],
    ["probabilistic power n=2", probabilisticQueue(powerSplit(2))],
  ] as const) {
    it(`are counted once, as when stamped at their match (${name})`, () => {
      expect(filled("settlement", queue)).toEqual([]);
      expect(filled("match", queue)).toEqual([]);
    });
  }

  it("count twice in publication order, the comparison timing", () => {
    expect(filled("settlement", riskAverseQueue, "publication")).toEqual([[2, 100, 300_000]]);
  });
});
