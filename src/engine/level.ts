/**
 * One price level: a FIFO queue of resting orders as an intrusive doubly
 * linked list (the links live in the Order), with the level's aggregate.
 * Append, unlink and reduce are O(1) and allocate nothing.
 */
import { assert } from "../core/assert.ts";
import type { Order } from "./order.ts";

export class PriceLevel {
  declare readonly priceTicks: number;
  declare head: Order | null;
  declare tail: Order | null;
  /** Sum of the remaining lots of the orders in the queue. */
  declare totalLots: number;
  declare orderCount: number;

  constructor(priceTicks: number) {
    this.priceTicks = priceTicks;
    this.head = null;
    this.tail = null;
    this.totalLots = 0;
    this.orderCount = 0;
  }

  get isEmpty(): boolean {
    return this.head === null;
  }

  /** Queues `order` at the back (the newest has the lowest priority). */
  append(order: Order): void {
    assert(order.level === null, "an order joins a level only once");
    order.level = this;
    order.prev = this.tail;
    order.next = null;
    if (this.tail === null) this.head = order;
    else this.tail.next = order;
    this.tail = order;
    this.totalLots += order.qtyLots - order.cumLots;
    this.orderCount += 1;
  }

  /** Removes `order` from the queue, wherever it is. */
  unlink(order: Order): void {
    assert(order.level === this, "an order leaves only the level it rests in");
    const { prev, next } = order;
    if (prev === null) this.head = next;
    else prev.next = next;
    if (next === null) this.tail = prev;
    else next.prev = prev;
    order.prev = null;
    order.next = null;
    order.level = null;
    this.totalLots -= order.qtyLots - order.cumLots;
    this.orderCount -= 1;
    assert(this.totalLots >= 0, "a level's aggregate never goes negative");
  }

  /** Takes `lots` off the aggregate (a fill or a qty decrease of an order in place). */
  reduce(lots: number): void {
    this.totalLots -= lots;
    assert(this.totalLots >= 0, "a level's aggregate never goes negative");
  }
}
