/**
 * Engine.checkInvariants (src/engine/dump.ts), the book's structural audit
 * that fuzzing runs at every block: it passes on a consistent book, and
 * throws an InvariantError naming the broken rule when the book is
 * corrupted on purpose (each case breaks one thing, through the objects the
 * engine hands out). Its messages are built only on failure, so each case
 * also checks the message it builds.
 */
import { describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import type { PriceLevel } from "../../src/engine/level.ts";
import { harness, type Harness } from "./helpers.ts";

/** Two bid levels (100 x2 orders, 99) and two ask levels (102, 103) on market 1, nothing crossed. */
function book(): Harness {
  const h = harness();
  h.buy(1, 100, 4);
  h.buy(2, 100, 3);
  h.buy(3, 99, 5);
  h.sell(4, 102, 6);
  h.sell(5, 103, 7);
  return h;
}

function sides(h: Harness) {
  return h.engine.market(1)!.book;
}

function expectBroken(h: Harness, message: RegExp): void {
  let thrown: unknown;
  try {
    h.engine.checkInvariants();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvariantError);
  expect((thrown as Error).message).toMatch(message);
}

/** Moves a level to another price (its priceTicks is readonly to the engine's callers). */
function movePrice(level: PriceLevel, priceTicks: number): void {
  (level as { priceTicks: number }).priceTicks = priceTicks;
}

describe("Engine.checkInvariants", () => {
  it("passes on a consistent book", () => {
    expect(() => book().engine.checkInvariants()).not.toThrow();
  });

  it("throws when the book is crossed", () => {
    const h = book();
    movePrice(sides(h).bids.best()!, 102);
    expectBroken(h, /^book crossed: best bid 102 >= best ask 102$/);
  });

  it("throws when a level's aggregate is not the sum of its orders", () => {
    const h = book();
    sides(h).bids.best()!.totalLots += 1;
    expectBroken(h, /^BTCPERP: level 100 aggregate 8 equals the sum 7 of its orders$/);
  });

  it("throws when a side's levels are out of order", () => {
    const h = book();
    movePrice(sides(h).asks.levelFromBest(1)!, 101);
    expectBroken(h, /^BTCPERP: levels are sorted best first$/);
  });

  it("throws when a side miscounts its orders", () => {
    const h = book();
    sides(h).asks.orderCount += 1;
    expectBroken(h, /^BTCPERP: side order count$/);
  });

  it("throws when a resting order has nothing left to fill", () => {
    const h = book();
    const order = sides(h).bids.best()!.head!;
    order.cumLots = order.qtyLots;
    expectBroken(h, new RegExp(`^resting order ${order.orderId} has something to fill$`));
  });
});
