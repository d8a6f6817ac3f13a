/**
 * Levels beyond the recorded depth window (queue.ts, "Depth window"): the
 * feed carries the best N levels a side and sends 0 for a level pushed out
 * of them, so a 0 there is unknown, not empty. Here the window is 3 levels
 * (`depthWindowLevels: 3`) to keep the books small.
 */
import { describe, expect, it } from "vitest";
import { ReplayBook } from "../../src/backtest/book.ts";
import { IN_WINDOW, leaveWindow, powerSplit, probabilisticQueue, reenterWindow, riskAverseQueue, startOutsideWindow, type QueueModel, type WindowedPosition } from "../../src/backtest/queue.ts";
import { fillTriples, replayScript, snapshot, trades, update } from "./helpers.ts";

const WINDOW = { depthWindowLevels: 3 } as const;
const models: [string, QueueModel][] = [
  ["riskAverse", riskAverseQueue],
  ["probabilistic power n=2", probabilisticQueue(powerSplit(2))],
];

describe("ReplayBook.beyondWindow", () => {
  it("is true only for a price worse than the worst level of a side that fills the window", () => {
    const book = new ReplayBook("TESTPERP", 90, 110);
    book.setBid(100, 5);
    book.setBid(99, 5);
    book.setAsk(101, 5);
    expect(book.beyondWindow(true, 98, 3)).toBe(false); // 2 bids: the whole side is shown
    book.setBid(97, 5);
    expect(book.beyondWindow(true, 96, 3)).toBe(true); // 3 bids, 96 below the worst (97)
    expect(book.beyondWindow(true, 98, 3)).toBe(false); // inside the shown range: shown if it held anything
    expect(book.beyondWindow(false, 105, 3)).toBe(false); // 1 ask
    // A level an own taker emptied (market impact) is still recorded: it counts, and it may be the worst.
    book.setBid(100, 0);
    book.setBid(95, 5); // bids 99, 97, 95
    book.consume(true, 95, 5); // shows 0 at 95
    expect(book.beyondWindow(true, 96, 3)).toBe(false);
    expect(book.beyondWindow(true, 94, 3)).toBe(true);
  });
});

describe("queue position out of the window", () => {
  it("comes back as one depth change from the quantity last shown, under the model's own rule", () => {
    // 10 ahead, 6 behind when the level (16) leaves the window; it comes back with 10: 6 lots went while out of sight.
    const comeBack = (model: QueueModel): number => {
      const position: WindowedPosition = { ahead: 10, tradedLots: 0, hiddenLots: IN_WINDOW };
      leaveWindow(position, 16);
      expect(position.ahead).toBe(10);
      reenterWindow(model, position, 10);
      expect(position.hiddenLots).toBe(IN_WINDOW);
      return position.ahead;
    };
    expect(comeBack(riskAverseQueue)).toBe(10); // kept, capped by the visible 10
    expect(comeBack(probabilisticQueue(() => 1))).toBe(4); // the 6 split as cancels, all ahead: 10 - 6
    expect(comeBack(probabilisticQueue(() => 0))).toBe(10); // all behind (6 were behind)
  });

  it("starts behind the whole level an order that arrived while its price was beyond the window", () => {
    const position: WindowedPosition = { ahead: 0, tradedLots: 0, hiddenLots: IN_WINDOW };
    startOutsideWindow(position);
    riskAverseQueue.trade(position, 5); // nothing known ahead: no trade reaches it
    expect(position.ahead).toBe(Infinity);
    reenterWindow(riskAverseQueue, position, 7);
    expect(position.ahead).toBe(7);
  });
});

describe("replayed levels that leave the depth window", () => {
  // Bids 100 (5), 99 (5), 98 (10): a full window. The own buy (3 lots) rests at 98 from 1.1 ms, 10 ahead.
  // 2 ms: a bid at 101 enters and pushes 98 out of the window (sent as 0; or a snapshot without it).
  // 3 ms: 101 is cancelled and 98 is shown again with 12 (2 joined while out of sight).
  // 4 ms: a sell of 20 sweeps 100 and 99 and takes 10 at 98 (12 -> 2); 6 ms: a sell of 2 at 98 (2 -> 0).
  const pushOut = {
    update: update(2_000, [[101, 4], [98, 0]], []),
    snapshot: update(2_000, [[101, 4], [100, 5], [99, 5]], [[105, 5]], "SNAPSHOT"),
  };
  const rows = (out: keyof typeof pushOut) => [
    snapshot(1_000, [[100, 5], [99, 5], [98, 10]], [[105, 5]]),
    pushOut[out],
    update(3_000, [[101, 0], [98, 12]], []),
    update(4_000, [[100, 0], [99, 0], [98, 2]], []),
    trades(5_000, [{ side: "A", price: 100, qty: 5, matchMs: 4 }, { side: "A", price: 99, qty: 5, matchMs: 4 }, { side: "A", price: 98, qty: 10, matchMs: 4 }]),
    update(6_000, [[98, 0]], []),
    trades(7_000, [{ side: "A", price: 98, qty: 2, matchMs: 6 }]),
  ];
  const buy = [{ at: 1_000, submit: { side: "B", priceTicks: 98, qtyLots: 3 } }] as const;

  it.each(models.flatMap(([name, queue]) => (["update", "snapshot"] as const).map((out) => [name, out, queue] as const)))(
    "keeps the queue ahead of an order whose level left the window (%s, pushed out by an %s)",
    (_name, out, queue) => {
      // Kept: 10 ahead; shown again with 12: min(10, 12) = 10 (probabilistic: growth, joined behind). The trade of 10
      // at 98 leaves 0 ahead and fills nothing; the trade of 2 fills 2. (Taken for emptied, the order stood at the
      // front: the trade of 10 filled all 3 lots at 4 ms.)
      const { result } = replayScript(rows(out), buy, { queue, ...WINDOW });
      expect(fillTriples(result)).toEqual([[98, 2, true]]);
      expect(result.fills[0]!.atMicros).toBe(6_000);
    },
  );

  it.each(models)("still puts an order at the front of a level emptied inside the window (%s)", (_name, queue) => {
    // The own buy (2 lots) rests at 99 behind 5. 2 ms: 99 empties and 97 enters (the window holds 100, 98, 97: 99
    // lies inside it, so its 0 means empty). 3 ms: 4 join at 99, behind the order. 4 ms: a sell of 7 sweeps 100 and
    // takes 2 at 99: both lots fill.
    const emptied = [
      snapshot(1_000, [[100, 5], [99, 5], [98, 10]], [[105, 5]]),
      update(2_000, [[99, 0], [97, 6]], []),
      update(3_000, [[99, 4]], []),
      update(4_000, [[100, 0], [99, 2]], []),
      trades(5_000, [{ side: "A", price: 100, qty: 5, matchMs: 4 }, { side: "A", price: 99, qty: 2, matchMs: 4 }]),
    ];
    const { result } = replayScript(emptied, [{ at: 1_000, submit: { side: "B", priceTicks: 99, qtyLots: 2 } }], { queue, ...WINDOW });
    expect(fillTriples(result)).toEqual([[99, 2, true]]);
    expect(result.fills[0]!.atMicros).toBe(4_000);
  });

  it.each(models)("takes a level out of the window for empty once its side no longer fills the window (%s)", (_name, queue) => {
    // The own buy (2 lots) at 98 behind 10; 2 ms: pushed out by 101. 3 ms: 101 and 100 are cancelled: two bids
    // left, so 98 would be shown if it held anything: it emptied (the order is at the front). 4 ms: 4 join at 98.
    // 5 ms: a sell of 7 sweeps 99 and takes 2 at 98: both lots fill.
    const shrunk = [
      snapshot(1_000, [[100, 5], [99, 5], [98, 10]], [[105, 5]]),
      update(2_000, [[101, 4], [98, 0]], []),
      update(3_000, [[101, 0], [100, 0]], []),
      update(4_000, [[98, 4]], []),
      update(5_000, [[99, 0], [98, 2]], []),
      trades(6_000, [{ side: "A", price: 99, qty: 5, matchMs: 5 }, { side: "A", price: 98, qty: 2, matchMs: 5 }]),
    ];
    const { result } = replayScript(shrunk, [{ at: 1_000, submit: { side: "B", priceTicks: 98, qtyLots: 2 } }], { queue, ...WINDOW });
    expect(fillTriples(result)).toEqual([[98, 2, true]]);
    expect(result.fills[0]!.atMicros).toBe(5_000);
  });

  it.each(models)("puts an order that arrives beyond the window behind the level it finds there once shown (%s)", (_name, queue) => {
    // The own buy (2 lots) at 97, below the full window: nothing known there. 2 ms: 100 is cancelled and 97 enters
    // with 6: 6 ahead. 3 ms: a sell of 18 sweeps 99 and 98 and takes 3 at 97 (3 ahead). 5 ms: a sell of 5 at 97
    // takes the 3 and both own lots. (Taken for an empty level, the order stood at the front: filled at 3 ms.)
    const arriving = [
      snapshot(1_000, [[100, 5], [99, 5], [98, 10]], [[105, 5]]),
      update(2_000, [[100, 0], [97, 6]], []),
      update(3_000, [[99, 0], [98, 0], [97, 3]], []),
      trades(4_000, [{ side: "A", price: 99, qty: 5, matchMs: 3 }, { side: "A", price: 98, qty: 10, matchMs: 3 }, { side: "A", price: 97, qty: 3, matchMs: 3 }]),
      update(5_000, [[97, 0]], []),
      trades(6_000, [{ side: "A", price: 97, qty: 5, matchMs: 5 }]),
    ];
    const { result } = replayScript(arriving, [{ at: 1_000, submit: { side: "B", priceTicks: 97, qtyLots: 2 } }], { queue, ...WINDOW });
    expect(fillTriples(result)).toEqual([[97, 2, true]]);
    expect(result.fills[0]!.atMicros).toBe(5_000);
  });

  it("refuses a window that is not a positive whole number of levels", () => {
    expect(() => replayScript(rows("update"), buy, { depthWindowLevels: 0 })).toThrow(`depthWindowLevels "0" must be a positive whole number of levels`);
  });
});
