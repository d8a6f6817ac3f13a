/**
 * VALIDATION_ERROR_CODES is documentation as data: each function's list must
 * be exactly the codes it produces. Every listed code is produced here by one
 * input, and the fuzz tests check that nothing outside the lists appears.
 */
import { describe, expect, it } from "vitest";
import * as validate from "../../../src/exchange/gateway/validate/index.ts";
import { REQUEST_ERROR_CODES, type RequestErrorCode } from "../../../src/spec/errors.ts";
import {
  accepted,
  cancelAll,
  cancelAllAfter,
  cancelOrder,
  context,
  createGtc,
  createStop,
  modifyStop,
  NOW_MICROS,
  NOW_S,
} from "./fixtures.ts";

type Name = keyof typeof validate.VALIDATION_ERROR_CODES;

const IOC = { operation: "createOrder", orderType: "LIMIT", timeInForce: "IOC" } as const;

/** One producing input per (function, code). */
const PRODUCERS: Record<Name, Partial<Record<RequestErrorCode, () => validate.Validation<unknown> | validate.Check>>> = {
  validateCreateOrder: {
    INPUT_VALIDATION_ERROR: () => validate.validateCreateOrder({ ...createGtc, qty: "0" }, context),
    NUMERIC_OVERFLOW_ERROR: () => validate.validateCreateOrder({ ...createGtc, clientOrderId: "18446744073709551616" }, context),
    SYMBOL_NOT_FOUND_ERROR: () => validate.validateCreateOrder({ ...createGtc, symbol: "FOO" }, context),
    TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR: () => validate.validateCreateOrder({ ...createStop, expiresAfter: NOW_S + 3600 }, context),
  },
  validateModifyOrder: {
    INPUT_VALIDATION_ERROR: () => validate.validateModifyOrder({ ...modifyStop, postOnly: true }, context),
    NUMERIC_OVERFLOW_ERROR: () => validate.validateModifyOrder({ ...modifyStop, orderId: "18446744073709551616" }, context),
    SYMBOL_NOT_FOUND_ERROR: () => validate.validateModifyOrder({ ...modifyStop, symbol: "FOO" }, context),
    TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR: () => validate.validateModifyOrder({ ...modifyStop, expiresAfter: NOW_S + 3600 }, context),
  },
  validateCancelOrder: {
    INPUT_VALIDATION_ERROR: () => validate.validateCancelOrder({ ...cancelOrder, accountId: "1" }, context),
    NUMERIC_OVERFLOW_ERROR: () => validate.validateCancelOrder({ ...cancelOrder, nonce: "18446744073709551616" }, context),
    SYMBOL_NOT_FOUND_ERROR: () => validate.validateCancelOrder({ ...cancelOrder, symbol: "FOO" }, context),
  },
  validateCancelAll: {
    INPUT_VALIDATION_ERROR: () => validate.validateCancelAll({ ...cancelAll, deadline: -1 }, context),
    NUMERIC_OVERFLOW_ERROR: () => validate.validateCancelAll({ ...cancelAll, deadline: 1e20 }, context),
    SYMBOL_NOT_FOUND_ERROR: () => validate.validateCancelAll({ ...cancelAll, symbol: "FOO" }, context),
  },
  validateCancelAllAfter: {
    INPUT_VALIDATION_ERROR: () => validate.validateCancelAllAfter({ ...cancelAllAfter, timeoutMs: 100 }, context),
    NUMERIC_OVERFLOW_ERROR: () => validate.validateCancelAllAfter({ ...cancelAllAfter, accountId: 2 ** 60 }, context),
  },
  checkDeadline: {
    ORDER_DEADLINE_PASSED_ERROR: () => validate.checkDeadline(IOC, NOW_S - 1, NOW_MICROS),
    ORDER_DEADLINE_TOO_HIGH_ERROR: () => validate.checkDeadline(IOC, NOW_S + 601, NOW_MICROS),
  },
  checkGrid: {
    PRICE_QTY_BOUNDS_ERROR: () => validate.checkGrid(accepted(validate.validateCreateOrder({ ...createGtc, qty: "0.0015" }, context))),
  },
};

describe("VALIDATION_ERROR_CODES", () => {
  const names = Object.keys(validate.VALIDATION_ERROR_CODES) as Name[];

  it("lists only RequestErrorCodes of the spec", () => {
    for (const name of names) {
      for (const code of validate.VALIDATION_ERROR_CODES[name]) expect(REQUEST_ERROR_CODES).toContain(code);
    }
  });

  it.each(names)("%s: every listed code is produced, and only listed codes have producers", (name) => {
    const producers = PRODUCERS[name];
    expect(Object.keys(producers).sort()).toEqual([...validate.VALIDATION_ERROR_CODES[name]].sort());
    for (const [code, produce] of Object.entries(producers)) {
      const result = produce();
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.error).toBe(code);
    }
  });
});

describe("the public API of the validate folder", () => {
  it("exports exactly these values", () => {
    expect(Object.keys(validate).sort()).toEqual([
      "VALIDATION_ERROR_CODES",
      "checkDeadline",
      "checkGrid",
      "isDeadlineCapped",
      "validateCancelAll",
      "validateCancelAllAfter",
      "validateCancelOrder",
      "validateCreateOrder",
      "validateModifyOrder",
      "validateRequest",
    ]);
  });
});
