import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Dec,
  DecimalInputError,
  formatDecimal,
  formatE18,
  formatSteps,
  fromE18,
  fromUnits,
  INT256_MAX,
  parseSigned,
  parseUnsigned,
  roundTo,
  stepScale,
  toE18,
  toUnits,
  UINT256_MAX,
} from "../../src/core/decimal.ts";

function errorOf(run: () => unknown): DecimalInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof DecimalInputError) return error;
    throw error;
  }
  throw new Error("expected a DecimalInputError");
}

describe("parsing the specification's decimals", () => {
  it.each([
    ["0", "0"],
    ["000123.4500", "123.45"],
    ["1.5e2", "150"],
    ["1.5E+2", "150"],
    ["15e-1", "1.5"],
    ["0.000000000000000001", "0.000000000000000001"],
    ["1e-18", "0.000000000000000001"],
    ["1.000000000000000000000", "1"], // trailing zeros beyond 18 digits are harmless
    ["0e999999999999", "0"],
    ["0.0", "0"],
  ])("reads %s as %s", (text, canonical) => {
    expect(formatDecimal(parseUnsigned(text, "qty"))).toBe(canonical);
    expect(formatDecimal(parseSigned(text, "qty"))).toBe(canonical);
  });

  it("reads negative values, and negative zero as 0", () => {
    expect(formatDecimal(parseSigned("-2.50", "pnl"))).toBe("-2.5");
    expect(formatDecimal(parseSigned("-0", "pnl"))).toBe("0");
    expect(formatDecimal(parseSigned("-0.000e5", "pnl"))).toBe("0");
  });

  it("refuses malformed text with a message naming the field and value", () => {
    for (const bad of ["", " 1", "1.", ".5", "+1", "1e", "0x10", "1,5", "NaN", "Infinity", "1.5.2", "--1"]) {
      const error = errorOf(() => parseSigned(bad, "limitPx"));
      expect(error.kind).toBe("format");
      expect(error.message).toContain("limitPx");
      expect(error.message).toContain(`"${bad}"`);
    }
    expect(errorOf(() => parseUnsigned("-1", "qty")).kind).toBe("format");
  });

  it("accepts 18 fraction digits and refuses 19 (the 10^18 fixed point cannot hold them)", () => {
    expect(toE18("0.123456789012345678", "qty")).toBe(123456789012345678n);
    const error = errorOf(() => parseUnsigned("0.1234567890123456789", "qty"));
    expect(error.kind).toBe("format");
    expect(error.message).toMatch(/more than 18 fraction digits/);
    expect(errorOf(() => parseUnsigned("1e-19", "qty")).kind).toBe("format");
    expect(errorOf(() => parseUnsigned("1e-99999999999", "qty")).kind).toBe("format");
  });

  it("refuses values beyond int256 / uint256 at 18 decimals as overflow, exactly at the edge", () => {
    const maxSigned = formatE18(INT256_MAX);
    expect(toE18(maxSigned, "qty")).toBe(INT256_MAX);
    expect(toE18(`-${maxSigned}`, "qty")).toBe(-INT256_MAX);
    const justAbove = formatE18(INT256_MAX + 1n);
    expect(errorOf(() => parseSigned(justAbove, "qty")).kind).toBe("overflow");
    // The unsigned range is twice as large.
    expect(formatDecimal(parseUnsigned(justAbove, "px"))).toBe(justAbove);
    expect(toE18(formatE18(UINT256_MAX), "px", { signed: false })).toBe(UINT256_MAX);
    expect(errorOf(() => parseUnsigned(formatE18(UINT256_MAX + 1n), "px")).kind).toBe("overflow");
    expect(errorOf(() => parseSigned("1e80", "qty")).kind).toBe("overflow");
    expect(errorOf(() => parseSigned("1e99999999999999", "qty")).kind).toBe("overflow");
  });

  it("reads plain digit texts exactly, on both sides of the 15 digits a double holds", () => {
    const digitText = (min: number, max: number) => fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""));
    fc.assert(
      fc.property(digitText(1, 24), fc.option(digitText(1, 18), { nil: undefined }), (whole, fraction) => {
        const text = fraction === undefined ? whole : `${whole}.${fraction}`;
        const expected = BigInt(whole + (fraction ?? "").padEnd(18, "0"));
        expect(toE18(text, "v")).toBe(expected);
        expect(toE18(text, "v", { signed: false })).toBe(expected);
      }),
      { seed: 42, numRuns: 2000 },
    );
    // The boundary itself: 15 and 16 digits, the largest doubles near 2^53.
    expect(toE18("999999999999999", "v")).toBe(999999999999999n * 10n ** 18n);
    expect(toE18("9007199254740993", "v")).toBe(9007199254740993n * 10n ** 18n);
    expect(toE18("900719925474099.3", "v")).toBe(9007199254740993n * 10n ** 17n);
    expect(toE18("90071992547409.93", "v")).toBe(9007199254740993n * 10n ** 16n);
    expect(toE18("0.000000000000000001", "v")).toBe(1n);
  });

  it("round-trips any 10^18 fixed-point value through its canonical text", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -INT256_MAX, max: INT256_MAX }), (scaled) => {
        const text = formatE18(scaled);
        expect(toE18(text, "v")).toBe(scaled);
        expect(formatDecimal(fromE18(scaled))).toBe(text);
        expect(text).not.toMatch(/e|E|\.$|\.\d*0$/);
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe("canonical output", () => {
  it("writes no exponent and no trailing zeros", () => {
    expect(formatDecimal(new Dec("1e-7"))).toBe("0.0000001");
    expect(formatDecimal(new Dec("1.2300e25"))).toBe("12300000000000000000000000");
    expect(formatDecimal(new Dec("-0"))).toBe("0");
    expect(formatDecimal(12n)).toBe("12");
    expect(formatDecimal(-5)).toBe("-5");
  });

  it("rounds half to even", () => {
    expect(formatDecimal(roundTo(new Dec("0.125"), 2))).toBe("0.12");
    expect(formatDecimal(roundTo(new Dec("0.135"), 2))).toBe("0.14");
    expect(formatDecimal(roundTo(new Dec("-0.125"), 2))).toBe("-0.12");
  });
});

describe("ticks and lots", () => {
  it("converts exact multiples and refuses the rest without rounding", () => {
    expect(toUnits("3000.5", "0.5", "limitPx", "tickSize")).toBe(6001);
    expect(toUnits("0.003", "0.001", "qty", "qtyStepSize")).toBe(3);
    const error = errorOf(() => toUnits("0.0015", "0.001", "qty", "qtyStepSize"));
    expect(error.kind).toBe("grid");
    expect(error.message).toBe('qty "0.0015" is not a multiple of qtyStepSize "0.001"');
    expect(formatDecimal(fromUnits(6001, "0.5"))).toBe("3000.5");
  });

  it("round-trips units through decimals for any step", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 12 }), (units, mantissa, scale) => {
        const step = formatDecimal(new Dec(mantissa).div(new Dec(10).pow(scale)));
        const value = formatDecimal(fromUnits(units, step));
        expect(toUnits(value, step, "v")).toBe(units);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it("formats a count of steps in integers exactly as decimal.js does", () => {
    // Steps of every shape a market can have: small and large mantissas, up to 18 decimals, whole steps, exponents.
    const stepText = fc.oneof(
      fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 18 })).map(([m, d]) => formatDecimal(new Dec(m).div(new Dec(10).pow(d)))),
      fc.tuple(fc.bigInt({ min: 1n, max: 2n ** 60n }), fc.integer({ min: 0, max: 18 })).map(([m, d]) => formatDecimal(new Dec(m.toString()).div(new Dec(10).pow(d)))),
      fc.integer({ min: 1, max: 6 }).map((e) => `1e${e}`),
    );
    const units = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.constant(-0));
    fc.assert(
      fc.property(stepText, units, (text, count) => {
        const step = parseUnsigned(text, "step");
        expect(formatSteps(count, step, stepScale(step))).toBe(formatDecimal(fromUnits(count, step)));
      }),
      { seed: 42, numRuns: 3000 },
    );
  });

  it("takes a step apart into a safe-integer mantissa and its decimals, or says it cannot", () => {
    expect(stepScale(new Dec("0.01"))).toEqual({ mantissa: 1, decimals: 2 });
    expect(stepScale(new Dec("0.5"))).toEqual({ mantissa: 5, decimals: 1 });
    expect(stepScale(new Dec("2.5e1"))).toEqual({ mantissa: 25, decimals: 0 });
    expect(stepScale(new Dec("0.000000000000000001"))).toEqual({ mantissa: 1, decimals: 18 });
    expect(stepScale(new Dec("12345678901234567"))).toBeNull();
    expect(stepScale(new Dec("0"))).toBeNull();
    // Without a scale (or past the safe range) the text still comes out exact, through decimal.js.
    expect(formatSteps(3, new Dec("12345678901234567"), null)).toBe("37037036703703701");
    expect(formatSteps(2 ** 52, new Dec("0.03"), stepScale(new Dec("0.03")))).toBe("135107988821114.88");
  });

  it("refuses unit counts that a book cannot hold as safe integers", () => {
    expect(errorOf(() => toUnits("1e30", "0.01", "qty")).kind).toBe("overflow");
  });
});
