/**
 * WebSocket order-entry envelopes (spec 4.3). The order-entry surface has no
 * unsolicited events: every server frame answers one client frame by `id`,
 * except the top-level `error` envelope of a frame that could not be handled.
 */
import { z } from "zod";
import { RequestError, WsExecFramingErrorCode } from "./errors.ts";
import {
  CancelAllAfterRequest,
  CancelAllRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  ModifyOrderRequest,
} from "./requests.ts";
import {
  CancelAllAfterResponse,
  CancelAllResponse,
  CancelOrderResponse,
  CreateOrderResponse,
  ModifyOrderResponse,
} from "./responses.ts";

/** The order-entry operations, each a REST POST and a WebSocket message type (spec 4.2). */
export const ORDER_ENTRY_OPERATIONS = ["createOrder", "modifyOrder", "cancelOrder", "cancelAll", "cancelAllAfter"] as const;
export type OrderEntryOperation = (typeof ORDER_ENTRY_OPERATIONS)[number];

/** The accepted `type` values of a client frame (spec 4.3); others get UNKNOWN_TYPE. */
export const EXEC_REQUEST_TYPES = [...ORDER_ENTRY_OPERATIONS, "ping"] as const;
export type ExecRequestType = (typeof EXEC_REQUEST_TYPES)[number];

/** The REST path of an operation: POST /v2/<operation> (spec 4.2). */
export function orderEntryRestPath(operation: OrderEntryOperation): string {
  return `/v2/${operation}`;
}

function requestFrame<T extends OrderEntryOperation, P extends z.ZodType>(type: T, payload: P) {
  return z.looseObject({ type: z.literal(type), id: z.string(), payload });
}

/** An ok response: `payload` is the REST 200 body, `error` is forbidden. */
function successFrame<T extends OrderEntryOperation, P extends z.ZodType>(type: T, payload: P) {
  return z.looseObject({
    type: z.literal(type),
    id: z.string(),
    ok: z.literal(true),
    payload,
    error: z.never().exactOptional(),
  });
}

/** A failed response: `error` is a RequestError, `payload` is forbidden. */
function failureFrame<T extends OrderEntryOperation>(type: T) {
  return z.looseObject({
    type: z.literal(type),
    id: z.string(),
    ok: z.literal(false),
    error: RequestError,
    payload: z.never().exactOptional(),
  });
}

export const ExecCreateOrderRequest = requestFrame("createOrder", CreateOrderRequest).meta({ id: "ExecCreateOrderRequest" });
export type ExecCreateOrderRequest = z.infer<typeof ExecCreateOrderRequest>;
export const ExecModifyOrderRequest = requestFrame("modifyOrder", ModifyOrderRequest).meta({ id: "ExecModifyOrderRequest" });
export type ExecModifyOrderRequest = z.infer<typeof ExecModifyOrderRequest>;
export const ExecCancelOrderRequest = requestFrame("cancelOrder", CancelOrderRequest).meta({ id: "ExecCancelOrderRequest" });
export type ExecCancelOrderRequest = z.infer<typeof ExecCancelOrderRequest>;
export const ExecCancelAllRequest = requestFrame("cancelAll", CancelAllRequest).meta({ id: "ExecCancelAllRequest" });
export type ExecCancelAllRequest = z.infer<typeof ExecCancelAllRequest>;
export const ExecCancelAllAfterRequest = requestFrame("cancelAllAfter", CancelAllAfterRequest).meta({
  id: "ExecCancelAllAfterRequest",
});
export type ExecCancelAllAfterRequest = z.infer<typeof ExecCancelAllAfterRequest>;

/** Client ping; the server answers with a pong echoing the optional id. */
export const ExecPing = z
  .looseObject({ type: z.literal("ping"), id: z.string().exactOptional() })
  .meta({ id: "ExecPing" });
export type ExecPing = z.infer<typeof ExecPing>;

/** Every client frame of order entry, discriminated by `type`. */
export const ExecClientFrame = z
  .discriminatedUnion("type", [
    ExecCreateOrderRequest,
    ExecModifyOrderRequest,
    ExecCancelOrderRequest,
    ExecCancelAllRequest,
    ExecCancelAllAfterRequest,
    ExecPing,
  ])
  .meta({ id: "ExecClientFrame" });
export type ExecClientFrame = z.infer<typeof ExecClientFrame>;

export const ExecCreateOrderSuccess = successFrame("createOrder", CreateOrderResponse).meta({ id: "ExecCreateOrderSuccess" });
export type ExecCreateOrderSuccess = z.infer<typeof ExecCreateOrderSuccess>;
export const ExecCreateOrderFailure = failureFrame("createOrder").meta({ id: "ExecCreateOrderFailure" });
export type ExecCreateOrderFailure = z.infer<typeof ExecCreateOrderFailure>;
export const ExecCreateOrderResponse = z
  .discriminatedUnion("ok", [ExecCreateOrderSuccess, ExecCreateOrderFailure])
  .meta({ id: "ExecCreateOrderResponse" });
export type ExecCreateOrderResponse = z.infer<typeof ExecCreateOrderResponse>;

export const ExecModifyOrderSuccess = successFrame("modifyOrder", ModifyOrderResponse).meta({ id: "ExecModifyOrderSuccess" });
export type ExecModifyOrderSuccess = z.infer<typeof ExecModifyOrderSuccess>;
export const ExecModifyOrderFailure = failureFrame("modifyOrder").meta({ id: "ExecModifyOrderFailure" });
export type ExecModifyOrderFailure = z.infer<typeof ExecModifyOrderFailure>;
export const ExecModifyOrderResponse = z
  .discriminatedUnion("ok", [ExecModifyOrderSuccess, ExecModifyOrderFailure])
  .meta({ id: "ExecModifyOrderResponse" });
export type ExecModifyOrderResponse = z.infer<typeof ExecModifyOrderResponse>;

export const ExecCancelOrderSuccess = successFrame("cancelOrder", CancelOrderResponse).meta({ id: "ExecCancelOrderSuccess" });
export type ExecCancelOrderSuccess = z.infer<typeof ExecCancelOrderSuccess>;
export const ExecCancelOrderFailure = failureFrame("cancelOrder").meta({ id: "ExecCancelOrderFailure" });
export type ExecCancelOrderFailure = z.infer<typeof ExecCancelOrderFailure>;
export const ExecCancelOrderResponse = z
  .discriminatedUnion("ok", [ExecCancelOrderSuccess, ExecCancelOrderFailure])
  .meta({ id: "ExecCancelOrderResponse" });
export type ExecCancelOrderResponse = z.infer<typeof ExecCancelOrderResponse>;

export const ExecCancelAllSuccess = successFrame("cancelAll", CancelAllResponse).meta({ id: "ExecCancelAllSuccess" });
export type ExecCancelAllSuccess = z.infer<typeof ExecCancelAllSuccess>;
export const ExecCancelAllFailure = failureFrame("cancelAll").meta({ id: "ExecCancelAllFailure" });
export type ExecCancelAllFailure = z.infer<typeof ExecCancelAllFailure>;
export const ExecCancelAllResponse = z
  .discriminatedUnion("ok", [ExecCancelAllSuccess, ExecCancelAllFailure])
  .meta({ id: "ExecCancelAllResponse" });
export type ExecCancelAllResponse = z.infer<typeof ExecCancelAllResponse>;

export const ExecCancelAllAfterSuccess = successFrame("cancelAllAfter", CancelAllAfterResponse).meta({
  id: "ExecCancelAllAfterSuccess",
});
export type ExecCancelAllAfterSuccess = z.infer<typeof ExecCancelAllAfterSuccess>;
export const ExecCancelAllAfterFailure = failureFrame("cancelAllAfter").meta({ id: "ExecCancelAllAfterFailure" });
export type ExecCancelAllAfterFailure = z.infer<typeof ExecCancelAllAfterFailure>;
export const ExecCancelAllAfterResponse = z
  .discriminatedUnion("ok", [ExecCancelAllAfterSuccess, ExecCancelAllAfterFailure])
  .meta({ id: "ExecCancelAllAfterResponse" });
export type ExecCancelAllAfterResponse = z.infer<typeof ExecCancelAllAfterResponse>;

/** Server pong, echoing the ping's optional id (`pong` is server-only). */
export const ExecPong = z
  .looseObject({ type: z.literal("pong"), id: z.string().exactOptional() })
  .meta({ id: "ExecPong" });
export type ExecPong = z.infer<typeof ExecPong>;

/** The `error` object of the top-level error envelope: a framing code and a message. */
export const ExecFramingError = z
  .looseObject({ error: WsExecFramingErrorCode, message: z.string() })
  .meta({ id: "ExecFramingError" });
export type ExecFramingError = z.infer<typeof ExecFramingError>;

/**
 * Top-level error envelope (spec 4.3, 7.4), sent when a frame cannot be
 * handled at all; `id` is present only when the request carried one. The
 * connection stays open.
 */
export const ExecErrorFrame = z
  .looseObject({
    type: z.literal("error"),
    id: z.string().exactOptional(),
    error: ExecFramingError,
  })
  .meta({ id: "ExecErrorFrame" });
export type ExecErrorFrame = z.infer<typeof ExecErrorFrame>;

/** Every server frame of order entry, discriminated by `type` (then `ok`). */
export const ExecServerFrame = z
  .discriminatedUnion("type", [
    ExecCreateOrderResponse,
    ExecModifyOrderResponse,
    ExecCancelOrderResponse,
    ExecCancelAllResponse,
    ExecCancelAllAfterResponse,
    ExecPong,
    ExecErrorFrame,
  ])
  .meta({ id: "ExecServerFrame" });
export type ExecServerFrame = z.infer<typeof ExecServerFrame>;

/** The request and success-body schemas of each operation, for the gateway and the REST routes. */
export const ORDER_ENTRY_BODIES = {
  createOrder: { request: CreateOrderRequest, response: CreateOrderResponse },
  modifyOrder: { request: ModifyOrderRequest, response: ModifyOrderResponse },
  cancelOrder: { request: CancelOrderRequest, response: CancelOrderResponse },
  cancelAll: { request: CancelAllRequest, response: CancelAllResponse },
  cancelAllAfter: { request: CancelAllAfterRequest, response: CancelAllAfterResponse },
} as const satisfies Record<OrderEntryOperation, { request: z.ZodType; response: z.ZodType }>;
