/**
 * Structure of a modifyOrder request (spec 4.2.3, 7.3). The request restates
 * the complete post-modify order; what can be checked without the resting
 * order is checked here, the rest (immutable fields matching the resting
 * order, qty above cumQty, empty modify, lookup) is the engine's.
 *
 * Precedence, first failure wins:
 *  1. schema (ModifyOrderRequest), first failing field in schema order;
 *  2. decimals: limitPx, qty, triggerPx;
 *  3. exchangeId, then symbol;
 *  4. cross-field rules, in this order: the lookup key (orderId, or a
 *     non-zero clientOrderId); a trigger only on a perp market; a LIMIT
 *     modify is GTC or GTT; qty; limitPx > 0; triggerPx; reduceOnly false;
 *     postOnly false on a trigger; expiresAfter.
 *
 * Choices where the spec is silent or loose:
 *  - a LIMIT with timeInForce IOC cannot be modified (an IOC order never
 *    rests; the spec: "GTC or GTT for a LIMIT"): INPUT_VALIDATION_ERROR;
 *  - reduceOnly must be false on every modify: it is "false for a trigger",
 *    and a modifiable LIMIT is GTC/GTT, where reduceOnly is not supported;
 *  - triggerPx of a trigger modify must be non-zero, as on create; a LIMIT
 *    modify may send triggerPx only as zero, as on create;
 *  - expiresAfter follows create's rules: required and > deadline for GTT
 *    (a GTT trigger restates its original expiry), omitted for GTC and IOC,
 *    TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR on an IOC trigger;
 *  - a clientOrderId "0" sent beside an orderId restates "no client id" (it
 *    signs as 0, like an omitted one) and is dropped from the value; without
 *    an orderId it is INPUT_VALIDATION_ERROR.
 */
import type { RequestError } from "../../../spec/errors.ts";
import { ModifyOrderRequest } from "../../../spec/requests.ts";
import { quote, requestError } from "./errors.ts";
import { canonicalUint, isZeroUint, orderLookup, parseSchema } from "./fields.ts";
import {
  checkExpiresAfter,
  checkLimitPx,
  checkQty,
  checkTriggerMarket,
  checkTriggerPx,
  isTriggerType,
  orderLabel,
  type ResolvedOrderFields,
  resolveOrderFields,
  orderValue,
} from "./order-rules.ts";
import type { Validation, ValidatedModifyOrder, ValidationContext } from "./types.ts";
import type { Mutable } from "../../../core/mutable.ts";

/** Validates the structure of a modifyOrder body; never throws on any input. */
export function validateModifyOrder(body: unknown, context: ValidationContext): Validation<ValidatedModifyOrder> {
  const parsed = parseSchema(ModifyOrderRequest, body);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const resolved = resolveOrderFields(request, context);
  if (!resolved.ok) return resolved;
  const lookup = orderLookup(request.orderId, request.clientOrderId);
  if (!lookup.ok) return lookup;
  const error = modifyRuleError(request, resolved.value);
  if (error !== undefined) return { ok: false, error };
  const clientOrderId =
    request.clientOrderId === undefined || isZeroUint(request.clientOrderId) ? undefined : canonicalUint(request.clientOrderId);
  const value = orderValue("modifyOrder", request, resolved.value, { reduceOnly: false, postOnly: request.postOnly, clientOrderId }) as Mutable<ValidatedModifyOrder>;
  value.lookup = lookup.value;
  if (request.orderId !== undefined) value.orderId = canonicalUint(request.orderId);
  return { ok: true, value };
}

function modifyRuleError(request: ModifyOrderRequest, resolved: ResolvedOrderFields): RequestError | undefined {
  const { orderType, timeInForce } = request;
  // In precedence order, the first rejection wins (a chain, not a list of closures made per request).
  return (
    checkTriggerMarket(orderType, resolved.market) ??
    checkModifiableTimeInForce(request) ??
    checkQty(orderType, resolved.qty) ??
    checkLimitPx(resolved.limitPx) ??
    checkTriggerPx(orderType, resolved.triggerPx) ??
    checkModifyFlag("reduceOnly", request.reduceOnly, request) ??
    (isTriggerType(orderType) ? checkModifyFlag("postOnly", request.postOnly, request) : undefined) ??
    checkExpiresAfter(orderType, timeInForce, request.expiresAfter, request.deadline)
  );
}

function checkModifiableTimeInForce(request: ModifyOrderRequest): RequestError | undefined {
  if (isTriggerType(request.orderType) || request.timeInForce !== "IOC") return undefined;
  return requestError(
    "INPUT_VALIDATION_ERROR",
    `timeInForce ${quote(request.timeInForce)} cannot be modified: a LIMIT modify is GTC or GTT (an IOC order never rests)`,
  );
}

/** A boolean that a modify must restate as false here (reduceOnly always, postOnly on a trigger). */
function checkModifyFlag(field: "reduceOnly" | "postOnly", value: boolean, request: ModifyOrderRequest): RequestError | undefined {
  if (!value) return undefined;
  return requestError("INPUT_VALIDATION_ERROR", `${field} must be false on ${orderLabel(request.orderType, request.timeInForce)}`);
}
