/**
 * Nothing a client sends can make validation throw: every body, however
 * malformed, gives a value or a RequestError whose code the function lists.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkDeadline,
  checkGrid,
  VALIDATION_ERROR_CODES,
  validateCancelAll,
  validateCancelAllAfter,
  validateCancelOrder,
  validateCreateOrder,
  validateModifyOrder,
  type Validation,
  type ValidationContext,
} from "../../../src/exchange/gateway/validate/index.ts";
import { RequestError } from "../../../src/spec/errors.ts";
import {
  cancelAll,
  cancelAllAfter,
  cancelOrder,
  context,
  createGtc,
  createGtt,
  createIoc,
  createSpot,
  createStop,
  modifyLimit,
  modifyStop,
  NOW_MICROS,
} from "./fixtures.ts";

type Validator = (body: unknown, context: ValidationContext) => Validation<unknown>;

const VALIDATORS: [keyof typeof VALIDATION_ERROR_CODES, Validator, object[]][] = [
  ["validateCreateOrder", validateCreateOrder, [createGtc, createIoc, createGtt, createStop, createSpot]],
  ["validateModifyOrder", validateModifyOrder, [modifyLimit, modifyStop]],
  ["validateCancelOrder", validateCancelOrder, [cancelOrder]],
  ["validateCancelAll", validateCancelAll, [cancelAll]],
  ["validateCancelAllAfter", validateCancelAllAfter, [cancelAllAfter]],
];

/** Asserts the shape of any outcome: a value, or a listed, well-formed RequestError. */
function expectWellFormed(name: keyof typeof VALIDATION_ERROR_CODES, result: Validation<unknown>): void {
  if (result.ok) {
    expect(result.value).toBeDefined();
    return;
  }
  expect(RequestError.safeParse(result.error).success).toBe(true);
  expect(VALIDATION_ERROR_CODES[name] as readonly string[]).toContain(result.error.error);
  expect(result.error.message.length).toBeGreaterThan(0);
  expect(result.error.message).not.toMatch(/\.$/);
}

/** Decimal-looking strings, including huge, over-precise and exponent forms. */
const decimalText = fc.oneof(
  fc.stringMatching(/^\d{1,80}(\.\d{1,25})?([eE][+-]?\d{1,4})?$/),
  fc.constantFrom("0", "0.0", "1e-18", "1e-19", "5e58", "6e58", "1e1000000", "0e99999999", "00001.000"),
);

/** A field value: any JSON value, a decimal-looking string, or a boundary integer. */
const fieldValue = fc.oneof(
  fc.jsonValue(),
  decimalText,
  fc.constantFrom(0, -0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e400, -1e400, "18446744073709551616", "0", undefined),
);

const FIELDS = [
  "exchangeId",
  "symbol",
  "accountId",
  "isBuy",
  "limitPx",
  "qty",
  "orderType",
  "timeInForce",
  "triggerPx",
  "reduceOnly",
  "postOnly",
  "signature",
  "nonce",
  "signerWallet",
  "deadline",
  "expiresAfter",
  "clientOrderId",
  "orderId",
  "timeoutMs",
  "__proto__",
  "constructor",
];

/** Up to four edits of a valid body: set a field to an arbitrary value, or delete it. */
const edits = fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(fieldValue, { nil: null })), { maxLength: 4 });

function applyEdits(body: object, changes: [string, unknown][]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...body };
  for (const [key, value] of changes) {
    if (value === null) delete copy[key];
    else Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return copy;
}

describe.each(VALIDATORS)("%s never throws", (name, validate, bodies) => {
  it("on arbitrary JSON values as bodies (fc.jsonValue)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => expectWellFormed(name, validate(body, context))),
      { seed: 42, numRuns: 400 },
    );
  });

  it("on arbitrary JavaScript values as bodies (fc.anything)", () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withNullPrototype: true, withSparseArray: true }), (body) =>
        expectWellFormed(name, validate(body, context)),
      ),
      { seed: 42, numRuns: 400 },
    );
  });

  it("on valid bodies with arbitrary edits, and its accepted values pass the later stages without throwing", () => {
    fc.assert(
      fc.property(fc.constantFrom(...bodies), edits, (body, changes) => {
        const result = validate(applyEdits(body, changes), context);
        expectWellFormed(name, result);
        if (!result.ok) return;
        const value = result.value as Parameters<typeof checkDeadline>[0] & { deadline: number };
        const deadline = checkDeadline(value, value.deadline, NOW_MICROS);
        if (!deadline.ok) expect(VALIDATION_ERROR_CODES.checkDeadline as readonly string[]).toContain(deadline.error.error);
        if (value.operation === "createOrder" || value.operation === "modifyOrder") {
          const grid = checkGrid(result.value as Parameters<typeof checkGrid>[0]);
          if (!grid.ok) expect(VALIDATION_ERROR_CODES.checkGrid as readonly string[]).toContain(grid.error.error);
        }
      }),
      { seed: 42, numRuns: 1500 },
    );
  });
});
