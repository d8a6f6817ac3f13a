import { describe, expect, it } from "vitest";
import { MarketUnits } from "../../src/engine/units.ts";

const units = new MarketUnits({ marketId: 1, symbol: "BTCPERP", kind: "perp", tickSize: "0.5", qtyStepSize: "0.001", minOrderQty: "0.002" });

describe("MarketUnits", () => {
  it("converts prices to ticks and quantities to lots, exponents included", () => {
    expect(units.toTicks("100.5")).toEqual({ ok: true, value: 201 });
    expect(units.toTicks("1.005e2")).toEqual({ ok: true, value: 201 });
    expect(units.toLots("0.25")).toEqual({ ok: true, value: 250 });
    expect(units.toLots("2.5E-1")).toEqual({ ok: true, value: 250 });
  });

  it("refuses values off the grid with PRICE_QTY_BOUNDS_ERROR naming the tick or step rule", () => {
    expect(units.toTicks("100.25")).toEqual({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'limitPx "100.25" is not a multiple of tickSize "0.5"' } });
    expect(units.toTicks("100.25", "triggerPx")).toEqual({
      ok: false,
      error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'triggerPx "100.25" is not a multiple of tickSize "0.5"' },
    });
    expect(units.toLots("0.0025")).toEqual({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'qty "0.0025" is not a multiple of qtyStepSize "0.001"' } });
  });

  it("refuses a quantity below minOrderQty, and a non-positive price", () => {
    expect(units.toLots("0.001")).toEqual({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'qty "0.001" is below minOrderQty "0.002"' } });
    expect(units.toLots("0")).toEqual({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'qty "0" is below minOrderQty "0.002"' } });
    expect(units.toTicks("0")).toEqual({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message: 'limitPx "0" must be greater than 0' } });
  });

  it("classes malformed input as INPUT_VALIDATION_ERROR and out-of-range input as NUMERIC_OVERFLOW_ERROR", () => {
    expect(units.toLots("-1")).toMatchObject({ ok: false, error: { code: "INPUT_VALIDATION_ERROR" } });
    expect(units.toTicks("1,5")).toMatchObject({ ok: false, error: { code: "INPUT_VALIDATION_ERROR" } });
    expect(units.toTicks("1.0000000000000000001")).toMatchObject({ ok: false, error: { code: "INPUT_VALIDATION_ERROR" } });
    expect(units.toTicks("1e80")).toMatchObject({ ok: false, error: { code: "NUMERIC_OVERFLOW_ERROR" } });
    expect(units.toLots("1e16")).toMatchObject({ ok: false, error: { code: "NUMERIC_OVERFLOW_ERROR" } });
  });

  it("formats ticks and lots as canonical decimals", () => {
    expect(units.formatPrice(201)).toBe("100.5");
    expect(units.formatPrice(200)).toBe("100");
    expect(units.formatQty(250)).toBe("0.25");
    expect(units.formatQty(0)).toBe("0");
    expect(units.notional(3n).toFixed()).toBe("0.0015");
  });

  it("rejects a market whose minOrderQty is off the lot grid", () => {
    expect(() => new MarketUnits({ marketId: 2, symbol: "X", kind: "spot", tickSize: "1", qtyStepSize: "0.1", minOrderQty: "0.15" })).toThrow(
      'minOrderQty "0.15" is not a multiple of qtyStepSize "0.1"',
    );
  });
});
