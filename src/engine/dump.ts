/**
 * The engine's whole state as plain data, and a check of its structural
 * invariants. Used by tests ("a rejected request changes nothing" compares
 * two dumps) and for debugging; never on a hot path.
 */
import { assert } from "../core/assert.ts";
import type { BookSide } from "./book-side.ts";
import type { CancelAllAfterSwitches } from "./cancel-all-after.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { Market } from "./market.ts";
import { NO_TIMER, type Order } from "./order.ts";

export interface LevelDump {
  readonly priceTicks: number;
  readonly totalLots: number;
  readonly orderIds: readonly string[];
}

export interface MarketDump {
  readonly marketId: number;
  readonly halted: boolean;
  readonly reopening: boolean;
  readonly settlementPaused: boolean;
  readonly markTicks: number | null;
  readonly markCeilTicks: number;
  readonly depthUpdatedAtMicros: number;
  readonly bids: readonly LevelDump[];
  readonly asks: readonly LevelDump[];
  readonly armedStops: readonly string[];
}

export interface EngineStateDump {
  readonly nowMicros: number;
  readonly ordersIssued: number;
  readonly fillsIssued: number;
  readonly lastSequenceNumber: number;
  readonly markets: readonly MarketDump[];
  readonly orders: readonly Record<string, unknown>[];
  readonly accounts: readonly { readonly accountId: number; readonly orderIds: readonly string[] }[];
  readonly owners: readonly { readonly ownerId: number; readonly count: number; readonly notional: string }[];
  readonly cancelAllAfter: readonly { readonly accountId: number; readonly triggerAtMicros: number | null }[];
}

export function dumpState(core: EngineCore, switches: CancelAllAfterSwitches): EngineStateDump {
  return {
    nowMicros: core.nowMicros,
    ordersIssued: core.orderIds.issued,
    fillsIssued: core.fillIds.issued,
    lastSequenceNumber: core.sequence.current,
    markets: core.markets.map(dumpMarket),
    orders: [...core.orders.all()].map(dumpOrder),
    accounts: liveOrdersByAccount(core),
    owners: core.openOrders.ownerIds().map((ownerId) => {
      const figures = core.openOrders.figures(ownerId);
      return { ownerId, count: figures.count, notional: figures.notional.toFixed() };
    }),
    cancelAllAfter: switches.accountIds().map((accountId) => ({ accountId, triggerAtMicros: switches.triggerAtMicros(accountId) })),
  };
}

function liveOrdersByAccount(core: EngineCore): { accountId: number; orderIds: string[] }[] {
  const byAccount = new Map<number, string[]>();
  for (const order of core.orders.all()) {
    const ids = byAccount.get(order.accountId);
    if (ids === undefined) byAccount.set(order.accountId, [order.orderId]);
    else ids.push(order.orderId);
  }
  return [...byAccount].sort(([a], [b]) => a - b).map(([accountId, orderIds]) => ({ accountId, orderIds }));
}

function dumpMarket(market: Market): MarketDump {
  return {
    marketId: market.marketId,
    halted: market.halted,
    reopening: market.reopening,
    settlementPaused: market.settlementPaused,
    markTicks: market.markTicks,
    markCeilTicks: market.markCeilTicks,
    depthUpdatedAtMicros: market.book.depthUpdatedAtMicros,
    bids: dumpSide(market.book.bids),
    asks: dumpSide(market.book.asks),
    armedStops: market.triggers.all().map((order) => order.orderId),
  };
}

function dumpSide(side: BookSide): LevelDump[] {
  const levels: LevelDump[] = [];
  for (let depth = 0; depth < side.levelCount; depth++) {
    const level = side.levelFromBest(depth)!;
    const orderIds: string[] = [];
    for (let order = level.head; order !== null; order = order.next) orderIds.push(order.orderId);
    levels.push({ priceTicks: level.priceTicks, totalLots: level.totalLots, orderIds });
  }
  return levels;
}

function dumpOrder(order: Order): Record<string, unknown> {
  return {
    orderId: order.orderId,
    marketId: order.market.marketId,
    accountId: order.accountId,
    ownerId: order.ownerId,
    clientOrderId: order.clientOrderId,
    isBuy: order.isBuy,
    orderType: order.orderType,
    timeInForce: order.timeInForce,
    reduceOnly: order.reduceOnly,
    postOnly: order.postOnly,
    priceTicks: order.priceTicks,
    triggerTicks: order.triggerTicks,
    qtyLots: order.qtyLots,
    cumLots: order.cumLots,
    expiresAfterSec: order.expiresAfterSec,
    status: order.status,
    triggered: order.triggered,
    createdAtMicros: order.createdAtMicros,
    lastUpdateAtMicros: order.lastUpdateAtMicros,
    resting: order.level !== null,
    hasTimer: order.timerId !== NO_TIMER,
  };
}

/**
 * Asserts the structural invariants: no crossed book; every level's aggregate
 * is the sum of its orders' remaining lots and its count their number; every
 * resting order is live, open, within 0 < remaining, cumQty <= qty; armed
 * stops are live and not in the book; the live table matches the accounts.
 */
export function checkInvariants(core: EngineCore): void {
  let resting = 0;
  for (const market of core.markets) {
    market.book.assertNotCrossed();
    resting += checkSide(market, market.book.bids) + checkSide(market, market.book.asks);
    for (const stop of market.triggers.all()) {
      if (!(stop.isArmed && stop.level === null && core.orders.get(stop.index) === stop)) assert(false, `armed stop ${stop.orderId} is live and not in the book`);
    }
    for (const [accountId, stops] of market.stopsByAccount) {
      for (const stop of stops) if (!(stop.live && stop.accountId === accountId && stop.market === market)) assert(false, `stop ${stop.orderId} is indexed under its account`);
    }
  }
  let live = 0;
  const liveByAccount = new Map<number, number>();
  for (const order of core.orders.all()) {
    live += 1;
    liveByAccount.set(order.accountId, (liveByAccount.get(order.accountId) ?? 0) + 1);
    if (!(order.status === "OPEN" && order.live)) assert(false, `live order ${order.orderId} is open and marked live`);
    if (order.cumLots > order.qtyLots) assert(false, `order ${order.orderId}: cumQty <= qty`);
    if (!(order.isArmed || order.level !== null)) assert(false, `live order ${order.orderId} rests or is armed`);
    if (order.isTrigger && order.market.stopsByAccount.get(order.accountId)?.includes(order) !== true) assert(false, `live stop ${order.orderId} is in its market's stops index`);
  }
  assert(live === core.orders.size, "the live table's size matches its content");
  for (const account of core.accounts.indexedAccounts()) {
    let listed = 0;
    for (let order = account.head; order !== null; order = order.accountNext) {
      if (!(order.account === account && order.live && order.accountId === account.accountId)) assert(false, `order ${order.orderId} is listed under its own account`);
      listed += 1;
    }
    if (listed !== account.liveCount) assert(false, `account ${account.accountId} counts its listed orders`);
    const expected = liveByAccount.get(account.accountId) ?? 0;
    if (listed !== expected) assert(false, `account ${account.accountId} lists all ${expected} of its live orders`);
  }
  assert(resting <= live, "every resting order is live");
}

function checkSide(market: Market, side: BookSide): number {
  let orders = 0;
  let previous: number | null = null;
  for (let depth = 0; depth < side.levelCount; depth++) {
    const level = side.levelFromBest(depth)!;
    if (!(previous === null || side.isBetter(previous, level.priceTicks))) assert(false, `${market.symbol}: levels are sorted best first`);
    previous = level.priceTicks;
    let total = 0;
    let count = 0;
    for (let order = level.head; order !== null; order = order.next) {
      if (!(order.level === level && order.isBuy === side.isBid && order.priceTicks === level.priceTicks)) assert(false, `order ${order.orderId} sits in its own level`);
      if (!(order.remainingLots > 0 && order.status === "OPEN")) assert(false, `resting order ${order.orderId} has something to fill`);
      total += order.remainingLots;
      count += 1;
    }
    if (count <= 0) assert(false, `${market.symbol}: no empty level at ${level.priceTicks}`);
    if (!(total === level.totalLots && count === level.orderCount)) assert(false, `${market.symbol}: level ${level.priceTicks} aggregate ${level.totalLots} equals the sum ${total} of its orders`);
    orders += count;
  }
  if (orders !== side.orderCount) assert(false, `${market.symbol}: side order count`);
  return orders;
}
