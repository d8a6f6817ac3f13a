/**
 * Applying settled executions: the only place where positions and balances
 * change because of a trade. Deterministic given settled state: pending
 * exposure plays no part here (the caller releases the match's pending
 * contribution before or after applying it; the result is the same).
 *
 * Perp (ORDER_MATCH, LIQUIDATION, ADL, MARKET_CLOSE): each side's leg goes
 * through positions.applyLeg; realized price PnL and funding PnL are booked
 * to the settlement balance (REALIZED_PNL and FUNDING entries). Only
 * ORDER_MATCH fills pay the Fee v3 taker fee (fees.ts): the taker is debited
 * the gross takerFee (PERP_FEE) and credited its takerRebateCredit
 * (PERP_REBATE); the referrer's main account and the pool are credited
 * (PERP_REBATE); the protocol keeps protocolFeeCredit. LIQUIDATION, ADL and
 * MARKET_CLOSE carry takerFee "0" and no credits (the liquidation penalty is
 * its own ledger entry, see liquidation.ts). ADL and MARKET_CLOSE records are
 * one-sided (maker fields absent).
 *
 * Spot (ORDER_MATCH): the base and the quote move between the two accounts
 * (SPOT_LEG entries; cost = qty x price rounded half-even to the quote's
 * decimals); the taker pays its fee in the quote asset, net of its OG and
 * referee discounts (a SPOT_LEG entry of its own; TransferType has no spot
 * fee kind), and the protocol keeps it. Spot volume counts in USD (the quote
 * at its index).
 */
import { assert } from "../core/assert.ts";
import { microsToMillis } from "../core/time.ts";
import { getAccount } from "./accounts.ts";
import { type BookingContext, book } from "./collateral.ts";
import { type TakerFeeSplit, refreshTier, takerFeeSplit } from "./fees.ts";
import { E18, E36, type Money, formatMoney, formatScaled, negatedText, roundMoney, roundMoneyRatio } from "./fixed.ts";
import { isLiquidatable, positionOf, refreshPosition } from "./margin.ts";
import { moveOpenInterest } from "./open-interest.ts";
import { type LegResult, applyLeg } from "./positions.ts";
import type { AccountState, PerpMarketState, RiskState, SpotMarketState } from "./state.ts";
import type { AppliedPerpExecution, AppliedSpotExecution, ExecutionInput, LedgerEntry, PerpExecutionRecord } from "./types.ts";

export function getPerp(state: RiskState, marketId: number): PerpMarketState {
  const market = state.perps.get(marketId);
  if (market === undefined) assert(false, `perp marketId ${marketId} does not exist`);
  return market;
}

export function getSpot(state: RiskState, marketId: number): SpotMarketState {
  const market = state.spots.get(marketId);
  if (market === undefined) assert(false, `spot marketId ${marketId} does not exist`);
  return market;
}

/** Flags an account for the next liquidation pass when it is below its liquidation requirement. */
export function flagIfLiquidatable(state: RiskState, account: AccountState, atMicros: number): void {
  if (account.id === state.config.poolAccountId || state.candidates.has(account.id)) return;
  if (isLiquidatable(account, atMicros)) state.candidates.add(account.id);
}

/** One side's leg of a perp execution: `delta` (signed) of the execution's `qty` at `price`, the side paying `openingFee` on what it opens. */
function applySide(
  state: RiskState,
  account: AccountState,
  market: PerpMarketState,
  delta: bigint,
  qty: bigint,
  price: bigint,
  atMicros: number,
  sequenceNumber: number,
  openingFee: Money,
): LegResult {
  const position = positionOf(account, market);
  const before = position.q;
  const result = applyLeg(state, position, delta, price, atMicros);
  moveOpenInterest(market, before, position.q, true);
  if (position.pq !== 0n) moveOpenInterest(market, before + position.pq, position.q + position.pq, false);
  else moveOpenInterest(market, before, position.q, false);
  if (openingFee !== 0n && result.opened > 0n) {
    // All of the execution opened: its share of the fee is the fee itself, rounded (the same rational, no products).
    const unit = state.settlement.config.unit;
    position.openingFees += result.opened === qty ? roundMoney(openingFee, unit) : roundMoneyRatio(openingFee * result.opened, qty, unit);
  }
  position.lastSeq = sequenceNumber;
  refreshPosition(position);
  return result;
}

/** Books a leg's realized PnL; `texts` are its closeTexts when it closed anything (the record shows the same amounts). */
function bookLeg(context: BookingContext, account: AccountState, leg: LegResult, texts: CloseTexts | undefined): void {
  const settlement = context.state.settlement;
  book(context, account, settlement, "REALIZED_PNL", leg.pricePnl, undefined, texts?.price);
  book(context, account, settlement, "FUNDING", leg.fundingPnl, undefined, texts?.funding);
}

function checkShape(input: ExecutionInput): void {
  const oneSided = input.type === "ADL" || input.type === "MARKET_CLOSE";
  if (oneSided !== (input.makerAccountId === undefined)) assert(false, `${input.type} execution ${input.fillId} must ${oneSided ? "not " : ""}have a maker`);
  if (input.takerAccountId === input.makerAccountId) assert(false, `execution ${input.fillId} has the same taker and maker account`);
  if (!(input.qtyLots > 0 && input.priceTicks > 0)) assert(false, `execution ${input.fillId} needs positive qtyLots and priceTicks`);
}

/** Applies a settled perp execution to settled state; returns its record fields and ledger entries. */
export function applyPerpExecution(state: RiskState, input: ExecutionInput, atMicros: number): AppliedPerpExecution {
  checkShape(input);
  const market = getPerp(state, input.marketId);
  if (market.closed) assert(false, `${market.config.symbol} is closed: execution ${input.fillId} cannot apply`);
  const taker = getAccount(state, input.takerAccountId);
  const maker = input.makerAccountId === undefined ? undefined : getAccount(state, input.makerAccountId);
  const qty = market.lots.of(input.qtyLots);
  const price = market.ticks.of(input.priceTicks);
  const notional = qty * price;
  const takerDelta = input.takerSide === "B" ? qty : -qty;
  const ledger: LedgerEntry[] = [];
  const context: BookingContext = { state, ledger, atMicros, fillId: input.fillId };
  const split = input.type === "ORDER_MATCH" ? takerFeeSplit(state, taker.wallet, refreshTier(state, taker.wallet, atMicros), notional) : undefined;
  const netFee = split === undefined ? 0n : split.takerFee - split.takerRebateCredit;
  const sequenceNumber = input.sequenceNumber;
  const takerLeg = applySide(state, taker, market, takerDelta, qty, price, atMicros, sequenceNumber, netFee);
  const makerLeg = maker === undefined ? undefined : applySide(state, maker, market, -takerDelta, qty, price, atMicros, sequenceNumber, 0n);
  // Each amount is formatted once, for both its ledger entry and the record (a leg's PnL is non-zero only when it closed).
  const takerTexts = takerLeg.closed > 0n ? closeTexts(takerLeg) : undefined;
  const makerTexts = makerLeg !== undefined && makerLeg.closed > 0n ? closeTexts(makerLeg) : undefined;
  const feeTexts = split === undefined ? undefined : splitTexts(split);
  bookLeg(context, taker, takerLeg, takerTexts);
  if (maker !== undefined && makerLeg !== undefined) bookLeg(context, maker, makerLeg, makerTexts);
  if (split !== undefined && feeTexts !== undefined) {
    const settlement = state.settlement;
    book(context, taker, settlement, "PERP_FEE", -split.takerFee, undefined, negatedText(feeTexts.takerFee));
    book(context, taker, settlement, "PERP_REBATE", split.takerRebateCredit, undefined, feeTexts.takerRebateCredit);
    if (split.referrer !== undefined) book(context, split.referrer, settlement, "PERP_REBATE", split.referrerFeeCredit, taker, feeTexts.referrerFeeCredit);
    if (split.pool !== undefined) book(context, split.pool, settlement, "PERP_REBATE", split.poolFeeCredit, taker, feeTexts.poolFeeCredit);
    addProtocolFee(state, settlement.config.symbol, split.protocolFeeCredit);
    recordVolume(state, taker, maker, notional, atMicros);
    market.stats.volume24h.add(atMicros, notional);
    market.stats.prices24h.add(atMicros, price);
  }
  flagIfLiquidatable(state, taker, atMicros);
  if (maker !== undefined) flagIfLiquidatable(state, maker, atMicros);
  if (market.oiLong !== market.oiShort && input.makerAccountId !== undefined) assert(false, `long OI ${market.oiLong} differs from short OI ${market.oiShort} on ${market.config.symbol}`);
  return { record: perpRecord(state, market, input, qty, price, atMicros, feeTexts, takerLeg, takerTexts, makerTexts), ledger };
}

/** The texts of a taker fee split's parts. */
interface SplitTexts {
  readonly takerFee: string;
  readonly protocolFeeCredit: string;
  readonly referrerFeeCredit: string;
  readonly takerRebateCredit: string;
  readonly poolFeeCredit: string;
}

function splitTexts(split: TakerFeeSplit): SplitTexts {
  const takerFee = formatMoney(split.takerFee);
  // Without credits (no discount, referrer or pool) the protocol keeps the whole fee: the same text.
  const protocolFeeCredit = split.protocolFeeCredit === split.takerFee ? takerFee : formatMoney(split.protocolFeeCredit);
  return {
    takerFee,
    protocolFeeCredit,
    referrerFeeCredit: formatMoney(split.referrerFeeCredit),
    takerRebateCredit: formatMoney(split.takerRebateCredit),
    poolFeeCredit: formatMoney(split.poolFeeCredit),
  };
}

function addProtocolFee(state: RiskState, asset: string, amount: Money): void {
  if (amount === 0n) return;
  state.protocolFees.set(asset, (state.protocolFees.get(asset) ?? 0n) + amount);
}

function recordVolume(state: RiskState, taker: AccountState, maker: AccountState | undefined, volume: Money, atMicros: number): void {
  taker.wallet.volume30d.add(atMicros, volume);
  refreshTier(state, taker.wallet, atMicros);
  if (maker !== undefined) {
    maker.wallet.volume30d.add(atMicros, volume);
    refreshTier(state, maker.wallet, atMicros);
  }
}

function perpRecord(
  state: RiskState,
  market: PerpMarketState,
  input: ExecutionInput,
  qty: bigint,
  price: bigint,
  atMicros: number,
  fees: SplitTexts | undefined,
  takerLeg: LegResult,
  taker: CloseTexts | undefined,
  maker: CloseTexts | undefined,
): PerpExecutionRecord {
  // Fields in the order of spec 2.14 (members are added in that order); optional ones omitted, never undefined.
  const record: { -readonly [K in keyof PerpExecutionRecord]: PerpExecutionRecord[K] } = {
    exchangeId: state.config.exchangeId,
    symbol: market.config.symbol,
    takerAccountId: input.takerAccountId,
  } as PerpExecutionRecord;
  if (input.makerAccountId !== undefined) record.makerAccountId = input.makerAccountId;
  record.qty = formatScaled(qty, 18);
  record.side = input.takerSide;
  record.price = formatScaled(price, 18);
  if (fees === undefined) {
    record.takerFee = "0";
  } else {
    record.takerFee = fees.takerFee;
    record.protocolFeeCredit = fees.protocolFeeCredit;
    record.referrerFeeCredit = fees.referrerFeeCredit;
    record.takerRebateCredit = fees.takerRebateCredit;
    record.poolFeeCredit = fees.poolFeeCredit;
  }
  if (taker !== undefined) record.takerOpeningFee = formatMoney(takerLeg.openingFee);
  record.type = input.type;
  record.timestamp = microsToMillis(atMicros);
  record.sequenceNumber = input.sequenceNumber;
  record.fillId = input.fillId;
  if (taker !== undefined) record.takerRealizedPnl = taker.realized;
  if (maker !== undefined) record.makerRealizedPnl = maker.realized;
  if (taker !== undefined) record.takerPriceVariationPnl = taker.price;
  if (maker !== undefined) record.makerPriceVariationPnl = maker.price;
  if (taker !== undefined) record.takerFundingPnl = taker.funding;
  if (maker !== undefined) record.makerFundingPnl = maker.funding;
  return record;
}

interface CloseTexts {
  readonly realized: string;
  readonly price: string;
  readonly funding: string;
}

/** The texts of a closing leg's PnL: realized = price variation + funding, each formatted once (one is often zero). */
function closeTexts(leg: LegResult): CloseTexts {
  const price = formatMoney(leg.pricePnl);
  const funding = formatMoney(leg.fundingPnl);
  const realized = leg.fundingPnl === 0n ? price : leg.pricePnl === 0n ? funding : formatMoney(leg.pricePnl + leg.fundingPnl);
  return { realized, price, funding };
}

/** The USD value of `amount` of an asset at its last index (the settlement asset at par). */
export function usdValue(state: RiskState, asset: SpotMarketState["quote"], amount: Money): Money {
  if (asset.config.isSettlement) return amount;
  const index = asset.index;
  return index === undefined ? 0n : roundMoneyRatio(amount * index.price, E18, state.settlement.config.unit);
}

/** The net spot taker fee of a quote cost (gross at the tier rate, less OG and referee discounts). */
export function spotTakerFee(state: RiskState, taker: AccountState, costExact: Money, quoteUnit: Money, atMicros: number): Money {
  const tier = refreshTier(state, taker.wallet, atMicros);
  const global = state.config.globalFees;
  const keepOg = taker.wallet.og ? E18 - global.ogDiscount : E18;
  const keepReferee = taker.wallet.referee ? E18 - global.refereeDiscount : E18;
  return roundMoneyRatio(costExact * tier.takerRate * keepOg * keepReferee, E18 * E36, quoteUnit);
}

/** Applies a settled spot execution (ORDER_MATCH). */
export function applySpotExecution(state: RiskState, input: ExecutionInput, atMicros: number): AppliedSpotExecution {
  if (input.type !== "ORDER_MATCH") assert(false, `spot execution ${input.fillId} must be ORDER_MATCH, got ${input.type}`);
  checkShape(input);
  const market = getSpot(state, input.marketId);
  const taker = getAccount(state, input.takerAccountId);
  const maker = getAccount(state, input.makerAccountId!);
  const qty = market.lots.of(input.qtyLots);
  const price = market.ticks.of(input.priceTicks);
  const costExact = qty * price;
  const quoteUnit = market.quote.config.unit;
  const cost = roundMoney(costExact, quoteUnit);
  const fee = spotTakerFee(state, taker, costExact, quoteUnit, atMicros);
  const buyer = input.takerSide === "B" ? taker : maker;
  const seller = input.takerSide === "B" ? maker : taker;
  const ledger: LedgerEntry[] = [];
  const context: BookingContext = { state, ledger, atMicros, fillId: input.fillId };
  const baseAmount = qty * E18;
  // Each amount is formatted once (a leg's two entries are the same text with opposite signs; the fee is the record's too).
  const baseText = formatMoney(baseAmount);
  const costText = formatMoney(cost);
  const feeText = formatMoney(fee);
  book(context, buyer, market.base, "SPOT_LEG", baseAmount, seller, baseText);
  book(context, buyer, market.quote, "SPOT_LEG", -cost, seller, negatedText(costText));
  book(context, seller, market.base, "SPOT_LEG", -baseAmount, buyer, negatedText(baseText));
  book(context, seller, market.quote, "SPOT_LEG", cost, buyer, costText);
  book(context, taker, market.quote, "SPOT_LEG", -fee, undefined, negatedText(feeText));
  addProtocolFee(state, market.quote.config.symbol, fee);
  const volume = usdValue(state, market.quote, cost);
  recordVolume(state, taker, maker, volume, atMicros);
  market.stats.volume24h.add(atMicros, volume);
  market.stats.prices24h.add(atMicros, price);
  flagIfLiquidatable(state, taker, atMicros);
  flagIfLiquidatable(state, maker, atMicros);
  return {
    record: {
      exchangeId: state.config.exchangeId,
      symbol: market.config.symbol,
      takerAccountId: taker.id,
      makerAccountId: maker.id,
      qty: formatScaled(qty, 18),
      side: input.takerSide,
      price: formatScaled(price, 18),
      takerFee: feeText,
      type: "ORDER_MATCH",
      timestamp: microsToMillis(atMicros),
      sequenceNumber: input.sequenceNumber,
      fillId: input.fillId,
    },
    ledger,
  };
}

/** The quantity of a settled position in whole lots of its market (for the engine's positionLots hook). */
export function lotsOf(quantity: bigint, step: bigint): number {
  if (quantity % step !== 0n) assert(false, `quantity ${quantity} is not a whole number of lots of ${step}`);
  return Number(quantity / step);
}
