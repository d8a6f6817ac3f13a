/**
 * Protective stops (perp STOP_LOSS and TAKE_PROFIT): arming, firing on the
 * mark price, the OCO pair, and following the position.
 *
 * - A stop is armed (OPEN, triggered=false) only against a position on the
 *   opposite side, at most one STOP_LOSS and one TAKE_PROFIT per account and
 *   market; the two form an OCO pair.
 * - It is checked against the latest mark when armed, when modified and on
 *   every mark update, unless the market is halted or refuses crossing
 *   orders (reopening, settlement paused): then firing waits for the next
 *   mark update or for the state to clear (setMarketState re-checks).
 *   Due stops fire oldest first.
 * - Firing: the sibling is cancelled (OCO_SIBLING_FIRED), armed or fired
 *   (a fired sibling's child still resting: the pair's other stop may be
 *   armed after one fired, and two children for the whole position must
 *   not rest at once; issue #3: "when one fires the other is cancelled");
 *   the stop becomes
 *   triggered=true and its child, a reduce-only order for the whole position
 *   at fire time, enters the book with the signed time in force. A child
 *   sweeps its own account's makers instead of being stopped by them. If the
 *   position is gone at fire time, the stop and its sibling are cancelled
 *   with POSITION_CLOSED instead.
 * - A resting child is reduce-only at match time too: a fill against it
 *   never exceeds the position left at that moment (matcher.ts), so that
 *   a taker sweeping the account's other orders first cannot turn the
 *   child into a new position the other way.
 * - When the position changes: armed stops and resting children of an
 *   account with no position left on the protected side are cancelled
 *   (POSITION_CLOSED); a resting child larger than the position shrinks
 *   to it (keeping its queue place).
 * - A GTT stop, armed or fired, ends stopSettlementMarginMicros before its
 *   expiresAfter (GTT_EXPIRED).
 */
import { MICROS_PER_SECOND } from "../core/time.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { Market } from "./market.ts";
import type { Order } from "./order.ts";
import type { OrderUpdate } from "./events.ts";
import type { OrderType } from "./types.ts";

/**
 * The account's live stop of this type in this market, armed or fired (a
 * fired stop's child resting in the book is still that STOP_LOSS or
 * TAKE_PROFIT order, OPEN with triggered=true), if any. "At most one
 * stop-loss and one take-profit per account and market" counts both: a
 * second stop next to a resting child would put two reduce-only orders for
 * the whole position in the book.
 */
export function findLiveStop(accountId: number, market: Market, orderType: OrderType): Order | undefined {
  return market.stopsByAccount.get(accountId)?.find((order) => order.orderType === orderType);
}

/** Arms a new stop; the response shows it armed, even if it fires at once. */
export function armStop(core: EngineCore, order: Order): OrderUpdate {
  core.register(order);
  order.market.addStop(order);
  order.market.triggers.add(order);
  if (order.timeInForce === "GTT") {
    core.scheduleExpiry(order, order.expiresAfterSec * MICROS_PER_SECOND - core.config.stopSettlementMarginMicros);
  }
  const response = core.emit(order, 0, -1, 0, true);
  fireDueStops(core, order.market);
  return response;
}

/** Fires the stops due at the market's latest mark; returns how many were due. */
export function fireDueStops(core: EngineCore, market: Market): number {
  if (market.markTicks === null || market.halted || market.crossingUnavailable) return 0;
  let due = 0;
  for (const order of market.triggers.due(market.markTicks, market.markCeilTicks)) {
    if (!order.isArmed) continue; // cancelled as the sibling of one fired before it
    fire(core, order);
    due += 1;
  }
  return due;
}

function fire(core: EngineCore, order: Order): void {
  const market = order.market;
  const sibling = findLiveStop(order.accountId, market, order.orderType === "STOP_LOSS" ? "TAKE_PROFIT" : "STOP_LOSS");
  const lots = core.reducibleLots(order.accountId, market, order.isBuy);
  if (lots <= 0) {
    core.cancel(order, "POSITION_CLOSED");
    if (sibling !== undefined) core.cancel(sibling, "POSITION_CLOSED");
    return;
  }
  if (sibling !== undefined) core.cancel(sibling, "OCO_SIBLING_FIRED");
  market.triggers.remove(order);
  order.triggered = true;
  order.qtyLots = lots;
  core.execute(order, true);
}

/** Re-checks an account's stops in a market against its current position. */
export function followPosition(core: EngineCore, accountId: number, market: Market): number {
  if (!market.stopsByAccount.has(accountId)) return 0; // most accounts have no stops: no copy of an empty list per fill
  let changed = 0;
  for (const order of market.stopsOf(accountId)) {
    if (order.status !== "OPEN") continue;
    const lots = core.reducibleLots(accountId, market, order.isBuy);
    if (lots <= 0) {
      core.cancel(order, "POSITION_CLOSED");
      changed += 1;
    } else if (order.level !== null && order.remainingLots > lots) {
      shrink(core, order, order.remainingLots - lots);
      changed += 1;
    }
  }
  return changed;
}

/** Lowers a resting child's quantity in place (a decrease keeps the queue place). */
function shrink(core: EngineCore, order: Order, lots: number): void {
  order.market.book.sideOf(order.isBuy).reduce(order, lots);
  core.openOrders.reduce(order, lots);
  order.qtyLots -= lots;
  order.lastUpdateAtMicros = core.nowMicros;
  core.touch(order.market);
  core.emit(order, 0, -1, 0, true);
}
