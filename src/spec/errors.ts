/**
 * Error envelopes and codes (spec section 7): RequestError and its codes, the
 * REST ServerError, the framing codes of WebSocket order entry and the error
 * messages of the streaming interface.
 */
import { z } from "zod";

/** Spec 7.2 RequestErrorCode, all 41 values in the spec's order. */
export const REQUEST_ERROR_CODES = [
  "SYMBOL_NOT_FOUND_ERROR",
  "NO_ACCOUNTS_FOUND_ERROR",
  "NO_PRICES_FOUND_FOR_SYMBOL_ERROR",
  "INPUT_VALIDATION_ERROR",
  "CREATE_ORDER_OTHER_ERROR",
  "CANCEL_ORDER_OTHER_ERROR",
  "ORDER_DEADLINE_PASSED_ERROR",
  "ORDER_DEADLINE_TOO_HIGH_ERROR",
  "INVALID_NONCE_ERROR",
  "UNAVAILABLE_MATCHING_ENGINE_ERROR",
  "UNAUTHORIZED_SIGNATURE_ERROR",
  "NUMERIC_OVERFLOW_ERROR",
  "CANCEL_ALL_AFTER_OTHER_ERROR",
  "ORDER_NOT_FOUND_ERROR",
  "POST_ONLY_WOULD_CROSS_ERROR",
  "MODIFY_QTY_BELOW_FILLED_ERROR",
  "EMPTY_MODIFY_ERROR",
  "MODIFY_ORDER_OTHER_ERROR",
  "RATE_LIMITED_ERROR",
  "INSUFFICIENT_BALANCE_ERROR",
  "PRICE_QTY_BOUNDS_ERROR",
  "SERVICE_DISABLED_ERROR",
  "UNAUTHORIZED_ACCOUNT_ERROR",
  "TRADING_HALTED_ERROR",
  "DUPLICATE_CLIENT_ORDER_ID_ERROR",
  "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR",
  "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
  "OPEN_INTEREST_CAP_ERROR",
  "OPEN_INTEREST_BUDGET_ERROR",
  "REDUCE_ONLY_CONDITION_NOT_MET_ERROR",
  "CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR",
  "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR",
  "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR",
  "TRIGGER_ALREADY_EXISTS_ERROR",
  "ORDER_EXPIRES_TOO_SOON_ERROR",
  "OPEN_ORDER_COUNT_EXCEEDED_ERROR",
  "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR",
  "CAPACITY_LIMITED_ERROR",
  "NOT_WHITELISTED_ERROR",
  "ACCOUNT_SUSPENDED_ERROR",
  "UNAVAILABLE_ACCOUNT_OWNER_ERROR",
] as const;
export const RequestErrorCode = z.enum(REQUEST_ERROR_CODES).meta({ id: "RequestErrorCode" });
export type RequestErrorCode = z.infer<typeof RequestErrorCode>;

/**
 * Spec 7.1 RequestError: the HTTP 400 body and the `error` of a failed
 * WebSocket order-entry response. `retryAfterMs` (a minimum wait, >= 1) is
 * sent only with RATE_LIMITED_ERROR; that rule belongs to the gateway.
 */
export const RequestError = z
  .looseObject({
    error: RequestErrorCode,
    message: z.string(),
    retryAfterMs: z.number().int().min(1).exactOptional(),
  })
  .meta({ id: "RequestError" });
export type RequestError = z.infer<typeof RequestError>;

/** The only `error` value of a ServerError. */
export const SERVER_ERROR_CODE = "INTERNAL_SERVER_ERROR";

/** Spec 7.1 ServerError: the HTTP 500 body. */
export const ServerError = z
  .looseObject({
    error: z.literal(SERVER_ERROR_CODE),
    message: z.string(),
  })
  .meta({ id: "ServerError" });
export type ServerError = z.infer<typeof ServerError>;

/**
 * Spec 7.4 framing codes of WebSocket order entry. They appear only in the
 * top-level `error` envelope, and the connection stays open:
 * MALFORMED_JSON (not JSON, or no `type`/`id`), UNKNOWN_TYPE (type not
 * accepted), DUPLICATE_REQUEST_ID (id already in flight), INTERNAL.
 */
export const WS_EXEC_FRAMING_ERROR_CODES = ["MALFORMED_JSON", "UNKNOWN_TYPE", "DUPLICATE_REQUEST_ID", "INTERNAL"] as const;
export const WsExecFramingErrorCode = z.enum(WS_EXEC_FRAMING_ERROR_CODES).meta({ id: "WsExecFramingErrorCode" });
export type WsExecFramingErrorCode = z.infer<typeof WsExecFramingErrorCode>;

/** Spec 7.5: the frame is not valid JSON. */
export const STREAM_ERROR_INVALID_JSON = "Invalid JSON";
/** Spec 7.5: `type` is not subscribe, unsubscribe or ping. */
export const STREAM_ERROR_INVALID_TYPE = "Invalid type";
/** Spec 7.5: unknown channel or malformed channel parameters. */
export const STREAM_ERROR_INVALID_CHANNEL_NAME = "Invalid channel name";
/** Spec 7.5: prefix of the snapshot-failure message; the channel name follows. */
export const STREAM_ERROR_SNAPSHOT_FAILED_PREFIX = "Error while fetching snapshot from ";

/**
 * Spec 7.5: the message sent when the initial snapshot of `channel` failed
 * (the subscription is rolled back and may be retried).
 */
export function streamSnapshotErrorMessage(channel: string): string {
  return STREAM_ERROR_SNAPSHOT_FAILED_PREFIX + channel;
}

/** HTTP status of a RequestError body (spec 7.1). */
export const HTTP_STATUS_REQUEST_ERROR = 400;
/** HTTP status of a ServerError body (spec 7.1). */
export const HTTP_STATUS_SERVER_ERROR = 500;
/** HTTP status of the network-edge limit, with no structured body (spec 7.6). */
export const HTTP_STATUS_EDGE_LIMITED = 429;
/** HTTP status of the readiness probe while draining for shutdown (spec 6.3). */
export const HTTP_STATUS_NOT_READY = 503;
