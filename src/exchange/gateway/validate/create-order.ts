/**
 * Structure of a createOrder request (spec 4.2.1, 7.3): the first stage of
 * the gateway pipeline.
 *
 * Precedence, first failure wins:
 *  1. schema (CreateOrderRequest), first failing field in schema order;
 *  2. decimals: limitPx, qty, triggerPx (more than 18 fraction digits, then
 *     beyond int256 at 18 decimals);
 *  3. exchangeId, then symbol (SYMBOL_NOT_FOUND_ERROR);
 *  4. cross-field rules, in this order: a trigger only on a perp market;
 *     qty; limitPx > 0; triggerPx; reduceOnly; postOnly; expiresAfter;
 *     clientOrderId non-zero.
 *
 * Choices where the spec is silent or loose:
 *  - reduceOnly where unsupported (perp GTC/GTT, spot, triggers): `false` is
 *    tolerated (it is what such an order signs; the reference deployment's
 *    clients send it), `true` is rejected;
 *  - postOnly `false` is tolerated on IOC and on triggers, `true` rejected;
 *  - expiresAfter on GTC or IOC is rejected whatever its value, 0 included;
 *  - limitPx must be > 0 on every order, triggers' child limits included.
 */
import { CreateOrderRequest } from "../../../spec/requests.ts";
import type { RequestError } from "../../../spec/errors.ts";
import { quote, requestError } from "./errors.ts";
import { canonicalUint, isZeroUint, parseSchema } from "./fields.ts";
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
import type { Validation, ValidatedCreateOrder, ValidationContext } from "./types.ts";

/** Validates the structure of a createOrder body; never throws on any input. */
export function validateCreateOrder(body: unknown, context: ValidationContext): Validation<ValidatedCreateOrder> {
  const parsed = parseSchema(CreateOrderRequest, body);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const resolved = resolveOrderFields(request, context);
  if (!resolved.ok) return resolved;
  const error = createRuleError(request, resolved.value);
  if (error !== undefined) return { ok: false, error };
  const reduceOnlySupported = supportsReduceOnly(request, resolved.value);
  const value = orderValue("createOrder", request, resolved.value, {
    reduceOnly: reduceOnlySupported ? request.reduceOnly === true : false,
    postOnly: isTriggerType(request.orderType) ? false : request.postOnly === true,
    clientOrderId: request.clientOrderId === undefined ? undefined : canonicalUint(request.clientOrderId),
  });
  return { ok: true, value };
}

function createRuleError(request: CreateOrderRequest, resolved: ResolvedOrderFields): RequestError | undefined {
  const { orderType, timeInForce } = request;
  // In precedence order, the first rejection wins.
  return (
    checkTriggerMarket(orderType, resolved.market) ??
    checkQty(orderType, resolved.qty) ??
    checkLimitPx(resolved.limitPx) ??
    checkTriggerPx(orderType, resolved.triggerPx) ??
    checkCreateReduceOnly(request, resolved) ??
    checkCreatePostOnly(request) ??
    checkExpiresAfter(orderType, timeInForce, request.expiresAfter, request.deadline) ??
    checkCreateClientOrderId(request.clientOrderId)
  );
}

/** reduceOnly is supported on a perp IOC LIMIT only (spec 4.2.1), and required there. */
function supportsReduceOnly(request: CreateOrderRequest, resolved: ResolvedOrderFields): boolean {
  return resolved.market.kind === "perp" && !isTriggerType(request.orderType) && request.timeInForce === "IOC";
}

function checkCreateReduceOnly(request: CreateOrderRequest, resolved: ResolvedOrderFields): RequestError | undefined {
  if (supportsReduceOnly(request, resolved)) {
    if (request.reduceOnly !== undefined) return undefined;
    return requestError("INPUT_VALIDATION_ERROR", "reduceOnly is required on a perp IOC order");
  }
  if (request.reduceOnly !== true) return undefined;
  let where: string;
  if (isTriggerType(request.orderType)) where = orderLabel(request.orderType, request.timeInForce);
  else if (resolved.market.kind === "spot") where = "a spot order";
  else where = `a perp ${request.timeInForce} order`;
  return requestError("INPUT_VALIDATION_ERROR", `reduceOnly must be omitted or false on ${where}`);
}

/** postOnly: free on GTC/GTT; true is rejected on IOC and on a trigger. */
function checkCreatePostOnly(request: CreateOrderRequest): RequestError | undefined {
  if (request.postOnly !== true) return undefined;
  if (!isTriggerType(request.orderType) && request.timeInForce !== "IOC") return undefined;
  return requestError("INPUT_VALIDATION_ERROR", `postOnly must be omitted or false on ${orderLabel(request.orderType, request.timeInForce)}`);
}

/** clientOrderId: "when provided it must be non-zero" (spec 4.2.1). */
function checkCreateClientOrderId(clientOrderId: string | undefined): RequestError | undefined {
  if (clientOrderId === undefined || !isZeroUint(clientOrderId)) return undefined;
  return requestError("INPUT_VALIDATION_ERROR", `clientOrderId ${quote(clientOrderId)} must be non-zero when provided`);
}
