/**
 * A fill's response bounds the replay. When a recorded row fills an own
 * order, the strategy hears of it after the response latency and may answer
 * at once (cancel another order, send an IOC); the replay must not apply
 * later rows before that answer reaches the book. It once did, whenever no
 * other delivery (a timer, a loud market-data message) bounded the loop:
 * the answer then met a book from the future, and the outcome depended on
 * whether unrelated timers existed (found by an audit, session 20).
 */
import { describe, expect, it } from "vitest";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { defineReplayStrategy } from "../../src/backtest/strategy.ts";
import { decodeRecording } from "../../src/backtest/tape.ts";
import { constantLatency, GRID, snapshot, SYMBOL, trades, update } from "./helpers.ts";

/** Entry and response latency 100 µs each: an answer sent from onFill reaches the book 200 µs after the fill. */
const LATENCY = constantLatency(100, 100, 0);

describe("a fill's response bounds the replay", () => {
  it("a cancel sent from onFill beats a trade 40 ms later, with or without unrelated timers", () => {
    const rows = [
      snapshot(1_000, [[97, 5]], [[105, 5]]),
      update(10_000, [[96, 1]], []),
      trades(10_500, [{ side: "A", price: 100, qty: 1, matchMs: 10 }]),
      update(50_000, [[95, 1]], []),
      trades(50_500, [{ side: "A", price: 98, qty: 1, matchMs: 50 }]),
      update(90_000, [[94, 1]], []),
    ];
    const outcomes = [false, true].map((withTimers) => {
      const strategy = defineReplayStrategy<Record<string, never>, { a: number; b: number }>({
        name: "cancel-on-fill",
        defaults: {},
        init: () => ({ a: 0, b: 0 }),
        onStart(ctx, s) {
          s.a = ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 100, qtyLots: 1 });
          s.b = ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 98, qtyLots: 1 });
          if (withTimers) for (let t = 2_000; t < 90_000; t += 1_000) ctx.setTimer(t, "tick");
        },
        onTimer() {},
        onFill(ctx, s, fill) {
          if (fill.orderId === s.a) ctx.cancel(s.b);
        },
      });
      const result = runReplay(decodeRecording(memoryRecording(rows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: LATENCY });
      return { fills: result.fills.map((fill) => [fill.orderId, fill.qtyLots, fill.priceTicks, fill.atMicros]), cancelsTooLate: result.counts.cancelsTooLate };
    });
    expect(outcomes[0]).toEqual({ fills: [[1, 1, 100, 10_000]], cancelsTooLate: 0 });
    expect(outcomes[1]).toEqual(outcomes[0]);
  });

  it("an IOC sent from onFill trades against the book of its arrival, not a later one", () => {
    const rows = [
      snapshot(1_000, [[97, 5]], [[105, 5]]),
      update(10_000, [[96, 1]], []),
      trades(10_500, [{ side: "A", price: 100, qty: 1, matchMs: 10 }]),
      update(30_000, [], [[105, 0], [110, 5]]),
      update(90_000, [[94, 1]], []),
    ];
    const strategy = defineReplayStrategy<Record<string, never>, { a: number }>({
      name: "ioc-on-fill",
      defaults: {},
      init: () => ({ a: 0 }),
      onStart(ctx, s) {
        s.a = ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 100, qtyLots: 1 });
      },
      onFill(ctx, s, fill) {
        if (fill.orderId === s.a) ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 105, qtyLots: 1, timeInForce: "IOC" });
      },
    });
    const result = runReplay(decodeRecording(memoryRecording(rows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: LATENCY });
    expect(result.fills.map((fill) => [fill.orderId, fill.qtyLots, fill.priceTicks, fill.atMicros])).toEqual([
      [1, 1, 100, 10_000],
      [2, 1, 105, 10_200],
    ]);
  });
});
