/**
 * Risk checks at the three moments a trade can be refused.
 *
 * 1. Admission (`checkOrder`, effective state), in this precedence:
 *    NO_ACCOUNTS_FOUND_ERROR, UNAUTHORIZED_SIGNATURE_ERROR,
 *    NOT_WHITELISTED_ERROR, ACCOUNT_SUSPENDED_ERROR (accounts.ts);
 *    SYMBOL_NOT_FOUND_ERROR; INPUT_VALIDATION_ERROR (quantity or price not
 *    positive); TRADING_HALTED_ERROR (closed market);
 *    NO_PRICES_FOUND_FOR_SYMBOL_ERROR (prices not fresh);
 *    perp: OPEN_INTEREST_CAP_ERROR, OPEN_INTEREST_BUDGET_ERROR
 *    (open-interest.ts), ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR,
 *    ACCOUNT_BELOW_INITIAL_MARGIN_ERROR; spot: INSUFFICIENT_BALANCE_ERROR,
 *    ACCOUNT_BELOW_INITIAL_MARGIN_ERROR.
 *    Perp margin: with q the effective position and B, S the resting buys
 *    and sells in the market, the order's exposure is
 *      before = max(|q + B|, |q - S|), after = the same with the order added
 *    An order that does not grow exposure always passes. Otherwise the
 *    account must not be below its liquidation requirement, and
 *      admission margin - max(0, price loss against mark) - fee reserve
 *        >= initial requirement with resting orders, this market at `after`
 *    where the price loss is qty x (price - mark) for a buy, qty x (mark -
 *    price) for a sell, and the fee reserve the gross taker fee at the
 *    wallet's tier. O(1) in positions: it reads the account's running sums
 *    (and each of the account's resting spot orders).
 *    Admission margin = margin balance (effective) - what pending spot fills
 *    take from margin - what resting spot orders would take from it, each
 *    order's loss on its own (exposure.ts): a spot buy's reserved quote
 *    counts in the margin balance in full, but once filled it is the base,
 *    worth its haircut value; a sell priced below the haircut value of its
 *    base brings in less than that value.
 *    Spot margin, for an account with resting perp requirement
 *    (initialMarginWithOrders > 0): the order's change of margin is its
 *    change of collateral value (exposure.spotMarginChange: what it buys and
 *    what it gives up each valued as the change of that balance's collateral
 *    value, a holding after haircut; the fee reserve included, as if it
 *    took). An order that does not lower margin (change >= 0) passes, as at
 *    match time; otherwise admission margin + change >= initial requirement
 *    with resting orders.
 * 2. Match time (`checkFill`, the engine's hook, effective state): the maker
 *    is checked first, then the taker. Perp: margin, then open interest; a
 *    fill that grows a position must keep margin balance after the fill at or
 *    above the initial requirement of positions (margin.fillMarginShortfall).
 *    Spot: balance (pending outflows held), then margin: a fill that lowers
 *    the side's margin must keep it at or above the initial requirement of
 *    its perp positions, the same rule (spotFillShortfall); a fill that does
 *    not lower margin, or a side with no perp positions, is not checked.
 * 3. Settlement (`validateMatch`, settled state only): the chain's view;
 *    reports the bust reason. Spot: InsufficientBalance (maker, then taker),
 *    then AccountBelowIM (maker, then taker) by the spot margin rule on
 *    settled balances, as a perp fill's AccountBelowIM.
 */
import { assert } from "../core/assert.ts";
import { checkAccountAccess, getAccount, rejection } from "./accounts.ts";
import { availableBalance, collateralValue } from "./collateral.ts";
import { feeReserve, refreshTier, takerFeeSplit } from "./fees.ts";
import { E18, type Money, type Price, type Qty, abs, divRound, formatE36, formatMoney, formatScaled, max, mulFractionCeil, roundMoney } from "./fixed.ts";
import { type MarginShortfall, effectiveQty, equityEffective, equityForChecks, equitySettled, fillMarginShortfall } from "./margin.ts";
import { checkOrderOpenInterest, fillOpenInterestBreach } from "./open-interest.ts";
import { perpPricesFresh, spotOraclePrice } from "./prices.ts";
import { marketOf, restingSpotLoss, spotMarginChange } from "./exposure.ts";
import { spotTakerFee } from "./executions.ts";
import type { AccountState, AssetState, PerpMarketState, PositionState, RiskState, SpotMarketState } from "./state.ts";
import type { BustReason, FillVerdict, MatchTerms, OrderIntent, RiskRejection, Side } from "./types.ts";

/** Pre-trade check of an order entering the book; null when it may enter. */
export function checkOrder(state: RiskState, intent: OrderIntent, atMicros: number): RiskRejection | null {
  const access = checkAccountAccess(state, intent.accountId, intent.signer);
  if (access !== null) return access;
  const account = state.accounts.get(intent.accountId)!;
  const market = marketOf(state, intent.marketId);
  if (market === undefined) return rejection("SYMBOL_NOT_FOUND_ERROR", `marketId ${intent.marketId} does not exist`);
  if (!(intent.qtyLots > 0) || !(intent.priceTicks > 0)) {
    return rejection("INPUT_VALIDATION_ERROR", `qtyLots ${intent.qtyLots} and priceTicks ${intent.priceTicks} must be positive`);
  }
  const qty = market.lots.of(intent.qtyLots);
  const price = market.ticks.of(intent.priceTicks);
  // The fee reserve is the fee at the wallet's tier now: its 30-day volume may have expired since its last trade.
  refreshTier(state, account.wallet, atMicros);
  if (market.kind === "perp") {
    if (market.closed) return rejection("TRADING_HALTED_ERROR", `${market.config.symbol} is closed`);
    if (!perpPricesFresh(state, market, atMicros)) return noPrices(market.config.symbol);
    const position = account.positions.get(intent.marketId);
    const q = position === undefined ? 0n : effectiveQty(position);
    const oi = checkOrderOpenInterest(market, q, intent.side === "B" ? qty : -qty);
    if (oi !== null) return oi;
    return checkPerpOrderMargin(account, position, market, { side: intent.side, qty, price, atMicros });
  }
  if (spotOraclePrice(state, market, atMicros) === undefined) return noPrices(market.config.symbol);
  return checkSpotOrder(account, market, { side: intent.side, qty, price, atMicros });
}

function noPrices(symbol: string): RiskRejection {
  return rejection("NO_PRICES_FOUND_FOR_SYMBOL_ERROR", `no fresh prices for ${symbol}`);
}

export function checkPerpOrderMargin(
  account: AccountState,
  position: PositionState | undefined,
  market: PerpMarketState,
  order: { readonly side: Side; readonly qty: Qty; readonly price: Price; readonly atMicros: number },
): RiskRejection | null {
  const { side, qty, price, atMicros } = order;
  // The exposure's two ends: q + resting buys and q - resting sells (each summed once).
  let highEnd = 0n;
  let lowEnd = 0n;
  if (position !== undefined) {
    const q = effectiveQty(position);
    highEnd = position.restBuy === 0n ? q : q + position.restBuy;
    lowEnd = position.restSell === 0n ? q : q - position.restSell;
  }
  const before = max(abs(highEnd), abs(lowEnd));
  const after = side === "B" ? max(abs(highEnd + qty), abs(lowEnd)) : max(abs(highEnd), abs(lowEnd - qty));
  if (after <= before) return null;
  const equity = equityEffective(account, atMicros);
  if (equity < account.lm) {
    return rejection(
      "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR",
      `accountId ${account.id} margin balance "${formatE36(equity)}" is below its liquidation requirement "${formatE36(account.lm)}": only reducing orders are accepted`,
    );
  }
  const mark = market.mark!;
  const own = position === undefined ? 0n : position.imOrdersC;
  const required = (own === 0n ? account.imOrders : account.imOrders - own) + mulFractionCeil(after * mark, market.imFraction);
  // The price loss against the mark: qty x (price - mark) for a buy above it, qty x (mark - price) for a sell below it.
  const loss = side === "B" ? (price > mark ? qty * (price - mark) : 0n) : price < mark ? qty * (mark - price) : 0n;
  const fee = feeReserve(account.wallet, qty * price);
  const counted = admissionMargin(account, equity);
  const available = loss === 0n ? counted - fee : counted - loss - fee;
  if (available >= required) return null;
  return rejection(
    "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
    `order would leave accountId ${account.id} with margin balance "${formatE36(available)}" below its initial margin requirement "${formatE36(required)}"` +
      ` (admission margin "${formatE36(counted)}" less the order's price loss against the mark "${formatE36(loss)}" and its taker fee reserve "${formatE36(fee)}")`,
  );
}

/**
 * The margin admission counts, given the account's equityEffective: less
 * what pending spot fills take from margin and what its resting spot orders
 * would, each order's loss on its own (exposure.ts restingSpotLoss), so a
 * spot buy's reserved quote (or the haircut value of the base a cheap sell
 * gives up) is not also counted whole as margin for a perp order or another
 * spot order.
 */
function admissionMargin(account: AccountState, equity: Money): Money {
  const resting = restingSpotLoss(account);
  if (account.pendingSpotLoss === 0n && resting === 0n) return equity;
  return equity - account.pendingSpotLoss - resting;
}

/**
 * A withdrawal or outgoing transfer must leave the balance available and, if
 * it lowers margin (the settlement asset in full, another asset by its
 * collateral value: 0 for one with priceHaircut 1 or no index), the margin
 * (with resting orders) at or above the initial requirement; one that takes
 * no margin passes the margin part. The margin counted is admission's
 * (admissionMargin): less what pending spot fills and resting spot orders
 * take from it, so the quote a spot buy has reserved does not also back a
 * withdrawal of the rest.
 */
export function checkOutflow(account: AccountState, asset: AssetState, amount: Money, atMicros: number): RiskRejection | null {
  const available = availableBalance(account.balances.get(asset.config.symbol));
  if (available < amount) {
    return rejection(
      "INSUFFICIENT_BALANCE_ERROR",
      `amount "${formatMoney(amount)}" ${asset.config.symbol} exceeds the available balance "${formatMoney(available)}" of accountId ${account.id}`,
    );
  }
  const balance = account.balances.get(asset.config.symbol)!;
  const marginLoss = asset.config.isSettlement ? amount : balance.collateralC - collateralValue(asset, balance.balance - amount);
  if (account.imOrders === 0n || marginLoss <= 0n) return null;
  const equityAfter = admissionMargin(account, equityEffective(account, atMicros)) - marginLoss;
  if (equityAfter < account.imOrders) {
    return rejection(
      "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      `taking "${formatMoney(amount)}" ${asset.config.symbol} out of accountId ${account.id} leaves margin balance "${formatE36(equityAfter)}" below the initial margin requirement "${formatE36(account.imOrders)}"`,
    );
  }
  return null;
}

function checkSpotOrder(
  account: AccountState,
  market: SpotMarketState,
  order: { readonly side: Side; readonly qty: Qty; readonly price: Price; readonly atMicros: number },
): RiskRejection | null {
  const { side, qty, price, atMicros } = order;
  const cost = qty * price;
  const fee = feeReserve(account.wallet, cost);
  const paid = side === "B" ? market.quote : market.base;
  const need = side === "B" ? cost + fee : qty * E18;
  const available = availableBalance(account.balances.get(paid.config.symbol));
  if (need > available) {
    return rejection(
      "INSUFFICIENT_BALANCE_ERROR",
      `order needs "${formatE36(need)}" ${paid.config.symbol} but accountId ${account.id} has "${formatE36(max(available, 0n))}" available (resting orders and pending fills included)`,
    );
  }
  if (account.imOrders === 0n) return null;
  // The swap's change of margin, as the match-time rule values it (spotFillShortfall), with the fee reserve: an
  // order that does not lower margin passes.
  const change = side === "B" ? spotMarginChange(account, market, qty * E18, -(cost + fee), false) : spotMarginChange(account, market, -qty * E18, cost - fee, false);
  if (change >= 0n) return null;
  const equityAfter = admissionMargin(account, equityEffective(account, atMicros)) + change;
  if (equityAfter >= account.imOrders) return null;
  return rejection(
    "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
    `spot order would leave accountId ${account.id} with margin balance "${formatE36(equityAfter)}" below its initial margin requirement "${formatE36(account.imOrders)}"`,
  );
}

function matchParts(state: RiskState, match: MatchTerms) {
  const market = marketOf(state, match.marketId);
  if (market === undefined) assert(false, `marketId ${match.marketId} does not exist`);
  const qty = market.lots.of(match.qtyLots);
  return {
    market,
    taker: getAccount(state, match.takerAccountId),
    maker: getAccount(state, match.makerAccountId),
    qty,
    price: market.ticks.of(match.priceTicks),
    takerDelta: match.takerSide === "B" ? qty : -qty,
  };
}

/**
 * The engine's match-time hook: which side of a fill fails risk now, if any.
 * Changes nothing but the taker wallet's remembered tier (refreshed to
 * `atMicros`, so its fee reserve, here and in addPending, is at its tier now).
 */
export function checkFill(state: RiskState, match: MatchTerms, atMicros: number): FillVerdict {
  const { market, taker, maker, qty, price, takerDelta } = matchParts(state, match);
  refreshTier(state, taker.wallet, atMicros);
  if (market.kind === "spot") return checkSpotFill(state, market, { taker, maker, qty, price, takerDelta, atMicros });
  const takerPosition = taker.positions.get(match.marketId);
  const makerPosition = maker.positions.get(match.marketId);
  if (fillMarginShortfall(makerPosition, maker, market, { delta: -takerDelta, price, fee: 0n, atMicros, settled: false }) !== null) return "cancel-maker";
  const breach = fillOpenInterestBreach(market, effectiveQtyOf(takerPosition), effectiveQtyOf(makerPosition), takerDelta, false);
  if (breach === "maker") return "cancel-maker";
  if (breach === "taker") return "reject-taker";
  const fee = feeReserve(taker.wallet, qty * price);
  if (fillMarginShortfall(takerPosition, taker, market, { delta: takerDelta, price, fee, atMicros, settled: false }) !== null) return "reject-taker";
  return "ok";
}

function effectiveQtyOf(position: PositionState | undefined): Qty {
  return position === undefined ? 0n : effectiveQty(position);
}

/**
 * A reduce-only side of a match must reduce the side's settled position:
 * the opposite sign, and no more than it holds. The engine admitted the
 * order against the position with pending matches counted; by the block,
 * a bust of the match that opened it, a liquidation or an ADL may have
 * shrunk or closed it, and the chain refuses a reduce-only fill that would
 * then open or grow a position (a bust, `ReduceOnlyViolation`: an
 * unmodeled contract error, spec 2.16).
 */
function reduceOnlyViolation(account: AccountState, marketId: number, position: PositionState | undefined, delta: Qty): BustReason | null {
  const q = settledQty(position);
  const reduces = q !== 0n && (q > 0n) !== (delta > 0n) && abs(delta) <= abs(q);
  if (reduces) return null;
  return { reasonName: "ReduceOnlyViolation", args: { accountId: account.id, marketId, position: formatScaled(q, 18), delta: formatScaled(delta, 18) } };
}

function settledQty(position: PositionState | undefined): Qty {
  return position === undefined ? 0n : position.q;
}

interface SpotFill {
  readonly taker: AccountState;
  readonly maker: AccountState;
  readonly qty: Qty;
  readonly price: Price;
  readonly takerDelta: Qty;
  readonly atMicros: number;
}

/**
 * What each side of a spot fill pays out (the buyer the quote, the seller the
 * base), the maker first. The cost is qty x price rounded half-even to the
 * quote asset's decimals, the amount applySpotExecution books (the base
 * quantity is a whole number of the base's decimals by configuration); the
 * buyer-taker's fee is the booked net fee with `exactFee`, else the
 * conservative fee reserve, both of the exact qty x price.
 */
function spotOutflows(state: RiskState, market: SpotMarketState, fill: SpotFill, exactFee: boolean): { account: AccountState; asset: AssetState; amount: Money }[] {
  const buyer = fill.takerDelta > 0n ? fill.taker : fill.maker;
  const seller = fill.takerDelta > 0n ? fill.maker : fill.taker;
  const quoteUnit = market.quote.config.unit;
  const costExact = fill.qty * fill.price;
  const cost = roundMoney(costExact, quoteUnit);
  const fee = buyer !== fill.taker ? 0n : exactFee ? spotTakerFee(state, fill.taker, costExact, quoteUnit, fill.atMicros) : feeReserve(fill.taker.wallet, costExact);
  const outflows = [
    { account: buyer, asset: market.quote, amount: cost + fee },
    { account: seller, asset: market.base, amount: fill.qty * E18 },
  ];
  return buyer === fill.maker ? outflows : outflows.reverse();
}

/** Match time: the maker's balance and margin, then the taker's (effective state). */
function checkSpotFill(state: RiskState, market: SpotMarketState, fill: SpotFill): FillVerdict {
  const outflows = spotOutflows(state, market, fill, false);
  if (paysShort(outflows, fill.maker) || spotFillShortfall(state, market, fill, fill.maker, false) !== null) return "cancel-maker";
  if (paysShort(outflows, fill.taker) || spotFillShortfall(state, market, fill, fill.taker, false) !== null) return "reject-taker";
  return "ok";
}

/**
 * The initial-margin check of one side of a spot fill, the rule a perp fill
 * has (margin.fillMarginShortfall): with cross margin the spot balances are
 * collateral, so a fill that lowers the side's margin (the change of its
 * base and quote balances' collateral value, exposure.spotMarginChange: a
 * haircut asset bought counts after haircut, the taker's fee included) must
 * leave it at or above the initial requirement of its perp positions. A fill
 * that does not lower margin, or an account with no perp positions
 * (requirement 0), passes. Effective view (match time): equityForChecks,
 * balances less pending outflows, the fee reserve. Settled view
 * (validateMatch): the settled margin balance and balances, the booked net
 * fee. The cost is qty x price as booked (roundMoney).
 */
function spotFillShortfall(state: RiskState, market: SpotMarketState, fill: SpotFill, account: AccountState, settled: boolean): MarginShortfall | null {
  const required = settled ? account.imS : account.im;
  if (required === 0n) return null;
  const costExact = fill.qty * fill.price;
  const quoteUnit = market.quote.config.unit;
  const cost = roundMoney(costExact, quoteUnit);
  const fee = account !== fill.taker ? 0n : settled ? spotTakerFee(state, account, costExact, quoteUnit, fill.atMicros) : feeReserve(account.wallet, costExact);
  const buys = account === (fill.takerDelta > 0n ? fill.taker : fill.maker);
  const baseDelta = buys ? fill.qty * E18 : -fill.qty * E18;
  const quoteDelta = buys ? -(cost + fee) : cost - fee;
  const change = spotMarginChange(account, market, baseDelta, quoteDelta, settled);
  if (change >= 0n) return null;
  const equityAfter = (settled ? equitySettled(account, fill.atMicros) : equityForChecks(account, fill.atMicros)) + change;
  if (equityAfter >= required) return null;
  return { delta: change, shortfall: required - equityAfter, belowLiquidation: false };
}

/**
 * Whether `account` lacks the balance for one of its outflows. The maker's
 * own reservation covers its fill, so reservations are not subtracted here.
 * (A module function: a closure per fill would also pay the run loader's
 * `__name` wrapper each time it is made.)
 */
function paysShort(outflows: readonly { account: AccountState; asset: AssetState; amount: Money }[], account: AccountState): boolean {
  for (const outflow of outflows) {
    if (outflow.account !== account) continue;
    const balance = outflow.account.balances.get(outflow.asset.config.symbol);
    if ((balance === undefined ? 0n : balance.balance - balance.pendingOut) < outflow.amount) return true;
  }
  return false;
}

function belowIM(account: AccountState, failure: MarginShortfall): BustReason {
  return { reasonName: "AccountBelowIM", accountId: account.id, delta: formatE36(failure.delta), shortfall: ceilText(failure.shortfall) };
}

function ceilText(value: Money): string {
  return formatScaled(divRound(value, E18, "ceil"), 18);
}

/**
 * The chain's validation of a match against settled state alone (no pending
 * exposure): null when it would settle, else the bust reason. The maker is
 * checked before the taker.
 */
export function validateMatch(state: RiskState, match: MatchTerms, atMicros: number): BustReason | null {
  const { market, taker, maker, qty, price, takerDelta } = matchParts(state, match);
  if (market.kind === "spot") {
    for (const outflow of spotOutflows(state, market, { taker, maker, qty, price, takerDelta, atMicros }, true)) {
      const balance = outflow.account.balances.get(outflow.asset.config.symbol);
      const available = balance === undefined ? 0n : balance.balance;
      if (available < outflow.amount) {
        return {
          reasonName: "InsufficientBalance",
          accountId: outflow.account.id,
          asset: outflow.asset.config.symbol,
          required: ceilText(outflow.amount),
          available: formatMoney(max(available, 0n)),
        };
      }
    }
    const fill = { taker, maker, qty, price, takerDelta, atMicros };
    const makerFailure = spotFillShortfall(state, market, fill, maker, true);
    if (makerFailure !== null) return belowIM(maker, makerFailure);
    const takerFailure = spotFillShortfall(state, market, fill, taker, true);
    return takerFailure === null ? null : belowIM(taker, takerFailure);
  }
  const takerPosition = taker.positions.get(match.marketId);
  const makerPosition = maker.positions.get(match.marketId);
  const reduceOnly =
    (match.makerReduceOnly === true ? reduceOnlyViolation(maker, match.marketId, makerPosition, -takerDelta) : null) ??
    (match.takerReduceOnly === true ? reduceOnlyViolation(taker, match.marketId, takerPosition, takerDelta) : null);
  if (reduceOnly !== null) return reduceOnly;
  const split = takerFeeSplit(state, taker.wallet, refreshTier(state, taker.wallet, atMicros), qty * price);
  // The maker first, then the taker (who pays its fee net of its rebate).
  const makerFailure = fillMarginShortfall(makerPosition, maker, market, { delta: -takerDelta, price, fee: 0n, atMicros, settled: true });
  if (makerFailure !== null) return belowIM(maker, makerFailure);
  const takerFee = split.takerFee - split.takerRebateCredit;
  const takerFailure = fillMarginShortfall(takerPosition, taker, market, { delta: takerDelta, price, fee: takerFee, atMicros, settled: true });
  if (takerFailure !== null) return belowIM(taker, takerFailure);
  if (fillOpenInterestBreach(market, settledQty(takerPosition), settledQty(makerPosition), takerDelta, true) !== null) {
    return {
      reasonName: "OpenInterestCapExceeded",
      args: { marketId: match.marketId, oiQty: formatScaled(market.oiLong, 18), oiCap: formatScaled(market.config.oiCap, 18) },
    };
  }
  return null;
}
