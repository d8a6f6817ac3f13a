import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { E18, StepScale, divFloorE18, divRound, formatMoney, formatScaled, fractionDigitsE18, fromSteps, moneyUnit, mulFractionCeil, rateFraction, roundMoney, toStepsHalfEven } from "../../src/risk/fixed.ts";

describe("divRound", () => {
  it.each([
    [7n, 2n, "half-even", 4n],
    [5n, 2n, "half-even", 2n],
    [-5n, 2n, "half-even", -2n],
    [-7n, 2n, "half-even", -4n],
    [11n, 4n, "half-even", 3n],
    [-11n, 4n, "half-even", -3n],
    [7n, 2n, "floor", 3n],
    [-7n, 2n, "floor", -4n],
    [7n, 2n, "ceil", 4n],
    [-7n, 2n, "ceil", -3n],
    [6n, -4n, "half-even", -2n],
    [9n, 3n, "ceil", 3n],
  ] as const)("%d / %d rounded %s is %d", (numerator, denominator, mode, expected) => {
    expect(divRound(numerator, denominator, mode)).toBe(expected);
  });

  it("stays within one of the exact quotient, and floor <= half-even <= ceil", () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 40n), 10n ** 40n), fc.bigInt(1n, 10n ** 20n), (numerator, denominator) => {
        const floor = divRound(numerator, denominator, "floor");
        const ceil = divRound(numerator, denominator, "ceil");
        const even = divRound(numerator, denominator, "half-even");
        expect(floor * denominator <= numerator && numerator < (floor + 1n) * denominator).toBe(true);
        expect(ceil - floor <= 1n).toBe(true);
        expect(floor <= even && even <= ceil).toBe(true);
        const twice = 2n * (numerator - floor * denominator);
        if (twice < denominator) expect(even).toBe(floor);
        if (twice > denominator) expect(even).toBe(ceil);
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe("one-division roundings by 10^18", () => {
  it("divFloorE18 is divRound's floor", () => {
    const edges = [0n, 1n, -1n, E18 - 1n, E18, E18 + 1n, -E18 + 1n, -E18, -E18 - 1n, 5n * E18, -5n * E18];
    for (const value of edges) expect(divFloorE18(value), `${value}`).toBe(divRound(value, E18, "floor"));
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 60n), 10n ** 60n), fc.bigInt(-(10n ** 18n), 10n ** 18n), (value, rate) => {
        expect(divFloorE18(value * rate)).toBe(divRound(value * rate, E18, "floor"));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe("rates in lowest terms", () => {
  it("reduce rate / 10^18, and round a product up as divRound's ceiling of value x rate / 10^18 does", () => {
    expect(rateFraction(5n * 10n ** 16n)).toEqual({ numerator: 1n, denominator: 20n, denominatorLessOne: 19n }); // 0.05
    expect(rateFraction(3n * 10n ** 16n)).toEqual({ numerator: 3n, denominator: 100n, denominatorLessOne: 99n }); // 0.03
    expect(rateFraction(0n)).toEqual({ numerator: 0n, denominator: 1n, denominatorLessOne: 0n });
    expect(rateFraction(E18 + 1n).denominator).toBe(E18);
    const rates = fc.oneof(fc.bigInt(-E18, 2n * E18), fc.integer({ min: 1, max: 1_000 }).map((n) => divRound(E18, BigInt(n), "ceil")), fc.constantFrom(5n * 10n ** 16n, 25n * 10n ** 15n, E18));
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 60n), 10n ** 60n), rates, (value, rate) => {
        expect(mulFractionCeil(value, rateFraction(rate))).toBe(divRound(value * rate, E18, "ceil"));
      }),
      { seed: 42, numRuns: 1_000 },
    );
  });
});

describe("money rounding (half-even to the asset's decimals)", () => {
  const unit6 = moneyUnit(6);
  const money = (text: string) => {
    const [whole, fraction = ""] = text.replace("-", "").split(".");
    const value = BigInt(whole! + fraction.padEnd(36, "0"));
    return text.startsWith("-") ? -value : value;
  };

  it.each([
    ["1.0000005", "1"],
    ["1.0000015", "1.000002"],
    ["1.00000050001", "1.000001"],
    ["-1.0000025", "-1.000002"],
    ["2.9999999", "3"],
  ])("%s rounds to %s at 6 decimals", (value, expected) => {
    expect(formatMoney(roundMoney(money(value), unit6))).toBe(expected);
  });

  it("formats zero, negative and whole amounts", () => {
    expect(formatMoney(0n)).toBe("0");
    expect(formatMoney(money("-0.000001"))).toBe("-0.000001");
    expect(formatMoney(money("12"))).toBe("12");
    expect(formatMoney(money("-12.5"))).toBe("-12.5");
  });

  it("refuses more than 18 decimals", () => {
    expect(() => moneyUnit(19)).toThrow(/decimals/);
  });
});

describe("formatting and steps", () => {
  it("formats canonical decimals", () => {
    expect(formatScaled(0n, 18)).toBe("0");
    expect(formatScaled(-1_500_000_000_000_000_000n, 18)).toBe("-1.5");
    expect(formatScaled(12n, 0)).toBe("12");
    expect(formatScaled(-1n, 18)).toBe("-0.000000000000000001");
  });

  it("counts a step's fraction digits", () => {
    expect(fractionDigitsE18(10n ** 15n)).toBe(3);
    expect(fractionDigitsE18(10n ** 18n)).toBe(0);
    expect(fractionDigitsE18(25n * 10n ** 16n)).toBe(2);
  });

  it("converts step counts like fromSteps, repeated or not (StepScale remembers the last one)", () => {
    const step = 10n ** 15n;
    const scale = new StepScale(step);
    for (const count of [0, 7, 7, 3, 7, 0, 0, 123_456_789, 123_456_789, 1]) expect(scale.of(count), `${count}`).toBe(fromSteps(count, step));
    expect(() => scale.of(1.5)).toThrow(/safe integer/);
    expect(scale.of(1)).toBe(step);
  });

  it("rounds a price to the tick grid half-even", () => {
    const tick = 10n ** 17n; // 0.1
    expect(toStepsHalfEven(50_000_050_000_000_000_000_000n, tick)).toBe(500_000); // 50000.05 -> 50000.0 (even)
    expect(toStepsHalfEven(50_000_150_000_000_000_000_000n, tick)).toBe(500_002); // 50000.15 -> 50000.2 (even)
  });
});

describe("formatMoney", () => {
  it("writes every booked amount as its 10^18 digits would, whether it goes through millionths or not", () => {
    // Amounts of at most 6 decimals below 2^53 millionths take the Number path; more decimals or more millionths do not.
    const E30 = 10n ** 30n;
    const amount = fc.oneof(
      fc.bigInt(-(2n ** 53n), 2n ** 53n).map((millionths) => millionths * E30),
      fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 1n, 999_999n, 1_000_000n, 10n ** 15n).chain((m) => fc.constantFrom(m * E30, -m * E30)),
      fc.bigInt(-(10n ** 30n), 10n ** 30n).map((units) => units * E18),
    );
    fc.assert(
      fc.property(amount, (value) => {
        expect(formatMoney(value)).toBe(formatScaled(value / E18, 18));
      }),
      { seed: 42, numRuns: 5_000 },
    );
  });
});
