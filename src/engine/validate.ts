/**
 * The checks of a create or modify that depend only on the request and the
 * market's rules (not on the book, the account's orders or positions). Each
 * returns the first failing rule as an EngineError, or null; the order of
 * the checks inside each function is part of the precedence documented in
 * engine.ts.
 */
import { isUint64 } from "../core/ids.ts";
import { MICROS_PER_SECOND } from "../core/time.ts";
import type { Market } from "./market.ts";
import { OWNER_ID_LIMIT } from "./open-orders.ts";
import type { CreateOrderCommand, EngineError, ModifyOrderCommand, OrderType, RequestErrorCode, TimeInForce } from "./types.ts";

const ORDER_TYPES: readonly OrderType[] = ["LIMIT", "STOP_LOSS", "TAKE_PROFIT"];
const TIMES_IN_FORCE: readonly TimeInForce[] = ["IOC", "GTC", "GTT"];

function error(code: RequestErrorCode, message: string): EngineError {
  return { code, message };
}

function invalid(message: string): EngineError {
  return error("INPUT_VALIDATION_ERROR", message);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Identity fields, enums and the client order id. */
function checkCommon(cmd: CreateOrderCommand | ModifyOrderCommand): EngineError | null {
  if (!isCount(cmd.accountId)) return invalid(`accountId ${String(cmd.accountId)} is not an unsigned integer`);
  if (!isCount(cmd.exchangeId)) return invalid(`exchangeId ${String(cmd.exchangeId)} is not an unsigned integer`);
  if (!isCount(cmd.ownerId) || cmd.ownerId >= OWNER_ID_LIMIT) return invalid(`ownerId ${String(cmd.ownerId)} is not an integer in [0, ${OWNER_ID_LIMIT})`);
  if (cmd.orderType !== "LIMIT" && !ORDER_TYPES.includes(cmd.orderType)) return invalid(`orderType "${String(cmd.orderType)}" is not one of ${ORDER_TYPES.join(", ")}`);
  if (cmd.timeInForce !== "GTC" && !TIMES_IN_FORCE.includes(cmd.timeInForce)) {
    return invalid(`timeInForce "${String(cmd.timeInForce)}" is not one of ${TIMES_IN_FORCE.join(", ")}`);
  }
  if (cmd.clientOrderId !== undefined && (!isUint64(cmd.clientOrderId) || cmd.clientOrderId === "0")) {
    return invalid(`clientOrderId "${cmd.clientOrderId}" must be a non-zero decimal uint64`);
  }
  return null;
}

/** Which fields an order type takes (spec 4.2.1). */
function checkTypeFields(cmd: CreateOrderCommand | ModifyOrderCommand, market: Market): EngineError | null {
  const isTrigger = cmd.orderType !== "LIMIT";
  if (isTrigger) {
    if (market.kind !== "perp") return invalid(`${cmd.orderType} orders exist only in perp markets, not in ${market.symbol}`);
    if (cmd.triggerTicks === undefined || cmd.triggerTicks === 0) return invalid(`triggerPx is required and non-zero for ${cmd.orderType}`);
    if (cmd.qtyLots !== undefined) return invalid(`qty must be omitted for ${cmd.orderType}: a stop covers the whole position`);
    if (cmd.reduceOnly === true) return invalid(`reduceOnly must be omitted or false for ${cmd.orderType}`);
    if (cmd.postOnly === true) return invalid(`postOnly must be omitted or false for ${cmd.orderType}`);
    return null;
  }
  if (cmd.qtyLots === undefined) return invalid("qty is required for LIMIT orders");
  if (cmd.triggerTicks !== undefined && cmd.triggerTicks !== 0) return invalid("triggerPx must be omitted for LIMIT orders");
  if (cmd.reduceOnly === true && (market.kind !== "perp" || cmd.timeInForce !== "IOC")) {
    return invalid(`reduceOnly is supported only for perp IOC orders, not ${market.kind} ${cmd.timeInForce}`);
  }
  if (cmd.postOnly === true && cmd.timeInForce === "IOC") return invalid("postOnly is not allowed with timeInForce IOC");
  return null;
}

/** expiresAfter: GTT only, a positive integer of seconds, later than the deadline. */
function checkExpiryFields(cmd: CreateOrderCommand | ModifyOrderCommand): EngineError | null {
  const expires = cmd.expiresAfterSec;
  if (cmd.timeInForce !== "GTT") {
    if (expires === undefined) return null;
    if (cmd.orderType !== "LIMIT" && cmd.timeInForce === "IOC") {
      return error("TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", `expiresAfter must be omitted for an IOC ${cmd.orderType}`);
    }
    return invalid(`expiresAfter must be omitted for timeInForce ${cmd.timeInForce}`);
  }
  if (expires === undefined) return invalid("expiresAfter is required for timeInForce GTT");
  if (!isCount(expires) || expires === 0) return invalid(`expiresAfter ${String(expires)} is not a positive integer of seconds`);
  if (!Number.isSafeInteger(expires * MICROS_PER_SECOND)) return error("NUMERIC_OVERFLOW_ERROR", `expiresAfter ${expires} is too far in the future`);
  if (cmd.deadlineSec !== undefined && expires <= cmd.deadlineSec) {
    return invalid(`expiresAfter ${expires} must be greater than deadline ${cmd.deadlineSec}`);
  }
  return null;
}

export function checkOrderInput(cmd: CreateOrderCommand | ModifyOrderCommand, market: Market): EngineError | null {
  return checkCommon(cmd) ?? checkTypeFields(cmd, market) ?? checkExpiryFields(cmd);
}

function isPositiveInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/**
 * The largest quantity one order may have: the aggregate of a price level
 * (a JS number) must stay exact with every resting order of the market in
 * it, so maxRestingOrdersPerMarket orders of this size must sum to a safe
 * integer.
 */
export function maxOrderLots(maxRestingOrdersPerMarket: number): number {
  return Math.floor(Number.MAX_SAFE_INTEGER / Math.max(1, maxRestingOrdersPerMarket));
}

/** Prices on the tick grid and positive; quantity at least minOrderQty and at most maxLots. */
export function checkBounds(cmd: CreateOrderCommand | ModifyOrderCommand, market: Market, maxLots: number): EngineError | null {
  const units = market.units;
  if (!isPositiveInteger(cmd.priceTicks)) {
    return error("PRICE_QTY_BOUNDS_ERROR", `limitPx of ${String(cmd.priceTicks)} ticks is not a positive whole number of tickSize "${units.spec.tickSize}"`);
  }
  if (cmd.triggerTicks !== undefined && cmd.orderType !== "LIMIT" && !isPositiveInteger(cmd.triggerTicks)) {
    return error("PRICE_QTY_BOUNDS_ERROR", `triggerPx of ${String(cmd.triggerTicks)} ticks is not a positive whole number of tickSize "${units.spec.tickSize}"`);
  }
  const qty = cmd.qtyLots;
  if (qty === undefined) return null;
  if (!Number.isSafeInteger(qty)) {
    return error("PRICE_QTY_BOUNDS_ERROR", `qty of ${String(qty)} lots is not a whole number of qtyStepSize "${units.spec.qtyStepSize}"`);
  }
  if (qty < units.minOrderLots) {
    return error("PRICE_QTY_BOUNDS_ERROR", `qty "${units.formatQty(qty)}" is below minOrderQty "${units.spec.minOrderQty}"`);
  }
  if (qty > maxLots) {
    return error("NUMERIC_OVERFLOW_ERROR", `qty "${units.formatQty(qty)}" is above the book's maximum of ${maxLots} lots per order`);
  }
  return null;
}

/** The limit price of a stop must lie within bandBps of its trigger price. */
export function checkTriggerBand(priceTicks: number, triggerTicks: number, bandBps: number, market: Market): EngineError | null {
  const distance = BigInt(Math.abs(priceTicks - triggerTicks)) * 10_000n;
  if (distance <= BigInt(triggerTicks) * BigInt(bandBps)) return null;
  const units = market.units;
  return error(
    "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR",
    `limitPx "${units.formatPrice(priceTicks)}" is more than ${bandBps / 100}% away from triggerPx "${units.formatPrice(triggerTicks)}"`,
  );
}

/** The market rules every create and modify meets after its own checks (spec 7.2 codes). */
export function checkHalted(market: Market): EngineError | null {
  return market.halted ? error("TRADING_HALTED_ERROR", `trading in ${market.symbol} is halted`) : null;
}

/** For an order that would cross or touch the best opposite price at `priceTicks`. */
export function checkCrossing(market: Market, isBuy: boolean, priceTicks: number, postOnly: boolean): EngineError | null {
  if (postOnly) {
    const side = isBuy ? "buy" : "sell";
    return error("POST_ONLY_WOULD_CROSS_ERROR", `post-only ${side} at limitPx "${market.units.formatPrice(priceTicks)}" would cross the best opposite price`);
  }
  if (market.crossingUnavailable) {
    const why = market.reopening ? "is reopening after a halt" : "has settlement paused";
    return error("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR", `${market.symbol} ${why}: orders that would cross are not accepted`);
  }
  return null;
}

/** An order ending at `endMicros` must live at least `minLifetimeMicros` from `atMicros`. */
export function checkLifetime(endMicros: number, atMicros: number, minLifetimeMicros: number): EngineError | null {
  if (endMicros - atMicros >= minLifetimeMicros) return null;
  return error(
    "ORDER_EXPIRES_TOO_SOON_ERROR",
    `expiresAfter leaves ${Math.max(0, endMicros - atMicros) / MICROS_PER_SECOND} s, less than the minimum lifetime of ${minLifetimeMicros / MICROS_PER_SECOND} s`,
  );
}
