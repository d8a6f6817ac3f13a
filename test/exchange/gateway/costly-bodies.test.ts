/**
 * Request bodies that cost more than their size to validate (fields.ts,
 * audit s21 D3) are answered before the costly step:
 *
 * - a body with more than REQUEST_BODY_MEMBERS_MAX members is refused with
 *   INPUT_VALIDATION_ERROR naming its first member that is not a field and
 *   the rule, for every operation, whatever else it holds; a body within
 *   the bound reads as before (additional properties are allowed, spec 1);
 * - a decimal of very many digits gets NUMERIC_OVERFLOW_ERROR without its
 *   digits being read into a bigint, and every long decimal gets exactly
 *   the answer toE18 gives it (leading zeros, fraction zeros, exponents).
 */
import { describe, expect, it } from "vitest";
import { DecimalInputError, toE18 } from "../../../src/core/decimal.ts";
import { validateRequest } from "../../../src/exchange/gateway/validate/structure.ts";
import { parseDecimal, REQUEST_BODY_MEMBERS_MAX } from "../../../src/exchange/gateway/validate/fields.ts";
import type { OrderEntryOperation } from "../../../src/spec/exec-envelopes.ts";
import { cancelAll, cancelAllAfter, cancelOrder, context, createGtc, modifyLimit } from "../validate/fixtures.ts";

const BODIES: readonly [OrderEntryOperation, object][] = [
  ["createOrder", createGtc],
  ["modifyOrder", modifyLimit],
  ["cancelOrder", cancelOrder],
  ["cancelAll", cancelAll],
  ["cancelAllAfter", cancelAllAfter],
];

function withExtras(body: object, count: number, prefix = "k"): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (let i = 0; i < count; i++) out[`${prefix}${i}`] = 0;
  return out;
}

describe("a body with too many members", () => {
  it.each(BODIES)("%s: 90,000 unknown members are refused naming the first and the rule, with or without the fields", (op, body) => {
    const message = `"k0" is not a field of this request, and a request body may have at most ${REQUEST_BODY_MEMBERS_MAX} members`;
    for (const sent of [withExtras(body, 90_000), withExtras({}, 90_000)]) {
      const result = validateRequest(op, sent, context);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.error).toBe("INPUT_VALIDATION_ERROR");
      expect(result.error.message).toBe(`${message} (it has ${Object.keys(sent).length})`);
    }
  });

  it.each(BODIES)("%s: additional members up to the bound read as before; one more is refused", (op, body) => {
    const fields = Object.keys(body).length;
    const room = REQUEST_BODY_MEMBERS_MAX - fields;
    expect(room).toBeGreaterThan(30);
    const within = validateRequest(op, withExtras(body, room, "extra"), context);
    expect(within.ok).toBe(true);
    const plain = validateRequest(op, body, context);
    // The same request, extra members aside.
    if (within.ok && plain.ok) expect({ ...within.value, request: undefined }).toEqual({ ...plain.value, request: undefined });
    const over = validateRequest(op, withExtras(body, room + 1, "extra"), context);
    expect(over).toEqual({
      ok: false,
      error: {
        error: "INPUT_VALIDATION_ERROR",
        message: `"extra0" is not a field of this request, and a request body may have at most ${REQUEST_BODY_MEMBERS_MAX} members (it has ${REQUEST_BODY_MEMBERS_MAX + 1})`,
      },
    });
  });

  it("an ordinarily invalid body within the bound keeps its answer", () => {
    const { exchangeId: _, ...noExchangeId } = createGtc;
    expect(validateRequest("createOrder", withExtras(noExchangeId, 20), context)).toEqual({
      ok: false,
      error: { error: "INPUT_VALIDATION_ERROR", message: "exchangeId is required" },
    });
  });
});

/** parseDecimal as it was: every text read by toE18. */
function reference(text: string, field: string): unknown {
  try {
    return { ok: true, value: { text, e18: toE18(text, field, { signed: true }) } };
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
    return { kind: error.kind === "overflow" ? "overflow" : "other" };
  }
}

function verdict(text: string): unknown {
  const result = parseDecimal(text, "qty");
  if (result.ok) return result;
  return { kind: result.error.error === "NUMERIC_OVERFLOW_ERROR" ? "overflow" : "other" };
}

describe("long decimals", () => {
  it("a qty of 2 MB of digits is NUMERIC_OVERFLOW_ERROR, quickly", () => {
    const text = "1".repeat(2_000_000);
    const startMs = performance.now();
    const result = parseDecimal(text, "qty");
    const elapsedMs = performance.now() - startMs;
    expect(result).toEqual({
      ok: false,
      error: { error: "NUMERIC_OVERFLOW_ERROR", message: `qty "${"1".repeat(100)}..." is beyond the int256 range at 18 decimals` },
    });
    // Reading the digits into a bigint took ~0.5 s; the digit count alone settles it (a few ms). Generous for a shared machine.
    expect(elapsedMs).toBeLessThan(150);
  });

  it("every long decimal gets the answer toE18 gives it", () => {
    const zeros = (n: number) => "0".repeat(n);
    const nines = (n: number) => "9".repeat(n);
    const texts: string[] = [];
    for (const intDigits of [1, 57, 58, 59, 76, 77, 78, 79, 80, 150]) {
      for (const leading of [0, 200]) {
        for (const fraction of ["", ".5", `.${zeros(150)}`, `.${zeros(150)}1`, `.${nines(18)}`, `.${nines(19)}`, `.1${zeros(200)}`]) {
          for (const exponent of ["", "e0", "e-18", "e-19", "e-60", "e-200", "e5", "e+0000000000000000002", "e-0000000000000000002", "e1234567", "e-1234567"]) {
            texts.push(`${zeros(leading)}${nines(intDigits)}${fraction}${exponent}`);
            texts.push(`${zeros(leading)}1${zeros(intDigits - 1)}${fraction}${exponent}`);
          }
        }
      }
    }
    texts.push(zeros(500), `${zeros(300)}.${zeros(300)}`, `${zeros(300)}e99999`, `-${nines(200)}`, `1${zeros(200)}x`, `${nines(200)}.`);
    let long = 0;
    for (const text of texts) {
      if (text.length > 100) long++;
      expect(verdict(text), text.slice(0, 60)).toEqual(reference(text, "qty"));
    }
    expect(long).toBeGreaterThan(1_000);
  });
});
