/**
 * Position accounting on settled executions.
 *
 * A position keeps its signed quantity q, its cost basis k (sum of signed
 * qty x price, exact at 10^36) and its funding basis b (units x funding value
 * at entry, exact at 10^54). Then
 *   avgEntryPrice        = k / q            (display: half-even, 18 digits)
 *   avgEntryFundingValue = b / |q|
 * which is volume-weighted on increase, reset on flip, and on reduce
 * unchanged but for the rounding of what was realized: the bases move by
 * exactly the rounded amount (below), so a partial close can move the
 * displayed averages in their last digits (2996.666666666666666667 to
 * 2996.66666675 after closing 2 of 6 units), which keeps every claim left
 * on the position exact.
 *
 * A reducing trade of c units (c <= |q|) at price p realizes the share c/|q|
 * of the position's claims:
 *   priceVariationPnl = (q x p - k) x c / |q|
 *   fundingPnl        = (|q| x fundingValue - b) x c / |q|
 * each rounded once, half-even, to the settlement asset's decimals; the
 * bases then move by exactly what was realized, so the claims left on the
 * position stay exact:
 *   k' = k + d x p + priceVariationPnl      (d: the signed trade quantity)
 *   b' = b - c x fundingValue + fundingPnl
 * On a full close the bases go to zero and the remainder of the rounding
 * (below half a unit of the last decimal) goes to the state's rounding
 * residual. A flip is a full close followed by an opening at the same price.
 * Opening fees (the fees of the executions that opened the position) are
 * allocated to closes the same way: share c/|q|, half-even.
 */
import { E18, type Money, type Price, type Qty, abs, formatScaled, divRound, min, roundMoney, roundMoneyRatio, sign } from "./fixed.ts";
import { longValueAt, shortValueAt } from "./funding.ts";
import type { PositionState, RiskState } from "./state.ts";
import type { PositionView } from "./types.ts";

export interface LegResult {
  /** Units closed (0 when the trade only extended the position). */
  readonly closed: Qty;
  /** Units opened or added. */
  readonly opened: Qty;
  readonly pricePnl: Money;
  readonly fundingPnl: Money;
  /** Opening fees allocated to the closed units. */
  readonly openingFee: Money;
}

/**
 * Applies a signed trade quantity `delta` at `price` to a settled position,
 * at virtual time `atMicros` (funding values are read then). Updates q, k, b,
 * openingFees and the state's residual and realized-funding totals; the
 * caller books the PnL and refreshes margin.
 */
export function applyLeg(state: RiskState, position: PositionState, delta: Qty, price: Price, atMicros: number): LegResult {
  const unit = state.settlement.config.unit;
  const funding = position.market.funding;
  let closed = 0n;
  let pricePnl = 0n;
  let fundingPnl = 0n;
  let openingFee = 0n;
  let remaining = delta;
  if (position.q !== 0n && sign(delta) !== sign(position.q)) {
    const units = abs(position.q);
    const c = min(abs(delta), units);
    const value = position.q > 0n ? longValueAt(funding, atMicros) : shortValueAt(funding, atMicros);
    const priceClaim = position.q * price - position.k;
    const fundingClaim = units * value - position.b;
    const closing = position.q > 0n ? -c : c;
    if (c === units) {
      pricePnl = roundMoney(priceClaim, unit);
      if (fundingClaim !== 0n) fundingPnl = roundMoneyRatio(fundingClaim, E18, unit);
      state.roundingResidual += (priceClaim - pricePnl) * E18 + (fundingClaim - fundingPnl * E18);
      state.fundingRealized += fundingClaim;
      openingFee = position.openingFees;
      position.q = 0n;
      position.k = 0n;
      position.b = 0n;
      position.openingFees = 0n;
    } else {
      // A zero claim or fee has a zero share: its rounding and products are skipped.
      pricePnl = roundMoneyRatio(priceClaim * c, units, unit);
      if (fundingClaim !== 0n) fundingPnl = roundMoneyRatio(fundingClaim * c, units * E18, unit);
      if (position.openingFees !== 0n) openingFee = roundMoneyRatio(position.openingFees * c, units, unit);
      const fundingPnlClaim = fundingPnl === 0n ? 0n : fundingPnl * E18;
      if (fundingPnlClaim !== 0n) state.fundingRealized += fundingPnlClaim;
      position.k += closing * price + pricePnl;
      position.b += fundingPnlClaim - c * value;
      if (openingFee !== 0n) position.openingFees -= openingFee;
      position.q += closing;
    }
    closed = c;
    remaining = c === abs(delta) ? 0n : delta - closing;
  }
  if (remaining !== 0n) {
    const value = remaining > 0n ? longValueAt(funding, atMicros) : shortValueAt(funding, atMicros);
    position.k += remaining * price;
    position.b += abs(remaining) * value;
    position.q += remaining;
  }
  return { closed, opened: abs(remaining), pricePnl, fundingPnl, openingFee };
}

/** Spec 2.11 Position of a settled non-zero position. */
export function positionView(state: RiskState, position: PositionState): PositionView {
  const { q, k, b } = position;
  let shown = position.shown;
  if (shown === undefined || shown.q !== q || shown.k !== k || shown.b !== b) {
    const units = abs(q);
    shown = {
      q,
      k,
      b,
      qty: formatScaled(units, 18),
      avgEntryPrice: formatScaled(divRound(abs(k), units, "half-even"), 18),
      avgEntryFundingValue: formatScaled(divRound(b, units * E18, "half-even"), 18),
    };
    position.shown = shown;
  }
  return {
    exchangeId: state.config.exchangeId,
    symbol: position.market.config.symbol,
    accountId: position.account.id,
    qty: shown.qty,
    side: q > 0n ? "B" : "A",
    avgEntryPrice: shown.avgEntryPrice,
    avgEntryFundingValue: shown.avgEntryFundingValue,
    lastTradeSequenceNumber: position.lastSeq,
  };
}
