/**
 * Which RequestErrorCodes each validation function can produce: the
 * documentation of this folder's part of the gateway, as data. The tests
 * check it both ways: every code a function returns is listed for it, and
 * every listed code is produced by some test input.
 */
import type { RequestErrorCode } from "../../../spec/errors.ts";

/** The structural codes every operation can produce (schema, numbers). */
const SCHEMA_CODES = ["INPUT_VALIDATION_ERROR", "NUMERIC_OVERFLOW_ERROR"] as const;

export const VALIDATION_ERROR_CODES = {
  validateCreateOrder: [...SCHEMA_CODES, "SYMBOL_NOT_FOUND_ERROR", "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR"],
  validateModifyOrder: [...SCHEMA_CODES, "SYMBOL_NOT_FOUND_ERROR", "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR"],
  validateCancelOrder: [...SCHEMA_CODES, "SYMBOL_NOT_FOUND_ERROR"],
  validateCancelAll: [...SCHEMA_CODES, "SYMBOL_NOT_FOUND_ERROR"],
  validateCancelAllAfter: [...SCHEMA_CODES],
  checkDeadline: ["ORDER_DEADLINE_PASSED_ERROR", "ORDER_DEADLINE_TOO_HIGH_ERROR"],
  checkGrid: ["PRICE_QTY_BOUNDS_ERROR"],
} as const satisfies Readonly<Record<string, readonly RequestErrorCode[]>>;

export type ValidationFunctionName = keyof typeof VALIDATION_ERROR_CODES;
