/**
 * Open interest: one-sided, in units. Long OI (sum of long positions) equals
 * short OI (sum of short positions) after every applied match; both are kept
 * for settled state and for effective state (settled + pending).
 *
 * Enforcement (oiCap, an aggregate over all accounts):
 *  - admission: the order's opening part (the quantity that would grow the
 *    account's position, at most the whole order) is what it can add to OI.
 *    OPEN_INTEREST_CAP_ERROR when OI is already at the cap,
 *    OPEN_INTEREST_BUDGET_ERROR when the opening part exceeds the room left;
 *  - match time: a fill whose OI increase would pass the cap cancels the
 *    maker (RISK_CANCELLED) when the maker's position grows, so matching goes
 *    on with the next maker (one that reduces leaves OI as it is); otherwise
 *    it rejects the taker (RISK_REJECTED).
 */
import { rejection } from "./accounts.ts";
import { type Qty, abs, formatScaled, max } from "./fixed.ts";
import type { PerpMarketState } from "./state.ts";
import type { RiskRejection } from "./types.ts";

/** Moves the market's OI for a position going from `before` to `after`. */
export function moveOpenInterest(market: PerpMarketState, before: Qty, after: Qty, settled: boolean): void {
  if (before === after) return;
  // The long side moves by max(after, 0) - max(before, 0), the short side by min(before, 0) - min(after, 0):
  // each difference is made only when it is not zero.
  const longBefore = before > 0n ? before : 0n;
  const longAfter = after > 0n ? after : 0n;
  if (longBefore !== longAfter) {
    if (settled) market.oiLong += longAfter - longBefore;
    else market.oiLongEff += longAfter - longBefore;
  }
  const shortBefore = before < 0n ? before : 0n;
  const shortAfter = after < 0n ? after : 0n;
  if (shortBefore !== shortAfter) {
    if (settled) market.oiShort += shortBefore - shortAfter;
    else market.oiShortEff += shortBefore - shortAfter;
  }
}

/** The part of a signed trade quantity that grows a position of `q`. */
export function openingQty(q: Qty, delta: Qty): Qty {
  if (q === 0n || (q > 0n) === (delta > 0n)) return abs(delta);
  return max(abs(delta) - abs(q), 0n);
}

export function checkOrderOpenInterest(market: PerpMarketState, q: Qty, delta: Qty): RiskRejection | null {
  const opening = openingQty(q, delta);
  if (opening === 0n) return null;
  const { oiCap, symbol } = market.config;
  const oi = market.oiLongEff;
  if (oi >= oiCap) {
    return rejection("OPEN_INTEREST_CAP_ERROR", `open interest "${formatScaled(oi, 18)}" of ${symbol} is at its oiCap "${formatScaled(oiCap, 18)}"`);
  }
  if (opening > oiCap - oi) {
    return rejection(
      "OPEN_INTEREST_BUDGET_ERROR",
      `order would open "${formatScaled(opening, 18)}" on ${symbol} but only "${formatScaled(oiCap - oi, 18)}" is left under oiCap "${formatScaled(oiCap, 18)}"`,
    );
  }
  return null;
}

/** Which side of a fill fails the cap, if any: the maker when it grows its position, else the taker. */
export function fillOpenInterestBreach(market: PerpMarketState, qTaker: Qty, qMaker: Qty, takerDelta: Qty, settled: boolean): "taker" | "maker" | null {
  const takerAfter = qTaker + takerDelta;
  const makerAfter = qMaker - takerDelta;
  const longDelta = max(takerAfter, 0n) - max(qTaker, 0n) + max(makerAfter, 0n) - max(qMaker, 0n);
  if (longDelta <= 0n) return null;
  const oi = settled ? market.oiLong : market.oiLongEff;
  if (oi + longDelta <= market.config.oiCap) return null;
  return abs(makerAfter) > abs(qMaker) ? "maker" : "taker";
}
