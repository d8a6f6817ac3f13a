import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";
import { rejection } from "./issues.ts";

const accepts = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown): boolean =>
  schema.safeParse(value).success;

describe("decimal scalars", () => {
  test.each(["0", "1", "0.5", "3150.25", "1e5", "1.5E-3", "2e+10", "000.100"])("UnsignedDecimal accepts %s", (v) => {
    expect(accepts(spec.UnsignedDecimal, v)).toBe(true);
    expect(accepts(spec.SignedDecimal, v)).toBe(true);
    expect(accepts(spec.SignedDecimal, `-${v}`)).toBe(true);
  });

  test.each(["", "-1", "+1", ".5", "5.", "1e", "1.2.3", "1,5", " 1", "1 ", "0x10", "NaN", "Infinity", "1e1.5"])(
    "UnsignedDecimal rejects %j",
    (v) => {
      expect(accepts(spec.UnsignedDecimal, v)).toBe(false);
    },
  );

  test.each(["", "--1", "+1", "-.5", "- 1", "-"])("SignedDecimal rejects %j", (v) => {
    expect(accepts(spec.SignedDecimal, v)).toBe(false);
  });

  test("decimals are strings, never numbers", () => {
    expect(accepts(spec.UnsignedDecimal, 1.5)).toBe(false);
    expect(accepts(spec.SignedDecimal, -1)).toBe(false);
  });

  test("the patterns are exactly the spec's", () => {
    expect(spec.UNSIGNED_DECIMAL_PATTERN.source).toBe(String.raw`^\d+(\.\d+)?([eE][+-]?\d+)?$`);
    expect(spec.SIGNED_DECIMAL_PATTERN.source).toBe(String.raw`^-?\d+(\.\d+)?([eE][+-]?\d+)?$`);
    expect(spec.SYMBOL_PATTERN.source).toBe("^[A-Za-z0-9]+$");
    expect(spec.ASSET_PATTERN.source).toBe("^[A-Za-z0-9]+$");
    expect(spec.ADDRESS_PATTERN.source).toBe("^0x[a-fA-F0-9]{40}$");
    expect(spec.SIGNATURE_PATTERN.source).toBe("^0x[0-9a-fA-F]{130}$");
  });
});

describe("name scalars", () => {
  test("Symbol and Asset take ASCII letters and digits only", () => {
    for (const v of ["ETHPERP", "WETHRUSD", "btc1"]) {
      expect(accepts(spec.MarketSymbol, v)).toBe(true);
      expect(accepts(spec.Asset, v)).toBe(true);
    }
    for (const v of ["", "ETH-PERP", "ETH/PERP", "ETH PERP", "ÉTH", "ETH_PERP"]) {
      expect(accepts(spec.MarketSymbol, v)).toBe(false);
      expect(accepts(spec.Asset, v)).toBe(false);
    }
  });

  test("Address is 0x and 40 hex digits of any case", () => {
    expect(accepts(spec.Address, `0x${"a".repeat(40)}`)).toBe(true);
    expect(accepts(spec.Address, `0x${"AbCdEf0123".repeat(4)}`)).toBe(true);
    expect(accepts(spec.Address, `0X${"a".repeat(40)}`)).toBe(false);
    expect(accepts(spec.Address, `0x${"a".repeat(39)}`)).toBe(false);
    expect(accepts(spec.Address, `0x${"a".repeat(41)}`)).toBe(false);
    expect(accepts(spec.Address, `0x${"g".repeat(40)}`)).toBe(false);
  });

  test("Side is B or A", () => {
    expect(spec.SIDES).toStrictEqual(["B", "A"]);
    expect(accepts(spec.Side, "B")).toBe(true);
    expect(accepts(spec.Side, "A")).toBe(true);
    expect(accepts(spec.Side, "S")).toBe(false);
    expect(accepts(spec.Side, "b")).toBe(false);
  });

  test("Signature is 0x and 65 bytes of hex", () => {
    expect(accepts(spec.Signature, `0x${"ab".repeat(65)}`)).toBe(true);
    expect(accepts(spec.Signature, `0x${"ab".repeat(64)}`)).toBe(false);
    expect(accepts(spec.Signature, `0x${"ab".repeat(66)}`)).toBe(false);
    expect(accepts(spec.Signature, `${"ab".repeat(66)}`)).toBe(false);
  });
});

describe("UnsignedInteger", () => {
  test.each([0, 1, 1_718_000_000_000, Number.MAX_SAFE_INTEGER])("accepts %d", (v) => {
    expect(accepts(spec.UnsignedInteger, v)).toBe(true);
  });
  test.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Number.POSITIVE_INFINITY, "1"])("rejects %o", (v) => {
    expect(accepts(spec.UnsignedInteger, v)).toBe(false);
  });
});

describe("Id (decimal uint64 string)", () => {
  test("accepts 0, the maximum 2^64 - 1 and leading zeros", () => {
    expect(spec.UINT64_MAX_DECIMAL).toBe((2n ** 64n - 1n).toString());
    for (const v of ["0", "1", "7340032000000001234", spec.UINT64_MAX_DECIMAL, `000${spec.UINT64_MAX_DECIMAL}`]) {
      expect(accepts(spec.Id, v)).toBe(true);
    }
  });

  test("2^64 and beyond are a numeric overflow", () => {
    for (const v of ["18446744073709551616", "99999999999999999999", "100000000000000000000"]) {
      const issues = rejection(spec.Id, v);
      expect(issues).toHaveLength(1);
      expect(issues[0]?.params).toStrictEqual({ reason: spec.NUMERIC_OVERFLOW_REASON });
    }
  });

  test("non-digits are a pattern failure, not an overflow", () => {
    for (const v of ["", "-1", "1.0", "1e3", "0x1f", " 1", "١٢"]) {
      const issues = rejection(spec.Id, v);
      expect(issues.map((i) => i.code)).toStrictEqual(["invalid_format"]);
    }
    expect(accepts(spec.Id, 42)).toBe(false);
  });

  test("the bound check agrees with bigint comparison (property)", () => {
    const digits = fc.stringMatching(/^[0-9]{1,24}$/);
    fc.assert(
      fc.property(digits, (v) => {
        expect(accepts(spec.Id, v)).toBe(BigInt(v) <= 2n ** 64n - 1n);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  test("decimalDigitsAtMost compares without floating point", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat(3), (a, b, zeros) => {
        const padded = "0".repeat(zeros) + a.toString();
        expect(spec.decimalDigitsAtMost(padded, b.toString())).toBe(a <= b);
      }),
      { seed: 42, numRuns: 2000 },
    );
    expect(spec.decimalDigitsAtMost("0", "0")).toBe(true);
    expect(spec.decimalDigitsAtMost("0000", "0")).toBe(true);
    expect(spec.decimalDigitsAtMost("10", "9")).toBe(false);
  });
});

describe("Nonce (decimal uint256 string)", () => {
  test("accepts up to 2^256 - 1 and flags beyond as overflow", () => {
    expect(spec.UINT256_MAX_DECIMAL).toBe((2n ** 256n - 1n).toString());
    expect(accepts(spec.Nonce, spec.UINT256_MAX_DECIMAL)).toBe(true);
    const issues = rejection(spec.Nonce, (2n ** 256n).toString());
    expect(issues[0]?.params).toStrictEqual({ reason: spec.NUMERIC_OVERFLOW_REASON });
  });

  test("rejects exponent and fraction forms", () => {
    expect(accepts(spec.Nonce, "1e5")).toBe(false);
    expect(accepts(spec.Nonce, "1.0")).toBe(false);
  });
});

describe("helpers", () => {
  test("isDecimalDigits", () => {
    expect(spec.isDecimalDigits("0123456789")).toBe(true);
    expect(spec.isDecimalDigits("")).toBe(false);
    expect(spec.isDecimalDigits("12a")).toBe(false);
    expect(spec.isDecimalDigits("/")).toBe(false);
    expect(spec.isDecimalDigits(":")).toBe(false);
  });

  test("isZeroDecimal looks at the mantissa only", () => {
    for (const v of ["0", "-0", "0.000", "-0.0e5", "00E-3"]) expect(spec.isZeroDecimal(v)).toBe(true);
    for (const v of ["1", "-0.001", "0.1e-30", "10"]) expect(spec.isZeroDecimal(v)).toBe(false);
  });
});
