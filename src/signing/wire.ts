/**
 * The wire request fields that the message builders read, and the exact
 * conversion of wire integers to the widths they are signed with.
 *
 * The body types are structural and list only what is signed, so that a
 * createOrder body, a modifyOrder body (which adds orderId) and the types
 * the spec's zod schemas infer are all accepted. Optional members allow an
 * explicit `undefined` because zod's `.optional()` infers `T | undefined`.
 *
 * A value that cannot be signed throws DecimalInputError, the one input
 * error of src/core/decimal.ts: kind "format" maps to INPUT_VALIDATION_ERROR
 * and kind "overflow" to NUMERIC_OVERFLOW_ERROR (DESIGN.md, "Errors and bad
 * input").
 */
import { DecimalInputError } from "../core/decimal.ts";
import type { OrderType, TimeInForce } from "../spec/enums.ts";

/** A JSON integer as the wire parser hands it over (a parser may produce bigint for large values). */
export type WireInteger = number | bigint;

/** The signed fields of createOrder and modifyOrder (spec 4.2.1, 4.2.3). */
export interface OrderBody {
  accountId: WireInteger;
  exchangeId: WireInteger;
  isBuy: boolean;
  orderType: OrderType;
  timeInForce: TimeInForce;
  limitPx: string;
  qty?: string | undefined;
  triggerPx?: string | undefined;
  reduceOnly?: boolean | undefined;
  postOnly?: boolean | undefined;
  expiresAfter?: WireInteger | undefined;
  clientOrderId?: string | undefined;
  nonce: string;
  deadline: WireInteger;
  signerWallet: string;
}

/** The signed fields of cancelOrder (spec 4.2.4). */
export interface CancelBody {
  accountId: WireInteger;
  orderId?: string | undefined;
  clientOrderId?: string | undefined;
  nonce: string;
  deadline: WireInteger;
}

/** The signed fields of cancelAll (spec 4.2.5); `symbol` absent means every market of the account. */
export interface MassCancelBody {
  accountId: WireInteger;
  symbol?: string | undefined;
  nonce: string;
  deadline: WireInteger;
}

/** The signed fields of cancelAllAfter (spec 4.2.6). */
export interface CancelAllAfterBody {
  accountId: WireInteger;
  timeoutMs: WireInteger;
  nonce: string;
  deadline: WireInteger;
}

/** 2^bits - 1 for the unsigned widths that messages use, computed once. */
const UINT_MAX: ReadonlyMap<number, bigint> = new Map([64, 128, 256].map((bits) => [bits, (1n << BigInt(bits)) - 1n]));

function uintMax(bits: number): bigint {
  const max = UINT_MAX.get(bits);
  if (max === undefined) throw new RangeError(`no unsigned width of ${bits} bits is signed`);
  return max;
}

function overflow(field: string, value: string, bits: number): DecimalInputError {
  return new DecimalInputError("overflow", field, value, `${field} "${value}" is beyond the uint${bits} range`);
}

/** A JSON integer field as an unsigned integer of `bits` bits. */
export function wireUint(value: WireInteger, field: string, bits: number): bigint {
  let result: bigint;
  if (typeof value === "bigint") {
    result = value;
  } else if (typeof value === "number" && Number.isSafeInteger(value)) {
    result = BigInt(value);
  } else {
    // An unsafe number has already lost digits in the JSON parser: refusing it
    // is the only way not to sign a value the client did not send.
    throw new DecimalInputError("format", field, String(value), `${field} "${String(value)}" is not a safe integer`);
  }
  if (result < 0n) throw new DecimalInputError("format", field, result.toString(), `${field} "${result}" is negative`);
  if (result > uintMax(bits)) throw overflow(field, result.toString(), bits);
  return result;
}

const DIGITS = /^[0-9]+$/;

/** A decimal-digits string field (nonce, order id, client order id) as an unsigned integer of `bits` bits. */
export function wireUintString(value: string, field: string, bits: number): bigint {
  if (typeof value !== "string" || !DIGITS.test(value)) {
    throw new DecimalInputError("format", field, String(value), `${field} "${String(value)}" is not a decimal unsigned integer`);
  }
  // Bound the length before BigInt so that a huge string costs nothing; leading zeros do not count.
  const significant = value.replace(/^0+(?=.)/, "");
  if (significant.length > 78) throw overflow(field, value, bits);
  const result = BigInt(significant);
  if (result > uintMax(bits)) throw overflow(field, value, bits);
  return result;
}
