import { describe, expect, it } from "vitest";
import { Book } from "../../src/engine/book.ts";
import { BookSide } from "../../src/engine/book-side.ts";
import { Market } from "../../src/engine/market.ts";
import { Order } from "../../src/engine/order.ts";
import { TriggerBook } from "../../src/engine/triggers.ts";
import { ManualScheduler } from "../../src/engine/timers.ts";
import { PERP, T0 } from "./helpers.ts";

const market = new Market(PERP, 0);
let next = 0;
function order(isBuy: boolean, priceTicks: number, qtyLots: number, extra: { orderType?: "STOP_LOSS" | "TAKE_PROFIT"; triggerTicks?: number } = {}): Order {
  const index = next++;
  return new Order(
    { atMicros: T0, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, isBuy, orderType: extra.orderType ?? "LIMIT", timeInForce: "GTC", priceTicks, qtyLots, ...(extra.triggerTicks ? { triggerTicks: extra.triggerTicks } : {}) },
    String(index),
    index,
    market,
    qtyLots,
    T0,
  );
}

function levels(side: BookSide): [number, number, string[]][] {
  const out: [number, number, string[]][] = [];
  for (let depth = 0; depth < side.levelCount; depth++) {
    const level = side.levelFromBest(depth)!;
    const ids: string[] = [];
    for (let o = level.head; o !== null; o = o.next) ids.push(o.orderId);
    out.push([level.priceTicks, level.totalLots, ids]);
  }
  return out;
}

describe("BookSide and PriceLevel", () => {
  it("keeps bid levels best (highest) first, FIFO within a level, with exact aggregates", () => {
    const bids = new BookSide(true);
    const a = order(true, 100, 3);
    const b = order(true, 102, 1);
    const c = order(true, 100, 2);
    const d = order(true, 101, 4);
    for (const o of [a, b, c, d]) bids.add(o);
    expect(levels(bids)).toEqual([
      [102, 1, [b.orderId]],
      [101, 4, [d.orderId]],
      [100, 5, [a.orderId, c.orderId]],
    ]);
    expect(bids.best()?.priceTicks).toBe(102);
    expect(bids.orderCount).toBe(4);
  });

  it("keeps ask levels best (lowest) first", () => {
    const asks = new BookSide(false);
    for (const price of [105, 103, 104, 103]) asks.add(order(false, price, 1));
    expect(levels(asks).map(([price, total]) => [price, total])).toEqual([
      [103, 2],
      [104, 1],
      [105, 1],
    ]);
    expect(asks.isCrossedBy(103)).toBe(true);
    expect(asks.isCrossedBy(102)).toBe(false);
  });

  it("removes any order in O(1) from the head, middle or tail, and drops emptied levels anywhere", () => {
    const bids = new BookSide(true);
    const [a, b, c] = [order(true, 100, 1), order(true, 100, 2), order(true, 100, 3)];
    const deep = order(true, 90, 1);
    const top = order(true, 110, 1);
    for (const o of [a, b, c, deep, top]) bids.add(o);
    bids.remove(b);
    expect(levels(bids)[1]).toEqual([100, 4, [a.orderId, c.orderId]]);
    bids.remove(a);
    bids.remove(c);
    expect(levels(bids).map(([price]) => price)).toEqual([110, 90]);
    bids.remove(deep);
    bids.remove(top);
    expect(bids.levelCount).toBe(0);
    expect(bids.best()).toBeUndefined();
    expect(b.level).toBeNull();
  });

  it("reduces a level's aggregate in place (a fill or a qty decrease) and notes every change", () => {
    const asks = new BookSide(false);
    const changes: number[] = [];
    asks.watcher = { levelChanged: (_side, priceTicks) => changes.push(priceTicks) };
    const a = order(false, 100, 5);
    asks.add(a);
    asks.reduce(a, 2);
    expect(asks.best()?.totalLots).toBe(3);
    expect(changes).toEqual([100, 100]);
    expect(asks.changed).toBe(true);
  });
});

describe("Book", () => {
  it("sums the lots resting on both sides, remainders after fills included", () => {
    const book = new Book();
    expect(book.restingLots()).toBe(0);
    const bid = order(true, 100, 3);
    book.bids.add(bid);
    book.bids.add(order(true, 99, 2));
    book.asks.add(order(false, 101, 4));
    expect(book.restingLots()).toBe(9);
    bid.cumLots += 1;
    book.bids.reduce(bid, 1);
    expect(book.restingLots()).toBe(8);
    book.bids.remove(bid);
    expect(book.restingLots()).toBe(6);
  });
});

describe("TriggerBook", () => {
  it("finds the stops due at a mark, falling and rising, in arming order", () => {
    const book = new TriggerBook();
    const sellStop = order(false, 95, 0, { orderType: "STOP_LOSS", triggerTicks: 100 }); // falls
    const sellTake = order(false, 115, 0, { orderType: "TAKE_PROFIT", triggerTicks: 120 }); // rises
    const buyStop = order(true, 125, 0, { orderType: "STOP_LOSS", triggerTicks: 120 }); // rises
    const buyTake = order(true, 105, 0, { orderType: "TAKE_PROFIT", triggerTicks: 98 }); // falls
    for (const o of [sellStop, sellTake, buyStop, buyTake]) book.add(o);
    expect(book.due(110, 110)).toEqual([]);
    expect(book.due(100, 100)).toEqual([sellStop]);
    expect(book.due(98, 98)).toEqual([sellStop, buyTake]);
    expect(book.due(121, 121)).toEqual([sellTake, buyStop]);
    // A mark between two ticks: (100, 101) is above the sell stop's 100; (119, 120) is below the risers' 120.
    expect(book.due(100, 101)).toEqual([]);
    expect(book.due(119, 120)).toEqual([]);
    expect(book.due(120, 121)).toEqual([sellTake, buyStop]);
    book.remove(sellTake);
    expect(book.due(121, 121)).toEqual([buyStop]);
    expect(book.size).toBe(3);
  });
});

describe("ManualScheduler", () => {
  it("runs timers due at or before the target time, in (time, scheduling) order, with now() at each timer's time", () => {
    const scheduler = new ManualScheduler(10);
    const seen: [string, number][] = [];
    scheduler.schedule(30, () => seen.push(["b", scheduler.now()]));
    scheduler.schedule(20, () => seen.push(["a", scheduler.now()]));
    const cancelled = scheduler.schedule(25, () => seen.push(["x", scheduler.now()]));
    scheduler.schedule(30, () => seen.push(["c", scheduler.now()]));
    expect(scheduler.cancel(cancelled)).toBe(true);
    scheduler.advanceTo(29);
    expect(seen).toEqual([["a", 20]]);
    scheduler.advanceTo(30);
    expect(seen).toEqual([
      ["a", 20],
      ["b", 30],
      ["c", 30],
    ]);
    expect(() => scheduler.schedule(29, () => undefined)).toThrow("timer at 29 is before now 30");
  });
});
