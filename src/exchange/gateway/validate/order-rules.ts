/**
 * What createOrder and modifyOrder share: the order's fields (spec 4.2.1 and
 * 4.2.3 restate the same 14 signed members), their exact parsing, and the
 * cross-field rules whose wording is the same for both operations.
 *
 * Each rule returns the RequestError that rejects the request, or undefined.
 */
import { INT256_MAX } from "../../../core/decimal.ts";
import type { OrderType, TimeInForce } from "../../../spec/enums.ts";
import type { RequestError } from "../../../spec/errors.ts";
import { aOrAn, quote, requestError } from "./errors.ts";
import { checkExchangeId, parseDecimal, parseOptionalDecimal, resolveSymbol, wireInteger } from "./fields.ts";
import type { Mutable } from "../../../core/mutable.ts";
import type { DecimalField, MarketRef, Validation, ValidatedOrderState, ValidationContext } from "./types.ts";

/** The fields that a createOrder and a modifyOrder request both carry, as their schemas infer them. */
export interface OrderFields {
  readonly exchangeId: number;
  readonly symbol: string;
  readonly accountId: number;
  readonly isBuy: boolean;
  readonly limitPx: string;
  readonly qty?: string;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly triggerPx?: string;
  readonly reduceOnly?: boolean;
  readonly postOnly?: boolean;
  readonly signature: string;
  readonly nonce: string;
  readonly signerWallet: string;
  readonly deadline: number;
  readonly expiresAfter?: number;
  readonly clientOrderId?: string;
}

/** The order's decimals parsed and its market resolved. */
export interface ResolvedOrderFields {
  readonly market: MarketRef;
  readonly limitPx: DecimalField;
  readonly qty?: DecimalField;
  readonly triggerPx?: DecimalField;
}

/** The signed quantity of a trigger: ±(2^255 - 1), raw, not scaled (reference/signing.md). */
export const TRIGGER_QUANTITY_SENTINEL_E18 = INT256_MAX;

export function isTriggerType(orderType: OrderType): boolean {
  return orderType !== "LIMIT";
}

/** How messages name an order: by its trigger type, else by its timeInForce ("an IOC order"). */
export function orderLabel(orderType: OrderType, timeInForce: TimeInForce): string {
  return `${aOrAn(isTriggerType(orderType) ? orderType : timeInForce)} order`;
}

/**
 * The steps after the schema, in precedence order: decimals (limitPx, qty,
 * triggerPx: format, then range), exchangeId, symbol.
 */
export function resolveOrderFields(request: OrderFields, context: ValidationContext): Validation<ResolvedOrderFields> {
  const limitPx = parseDecimal(request.limitPx, "limitPx");
  if (!limitPx.ok) return limitPx;
  const qty = parseOptionalDecimal(request.qty, "qty");
  if (!qty.ok) return qty;
  const triggerPx = parseOptionalDecimal(request.triggerPx, "triggerPx");
  if (!triggerPx.ok) return triggerPx;
  const exchangeError = checkExchangeId(request.exchangeId, context);
  if (exchangeError !== undefined) return { ok: false, error: exchangeError };
  const market = resolveSymbol(request.symbol, context);
  if (!market.ok) return market;
  const value: Mutable<ResolvedOrderFields> = { market: market.value, limitPx: limitPx.value };
  if (qty.value !== undefined) value.qty = qty.value;
  if (triggerPx.value !== undefined) value.triggerPx = triggerPx.value;
  return { ok: true, value };
}

/** STOP_LOSS and TAKE_PROFIT exist on perp markets only (spec 4.2.3: "an armed perp STOP_LOSS/TAKE_PROFIT"). */
export function checkTriggerMarket(orderType: OrderType, market: MarketRef): RequestError | undefined {
  if (!isTriggerType(orderType) || market.kind === "perp") return undefined;
  return requestError(
    "INPUT_VALIDATION_ERROR",
    `orderType ${quote(orderType)} is only supported on perp markets, and symbol ${quote(market.symbol)} is a spot market`,
  );
}

/** qty: required and > 0 on a LIMIT, omitted on a trigger (it protects the whole live position at fire time). */
export function checkQty(orderType: OrderType, qty: DecimalField | undefined): RequestError | undefined {
  if (isTriggerType(orderType)) {
    if (qty === undefined) return undefined;
    return requestError(
      "INPUT_VALIDATION_ERROR",
      `qty must be omitted on ${aOrAn(orderType)} order (a trigger covers the whole position)`,
    );
  }
  if (qty === undefined) return requestError("INPUT_VALIDATION_ERROR", "qty is required on a LIMIT order");
  if (qty.e18 === 0n) return requestError("INPUT_VALIDATION_ERROR", `qty ${quote(qty.text)} must be greater than 0`);
  return undefined;
}

/** limitPx > 0 on every order: a zero price is no price (a market-like sell uses a low positive price). */
export function checkLimitPx(limitPx: DecimalField): RequestError | undefined {
  if (limitPx.e18 > 0n) return undefined;
  return requestError("INPUT_VALIDATION_ERROR", `limitPx ${quote(limitPx.text)} must be greater than 0`);
}

/** triggerPx: required and non-zero on a trigger; on a LIMIT omitted or zero (a non-zero value is rejected). */
export function checkTriggerPx(orderType: OrderType, triggerPx: DecimalField | undefined): RequestError | undefined {
  if (!isTriggerType(orderType)) {
    if (triggerPx === undefined || triggerPx.e18 === 0n) return undefined;
    return requestError("INPUT_VALIDATION_ERROR", `triggerPx ${quote(triggerPx.text)} must be omitted or zero on a LIMIT order`);
  }
  if (triggerPx === undefined) return requestError("INPUT_VALIDATION_ERROR", `triggerPx is required on ${aOrAn(orderType)} order`);
  if (triggerPx.e18 === 0n) {
    return requestError("INPUT_VALIDATION_ERROR", `triggerPx ${quote(triggerPx.text)} must be non-zero on ${aOrAn(orderType)} order`);
  }
  return undefined;
}

/**
 * expiresAfter: present exactly for GTT (triggers included), and then
 * strictly greater than deadline; a trigger whose child is IOC must not
 * expire (TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR). Any value counts as present,
 * 0 included: the spec says to omit the field.
 */
export function checkExpiresAfter(
  orderType: OrderType,
  timeInForce: TimeInForce,
  expiresAfter: number | undefined,
  deadline: number,
): RequestError | undefined {
  if (timeInForce === "GTT") {
    if (expiresAfter === undefined) return requestError("INPUT_VALIDATION_ERROR", "expiresAfter is required on a GTT order");
    if (expiresAfter > deadline) return undefined;
    return requestError(
      "INPUT_VALIDATION_ERROR",
      `expiresAfter ${quote(expiresAfter)} must be greater than deadline ${quote(deadline)}`,
    );
  }
  if (expiresAfter === undefined) return undefined;
  if (isTriggerType(orderType) && timeInForce === "IOC") {
    return requestError(
      "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR",
      `expiresAfter must be omitted on ${aOrAn(orderType)} order with timeInForce IOC (its child never rests)`,
    );
  }
  const label = isTriggerType(orderType) ? `${aOrAn(orderType)} order with timeInForce ${timeInForce}` : orderLabel(orderType, timeInForce);
  return requestError("INPUT_VALIDATION_ERROR", `expiresAfter must be omitted on ${label}`);
}

/**
 * The validated value of a create or modify: `operation`, `request`, then the
 * normalized order state, once every rule has passed. One literal holds every
 * member that each order has, and the optional ones (qty, triggerPx,
 * expiresAfter, clientOrderId) follow it: an object grown member by member
 * from a small head (as this was) reallocates its out-of-object members
 * every few stores, ~500 B of garbage per request, where the literal is
 * allocated at its size once. The members' order is not observable (the
 * value never leaves the gateway), so the literal puts the optional members
 * last.
 */
export function orderValue<Operation extends "createOrder" | "modifyOrder", Request extends OrderFields>(
  operation: Operation,
  request: Request,
  resolved: ResolvedOrderFields,
  effective: { readonly reduceOnly: boolean; readonly postOnly: boolean; readonly clientOrderId: string | undefined },
): Mutable<{ readonly operation: Operation; readonly request: Request } & ValidatedOrderState> {
  const isTrigger = isTriggerType(request.orderType);
  const qty = isTrigger ? undefined : resolved.qty;
  const triggerPx = isTrigger ? resolved.triggerPx : undefined;
  const magnitude = isTrigger ? TRIGGER_QUANTITY_SENTINEL_E18 : (qty?.e18 ?? 0n);
  const value: Mutable<{ readonly operation: Operation; readonly request: Request } & ValidatedOrderState> = {
    operation,
    request,
    market: resolved.market,
    exchangeId: wireInteger(request.exchangeId),
    accountId: wireInteger(request.accountId),
    isBuy: request.isBuy,
    side: request.isBuy ? "B" : "A",
    orderType: request.orderType,
    isTrigger,
    timeInForce: request.timeInForce,
    limitPx: resolved.limitPx,
    reduceOnly: effective.reduceOnly,
    postOnly: effective.postOnly,
    deadline: wireInteger(request.deadline),
    nonce: BigInt(request.nonce),
    nonceText: request.nonce,
    signature: request.signature,
    signerWallet: request.signerWallet,
    quantityE18: request.isBuy ? magnitude : -magnitude,
    limitPriceE18: resolved.limitPx.e18,
    triggerPriceE18: triggerPx?.e18 ?? 0n,
  };
  if (qty !== undefined) value.qty = qty;
  if (triggerPx !== undefined) value.triggerPx = triggerPx;
  if (request.expiresAfter !== undefined) value.expiresAfter = wireInteger(request.expiresAfter);
  if (effective.clientOrderId !== undefined) value.clientOrderId = effective.clientOrderId;
  return value;
}
