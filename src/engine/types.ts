/**
 * The engine's vocabulary: the specification's enumerations (as string
 * literal unions until src/spec is wired in; names match the spec exactly),
 * market specs, commands, results, events, hooks and configuration.
 *
 * Inside the engine prices are integer ticks and quantities integer lots
 * (JS safe integers); times are virtual microseconds. Decimal strings appear
 * only in units.ts and wire.ts. Optional internal values are `null`, never
 * `undefined`; the wire layer omits them.
 */

export type Side = "B" | "A";
export type OrderType = "LIMIT" | "STOP_LOSS" | "TAKE_PROFIT";
export type TimeInForce = "IOC" | "GTC" | "GTT";
export type OrderStatus = "OPEN" | "FILLED" | "CANCELLED";
export type MarketKind = "perp" | "spot";

export type CancelReason =
  | "NO_LIQUIDITY"
  | "IOC_REMAINDER"
  | "SELF_TRADE_PREVENTION"
  | "PROTECTIVE_SELF_TRADE_SWEEP"
  | "GTT_EXPIRED"
  | "USER_CANCEL"
  | "MASS_CANCEL"
  | "CANCEL_ALL_AFTER"
  | "FEED_RESET"
  | "RISK_CANCELLED"
  | "RISK_REJECTED"
  | "OCO_SIBLING_FIRED"
  | "POSITION_CLOSED";

/** Spec 7.2, all values (the engine produces only some of them). */
export type RequestErrorCode =
  | "SYMBOL_NOT_FOUND_ERROR"
  | "NO_ACCOUNTS_FOUND_ERROR"
  | "NO_PRICES_FOUND_FOR_SYMBOL_ERROR"
  | "INPUT_VALIDATION_ERROR"
  | "CREATE_ORDER_OTHER_ERROR"
  | "CANCEL_ORDER_OTHER_ERROR"
  | "ORDER_DEADLINE_PASSED_ERROR"
  | "ORDER_DEADLINE_TOO_HIGH_ERROR"
  | "INVALID_NONCE_ERROR"
  | "UNAVAILABLE_MATCHING_ENGINE_ERROR"
  | "UNAUTHORIZED_SIGNATURE_ERROR"
  | "NUMERIC_OVERFLOW_ERROR"
  | "CANCEL_ALL_AFTER_OTHER_ERROR"
  | "ORDER_NOT_FOUND_ERROR"
  | "POST_ONLY_WOULD_CROSS_ERROR"
  | "MODIFY_QTY_BELOW_FILLED_ERROR"
  | "EMPTY_MODIFY_ERROR"
  | "MODIFY_ORDER_OTHER_ERROR"
  | "RATE_LIMITED_ERROR"
  | "INSUFFICIENT_BALANCE_ERROR"
  | "PRICE_QTY_BOUNDS_ERROR"
  | "SERVICE_DISABLED_ERROR"
  | "UNAUTHORIZED_ACCOUNT_ERROR"
  | "TRADING_HALTED_ERROR"
  | "DUPLICATE_CLIENT_ORDER_ID_ERROR"
  | "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR"
  | "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR"
  | "OPEN_INTEREST_CAP_ERROR"
  | "OPEN_INTEREST_BUDGET_ERROR"
  | "REDUCE_ONLY_CONDITION_NOT_MET_ERROR"
  | "CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR"
  | "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR"
  | "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR"
  | "TRIGGER_ALREADY_EXISTS_ERROR"
  | "ORDER_EXPIRES_TOO_SOON_ERROR"
  | "OPEN_ORDER_COUNT_EXCEEDED_ERROR"
  | "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR"
  | "CAPACITY_LIMITED_ERROR"
  | "NOT_WHITELISTED_ERROR"
  | "ACCOUNT_SUSPENDED_ERROR"
  | "UNAVAILABLE_ACCOUNT_OWNER_ERROR";

/** A market as the exchange registers it (built from MarketDefinition / SpotMarketDefinition). */
export interface MarketSpec {
  readonly marketId: number;
  readonly symbol: string;
  readonly kind: MarketKind;
  /** Decimal strings, as in the market definitions. */
  readonly tickSize: string;
  readonly qtyStepSize: string;
  readonly minOrderQty: string;
}

export interface MarketState {
  readonly halted: boolean;
  /** Reopening after a halt: orders that would cross are refused, the others rest. */
  readonly reopening: boolean;
  /** Settlement paused (a settlement fault): same rule as reopening. */
  readonly settlementPaused: boolean;
}

// ---------------------------------------------------------------------------
// Results

export interface EngineError {
  readonly code: RequestErrorCode;
  readonly message: string;
}

export interface Rejection {
  readonly ok: false;
  readonly error: EngineError;
}

/** Either the command's response fields with `ok: true`, or a rejection that changed nothing. */
export type EngineResult<T> = ({ readonly ok: true } & T) | Rejection;

export function reject(code: RequestErrorCode, message: string): Rejection {
  return { ok: false, error: { code, message } };
}

// ---------------------------------------------------------------------------
// Commands. Every command carries the virtual time it is handled at.

export interface CreateOrderCommand {
  readonly atMicros: number;
  readonly marketId: number;
  readonly exchangeId: number;
  readonly accountId: number;
  /**
   * The signing wallet as a dense integer id (the exchange's wallet index, in
   * [0, 2^24)): open-order accounting is kept per owner.
   */
  readonly ownerId: number;
  readonly isBuy: boolean;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  /** limitPx in ticks. */
  readonly priceTicks: number;
  /** Required for LIMIT, absent for triggers. */
  readonly qtyLots?: number;
  /** Required for STOP_LOSS / TAKE_PROFIT, absent (or 0) for LIMIT. */
  readonly triggerTicks?: number;
  readonly reduceOnly?: boolean;
  readonly postOnly?: boolean;
  /** Decimal uint64, non-zero when present. */
  readonly clientOrderId?: string;
  /** Unix seconds; GTT only. */
  readonly expiresAfterSec?: number;
  /** Unix seconds of the signature's deadline; expiresAfter must be greater. */
  readonly deadlineSec?: number;
}

/** The complete post-modify order (spec 4.2.3); orderId, or clientOrderId when orderId is absent, finds it. */
export interface ModifyOrderCommand {
  readonly atMicros: number;
  readonly marketId: number;
  readonly exchangeId: number;
  readonly accountId: number;
  /** Must be the resting order's signer. */
  readonly ownerId: number;
  readonly orderId?: string;
  readonly clientOrderId?: string;
  readonly isBuy: boolean;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly priceTicks: number;
  readonly qtyLots?: number;
  readonly triggerTicks?: number;
  readonly reduceOnly?: boolean;
  readonly postOnly?: boolean;
  readonly expiresAfterSec?: number;
  readonly deadlineSec?: number;
}

export interface CancelOrderCommand {
  readonly atMicros: number;
  readonly marketId: number;
  readonly accountId: number;
  readonly orderId?: string;
  readonly clientOrderId?: string;
}

export interface CancelAllCommand {
  readonly atMicros: number;
  readonly accountId: number;
  /** Omit to cancel in every market of the account. */
  readonly marketId?: number;
  /** The orders' cancel reason: MASS_CANCEL (a client's cancelAll, the default), or the exchange's own (RISK_CANCELLED for a liquidated account). */
  readonly reason?: CancelReason;
}

export interface CancelAllAfterCommand {
  readonly atMicros: number;
  readonly accountId: number;
  /** 0 disarms; otherwise within [5000, 60000]. */
  readonly timeoutMs: number;
}

// ---------------------------------------------------------------------------
// Responses (integer units; wire.ts turns them into the spec's shapes)

export interface OrderResponse {
  readonly orderId: string;
  readonly status: OrderStatus;
  readonly clientOrderId: string | null;
  readonly marketId: number;
  readonly qtyLots: number;
  readonly cumLots: number;
  /** Lots executed by this request (0 when nothing filled). */
  readonly execLots: number;
  readonly firstFillId: string | null;
  readonly fillCount: number;
  readonly cancelReason: CancelReason | null;
}

/** status is always CANCELLED. */
export type CancelResponse = Pick<OrderResponse, "orderId" | "status" | "clientOrderId">;

export interface CancelAllResponse {
  readonly cancelledCount: number;
}

export interface CancelAllAfterResponse {
  readonly accountId: number;
  readonly timeoutMs: number;
  /** Receipt time + timeoutMs in ms; null when disarmed. */
  readonly triggerAtMs: number | null;
}

// ---------------------------------------------------------------------------
// Events

/**
 * One match. Everything settlement and the execution channels need later.
 * `takerFilled` / `makerFilled`: this fill left that order with nothing
 * to fill (the spec omits takerOrderId / makerOrderId on such executions;
 * which rows omit them is the execution publisher's call).
 */
export interface FillProposal {
  readonly marketId: number;
  readonly atMicros: number;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly takerSide: Side;
  readonly takerAccountId: number;
  readonly takerOrderId: string;
  readonly takerOwnerId: number;
  readonly takerReduceOnly: boolean;
  readonly takerFilled: boolean;
  readonly makerAccountId: number;
  readonly makerOrderId: string;
  readonly makerOwnerId: number;
  readonly makerReduceOnly: boolean;
  readonly makerFilled: boolean;
}

export interface Fill extends FillProposal {
  readonly fillId: string;
}

export type FillVerdict = "ok" | "cancel-maker" | "reject-taker";

// ---------------------------------------------------------------------------
// Configuration

export interface EngineConfig {
  /** A GTT must live at least this long after its receipt (ORDER_EXPIRES_TOO_SOON_ERROR). */
  readonly minGttLifetimeMicros: number;
  /** |limitPx - triggerPx| may be at most this fraction of triggerPx, in basis points. */
  readonly triggerBandBps: number;
  /** A GTT stop (armed or fired) ends this long before its expiresAfter. */
  readonly stopSettlementMarginMicros: number;
  /** Resting orders per market; an order that would rest beyond it is CAPACITY_LIMITED_ERROR. */
  readonly maxRestingOrdersPerMarket: number;
  readonly firstOrderId: bigint;
  readonly firstFillId: bigint;
  /** The sequenceNumber of the first order event is firstSequenceNumber + 1. */
  readonly firstSequenceNumber: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  minGttLifetimeMicros: 5_000_000,
  triggerBandBps: 500,
  stopSettlementMarginMicros: 5_000_000,
  maxRestingOrdersPerMarket: 1_000_000,
  firstOrderId: 63_552_420_354_981_888n,
  firstFillId: 1_000_000_000n,
  firstSequenceNumber: 0,
};

export const CANCEL_ALL_AFTER_MIN_MS = 5_000;
export const CANCEL_ALL_AFTER_MAX_MS = 60_000;
export const DEPTH_LIMIT_DEFAULT = 100;
export const DEPTH_LIMIT_MAX = 1_000;
/** Levels per side of the depth stream: the spec's published limit, one constant for the feed and the backtest's window. */
export { DEPTH_STREAM_LEVELS } from "../spec/limits.ts";
