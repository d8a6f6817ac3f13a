/**
 * A reference model of the order book for differential tests
 * (reference-model.test.ts): the rules of issue 3 and spec 3.1, 3.3 and
 * 4.2 for LIMIT orders, written as plainly as possible and independently
 * of src/engine. Orders live in one array per market; the best maker is
 * found by scanning it. Slow on purpose: every rule is one readable line.
 *
 * Covered: LIMIT GTC, IOC and GTT; postOnly; clientOrderId uniqueness
 * among live orders; self-trade prevention (cancel-taker); modifyOrder by
 * orderId (price, qty, postOnly, a GTT's expiry; queue priority; crossing
 * modifies); cancelOrder by orderId or clientOrderId; cancelAll;
 * cancelAllAfter; GTT expiry. Not covered (the unit and property tests
 * have them): stops, reduce-only, risk verdicts, market states.
 */

export type Status = "OPEN" | "FILLED" | "CANCELLED";

export interface ModelOrder {
  readonly orderId: string;
  readonly accountId: number;
  readonly marketId: number;
  readonly isBuy: boolean;
  readonly tif: "GTC" | "IOC" | "GTT";
  readonly clientOrderId: string | null;
  priceTicks: number;
  qtyLots: number;
  cumLots: number;
  postOnly: boolean;
  /** Whole seconds; 0 for GTC and IOC. */
  expiresAfterSec: number;
  status: Status;
  cancelReason: string | null;
  /** Time priority: lower is earlier in its level's queue. */
  priority: number;
  /** When its expiry timer was set (a GTT), to order timers due at the same time. */
  timerSet: number;
}

export type NewOrder = Omit<ModelOrder, "orderId" | "cumLots" | "status" | "cancelReason" | "priority" | "timerSet">;

export interface ModelFill {
  readonly takerOrderId: string;
  readonly makerOrderId: string;
  readonly priceTicks: number;
  readonly qtyLots: number;
}

export type Outcome = { readonly ok: true; readonly count?: number } | { readonly ok: false; readonly code: string };

export const MIN_GTT_LIFETIME_MICROS = 5_000_000;
const MICROS_PER_SECOND = 1_000_000;

export class ReferenceBook {
  /** Every order ever accepted, by id. */
  readonly orders = new Map<string, ModelOrder>();
  /** Fills of the current step (cleared by `takeFills`). */
  private fills: ModelFill[] = [];
  /** Orders whose state changed in the current step (cleared by `takeTouched`). */
  private touched = new Set<string>();
  private nextPriority = 0;
  /** cancelAllAfter: account -> when its switch fires (µs) and when it was set (`timers`). */
  private readonly switches = new Map<number, { at: number; set: number }>();
  /** Counts timers set (GTT expiries, switches), to order timers due at the same time. */
  private timers = 0;
  now = 0;

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
        if (order.tif === "GTT") consider(order.expiresAfterSec * MICROS_PER_SECOND, order.timerSet, () => this.end(order, "CANCELLED", "GTT_EXPIRED"));
      }
      for (const [accountId, armed] of this.switches) {
        consider(armed.at, armed.set, () => {
          this.switches.delete(accountId);
          for (const order of this.open()) if (order.accountId === accountId) this.end(order, "CANCELLED", "CANCEL_ALL_AFTER");
        });
      }
      if (next === undefined) break;
      this.now = Math.max(this.now, next.at);
      next.run();
    }
    this.now = atMicros;
  }

  create(orderId: string, fields: NewOrder): Outcome {
    if (fields.tif === "GTT" && fields.expiresAfterSec * MICROS_PER_SECOND - this.now < MIN_GTT_LIFETIME_MICROS) return refused("ORDER_EXPIRES_TOO_SOON_ERROR");
    if (fields.clientOrderId !== null && this.liveByClientId(fields.accountId, fields.clientOrderId) !== undefined) return refused("DUPLICATE_CLIENT_ORDER_ID_ERROR");
    if (fields.postOnly && this.crosses(fields.marketId, fields.isBuy, fields.priceTicks)) return refused("POST_ONLY_WOULD_CROSS_ERROR");
    const order: ModelOrder = { ...fields, orderId, cumLots: 0, status: "OPEN", cancelReason: null, priority: this.nextPriority++, timerSet: this.timers++ };
    this.orders.set(orderId, order);
    this.touched.add(orderId);
    this.execute(order);
    return { ok: true };
  }

  cancel(accountId: number, marketId: number, target: { orderId: string } | { clientOrderId: string }): Outcome {
    const order =
      "orderId" in target ? this.orders.get(target.orderId) : this.liveByClientId(accountId, target.clientOrderId);
    if (order === undefined || order.status !== "OPEN" || order.accountId !== accountId || order.marketId !== marketId) return refused("CANCEL_ORDER_OTHER_ERROR");
    this.end(order, "CANCELLED", "USER_CANCEL");
    return { ok: true };
  }

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

  /** modifyOrder by orderId: the request restates the order with a new price, qty, postOnly and (GTT) expiry. */
  modify(accountId: number, orderId: string, change: { priceTicks: number; qtyLots: number; postOnly: boolean; expiresAfterSec: number }): Outcome {
    const order = this.orders.get(orderId);
    if (order === undefined || order.status !== "OPEN") return refused("ORDER_NOT_FOUND_ERROR");
    if (order.accountId !== accountId) return refused("MODIFY_ORDER_OTHER_ERROR");
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

  /** The best maker for a taker: the best price, then the earliest. */
  private bestMaker(marketId: number, takerIsBuy: boolean, exclude: ModelOrder): ModelOrder | undefined {
    let best: ModelOrder | undefined;
    for (const order of this.open(marketId)) {
      if (order === exclude || order.isBuy === takerIsBuy || order.tif === "IOC") continue;
      if (best === undefined) best = order;
      else if (order.priceTicks !== best.priceTicks) {
        if (takerIsBuy ? order.priceTicks < best.priceTicks : order.priceTicks > best.priceTicks) best = order;
      } else if (order.priority < best.priority) best = order;
    }
    return best;
  }

  /** Would an order at this price cross or touch the best opposite order? */
  private crosses(marketId: number, isBuy: boolean, priceTicks: number): boolean {
    return this.open(marketId).some((order) => order.isBuy !== isBuy && order.tif !== "IOC" && (isBuy ? order.priceTicks <= priceTicks : order.priceTicks >= priceTicks));
  }

  /** A taker's round, then its remainder: FILLED, cancelled (self-trade, IOC) or resting. */
  private execute(taker: ModelOrder): void {
    const cumBefore = taker.cumLots;
    let selfTrade = false;
    while (taker.cumLots < taker.qtyLots) {
      const maker = this.bestMaker(taker.marketId, taker.isBuy, taker);
      if (maker === undefined || (taker.isBuy ? maker.priceTicks > taker.priceTicks : maker.priceTicks < taker.priceTicks)) break;
      if (maker.accountId === taker.accountId) {
        selfTrade = true;
        break;
      }
      const lots = Math.min(taker.qtyLots - taker.cumLots, maker.qtyLots - maker.cumLots);
      this.fills.push({ takerOrderId: taker.orderId, makerOrderId: maker.orderId, priceTicks: maker.priceTicks, qtyLots: lots });
      taker.cumLots += lots;
      maker.cumLots += lots;
      this.touched.add(maker.orderId);
      if (maker.cumLots === maker.qtyLots) this.end(maker, "FILLED", null);
    }
    if (taker.cumLots === taker.qtyLots) this.end(taker, "FILLED", null);
    else if (selfTrade) this.end(taker, "CANCELLED", "SELF_TRADE_PREVENTION");
    else if (taker.tif === "IOC") this.end(taker, "CANCELLED", taker.cumLots === cumBefore ? "NO_LIQUIDITY" : "IOC_REMAINDER");
  }

  private end(order: ModelOrder, status: Exclude<Status, "OPEN">, reason: string | null): void {
    order.status = status;
    order.cancelReason = reason;
    this.touched.add(order.orderId);
  }

  private liveByClientId(accountId: number, clientOrderId: string): ModelOrder | undefined {
    return this.open().find((order) => order.accountId === accountId && order.clientOrderId === clientOrderId);
  }
}

function refused(code: string): Outcome {
  return { ok: false, code };
}
