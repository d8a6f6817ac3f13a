/**
 * Exposure that is not settled state: resting orders and pending matches.
 *
 * Resting orders count in pre-trade checks: on a perp, the account's resting
 * buys and sells per market widen its exposure for the initial requirement
 * (max(|q + restingBuys|, |q - restingSells|)); on a spot market they hold
 * balance (a buy holds qty x price of the quote, a sell holds qty of the
 * base). A resting spot order also holds margin: a buy's quote counts in
 * the margin balance (rUSD at par), the base it would buy only after
 * haircut; a sell gives up base worth its haircut value for the quote, so
 * one priced below that value lowers margin too. The part of each order's
 * hold that would lower margin,
 *   restingSpotLoss = sum over the account's resting spot orders of
 *     max(0, -spotMarginChange(±qty of the base, ∓qty x price of the quote))
 *   (a buy: +qty, -qty x price; a sell: -qty, +qty x price)
 * at the current index prices, each valued from the current balances, is
 * taken out of the margin that admission counts (pretrade.ts). Orders fill
 * one at a time, so an order's gain (a buy below the haircut value, a sell
 * above it) offsets no other order's loss. It fills as maker, so no fee is
 * held for it. The account keeps its resting spot orders per market
 * (spotOrders), so this is O(its resting spot orders), 0 at once for an
 * account with none.
 *
 * Pending matches (made by the engine, not yet settled) count as if applied:
 * each side's position and cost move by the fill, the taker's fee reserve is
 * held, spot outflows are held, and effective open interest moves. A spot
 * fill's loss of margin for each side (spotMarginChange below zero, the
 * taker's fee reserve included) is held in the account's pendingSpotLoss; a
 * gain waits for settlement. Each match's contribution is kept by fillId, so
 * releasePending (on settlement or bust) removes exactly what addPending
 * added. Matching a resting order reduces its resting quantity by the fill.
 */
import { assert } from "../core/assert.ts";
import { getAccount } from "./accounts.ts";
import { balanceOf, collateralValue } from "./collateral.ts";
import { feeReserve } from "./fees.ts";
import { E18, type Money, type Qty, min, roundMoney } from "./fixed.ts";
import { effectiveQty, isEmptyPosition, positionOf, refreshEffective, refreshOrders } from "./margin.ts";
import { moveOpenInterest } from "./open-interest.ts";
import type { AccountState, AssetState, PendingState, PerpMarketState, RestingState, RiskState, SpotMarketState } from "./state.ts";
import type { Match, RestingOrder, Side } from "./types.ts";

export function marketOf(state: RiskState, marketId: number): PerpMarketState | SpotMarketState | undefined {
  return state.perps.get(marketId) ?? state.spots.get(marketId);
}

/**
 * Holds (or, with a negative qty, releases) a resting order's quantity. With
 * `revalue` false a perp position's requirement with orders is left stale,
 * for a caller that revalues the position next (addPending: the maker's
 * movePending), unless the position is left empty: that one is revalued,
 * which drops it, as it would be at once otherwise.
 */
function holdResting(state: RiskState, order: RestingState, qty: Qty, revalue = true): void {
  const market = marketOf(state, order.marketId)!;
  if (market.kind === "perp") {
    const position = positionOf(order.account, market);
    if (order.side === "B") position.restBuy += qty;
    else position.restSell += qty;
    if (revalue || isEmptyPosition(position)) refreshOrders(position);
    return;
  }
  if (order.side === "B") balanceOf(order.account, market.quote).reserved += qty * order.price;
  else balanceOf(order.account, market.base).reserved += qty * E18;
}

/** Adds a resting spot order to its account's spotOrders. */
function addSpotOrder(market: SpotMarketState, order: RestingState): void {
  const orders = order.account.spotOrders.get(market);
  if (orders === undefined) order.account.spotOrders.set(market, new Set([order]));
  else orders.add(order);
}

/** Drops a resting spot order (filled or removed) from its account's spotOrders, and the market's entry when it is left empty. */
function dropSpotOrder(market: SpotMarketState, order: RestingState): void {
  const orders = order.account.spotOrders.get(market);
  if (orders === undefined || !orders.delete(order)) assert(false, `order ${order.orderId} is not among the resting spot orders of account ${order.account.id}`);
  if (orders.size === 0) order.account.spotOrders.delete(market);
}

/**
 * The margin change of one side of a spot fill: the account's base balance
 * moves by `baseDelta` and its quote balance by `quoteDelta` (signed Money),
 * each valued as the change of that balance's collateral value (collateral.ts:
 * a holding after haircut, a debt in full, the settlement asset at par).
 * Settled: from the settled balance; otherwise from the balance less its
 * pending outflows (pending inflows are not counted until they settle).
 */
export function spotMarginChange(account: AccountState, market: SpotMarketState, baseDelta: Money, quoteDelta: Money, settled: boolean): Money {
  return balanceMarginChange(account, market.base, baseDelta, settled) + balanceMarginChange(account, market.quote, quoteDelta, settled);
}

function balanceMarginChange(account: AccountState, asset: AssetState, delta: Money, settled: boolean): Money {
  if (asset.config.isSettlement || delta === 0n) return delta;
  const from = valuedBalance(account, asset, settled);
  return collateralValue(asset, from + delta) - collateralValue(asset, from);
}

/** The balance spotMarginChange values a change from: settled, or less its pending outflows. */
function valuedBalance(account: AccountState, asset: AssetState, settled: boolean): Money {
  const balance = account.balances.get(asset.config.symbol);
  return balance === undefined ? 0n : settled ? balance.balance : balance.balance - balance.pendingOut;
}

/**
 * What the account's resting spot orders would take from margin at current
 * index prices: per order, max(0, -spotMarginChange) of its fill as maker,
 * summed (see the module comment). Equal to calling spotMarginChange per
 * order; each market's balances are read and valued once.
 */
export function restingSpotLoss(account: AccountState): Money {
  if (account.spotOrders.size === 0) return 0n;
  let loss = 0n;
  for (const [market, orders] of account.spotOrders) {
    const base = market.base;
    const quote = market.quote;
    const baseFrom = valuedBalance(account, base, false);
    const quoteFrom = valuedBalance(account, quote, false);
    const baseValue = collateralValue(base, baseFrom);
    const quoteValue = collateralValue(quote, quoteFrom);
    for (const order of orders) {
      const baseDelta = order.qty * E18;
      const quoteDelta = order.qty * order.price;
      const change = order.side === "B"
        ? collateralValue(base, baseFrom + baseDelta) - baseValue + (collateralValue(quote, quoteFrom - quoteDelta) - quoteValue)
        : collateralValue(base, baseFrom - baseDelta) - baseValue + (collateralValue(quote, quoteFrom + quoteDelta) - quoteValue);
      if (change < 0n) loss -= change;
    }
  }
  return loss;
}

/** Counts a resting order (or its remainder after matching) from now on. */
export function restOrder(state: RiskState, order: RestingOrder): void {
  if (state.resting.has(order.orderId)) assert(false, `order ${order.orderId} is already resting`);
  if (!(order.qtyLots > 0)) assert(false, `resting qtyLots ${order.qtyLots} must be positive`);
  const market = marketOf(state, order.marketId);
  if (market === undefined) assert(false, `marketId ${order.marketId} does not exist`);
  const resting: RestingState = {
    orderId: order.orderId,
    account: getAccount(state, order.accountId),
    marketId: order.marketId,
    side: order.side,
    qty: market.lots.of(order.qtyLots),
    price: market.ticks.of(order.priceTicks),
  };
  state.resting.set(order.orderId, resting);
  holdResting(state, resting, resting.qty);
  if (market.kind === "spot") addSpotOrder(market, resting);
}

/** Reduces a resting order by `qty` (a fill), removing it at zero; `revalue` as in holdResting. */
function reduceResting(state: RiskState, resting: RestingState, qty: Qty, revalue = true): void {
  if (qty > resting.qty) assert(false, `fill ${qty} exceeds resting quantity ${resting.qty} of order ${resting.orderId}`);
  holdResting(state, resting, -qty, revalue);
  resting.qty -= qty;
  if (resting.qty !== 0n) return;
  state.resting.delete(resting.orderId);
  const market = marketOf(state, resting.marketId)!;
  if (market.kind === "spot") dropSpotOrder(market, resting);
}

/** Stops counting a resting order (cancelled, expired, replaced); false when it is not counted. */
export function removeRestingOrder(state: RiskState, orderId: string): boolean {
  const resting = state.resting.get(orderId);
  if (resting === undefined) return false;
  reduceResting(state, resting, resting.qty);
  return true;
}

/** Removes every resting order of a market (market close): in the resting map's shard order, which no result depends on (each removal only subtracts its own order's exact figures). */
export function removeRestingOrdersOfMarket(state: RiskState, marketId: number): void {
  const orderIds = [...state.resting.values()].filter((order) => order.marketId === marketId).map((order) => order.orderId);
  for (const orderId of orderIds) removeRestingOrder(state, orderId);
}

function sideSign(side: Side): 1n | -1n {
  return side === "B" ? 1n : -1n;
}

/**
 * Moves a position's pending quantity and cost. With `revalue` false the
 * effective contributions are left stale for the caller's own refreshPosition
 * (see releasePending), except when the position is left empty: that one is
 * revalued, which drops it, as it would be at once otherwise.
 */
function movePending(position: ReturnType<typeof positionOf>, delta: Qty, cost: Money, revalue = true): void {
  const before = effectiveQty(position);
  const after = before + delta;
  position.pq += delta;
  position.pk += cost;
  moveOpenInterest(position.market, before, after, false);
  if (revalue || isEmptyPosition(position)) refreshEffective(position, after);
}

const NO_OUTFLOWS: PendingState["outflows"] = Object.freeze([]);

/** Counts a match made by the engine until it settles or busts. */
export function addPending(state: RiskState, match: Match): void {
  if (state.pending.has(match.fillId)) assert(false, `fill ${match.fillId} is already pending`);
  if (match.takerAccountId === match.makerAccountId) assert(false, `fill ${match.fillId} has the same taker and maker account`);
  const market = marketOf(state, match.marketId);
  if (market === undefined) assert(false, `marketId ${match.marketId} does not exist`);
  const taker = getAccount(state, match.takerAccountId);
  const maker = getAccount(state, match.makerAccountId);
  const qty = market.lots.of(match.qtyLots);
  const price = market.ticks.of(match.priceTicks);
  const takerDelta = sideSign(match.takerSide) * qty;
  const notional = qty * price;
  const takerFee = feeReserve(taker.wallet, notional);
  let outflows: PendingState["outflows"] = NO_OUTFLOWS;
  let takerSpotLoss = 0n;
  let makerSpotLoss = 0n;
  const resting = state.resting.get(match.makerOrderId);
  // The maker's own perp position is revalued by its movePending below: its resting order is reduced without a
  // revaluation of its own (one requirement with orders per fill instead of two).
  if (resting !== undefined) reduceResting(state, resting, qty, !(market.kind === "perp" && resting.account === maker && resting.marketId === match.marketId));
  if (market.kind === "perp") {
    const cost = takerDelta * price;
    movePending(positionOf(taker, market), takerDelta, cost);
    movePending(positionOf(maker, market), -takerDelta, -cost);
    taker.pendingFees += takerFee;
  } else {
    const buyer: AccountState = takerDelta > 0n ? taker : maker;
    const seller: AccountState = takerDelta > 0n ? maker : taker;
    // The margin each side loses (the cost as booked, the taker's fee reserve), held until the fill settles or
    // busts; valued before this fill's outflows are held.
    const cost = roundMoney(notional, market.quote.config.unit);
    const buyerLoss = -min(spotMarginChange(buyer, market, qty * E18, -(cost + (buyer === taker ? takerFee : 0n)), false), 0n);
    const sellerLoss = -min(spotMarginChange(seller, market, -qty * E18, cost - (seller === taker ? takerFee : 0n), false), 0n);
    outflows = [
      { balance: balanceOf(buyer, market.quote), amount: notional + (buyer === taker ? takerFee : 0n) },
      // A selling taker pays its fee out of the proceeds, so only the base is held.
      { balance: balanceOf(seller, market.base), amount: qty * E18 },
    ];
    for (const outflow of outflows) outflow.balance.pendingOut += outflow.amount;
    takerSpotLoss = buyer === taker ? buyerLoss : sellerLoss;
    makerSpotLoss = buyer === taker ? sellerLoss : buyerLoss;
    taker.pendingSpotLoss += takerSpotLoss;
    maker.pendingSpotLoss += makerSpotLoss;
  }
  const pending: PendingState = { fillId: match.fillId, marketId: match.marketId, taker, maker, takerDelta, price, takerFee, outflows, takerSpotLoss, makerSpotLoss };
  state.pending.set(match.fillId, pending);
}

/**
 * Stops counting a pending match (it settled, and its execution is applied, or it busted).
 *
 * `revalue` false (perp only) leaves both sides' effective contributions
 * stale: only for a caller that refreshes both positions next, before
 * anything reads the accounts' sums (RiskEngine.settlePerpExecution, whose
 * applyPerpExecution refreshes each side with refreshPosition: one
 * revaluation per side instead of two).
 */
export function releasePending(state: RiskState, fillId: string, revalue = true): void {
  const pending = state.pending.get(fillId);
  if (pending === undefined) assert(false, `fill ${fillId} is not pending`);
  state.pending.delete(fillId);
  const market = marketOf(state, pending.marketId)!;
  if (market.kind === "perp") {
    const cost = pending.takerDelta * pending.price;
    movePending(positionOf(pending.taker, market), -pending.takerDelta, -cost, revalue);
    movePending(positionOf(pending.maker, market), pending.takerDelta, cost, revalue);
    pending.taker.pendingFees -= pending.takerFee;
    return;
  }
  for (const outflow of pending.outflows) outflow.balance.pendingOut -= outflow.amount;
  pending.taker.pendingSpotLoss -= pending.takerSpotLoss;
  pending.maker.pendingSpotLoss -= pending.makerSpotLoss;
}
