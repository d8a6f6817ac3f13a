/**
 * Settled executions (spec 2.14, 2.15). One record carries both sides; the
 * taker or maker role of a wallet is decided by comparing account ids.
 *
 * The spec types the quantity, price, fee and PnL fields as plain "string"
 * and the ids as "string"/"integer". shadowbook applies the scalar patterns
 * they stand for (spec section 1: decimals are strings, order and fill ids are
 * decimal uint64 strings): qty and price are UnsignedDecimal, fees, credits
 * and PnL are SignedDecimal (a negative fee is a rebate), ids are Id, account
 * and exchange ids, timestamps and sequence numbers are UnsignedInteger.
 */
import { z } from "zod";
import { ExecutionType, SpotExecutionType } from "./enums.ts";
import { PaginationMeta } from "./pagination.ts";
import { Id, MarketSymbol, Side, SignedDecimal, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/**
 * Spec 2.14 a settled perp match. takerOrderId is absent when the taker was
 * filled and removed in the same round, makerOrderId when the maker was fully
 * filled. The Fee v3 credits sum to takerFee. On ADL and MARKET_CLOSE all
 * maker fields may be absent. `side` is the taker side.
 */
export const PerpExecution = z
  .looseObject({
    exchangeId: UnsignedInteger,
    symbol: MarketSymbol,
    takerAccountId: UnsignedInteger,
    makerAccountId: UnsignedInteger.exactOptional(),
    takerOrderId: Id.exactOptional(),
    makerOrderId: Id.exactOptional(),
    qty: UnsignedDecimal,
    side: Side,
    price: UnsignedDecimal,
    takerFee: SignedDecimal,
    protocolFeeCredit: SignedDecimal.exactOptional(),
    referrerFeeCredit: SignedDecimal.exactOptional(),
    takerRebateCredit: SignedDecimal.exactOptional(),
    poolFeeCredit: SignedDecimal.exactOptional(),
    makerFee: SignedDecimal.exactOptional(),
    takerOpeningFee: SignedDecimal.exactOptional(),
    makerOpeningFee: SignedDecimal.exactOptional(),
    type: ExecutionType,
    timestamp: UnsignedInteger,
    sequenceNumber: UnsignedInteger,
    fillId: Id,
    takerRealizedPnl: SignedDecimal.exactOptional(),
    makerRealizedPnl: SignedDecimal.exactOptional(),
    takerPriceVariationPnl: SignedDecimal.exactOptional(),
    makerPriceVariationPnl: SignedDecimal.exactOptional(),
    takerFundingPnl: SignedDecimal.exactOptional(),
    makerFundingPnl: SignedDecimal.exactOptional(),
  })
  .meta({ id: "PerpExecution" });
export type PerpExecution = z.infer<typeof PerpExecution>;

/**
 * Spec 2.15 a settled spot match. qty is in base units, price is quote per
 * base, takerFee is in the market's fee asset. `type` is restricted to the
 * spot members ORDER_MATCH and LIQUIDATION (spec 2.2). sequenceNumber grows
 * by 1 per spot execution.
 */
export const SpotExecution = z
  .looseObject({
    exchangeId: UnsignedInteger.exactOptional(),
    symbol: MarketSymbol,
    takerAccountId: UnsignedInteger,
    makerAccountId: UnsignedInteger,
    takerOrderId: Id.exactOptional(),
    makerOrderId: Id.exactOptional(),
    qty: UnsignedDecimal,
    side: Side,
    price: UnsignedDecimal,
    takerFee: SignedDecimal,
    type: SpotExecutionType,
    timestamp: UnsignedInteger,
    sequenceNumber: UnsignedInteger,
    fillId: Id,
  })
  .meta({ id: "SpotExecution" });
export type SpotExecution = z.infer<typeof SpotExecution>;

/**
 * A page of perp executions, newest first (GET /v2/market/{symbol}/perpExecutions
 * and /v2/wallet/{address}/perpExecutions), with the effective filters in meta.
 * The wrapper is shadowbook's choice (spec 4.1: "not shown"), `{data, meta}` as
 * OrderHistoryList and TransferList.
 */
export const PerpExecutionList = z.looseObject({ data: z.array(PerpExecution), meta: PaginationMeta }).meta({ id: "PerpExecutionList" });
export type PerpExecutionList = z.infer<typeof PerpExecutionList>;

/** A page of spot executions, newest first (the spotExecutions routes of markets and wallets), as PerpExecutionList. */
export const SpotExecutionList = z.looseObject({ data: z.array(SpotExecution), meta: PaginationMeta }).meta({ id: "SpotExecutionList" });
export type SpotExecutionList = z.infer<typeof SpotExecutionList>;
