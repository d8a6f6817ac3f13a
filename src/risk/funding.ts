/**
 * Funding.
 *
 * Rate (hourly, a fraction; published x100 as the percentage fundingRate):
 *   rate = clamp((mark - index) / index, -fundingRateCap, +fundingRateCap)
 * rounded half-even to 18 digits, recomputed whenever the mark is.
 *
 * Accrual, continuous on the virtual clock. Between two recomputations the
 * rate and the mark are constant, and so is the slope
 *   slope = rate x mark / 3,600,000,000   (value per unit per microsecond,
 *                                          10^36 scale, half-even)
 * and the funding values are linear in time:
 *   longFundingValue(t)  = longAnchor  - slope x (t - anchor)
 *   shortFundingValue(t) = shortAnchor + slope x (t - anchor)
 * They are evaluated lazily from the anchor, in exact integers, so reading
 * them at any time, as often as wanted, gives the same values (no drift).
 * A recomputation re-anchors at the current values. A positive rate makes
 * longs pay and shorts receive; a position's funding PnL is
 *   units x (fundingValue(t) - avgEntryFundingValue)
 * and since long and short values move by opposite amounts and long OI =
 * short OI, funding paid by longs equals funding received by shorts, until a
 * socialized loss lowers one side's value (then the two differ).
 */
import { assert } from "../core/assert.ts";
import { MICROS_PER_HOUR } from "../core/time.ts";
import { E18, type FundingValue, type Price, type Rate, divRound, max, min } from "./fixed.ts";
import type { FundingState } from "./state.ts";

const MICROS_PER_HOUR_BIG = BigInt(MICROS_PER_HOUR);

export function longValueAt(funding: FundingState, atMicros: number): FundingValue {
  return funding.longAnchor - funding.slope * BigInt(atMicros - funding.anchorMicros);
}

export function shortValueAt(funding: FundingState, atMicros: number): FundingValue {
  return funding.shortAnchor + funding.slope * BigInt(atMicros - funding.anchorMicros);
}

/** The funding value of the side a signed quantity is on (long when positive). */
export function sideValueAt(funding: FundingState, long: boolean, atMicros: number): FundingValue {
  return long ? longValueAt(funding, atMicros) : shortValueAt(funding, atMicros);
}

/** clamp((mark - index) / index, -cap, cap), half-even at 18 digits. */
export function fundingRateFor(mark: Price, index: Price, cap: Rate): Rate {
  if (index <= 0n) assert(false, `index price ${index} must be positive`);
  const premium = divRound((mark - index) * E18, index, "half-even");
  return max(-cap, min(cap, premium));
}

/** rate x mark per microsecond at the 10^36 scale, half-even. */
export function fundingSlope(rate: Rate, mark: Price): FundingValue {
  return divRound(rate * mark, MICROS_PER_HOUR_BIG, "half-even");
}

/** Moves the anchor to `atMicros` and sets the new rate and slope from then on. */
export function reanchorFunding(funding: FundingState, atMicros: number, rate: Rate, mark: Price): void {
  if (!(atMicros >= funding.anchorMicros)) assert(false, `funding time went backwards: ${atMicros} < ${funding.anchorMicros}`);
  funding.longAnchor = longValueAt(funding, atMicros);
  funding.shortAnchor = shortValueAt(funding, atMicros);
  funding.anchorMicros = atMicros;
  funding.rate = rate;
  funding.slope = fundingSlope(rate, mark);
  rebaseFunding(funding);
}

/**
 * Recomputes the funding state's derived terms (longBase, shortBase,
 * negSlope) from its anchors and slope: call it after every change of them.
 * With them a position's funding contributions (margin.ts) are
 *   f0 = q x (q > 0 ? longBase : shortBase) - b,   f1 = q x negSlope
 * which are, exactly, units x (anchor value +- slope x anchorMicros) - b and
 * -+ units x slope (units = |q|): the per-market products are made once per
 * re-anchoring instead of once per position.
 */
export function rebaseFunding(funding: FundingState): void {
  const anchorSlope = funding.slope * BigInt(funding.anchorMicros);
  funding.longBase = funding.longAnchor + anchorSlope;
  funding.shortBase = anchorSlope - funding.shortAnchor;
  funding.negSlope = -funding.slope;
}

/** Lowers one side's funding value by `perUnit` (a socialized loss). */
export function lowerFundingValue(funding: FundingState, long: boolean, perUnit: FundingValue): void {
  if (perUnit < 0n) assert(false, `socialized funding value ${perUnit} must not be negative`);
  if (long) funding.longAnchor -= perUnit;
  else funding.shortAnchor -= perUnit;
  rebaseFunding(funding);
}
