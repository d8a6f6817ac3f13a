/**
 * Tolerant decoding of what the service sends: order-entry responses,
 * RequestErrors, REST read bodies and stream rows.
 *
 * Spec 1 and 9 ask two things of clients:
 *
 * - Unknown fields: ignored. Here they are KEPT, not dropped: every schema is
 *   a zod loose object (as in src/spec), so a field of a newer service
 *   version passes through, typed `unknown` under the index signature. A
 *   strategy must not depend on such fields; a tool that logs or forwards
 *   rows keeps them.
 * - Unknown enum values: the closed enumerations that spec 9 says may gain
 *   members (TimeInForce, CancelReason, RequestErrorCode, ExecutionType) are
 *   read as any string, typed `Open<Known>` = `Known | (string & {})`: the
 *   known members still autocomplete and narrow, and a new member arrives as
 *   its raw string. `isKnown*` tells the two apart. The other enumerations
 *   (OrderType, OrderStatus, Side, DepthType) are not announced as growing
 *   and stay strict, as does every field's type: a malformed known field is
 *   a protocol break, reported rather than guessed around.
 *
 * The schemas are the src/spec ones with those enum fields widened; they are
 * not registered in zod's global registry (the registry is the source of the
 * served OpenAPI documents, which describe the strict contract).
 */
import { z } from "zod";
import { OrderChangesSnapshot, Order, OrderHistoryList } from "../spec/order.ts";
import { CANCEL_REASONS, EXECUTION_TYPES, SPOT_EXECUTION_TYPES, TIME_IN_FORCES } from "../spec/enums.ts";
import type { CancelReason, ExecutionType, SpotExecutionType, TimeInForce } from "../spec/enums.ts";
import { REQUEST_ERROR_CODES, RequestError } from "../spec/errors.ts";
import type { RequestErrorCode } from "../spec/errors.ts";
import { PerpExecution, SpotExecution } from "../spec/execution.ts";
import { PaginationMeta } from "../spec/pagination.ts";
import {
  CancelAllAfterResponse,
  CancelAllResponse,
  CancelOrderResponse,
  CreateOrderResponse,
  ModifyOrderResponse,
} from "../spec/responses.ts";

/** A string enumeration that may gain members: the known ones, or any other string. */
export type Open<Known extends string> = Known | (string & {});

/** A string schema typed as an open enumeration of `values`. */
function openEnum<const Known extends string>(values: readonly Known[], name: string) {
  return z.custom<Open<Known>>((value) => typeof value === "string", {
    message: `${name} must be a string (one of ${values.join(", ")}, or a newer value)`,
  });
}

function isMember<Known extends string>(values: readonly Known[], value: string): value is Known {
  return (values as readonly string[]).includes(value);
}

export function isKnownRequestErrorCode(code: string): code is RequestErrorCode {
  return isMember(REQUEST_ERROR_CODES, code);
}

export function isKnownCancelReason(reason: string): reason is CancelReason {
  return isMember(CANCEL_REASONS, reason);
}

export function isKnownTimeInForce(timeInForce: string): timeInForce is TimeInForce {
  return isMember(TIME_IN_FORCES, timeInForce);
}

export function isKnownExecutionType(type: string): type is ExecutionType {
  return isMember(EXECUTION_TYPES, type);
}

const openRequestErrorCode = openEnum(REQUEST_ERROR_CODES, "error");
const openCancelReason = openEnum(CANCEL_REASONS, "cancelReason");
const openTimeInForce = openEnum(TIME_IN_FORCES, "timeInForce");
const openExecutionType = openEnum(EXECUTION_TYPES, "type");
const openSpotExecutionType = openEnum<SpotExecutionType>(SPOT_EXECUTION_TYPES, "type");

/** Spec 7.1 RequestError with an open `error` code. */
export const TolerantRequestError = RequestError.extend({ error: openRequestErrorCode });
export type TolerantRequestError = z.infer<typeof TolerantRequestError>;

export const TolerantCreateOrderResponse = CreateOrderResponse.extend({ cancelReason: openCancelReason.exactOptional() });
export type TolerantCreateOrderResponse = z.infer<typeof TolerantCreateOrderResponse>;

export const TolerantModifyOrderResponse = ModifyOrderResponse.extend({ cancelReason: openCancelReason.exactOptional() });
export type TolerantModifyOrderResponse = z.infer<typeof TolerantModifyOrderResponse>;

/** The cancel responses carry no open enumeration: the spec schemas are already tolerant of extra fields. */
export const TolerantCancelOrderResponse = CancelOrderResponse;
export type TolerantCancelOrderResponse = CancelOrderResponse;
export const TolerantCancelAllResponse = CancelAllResponse;
export type TolerantCancelAllResponse = CancelAllResponse;
export const TolerantCancelAllAfterResponse = CancelAllAfterResponse;
export type TolerantCancelAllAfterResponse = CancelAllAfterResponse;

/** Spec 2.12 Order (openOrders, orderChanges, orderHistory rows) with open cancelReason and timeInForce. */
export const TolerantOrder = Order.extend({
  cancelReason: openCancelReason.exactOptional(),
  timeInForce: openTimeInForce.exactOptional(),
});
export type TolerantOrder = z.infer<typeof TolerantOrder>;

export const TolerantOrderHistoryList = OrderHistoryList.extend({ data: z.array(TolerantOrder) });
export type TolerantOrderHistoryList = z.infer<typeof TolerantOrderHistoryList>;

export const TolerantOrderChangesSnapshot = OrderChangesSnapshot.extend({ data: z.array(TolerantOrder) });
export type TolerantOrderChangesSnapshot = z.infer<typeof TolerantOrderChangesSnapshot>;

/** Spec 2.14 PerpExecution with an open execution type. */
export const TolerantPerpExecution = PerpExecution.extend({ type: openExecutionType });
export type TolerantPerpExecution = z.infer<typeof TolerantPerpExecution>;

/** A PerpExecutionList page (GET /v2/wallet/{address}/perpExecutions: `{data, meta}`, newest first) with open execution types. */
export const TolerantPerpExecutionList = z.looseObject({ data: z.array(TolerantPerpExecution), meta: PaginationMeta });
export type TolerantPerpExecutionList = z.infer<typeof TolerantPerpExecutionList>;

/** Spec 2.15 SpotExecution with an open execution type. */
export const TolerantSpotExecution = SpotExecution.extend({ type: openSpotExecutionType });
export type TolerantSpotExecution = z.infer<typeof TolerantSpotExecution>;

/** A SpotExecutionList page (GET /v2/wallet/{address}/spotExecutions: `{data, meta}`, newest first) with open execution types. */
export const TolerantSpotExecutionList = z.looseObject({ data: z.array(TolerantSpotExecution), meta: PaginationMeta });
export type TolerantSpotExecutionList = z.infer<typeof TolerantSpotExecutionList>;

/** The outcome of decoding one value: never throws, so a stream can skip a bad row and go on. */
export type DecodeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: string };

/** Decodes `raw` with `schema`; issues are zod's, prettified (one per line, with the path). */
export function decodeWith<T>(schema: z.ZodType<T>, raw: unknown): DecodeResult<T> {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, issues: z.prettifyError(result.error) };
}

export function decodeRequestError(raw: unknown): DecodeResult<TolerantRequestError> {
  return decodeWith(TolerantRequestError, raw);
}

export function decodeOrder(raw: unknown): DecodeResult<TolerantOrder> {
  return decodeWith(TolerantOrder, raw);
}

export function decodePerpExecution(raw: unknown): DecodeResult<TolerantPerpExecution> {
  return decodeWith(TolerantPerpExecution, raw);
}

export function decodeSpotExecution(raw: unknown): DecodeResult<TolerantSpotExecution> {
  return decodeWith(TolerantSpotExecution, raw);
}
