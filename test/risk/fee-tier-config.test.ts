/**
 * The fee tier configuration, canonicalised (spec 2.6 FeeTierParameters):
 * whatever order and decimal spelling the configuration uses, the service
 * keeps and publishes its tiers in one order, REGULAR before VIP, each type
 * by ascending volume30d, ties by tierId, each decimal canonical. Two
 * REGULAR tiers with one volume30d (two default tiers at 0, in particular)
 * are refused: the REGULAR tier of a 30-day volume must be one tier.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FeeTierInput } from "../../src/risk/config.ts";
import { RiskEngine } from "../../src/risk/risk.ts";
import { baseConfig } from "./fixtures.ts";

function engine(feeTiers: readonly FeeTierInput[]) {
  return new RiskEngine(baseConfig({ feeTiers }));
}

describe("fee tiers", () => {
  it("are kept and published REGULAR by ascending volume30d, then VIP by volume30d, ties by tierId, whatever order they are listed in", () => {
    const risk = engine([
      { tierId: 10, takerFee: "0.0002", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 3, takerFee: "0.0003", makerFee: "0", volume30d: "10000000", tierType: "REGULAR" },
      { tierId: 5, takerFee: "0.0001", makerFee: "0", volume30d: "500", tierType: "VIP" },
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 7, takerFee: "0.00025", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
    ]);
    expect(risk.feeTierParameters().map((tier) => [tier.tierType, tier.volume30d, tier.tierId])).toEqual([
      ["REGULAR", "0", 1],
      ["REGULAR", "1000000", 2],
      ["REGULAR", "10000000", 3],
      ["VIP", "0", 7],
      ["VIP", "0", 10],
      ["VIP", "500", 5],
    ]);
    expect(risk.state.config.feeTiers.map((tier) => tier.tierId)).toEqual([1, 2, 3, 7, 10, 5]);
  });

  it("are published with canonical decimals, not as the configuration spells them", () => {
    const risk = engine([
      { tierId: 2, takerFee: "3.5e-4", makerFee: "0.000", volume30d: "1e6", tierType: "REGULAR" },
      { tierId: 1, takerFee: "0.000400", makerFee: "0", volume30d: "0.0", tierType: "REGULAR" },
    ]);
    expect(risk.feeTierParameters()).toEqual([
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
    ]);
  });

  it("refuses two REGULAR tiers with volume30d 0 (two default tiers), naming the field and the rule", () => {
    const tiers: FeeTierInput[] = [
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 4, takerFee: "0.0005", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
    ];
    expect(() => engine(tiers)).toThrow('tier 4.volume30d "0" is also the volume30d of REGULAR tier 1: each REGULAR tier must have its own volume30d (there is one default tier, volume30d 0)');
    // The same threshold spelled differently is the same threshold.
    expect(() => engine([tiers[0]!, { ...tiers[1]!, volume30d: "0.00" }])).toThrow(/tier 4\.volume30d "0" is also the volume30d of REGULAR tier 1/);
  });

  it("refuses two REGULAR tiers with one non-zero volume30d, and accepts VIP tiers sharing a volume30d", () => {
    const tiers: FeeTierInput[] = [
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 3, takerFee: "0.0003", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
      { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
    ];
    expect(() => engine(tiers)).toThrow('tier 3.volume30d "1000000" is also the volume30d of REGULAR tier 2: each REGULAR tier must have its own volume30d');
    const vips = engine([
      tiers[0]!,
      { tierId: 8, takerFee: "0.0001", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 9, takerFee: "0.0002", makerFee: "0", volume30d: "0", tierType: "VIP" },
    ]);
    expect(vips.feeTierParameters().map((tier) => tier.tierId)).toEqual([1, 8, 9]);
  });
});

describe("the canonical fee tier order", () => {
  it("does not depend on the order the configuration lists the tiers in (seeded permutations)", () => {
    const tiers: FeeTierInput[] = [
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
      { tierId: 3, takerFee: "0.0003", makerFee: "0", volume30d: "10000000", tierType: "REGULAR" },
      { tierId: 7, takerFee: "0.00025", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 10, takerFee: "0.0002", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 5, takerFee: "0.0001", makerFee: "0", volume30d: "500", tierType: "VIP" },
    ];
    const expected = [1, 2, 3, 7, 10, 5];
    fc.assert(
      fc.property(fc.shuffledSubarray(tiers, { minLength: tiers.length, maxLength: tiers.length }), (listed) => {
        expect(engine(listed).feeTierParameters().map((tier) => tier.tierId)).toEqual(expected);
      }),
      { seed: 42, numRuns: 100 },
    );
  });
});
