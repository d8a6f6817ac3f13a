/**
 * A reference model of the order book for differential tests
 * (reference-model.test.ts): the rules of issue 3 and spec 3.1, 3.3 and
 * 4.2, written as plainly as possible and independently of src/engine.
 * Orders live in one map; the best maker is found by scanning it. Slow on
 * purpose: every rule is a readable line or two.
 *
 * Covered: LIMIT GTC, IOC and GTT; postOnly; reduce-only IOC; clientOrderId
 * uniqueness among live orders; self-trade prevention (cancel-taker);
 * modifyOrder by orderId (price, qty, postOnly, a GTT's expiry; queue
 * priority; crossing modifies; a stop's limit and trigger); cancelOrder by
 * orderId or clientOrderId; cancelAll; cancelAllAfter; GTT expiry; perp
 * STOP_LOSS and TAKE_PROFIT against the mark (arming rules, the trigger
 * band, OCO, the child for the whole position, the protective sweep, a
 * resting child reduce-only at match time, positions that close or shrink
 * under a stop). Positions are the perp market's (market 1), in lots, and
 * move with every fill there, as the engine's position hook sees them.
 * Not covered (unit and property tests have them): risk verdicts, market
 * states, capacity, open-order caps.
 */

export type Status = "OPEN" | "FILLED" | "CANCELLED";
export type OrderType = "LIMIT" | "STOP_LOSS" | "TAKE_PROFIT";

export interface ModelOrder {
  readonly orderId: string;
  readonly accountId: number;
  readonly marketId: number;
  readonly isBuy: boolean;
  readonly orderType: OrderType;
  readonly tif: "GTC" | "IOC" | "GTT";
  readonly clientOrderId: string | null;
  readonly reduceOnly: boolean;
  priceTicks: number;
  /** 0 for a LIMIT. */
  triggerTicks: number;
  /** 0 for an armed stop: its qty is the position when it fires. */
  qtyLots: number;
  cumLots: number;
  postOnly: boolean;
  /** Whole seconds; 0 for GTC and IOC. */
  expiresAfterSec: number;
  /** A stop that has fired: its child is (or was) in the book. */
  triggered: boolean;
  status: Status;
  cancelReason: string | null;
  /** Creation order: due stops fire oldest first. */
  readonly created: number;
  /** Time priority: lower is earlier in its level's queue. */
  priority: number;
  /** When its expiry timer was set (a GTT), to order timers due at the same time. */
  timerSet: number;
}

export type NewOrder = Pick<ModelOrder, "accountId" | "marketId" | "isBuy" | "orderType" | "tif" | "clientOrderId" | "reduceOnly" | "priceTicks" | "triggerTicks" | "qtyLots" | "postOnly" | "expiresAfterSec">;

export interface ModelFill {
  readonly takerOrderId: string;
  readonly makerOrderId: string;
  readonly priceTicks: number;
  readonly qtyLots: number;
}

export type Outcome = { readonly ok: true; readonly count?: number } | { readonly ok: false; readonly code: string };

export const PERP_MARKET_ID = 1;
const MICROS_PER_SECOND = 1_000_000;
/** A GTT must live this long after its receipt. */
const MIN_GTT_LIFETIME_MICROS = 5_000_000;
/** A GTT stop ends this long before its expiresAfter. */
const STOP_SETTLEMENT_MARGIN_MICROS = 5_000_000;
/** A stop's limit within 5% of its trigger. */
const TRIGGER_BAND_BPS = 500;

export class ReferenceBook {
  /** Every order ever accepted, by id. */
  readonly orders = new Map<string, ModelOrder>();
  /** Perp positions in lots by account (long > 0). */
  readonly positions = new Map<number, number>();
  /** The latest mark of the perp market, in ticks; null before the first. */
  markTicks: number | null = null;
  now = 0;
  /** Fills of the current step (cleared by `takeFills`). */
  private fills: ModelFill[] = [];
  /** Orders whose state changed in the current step (cleared by `takeTouched`). */
  private touched = new Set<string>();
  /** Accounts whose perp position moved in the current step (cleared by `takeMovedPositions`). */
  private moved = new Set<number>();
  private nextPriority = 0;
  private nextCreated = 0;
  /** cancelAllAfter: account -> when its switch fires (µs) and when it was set (`timers`). */
  private readonly switches = new Map<number, { at: number; set: number }>();
  /** Counts timers set (GTT expiries, switches), to order timers due at the same time. */
  private timers = 0;

  takeFills(): ModelFill[] {
    const fills = this.fills;
    this.fills = [];
    return fills;
  }

  takeTouched(): string[] {
    const touched = [...this.touched];
    this.touched.clear();
    return touched;
  }

  takeMovedPositions(): number[] {
    const moved = [...this.moved].sort((a, b) => a - b);
    this.moved.clear();
    return moved;
  }

  open(marketId?: number): ModelOrder[] {
    return [...this.orders.values()].filter((order) => order.status === "OPEN" && (marketId === undefined || order.marketId === marketId));
  }

  /**
   * Runs every timer due at or before `atMicros` (GTT expiries, switches)
   * in the order of their times, those of one time in the order they were
   * set; then sets the time.
   */
  advanceTo(atMicros: number): void {
    for (;;) {
      let next: { at: number; set: number; run: () => void } | undefined;
      const consider = (at: number, set: number, run: () => void): void => {
        if (at <= atMicros && (next === undefined || at < next.at || (at === next.at && set < next.set))) next = { at, set, run };
      };
      for (const order of this.open()) {
        if (order.tif !== "GTT") continue;
        const margin = order.orderType === "LIMIT" ? 0 : STOP_SETTLEMENT_MARGIN_MICROS;
        consider(order.expiresAfterSec * MICROS_PER_SECOND - margin, order.timerSet, () => this.end(order, "CANCELLED", "GTT_EXPIRED"));
      }
      for (const [accountId, armed] of this.switches) {
        consider(armed.at, armed.set, () => {
          this.switches.delete(accountId);
          // Protective stops, armed or fired, are spared.
          for (const order of this.open()) if (order.accountId === accountId && order.orderType === "LIMIT") this.end(order, "CANCELLED", "CANCEL_ALL_AFTER");
        });
      }
      if (next === undefined) break;
      this.now = Math.max(this.now, next.at);
      next.run();
    }
    this.now = atMicros;
  }

  create(orderId: string, fields: NewOrder): Outcome {
    const isStop = fields.orderType !== "LIMIT";
    if (isStop && Math.abs(fields.priceTicks - fields.triggerTicks) * 10_000 > TRIGGER_BAND_BPS * fields.triggerTicks) return refused("TRIGGER_LIMIT_OUTSIDE_BAND_ERROR");
    if (fields.tif === "GTT") {
      const endsAt = fields.expiresAfterSec * MICROS_PER_SECOND - (isStop ? STOP_SETTLEMENT_MARGIN_MICROS : 0);
      if (endsAt - this.now < MIN_GTT_LIFETIME_MICROS) return refused("ORDER_EXPIRES_TOO_SOON_ERROR");
    }
    if (fields.clientOrderId !== null && this.liveByClientId(fields.accountId, fields.clientOrderId) !== undefined) return refused("DUPLICATE_CLIENT_ORDER_ID_ERROR");
    if ((isStop || fields.reduceOnly) && this.reducible(fields.accountId, fields.isBuy) <= 0) return refused("REDUCE_ONLY_CONDITION_NOT_MET_ERROR");
    if (isStop && this.liveStop(fields.accountId, fields.orderType) !== undefined) return refused("TRIGGER_ALREADY_EXISTS_ERROR");
    if (fields.postOnly && this.crosses(fields.marketId, fields.isBuy, fields.priceTicks)) return refused("POST_ONLY_WOULD_CROSS_ERROR");
    const qtyLots = isStop ? 0 : fields.reduceOnly ? Math.min(fields.qtyLots, this.reducible(fields.accountId, fields.isBuy)) : fields.qtyLots;
    const order: ModelOrder = {
      ...fields,
      orderId,
      qtyLots,
      cumLots: 0,
      triggered: false,
      status: "OPEN",
      cancelReason: null,
      created: this.nextCreated++,
      priority: this.nextPriority++,
      timerSet: this.timers++,
    };
    this.orders.set(orderId, order);
    this.touched.add(orderId);
    if (isStop) this.fireDueStops(); // checked against the latest mark when armed
    else this.execute(order);
    return { ok: true };
  }

  cancel(accountId: number, marketId: number, target: { orderId: string } | { clientOrderId: string }): Outcome {
    const order = "orderId" in target ? this.orders.get(target.orderId) : this.liveByClientId(accountId, target.clientOrderId);
    if (order === undefined || order.status !== "OPEN" || order.accountId !== accountId || order.marketId !== marketId) return refused("CANCEL_ORDER_OTHER_ERROR");
    this.end(order, "CANCELLED", "USER_CANCEL");
    return { ok: true };
  }

  /** Every open order of the account (in one market, or all), armed stops and fired children included. */
  cancelAll(accountId: number, marketId: number | undefined): Outcome {
    const mine = this.open(marketId).filter((order) => order.accountId === accountId);
    for (const order of mine) this.end(order, "CANCELLED", "MASS_CANCEL");
    return { ok: true, count: mine.length };
  }

  /** Arms (from the receipt in whole milliseconds, the unit of triggerAt), re-arms or (0) disarms the account's switch. */
  cancelAllAfter(accountId: number, timeoutMs: number): Outcome {
    this.switches.delete(accountId);
    if (timeoutMs > 0) this.switches.set(accountId, { at: (Math.floor(this.now / 1_000) + timeoutMs) * 1_000, set: this.timers++ });
    return { ok: true };
  }

  /** A new mark of the perp market: the stops it makes due fire, oldest first. */
  setMark(markTicks: number): Outcome {
    this.markTicks = markTicks;
    this.fireDueStops();
    return { ok: true };
  }

  /**
   * modifyOrder by orderId: the request restates the order with a new
   * price, qty, postOnly and (LIMIT GTT) expiry, or (an armed stop) a new
   * limit and trigger.
   */
  modify(accountId: number, orderId: string, change: { priceTicks: number; qtyLots: number; triggerTicks: number; postOnly: boolean; expiresAfterSec: number }): Outcome {
    const order = this.orders.get(orderId);
    if (order === undefined || order.status !== "OPEN") return refused("ORDER_NOT_FOUND_ERROR");
    if (order.accountId !== accountId || order.triggered) return refused("MODIFY_ORDER_OTHER_ERROR");
    if (order.orderType !== "LIMIT") return this.modifyStop(order, change);
    const samePrice = change.priceTicks === order.priceTicks;
    if (samePrice && change.qtyLots === order.qtyLots && change.postOnly === order.postOnly && change.expiresAfterSec === order.expiresAfterSec) return refused("EMPTY_MODIFY_ERROR");
    if (change.qtyLots <= order.cumLots) return refused("MODIFY_QTY_BELOW_FILLED_ERROR");
    if (order.tif === "GTT" && change.expiresAfterSec !== order.expiresAfterSec && change.expiresAfterSec * MICROS_PER_SECOND - this.now < MIN_GTT_LIFETIME_MICROS) {
      return refused("ORDER_EXPIRES_TOO_SOON_ERROR");
    }
    if (change.postOnly && this.crosses(order.marketId, order.isBuy, change.priceTicks)) return refused("POST_ONLY_WOULD_CROSS_ERROR");
    const losesPlace = !samePrice || change.qtyLots > order.qtyLots;
    if (change.expiresAfterSec !== order.expiresAfterSec) order.timerSet = this.timers++;
    order.priceTicks = change.priceTicks;
    order.qtyLots = change.qtyLots;
    order.postOnly = change.postOnly;
    order.expiresAfterSec = change.expiresAfterSec;
    if (losesPlace) order.priority = this.nextPriority++;
    this.touched.add(order.orderId);
    // The order leaves its level while it takes, then rests again with what is left.
    this.execute(order);
    return { ok: true };
  }

  /**
   * What the exchange tells the engine after an account's position moved:
   * its stops with nothing left to protect are cancelled (POSITION_CLOSED),
   * and a resting child larger than the position shrinks to it.
   */
  positionChanged(accountId: number): void {
    for (const order of this.open(PERP_MARKET_ID)) {
      if (order.accountId !== accountId || order.orderType === "LIMIT") continue;
      const lots = this.reducible(accountId, order.isBuy);
      if (lots <= 0) this.end(order, "CANCELLED", "POSITION_CLOSED");
      else if (order.triggered && order.qtyLots - order.cumLots > lots) {
        order.qtyLots = order.cumLots + lots;
        this.touched.add(order.orderId);
      }
    }
  }

  private modifyStop(order: ModelOrder, change: { priceTicks: number; triggerTicks: number }): Outcome {
    if (change.priceTicks === order.priceTicks && change.triggerTicks === order.triggerTicks) return refused("EMPTY_MODIFY_ERROR");
    if (Math.abs(change.priceTicks - change.triggerTicks) * 10_000 > TRIGGER_BAND_BPS * change.triggerTicks) return refused("TRIGGER_LIMIT_OUTSIDE_BAND_ERROR");
    order.priceTicks = change.priceTicks;
    order.triggerTicks = change.triggerTicks;
    this.touched.add(order.orderId);
    this.fireDueStops();
    return { ok: true };
  }

  /** Lots an order on this side may reduce of the account's perp position (<= 0: none). */
  private reducible(accountId: number, isBuy: boolean): number {
    const position = this.positions.get(accountId) ?? 0;
    return isBuy ? -position : position;
  }

  private isArmed(order: ModelOrder): boolean {
    return order.orderType !== "LIMIT" && !order.triggered && order.status === "OPEN";
  }

  /** A sell stop protects a long: STOP_LOSS fires at mark <= trigger, TAKE_PROFIT at mark >= trigger; a buy stop mirrors it. */
  private isDue(order: ModelOrder, markTicks: number): boolean {
    const firesOnFall = (order.orderType === "STOP_LOSS") !== order.isBuy;
    return firesOnFall ? markTicks <= order.triggerTicks : markTicks >= order.triggerTicks;
  }

  private fireDueStops(): void {
    const mark = this.markTicks;
    if (mark === null) return;
    const due = this.open(PERP_MARKET_ID)
      .filter((order) => this.isArmed(order) && this.isDue(order, mark))
      .sort((a, b) => a.created - b.created);
    for (const order of due) if (this.isArmed(order)) this.fire(order);
  }

  /** Fires a stop: OCO, then its child for the whole position enters the book (or, no position left, both stops go). */
  private fire(order: ModelOrder): void {
    const siblingType = order.orderType === "STOP_LOSS" ? "TAKE_PROFIT" : "STOP_LOSS";
    // Armed or fired (its child resting): the engine cancels either (stops.ts).
    const sibling = this.open(PERP_MARKET_ID).find((other) => other.accountId === order.accountId && other.orderType === siblingType);
    const lots = this.reducible(order.accountId, order.isBuy);
    if (lots <= 0) {
      this.end(order, "CANCELLED", "POSITION_CLOSED");
      if (sibling !== undefined) this.end(sibling, "CANCELLED", "POSITION_CLOSED");
      return;
    }
    if (sibling !== undefined) this.end(sibling, "CANCELLED", "OCO_SIBLING_FIRED");
    order.triggered = true;
    order.qtyLots = lots;
    order.priority = this.nextPriority++;
    this.touched.add(order.orderId);
    this.execute(order);
  }

  /** The orders in the book: LIMITs and fired children (an armed stop waits outside it). */
  private inBook(marketId: number): ModelOrder[] {
    return this.open(marketId).filter((order) => !this.isArmed(order));
  }

  /** The best maker for a taker: the best price, then the earliest. */
  private bestMaker(marketId: number, takerIsBuy: boolean, taker: ModelOrder): ModelOrder | undefined {
    let best: ModelOrder | undefined;
    for (const order of this.inBook(marketId)) {
      if (order === taker || order.isBuy === takerIsBuy) continue;
      if (best === undefined) best = order;
      else if (order.priceTicks !== best.priceTicks) {
        if (takerIsBuy ? order.priceTicks < best.priceTicks : order.priceTicks > best.priceTicks) best = order;
      } else if (order.priority < best.priority) best = order;
    }
    return best;
  }

  /** Would an order at this price cross or touch the best opposite order in the book? */
  private crosses(marketId: number, isBuy: boolean, priceTicks: number): boolean {
    return this.inBook(marketId).some((order) => order.isBuy !== isBuy && (isBuy ? order.priceTicks <= priceTicks : order.priceTicks >= priceTicks));
  }

  /** A taker's round, then its remainder: FILLED, cancelled (self-trade, IOC) or resting. */
  private execute(taker: ModelOrder): void {
    const cumBefore = taker.cumLots;
    let selfTrade = false;
    while (taker.cumLots < taker.qtyLots) {
      const maker = this.bestMaker(taker.marketId, taker.isBuy, taker);
      if (maker === undefined || (taker.isBuy ? maker.priceTicks > taker.priceTicks : maker.priceTicks < taker.priceTicks)) break;
      if (maker.accountId === taker.accountId) {
        // A fired child sweeps its own account's makers; any other taker stops (cancel-taker).
        if (taker.triggered) {
          this.end(maker, "CANCELLED", "PROTECTIVE_SELF_TRADE_SWEEP");
          continue;
        }
        selfTrade = true;
        break;
      }
      let lots = Math.min(taker.qtyLots - taker.cumLots, maker.qtyLots - maker.cumLots);
      if (maker.triggered) {
        // A resting child never fills past what is left of its account's position.
        const reducible = this.reducible(maker.accountId, maker.isBuy);
        if (reducible <= 0) {
          this.end(maker, "CANCELLED", "POSITION_CLOSED");
          continue;
        }
        lots = Math.min(lots, reducible);
      }
      this.fills.push({ takerOrderId: taker.orderId, makerOrderId: maker.orderId, priceTicks: maker.priceTicks, qtyLots: lots });
      taker.cumLots += lots;
      maker.cumLots += lots;
      if (taker.marketId === PERP_MARKET_ID) {
        this.move(taker.accountId, taker.isBuy ? lots : -lots);
        this.move(maker.accountId, taker.isBuy ? -lots : lots);
      }
      this.touched.add(maker.orderId);
      if (maker.cumLots === maker.qtyLots) this.end(maker, "FILLED", null);
    }
    if (taker.cumLots === taker.qtyLots) this.end(taker, "FILLED", null);
    else if (selfTrade) this.end(taker, "CANCELLED", "SELF_TRADE_PREVENTION");
    else if (taker.tif === "IOC") this.end(taker, "CANCELLED", taker.cumLots === cumBefore ? "NO_LIQUIDITY" : "IOC_REMAINDER");
  }

  private move(accountId: number, lots: number): void {
    this.positions.set(accountId, (this.positions.get(accountId) ?? 0) + lots);
    this.moved.add(accountId);
  }

  private end(order: ModelOrder, status: Exclude<Status, "OPEN">, reason: string | null): void {
    order.status = status;
    order.cancelReason = reason;
    this.touched.add(order.orderId);
  }

  private liveByClientId(accountId: number, clientOrderId: string): ModelOrder | undefined {
    return this.open().find((order) => order.accountId === accountId && order.clientOrderId === clientOrderId);
  }

  /** The account's live stop of this type in the perp market, armed or fired. */
  private liveStop(accountId: number, orderType: OrderType): ModelOrder | undefined {
    return this.open(PERP_MARKET_ID).find((order) => order.accountId === accountId && order.orderType === orderType);
  }
}

function refused(code: string): Outcome {
  return { ok: false, code };
}
