/**
 * Cross margin, kept incrementally.
 *
 * Per account (one balance for all perp markets):
 *   margin balance   = settlement balance + collateral value
 *                      + unrealized PnL at mark + unrealized funding
 *   unrealized PnL   = sum over positions of qty x mark - cost basis
 *   initial req.     = sum |qty| x mark x max(initialMarginParameter, 1/maxLeverage)
 *   liquidation req. = sum |qty| x mark x liquidationMarginParameter
 * (the 1/maxLeverage floor applies to the initial requirement only: with it
 * the liquidation requirement could equal the initial one, and an account
 * would be liquidated the moment it opened at full leverage.)
 *
 * Every position keeps its contribution to each sum; `refreshPosition`
 * recomputes one position's contributions and moves the account's sums by
 * the difference. A position changes on a trade, a pending match, a resting
 * order or a mark change (which refreshes only that market's holders), so a
 * pre-trade check reads O(1) sums and never walks the positions.
 *
 * Two views: SETTLED (positions and balances as settled; used for
 * liquidation and for the chain's validateMatch) and EFFECTIVE (settled plus
 * pending matches, minus pending fees; used by pre-trade and match-time
 * checks). Funding accrues on settled positions only:
 *   unrealized funding(t) = floor((f0 + f1 x t) / 10^18)
 * where each position adds units x (anchor value +- slope x anchor) - basis
 * to f0 and -+ units x slope to f1 (see funding.ts), exact.
 * Requirements round up, funding down: a check never passes on a rounding.
 */
import { type Claim, type Money, type Price, type Qty, type RateFraction, abs, divFloorE18, max, mulFractionCeil } from "./fixed.ts";
import type { AccountState, PerpMarketState, PositionState } from "./state.ts";

/** The account's perp position record in a market, created empty on first use. */
export function positionOf(account: AccountState, market: PerpMarketState): PositionState {
  const existing = account.positions.get(market.config.marketId);
  if (existing !== undefined) return existing;
  const position: PositionState = {
    account,
    market,
    q: 0n,
    k: 0n,
    b: 0n,
    openingFees: 0n,
    lastSeq: 0,
    pq: 0n,
    pk: 0n,
    restBuy: 0n,
    restSell: 0n,
    upnlC: 0n,
    upnlSC: 0n,
    imC: 0n,
    imSC: 0n,
    lmC: 0n,
    lmSC: 0n,
    imOrdersC: 0n,
    f0C: 0n,
    f1C: 0n,
    shown: undefined,
  };
  account.positions.set(market.config.marketId, position);
  market.holders.set(account.id, position);
  return position;
}

/** Whether a position holds nothing that counts (the refreshes drop such a record from its account and market). */
export function isEmptyPosition(position: PositionState): boolean {
  return (
    position.q === 0n &&
    position.k === 0n &&
    position.b === 0n &&
    position.pq === 0n &&
    position.pk === 0n &&
    position.restBuy === 0n &&
    position.restSell === 0n &&
    position.openingFees === 0n
  );
}

/**
 * Recomputes one position's contributions and moves the account's sums by
 * the difference. Call it whenever a settled input changes: q, k, b, the
 * market's mark or its funding anchors; the cheaper refreshEffective,
 * refreshOrders and refreshFunding below rely on the other contributions
 * being current.
 */
export function refreshPosition(position: PositionState): void {
  const { account, market } = position;
  const { imFraction, lmFraction } = market;
  const mark = market.mark;
  const { q, k } = position;
  valueAt(q, k, mark, imFraction, lmFraction);
  const upnlSC = valued.upnl;
  const imSC = valued.im;
  const lmSC = valued.lm;
  // Without pending matches the effective view is the settled one: compute it once.
  let qEff = q;
  if (position.pq !== 0n || position.pk !== 0n) {
    qEff = q + position.pq;
    valueAt(qEff, k + position.pk, mark, imFraction, lmFraction);
  }
  const { upnl: upnlC, im: imC, lm: lmC } = valued;
  const imOrdersC = ordersContribution(position, qEff, imC);
  if (position.pq === 0n && position.pk === 0n && position.upnlC === position.upnlSC && position.imC === position.imSC && position.lmC === position.lmSC) {
    // Nothing pending, now or at the last refresh: each effective contribution is the settled one, before and
    // after, so each sum pair moves by one difference.
    if (upnlSC !== position.upnlSC) {
      const difference = upnlSC - position.upnlSC;
      account.upnlS += difference;
      account.upnl += difference;
      position.upnlSC = position.upnlC = upnlSC;
    }
    if (imSC !== position.imSC) {
      const difference = imSC - position.imSC;
      account.imS += difference;
      account.im += difference;
      position.imSC = position.imC = imSC;
    }
    if (lmSC !== position.lmSC) {
      const difference = lmSC - position.lmSC;
      account.lmS += difference;
      account.lm += difference;
      position.lmSC = position.lmC = lmSC;
    }
  } else {
    if (upnlSC !== position.upnlSC) {
      account.upnlS += upnlSC - position.upnlSC;
      position.upnlSC = upnlSC;
    }
    if (imSC !== position.imSC) {
      account.imS += imSC - position.imSC;
      position.imSC = imSC;
    }
    if (lmSC !== position.lmSC) {
      account.lmS += lmSC - position.lmSC;
      position.lmSC = lmSC;
    }
  }
  moveEffective(position, upnlC, imC, lmC, imOrdersC);
  moveFunding(position);
  dropIfEmpty(position);
}

/**
 * What valueAt computed (module scratch, read at once: three results without
 * an object per call).
 */
const valued = { upnl: 0n, im: 0n, lm: 0n };

/**
 * Unrealized PnL and the initial and liquidation requirements of quantity q
 * at cost k, at `mark` (at cost, with no PnL, before any mark), into
 * `valued`. Nothing is multiplied for an empty position (q = k = 0).
 */
function valueAt(q: Qty, k: Money, mark: Price | undefined, imRate: RateFraction, lmRate: RateFraction): void {
  if (q === 0n && k === 0n) {
    valued.upnl = 0n;
    valued.im = 0n;
    valued.lm = 0n;
    return;
  }
  let notional: Money;
  if (mark === undefined) {
    valued.upnl = 0n;
    notional = abs(k);
  } else {
    // |q| x mark is |q x mark| (a mark is positive): one product for both.
    const value = q * mark;
    valued.upnl = value - k;
    notional = value < 0n ? -value : value;
  }
  valued.im = mulFractionCeil(notional, imRate);
  valued.lm = mulFractionCeil(notional, lmRate);
}

/** Moves the account's effective sums to the position's new contributions (unchanged ones cost a compare). */
function moveEffective(position: PositionState, upnlC: Money, imC: Money, lmC: Money, imOrdersC: Money): void {
  const account = position.account;
  if (upnlC !== position.upnlC) {
    account.upnl += upnlC - position.upnlC;
    position.upnlC = upnlC;
  }
  if (imC !== position.imC) {
    account.im += imC - position.imC;
    position.imC = imC;
  }
  if (lmC !== position.lmC) {
    account.lm += lmC - position.lmC;
    position.lmC = lmC;
  }
  if (imOrdersC !== position.imOrdersC) {
    account.imOrders += imOrdersC - position.imOrdersC;
    position.imOrdersC = imOrdersC;
  }
}

/** Recomputes the funding contributions f0C and f1C of a settled position (see funding.ts rebaseFunding). */
function moveFunding(position: PositionState): void {
  const { account, q } = position;
  const funding = position.market.funding;
  let f0C: Claim = position.b === 0n ? 0n : -position.b;
  let f1C: Claim = 0n;
  if (q !== 0n) {
    f0C = q * (q > 0n ? funding.longBase : funding.shortBase) - position.b;
    f1C = q * funding.negSlope;
  }
  if (f0C !== position.f0C) {
    account.f0 += f0C - position.f0C;
    position.f0C = f0C;
  }
  if (f1C !== position.f1C) {
    account.f1 += f1C - position.f1C;
    position.f1C = f1C;
  }
}

/**
 * Recomputes the funding contributions alone, when only the market's
 * funding moved (a new rate at the same mark, a socialized loss): the
 * valuation contributions depend on neither and stay.
 */
export function refreshFunding(position: PositionState): void {
  moveFunding(position);
}

/**
 * The initial requirement with resting orders: exposure max(|qEff + buys|,
 * |qEff - sells|) at mark (at cost before any mark); without resting orders
 * that is the position's own `imC`.
 */
function ordersContribution(position: PositionState, qEff: Qty, imC: Money): Money {
  const { restBuy, restSell } = position;
  if (restBuy === 0n && restSell === 0n) return imC;
  const mark = position.market.mark;
  if (mark === undefined) return imC; // at cost, resting orders add nothing
  return mulFractionCeil(max(abs(qEff + restBuy), abs(qEff - restSell)) * mark, position.market.imFraction);
}

/**
 * Recomputes what pending matches move (effective PnL, requirements and the
 * requirement with orders) when only pq, pk or the resting quantities
 * changed: the settled contributions depend on none of them and stay.
 * `qEff` is q + pq, for a caller that has it at hand.
 */
export function refreshEffective(position: PositionState, qEff: Qty = effectiveQty(position)): void {
  if (position.pq === 0n && position.pk === 0n) {
    // Nothing pending (the last pending match released): the effective view is the settled one, and its
    // contributions are current.
    moveEffective(position, position.upnlSC, position.imSC, position.lmSC, ordersContribution(position, qEff, position.imSC));
  } else {
    const { imFraction, lmFraction } = position.market;
    valueAt(qEff, position.k + position.pk, position.market.mark, imFraction, lmFraction);
    const { upnl: upnlC, im: imC, lm: lmC } = valued;
    moveEffective(position, upnlC, imC, lmC, ordersContribution(position, qEff, imC));
  }
  dropIfEmpty(position);
}

/** Settled plus pending quantity (no sum made when nothing is pending). */
export function effectiveQty(position: PositionState): Qty {
  return position.pq === 0n ? position.q : position.q + position.pq;
}

/** Recomputes the requirement with orders alone, when only the resting quantities changed. */
export function refreshOrders(position: PositionState): void {
  const imOrdersC = ordersContribution(position, effectiveQty(position), position.imC);
  if (imOrdersC !== position.imOrdersC) {
    position.account.imOrders += imOrdersC - position.imOrdersC;
    position.imOrdersC = imOrdersC;
  }
  dropIfEmpty(position);
}

function dropIfEmpty(position: PositionState): void {
  if (isEmptyPosition(position)) {
    position.account.positions.delete(position.market.config.marketId);
    position.market.holders.delete(position.account.id);
  }
}

/** Unrealized funding of the account's settled positions at `atMicros` (rounded down). */
export function unrealizedFunding(account: AccountState, atMicros: number): Money {
  if (account.f1 === 0n) return account.f0 === 0n ? 0n : divFloorE18(account.f0);
  return divFloorE18(account.f0 + account.f1 * bigMicros(atMicros));
}

// The last time converted to a bigint: a mark move checks every holder at one time (one conversion, not one each).
let lastMicros = 0;
let lastMicrosBig = 0n;

/** BigInt(atMicros), remembered for the last value asked. */
function bigMicros(atMicros: number): bigint {
  if (atMicros !== lastMicros) {
    lastMicrosBig = BigInt(atMicros);
    lastMicros = atMicros;
  }
  return lastMicrosBig;
}

/** Margin balance on settled state. */
export function equitySettled(account: AccountState, atMicros: number): Money {
  return marginBalance(account, account.upnlS, atMicros);
}

/** Margin balance counting pending matches (and their fees). */
export function equityEffective(account: AccountState, atMicros: number): Money {
  const balance = marginBalance(account, account.upnl, atMicros);
  return account.pendingFees === 0n ? balance : balance - account.pendingFees;
}

/**
 * The effective margin balance that effective-state checks (admission,
 * match time) count: equityEffective less what pending spot fills take from
 * margin (account.pendingSpotLoss). The published margin balance is
 * equityEffective; a pending spot fill's gain counts once it settles.
 */
export function equityForChecks(account: AccountState, atMicros: number): Money {
  const equity = equityEffective(account, atMicros);
  return account.pendingSpotLoss === 0n ? equity : equity - account.pendingSpotLoss;
}

/** Settlement balance + collateral value + `upnl` + unrealized funding (zero terms are not added). */
function marginBalance(account: AccountState, upnl: Money, atMicros: number): Money {
  let balance = upnl === 0n ? account.settlementBalance : account.settlementBalance + upnl;
  if (account.collateral !== 0n) balance += account.collateral;
  const funding = unrealizedFunding(account, atMicros);
  return funding === 0n ? balance : balance + funding;
}

/** True when the account holds settled positions and its settled margin is below the liquidation requirement. */
export function isLiquidatable(account: AccountState, atMicros: number): boolean {
  return account.lmS > 0n && equitySettled(account, atMicros) < account.lmS;
}

/** The failure of a fill's margin check: the free-margin change and what is missing (Money). */
export interface MarginShortfall {
  readonly delta: Money;
  readonly shortfall: Money;
  readonly belowLiquidation: boolean;
}

/**
 * Margin check of one side of a fill: `delta` (signed qty) at `price`, the
 * account paying `fee`. A fill that does not grow the position's size always
 * passes (reducing is always allowed). Otherwise the account must not be
 * below its liquidation requirement (effective view only) and, after the
 * fill, margin balance + delta x (mark - price) - fee >= initial requirement.
 * The effective view's margin balance is equityForChecks (pending spot
 * fills' losses taken out).
 */
export function fillMarginShortfall(
  position: PositionState | undefined,
  account: AccountState,
  market: PerpMarketState,
  fill: { readonly delta: Qty; readonly price: Price; readonly fee: Money; readonly atMicros: number; readonly settled: boolean },
): MarginShortfall | null {
  const { delta, price, fee, atMicros, settled } = fill;
  const q = position === undefined ? 0n : settled ? position.q : effectiveQty(position);
  const sizeAfter = abs(q + delta);
  if (sizeAfter <= abs(q)) return null;
  const mark = market.mark ?? price;
  const equity = settled ? equitySettled(account, atMicros) : equityForChecks(account, atMicros);
  const imBefore = settled ? account.imS : account.im;
  const own = position === undefined ? 0n : settled ? position.imSC : position.imC;
  const required = (own === 0n ? imBefore : imBefore - own) + mulFractionCeil(sizeAfter * mark, market.imFraction);
  const moved = mark === price ? equity : equity + delta * (mark - price);
  const equityAfter = fee === 0n ? moved : moved - fee;
  const belowLiquidation = !settled && equity < account.lm;
  if (!belowLiquidation && equityAfter >= required) return null;
  return {
    delta: equityAfter - required - (equity - imBefore),
    shortfall: max(required - equityAfter, 0n),
    belowLiquidation,
  };
}
