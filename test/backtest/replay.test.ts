/**
 * The replay loop: latency races, takers against displayed depth, market
 * impact, postOnly, accounting, the strategy's delayed view, determinism.
 */
import { describe, expect, it } from "vitest";
import { MarketAccount } from "../../src/backtest/account.ts";
import { probabilisticQueue, powerSplit, riskAverseQueue } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { defineReplayStrategy, type ReplayContext } from "../../src/backtest/strategy.ts";
import { decodeRecording } from "../../src/backtest/tape.ts";
import { replayMarketMaker } from "../../agents/replay-market-maker.ts";
import { constantLatency, fillTriples, GRID, replayScript, snapshot, SYMBOL, syntheticRows, trades, update } from "./helpers.ts";

describe("latency", () => {
  // The own buy rests alone at 100 (empty level: nothing ahead) from 1.1 ms; the strategy sends a cancel at 2 ms;
  // a sell of 2 at 100 matches at 2.5 ms (placed before the depth frame of that millisecond).
  const rows = [
    snapshot(1_000, [[99, 5]], [[105, 5]]),
    update(2_500, [[101, 3]], []),
    trades(6_000, [{ side: "A", price: 100, qty: 2, matchMs: 2 }]),
    update(7_000, [[101, 0]], []),
  ];
  const actions = [
    { at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 2 } },
    { at: 2_000, cancel: 1 },
  ] as const;

  it("a cancel that reaches the book after the trade loses the race to the fill", () => {
    // Entry latency 1 ms: the order arrives at 2 ms, the cancel at 3 ms, the trade fills it at 2.5 ms.
    const { result, log } = replayScript(rows, actions, { latency: constantLatency(1_000, 100) });
    expect(fillTriples(result)).toEqual([[100, 2, true]]);
    expect(result.fills[0]!.atMicros).toBe(2_500);
    expect(log.updates.map((update) => [update.type, update.reason, update.at])).toEqual([
      ["accepted", "", 2_100],
      ["cancelRejected", "already filled", 3_100],
    ]);
    expect(result.counts.cancelsTooLate).toBe(1);
  });

  it("a cancel that reaches the book first wins", () => {
    // Entry latency 100 µs: the cancel arrives at 2.1 ms, before the trade at 2.5 ms.
    const { result, log } = replayScript(rows, actions, { latency: constantLatency(100) });
    expect(result.fills).toEqual([]);
    expect(log.updates.map((update) => [update.type, update.reason, update.at])).toEqual([
      ["accepted", "", 1_200],
      ["cancelled", "user cancel", 2_200],
    ]);
    expect(result.counts.cancelsTooLate).toBe(0);
  });

  it("shows the strategy the book as of the frames that reached it", () => {
    const seen: [number, number, number][] = [];
    const watcher = defineReplayStrategy({
      name: "watcher",
      defaults: {},
      init: () => ({}),
      onDepth(ctx, _state, book) {
        seen.push([ctx.now, book.bestBidTicks, book.qtyAt("B", 101)]);
      },
    });
    const decoded = decodeRecording(memoryRecording(rows), { grids: [GRID] });
    runReplay(decoded, { seed: 1, queue: probabilisticQueue(powerSplit(1)), strategy: watcher, latency: constantLatency(100, 100, 300) });
    // Each frame reaches the strategy 300 µs after it was received.
    expect(seen).toEqual([
      [1_300, 99, 0],
      [2_800, 101, 3],
      [7_300, 99, 0],
    ]);
  });
});

describe("takers and market impact", () => {
  const rows = [
    snapshot(1_000, [[99, 5]], [[101, 3], [102, 4]]),
    update(3_000, [], [[101, 5]]),
    update(4_000, [[99, 5]], [[101, 5], [102, 4]], "SNAPSHOT"),
    update(6_000, [[98, 1]], []),
  ];
  const ioc = (at: number, qtyLots: number) => ({ at, submit: { side: "B", priceTicks: 101, qtyLots, timeInForce: "IOC" } }) as const;
  const actions = [ioc(1_000, 5), ioc(2_000, 3), ioc(3_500, 3), ioc(4_500, 3)];

  it("by default the replayed book ignores own fills: every IOC finds the recorded depth", () => {
    // 5 at 101 against 101: 3 -> 3 filled, 2 cancelled; then 3, 3, 3 against the unchanged level (3, 5, 5).
    const { result, log } = replayScript(rows, actions);
    expect(fillTriples(result)).toEqual([
      [101, 3, false],
      [101, 3, false],
      [101, 3, false],
      [101, 3, false],
    ]);
    expect(log.updates.filter((update) => update.type === "cancelled").map((update) => update.reason)).toEqual(["IOC remainder"]);
    // Taker fee 0.0004 on 12 lots at 101: 0.4848.
    expect(result.total.fees).toBe("0.4848");
  });

  it("with impact, consumed liquidity stays removed until the next snapshot", () => {
    // 3 taken at 101 (offset 3) -> the next IOC finds 101 empty -> the update to 5 shows 5 - 3 = 2
    // -> the snapshot at 4 ms clears the offset: 3 again.
    const { result } = replayScript(rows, actions, { impact: true });
    expect(fillTriples(result)).toEqual([
      [101, 3, false],
      [101, 2, false],
      [101, 3, false],
    ]);
    expect(result.total.fees).toBe("0.3232"); // 0.0004 * 101 * 8
  });

  it("rejects a postOnly order that would cross, and rests the rest of a crossing GTC order", () => {
    // Asks 101: 3 and 102: 4. The GTC buy of 5 at 101 takes the 3 at 101 and rests 2 at 101; the update at 3 ms
    // (101 -> 5) does not move the best ask, so the resting rest does not fill.
    const { result, log } = replayScript(rows.slice(0, 2), [
      { at: 1_000, submit: { side: "B", priceTicks: 101, qtyLots: 1, postOnly: true } },
      { at: 1_000, submit: { side: "B", priceTicks: 101, qtyLots: 5 } },
    ]);
    expect(fillTriples(result)).toEqual([[101, 3, false]]);
    expect(log.updates.map((update) => [update.orderId, update.type, update.reason])).toEqual([
      [1, "rejected", "postOnly would cross"],
      [2, "accepted", ""],
    ]);
    expect(result.counts.rejected).toBe(1);
  });
});

describe("accounting", () => {
  it("books position, cash, fees and realized and unrealized PnL at average cost", () => {
    const account = new MarketAccount(SYMBOL, "0.5", "0.1", { makerRate: "-0.0001", takerRate: "0.001" });
    account.fill("B", 200, 30, false); // buy 3 at 100 (taker fee 0.3)
    account.fill("A", 220, 10, true); // sell 1 at 110 (maker rebate 0.011): realized 10
    let summary = account.summary(210); // mark 105: unrealized 2 * (105 - 100) = 10
    expect([summary.position, summary.realizedPnl, summary.unrealizedPnl, summary.fees]).toEqual(["2", "10", "10", "0.289"]);
    expect(summary.pnl).toBe("19.711"); // 10 + 10 - 0.289
    expect(summary.cash).toBe("-190.289"); // -300 + 110 - 0.289; cash + 2 * 105 = pnl
    account.fill("A", 180, 40, false); // sell 4 at 90: closes 2 (realized 2 * -10), opens a short of 2 at 90 (fee 0.36)
    summary = account.summary(170); // mark 85: the short gains 2 * 5
    expect([summary.position, summary.realizedPnl, summary.unrealizedPnl, summary.fees]).toEqual(["-2", "-10", "10", "0.649"]);
    expect(summary.pnl).toBe("-0.649");
  });
});

describe("determinism", () => {
  const decoded = decodeRecording(memoryRecording(syntheticRows(600)), { grids: [GRID] });
  const latency = {
    orderEntry: { model: "lognormal", medianMicros: 800, sigma: 0.5 },
    responses: { model: "lognormal", medianMicros: 800, sigma: 0.5 },
    marketData: { model: "lognormal", medianMicros: 400, sigma: 0.5 },
  } as const;
  const run = (seed: number) =>
    runReplay(decoded, {
      seed,
      queue: probabilisticQueue(powerSplit(2)),
      strategy: replayMarketMaker,
      params: { symbols: [SYMBOL], quoteLots: 2, maxPositionLots: 6, refreshMicros: 3_000, edgeTicks: 0 },
      latency,
    });

  it("gives the same fills for the same seed, and other latencies for another seed", () => {
    const first = run(7);
    const again = run(7);
    const other = run(8);
    const key = (result: ReturnType<typeof run>) => result.fills.map((fill) => `${fill.atMicros}:${fill.side}:${fill.priceTicks}:${fill.qtyLots}`).join(",");
    expect(first.fills.length).toBeGreaterThan(5);
    expect(key(again)).toBe(key(first));
    expect(again.total).toEqual(first.total);
    expect(key(other)).not.toBe(key(first));
  });
});

describe("market-data delivery", () => {
  it("delivers frames received at the same time together: one latency draw per receive time", () => {
    // Recorded md latencies 300, 900, 100 µs, drawn in turn per receive time: the snapshot and the update
    // received at 1 ms share the first draw (1.3 ms), the update at 2 ms draws 900 (2.9 ms), the one at 5 ms 100.
    const rows = [snapshot(1_000, [[99, 5]], [[105, 5]]), update(1_000, [[100, 2]], []), update(2_000, [[101, 1]], []), update(5_000, [[101, 0]], [])];
    const seen: [number, number][] = [];
    const watcher = defineReplayStrategy({
      name: "watcher",
      defaults: {},
      init: () => ({}),
      onDepth(ctx, _state, book) {
        seen.push([ctx.now, book.bestBidTicks]);
      },
    });
    const decoded = decodeRecording(memoryRecording(rows), { grids: [GRID] });
    runReplay(decoded, {
      seed: 1,
      queue: riskAverseQueue,
      strategy: watcher,
      latency: { ...constantLatency(100), marketData: { model: "recorded", micros: [300, 900, 100] } },
    });
    // Each frame still gets its own callback, with the book as of that frame.
    expect(seen).toEqual([
      [1_300, 99],
      [1_300, 100],
      [2_900, 101],
      [5_100, 100],
    ]);
  });

  // A strategy that reads its book on timers and in its order callbacks, and trades: with a no-op onDepth every
  // frame is delivered (and applied) one by one; without one, its view applies the frames when read. Both must
  // see the same books at the same times and get the same fills.
  const reader = (perFrame: boolean, periodMicros = 100) => {
    const seen: string[] = [];
    const look = (ctx: ReplayContext, what: string) => {
      const book = ctx.book(SYMBOL);
      seen.push(`${what}@${ctx.now}:${book.bestBidTicks}/${book.bestAskTicks}/${book.qtyAt("B", book.bestBidTicks)}/${book.levels("A", 2).join(";")}`);
    };
    const strategy = defineReplayStrategy({
      name: "reader",
      defaults: {},
      init: () => ({ ticks: 0, open: 0 }),
      onStart(ctx) {
        ctx.setTimer(ctx.now, "t");
      },
      onTimer(ctx, state) {
        look(ctx, "timer");
        if (state.ticks++ % 7 === 0) {
          if (state.open !== 0) ctx.cancel(state.open);
          const book = ctx.book(SYMBOL);
          const take = state.ticks % 3 === 0;
          if (Number.isFinite(book.bestBidTicks)) {
            state.open = ctx.submit(take ? { symbol: SYMBOL, side: "B", priceTicks: book.bestAskTicks, qtyLots: 1, timeInForce: "IOC" } : { symbol: SYMBOL, side: "B", priceTicks: book.bestBidTicks, qtyLots: 2, postOnly: true });
          }
        }
        ctx.setTimer(ctx.now + periodMicros, "t");
      },
      onFill(ctx) {
        look(ctx, "fill");
      },
      onOrder(ctx) {
        look(ctx, "order");
      },
      ...(perFrame ? { onDepth() {} } : {}),
    });
    return { strategy, seen };
  };
  const decoded = decodeRecording(memoryRecording(syntheticRows(300)), { grids: [GRID] });
  const lognormal = {
    orderEntry: { model: "lognormal", medianMicros: 300, sigma: 0.6 },
    responses: { model: "lognormal", medianMicros: 300, sigma: 0.6 },
    marketData: { model: "lognormal", medianMicros: 300, sigma: 0.6 },
  } as const;

  it.each([
    ["constant latencies (timers and responses at the frames' arrival times)", constantLatency(300, 300, 300), false],
    ["lognormal latencies", lognormal, false],
    ["lognormal latencies and market impact", lognormal, true],
  ])("a strategy without onDepth sees the same books and gets the same fills as one with it: %s", (_name, latency, impact) => {
    const run = (perFrame: boolean) => {
      const { strategy, seen } = reader(perFrame);
      const result = runReplay(decoded, { seed: 3, queue: riskAverseQueue, strategy, latency, impact });
      return { result, seen };
    };
    const lazy = run(false);
    const eager = run(true);
    expect(lazy.result.counts.depthCallbacks).toBe(0);
    expect(eager.result.counts.depthCallbacks).toBeGreaterThan(300);
    expect(lazy.seen.length).toBeGreaterThan(1_000);
    expect(lazy.result.fills.length).toBeGreaterThan(5);
    expect(lazy.result.fills.some((fill) => !fill.maker)).toBe(true);
    expect(lazy.seen).toEqual(eager.seen);
    expect(lazy.result.fills).toEqual(eager.result.fills);
    expect(lazy.result.total).toEqual(eager.result.total);
  });

  it("a strategy that reads its book rarely sees it as one fed every frame (the queued frames apply in batches)", () => {
    // 4000 frames and a read every 0.4 s: more frames wait than the queue's first 1024 places.
    const many = decodeRecording(memoryRecording(syntheticRows(4_000)), { grids: [GRID] });
    const run = (perFrame: boolean) => {
      const { strategy, seen } = reader(perFrame, 400_000);
      const result = runReplay(many, { seed: 5, queue: riskAverseQueue, strategy, latency: lognormal, impact: true });
      return { result, seen };
    };
    const lazy = run(false);
    const eager = run(true);
    expect(lazy.seen.length).toBeGreaterThan(10);
    expect(lazy.seen).toEqual(eager.seen);
    expect(lazy.result.fills).toEqual(eager.result.fills);
  });
});
