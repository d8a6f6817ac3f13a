/**
 * The matching round of one taker against the opposite side of the book.
 *
 * Fill rules:
 * - Price-time priority. The taker meets the best opposite level first, and
 *   within a level the oldest resting order first (FIFO).
 * - A level is matchable while its price crosses or touches the taker's
 *   limit: ask <= limit for a buy, bid >= limit for a sell.
 * - Every fill executes at the resting maker's price, never the taker's.
 * - One match is one fill: quantity min(taker remaining, maker remaining),
 *   one fill id. A maker left with nothing leaves the book; a partly
 *   filled maker keeps its place.
 * - Self-trade prevention (cancel-taker): when the next maker belongs to the
 *   taker's account, the round stops and the taker's remainder is cancelled
 *   (SELF_TRADE_PREVENTION); the maker is untouched and the fills already
 *   made stand. There is never a partial self-fill. Exception: a fired
 *   protective child cancels its own account's makers
 *   (PROTECTIVE_SELF_TRADE_SWEEP) and goes on.
 * - A fired protective child resting as a maker is reduce-only at match
 *   time: a fill against it is cut to its account's position left at that
 *   moment (earlier fills of the round count: the position query sees
 *   pending fills), and a child with nothing left to reduce is cancelled
 *   (POSITION_CLOSED) and the round goes on. Without this, a taker filling
 *   the account's other orders first could fill the child past the
 *   position and open one the other way.
 * - Before a fill, the risk hook may cancel the maker (RISK_CANCELLED; the
 *   round goes on with the next maker) or reject the taker (RISK_REJECTED;
 *   the round stops and the remainder is cancelled).
 * - The round ends when the taker is filled, the opposite side no longer
 *   crosses, or one of the stops above. What happens to the remainder
 *   (rest, or cancel with IOC_REMAINDER / NO_LIQUIDITY) is the caller's.
 * - Nothing here queues or cancels the taker itself: the taker is not in
 *   the book during its round.
 */
import { assert } from "../core/assert.ts";
import type { BookSide } from "./book-side.ts";
import type { Order } from "./order.ts";
import type { CancelReason, FillVerdict } from "./types.ts";

export type RoundStop = "none" | "self-trade" | "risk-rejected";

/** What one round did; reused between rounds (reset by `matchTaker`). */
export class MatchRound {
  execLots = 0;
  fillCount = 0;
  /** Index of the round's first fill in the fill-id sequence, or -1. */
  firstFill = -1;
  stop: RoundStop = "none";

  reset(): void {
    this.execLots = 0;
    this.fillCount = 0;
    this.firstFill = -1;
    this.stop = "none";
  }
}

export interface MatchHost {
  /** Lots a fired child resting as a maker may still fill: what is left of its account's position on the side it reduces (<= 0: none). */
  childReducibleLots(maker: Order): number;
  /** The risk hook's verdict on a proposed fill. */
  verdict(taker: Order, maker: Order, lots: number, priceTicks: number): FillVerdict;
  /** Applies one fill (ids, quantities, events, the maker's removal when filled) and records it in `round`. */
  applyFill(taker: Order, maker: Order, lots: number, priceTicks: number, round: MatchRound): void;
  /** Cancels a resting maker for `reason`. */
  cancelMaker(maker: Order, reason: CancelReason): void;
}

export function matchTaker(host: MatchHost, taker: Order, makers: BookSide, round: MatchRound): void {
  round.reset();
  assert(taker.level === null, "a taker is not in the book during its round");
  const isBuy = taker.isBuy;
  const limit = taker.priceTicks;
  const sweepsOwnMakers = taker.isFiredChild;
  while (taker.cumLots < taker.qtyLots) {
    const level = makers.best();
    if (level === undefined || (isBuy ? level.priceTicks > limit : level.priceTicks < limit)) return;
    const maker = level.head!;
    if (maker.accountId === taker.accountId) {
      if (!sweepsOwnMakers) {
        round.stop = "self-trade";
        return;
      }
      host.cancelMaker(maker, "PROTECTIVE_SELF_TRADE_SWEEP");
      continue;
    }
    let lots = Math.min(taker.qtyLots - taker.cumLots, maker.qtyLots - maker.cumLots);
    if (maker.isFiredChild) {
      const reducible = host.childReducibleLots(maker);
      if (reducible <= 0) {
        host.cancelMaker(maker, "POSITION_CLOSED");
        continue;
      }
      if (reducible < lots) lots = reducible;
    }
    const verdict = host.verdict(taker, maker, lots, level.priceTicks);
    if (verdict === "cancel-maker") {
      host.cancelMaker(maker, "RISK_CANCELLED");
      continue;
    }
    if (verdict === "reject-taker") {
      round.stop = "risk-rejected";
      return;
    }
    host.applyFill(taker, maker, lots, level.priceTicks, round);
  }
}
