import { describe, expect, it } from "vitest";
import { Dec } from "../../src/core/decimal.ts";
import { Engine } from "../../src/engine/engine.ts";
import { harness, ok, PERP, SPOT, T0, T0_SEC } from "./helpers.ts";

describe("open-order accounting per owner (spec 8.2)", () => {
  it("counts resting GTC and GTT orders and their notional (remaining qty x limitPx) across markets", () => {
    const h = harness();
    h.buy(1, 100, 4, { ownerId: 50 }); // 0.004 x 50 = 0.2
    h.sell(2, 300, 10, { ownerId: 50, timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }); // 0.01 x 150 = 1.5
    h.buy(3, 250, 5, { ownerId: 50, marketId: 2 }); // 0.5 x 2.5 = 1.25
    h.buy(4, 100, 4, { ownerId: 51 });
    const figures = h.engine.openOrderFigures(50);
    expect(figures.count).toBe(3);
    expect(figures.notional.toFixed()).toBe("2.95");
    expect(h.engine.openOrderFigures(51).count).toBe(1);
    expect(h.engine.openOrderFigures(52)).toEqual({ count: 0, notional: expect.anything() });
    expect(h.engine.openOrderFigures(52).notional.toFixed()).toBe("0");
  });

  it("lowers the notional on a partial fill and drops the order when it ends", () => {
    const h = harness();
    const maker = h.sell(1, 100, 10, { ownerId: 7 });
    h.buy(2, 100, 4, { ownerId: 8, timeInForce: "IOC" });
    expect(h.engine.openOrderFigures(7).notional.toFixed()).toBe("0.3"); // 6 lots x 0.001 x 50
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: maker.orderId }));
    expect(h.engine.openOrderFigures(7).count).toBe(0);
    expect(h.engine.openOrderFigures(7).notional.toFixed()).toBe("0");
  });

  it("never counts IOC orders, nor armed stops", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    h.buy(1, 100, 4, { ownerId: 1, timeInForce: "IOC" });
    ok(h.create({ accountId: 1, ownerId: 1, isBuy: false, orderType: "STOP_LOSS", priceTicks: 990, triggerTicks: 1000, qtyLots: undefined }));
    expect(h.engine.openOrderFigures(1).count).toBe(0);
  });

  it("stays exact beyond the safe-integer range", () => {
    const engine = new Engine({ markets: [{ ...PERP, tickSize: "1", qtyStepSize: "1", minOrderQty: "1" }], config: { maxRestingOrdersPerMarket: 4 } });
    const huge = 2 ** 50; // x 17 ticks: beyond 2^53
    for (let accountId = 1; accountId <= 3; accountId++) {
      ok(engine.createOrder({ atMicros: T0, marketId: 1, exchangeId: 1, accountId, ownerId: 9, isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 17, qtyLots: huge + accountId }));
    }
    const expected = (accountIds: number[]) => accountIds.reduce((sum, id) => sum + 17n * (BigInt(huge) + BigInt(id)), 0n).toString();
    expect(engine.openOrderFigures(9).notional.toFixed()).toBe(expected([1, 2, 3]));
    ok(engine.cancelAll({ atMicros: T0, accountId: 2 }));
    expect(engine.openOrderFigures(9).notional.toFixed()).toBe(expected([1, 3]));
    ok(engine.cancelAll({ atMicros: T0, accountId: 1 }));
    ok(engine.cancelAll({ atMicros: T0, accountId: 3 }));
    expect(engine.openOrderFigures(9)).toEqual({ count: 0, notional: expect.anything() });
    // one order may not be so large that a full level could leave the safe-integer range
    const tooLarge = engine.createOrder({ atMicros: T0, marketId: 1, exchangeId: 1, accountId: 4, ownerId: 9, isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 17, qtyLots: 2 ** 51 });
    expect(tooLarge.ok ? "accepted" : tooLarge.error.code).toBe("NUMERIC_OVERFLOW_ERROR");
  });

  it("answers what a create or a modify would do to the figures, without enforcing caps", () => {
    const h = harness();
    const create = { atMicros: T0, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 5, isBuy: true, orderType: "LIMIT" as const, timeInForce: "GTC" as const, priceTicks: 100, qtyLots: 4 };
    const impact = h.engine.openOrderImpactOfCreate(create);
    expect([impact.ownerId, impact.countDelta, impact.notionalDelta.toFixed()]).toEqual([5, 1, "0.2"]);
    expect(h.engine.openOrderImpactOfCreate({ ...create, timeInForce: "IOC" }).countDelta).toBe(0);
    const order = ok(h.engine.createOrder(create));
    const raise = h.engine.openOrderImpactOfModify({ ...create, orderId: order.orderId, qtyLots: 6, priceTicks: 110 });
    expect([raise.countDelta, raise.notionalDelta.toFixed()]).toEqual([0, "0.13"]); // 6 x 55 - 4 x 50 = 130 milli
    const lower = h.engine.openOrderImpactOfModify({ ...create, orderId: order.orderId, qtyLots: 2 });
    expect(lower.notionalDelta.toFixed()).toBe("-0.1");
  });

  it("gives the same figures and impacts in integer units, and a cap in those units rounded down", () => {
    const h = harness();
    const scale = 10n ** BigInt(h.engine.openOrderNotionalDecimals);
    const inUnits = (text: string) => BigInt(new Dec(text).mul(scale.toString()).toFixed(0));
    h.buy(1, 100, 4, { ownerId: 50 });
    h.buy(3, 250, 5, { ownerId: 50, marketId: 2 });
    expect(h.engine.openOrderUnits(50)).toEqual({ count: 2, notionalUnits: inUnits(h.engine.openOrderFigures(50).notional.toFixed()) });
    expect(h.engine.openOrderUnits(51)).toEqual({ count: 0, notionalUnits: 0n });
    const create = { atMicros: T0, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 5, isBuy: true, orderType: "LIMIT" as const, timeInForce: "GTC" as const, priceTicks: 100, qtyLots: 4 };
    expect(h.engine.openOrderImpactUnitsOfCreate(create)).toEqual({ ownerId: 5, countDelta: 1, notionalDeltaUnits: inUnits("0.2") });
    expect(h.engine.openOrderImpactUnitsOfCreate({ ...create, timeInForce: "IOC" }).notionalDeltaUnits).toBe(0n);
    const order = ok(h.engine.createOrder(create));
    const raise = { ...create, orderId: order.orderId, qtyLots: 6, priceTicks: 110 };
    expect(h.engine.openOrderImpactUnitsOfModify(raise).notionalDeltaUnits).toBe(inUnits(h.engine.openOrderImpactOfModify(raise).notionalDelta.toFixed()));
    expect(h.engine.openOrderImpactUnitsOfModify({ ...create, orderId: order.orderId, qtyLots: 2 }).notionalDeltaUnits).toBe(-inUnits("0.1"));
    // 4 decimals here (tickSize 0.5 x lot 0.001): 1.23456 USD is 12345.6 units, so a sum of 12345 units is within the cap and 12346 beyond it.
    expect(h.engine.openOrderNotionalDecimals).toBe(4);
    expect(h.engine.openOrderNotionalUnits("1.23456")).toBe(12345n);
    expect(h.engine.openOrderNotionalUnits("1000")).toBe(10_000_000n);
  });

  it("sums markets with different grids in one exact unit", () => {
    const engine = new Engine({ markets: [PERP, SPOT] });
    ok(engine.createOrder({ atMicros: T0, marketId: 2, exchangeId: 1, accountId: 1, ownerId: 1, isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 1, qtyLots: 3 }));
    ok(engine.createOrder({ atMicros: T0, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 1, qtyLots: 1 }));
    expect(engine.openOrderFigures(1).notional.toFixed()).toBe("0.0035"); // 0.3 x 0.01 + 0.001 x 0.5
  });
  it("keeps owners apart across chunks of owners, also when a freed chunk is reused for other owners", () => {
    const h = harness();
    // Owners 5 and 1,030 are in different chunks of 1,024 owners; 2,100 in a third.
    const a = h.buy(1, 100, 4, { ownerId: 5 });
    const b = h.buy(2, 100, 2, { ownerId: 1_030 });
    expect(h.engine.openOrderFigures(5).count).toBe(1);
    expect(h.engine.openOrderFigures(1_030).notional.toFixed()).toBe("0.1"); // 0.002 x 50
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: a.orderId }));
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 2, orderId: b.orderId }));
    // Both chunks are free now; the next owners take them over and start from zero.
    h.buy(3, 200, 1, { ownerId: 2_100 });
    h.buy(4, 100, 3, { ownerId: 1_031 });
    for (const [ownerId, count, notional] of [[5, 0, "0"], [1_030, 0, "0"], [2_100, 1, "0.1"], [1_031, 1, "0.15"], [6, 0, "0"]] as const) {
      const figures = h.engine.openOrderFigures(ownerId);
      expect([ownerId, figures.count, figures.notional.toFixed()]).toEqual([ownerId, count, notional]);
    }
    expect(h.engine.openOrderUnits(5)).toEqual({ count: 0, notionalUnits: 0n });
    expect(h.engine.dumpState().owners.map((owner) => owner.ownerId)).toEqual([1_031, 2_100]);
    h.engine.checkInvariants();
  });

  it("clears an owner's sum when its last order leaves, also when its parts were split beyond the safe-integer range", () => {
    const engine = new Engine({ markets: [{ ...PERP, tickSize: "1", qtyStepSize: "1", minOrderQty: "1" }], config: { maxRestingOrdersPerMarket: 4 } });
    const create = { atMicros: T0, marketId: 1, exchangeId: 1, isBuy: true, orderType: "LIMIT" as const, timeInForce: "GTC" as const, priceTicks: 16 };
    // 2^48 lots x 16 ticks = 2^52 each: the second sum leaves the safe range, so the two halves of the figures move apart.
    ok(engine.createOrder({ ...create, accountId: 1, ownerId: 9, qtyLots: 2 ** 48 }));
    ok(engine.createOrder({ ...create, accountId: 2, ownerId: 9, qtyLots: 2 ** 48 }));
    expect(engine.openOrderUnits(9)).toEqual({ count: 2, notionalUnits: 2n ** 53n });
    ok(engine.cancelAll({ atMicros: T0, accountId: 2 }));
    ok(engine.cancelAll({ atMicros: T0, accountId: 1 }));
    expect(engine.openOrderUnits(9)).toEqual({ count: 0, notionalUnits: 0n });
    // Owner 9's chunk is free; owner 4,105 (same place in its own chunk) reuses it and starts from zero, as does owner 9 again.
    ok(engine.createOrder({ ...create, accountId: 3, ownerId: 4_105, qtyLots: 5 }));
    ok(engine.createOrder({ ...create, accountId: 4, ownerId: 9, qtyLots: 3 }));
    expect(engine.openOrderUnits(4_105)).toEqual({ count: 1, notionalUnits: 80n });
    expect(engine.openOrderUnits(9)).toEqual({ count: 1, notionalUnits: 48n });
  });
});
