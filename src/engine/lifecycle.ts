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
import { IdGenerator, SequenceCounter } from "../core/ids.ts";
import type { Scheduler } from "../core/scheduler.ts";
import { MICROS_PER_SECOND } from "../core/time.ts";
import { AccountTable } from "./accounts.ts";
import { FillRecord, OrderUpdate, type EngineHooks, type EngineSink } from "./events.ts";
import type { Market } from "./market.ts";
import { matchTaker, MatchRound, type MatchHost } from "./matcher.ts";
import { NO_TIMER, type Order } from "./order.ts";
import { OrderIds, OrderTable } from "./order-table.ts";
import { OpenOrderTable } from "./open-orders.ts";
import { maxOrderLots } from "./validate.ts";
import type { CancelReason, EngineConfig, FillVerdict, OrderStatus } from "./types.ts";

export class EngineCore implements MatchHost {
  readonly orderIds: OrderIds;
  readonly fillIds: IdGenerator;
  readonly sequence: SequenceCounter;
  readonly orders = new OrderTable();
  readonly accounts = new AccountTable(() => this.orders.all());
  readonly openOrders: OpenOrderTable;
  readonly round = new MatchRound();
  /** Virtual time of the command or timer being handled. */
  nowMicros = 0;
  /** The largest qty of one order (validate.ts maxOrderLots). */
  readonly maxOrderLots: number;
  /** Markets touched by the current command: the first `touchedCount` entries. */
  private readonly touched: Market[] = [];
  private touchedCount = 0;
  private readonly marketById = new Map<number, Market>();
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
    this.fillIds = new IdGenerator(config.firstFillId);
    this.sequence = new SequenceCounter(config.firstSequenceNumber);
    this.openOrders = new OpenOrderTable(markets);
    this.maxOrderLots = maxOrderLots(config.maxRestingOrdersPerMarket);
    this.checkFill = customCheckFill ? hooks.checkFill : null;
    for (const market of markets) {
      assert(!this.marketById.has(market.marketId), `market id ${market.marketId} is registered once`);
      this.marketById.set(market.marketId, market);
    }
  }

  market(marketId: number): Market | undefined {
    return this.marketById.get(marketId);
  }

  /** Lots an order on this side could reduce of the account's position (<= 0: nothing to reduce). */
  reducibleLots(accountId: number, market: Market, isBuy: boolean): number {
    const position = this.hooks.positionLots(accountId, market.marketId);
    return isBuy ? -position : position;
  }

  // -- events --------------------------------------------------------------

  /** Emits the order's current state as a row; the row is also the command's response. */
  emit(order: Order, execLots: number, firstFillId: string | null, fillCount: number, onOrderChanges: boolean): OrderUpdate {
    const update = new OrderUpdate(order, this.sequence.next(), execLots, firstFillId, fillCount, onOrderChanges);
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
    this.touchedCount = 0;
    for (let i = 0; i < count; i++) {
      const market = this.touched[i]!;
      market.depthNoticePending = false;
      if (!market.book.takeChanged()) continue;
      market.book.depthUpdatedAtMicros = this.nowMicros;
      this.sink.depthChanged(market.marketId, this.nowMicros);
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
    market.book.sideOf(order.isBuy).add(order);
    this.openOrders.count(order);
    if (!order.live) this.register(order);
    if (order.timeInForce === "GTT" && order.timerId === NO_TIMER) this.scheduleExpiry(order, order.expiresAfterSec * MICROS_PER_SECOND);
    this.touch(market);
  }

  /** Takes a resting order out of the book and the accounting (it stays registered). */
  unrest(order: Order): void {
    this.openOrders.uncount(order);
    order.market.book.sideOf(order.isBuy).remove(order);
    this.touch(order.market);
  }

  /** Ends an order: FILLED or CANCELLED, out of the book, the trigger book, the tables and the timers. */
  retire(order: Order, status: Exclude<OrderStatus, "OPEN">, reason: CancelReason | null): void {
    assert(order.status === "OPEN", "only an open order ends");
    assert((status === "CANCELLED") === (reason !== null), "a cancel has a reason and only a cancel");
    if (order.isArmed) order.market.triggers.remove(order);
    if (order.level !== null) this.unrest(order);
    if (order.live) {
      if (order.isTrigger) order.market.removeStop(order);
      order.live = false;
      this.accounts.unregister(order);
      this.orders.delete(order);
    }
    if (order.timerId !== NO_TIMER) {
      this.scheduler.cancel(order.timerId);
      order.timerId = NO_TIMER;
    }
    order.status = status;
    order.cancelReason = reason;
    order.lastUpdateAtMicros = this.nowMicros;
    this.orders.setStatus(order.index, status);
  }

  /** Cancels a live order for `reason` and emits its final row. */
  cancel(order: Order, reason: CancelReason): OrderUpdate {
    this.retire(order, "CANCELLED", reason);
    return this.emit(order, 0, null, 0, true);
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
    const market = order.market;
    const cumBefore = order.cumLots;
    if (market.book.wouldCross(order.isBuy, order.priceTicks)) matchTaker(this, order, market.book.oppositeOf(order.isBuy), this.round);
    else this.round.reset();
    const round = this.round;
    order.lastUpdateAtMicros = this.nowMicros;
    if (order.cumLots === order.qtyLots) this.retire(order, "FILLED", null);
    else if (round.stop === "self-trade") this.retire(order, "CANCELLED", "SELF_TRADE_PREVENTION");
    else if (round.stop === "risk-rejected") this.retire(order, "CANCELLED", "RISK_REJECTED");
    else if (order.timeInForce === "IOC") this.retire(order, "CANCELLED", order.cumLots === cumBefore ? "NO_LIQUIDITY" : "IOC_REMAINDER");
    else this.rest(order);
    return this.emit(order, round.execLots, round.firstFillId, round.fillCount, onOrderChanges);
  }

  verdict(taker: Order, maker: Order, lots: number, priceTicks: number): FillVerdict {
    if (this.checkFill === null) return "ok";
    // The proposal is the fill it would be, without a fill id yet (ids are taken only by fills that happen).
    return this.checkFill(this.fillRecord("", taker, maker, lots, priceTicks));
  }

  applyFill(taker: Order, maker: Order, lots: number, priceTicks: number, round: MatchRound): void {
    const fill = this.fillRecord(this.fillIds.next(), taker, maker, lots, priceTicks);
    const fillId = fill.fillId;
    taker.cumLots += lots;
    maker.cumLots += lots;
    maker.lastUpdateAtMicros = this.nowMicros;
    maker.market.book.sideOf(maker.isBuy).reduce(maker, lots);
    this.touch(maker.market);
    this.openOrders.reduce(maker, lots);
    if (round.fillCount === 0) round.firstFillId = fillId;
    round.fillCount += 1;
    round.execLots += lots;
    this.sink.fill(fill);
    if (fill.makerFilled) this.retire(maker, "FILLED", null);
    this.emit(maker, lots, fillId, 1, true);
  }

  /** The fill of `lots` at `priceTicks`, described before the quantities move. */
  private fillRecord(fillId: string, taker: Order, maker: Order, lots: number, priceTicks: number): FillRecord {
    return new FillRecord(
      fillId,
      taker.market.marketId,
      this.nowMicros,
      priceTicks,
      lots,
      taker.isBuy ? "B" : "A",
      taker.accountId,
      taker.orderId,
      taker.ownerId,
      taker.settlesReduceOnly,
      lots === taker.qtyLots - taker.cumLots,
      maker.accountId,
      maker.orderId,
      maker.ownerId,
      maker.settlesReduceOnly,
      lots === maker.qtyLots - maker.cumLots,
    );
  }

  cancelMaker(maker: Order, reason: CancelReason): void {
    this.cancel(maker, reason);
  }
}
