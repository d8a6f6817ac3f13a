import { describe, expect, it } from "vitest";
import type { OrderUpdate } from "../../src/engine/events.ts";
import { harness, ok, T0_SEC } from "./helpers.ts";

/** The fields a row carries only when it has them (a fill, a trigger price, an expiry). */
function detail(row: OrderUpdate) {
  return {
    execLots: row.execLots,
    fillCount: row.fillCount,
    firstFillId: row.firstFillId,
    triggerTicks: row.triggerTicks,
    expiresAfterSec: row.expiresAfterSec,
  };
}

describe("OrderUpdate rows", () => {
  it("answer 0 and null for the fills, trigger and expiry they do not have", () => {
    const h = harness();
    const resting = h.buy(1, 100, 4);
    expect(detail(resting)).toEqual({ execLots: 0, fillCount: 0, firstFillId: null, triggerTicks: 0, expiresAfterSec: 0 });
    const cancelled = ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: resting.orderId }));
    expect(detail(cancelled)).toEqual(detail(resting));
    expect([cancelled.status, cancelled.cancelReason, cancelled.qtyLots, cancelled.cumLots, cancelled.priceTicks]).toEqual(["CANCELLED", "USER_CANCEL", 4, 0, 100]);
  });

  it("carry the fills of a taker's and a maker's fill rows", () => {
    const h = harness();
    h.sell(1, 100, 3);
    h.sell(2, 101, 3);
    h.clear();
    const taker = h.buy(3, 101, 5);
    const fillIds = h.rec.fills.map((fill) => fill.fillId);
    expect(fillIds).toHaveLength(2);
    expect(detail(taker)).toEqual({ execLots: 5, fillCount: 2, firstFillId: fillIds[0], triggerTicks: 0, expiresAfterSec: 0 });
    const makerRows = h.rec.updates.filter((row) => row.accountId !== 3);
    expect(makerRows.map(detail)).toEqual([
      { execLots: 3, fillCount: 1, firstFillId: fillIds[0], triggerTicks: 0, expiresAfterSec: 0 },
      { execLots: 2, fillCount: 1, firstFillId: fillIds[1], triggerTicks: 0, expiresAfterSec: 0 },
    ]);
  });

  it("carry an expiry and a trigger price, with and without fills, as they were when the row was made", () => {
    const h = harness();
    h.sell(1, 100, 2);
    const gtt = h.buy(2, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    expect(detail(gtt)).toEqual({ execLots: 2, fillCount: 1, firstFillId: h.rec.fills[0]!.fillId, triggerTicks: 0, expiresAfterSec: T0_SEC + 10 });
    const modified = ok(h.modify(gtt, { expiresAfterSec: T0_SEC + 20 }));
    expect(detail(modified)).toEqual({ execLots: 0, fillCount: 0, firstFillId: null, triggerTicks: 0, expiresAfterSec: T0_SEC + 20 });
    expect(gtt.expiresAfterSec).toBe(T0_SEC + 10);

    h.setPosition(3, 1, 5);
    const stop = ok(h.create({ accountId: 3, isBuy: false, orderType: "STOP_LOSS", priceTicks: 990, triggerTicks: 1000, qtyLots: undefined }));
    expect(detail(stop)).toEqual({ execLots: 0, fillCount: 0, firstFillId: null, triggerTicks: 1000, expiresAfterSec: 0 });
    expect(stop.status).toBe("OPEN");
  });

  it("report the order's identity themselves, and whether it rested when the row was made", () => {
    const h = harness();
    const identity = (row: OrderUpdate) => ({
      exchangeId: row.exchangeId,
      symbol: row.market.symbol,
      accountId: row.accountId,
      isBuy: row.isBuy,
      orderType: row.orderType,
      timeInForce: row.timeInForce,
      reduceOnly: row.reduceOnly,
      clientOrderId: row.clientOrderId,
      createdAtMicros: row.createdAtMicros,
    });
    const maker = h.sell(1, 100, 2, { clientOrderId: "7" });
    expect(identity(maker)).toEqual({ exchangeId: 1, symbol: h.engine.market(1)!.symbol, accountId: 1, isBuy: false, orderType: "LIMIT", timeInForce: "GTC", reduceOnly: false, clientOrderId: "7", createdAtMicros: h.now });
    expect(maker.resting).toBe(true);
    const createdAt = h.now;
    h.now += 1_000;
    const taker = h.buy(2, 100, 2, { timeInForce: "IOC" });
    expect(identity(taker)).toMatchObject({ accountId: 2, isBuy: true, timeInForce: "IOC", clientOrderId: null, createdAtMicros: h.now });
    expect(taker.resting).toBe(false);
    // The maker's fill row: filled, so out of the book; its identity is the maker's, as created.
    const makerFill = h.rec.updates.find((row) => row.accountId === 1 && row.fillCount === 1)!;
    expect(makerFill.status).toBe("FILLED");
    expect(makerFill.resting).toBe(false);
    expect(identity(makerFill)).toEqual({ ...identity(maker), createdAtMicros: createdAt });
    // Rows made while the order rested keep saying so after it has left.
    expect(maker.resting).toBe(true);
    h.setPosition(3, 1, 5);
    const stop = ok(h.create({ accountId: 3, isBuy: false, orderType: "STOP_LOSS", priceTicks: 990, triggerTicks: 1000, qtyLots: undefined, reduceOnly: undefined }));
    expect([stop.status, stop.orderType, stop.resting]).toEqual(["OPEN", "STOP_LOSS", false]);
  });
});
