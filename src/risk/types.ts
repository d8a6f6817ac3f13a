/**
 * Names the risk layer shares with the specification, as string-literal
 * unions spelled exactly like the spec (test/risk/spec-names.test.ts checks
 * each against src/spec), and the shapes of the risk layer's inputs and
 * outputs. Outputs follow the spec's resources field for field, decimals as
 * canonical strings.
 */

/** Spec 2.1 Side: B (buy/bid), A (ask/sell). */
export type Side = "B" | "A";

/** Spec 2.2 ExecutionType. */
export type ExecutionType = "ORDER_MATCH" | "LIQUIDATION" | "ADL" | "MARKET_CLOSE";

/** Spec 2.2 asset status. */
export type AssetStatus = "ENABLED" | "WITHDRAWAL_ONLY";

/** Spec 2.2 TierType. */
export type TierType = "REGULAR" | "VIP";

/** The RequestErrorCode values (spec 7.2) that the risk layer produces. */
export type RiskErrorCode =
  | "NO_ACCOUNTS_FOUND_ERROR"
  | "UNAUTHORIZED_SIGNATURE_ERROR"
  | "SYMBOL_NOT_FOUND_ERROR"
  | "NO_PRICES_FOUND_FOR_SYMBOL_ERROR"
  | "INPUT_VALIDATION_ERROR"
  | "INSUFFICIENT_BALANCE_ERROR"
  | "TRADING_HALTED_ERROR"
  | "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR"
  | "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR"
  | "OPEN_INTEREST_CAP_ERROR"
  | "OPEN_INTEREST_BUDGET_ERROR"
  | "NOT_WHITELISTED_ERROR"
  | "ACCOUNT_SUSPENDED_ERROR";

/** A business rejection: the RequestError the gateway sends (spec 7.1). */
export interface RiskRejection {
  readonly error: RiskErrorCode;
  readonly message: string;
}

/** Ledger entry kinds (src/spec TRANSFER_TYPES) that the risk layer produces. */
export type LedgerType =
  | "DEPOSIT"
  | "WITHDRAWAL"
  | "TRANSFER_IN"
  | "TRANSFER_OUT"
  | "SPOT_LEG"
  | "PERP_FEE"
  | "PERP_REBATE"
  | "REALIZED_PNL"
  | "FUNDING"
  | "LIQUIDATION_PENALTY"
  | "COLLATERAL_LIQUIDATION"
  | "SOCIALIZED_LOSS";

/**
 * One account side of a balance movement (spec 2.20 Transfer, without the
 * `id` the settlement ledger assigns). `amount` is never zero; positive
 * credits the account. `netDepositsAfter` counts deposits, withdrawals and
 * transfers only.
 */
export interface LedgerEntry {
  readonly accountId: number;
  readonly asset: string;
  readonly type: LedgerType;
  readonly amount: string;
  readonly netDepositsAfter: string;
  readonly timestamp: number;
  readonly counterpartyAccountId?: number;
  readonly fillId?: string;
}

/** A match made by the engine (perp or spot: the market id says which), in the engine's units. */
export interface Match {
  readonly fillId: string;
  readonly marketId: number;
  readonly takerAccountId: number;
  readonly makerAccountId: number;
  readonly makerOrderId: string;
  /** The taker's side; the maker is on the other side. */
  readonly takerSide: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
}

/**
 * What checkFill and validateMatch read of a match: the engine's
 * FillProposal (which has no fillId yet) fits as it is. The reduce-only
 * flags (the engine's Fill: the order's flag, or a fired stop's child) ask
 * settlement to refuse a fill that would not reduce that side's settled
 * position; absent is false.
 */
export type MatchTerms = Omit<Match, "fillId" | "makerOrderId"> & {
  readonly takerReduceOnly?: boolean;
  readonly makerReduceOnly?: boolean;
};

/** An order asking to enter the book (pre-trade check input). */
export interface OrderIntent {
  readonly accountId: number;
  readonly marketId: number;
  readonly side: Side;
  readonly qtyLots: number;
  readonly priceTicks: number;
  /** The recovered signer; when given, it must be permitted on the account. */
  readonly signer?: string;
}

/** A resting order as the risk layer counts it (pre-trade checks count resting orders). */
export interface RestingOrder {
  readonly orderId: string;
  readonly accountId: number;
  readonly marketId: number;
  readonly side: Side;
  readonly qtyLots: number;
  readonly priceTicks: number;
}

/** The engine's verdict hook: which side of a fill (if any) fails risk at match time. */
export type FillVerdict = "ok" | "cancel-maker" | "reject-taker";

/** A settled execution to apply (perp or spot), in the engine's units. */
export interface ExecutionInput {
  readonly type: ExecutionType;
  readonly marketId: number;
  readonly takerAccountId: number;
  /** Absent on ADL and MARKET_CLOSE (one-sided records). */
  readonly makerAccountId?: number;
  readonly takerSide: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly fillId: string;
  readonly sequenceNumber: number;
}

/**
 * The economic fields of a perp execution record (spec 2.14), canonical
 * decimal strings, plus the ledger entries it books. The exchange adds
 * takerOrderId and makerOrderId.
 */
export interface PerpExecutionRecord {
  readonly exchangeId: number;
  readonly symbol: string;
  readonly takerAccountId: number;
  readonly makerAccountId?: number;
  readonly qty: string;
  readonly side: Side;
  readonly price: string;
  readonly takerFee: string;
  readonly protocolFeeCredit?: string;
  readonly referrerFeeCredit?: string;
  readonly takerRebateCredit?: string;
  readonly poolFeeCredit?: string;
  readonly takerOpeningFee?: string;
  readonly type: ExecutionType;
  readonly timestamp: number;
  readonly sequenceNumber: number;
  readonly fillId: string;
  readonly takerRealizedPnl?: string;
  readonly makerRealizedPnl?: string;
  readonly takerPriceVariationPnl?: string;
  readonly makerPriceVariationPnl?: string;
  readonly takerFundingPnl?: string;
  readonly makerFundingPnl?: string;
}

/** The economic fields of a spot execution record (spec 2.15). */
export interface SpotExecutionRecord {
  readonly exchangeId: number;
  readonly symbol: string;
  readonly takerAccountId: number;
  readonly makerAccountId: number;
  readonly qty: string;
  readonly side: Side;
  readonly price: string;
  readonly takerFee: string;
  readonly type: "ORDER_MATCH" | "LIQUIDATION";
  readonly timestamp: number;
  readonly sequenceNumber: number;
  readonly fillId: string;
}

export interface AppliedPerpExecution {
  readonly record: PerpExecutionRecord;
  readonly ledger: readonly LedgerEntry[];
}

export interface AppliedSpotExecution {
  readonly record: SpotExecutionRecord;
  readonly ledger: readonly LedgerEntry[];
}

/** Spec 2.11 Position. */
export interface PositionView {
  readonly exchangeId: number;
  readonly symbol: string;
  readonly accountId: number;
  readonly qty: string;
  readonly side: Side;
  readonly avgEntryPrice: string;
  readonly avgEntryFundingValue: string;
  readonly lastTradeSequenceNumber: number;
}

/** Spec 2.19 AccountBalance. */
export interface AccountBalanceView {
  readonly accountId: number;
  readonly asset: string;
  readonly realBalance: string;
  readonly balanceDEPRECATED: string;
}

/** Spec 2.18 AssetOraclePrice. */
export interface AssetOraclePriceView {
  readonly asset: string;
  readonly oraclePrice: string;
  readonly updatedAt: number;
}

/** Spec 2.6 FeeTierParameters (canonical decimals). */
export interface FeeTierParametersView {
  readonly tierId: number;
  readonly takerFee: string;
  readonly makerFee: string;
  readonly volume30d: string;
  readonly tierType: TierType;
}

/** Spec 2.8 WalletConfiguration. */
export interface WalletConfigurationView {
  readonly feeTierId: number;
  readonly ogStatus: boolean;
  readonly affiliateStatus: boolean;
  readonly refereeStatus: boolean;
}

/** Spec 2.9 MarketSummary. */
export interface MarketSummaryView {
  readonly symbol: string;
  readonly updatedAt: number;
  readonly oiQty: string;
  readonly fundingRate: string;
  readonly longFundingValue: string;
  readonly shortFundingValue: string;
  readonly volume24h: string;
  readonly pxChange24h?: string;
  readonly markPrice?: string;
  readonly oraclePrice?: string;
  readonly throttledMidPrice?: string;
  readonly pricesUpdatedAt?: number;
}

/** Spec 2.10 SpotMarketSummary. */
export interface SpotMarketSummaryView {
  readonly symbol: string;
  readonly updatedAt: number;
  readonly volume24h: string;
  readonly pxChange24h?: string;
  readonly oraclePrice?: string;
  readonly throttledMidPrice?: string;
}

/** Spec 2.16 bust reasons the risk layer reports from `validateMatch`. */
export type BustReason =
  | { readonly reasonName: "AccountBelowIM"; readonly accountId: number; readonly delta: string; readonly shortfall: string }
  | {
      readonly reasonName: "InsufficientBalance";
      readonly accountId: number;
      readonly asset: string;
      readonly required: string;
      readonly available: string;
    }
  | { readonly reasonName: "OpenInterestCapExceeded"; readonly args: { readonly marketId: number; readonly oiQty: string; readonly oiCap: string } }
  | {
      readonly reasonName: "ReduceOnlyViolation";
      readonly args: { readonly accountId: number; readonly marketId: number; readonly position: string; readonly delta: string };
    };

/** One price level of a book side, in the engine's units. */
export interface BookLevel {
  readonly priceTicks: number;
  readonly qtyLots: number;
}

/** A view of a book: bids best (highest) first, asks best (lowest) first. */
export interface BookView {
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
}
