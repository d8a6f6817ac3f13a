/**
 * The vocabulary of order-entry request validation: the market a request
 * resolves to, the context the gateway hands in, the result shape, and the
 * typed, normalized value of each of the five operations once its structure
 * is accepted.
 *
 * A Validated* value keeps both views of every signed field: the wire text
 * (signatures are over what the client sent) and the exact parsed value
 * (decimals as 10^18 fixed point, the nonce as bigint). The
 * parsed request itself is kept in `request`, unknown extra fields included
 * (spec 1: every object may carry additional properties).
 */
import type { RequestError } from "../../../spec/errors.ts";
import type { OrderType, TimeInForce } from "../../../spec/enums.ts";
import type {
  CancelAllAfterRequest,
  CancelAllRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  ModifyOrderRequest,
} from "../../../spec/requests.ts";
import type { Side } from "../../../spec/scalars.ts";

export type MarketKind = "perp" | "spot";

/** A market as the gateway resolves it from a symbol (the market definition's fields that validation needs). */
export interface MarketRef {
  /** The id as listed in the market definitions (a spot market's id without the signing offset). */
  readonly marketId: number;
  readonly symbol: string;
  readonly kind: MarketKind;
  /** Decimal strings, as in the market definitions; all positive. */
  readonly tickSize: string;
  readonly qtyStepSize: string;
  readonly minOrderQty: string;
}

/** Resolves a symbol to its market; undefined when no market has that symbol. */
export interface MarketDirectory {
  bySymbol(symbol: string): MarketRef | undefined;
}

export interface ValidationContext {
  readonly markets: MarketDirectory;
  /** The id of this exchange; a request naming another one is INPUT_VALIDATION_ERROR. */
  readonly exchangeId: number;
}

/** The outcome of one validation step: a value, or the RequestError that rejects the request. */
export type Validation<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: RequestError };

/** The outcome of a check that produces no value. */
export type Check = { readonly ok: true } | { readonly ok: false; readonly error: RequestError };

/** One decimal wire field, parsed exactly. */
export interface DecimalField {
  /** The wire text as sent (exponent forms included): what the client signed over. */
  readonly text: string;
  /** The exact value scaled by 10^18 (never negative: the wire fields are UnsignedDecimal). */
  readonly e18: bigint;
}

/** How a modifyOrder or cancelOrder finds its order: orderId when present, else the non-zero clientOrderId. */
export type OrderLookup =
  | { readonly by: "orderId"; readonly orderId: string }
  | { readonly by: "clientOrderId"; readonly clientOrderId: string };

/** The fields createOrder and modifyOrder share: the complete order state that both sign. */
export interface ValidatedOrderState {
  readonly market: MarketRef;
  readonly exchangeId: number;
  readonly accountId: number;
  readonly isBuy: boolean;
  /** "B" for a buy, "A" for a sell. */
  readonly side: Side;
  readonly orderType: OrderType;
  /** STOP_LOSS or TAKE_PROFIT. */
  readonly isTrigger: boolean;
  /** For a trigger, the behavior of its fired child. */
  readonly timeInForce: TimeInForce;
  /** Worst acceptable execution price; always > 0. */
  readonly limitPx: DecimalField;
  /** LIMIT only, > 0; absent on a trigger (it protects the whole position). */
  readonly qty?: DecimalField;
  /** Triggers only, > 0. A LIMIT's omitted or zero triggerPx is absent here. */
  readonly triggerPx?: DecimalField;
  /** The effective value, as signed: as sent on a perp IOC LIMIT, false everywhere else. */
  readonly reduceOnly: boolean;
  /** The effective value, as signed: as sent (default false) on a LIMIT, false on a trigger. */
  readonly postOnly: boolean;
  /** Unix seconds of the signature's validity. */
  readonly deadline: number;
  /** Unix seconds; present exactly for GTT, and then > deadline. */
  readonly expiresAfter?: number;
  /** Canonical decimal uint64 (no leading zeros), non-zero; absent when the order has none. */
  readonly clientOrderId?: string;
  readonly nonce: bigint;
  /** The nonce's wire text. */
  readonly nonceText: string;
  readonly signature: string;
  readonly signerWallet: string;
  /** Signed `quantity`: qty E18 with the side's sign, or ±(2^255 - 1) for a trigger (signing.md). */
  readonly quantityE18: bigint;
  /** Signed `limitPrice`. */
  readonly limitPriceE18: bigint;
  /** Signed `triggerPrice`: 0 for LIMIT. */
  readonly triggerPriceE18: bigint;
}

export interface ValidatedCreateOrder extends ValidatedOrderState {
  readonly operation: "createOrder";
  readonly request: CreateOrderRequest;
}

export interface ValidatedModifyOrder extends ValidatedOrderState {
  readonly operation: "modifyOrder";
  readonly request: ModifyOrderRequest;
  readonly lookup: OrderLookup;
  /** Canonical orderId when sent. */
  readonly orderId?: string;
}

export interface ValidatedCancelOrder {
  readonly operation: "cancelOrder";
  readonly request: CancelOrderRequest;
  readonly market: MarketRef;
  readonly accountId: number;
  readonly lookup: OrderLookup;
  /** Canonical orderId when sent. */
  readonly orderId?: string;
  /** Canonical non-zero clientOrderId when sent (a "0" sent beside an orderId is absent here). */
  readonly clientOrderId?: string;
  readonly nonce: bigint;
  readonly nonceText: string;
  readonly deadline: number;
  readonly signature: string;
}

export interface ValidatedCancelAll {
  readonly operation: "cancelAll";
  readonly request: CancelAllRequest;
  /** Absent when the request covers every market of the account. */
  readonly market?: MarketRef;
  readonly accountId: number;
  readonly nonce: bigint;
  readonly nonceText: string;
  readonly deadline: number;
  readonly signature: string;
}

export interface ValidatedCancelAllAfter {
  readonly operation: "cancelAllAfter";
  readonly request: CancelAllAfterRequest;
  readonly accountId: number;
  /** 0 disarms; otherwise within [5000, 60000]. */
  readonly timeoutMs: number;
  readonly nonce: bigint;
  readonly nonceText: string;
  readonly deadline: number;
  readonly signature: string;
  readonly signerWallet: string;
}

export type ValidatedRequest =
  | ValidatedCreateOrder
  | ValidatedModifyOrder
  | ValidatedCancelOrder
  | ValidatedCancelAll
  | ValidatedCancelAllAfter;
