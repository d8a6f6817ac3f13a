/**
 * Checks of action parameters, before anything is signed or sent. Each
 * failure is an InvalidParameterError naming the wire field.
 *
 * What the SDK checks: what spec 4.2 fixes from the request alone (which
 * fields apply to which order, required fields, formats, a non-zero
 * clientOrderId, timeoutMs's range, expiresAfter > deadline). What it leaves
 * to the service: everything that needs the service's state or clock (tick
 * and lot grids, minimum quantity, price bands, balances, the deadline
 * horizon), so that the service stays the one authority on them.
 */
import { DecimalInputError, INT256_MAX, toE18 } from "../../core/decimal.ts";
import { wireUintString } from "../../signing/wire.ts";
import { InvalidParameterError } from "../errors.ts";

/**
 * An UnsignedDecimal parameter, checked as signing will read it (at most 18
 * fraction digits, within uint256; within int256 with `int256`, for a
 * quantity, which the order message signs with its side's sign).
 */
export function checkDecimal(field: string, value: unknown, options: { nonZero?: boolean; int256?: boolean } = {}): string {
  if (typeof value !== "string") throw new InvalidParameterError(field, `${field} must be a decimal string, got ${typeof value}`);
  let scaled: bigint;
  try {
    scaled = toE18(value, field, { signed: false });
  } catch (cause) {
    if (cause instanceof DecimalInputError) throw new InvalidParameterError(field, cause.message, { cause });
    throw cause;
  }
  if (options.nonZero === true && scaled === 0n) throw new InvalidParameterError(field, `${field} "${value}" must be non-zero`);
  if (options.int256 === true && scaled > INT256_MAX) {
    throw new InvalidParameterError(field, `${field} "${value}" is beyond int256 once scaled by 10^18 (the order message signs it as a signed quantity)`);
  }
  return value;
}

/** A JSON integer parameter (Unix seconds, ms, ids): a non-negative safe integer. */
export function checkInteger(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidParameterError(field, `${field} "${String(value)}" must be a non-negative safe integer`);
  }
  return value;
}

export function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw new InvalidParameterError(field, `${field} must be a boolean, got ${typeof value}`);
  return value;
}

/**
 * An id parameter (orderId, clientOrderId): a decimal uint64 string.
 * Returns its canonical decimal text (leading zeros dropped), or undefined
 * for zero, which the wire reads as "no id" (an absent clientOrderId signs
 * as 0). Canonical because the service issues and echoes ids that way and
 * orderId is opaque (spec 9): "0007" would sign 7 but name no order "7",
 * nor match the "7" that responses and streams carry.
 */
export function checkId(field: string, value: unknown): string | undefined {
  if (typeof value !== "string") throw new InvalidParameterError(field, `${field} must be a decimal string, got ${typeof value}`);
  let id: bigint;
  try {
    id = wireUintString(value, field, 64);
  } catch (cause) {
    if (cause instanceof DecimalInputError) throw new InvalidParameterError(field, cause.message, { cause });
    throw cause;
  }
  return id === 0n ? undefined : id.toString();
}

/** Throws unless `value` is absent (undefined). */
export function checkAbsent(field: string, value: unknown, rule: string): void {
  if (value !== undefined) throw new InvalidParameterError(field, `${field} must be omitted ${rule}`);
}

/**
 * A boolean the wire does not carry here: absent or false is accepted (and
 * omitted), true is refused.
 */
export function checkNotTrue(field: string, value: unknown, rule: string): void {
  if (value === undefined || value === false) return;
  if (value === true) throw new InvalidParameterError(field, `${field} is not supported ${rule}`);
  checkBoolean(field, value);
}

export function checkOneOf<const T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidParameterError(field, `${field} "${String(value)}" must be one of ${allowed.join(", ")}`);
}
