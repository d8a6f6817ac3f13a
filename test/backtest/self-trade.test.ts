/**
 * An own order that would trade with an own resting order: the exchange's
 * matcher stops the taker at its own maker and cancels its remainder
 * (cancel-taker self-trade prevention, src/engine/matcher.ts; spec
 * cancelReason SELF_TRADE_PREVENTION), and a postOnly order that would
 * cross an own order is rejected. Own resting orders are not in the
 * replayed book, so the replay checks them apart: an own order never rests
 * crossed with another.
 */
import { describe, expect, it } from "vitest";
import { fillTriples, replayScript, snapshot, trades, update } from "./helpers.ts";

// Bids 99: 5; asks 101: 3, 102: 4. Entry and response latency 100 µs.
const rows = [snapshot(1_000, [[99, 5]], [[101, 3], [102, 4]]), update(5_000, [[98, 1]], []), update(9_000, [[97, 1]], [])];

describe("self-trade prevention", () => {
  it("cancels a taker that meets an own resting order first: nothing fills, and both do not rest crossed", () => {
    // The own ask at 100 rests (better than the recorded 101); a buy at 101 meets it before the recorded ask at 101.
    const { result, log } = replayScript(rows, [
      { at: 1_000, submit: { side: "A", priceTicks: 100, qtyLots: 1 } },
      { at: 1_500, submit: { side: "B", priceTicks: 101, qtyLots: 2 } },
    ]);
    expect(fillTriples(result)).toEqual([]);
    expect(log.updates.map((update) => [update.orderId, update.type, update.reason])).toEqual([
      [1, "accepted", ""],
      [2, "cancelled", "self-trade prevention"],
    ]);
  });

  it("fills a taker against the recorded depth before its own maker, then cancels the rest", () => {
    // The own ask at 102 rests behind the 4 recorded there. An IOC buy of 10 at 102 takes 3 at 101 and the 4 ahead
    // of its own ask at 102, then meets that ask: the other 3 are cancelled.
    const { result, log } = replayScript(rows, [
      { at: 1_000, submit: { side: "A", priceTicks: 102, qtyLots: 1 } },
      { at: 1_500, submit: { side: "B", priceTicks: 102, qtyLots: 10, timeInForce: "IOC" } },
    ]);
    expect(fillTriples(result)).toEqual([
      [101, 3, false],
      [102, 4, false],
    ]);
    expect(log.updates.map((update) => [update.orderId, update.type, update.reason])).toEqual([
      [1, "accepted", ""],
      [2, "cancelled", "self-trade prevention"],
    ]);
  });

  it("moves the own maker up by the recorded lots the own taker took ahead of it", () => {
    // As above, with a buy of 1 at 102 matched at 5 ms: the own ask, now first at 102 (the 4 ahead were taken), fills.
    const withTrade = [...rows.slice(0, 2), trades(6_000, [{ side: "B", price: 102, qty: 1, matchMs: 5 }]), rows[2]!];
    const { result } = replayScript(withTrade, [
      { at: 1_000, submit: { side: "A", priceTicks: 102, qtyLots: 1 } },
      { at: 1_500, submit: { side: "B", priceTicks: 102, qtyLots: 10, timeInForce: "IOC" } },
    ]);
    expect(result.fills.map((fill) => [fill.orderId, fill.priceTicks, fill.qtyLots, fill.maker])).toEqual([
      [2, 101, 3, false],
      [2, 102, 4, false],
      [1, 102, 1, true],
    ]);
  });

  it("rejects a postOnly order that would cross an own resting order", () => {
    const { result, log } = replayScript(rows, [
      { at: 1_000, submit: { side: "A", priceTicks: 100, qtyLots: 1 } },
      { at: 1_500, submit: { side: "B", priceTicks: 100, qtyLots: 1, postOnly: true } },
    ]);
    expect(fillTriples(result)).toEqual([]);
    expect(log.updates.map((update) => [update.orderId, update.type, update.reason])).toEqual([
      [1, "accepted", ""],
      [2, "rejected", "postOnly would cross"],
    ]);
    expect(result.counts.rejected).toBe(1);
  });
});
