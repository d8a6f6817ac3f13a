/**
 * The engine's state in the specification's wire shapes: canonical decimal
 * strings, milliseconds and Unix seconds, and the field presence of spec
 * 2.12 for each variant of the Order row:
 *
 * | field                          | event row (orderChanges) | history row | open-order snapshot |
 * |--------------------------------|--------------------------|-------------|---------------------|
 * | sequenceNumber                 | yes                      | yes         | never               |
 * | triggered                      | yes                      | never       | yes                 |
 * | execQty, firstFillId, fillCount| fill updates only        | fill updates only | never         |
 *
 * In every variant: clientOrderId only when non-zero; qty except on an armed
 * stop (it covers the position at fire time); triggerPx only on stops;
 * expiresAfter only for GTT; reduceOnly false on stops and their children
 * (they are reduce-only by construction but report false); cancelReason and
 * cancelReasonMessage only when CANCELLED.
 */
import { microsToMillis } from "../core/time.ts";
import type { DepthLevel, DepthLevels } from "./depth.ts";
import { CANCEL_REASON_MESSAGES, type OrderIdentity, type OrderUpdate } from "./events.ts";
import type { Market } from "./market.ts";
import type { Order } from "./order.ts";
import type {
  CancelAllAfterResponse,
  CancelReason,
  CancelResponse,
  OrderResponse,
  OrderStatus,
  OrderType,
  Side,
  TimeInForce,
} from "./types.ts";

export interface WireOrder {
  exchangeId: number;
  symbol: string;
  accountId: number;
  orderId: string;
  sequenceNumber?: number;
  clientOrderId?: string;
  qty?: string;
  execQty?: string;
  cumQty?: string;
  firstFillId?: string;
  fillCount?: number;
  side: Side;
  limitPx: string;
  orderType: OrderType;
  triggerPx?: string;
  triggered?: boolean;
  timeInForce?: TimeInForce;
  expiresAfter?: number;
  reduceOnly?: boolean;
  postOnly?: boolean;
  status: OrderStatus;
  createdAt: number;
  lastUpdateAt: number;
  cancelReason?: CancelReason;
  cancelReasonMessage?: string;
}

/** The changing part of an order: what an OrderUpdate copies and a live Order holds. */
interface OrderState {
  readonly status: OrderStatus;
  readonly priceTicks: number;
  readonly triggerTicks: number;
  readonly qtyLots: number;
  readonly cumLots: number;
  readonly postOnly: boolean;
  readonly expiresAfterSec: number;
  readonly triggered: boolean;
  readonly cancelReason: CancelReason | null;
  readonly lastUpdateAtMicros: number;
}

type Variant = "event" | "history" | "open";

/** An orderChanges row. */
export function orderEventRow(update: OrderUpdate): WireOrder {
  return formatOrder(update, update, "event", update);
}

/** An orderHistory row. */
export function orderHistoryRow(update: OrderUpdate): WireOrder {
  return formatOrder(update, update, "history", update);
}

/** An openOrders (or orderChanges snapshot) row of a live order. */
export function openOrderRow(order: Order): WireOrder {
  return formatOrder(order, order, "open", null);
}

function formatOrder(order: OrderIdentity, state: OrderState, variant: Variant, update: OrderUpdate | null): WireOrder {
  const units = order.market.units;
  const isTrigger = order.orderType !== "LIMIT";
  const row: WireOrder = {
    exchangeId: order.exchangeId,
    symbol: order.market.symbol,
    accountId: order.accountId,
    orderId: order.orderId,
    side: order.isBuy ? "B" : "A",
    limitPx: units.formatPrice(state.priceTicks),
    orderType: order.orderType,
    status: state.status,
    createdAt: microsToMillis(order.createdAtMicros),
    lastUpdateAt: microsToMillis(state.lastUpdateAtMicros),
  };
  if (update !== null) row.sequenceNumber = update.sequenceNumber;
  if (order.clientOrderId !== null) row.clientOrderId = order.clientOrderId;
  if (!isTrigger || state.triggered) row.qty = units.formatQty(state.qtyLots);
  row.cumQty = units.formatQty(state.cumLots);
  if (update !== null && update.fillCount > 0) {
    row.execQty = units.formatQty(update.execLots);
    row.firstFillId = update.firstFillId!;
    row.fillCount = update.fillCount;
  }
  if (isTrigger) row.triggerPx = units.formatPrice(state.triggerTicks);
  if (variant !== "history") row.triggered = state.triggered;
  row.timeInForce = order.timeInForce;
  if (state.expiresAfterSec > 0) row.expiresAfter = state.expiresAfterSec;
  row.reduceOnly = isTrigger ? false : order.reduceOnly;
  row.postOnly = state.postOnly;
  if (state.status === "CANCELLED" && state.cancelReason !== null) {
    row.cancelReason = state.cancelReason;
    row.cancelReasonMessage = CANCEL_REASON_MESSAGES[state.cancelReason];
  }
  return row;
}

/** A type, not an interface: it is an answer's payload (a Record) as it is, without a copy. */
export type WireOrderResponse = {
  status: OrderStatus;
  orderId: string;
  execQty?: string;
  cumQty?: string;
  clientOrderId?: string;
  cancelReason?: CancelReason;
  cancelReasonMessage?: string;
  firstFillId?: string;
  fillCount?: number;
};

/** The createOrder / modifyOrder response (spec 4.2.2). */
export function orderResponse(response: OrderResponse, market: Market): WireOrderResponse {
  const units = market.units;
  const wire: WireOrderResponse = { status: response.status, orderId: response.orderId };
  if (response.fillCount > 0) wire.execQty = units.formatQty(response.execLots);
  wire.cumQty = units.formatQty(response.cumLots);
  if (response.clientOrderId !== null) wire.clientOrderId = response.clientOrderId;
  if (response.status === "CANCELLED" && response.cancelReason !== null) {
    wire.cancelReason = response.cancelReason;
    wire.cancelReasonMessage = CANCEL_REASON_MESSAGES[response.cancelReason];
  }
  if (response.fillCount > 0) {
    wire.firstFillId = response.firstFillId!;
    wire.fillCount = response.fillCount;
  }
  return wire;
}

export function cancelResponse(response: CancelResponse): { status: "CANCELLED"; orderId: string; clientOrderId?: string } {
  const wire: { status: "CANCELLED"; orderId: string; clientOrderId?: string } = { status: "CANCELLED", orderId: response.orderId };
  if (response.clientOrderId !== null) wire.clientOrderId = response.clientOrderId;
  return wire;
}

export function cancelAllAfterResponse(response: CancelAllAfterResponse): { accountId: number; timeoutMs: number; triggerAt?: number } {
  const wire: { accountId: number; timeoutMs: number; triggerAt?: number } = { accountId: response.accountId, timeoutMs: response.timeoutMs };
  if (response.triggerAtMs !== null) wire.triggerAt = response.triggerAtMs;
  return wire;
}

export interface WireDepth {
  symbol: string;
  type: "SNAPSHOT" | "UPDATE";
  bids: { px: string; qty: string }[];
  asks: { px: string; qty: string }[];
  updatedAt: number;
}

/** A depth view (REST, stream snapshot or stream update) on the wire. */
export function depthMessage(market: Market, levels: DepthLevels, type: WireDepth["type"]): WireDepth {
  const units = market.units;
  return {
    symbol: market.symbol,
    type,
    bids: depthSide(units, levels.bids),
    asks: depthSide(units, levels.asks),
    updatedAt: microsToMillis(market.book.depthUpdatedAtMicros),
  };
}

/**
 * One side's levels on the wire. A module function, not a closure made per
 * message: the run loader (tsx, esbuild's keepNames) wraps every function
 * expression in a `__name` call that defines its name, paid each time one is made.
 */
function depthSide(units: Market["units"], levels: readonly DepthLevel[]): { px: string; qty: string }[] {
  const wire: { px: string; qty: string }[] = [];
  for (const level of levels) wire.push({ px: units.formatPrice(level.priceTicks), qty: units.formatQty(level.qtyLots) });
  return wire;
}
