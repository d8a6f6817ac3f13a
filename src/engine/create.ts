/**
 * createOrder. Every check runs before anything changes; then the order is
 * made, and a LIMIT executes (crossing part first, the rest rests or is
 * cancelled) while a stop is armed.
 *
 * Precedence of rejections (the first failing rule is reported):
 *  1. SYMBOL_NOT_FOUND_ERROR              unknown market
 *  2. INPUT_VALIDATION_ERROR              field shape and combinations (validate.ts),
 *     TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR   an IOC stop with an expiry,
 *     NUMERIC_OVERFLOW_ERROR              an expiry beyond the time range
 *  3. PRICE_QTY_BOUNDS_ERROR              non-positive price, qty below minOrderQty,
 *     NUMERIC_OVERFLOW_ERROR              qty above the per-order maximum (validate.ts maxOrderLots)
 *  4. TRIGGER_LIMIT_OUTSIDE_BAND_ERROR    stop limit too far from its trigger
 *  5. ORDER_EXPIRES_TOO_SOON_ERROR        GTT lifetime below the minimum
 *  6. TRADING_HALTED_ERROR
 *  7. DUPLICATE_CLIENT_ORDER_ID_ERROR     a live order of the account has it
 *  8. REDUCE_ONLY_CONDITION_NOT_MET_ERROR nothing to reduce / no position to protect
 *  9. TRIGGER_ALREADY_EXISTS_ERROR        one stop-loss and one take-profit per account and market (armed or fired)
 * 10. POST_ONLY_WOULD_CROSS_ERROR         crosses or touches the best opposite price
 * 11. CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR  reopening or settlement paused
 * 12. CAPACITY_LIMITED_ERROR              the market's resting orders are at the maximum
 */
import { MICROS_PER_SECOND } from "../core/time.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { Market } from "./market.ts";
import type { Order } from "./order.ts";
import { armStop, findLiveStop } from "./stops.ts";
import type { OrderUpdate } from "./events.ts";
import type { CreateOrderCommand, EngineError, Rejection } from "./types.ts";
import { reject } from "./types.ts";
import { OWNER_ID_LIMIT } from "./open-orders.ts";
import { checkBounds, checkCrossing, checkHalted, checkLifetime, checkOrderInput, checkTriggerBand } from "./validate.ts";

export function createOrder(core: EngineCore, cmd: CreateOrderCommand): OrderUpdate | Rejection {
  const market = core.market(cmd.marketId);
  if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
  if (passesAsPlainLimit(core, cmd, market)) {
    const isIoc = cmd.timeInForce === "IOC";
    return core.execute(core.newOrder(cmd, market, cmd.qtyLots!), !isIoc);
  }
  return createChecked(core, cmd, market);
}

/**
 * The common create, accepted without the full chain of checks: a LIMIT
 * GTC or IOC with no client order id, expiry, trigger or reduce-only, whose
 * every field is in range, in an open market with room, and which either
 * does not cross or may. True only when every check of createChecked
 * would pass (each condition here is one of theirs, or stricter), so the
 * outcome is the same; anything else takes the full chain, which finds the
 * rejection and its precedence.
 */
function passesAsPlainLimit(core: EngineCore, cmd: CreateOrderCommand, market: Market): boolean {
  const tif = cmd.timeInForce;
  const postOnly = cmd.postOnly === true;
  if (
    cmd.orderType !== "LIMIT" ||
    (tif !== "GTC" && (tif !== "IOC" || postOnly)) ||
    cmd.clientOrderId !== undefined ||
    cmd.expiresAfterSec !== undefined ||
    cmd.reduceOnly === true ||
    (cmd.triggerTicks !== undefined && cmd.triggerTicks !== 0) ||
    market.halted
  ) {
    return false;
  }
  const qty = cmd.qtyLots!;
  const ownerId = cmd.ownerId;
  // Number.isSafeInteger is false for anything but a number, so these also check the types.
  if (
    !Number.isSafeInteger(qty) ||
    qty < market.units.minOrderLots ||
    qty > core.maxOrderLots ||
    !Number.isSafeInteger(cmd.priceTicks) ||
    cmd.priceTicks <= 0 ||
    !Number.isSafeInteger(cmd.accountId) ||
    cmd.accountId < 0 ||
    !Number.isSafeInteger(cmd.exchangeId) ||
    cmd.exchangeId < 0 ||
    !Number.isSafeInteger(ownerId) ||
    ownerId < 0 ||
    ownerId >= OWNER_ID_LIMIT
  ) {
    return false;
  }
  const book = market.book;
  if (tif !== "IOC" && book.bids.orderCount + book.asks.orderCount >= core.config.maxRestingOrdersPerMarket) return false;
  return !(postOnly || market.crossingUnavailable) || !book.wouldCross(cmd.isBuy, cmd.priceTicks);
}

/** createOrder through every check, in the documented precedence. */
function createChecked(core: EngineCore, cmd: CreateOrderCommand, market: Market): OrderUpdate | Rejection {
  const problem =
    checkOrderInput(cmd, market) ?? checkBounds(cmd, market, core.maxOrderLots) ?? checkTiming(core, cmd, market) ?? checkState(core, cmd, market) ?? checkBook(core, cmd, market);
  if (problem !== null) return { ok: false, error: problem };
  const order = newOrder(core, cmd, market);
  if (order.isTrigger) return armStop(core, order);
  return core.execute(order, cmd.timeInForce !== "IOC");
}

function checkTiming(core: EngineCore, cmd: CreateOrderCommand, market: Market): EngineError | null {
  const isTrigger = cmd.orderType !== "LIMIT";
  if (isTrigger) {
    const band = checkTriggerBand(cmd.priceTicks, cmd.triggerTicks!, core.config.triggerBandBps, market);
    if (band !== null) return band;
  }
  if (cmd.timeInForce !== "GTT") return null;
  const margin = isTrigger ? core.config.stopSettlementMarginMicros : 0;
  return checkLifetime(cmd.expiresAfterSec! * MICROS_PER_SECOND - margin, cmd.atMicros, core.config.minGttLifetimeMicros);
}

/** The market's state, then the account's: its client ids, its position, its stops. */
function checkState(core: EngineCore, cmd: CreateOrderCommand, market: Market): EngineError | null {
  const halted = checkHalted(market);
  if (halted !== null) return halted;
  if (cmd.clientOrderId !== undefined && core.accounts.byClientId(cmd.accountId, cmd.clientOrderId) !== undefined) {
    return {
      code: "DUPLICATE_CLIENT_ORDER_ID_ERROR",
      message: `clientOrderId "${cmd.clientOrderId}" is already used by a live order of account ${cmd.accountId}`,
    };
  }
  const isTrigger = cmd.orderType !== "LIMIT";
  if (!isTrigger && cmd.reduceOnly !== true) return null;
  if (core.reducibleLots(cmd.accountId, market, cmd.isBuy) <= 0) {
    const side = cmd.isBuy ? "short" : "long";
    const what = isTrigger ? `a ${cmd.isBuy ? "buy" : "sell"} ${cmd.orderType}` : "a reduce-only order";
    return { code: "REDUCE_ONLY_CONDITION_NOT_MET_ERROR", message: `${what} needs a ${side} position of account ${cmd.accountId} in ${market.symbol}` };
  }
  const existing = isTrigger ? findLiveStop(cmd.accountId, market, cmd.orderType) : undefined;
  if (existing !== undefined) {
    const state = existing.isArmed ? "an armed" : "a fired";
    return { code: "TRIGGER_ALREADY_EXISTS_ERROR", message: `account ${cmd.accountId} already has ${state} ${cmd.orderType} in ${market.symbol} (order ${existing.orderId})` };
  }
  return null;
}

function checkBook(core: EngineCore, cmd: CreateOrderCommand, market: Market): EngineError | null {
  if (cmd.orderType !== "LIMIT") return null;
  const book = market.book;
  const crosses = book.wouldCross(cmd.isBuy, cmd.priceTicks);
  if (crosses) {
    const crossing = checkCrossing(market, cmd.isBuy, cmd.priceTicks, cmd.postOnly === true);
    if (crossing !== null) return crossing;
  }
  if (cmd.timeInForce !== "IOC" && book.restingCount >= core.config.maxRestingOrdersPerMarket) {
    const qty = cmd.qtyLots!;
    if (!crosses || book.crossableLots(cmd.isBuy, cmd.priceTicks, qty) < qty) {
      return { code: "CAPACITY_LIMITED_ERROR", message: `${market.symbol} holds the maximum of ${core.config.maxRestingOrdersPerMarket} resting orders` };
    }
  }
  return null;
}

function newOrder(core: EngineCore, cmd: CreateOrderCommand, market: Market): Order {
  let qtyLots = cmd.qtyLots ?? 0;
  if (cmd.reduceOnly === true) qtyLots = Math.min(qtyLots, core.reducibleLots(cmd.accountId, market, cmd.isBuy));
  return core.newOrder(cmd, market, qtyLots);
}
