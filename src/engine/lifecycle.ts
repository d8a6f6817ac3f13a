/**
 * The engine's state and the primitives every command is made of: resting
 * an order, taking it out, finishing it, running a taker's matching round
 * and settling its remainder, and emitting the order events.
 *
 * Commands (create.ts, modify.ts, cancel.ts, stops.ts, cancel-all-after.ts)
 * check everything first and only then call these: a rejected request
 * never reaches this file.
 */
import { assert } from "../core/assert.ts";
import { SequenceCounter } from "../core/ids.ts";
import type { Scheduler } from "../core/scheduler.ts";
import { MICROS_PER_SECOND } from "../core/time.ts";
import { AccountTable } from "./accounts.ts";
import { FillRecord, orderUpdate, type EngineHooks, type EngineSink, type OrderUpdate } from "./events.ts";
import type { Market } from "./market.ts";
import { matchTaker, MatchRound, type MatchHost } from "./matcher.ts";
import { NO_TIMER, Order, reasonCode, STATUS_CANCELLED, STATUS_FILLED } from "./order.ts";
import { EngineIds, IdCounter, OrderIds, OrderTable } from "./order-table.ts";
import { OpenOrderTable } from "./open-orders.ts";
import { maxOrderLots } from "./validate.ts";
import type { CancelReason, CreateOrderCommand, EngineConfig, FillVerdict, OrderStatus } from "./types.ts";

/** Market ids below this are looked up in an array rather than a Map. */
const DENSE_MARKET_IDS = 1 << 16;

/**
 * Ended orders' objects kept for new orders, at most. Orders are most of
 * what a deep book's garbage collector copies: a resting order outlives
 * young-generation collections and is promoted, then dies in old space.
 * Taking a new order's object from the ones that ended saves that (the
 * engine benchmark, deep and shallow: roughly a tenth more operations per
 * CPU second, on a noisy machine; docs/PERFORMANCE.md). Churn keeps the
 * spares few; the cap bounds what a mass cancel leaves behind.
 */
const SPARE_ORDERS_MAX = 4_096;

export class EngineCore implements MatchHost {
  readonly orderIds: OrderIds;
  readonly fillIds: IdCounter;
  readonly sequence: SequenceCounter;
  readonly orders = new OrderTable();
  readonly accounts = new AccountTable(() => this.orders.all());
  readonly openOrders: OpenOrderTable;
  readonly round = new MatchRound();
  /**
   * Ended, unpinned orders whose objects the next new orders take
   * (SPARE_ORDERS_MAX): a stack of the first `spareCount` entries. A count
   * rather than push and pop, which V8 ran out of line here (the builtin
   * push, ~130 instructions a call) and which shrink and regrow the array.
   * Entries above the count are stale (orders since taken); harmless.
   */
  private readonly spareOrders: Order[] = [];
  private spareCount = 0;
  /** The largest qty of one order (validate.ts maxOrderLots). */
  readonly maxOrderLots: number;
  /** Virtual time of the command or timer being handled, and its two halves (whole seconds, microseconds) for the rows. */
  private now = 0;
  private nowSec = 0;
  private nowMicrosPart = 0;
  /** Markets touched by the current command: the first `touchedCount` entries. */
  private readonly touched: Market[] = [];
  private touchedCount = 0;
  private readonly marketById = new Map<number, Market>();
  /** By market id when every id is a small non-negative integer; otherwise null (the Map answers). */
  private readonly denseMarkets: (Market | undefined)[] | null;
  private readonly checkFill: EngineHooks["checkFill"] | null;

  constructor(
    readonly markets: readonly Market[],
    readonly config: EngineConfig,
    readonly sink: EngineSink,
    readonly hooks: EngineHooks,
    readonly scheduler: Scheduler,
    customCheckFill: boolean,
  ) {
    this.orderIds = new OrderIds(config.firstOrderId);
    this.fillIds = new IdCounter(config.firstFillId);
    const ids = new EngineIds(this.orderIds, this.fillIds);
    this.sequence = new SequenceCounter(config.firstSequenceNumber);
    this.openOrders = new OpenOrderTable(markets);
    this.maxOrderLots = maxOrderLots(config.maxRestingOrdersPerMarket);
    this.checkFill = customCheckFill ? hooks.checkFill : null;
    let dense = true;
    for (const market of markets) {
      assert(!this.marketById.has(market.marketId), `market id ${market.marketId} is registered once`);
      this.marketById.set(market.marketId, market);
      market.ids = ids;
      if (!Number.isInteger(market.marketId) || market.marketId < 0 || market.marketId >= DENSE_MARKET_IDS) dense = false;
    }
    this.denseMarkets = dense ? [] : null;
    if (this.denseMarkets !== null) {
      const maxId = Math.max(-1, ...markets.map((market) => market.marketId));
      for (let id = 0; id <= maxId; id++) this.denseMarkets.push(this.marketById.get(id));
    }
  }

  get nowMicros(): number {
    return this.now;
  }

  set nowMicros(atMicros: number) {
    if (atMicros === this.now) return;
    this.now = atMicros;
    const seconds = Math.floor(atMicros / MICROS_PER_SECOND);
    this.nowSec = seconds;
    // `| 0` (the part is below 10^6): a small integer, so that the orders and rows that copy it hold no boxed double.
    this.nowMicrosPart = (atMicros - seconds * MICROS_PER_SECOND) | 0;
  }

  market(marketId: number): Market | undefined {
    const dense = this.denseMarkets;
    if (dense === null) return this.marketById.get(marketId);
    return marketId >= 0 && marketId < dense.length && (marketId | 0) === marketId ? dense[marketId] : undefined;
  }

  /** Lots an order on this side could reduce of the account's position (<= 0: nothing to reduce). */
  reducibleLots(accountId: number, market: Market, isBuy: boolean): number {
    const position = this.hooks.positionLots(accountId, market.marketId);
    return isBuy ? -position : position;
  }

  // -- events --------------------------------------------------------------

  /**
   * Emits the order's current state as a row; the row is also the command's
   * response. `firstFill`: index of the row's first fill in the fill-id
   * sequence, or -1.
   */
  emit(order: Order, execLots: number, firstFill: number, fillCount: number, onOrderChanges: boolean): OrderUpdate {
    const update = orderUpdate(order, this.sequence.next(), execLots, firstFill, fillCount, onOrderChanges);
    this.sink.orderUpdate(update);
    return update;
  }

  /** Notes that `market`'s book may have changed during this command. */
  touch(market: Market): void {
    if (market.depthNoticePending) return;
    market.depthNoticePending = true;
    this.touched[this.touchedCount++] = market;
  }

  /** At the end of a command: one depthChanged per market whose aggregates changed. */
  flushDepthNotices(): void {
    const count = this.touchedCount;
    if (count === 0) return;
    this.touchedCount = 0;
    for (let i = 0; i < count; i++) {
      const market = this.touched[i]!;
      market.depthNoticePending = false;
      if (!market.book.takeChanged()) continue;
      market.book.depthUpdatedAt(this.nowSec, this.nowMicrosPart);
      this.sink.depthChanged(market.marketId, this.now);
    }
  }

  // -- live orders -----------------------------------------------------------

  /** Makes an order live: findable by id and client id, listed under its account. */
  register(order: Order): void {
    this.orders.add(order);
    order.live = true;
    this.accounts.register(order);
  }

  /** Queues a LIMIT (or a fired child) at the back of its level and counts it. */
  rest(order: Order): void {
    const market = order.market;
    const book = market.book;
    (order.isBuy ? book.bids : book.asks).add(order);
    this.openOrders.count(order);
    if (!order.live) this.register(order);
    if (order.isGtt && order.timerId === NO_TIMER) this.scheduleExpiry(order, order.expiresAfterSec * MICROS_PER_SECOND);
    this.touch(market);
  }

  /** Takes a resting order out of the book and the accounting (it stays registered). */
  unrest(order: Order): void {
    this.openOrders.uncount(order);
    const book = order.market.book;
    (order.isBuy ? book.bids : book.asks).remove(order);
    this.touch(order.market);
  }

  /** Ends an order: FILLED or CANCELLED, out of the book, the trigger book, the tables and the timers. */
  retire(order: Order, status: Exclude<OrderStatus, "OPEN">, reason: CancelReason | null): void {
    assert(order.isOpen, "only an open order ends");
    assert((status === "CANCELLED") === (reason !== null), "a cancel has a reason and only a cancel");
    if (!order.isPlain) this.retireLinks(order);
    if (order.level !== null) this.unrest(order);
    if (order.live) {
      order.live = false;
      this.orders.delete(order);
    }
    const code = status === "FILLED" ? STATUS_FILLED : STATUS_CANCELLED;
    order.finish(code, reasonCode(reason), this.nowSec, this.nowMicrosPart);
    this.orders.setStatusCode(order.index, code);
    // Its final row is made from it after this, within the command; only a later command's new order takes it.
    if (!order.pinned && this.spareCount < SPARE_ORDERS_MAX) this.spareOrders[this.spareCount++] = order;
  }

  /**
   * retire's part for an order that is not `isPlain`: out of the trigger
   * book and the stops (a stop), its account's list (an indexed account),
   * its timer (GTT). A function of its own, so that retire stays small for
   * the common order, which has none of these.
   */
  private retireLinks(order: Order): void {
    if (order.isArmed) order.market.triggers.remove(order);
    if (order.live) {
      if (order.isTrigger) order.market.removeStop(order);
      this.accounts.unregister(order);
    } else if (order.clientOrderId !== null) {
      // Ended in the command that made it (an IOC, a create filled or stopped on entry): never
      // live, so never unregistered, yet a cancel by its client id must still say filled or
      // cancelled rather than unknown (issue #3: "a message saying which").
      this.accounts.rememberEnded(order);
    }
    if (order.timerId !== NO_TIMER) {
      this.scheduler.cancel(order.timerId);
      order.timerId = NO_TIMER;
    }
  }

  /** A new order with the next id: an ended order's object when one is spare (retire), else a new one. */
  newOrder(cmd: CreateOrderCommand, market: Market, qtyLots: number): Order {
    const index = this.orderIds.take();
    if (this.spareCount === 0) return new Order(cmd, null, index, market, qtyLots, this.now);
    return this.spareOrders[--this.spareCount]!.reuseAt(cmd, index, market, qtyLots, this.nowSec, this.nowMicrosPart);
  }

  /** Cancels a live order for `reason` and emits its final row. */
  cancel(order: Order, reason: CancelReason): OrderUpdate {
    this.retire(order, "CANCELLED", reason);
    return this.emit(order, 0, -1, 0, true);
  }

  scheduleExpiry(order: Order, atMicros: number): void {
    assert(order.timerId === NO_TIMER, "one expiry timer per order");
    order.timerId = this.scheduler.schedule(atMicros, () => this.onExpiry(order));
  }

  /** Set by the Engine: runs a timer callback as a command of its own. */
  runTimer: (action: () => void) => void = (action) => action();

  private onExpiry(order: Order): void {
    order.timerId = NO_TIMER;
    this.runTimer(() => {
      if (order.status === "OPEN") this.cancel(order, "GTT_EXPIRED");
    });
  }

  // -- matching --------------------------------------------------------------

  /**
   * Runs a taker's round (if it crosses) and settles the remainder: FILLED,
   * CANCELLED (self-trade, risk, IOC) or resting. Emits the taker's row and
   * returns its response.
   */
  execute(order: Order, onOrderChanges: boolean): OrderUpdate {
    const book = order.market.book;
    const makers = order.isBuy ? book.asks : book.bids;
    const cumBefore = order.cumLots;
    const round = this.round;
    if (makers.isCrossedBy(order.priceTicks)) matchTaker(this, order, makers, round);
    else round.reset();
    order.touchedAt(this.nowSec, this.nowMicrosPart);
    if (order.cumLots === order.qtyLots) this.retire(order, "FILLED", null);
    else if (round.stop !== "none" || order.isIoc) this.cancelRemainder(order, round.stop, cumBefore);
    else this.rest(order);
    return this.emit(order, round.execLots, round.firstFill, round.fillCount, onOrderChanges);
  }

  /** A taker's remainder that does not rest: stopped by self-trade prevention or risk, or an IOC's. */
  private cancelRemainder(order: Order, stop: MatchRound["stop"], cumBefore: number): void {
    if (stop === "self-trade") this.retire(order, "CANCELLED", "SELF_TRADE_PREVENTION");
    else if (stop === "risk-rejected") this.retire(order, "CANCELLED", "RISK_REJECTED");
    else this.retire(order, "CANCELLED", order.cumLots === cumBefore ? "NO_LIQUIDITY" : "IOC_REMAINDER");
  }

  childReducibleLots(maker: Order): number {
    return this.reducibleLots(maker.accountId, maker.market, maker.isBuy);
  }

  verdict(taker: Order, maker: Order, lots: number, priceTicks: number): FillVerdict {
    if (this.checkFill === null) return "ok";
    // The proposal is the fill it would be, without a fill id yet (ids are taken only by fills that happen).
    return this.checkFill(this.fillRecord(-1, taker, maker, lots, priceTicks));
  }

  applyFill(taker: Order, maker: Order, lots: number, priceTicks: number, round: MatchRound): void {
    const fillIndex = this.fillIds.take();
    const fill = this.fillRecord(fillIndex, taker, maker, lots, priceTicks);
    const makerFilled = lots === maker.qtyLots - maker.cumLots;
    taker.cumLots += lots;
    maker.cumLots += lots;
    maker.touchedAt(this.nowSec, this.nowMicrosPart);
    const book = maker.market.book;
    (maker.isBuy ? book.bids : book.asks).reduce(maker, lots);
    this.touch(maker.market);
    this.openOrders.reduce(maker, lots);
    if (round.fillCount === 0) round.firstFill = fillIndex;
    round.fillCount += 1;
    round.execLots += lots;
    this.sink.fill(fill);
    if (makerFilled) this.retire(maker, "FILLED", null);
    this.emit(maker, lots, fillIndex, 1, true);
  }

  /** The fill of `lots` at `priceTicks` (fill index -1: a proposal), described before the quantities move. */
  private fillRecord(fillIndex: number, taker: Order, maker: Order, lots: number, priceTicks: number): FillRecord {
    return new FillRecord(
      fillIndex,
      taker,
      maker,
      priceTicks,
      lots,
      this.nowSec,
      this.nowMicrosPart,
      lots === taker.qtyLots - taker.cumLots,
      lots === maker.qtyLots - maker.cumLots,
    );
  }

  cancelMaker(maker: Order, reason: CancelReason): void {
    this.cancel(maker, reason);
  }
}
