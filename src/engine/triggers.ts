/**
 * Armed stops of one market, waiting for the mark price.
 *
 * A sell-side stop protects a long position: STOP_LOSS fires when
 * mark <= triggerPx, TAKE_PROFIT when mark >= triggerPx; a buy-side stop
 * protects a short and mirrors this. So every armed stop either fires on a
 * fall (sell STOP_LOSS, buy TAKE_PROFIT) or on a rise (sell TAKE_PROFIT,
 * buy STOP_LOSS). Each kind is kept in an array sorted so that the next to
 * fire is last: finding what is due at a mark costs only what is due.
 */
import { assert } from "../core/assert.ts";
import type { Order } from "./order.ts";

/** True for stops that fire when the mark falls to or below their trigger. */
export function firesOnFall(order: Order): boolean {
  return (order.orderType === "STOP_LOSS") !== order.isBuy;
}

/**
 * True when an armed stop fires at a mark that lies within
 * [floorTicks, ceilTicks] of the tick grid: its floor and its ceiling, equal
 * when the mark is on the grid. The mark itself is compared, not a rounding
 * of it: mark <= triggerPx exactly when ceil(mark / tick) <= triggerTicks,
 * and mark >= triggerPx exactly when floor(mark / tick) >= triggerTicks (a
 * trigger is a whole number of ticks).
 */
export function isDue(order: Order, floorTicks: number, ceilTicks: number): boolean {
  return firesOnFall(order) ? ceilTicks <= order.triggerTicks : floorTicks >= order.triggerTicks;
}

export class TriggerBook {
  /** Ascending by triggerTicks: the highest trigger (first to fire on a fall) is last. */
  private readonly fallers: Order[] = [];
  /** Descending by triggerTicks: the lowest trigger (first to fire on a rise) is last. */
  private readonly risers: Order[] = [];

  get size(): number {
    return this.fallers.length + this.risers.length;
  }

  add(order: Order): void {
    assert(order.isArmed, "only an armed stop waits for the mark");
    const list = this.listOf(order);
    list.splice(this.insertionPoint(list, order), 0, order);
  }

  remove(order: Order): void {
    const list = this.listOf(order);
    const index = list.indexOf(order, this.firstWithTrigger(list, order));
    assert(index >= 0, "a removed stop is in the trigger book");
    list.splice(index, 1);
  }

  /** The armed stops due at a mark within [floorTicks, ceilTicks] (isDue), in arming order (oldest first). */
  due(floorTicks: number, ceilTicks: number): Order[] {
    const due: Order[] = [];
    for (let i = this.fallers.length - 1; i >= 0 && this.fallers[i]!.triggerTicks >= ceilTicks; i--) due.push(this.fallers[i]!);
    for (let i = this.risers.length - 1; i >= 0 && this.risers[i]!.triggerTicks <= floorTicks; i--) due.push(this.risers[i]!);
    return due.sort((a, b) => a.index - b.index);
  }

  /** Every armed stop, in arming order. */
  all(): Order[] {
    return [...this.fallers, ...this.risers].sort((a, b) => a.index - b.index);
  }

  private listOf(order: Order): Order[] {
    return firesOnFall(order) ? this.fallers : this.risers;
  }

  /** Ascending key of a list: fallers by trigger, risers by negated trigger. */
  private key(list: Order[], order: Order): number {
    return list === this.fallers ? order.triggerTicks : -order.triggerTicks;
  }

  /** First index whose key is >= the order's key. */
  private firstWithTrigger(list: Order[], order: Order): number {
    const key = this.key(list, order);
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.key(list, list[mid]!) < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** After every order with a smaller or equal key. */
  private insertionPoint(list: Order[], order: Order): number {
    let at = this.firstWithTrigger(list, order);
    const key = this.key(list, order);
    while (at < list.length && this.key(list, list[at]!) === key) at++;
    return at;
  }
}
