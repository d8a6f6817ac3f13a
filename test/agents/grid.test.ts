import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MarketGrid } from "../../agents/lib/grid.ts";
import { formatDecimal, fromUnits } from "../../src/core/decimal.ts";
import type { AgentMarket } from "../../src/sim/agent.ts";

function market(tickSize: string, qtyStepSize: string, minOrderQty = qtyStepSize): AgentMarket {
  return { symbol: "TESTRUSDPERP", marketId: 1, kind: "perp", tickSize, qtyStepSize, minOrderQty, asset: "WETH" };
}

describe("MarketGrid formatting", () => {
  it("writes units x step as canonical wire text", () => {
    const grid = new MarketGrid(market("0.01", "0.001"));
    expect(grid.formatTicks(300_001)).toBe("3000.01");
    expect(grid.formatTicks(300_000)).toBe("3000");
    expect(grid.formatLots(1_500)).toBe("1.5");
    expect(grid.formatLots(1)).toBe("0.001");
    expect(grid.formatLots(0)).toBe("0");
    expect(new MarketGrid(market("5", "100")).formatTicks(3)).toBe("15");
    expect(new MarketGrid(market("5", "100")).formatLots(7)).toBe("700");
  });

  it("agrees with the decimal.js product for any step and count", () => {
    const steps = fc.constantFrom("0.01", "0.5", "1", "0.000001", "0.1", "25", "0.000000000000000001", "1e-3", "2.5e1");
    fc.assert(
      fc.property(steps, steps, fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (tick, step, units) => {
        const grid = new MarketGrid(market(tick, step));
        expect(grid.formatTicks(units)).toBe(formatDecimal(fromUnits(units, tick)));
        expect(grid.formatLots(units)).toBe(formatDecimal(fromUnits(units, step)));
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe("MarketGrid and a non-finite price or size", () => {
  it.each([Infinity, -Infinity, NaN])("refuses %s naming it, for a price and a quantity, in every rounding", (value) => {
    const grid = new MarketGrid(market("0.01", "0.001"));
    const message = `a price or quantity of ${value} units of the market's step is not a finite number`;
    for (const rounding of ["down", "up", "nearest"] as const) expect(() => grid.price(value, rounding)).toThrow(new RangeError(message));
    expect(() => grid.qty(value)).toThrow(new RangeError(message));
  });
});
