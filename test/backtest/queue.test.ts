/**
 * Queue-position models against hand-computed cases: the model functions
 * alone, then whole replays (orders ahead, cancels, partial trades at the
 * level) where the fills follow from the arithmetic in the comments.
 */
import { describe, expect, it } from "vitest";
import { logSplit, powerSplit, probabilisticQueue, queueModel, riskAverseQueue, type QueueModel, type QueuePosition } from "../../src/backtest/queue.ts";
import { fillTriples, replayScript, snapshot, trades, update } from "./helpers.ts";

const at = (model: QueueModel, levelLots: number): QueuePosition => {
  const position = { ahead: NaN, tradedLots: NaN };
  model.start(position, levelLots);
  return position;
};

describe("riskAverse queue", () => {
  it("starts behind the whole level, advances only by trades, and is capped by a shrinking level", () => {
    const position = at(riskAverseQueue, 10);
    expect(position.ahead).toBe(10);
    riskAverseQueue.depth(position, 10, 14); // 4 join behind: 10 still ahead
    expect(position.ahead).toBe(10);
    riskAverseQueue.depth(position, 14, 12); // 2 cancel: risk-averse assumes behind
    expect(position.ahead).toBe(10);
    riskAverseQueue.trade(position, 3); // 10 - 3
    expect(position.ahead).toBe(7);
    riskAverseQueue.depth(position, 9, 5); // the level (5) cannot hold 7 ahead: min(7, 5)
    expect(position.ahead).toBe(5);
  });
});

describe("probabilistic queue", () => {
  // A level of 10: 6 ahead of the order, 4 behind; 5 lots are cancelled (10 -> 5), no trade.
  // ahead' = ahead - pAhead * 5 + min(0, behind - (1 - pAhead) * 5), capped at 5.
  const cancelFive = (model: QueueModel): number => {
    const position = at(model, 6);
    model.depth(position, 6, 10); // 4 join behind
    model.depth(position, 10, 5);
    return position.ahead;
  };

  it("splits a cancel by the power function (n = 1 and n = 2)", () => {
    // n = 1: pAhead = 6 / (6 + 4) = 0.6; 6 - 0.6 * 5 + min(0, 4 - 0.4 * 5 = 2) = 3.
    expect(cancelFive(probabilisticQueue(powerSplit(1)))).toBeCloseTo(3, 12);
    // n = 2: pAhead = 36 / (36 + 16) = 9 / 13; 6 - (9 / 13) * 5 = 6 - 45 / 13 = 33 / 13 (behind: 4 - (4 / 13) * 5 > 0).
    expect(cancelFive(probabilisticQueue(powerSplit(2)))).toBeCloseTo(33 / 13, 12);
    expect(powerSplit(2)(6, 4)).toBeCloseTo(9 / 13, 12);
  });

  it("splits a cancel by the log function", () => {
    // pAhead = ln 7 / (ln 7 + ln 5); 6 - pAhead * 5 (behind keeps 4 - (1 - pAhead) * 5 > 0).
    const pAhead = Math.log(7) / (Math.log(7) + Math.log(5));
    expect(logSplit(6, 4)).toBeCloseTo(pAhead, 12);
    expect(cancelFive(probabilisticQueue(logSplit))).toBeCloseTo(6 - pAhead * 5, 12);
    expect(6 - pAhead * 5).toBeCloseTo(3.2634, 4);
  });

  it("takes from ahead what a user split puts behind beyond what is behind", () => {
    // Always behind: 6 - 0 + min(0, 4 - 5) = 5: the 5th cancelled lot must have been ahead.
    expect(cancelFive(probabilisticQueue(() => 0))).toBe(5);
    // Always ahead: 6 - 5 + min(0, 4 - 0) = 1.
    expect(cancelFive(probabilisticQueue(() => 1))).toBe(1);
    // The user function is asked with (ahead, behind) = (6, 4).
    const asked: [number, number][] = [];
    cancelFive(probabilisticQueue((ahead, behind) => (asked.push([ahead, behind]), 0.5)));
    expect(asked).toEqual([[6, 4]]);
  });

  it("nets the trades since the last depth change out of the next decrease", () => {
    const model = probabilisticQueue(powerSplit(1));
    const position = at(model, 6);
    model.depth(position, 6, 10); // 6 ahead, 4 behind
    model.trade(position, 3); // 3 traded from the front: 3 ahead
    expect(position.ahead).toBe(3);
    model.depth(position, 10, 7); // the decrease is the trade: no cancel to split
    expect(position.ahead).toBe(3);
    model.trade(position, 1); // 2 ahead
    model.depth(position, 7, 4); // 3 down, 1 of it traded: 2 cancelled; pAhead = 2 / (2 + 5) (behind = 7 - 2)
    // 2 - (2 / 7) * 2 + min(0, 5 - (5 / 7) * 2) = 2 - 4 / 7 = 10 / 7
    expect(position.ahead).toBeCloseTo(10 / 7, 12);
  });

  it("refuses a split that is not a probability", () => {
    const model = probabilisticQueue(() => 1.5);
    const position = at(model, 6);
    model.depth(position, 6, 10);
    expect(() => model.depth(position, 10, 5)).toThrow(/split\(6, 4\) "1.5" must be a probability between 0 and 1/);
    expect(() => powerSplit(0)).toThrow(/n "0" must be a number greater than 0/);
  });

  it("is chosen by scenario settings", () => {
    expect(queueModel(undefined).name).toBe("riskAverse");
    expect(queueModel({ model: "probabilistic", split: { fn: "power", n: 2 } }).name).toBe("probabilistic power n=2");
    expect(queueModel({ model: "probabilistic", split: { fn: "log" } }).name).toBe("probabilistic log");
  });
});

describe("queue models in a replay", () => {
  // Bid level 100 holds 10; the own buy (3 lots) reaches the book at 1.1 ms with 10 ahead.
  // A sell of 4 matches at 2 ms (level 10 -> 6; printed at 5 ms), 5 lots join behind at 3 ms (11),
  // a sell of 8 matches at 4 ms (11 -> 3; printed at 6 ms), a sell of 2 matches at 7 ms (3 -> 1; printed at 8 ms).
  const rows = [
    snapshot(1_000, [[100, 10]], [[105, 5]]),
    update(2_000, [[100, 6]], []),
    update(3_000, [[100, 11]], []),
    update(4_000, [[100, 3]], []),
    trades(5_000, [{ side: "A", price: 100, qty: 4, matchMs: 2 }]),
    trades(6_000, [{ side: "A", price: 100, qty: 8, matchMs: 4 }]),
    update(7_000, [[100, 1]], []),
    trades(8_000, [{ side: "A", price: 100, qty: 2, matchMs: 7 }]),
  ];
  const buy = [{ at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 3 } }] as const;

  it("risk-averse: only the trades at the price advance the order; the overflow fills it in parts", () => {
    // ahead 10 -> trade 4: 6 -> level 6: min(6, 6) = 6 -> level 11: 6 -> trade 8: 6 - 8 = -2: fill 2 (of 3), front
    // -> level 3: 0 -> trade 2: 0 - 2 = -2: fill min(2, 2, 1 left) = 1.
    const { result, log } = replayScript(rows, buy);
    expect(fillTriples(result)).toEqual([
      [100, 2, true],
      [100, 1, true],
    ]);
    expect(result.fills.map((fill) => fill.atMicros)).toEqual([4_000, 7_000]);
    // The strategy hears of them after the response latency (100 µs), the last one leaving nothing.
    expect(log.fills.map((fill) => [fill.at, fill.leavesLots])).toEqual([
      [4_100, 1],
      [7_100, 0],
    ]);
    expect(log.updates.map((update) => update.type)).toEqual(["accepted"]);
  });

  it("counts a trade once although its depth decrease was received before its print", () => {
    // In receive order the decrease 10 -> 6 (2 ms) caps the queue at 6 and the print at 5 ms takes 4 more:
    // 10 -> 6 -> 6 (11) -> 3 (level 3) -> print 4: -1: fill 1 -> print 8: fill min(8, 8, 2) = 2.
    // Placed at match time (the default), the same recording gives the fills of the test above.
    const published = replayScript(rows, buy, { decode: { tradeTiming: "publication" } }).result;
    expect(fillTriples(published)).toEqual([
      [100, 1, true],
      [100, 2, true],
    ]);
    expect(published.fills.map((fill) => fill.atMicros)).toEqual([5_000, 6_000]);
  });

  // Level 100: 6 when the own buy (5 lots) arrives, 10 at 2 ms (4 behind), 5 at 3 ms (5 cancelled),
  // then a sell of 4 matches at 4 ms (5 -> 1; printed at 9 ms).
  const cancelRows = [
    snapshot(1_000, [[100, 6]], [[105, 5]]),
    update(2_000, [[100, 10]], []),
    update(3_000, [[100, 5]], []),
    update(4_000, [[100, 1]], []),
    trades(9_000, [{ side: "A", price: 100, qty: 4, matchMs: 4 }]),
  ];
  const buyFive = [{ at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 5 } }] as const;
  const filledLots = (queue: QueueModel) => replayScript(cancelRows, buyFive, { queue }).result.fills.reduce((sum, fill) => sum + fill.qtyLots, 0);

  it("splits the cancels ahead and behind the order as the model says", () => {
    // riskAverse: min(6, 5) = 5 ahead -> trade 4: 1 ahead: no fill.
    expect(filledLots(riskAverseQueue)).toBe(0);
    // power n = 1: 3 ahead (above) -> trade 4: -1: fill 1.
    expect(filledLots(probabilisticQueue(powerSplit(1)))).toBe(1);
    // power n = 2: 33 / 13 = 2.538 ahead -> trade 4: -1.46: fill 1 (whole lots, rounded down).
    expect(filledLots(probabilisticQueue(powerSplit(2)))).toBe(1);
    // log: 3.263 ahead -> trade 4: -0.74: no whole lot.
    expect(filledLots(probabilisticQueue(logSplit))).toBe(0);
    // every cancel ahead: 1 ahead -> trade 4: -3: fill 3.
    expect(filledLots(probabilisticQueue(() => 1))).toBe(3);
  });

  it("fills a resting order fully on a trade through its price, and when the opposite best moves through it", () => {
    const rowsThrough = [
      snapshot(1_000, [[100, 10]], [[105, 5]]),
      // A sell of 12 matched at 3 ms swept 100 and traded 2 at 99: through the own bid at 100 (10 ahead).
      update(3_000, [[100, 0], [99, 1]], []),
      trades(4_000, [{ side: "A", price: 100, qty: 10, matchMs: 3 }, { side: "A", price: 99, qty: 2, matchMs: 3 }]),
      // A bid at 104 appears: the own ask at 104 is crossed.
      update(5_000, [[104, 2]], []),
    ];
    const { result, log } = replayScript(rowsThrough, [
      { at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 4 } },
      { at: 1_000, submit: { side: "A", priceTicks: 104, qtyLots: 3 } },
    ]);
    // The trade of 10 at 100 leaves the queue at 0 (10 - 10), the trade at 99 goes through: all 4 at 100.
    expect(fillTriples(result)).toEqual([
      [100, 4, true],
      [104, 3, true],
    ]);
    expect(result.fills.map((fill) => fill.atMicros)).toEqual([3_000, 5_000]);
    expect(log.fills.map((fill) => fill.leavesLots)).toEqual([0, 0]);
  });
});

describe("own orders at one price", () => {
  // Bid level 100 holds 10. Own buy A (3 lots) arrives at 1.1 ms and own buy B (5 lots) at 1.6 ms, each behind
  // the 10 recorded lots; B is also behind A (it came later). 5 lots join behind at 2 ms (15).
  // A sell of 12 matches at 3 ms (15 -> 3), a sell of 3 at 5 ms (3 -> 0).
  const rows = [
    snapshot(1_000, [[100, 10]], [[105, 5]]),
    update(2_000, [[100, 15]], []),
    update(3_000, [[100, 3]], []),
    trades(4_000, [{ side: "A", price: 100, qty: 12, matchMs: 3 }]),
    update(5_000, [[100, 0]], []),
    trades(6_000, [{ side: "A", price: 100, qty: 3, matchMs: 5 }]),
  ];
  const actions = [
    { at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 3 } },
    { at: 1_500, submit: { side: "B", priceTicks: 100, qtyLots: 5 } },
  ] as const;

  it.each([
    ["riskAverse", riskAverseQueue],
    ["probabilistic power n=2", probabilisticQueue(powerSplit(2))],
  ])("fill from a trade's quantity once, in the order they arrived (%s)", (_name, queue) => {
    // Trade of 12: 10 recorded lots, then 2 of A (1 left); B, behind A's 3, gets none.
    // Trade of 3: A's last lot, then 2 of B. 15 traded = 10 recorded + 3 (A) + 2 (B).
    const { result } = replayScript(rows, actions, { queue });
    expect(result.fills.map((fill) => [fill.orderId, fill.qtyLots, fill.atMicros])).toEqual([
      [1, 2, 3_000],
      [1, 1, 5_000],
      [2, 2, 5_000],
    ]);
  });

  it("fills a later order only once the earlier ones at its price are filled, whatever the estimates say", () => {
    // A (3 lots) arrives behind 10, 4 join, B (5 lots) arrives behind 14, 6 join (20). 10 are cancelled (20 -> 10),
    // split by a user function: ahead when 12 or more are ahead, else behind. A (10 ahead, 10 behind): behind, still
    // 10 ahead. B (14 ahead, 6 behind): ahead, 14 - 10 = 4 ahead, fewer than A although B came later.
    // A sell of 8 at 3 ms: A 10 - 8 = 2 ahead, no fill; B, at -4, would take 4 - 3 (A's lots) = 1, but A is not filled.
    const cancelRows = [
      snapshot(1_000, [[100, 10]], [[105, 5]]),
      update(1_200, [[100, 14]], []),
      update(1_700, [[100, 20]], []),
      update(2_000, [[100, 10]], []),
      update(3_000, [[100, 2]], []),
      trades(4_000, [{ side: "A", price: 100, qty: 8, matchMs: 3 }]),
    ];
    const queue = probabilisticQueue((ahead) => (ahead >= 12 ? 1 : 0));
    const { result } = replayScript(cancelRows, actions, { queue });
    expect(result.fills).toEqual([]);
  });
});
