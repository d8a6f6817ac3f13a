/**
 * The risk layer builds a liquidation pass's audit records (judgements, ADL
 * queues) only while the exchange has a liquidation listener: the switch
 * (RiskState.recordLiquidations) follows Exchange.observeLiquidations.
 */
import { describe, expect, it } from "vitest";
import { Exchange } from "../../src/exchange/exchange.ts";
import { START_MICROS, trustedConfig } from "./flow.ts";

describe("Exchange.observeLiquidations turns the risk layer's liquidation records on and off", () => {
  it("is off with no listener, on while any is attached, off again after the last leaves", () => {
    const exchange = new Exchange({ config: trustedConfig(), startMicros: START_MICROS, seed: 1 });
    const recording = () => exchange.risk.state.recordLiquidations;
    expect(recording()).toBe(false);
    const first = exchange.observeLiquidations(() => {});
    expect(recording()).toBe(true);
    const second = exchange.observeLiquidations(() => {});
    first();
    expect(recording()).toBe(true);
    first(); // twice: still only the second attached
    expect(recording()).toBe(true);
    second();
    expect(recording()).toBe(false);
  });
});
