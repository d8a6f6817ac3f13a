import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDecimal, fromUnits } from "../../../src/core/decimal.ts";
import { validateCreateOrder } from "../../../src/exchange/gateway/validate/create-order.ts";
import { checkGrid } from "../../../src/exchange/gateway/validate/market-rules.ts";
import { validateModifyOrder } from "../../../src/exchange/gateway/validate/modify-order.ts";
import { accepted, context, createGtc, createSpot, createStop, ETH_PERP, expectRejected, modifyLimit, modifyStop } from "./fixtures.ts";

const create = (body: object) => accepted(validateCreateOrder(body, context));

describe("checkGrid accepts values on the grid and returns whole units", () => {
  it("a LIMIT: priceTicks and qtyLots, no triggerTicks", () => {
    expect(checkGrid(create(createGtc))).toEqual({ ok: true, value: { priceTicks: 315_025, qtyLots: 1_500 } });
  });

  it("a trigger: priceTicks and triggerTicks, no qtyLots", () => {
    expect(checkGrid(create(createStop))).toEqual({ ok: true, value: { priceTicks: 290_000, triggerTicks: 295_000 } });
  });

  it("a modify", () => {
    expect(checkGrid(accepted(validateModifyOrder(modifyLimit, context)))).toEqual({
      ok: true,
      value: { priceTicks: 314_975, qtyLots: 1_200 },
    });
    expect(checkGrid(accepted(validateModifyOrder(modifyStop, context)))).toEqual({
      ok: true,
      value: { priceTicks: 289_000, triggerTicks: 294_000 },
    });
  });

  it("exponent forms and trailing zeros", () => {
    expect(checkGrid(create({ ...createGtc, limitPx: "3.15025e3", qty: "1.50000" }))).toEqual({
      ok: true,
      value: { priceTicks: 315_025, qtyLots: 1_500 },
    });
  });

  it("qty exactly at minOrderQty passes", () => {
    expect(checkGrid(create({ ...createSpot, qty: "0.01" }))).toEqual({ ok: true, value: { priceTicks: 320_000, qtyLots: 10 } });
  });

  it("round-trips every whole number of ticks and lots (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 50 }), fc.integer({ min: 1, max: 2 ** 40 }), (ticks, lots) => {
        const limitPx = formatDecimal(fromUnits(ticks, ETH_PERP.tickSize));
        const qty = formatDecimal(fromUnits(lots, ETH_PERP.qtyStepSize));
        expect(checkGrid(create({ ...createGtc, limitPx, qty }))).toEqual({ ok: true, value: { priceTicks: ticks, qtyLots: lots } });
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe("checkGrid rejects off-grid and too small values with PRICE_QTY_BOUNDS_ERROR", () => {
  it("limitPx not a multiple of tickSize", () => {
    const message = expectRejected(checkGrid(create({ ...createGtc, limitPx: "3150.255" })), "PRICE_QTY_BOUNDS_ERROR", "limitPx");
    expect(message).toBe('limitPx "3150.255" is not a multiple of tickSize "0.01"');
  });

  it("triggerPx not a multiple of tickSize", () => {
    const message = expectRejected(checkGrid(create({ ...createStop, triggerPx: "2950.001" })), "PRICE_QTY_BOUNDS_ERROR", "triggerPx");
    expect(message).toBe('triggerPx "2950.001" is not a multiple of tickSize "0.01"');
  });

  it("qty not a multiple of qtyStepSize", () => {
    const message = expectRejected(checkGrid(create({ ...createGtc, qty: "0.0015" })), "PRICE_QTY_BOUNDS_ERROR", "qty");
    expect(message).toBe('qty "0.0015" is not a multiple of qtyStepSize "0.001"');
  });

  it("the message quotes the wire text, exponent form included", () => {
    const message = expectRejected(checkGrid(create({ ...createGtc, qty: "15e-4" })), "PRICE_QTY_BOUNDS_ERROR", "qty");
    expect(message).toBe('qty "15e-4" is not a multiple of qtyStepSize "0.001"');
  });

  it("qty on the grid but below minOrderQty", () => {
    const message = expectRejected(checkGrid(create({ ...createSpot, qty: "0.009" })), "PRICE_QTY_BOUNDS_ERROR", "qty");
    expect(message).toBe('qty "0.009" is below minOrderQty "0.01"');
  });

  it("checks in order: limitPx, triggerPx, qty grid, qty minimum", () => {
    expectRejected(checkGrid(create({ ...createStop, limitPx: "1.001", triggerPx: "1.001" })), "PRICE_QTY_BOUNDS_ERROR", "limitPx");
    expectRejected(checkGrid(create({ ...createSpot, limitPx: "1.001", qty: "0.0001" })), "PRICE_QTY_BOUNDS_ERROR", "limitPx");
    expectRejected(checkGrid(create({ ...createSpot, qty: "0.0001" })), "PRICE_QTY_BOUNDS_ERROR", "qty");
  });

  it("a value on the grid but beyond a safe integer of units is out of the book's bounds", () => {
    const message = expectRejected(checkGrid(create({ ...createGtc, limitPx: "1e20" })), "PRICE_QTY_BOUNDS_ERROR", "limitPx");
    expect(message).toContain("beyond the book's range");
    expectRejected(checkGrid(create({ ...createGtc, qty: "9007199254740.992" })), "PRICE_QTY_BOUNDS_ERROR", "qty");
    expect(checkGrid(create({ ...createGtc, qty: "9007199254740.991" })).ok).toBe(true);
  });

  it("qty at the int256 edge passes structure and is out of the book's bounds here, without throwing", () => {
    const qty = "57896044618658097711785492504343953926634992332820282019728.792003956564819967";
    expectRejected(checkGrid(create({ ...createGtc, qty })), "PRICE_QTY_BOUNDS_ERROR", "qty");
  });
});
