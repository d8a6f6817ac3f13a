/**
 * Field-level validation shared by the five operations: the zod schema check
 * and the translation of its first issue into a RequestError, exact decimal
 * parsing, id and nonce canonicalization, exchangeId and symbol resolution.
 *
 * Which code a bad number gets (DESIGN.md, "Errors and bad input"):
 *  - malformed, wrong type, negative, fractional where an integer is
 *    expected, or more than 18 fraction digits: INPUT_VALIDATION_ERROR;
 *  - a decimal id beyond uint64 (orderId, clientOrderId), a nonce beyond
 *    uint256 (beyond uint64 on the cancel family, which signs it as uint64),
 *    a decimal beyond int256 once scaled by 10^18: NUMERIC_OVERFLOW_ERROR;
 *  - an integer sent as a JSON number beyond Number.MAX_SAFE_INTEGER
 *    (accountId, exchangeId, deadline, expiresAfter, timeoutMs), +Infinity
 *    included (what `JSON.parse` makes of 1e400): NUMERIC_OVERFLOW_ERROR. The
 *    JSON parser has already lost digits of such a number, so it cannot be
 *    taken as sent; it is beyond the range that the wire integers can carry
 *    exactly, the JSON counterpart of "beyond uint64".
 *
 * Input that would cost more than its size (audit s21 D3) is answered
 * before the costly step, with the answer it would have had or one that
 * names the field and the rule:
 *  - a body with more than REQUEST_BODY_MEMBERS_MAX members is refused
 *    before the schema (INPUT_VALIDATION_ERROR naming its first member that
 *    is not a field): zod's check of a body with 90,000 unknown members took
 *    ~0.2-0.3 s;
 *  - a decimal whose digits could only give a value beyond int256 is
 *    NUMERIC_OVERFLOW_ERROR before its digits are read into a bigint (1 MB
 *    of digits took ~0.15-0.2 s); the same answer as reading them.
 */
import type { z } from "zod";
import { DecimalInputError, E18_FRACTION_DIGITS, INT256_MAX, toE18 } from "../../../core/decimal.ts";
import { ORDER_TYPES, TIME_IN_FORCES } from "../../../spec/enums.ts";
import type { RequestError } from "../../../spec/errors.ts";
import {
  isDecimalDigits,
  decimalDigitsAtMost,
  NUMERIC_OVERFLOW_REASON,
  UINT256_MAX_DECIMAL,
  UINT64_MAX_DECIMAL,
  UNSIGNED_DECIMAL_PATTERN,
} from "../../../spec/scalars.ts";
import { describeType, fail, invalid, quote, requestError } from "./errors.ts";
import { parsePlainBody } from "./plain-body.ts";
import type { DecimalField, MarketRef, OrderLookup, Validation, ValidationContext } from "./types.ts";

type FieldKind =
  | "integer"
  | "decimal"
  | "uint64String"
  | "uint256String"
  | "boolean"
  | "string"
  | "orderType"
  | "timeInForce"
  | "signature"
  | "address";

/** The kind of every field of the five request schemas (spec 4.2), which selects its messages and codes. */
const FIELD_KINDS: ReadonlyMap<string, FieldKind> = new Map<string, FieldKind>([
  ["exchangeId", "integer"],
  ["accountId", "integer"],
  ["deadline", "integer"],
  ["expiresAfter", "integer"],
  ["timeoutMs", "integer"],
  ["limitPx", "decimal"],
  ["qty", "decimal"],
  ["triggerPx", "decimal"],
  ["orderId", "uint64String"],
  ["clientOrderId", "uint64String"],
  ["nonce", "uint256String"],
  ["isBuy", "boolean"],
  ["reduceOnly", "boolean"],
  ["postOnly", "boolean"],
  ["symbol", "string"],
  ["orderType", "orderType"],
  ["timeInForce", "timeInForce"],
  ["signature", "signature"],
  ["signerWallet", "address"],
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The most members a request body may have: the operation's fields (16 at
 * most) and additional properties, which every object may carry (spec 1).
 * Ours: the specification shows no limit; a body far beyond any request's
 * shape is refused before its members are checked one by one.
 */
export const REQUEST_BODY_MEMBERS_MAX = 64;

/**
 * Parses `body` with `schema`. On failure, the first issue (zod reports them
 * in the schema's field order) becomes the RequestError. A body with more
 * than REQUEST_BODY_MEMBERS_MAX members is refused first.
 */
export function parseSchema<T>(schema: z.ZodType<T>, body: unknown): Validation<T> {
  const sent = isRecord(body) ? Object.keys(body) : undefined;
  if (sent !== undefined && sent.length > REQUEST_BODY_MEMBERS_MAX) return { ok: false, error: tooManyMembers(schema, sent) };
  const plain = parsePlainBody(schema, body, sent);
  if (plain !== undefined) return { ok: true, value: plain };
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  if (issue === undefined) return invalid("request body is not valid");
  return { ok: false, error: issueError(issue, body) };
}

const schemaFields = new WeakMap<object, ReadonlySet<string>>();

/** The refusal of a body with more than REQUEST_BODY_MEMBERS_MAX members (`sent`, its keys), naming its first member that is not a field. */
function tooManyMembers(schema: z.ZodType, sent: readonly string[]): RequestError {
  let fields = schemaFields.get(schema);
  if (fields === undefined) {
    const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
    fields = new Set(shape === undefined ? [] : Object.keys(shape));
    schemaFields.set(schema, fields);
  }
  // There is one: no request has REQUEST_BODY_MEMBERS_MAX fields.
  const unknown = sent.find((key) => !fields.has(key)) ?? sent[0]!;
  return requestError(
    "INPUT_VALIDATION_ERROR",
    `${quote(unknown)} is not a field of this request, and a request body may have at most ${REQUEST_BODY_MEMBERS_MAX} members (it has ${sent.length})`,
  );
}

function issueError(issue: z.core.$ZodIssue, body: unknown): RequestError {
  if (!isRecord(body) || issue.path.length === 0) {
    return requestError("INPUT_VALIDATION_ERROR", `request body must be a JSON object, got ${describeType(body)}`);
  }
  const field = String(issue.path[0]);
  if (!Object.hasOwn(body, field)) return requestError("INPUT_VALIDATION_ERROR", `${field} is required`);
  const value = body[field];
  if (issue.code === "custom" && issue.params?.["reason"] === NUMERIC_OVERFLOW_REASON) {
    const bits = FIELD_KINDS.get(field) === "uint256String" ? 256 : 64;
    return rangeOverflow(field, String(value), bits);
  }
  const kind = FIELD_KINDS.get(field);
  const error = kind === undefined ? undefined : fieldError(field, kind, value);
  return error ?? requestError("INPUT_VALIDATION_ERROR", `${field} is not valid: ${issue.message}`);
}

function rangeOverflow(field: string, text: string, bits: 64 | 256): RequestError {
  const max = bits === 64 ? UINT64_MAX_DECIMAL : UINT256_MAX_DECIMAL;
  return requestError("NUMERIC_OVERFLOW_ERROR", `${field} ${quote(text)} is beyond the uint${bits} range (at most ${max})`);
}

/** The error for a value of `kind` that the schema refused; undefined when this module cannot tell why. */
function fieldError(field: string, kind: FieldKind, value: unknown): RequestError | undefined {
  const wrongType = (expected: string) =>
    requestError("INPUT_VALIDATION_ERROR", `${field} must be ${expected}, got ${describeType(value)}`);
  const badText = (rule: string) => requestError("INPUT_VALIDATION_ERROR", `${field} ${quote(String(value))} ${rule}`);
  switch (kind) {
    case "integer":
      return integerError(field, value);
    case "decimal":
      if (typeof value !== "string") return wrongType("a decimal string");
      return badText("is not an unsigned decimal (digits, optional fraction, optional exponent)");
    case "uint64String":
    case "uint256String":
      if (typeof value !== "string") return wrongType("a decimal integer string");
      return badText("is not a decimal integer string (digits only)");
    case "boolean":
      return wrongType("a boolean");
    case "string":
      return wrongType("a string");
    case "orderType":
      if (typeof value !== "string") return wrongType(`one of ${ORDER_TYPES.join(", ")}`);
      return badText(`is not one of ${ORDER_TYPES.join(", ")}`);
    case "timeInForce":
      if (typeof value !== "string") return wrongType(`one of ${TIME_IN_FORCES.join(", ")}`);
      return badText(`is not one of ${TIME_IN_FORCES.join(", ")}`);
    case "signature":
      if (typeof value !== "string") return wrongType("a hex string");
      return badText("is not 0x followed by 130 hex digits (65 bytes)");
    case "address":
      if (typeof value !== "string") return wrongType("an address string");
      return badText("is not an address (0x followed by 40 hex digits)");
  }
}

/** A JSON integer field (UnsignedInteger): a safe, non-negative integer number. */
function integerError(field: string, value: unknown): RequestError | undefined {
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) return safeIntegerOverflow(field, value);
    return requestError("INPUT_VALIDATION_ERROR", `${field} must be an integer number, got a bigint`);
  }
  if (typeof value !== "number") {
    return requestError("INPUT_VALIDATION_ERROR", `${field} must be an integer, got ${describeType(value)}`);
  }
  if (Number.isNaN(value)) return requestError("INPUT_VALIDATION_ERROR", `${field} must be an integer, got NaN`);
  if (value > Number.MAX_SAFE_INTEGER) return safeIntegerOverflow(field, value);
  if (value < 0) return requestError("INPUT_VALIDATION_ERROR", `${field} ${quote(value)} must not be negative`);
  if (!Number.isInteger(value)) return requestError("INPUT_VALIDATION_ERROR", `${field} ${quote(value)} must be an integer`);
  return undefined;
}

function safeIntegerOverflow(field: string, value: number | bigint): RequestError {
  return requestError(
    "NUMERIC_OVERFLOW_ERROR",
    `${field} ${quote(value)} is beyond the safe integer range of a JSON number (at most ${Number.MAX_SAFE_INTEGER})`,
  );
}

/** A schema-accepted integer, with -0 (valid JSON) read as 0. */
export function wireInteger(value: number): number {
  return value === 0 ? 0 : value;
}

/**
 * Parses a schema-accepted UnsignedDecimal exactly. More than 18 fraction
 * digits is INPUT_VALIDATION_ERROR; a value beyond int256 once scaled by
 * 10^18 is NUMERIC_OVERFLOW_ERROR. Every decimal is bounded by int256, the
 * signed quantity's width: the same bound for prices (signed as uint256)
 * keeps one rule for every decimal of a request.
 */
export function parseDecimal(text: string, field: string): Validation<DecimalField> {
  if (text.length > LONG_DECIMAL_CHARS && digitsBeyondInt256(text)) return decimalOverflow(field, text);
  let e18: bigint;
  try {
    e18 = toE18(text, field, { signed: true });
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
    if (error.kind === "overflow") return decimalOverflow(field, text);
    if (UNSIGNED_DECIMAL_PATTERN.test(text)) {
      return invalid(`${field} ${quote(text)} has more than ${E18_FRACTION_DIGITS} fraction digits`);
    }
    return invalid(`${field} ${quote(text)} is not an unsigned decimal (digits, optional fraction, optional exponent)`);
  }
  return { ok: true, value: { text, e18 } };
}

function decimalOverflow(field: string, text: string): { readonly ok: false; readonly error: RequestError } {
  return fail("NUMERIC_OVERFLOW_ERROR", `${field} ${quote(text)} is beyond the int256 range at ${E18_FRACTION_DIGITS} decimals`);
}

/** Decimal texts up to this length are read as they are (no more than ~100 digits go into a bigint). */
const LONG_DECIMAL_CHARS = 100;
/** Digits of INT256_MAX (and of -INT256_MIN): a scaled value with more is beyond int256. */
const INT256_DIGITS = INT256_MAX.toString().length;
/** toE18's grammar: sign, integer digits, fraction digits, exponent. */
const DECIMAL_PARTS = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether toE18 would read more than INT256_DIGITS digits into a bigint
 * (a cost that grows faster than the text: ~0.15-0.2 s for 1 MB) and then
 * find the value beyond int256, which follows from the digit count alone:
 * the digits read start with a non-zero one, so they are at least
 * 10^INT256_DIGITS > INT256_MAX. It mirrors toE18's steps (core/decimal.ts
 * parseScaled) to that point, in linear time: leading zeros dropped; the
 * shift to 18 decimals from the fraction and exponent; for a negative shift,
 * the dropped digits must be zeros (else toE18 refuses the precision first,
 * cheaply) and the kept ones are what is read. Every other case (malformed,
 * zero, a huge exponent, a value within range) is false and left to toE18,
 * which then reads few digits.
 */
function digitsBeyondInt256(text: string): boolean {
  const match = DECIMAL_PARTS.exec(text);
  if (match === null) return false;
  const fraction = match[3] ?? "";
  const exponent = match[4] ?? "0";
  if (exponent.replace(/^[+-]?0*/, "").length > 6) return false;
  const digits = (match[2]! + fraction).replace(/^0+/, "");
  if (digits === "") return false;
  const shift = Number(exponent) - fraction.length + E18_FRACTION_DIGITS;
  if (shift >= 0) return digits.length > INT256_DIGITS;
  const kept = digits.length + shift;
  return kept > INT256_DIGITS && !/[^0]/.test(digits.slice(kept));
}

/** Parses the optional decimal `field` of `source` when present. */
export function parseOptionalDecimal(text: string | undefined, field: string): Validation<DecimalField | undefined> {
  if (text === undefined) return { ok: true, value: undefined };
  return parseDecimal(text, field);
}

/** The canonical text of a schema-accepted decimal integer string: no leading zeros. */
export function canonicalUint(text: string): string {
  return BigInt(text).toString();
}

/** True when a schema-accepted decimal integer string is zero ("0", "000"). */
export function isZeroUint(text: string): boolean {
  return /^0+$/.test(text);
}

/**
 * The cancel family (cancelOrder, cancelAll, cancelAllAfter) signs its nonce
 * as uint64 (reference/signing.md), so a nonce beyond uint64 cannot be signed
 * there: NUMERIC_OVERFLOW_ERROR, before the signature check.
 */
export function checkUint64Nonce(text: string): Validation<bigint> {
  if (!isDecimalDigits(text) || !decimalDigitsAtMost(text, UINT64_MAX_DECIMAL)) {
    return {
      ok: false,
      error: requestError(
        "NUMERIC_OVERFLOW_ERROR",
        `nonce ${quote(text)} is beyond the uint64 range of a cancel-family signature (at most ${UINT64_MAX_DECIMAL})`,
      ),
    };
  }
  return { ok: true, value: BigInt(text) };
}

/** exchangeId must name this exchange (spec 4.2.3: a mismatch is INPUT_VALIDATION_ERROR). */
export function checkExchangeId(exchangeId: number, context: ValidationContext): RequestError | undefined {
  if (exchangeId === context.exchangeId) return undefined;
  return requestError(
    "INPUT_VALIDATION_ERROR",
    `exchangeId ${quote(exchangeId)} does not match this exchange's id ${quote(context.exchangeId)}`,
  );
}

/** Resolves `symbol` to its market (spec 7.3: SYMBOL_NOT_FOUND_ERROR when it does not resolve). */
export function resolveSymbol(symbol: string, context: ValidationContext): Validation<MarketRef> {
  const market = context.markets.bySymbol(symbol);
  if (market === undefined) return fail("SYMBOL_NOT_FOUND_ERROR", `symbol ${quote(symbol)} does not resolve to a market`);
  return { ok: true, value: market };
}

/**
 * The key that finds the order of a modifyOrder or cancelOrder: orderId when
 * present, else a non-zero clientOrderId (spec 4.2.3, 4.2.4).
 */
export function orderLookup(orderId: string | undefined, clientOrderId: string | undefined): Validation<OrderLookup> {
  if (orderId !== undefined) return { ok: true, value: { by: "orderId", orderId: canonicalUint(orderId) } };
  if (clientOrderId === undefined) {
    return { ok: false, error: requestError("INPUT_VALIDATION_ERROR", "orderId or a non-zero clientOrderId is required") };
  }
  if (isZeroUint(clientOrderId)) {
    return {
      ok: false,
      error: requestError("INPUT_VALIDATION_ERROR", `clientOrderId ${quote(clientOrderId)} must be non-zero when orderId is absent`),
    };
  }
  return { ok: true, value: { by: "clientOrderId", clientOrderId: canonicalUint(clientOrderId) } };
}
