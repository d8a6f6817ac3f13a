/**
 * cancelOrder (USER_CANCEL), cancelAll (MASS_CANCEL) and the exchange's own
 * cancels (a reason of its choosing: RISK_CANCELLED, POSITION_CLOSED, ...).
 *
 * A cancel target that is unknown, another account's, in another market,
 * already cancelled or already filled is CANCEL_ORDER_OTHER_ERROR, with a
 * message that says which. cancelAll takes armed stops and fired children
 * too; it returns the count (0 when nothing was open).
 */
import type { OrderUpdate } from "./events.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { Order } from "./order.ts";
import type {
  CancelAllCommand,
  CancelAllResponse,
  CancelOrderCommand,
  CancelReason,
  EngineResult,
  Rejection,
} from "./types.ts";
import { reject } from "./types.ts";

export function cancelOrder(core: EngineCore, cmd: CancelOrderCommand): OrderUpdate | Rejection {
  const market = core.market(cmd.marketId);
  if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
  if (cmd.orderId !== undefined) {
    // The common case first: a live order of the account, by id, in this market.
    const live = core.orders.get(core.orderIds.indexOf(cmd.orderId));
    if (live !== undefined && live.accountId === cmd.accountId && live.market === market) return core.cancel(live, "USER_CANCEL");
  }
  const order = locate(core, cmd);
  if ("ok" in order) return order;
  if (order.market !== market) {
    return reject("CANCEL_ORDER_OTHER_ERROR", `order ${order.orderId} is in ${order.market.symbol}, not ${market.symbol}`);
  }
  return core.cancel(order, "USER_CANCEL");
}

function locate(core: EngineCore, cmd: CancelOrderCommand): Order | Rejection {
  if (cmd.orderId !== undefined) {
    const index = core.orderIds.indexOf(cmd.orderId);
    const order = core.orders.get(index);
    if (order !== undefined && order.accountId === cmd.accountId) return order;
    const status = order === undefined ? core.orders.statusOf(index) : "unknown";
    return reject("CANCEL_ORDER_OTHER_ERROR", `order ${cmd.orderId} ${describe(status, cmd.accountId)}`);
  }
  if (cmd.clientOrderId === undefined || cmd.clientOrderId === "0") {
    return reject("INPUT_VALIDATION_ERROR", "orderId or a non-zero clientOrderId is required");
  }
  const order = core.accounts.byClientId(cmd.accountId, cmd.clientOrderId);
  if (order !== undefined) return order;
  const ended = core.accounts.endedIndexByClientId(cmd.accountId, cmd.clientOrderId);
  const status = core.orders.statusOf(ended);
  if (status === "FILLED" || status === "CANCELLED") {
    const orderId = core.orderIds.text(ended);
    return reject("CANCEL_ORDER_OTHER_ERROR", `clientOrderId "${cmd.clientOrderId}" of account ${cmd.accountId} ${describe(status, cmd.accountId)} (order ${orderId})`);
  }
  return reject("CANCEL_ORDER_OTHER_ERROR", `clientOrderId "${cmd.clientOrderId}" is unknown: no open order of account ${cmd.accountId} has it`);
}

function describe(status: string, accountId: number): string {
  switch (status) {
    case "FILLED":
      return "is already filled";
    case "CANCELLED":
      return "is already cancelled";
    default:
      return `is unknown: no open order of account ${accountId} has this id`;
  }
}

export function cancelAll(core: EngineCore, cmd: CancelAllCommand): EngineResult<CancelAllResponse> {
  const market = cmd.marketId === undefined ? undefined : core.market(cmd.marketId);
  if (cmd.marketId !== undefined && market === undefined) {
    return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
  }
  let cancelledCount = 0;
  for (const order of core.accounts.liveOrdersOf(cmd.accountId)) {
    if (market !== undefined && order.market !== market) continue;
    core.cancel(order, cmd.reason ?? "MASS_CANCEL");
    cancelledCount += 1;
  }
  return { ok: true, cancelledCount };
}

/** The exchange cancels a live order for a reason of its own. */
export function cancelForReason(core: EngineCore, orderId: string, reason: CancelReason): OrderUpdate | Rejection {
  const order = core.orders.get(core.orderIds.indexOf(orderId));
  if (order === undefined) return reject("ORDER_NOT_FOUND_ERROR", `order ${orderId} is not a live order`);
  return core.cancel(order, reason);
}
