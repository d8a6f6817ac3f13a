/**
 * A trade's lots are netted out of its level's change in the depth frame the
 * tape placed the trade before, and in no later frame (queue.ts, "Trades and
 * depth changes"): a trade whose volume never showed as a decrease (joiners
 * at its price made up for it in the same frame) must not take a later
 * genuine cancel for its own decrease.
 */
import { describe, expect, it } from "vitest";
import { probabilisticQueue, riskAverseQueue } from "../../src/backtest/queue.ts";
import { fillTriples, replayScript, snapshot, trades, update } from "./helpers.ts";

describe("trade netting", () => {
  // Bid 100 holds 10 when the own buy (5 lots) arrives at 1.1 ms: 10 ahead.
  // 2 ms: a sell of 4 matches at 100 and 4 lots join at 100 in the same moment: the level still holds 10, and the
  //   frame of that millisecond changes only the ask (the trade finds no decrease and goes before this frame).
  // 3 ms: 4 lots are cancelled at 100 (10 -> 6), no trade.
  // 4 ms: a sell of 5 matches at 100 (6 -> 1).
  const rows = [
    snapshot(1_000, [[100, 10]], [[105, 5]]),
    update(2_000, [], [[105, 6]]),
    update(3_000, [[100, 6]], []),
    update(4_000, [[100, 1]], []),
    trades(5_000, [{ side: "A", price: 100, qty: 4, matchMs: 2 }]),
    trades(6_000, [{ side: "A", price: 100, qty: 5, matchMs: 4 }]),
  ];
  const buy = [{ at: 1_000, submit: { side: "B", priceTicks: 100, qtyLots: 5 } }] as const;

  it("a trade with no decrease in its frame does not hold back a later cancel", () => {
    // Every cancel ahead (split 1): trade 4: 6 ahead; its frame leaves 100 unchanged, so its 4 lots are not netted
    // later. Cancel of 4 at 3 ms: 6 - 4 = 2 ahead. Trade 5 at 4 ms: 2 - 5 = -3: 3 lots fill.
    // (Netted against the cancel, the 4 traded lots would make it no cancel: 6 ahead, and the trade of 5 fills none.)
    const { result } = replayScript(rows, buy, { queue: probabilisticQueue(() => 1) });
    expect(fillTriples(result)).toEqual([[100, 3, true]]);
    expect(result.fills[0]!.atMicros).toBe(4_000);
  });

  it("still nets a trade out of the decrease in its own frame", () => {
    // 2 ms: the sell of 4 shows as 10 -> 6 in its frame: netted, no cancel (6 ahead). 3 ms: a cancel of 4 (6 -> 2):
    // 2 ahead. 4 ms: 5 join behind (7). 5 ms: a sell of 5 (7 -> 2), netted in its frame: 2 - 5 = -3: 3 lots fill.
    // (Taken for a cancel as well, the first trade's 4 lots would put the order at the front: 5 lots would fill.)
    const withDecrease = [
      snapshot(1_000, [[100, 10]], [[105, 5]]),
      update(2_000, [[100, 6]], []),
      update(3_000, [[100, 2]], []),
      update(4_000, [[100, 7]], []),
      update(5_000, [[100, 2]], []),
      trades(6_000, [{ side: "A", price: 100, qty: 4, matchMs: 2 }]),
      trades(7_000, [{ side: "A", price: 100, qty: 5, matchMs: 5 }]),
    ];
    const { result } = replayScript(withDecrease, buy, { queue: probabilisticQueue(() => 1) });
    expect(fillTriples(result)).toEqual([[100, 3, true]]);
    expect(result.fills[0]!.atMicros).toBe(5_000);
  });

  it("risk-averse: unchanged (cancels never advance it)", () => {
    // 10 - 4 = 6 -> level 6: 6 -> trade 5: 1 ahead: no fill.
    const { result } = replayScript(rows, buy, { queue: riskAverseQueue });
    expect(result.fills).toEqual([]);
  });
});
