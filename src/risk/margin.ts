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
import { E18, type Money, type Price, type Qty, abs, divRound, max, mulRateCeil } from "./fixed.ts";
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

function isEmpty(position: PositionState): boolean {
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
 * market's mark or its funding anchors; the cheaper refreshEffective and
 * refreshOrders below rely on the settled contributions being current.
 */
export function refreshPosition(position: PositionState): void {
  const { account, market } = position;
  const { imRate, lmRate } = market.config;
  const mark = market.mark;
  const { q, k } = position;
  // Without pending matches the effective view is the settled one: compute it once.
  const hasPending = position.pq !== 0n || position.pk !== 0n;
  const qEff = hasPending ? q + position.pq : q;
  const kEff = hasPending ? k + position.pk : k;
  let upnlC = 0n;
  let upnlSC = 0n;
  let notional: Money;
  let notionalS: Money;
  if (mark === undefined) {
    // No mark yet: value positions at cost (no unrealized PnL).
    notional = abs(kEff);
    notionalS = hasPending ? abs(k) : notional;
  } else {
    upnlC = qEff * mark - kEff;
    upnlSC = hasPending ? q * mark - k : upnlC;
    notional = abs(qEff) * mark;
    notionalS = hasPending ? abs(q) * mark : notional;
  }
  const imC = mulRateCeil(notional, imRate);
  const lmC = mulRateCeil(notional, lmRate);
  const imSC = hasPending ? mulRateCeil(notionalS, imRate) : imC;
  const lmSC = hasPending ? mulRateCeil(notionalS, lmRate) : lmC;
  const imOrdersC = ordersContribution(position, qEff, imC);
  let f0C = 0n;
  let f1C = 0n;
  if (q !== 0n) {
    const funding = market.funding;
    const anchor = BigInt(funding.anchorMicros);
    if (q > 0n) {
      f0C = q * (funding.longAnchor + funding.slope * anchor) - position.b;
      f1C = -q * funding.slope;
    } else {
      const units = -q;
      f0C = units * (funding.shortAnchor - funding.slope * anchor) - position.b;
      f1C = units * funding.slope;
    }
  } else {
    f0C = -position.b;
  }
  account.upnl += upnlC - position.upnlC;
  account.upnlS += upnlSC - position.upnlSC;
  account.im += imC - position.imC;
  account.imS += imSC - position.imSC;
  account.lm += lmC - position.lmC;
  account.lmS += lmSC - position.lmSC;
  account.imOrders += imOrdersC - position.imOrdersC;
  account.f0 += f0C - position.f0C;
  account.f1 += f1C - position.f1C;
  position.upnlC = upnlC;
  position.upnlSC = upnlSC;
  position.imC = imC;
  position.imSC = imSC;
  position.lmC = lmC;
  position.lmSC = lmSC;
  position.imOrdersC = imOrdersC;
  position.f0C = f0C;
  position.f1C = f1C;
  dropIfEmpty(position);
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
  return mulRateCeil(max(abs(qEff + restBuy), abs(qEff - restSell)) * mark, position.market.config.imRate);
}

/**
 * Recomputes what pending matches move (effective PnL, requirements and the
 * requirement with orders) when only pq, pk or the resting quantities
 * changed: the settled contributions depend on none of them and stay.
 */
export function refreshEffective(position: PositionState): void {
  const { account, market } = position;
  const { imRate, lmRate } = market.config;
  const mark = market.mark;
  const qEff = position.q + position.pq;
  const kEff = position.k + position.pk;
  let upnlC = 0n;
  let notional: Money;
  if (mark === undefined) {
    notional = abs(kEff);
  } else {
    upnlC = qEff * mark - kEff;
    notional = abs(qEff) * mark;
  }
  const imC = mulRateCeil(notional, imRate);
  const lmC = mulRateCeil(notional, lmRate);
  const imOrdersC = ordersContribution(position, qEff, imC);
  account.upnl += upnlC - position.upnlC;
  account.im += imC - position.imC;
  account.lm += lmC - position.lmC;
  account.imOrders += imOrdersC - position.imOrdersC;
  position.upnlC = upnlC;
  position.imC = imC;
  position.lmC = lmC;
  position.imOrdersC = imOrdersC;
  dropIfEmpty(position);
}

/** Recomputes the requirement with orders alone, when only the resting quantities changed. */
export function refreshOrders(position: PositionState): void {
  const imOrdersC = ordersContribution(position, position.q + position.pq, position.imC);
  position.account.imOrders += imOrdersC - position.imOrdersC;
  position.imOrdersC = imOrdersC;
  dropIfEmpty(position);
}

function dropIfEmpty(position: PositionState): void {
  if (isEmpty(position)) {
    position.account.positions.delete(position.market.config.marketId);
    position.market.holders.delete(position.account.id);
  }
}

/** Unrealized funding of the account's settled positions at `atMicros` (rounded down). */
export function unrealizedFunding(account: AccountState, atMicros: number): Money {
  return divRound(account.f0 + account.f1 * BigInt(atMicros), E18, "floor");
}

/** Margin balance on settled state. */
export function equitySettled(account: AccountState, atMicros: number): Money {
  return account.settlementBalance + account.collateral + account.upnlS + unrealizedFunding(account, atMicros);
}

/** Margin balance counting pending matches (and their fees). */
export function equityEffective(account: AccountState, atMicros: number): Money {
  return equitySettled(account, atMicros) - account.upnlS + account.upnl - account.pendingFees;
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
 */
export function fillMarginShortfall(
  position: PositionState | undefined,
  account: AccountState,
  market: PerpMarketState,
  fill: { readonly delta: Qty; readonly price: Price; readonly fee: Money; readonly atMicros: number; readonly settled: boolean },
): MarginShortfall | null {
  const { delta, price, fee, atMicros, settled } = fill;
  const q = position === undefined ? 0n : settled ? position.q : position.q + position.pq;
  const after = q + delta;
  if (abs(after) <= abs(q)) return null;
  const mark = market.mark ?? price;
  const equity = settled ? equitySettled(account, atMicros) : equityEffective(account, atMicros);
  const imBefore = settled ? account.imS : account.im;
  const imOthers = imBefore - (position === undefined ? 0n : settled ? position.imSC : position.imC);
  const required = imOthers + mulRateCeil(abs(after) * mark, market.config.imRate);
  const equityAfter = equity + delta * (mark - price) - fee;
  const belowLiquidation = !settled && equity < account.lm;
  if (!belowLiquidation && equityAfter >= required) return null;
  return {
    delta: equityAfter - required - (equity - imBefore),
    shortfall: max(required - equityAfter, 0n),
    belowLiquidation,
  };
}
