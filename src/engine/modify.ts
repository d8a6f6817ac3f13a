/**
 * modifyOrder: amends one live order in place, keeping its orderId and
 * clientOrderId. The request restates the whole post-modify order.
 *
 * Queue priority: a qty decrease at the same price (or a change of postOnly
 * or expiry only) keeps the order's place; a qty increase or any price
 * change sends it to the back of its (new) level. A modify that crosses
 * executes at once as a taker (FILLED, or OPEN with the remainder resting,
 * or CANCELLED by self-trade prevention against the account's own order).
 *
 * Precedence of rejections:
 *  1. SYMBOL_NOT_FOUND_ERROR
 *  2. INPUT_VALIDATION_ERROR, TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR, NUMERIC_OVERFLOW_ERROR  request shape
 *  3. PRICE_QTY_BOUNDS_ERROR, NUMERIC_OVERFLOW_ERROR  as for createOrder
 *  4. ORDER_NOT_FOUND_ERROR            no live order with that id / client id
 *  5. MODIFY_ORDER_OTHER_ERROR         another signer's order (of another account, or of the
 *                                      same account signed by another wallet), a fired child
 *  6. INPUT_VALIDATION_ERROR           an immutable field differs (accountId: the signer's own
 *                                      order named under another of its accounts; symbol,
 *                                      exchangeId, side, orderType, timeInForce, reduceOnly,
 *                                      clientOrderId, a GTT stop's expiry)
 *  7. EMPTY_MODIFY_ERROR               nothing modifiable changes
 *  8. MODIFY_QTY_BELOW_FILLED_ERROR    qty not above cumQty
 *  9. TRIGGER_LIMIT_OUTSIDE_BAND_ERROR
 * 10. ORDER_EXPIRES_TOO_SOON_ERROR     a new GTT expiry too close
 * 11. TRADING_HALTED_ERROR
 * 12. POST_ONLY_WOULD_CROSS_ERROR      the resting order stays exactly as it was
 * 13. CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR
 */
import { MICROS_PER_SECOND } from "../core/time.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { Market } from "./market.ts";
import { NO_TIMER, Order } from "./order.ts";
import { fireDueStops } from "./stops.ts";
import type { OrderUpdate } from "./events.ts";
import type { EngineError, ModifyOrderCommand, Rejection, RequestErrorCode } from "./types.ts";
import { reject } from "./types.ts";
import { checkBounds, checkCrossing, checkHalted, checkLifetime, checkOrderInput, checkTriggerBand } from "./validate.ts";

export function modifyOrder(core: EngineCore, cmd: ModifyOrderCommand): OrderUpdate | Rejection {
  const market = core.market(cmd.marketId);
  if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
  const inputProblem = checkOrderInput(cmd, market) ?? checkBounds(cmd, market, core.maxOrderLots);
  if (inputProblem !== null) return { ok: false, error: inputProblem };
  const order = locate(core, cmd);
  if (!(order instanceof Order)) return { ok: false, error: order };
  const problem = checkOwnership(cmd, order) ?? checkImmutables(cmd, order, market) ?? checkChange(core, cmd, order) ?? checkState(cmd, order);
  if (problem !== null) return { ok: false, error: problem };
  return order.isTrigger ? modifyStop(core, cmd, order) : modifyLimit(core, cmd, order);
}

function fail(code: RequestErrorCode, message: string): EngineError {
  return { code, message };
}

function locate(core: EngineCore, cmd: ModifyOrderCommand): Order | EngineError {
  if (cmd.orderId !== undefined) {
    const order = core.orders.get(core.orderIds.indexOf(cmd.orderId));
    return order ?? fail("ORDER_NOT_FOUND_ERROR", `order ${cmd.orderId} is not a live order`);
  }
  if (cmd.clientOrderId === undefined) return fail("INPUT_VALIDATION_ERROR", "orderId or a non-zero clientOrderId is required");
  const order = core.accounts.byClientId(cmd.accountId, cmd.clientOrderId);
  return order ?? fail("ORDER_NOT_FOUND_ERROR", `account ${cmd.accountId} has no live order with clientOrderId "${cmd.clientOrderId}"`);
}

/**
 * The order must be the signer's own. Another signer's order is
 * MODIFY_ORDER_OTHER_ERROR (spec: signerWallet "must match the resting
 * order's signer"); the signer's own order named under another of its
 * accounts is an immutable-field mismatch (accountId "immutable, must
 * match"), checked with the others (checkImmutables).
 */
function checkOwnership(cmd: ModifyOrderCommand, order: Order): EngineError | null {
  if (order.ownerId !== cmd.ownerId) {
    if (order.accountId !== cmd.accountId) return fail("MODIFY_ORDER_OTHER_ERROR", `order ${order.orderId} does not belong to account ${cmd.accountId}`);
    return fail("MODIFY_ORDER_OTHER_ERROR", `the signer of the modify is not the signer of order ${order.orderId}`);
  }
  if (order.isFiredChild) return fail("MODIFY_ORDER_OTHER_ERROR", `order ${order.orderId} is a fired stop: it can be cancelled, not modified`);
  return null;
}

function checkImmutables(cmd: ModifyOrderCommand, order: Order, market: Market): EngineError | null {
  if (cmd.accountId !== order.accountId) return mismatch(order, "accountId", cmd.accountId, order.accountId);
  if (order.market !== market) return mismatch(order, "symbol", market.symbol, order.market.symbol);
  if (cmd.exchangeId !== order.exchangeId) return mismatch(order, "exchangeId", cmd.exchangeId, order.exchangeId);
  if (cmd.isBuy !== order.isBuy) return mismatch(order, "isBuy", cmd.isBuy, order.isBuy);
  if (cmd.orderType !== order.orderType) return mismatch(order, "orderType", cmd.orderType, order.orderType);
  if (cmd.timeInForce !== order.timeInForce) return mismatch(order, "timeInForce", cmd.timeInForce, order.timeInForce);
  if ((cmd.reduceOnly ?? false) !== order.reduceOnly) return mismatch(order, "reduceOnly", cmd.reduceOnly ?? false, order.reduceOnly);
  if (cmd.orderId !== undefined && (cmd.clientOrderId ?? null) !== order.clientOrderId) {
    return mismatch(order, "clientOrderId", cmd.clientOrderId ?? null, order.clientOrderId);
  }
  if (order.isTrigger && order.timeInForce === "GTT" && cmd.expiresAfterSec !== order.expiresAfterSec) {
    return mismatch(order, "expiresAfter of a GTT stop", cmd.expiresAfterSec, order.expiresAfterSec);
  }
  return null;
}

/**
 * An immutable field of the modify differs from the order's. A function of
 * the module, not a closure in checkImmutables: tsx compiles with esbuild's
 * keepNames, which names every named closure through Object.defineProperty
 * each time it is made (~0.3-0.5 us, and a slower function object), and
 * checkImmutables runs on every modify (scratch measurement, session 15:
 * the default hour made ~7,900 such closures, ~50 ms of its profile).
 */
function mismatch(order: Order, field: string, sent: unknown, held: unknown): EngineError {
  return fail("INPUT_VALIDATION_ERROR", `${field} ${JSON.stringify(sent)} differs from order ${order.orderId}'s ${JSON.stringify(held)}: it cannot be modified`);
}

function checkChange(core: EngineCore, cmd: ModifyOrderCommand, order: Order): EngineError | null {
  const priceChanges = cmd.priceTicks !== order.priceTicks;
  if (order.isTrigger) {
    if (!priceChanges && cmd.triggerTicks === order.triggerTicks) return fail("EMPTY_MODIFY_ERROR", `the modify changes nothing of order ${order.orderId}`);
    return checkTriggerBand(cmd.priceTicks, cmd.triggerTicks!, core.config.triggerBandBps, order.market);
  }
  const expiresAfterSec = cmd.expiresAfterSec ?? 0;
  const expiryChanges = expiresAfterSec !== order.expiresAfterSec;
  if (!priceChanges && !expiryChanges && cmd.qtyLots === order.qtyLots && (cmd.postOnly ?? false) === order.postOnly) {
    return fail("EMPTY_MODIFY_ERROR", `the modify changes nothing of order ${order.orderId}`);
  }
  if (cmd.qtyLots! <= order.cumLots) {
    const units = order.market.units;
    return fail("MODIFY_QTY_BELOW_FILLED_ERROR", `qty "${units.formatQty(cmd.qtyLots!)}" must be greater than cumQty "${units.formatQty(order.cumLots)}"`);
  }
  if (expiryChanges) return checkLifetime(expiresAfterSec * MICROS_PER_SECOND, cmd.atMicros, core.config.minGttLifetimeMicros);
  return null;
}

function checkState(cmd: ModifyOrderCommand, order: Order): EngineError | null {
  const market = order.market;
  const halted = checkHalted(market);
  if (halted !== null || order.isTrigger || !market.book.wouldCross(cmd.isBuy, cmd.priceTicks)) return halted;
  return checkCrossing(market, cmd.isBuy, cmd.priceTicks, cmd.postOnly === true);
}

function modifyLimit(core: EngineCore, cmd: ModifyOrderCommand, order: Order): OrderUpdate {
  const qtyLots = cmd.qtyLots!;
  const keepsPlace = cmd.priceTicks === order.priceTicks && qtyLots <= order.qtyLots;
  order.postOnly = cmd.postOnly ?? false;
  order.lastUpdateAtMicros = core.nowMicros;
  retime(core, order, cmd.expiresAfterSec ?? 0);
  if (keepsPlace) {
    const decrease = order.qtyLots - qtyLots;
    if (decrease > 0) {
      order.market.book.sideOf(order.isBuy).reduce(order, decrease);
      core.openOrders.reduce(order, decrease);
      core.touch(order.market);
    }
    order.qtyLots = qtyLots;
    return core.emit(order, 0, -1, 0, true);
  }
  core.unrest(order);
  order.priceTicks = cmd.priceTicks;
  order.qtyLots = qtyLots;
  return core.execute(order, true);
}

/** Moves a resting GTT's expiry timer to a new expiresAfter. */
function retime(core: EngineCore, order: Order, expiresAfterSec: number): void {
  if (expiresAfterSec === order.expiresAfterSec) return;
  if (order.timerId !== NO_TIMER) {
    core.scheduler.cancel(order.timerId);
    order.timerId = NO_TIMER;
  }
  order.expiresAfterSec = expiresAfterSec;
  core.scheduleExpiry(order, expiresAfterSec * MICROS_PER_SECOND);
}

function modifyStop(core: EngineCore, cmd: ModifyOrderCommand, order: Order): OrderUpdate {
  const triggers = order.market.triggers;
  triggers.remove(order);
  order.priceTicks = cmd.priceTicks;
  order.triggerTicks = cmd.triggerTicks!;
  order.lastUpdateAtMicros = core.nowMicros;
  triggers.add(order);
  const response = core.emit(order, 0, -1, 0, true);
  fireDueStops(core, order.market);
  return response;
}
