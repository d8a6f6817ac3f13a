/**
 * FeeTierParameters.makerFee (spec 2.6, a SignedDecimal) is parsed and must
 * be 0 (audit D3): Fee v3 charges makers nothing and executions omit
 * makerFee (spec 2.14, src/risk/fees.ts), so a configured maker fee or
 * rebate would be published on /v2/feeTiers and never applied. A value that
 * is not a SignedDecimal is refused, naming the field, as is a non-zero one.
 */
import { describe, expect, it } from "vitest";
import { RiskEngine } from "../../src/risk/risk.ts";
import { baseConfig } from "./fixtures.ts";

function withMakerFee(makerFee: string) {
  const base = baseConfig();
  return () => new RiskEngine({ ...base, feeTiers: base.feeTiers.map((tier) => (tier.tierId === 1 ? { ...tier, makerFee } : tier)) });
}

describe("makerFee in the fee tier configuration", () => {
  it("refuses a value that is not a SignedDecimal, naming the field", () => {
    expect(withMakerFee("abc")).toThrow('tier 1.makerFee "abc" is not a signed decimal');
    expect(withMakerFee("")).toThrow("tier 1.makerFee");
    expect(withMakerFee("0.0001%")).toThrow("tier 1.makerFee");
  });

  it("refuses a non-zero maker fee or rebate, which Fee v3 would never charge", () => {
    expect(withMakerFee("0.0002")).toThrow('tier 1.makerFee "0.0002" must be 0 on Fee v3 (maker fees are not charged)');
    expect(withMakerFee("-0.0001")).toThrow('tier 1.makerFee "-0.0001" must be 0 on Fee v3 (maker fees are not charged)');
    expect(withMakerFee("1e-18")).toThrow("must be 0 on Fee v3");
  });

  it("accepts any form of zero", () => {
    for (const zero of ["0", "0.000", "-0", "0e5", "0E-3"]) expect(withMakerFee(zero)).not.toThrow();
  });
});
