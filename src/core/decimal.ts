/**
 * Exact decimals for the wire and for money.
 *
 * One configured decimal.js clone (`Dec`) is used everywhere a decimal is not
 * an integer count of ticks or lots. Its precision (100 significant digits)
 * holds any value the wire can carry exactly: int256 / 10^18 has 77 integer
 * and 18 fraction digits. Rounding, where a computation must round (fees,
 * funding), is half-even, and callers round explicitly with `roundTo`.
 *
 * Number inputs fail in three classes (DESIGN.md, "Errors and bad input"):
 *  - `format`: not the specification's pattern, or more than 18 fraction
 *    digits (the 10^18 fixed point of signing cannot hold it);
 *  - `overflow`: beyond int256 (signed) or uint256 (unsigned) once scaled by
 *    10^18, the widths the order is signed with;
 *  - `grid`: not a whole number of ticks or lots (see `toUnits`).
 */
import { Decimal } from "decimal.js";

export const Dec = Decimal.clone({
  precision: 100,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -1000,
  toExpPos: 1000,
});
export type Dec = Decimal;

/** Fraction digits of the 10^18 fixed point used by signing and the chain. */
export const E18_FRACTION_DIGITS = 18;
export const E18 = 10n ** 18n;
export const INT256_MAX = 2n ** 255n - 1n;
export const INT256_MIN = -(2n ** 255n);
export const UINT256_MAX = 2n ** 256n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

export type DecimalErrorKind = "format" | "overflow" | "grid";

/** A decimal input that cannot be accepted; `kind` selects the RequestErrorCode. */
export class DecimalInputError extends Error {
  override readonly name = "DecimalInputError";
  constructor(
    readonly kind: DecimalErrorKind,
    readonly field: string,
    readonly value: string,
    message: string,
  ) {
    super(message);
  }
}

const DECIMAL_PATTERN = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses a wire decimal into an exact bigint scaled by 10^18.
 *
 * This is the one parser: `parseSigned`, `parseUnsigned` and `toE18` are views
 * of it, so a value is accepted or refused the same way everywhere. Exponents
 * are applied to the digit string, never through floating point, and a huge
 * exponent is refused before any big allocation.
 */
function parseScaled(value: string, field: string, signed: boolean): bigint {
  const plain = typeof value === "string" ? parsePlainScaled(value) : undefined;
  if (plain !== undefined) return plain;
  if (typeof value !== "string") {
    throw new DecimalInputError("format", field, String(value), `${field} must be a decimal string, got ${typeof value}`);
  }
  const match = DECIMAL_PATTERN.exec(value);
  if (match === null || (match[1] === "-" && !signed)) {
    const rule = signed ? "a signed decimal" : "an unsigned decimal";
    throw new DecimalInputError("format", field, value, `${field} "${value}" is not ${rule} (digits, optional fraction, optional exponent)`);
  }
  const negative = match[1] === "-";
  const intDigits = match[2]!;
  const fracDigits = match[3] ?? "";
  const exponentText = match[4] ?? "0";
  const digits = (intDigits + fracDigits).replace(/^0+/, "");
  if (digits === "") return 0n; // any zero, "-0" and "0e999" included
  // Value = digits x 10^(exponent - fracDigits.length). Bound the exponent
  // before doing arithmetic with it: beyond these bounds the verdict is clear.
  const exponentAbsMax = 10_000;
  if (exponentText.replace(/^[+-]?0*/, "").length > 6) {
    const isPositive = !exponentText.startsWith("-");
    throw isPositive ? overflow(field, value, signed) : tooPrecise(field, value);
  }
  const shift = Number(exponentText) - fracDigits.length + E18_FRACTION_DIGITS;
  if (shift > exponentAbsMax) throw overflow(field, value, signed);
  let scaled: bigint;
  if (shift >= 0) {
    scaled = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    const dropped = -shift;
    const kept = digits.length - dropped;
    const tail = kept > 0 ? digits.slice(kept) : digits;
    if (/[^0]/.test(tail)) throw tooPrecise(field, value);
    scaled = kept > 0 ? BigInt(digits.slice(0, kept)) : 0n;
  }
  if (negative) scaled = -scaled;
  const inRange = signed ? scaled >= INT256_MIN && scaled <= INT256_MAX : scaled <= UINT256_MAX;
  if (!inRange) throw overflow(field, value, signed);
  return scaled;
}

const FRACTION_PADDING = "0".repeat(E18_FRACTION_DIGITS);

/** 10^(18 - f) for a fraction of f digits: what scales its digits, read as an integer, to the 10^18 fixed point. */
const FRACTION_SCALES: readonly bigint[] = Array.from({ length: E18_FRACTION_DIGITS + 1 }, (_, f) => 10n ** BigInt(E18_FRACTION_DIGITS - f));

/** Digits that a double holds exactly as an integer (10^15 < 2^53). */
const EXACT_DIGITS_MAX = 15;

/**
 * The common case of parseScaled, without a regular expression or a power
 * of ten: plain digits with an optional fraction of at most 18 digits
 * ("3150.25", "0.001", "42"), short enough (57 integer digits at most) to be
 * far inside int256. Anything else (a sign, an exponent, a longer fraction,
 * a malformed text) is undefined here and goes to the full parser, which
 * gives the same value or the refusal.
 *
 * Up to 15 digits (prices and quantities are), the digits are read as one
 * exact integer and scaled by one bigint product: half the instructions of
 * building the scaled digit string and parsing it, and two allocations
 * instead of five.
 */
function parsePlainScaled(value: string): bigint | undefined {
  const length = value.length;
  if (length === 0 || length > 58) return undefined;
  let point = -1;
  let digits = 0;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code === 46) {
      if (point !== -1) return undefined;
      point = i;
    } else if (code < 48 || code > 57) {
      return undefined;
    } else {
      digits = digits * 10 + (code - 48); // exact while at most EXACT_DIGITS_MAX digits; unused beyond
    }
  }
  if (point === -1) return length <= EXACT_DIGITS_MAX ? BigInt(digits) * E18 : BigInt(value) * E18;
  const fractionLength = length - point - 1;
  if (point === 0 || fractionLength === 0 || fractionLength > E18_FRACTION_DIGITS) return undefined;
  if (length - 1 <= EXACT_DIGITS_MAX) return BigInt(digits) * FRACTION_SCALES[fractionLength]!;
  return BigInt(value.slice(0, point) + value.slice(point + 1) + FRACTION_PADDING.slice(fractionLength));
}

function overflow(field: string, value: string, signed: boolean): DecimalInputError {
  const range = signed ? "int256" : "uint256";
  return new DecimalInputError("overflow", field, value, `${field} "${value}" is beyond the ${range} range at 18 decimals`);
}

function tooPrecise(field: string, value: string): DecimalInputError {
  return new DecimalInputError("format", field, value, `${field} "${value}" has more than ${E18_FRACTION_DIGITS} fraction digits`);
}

/** Parses the specification's UnsignedDecimal (exponent forms included). */
export function parseUnsigned(value: string, field: string): Dec {
  return fromE18(parseScaled(value, field, false));
}

/** Parses the specification's SignedDecimal (exponent forms included); "-0" is 0. */
export function parseSigned(value: string, field: string): Dec {
  return fromE18(parseScaled(value, field, true));
}

/** The exact 10^18 fixed point of a wire decimal, as signing encodes it. */
export function toE18(value: string, field: string, options: { signed?: boolean } = {}): bigint {
  return parseScaled(value, field, options.signed ?? true);
}

/** The decimal that a 10^18 fixed-point integer stands for. */
export function fromE18(scaled: bigint): Dec {
  return new Dec(scaled.toString()).div(new Dec(E18.toString()));
}

/** Canonical wire text of a 10^18 fixed-point integer, without going through Dec. */
export function formatE18(scaled: bigint): string {
  return formatScaled(scaled, E18_FRACTION_DIGITS);
}

/** Canonical text of an integer scaled by 10^-digits (exact; no exponent, no trailing zeros). */
export function formatScaled(value: bigint, digits: number): string {
  const negative = value < 0n;
  return formatDigits(negative, (negative ? -value : value).toString(), digits);
}

/** Zeros to pad short digit strings with (formatDigits), sliced rather than built. */
export const ZEROS = "0".repeat(64);

/**
 * Canonical text of the magnitude `text` (the decimal digits of a
 * non-negative integer, as bigint's or a safe integer's toString writes
 * them) scaled by 10^-digits: the point placed by string slicing, trailing
 * zeros dropped, no division.
 */
export function formatDigits(negative: boolean, text: string, digits: number): string {
  if (digits > 0) {
    const length = text.length;
    let point = length - digits;
    let whole: string;
    if (point > 0) {
      whole = text.slice(0, point);
    } else {
      whole = "0";
      text = (-point <= ZEROS.length ? ZEROS.slice(0, -point) : "0".repeat(-point)) + text;
      point = 0;
    }
    let end = text.length;
    while (end > point && text.charCodeAt(end - 1) === 48) end--;
    text = end === point ? whole : `${whole}.${text.slice(point, end)}`;
  }
  return negative && text !== "0" ? `-${text}` : text;
}

/**
 * A positive step (a tickSize, a qtyStepSize) as `mantissa` x 10^-`decimals`
 * with a safe-integer mantissa ("0.01" is 1 x 10^-2, "0.5" is 5 x 10^-1,
 * "25" is 25 x 10^0), so that a count of steps is formatted in integers
 * (formatSteps); null for a step whose mantissa is not a safe integer.
 */
export interface StepScale {
  readonly mantissa: number;
  readonly decimals: number;
}

export function stepScale(step: Dec): StepScale | null {
  if (!step.isPositive() || step.isZero()) return null;
  const decimals = step.decimalPlaces();
  const mantissa = step.mul(new Dec(10).pow(decimals)).toNumber();
  return Number.isSafeInteger(mantissa) ? { mantissa, decimals } : null;
}

/**
 * Canonical text of `units` x `step`, exact: formatDecimal(fromUnits(units,
 * step)), but in integers when units x mantissa is a safe integer (nearly
 * always: a book's prices and quantities), which is several times quicker
 * than decimal.js's product and toFixed. A product that leaves the safe
 * range (then it is at least 2^53 as a double too, so the test cannot pass
 * on a rounded value) goes through decimal.js.
 */
export function formatSteps(units: number, step: Dec, scale: StepScale | null): string {
  if (scale !== null && Number.isSafeInteger(units)) {
    const product = units * scale.mantissa;
    if (Number.isSafeInteger(product)) {
      const negative = product < 0;
      return formatDigits(negative, String(negative ? -product : product), scale.decimals);
    }
  }
  return formatDecimal(fromUnits(units, step));
}

/**
 * Canonical wire text: no exponent, no trailing zeros, "0" for any zero
 * (negative zero included).
 */
export function formatDecimal(value: Dec | bigint | number): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`formatDecimal takes safe integers only, got ${value}`);
    return value === 0 ? "0" : String(value);
  }
  if (value.isZero()) return "0";
  return value.toFixed();
}

/** Rounds to `fractionDigits` places, half-even: the one money rounding policy. */
export function roundTo(value: Dec, fractionDigits: number): Dec {
  return value.toDecimalPlaces(fractionDigits, Dec.ROUND_HALF_EVEN);
}

/**
 * Converts a decimal to a whole number of steps (ticks of a tickSize, lots
 * of a qtyStepSize). A value that is not an exact multiple is refused, never
 * rounded; the result must be a safe integer, since books count in JS numbers.
 */
export function toUnits(value: Dec | string, step: Dec | string, field: string, stepName = "step"): number {
  const decimalValue = typeof value === "string" ? parseSigned(value, field) : value;
  const decimalStep = typeof step === "string" ? new Dec(step) : step;
  if (decimalStep.lte(0)) throw new RangeError(`${stepName} must be positive, got "${formatDecimal(decimalStep)}"`);
  const units = decimalValue.div(decimalStep);
  if (!units.isInteger()) {
    throw new DecimalInputError(
      "grid",
      field,
      formatDecimal(decimalValue),
      `${field} "${formatDecimal(decimalValue)}" is not a multiple of ${stepName} "${formatDecimal(decimalStep)}"`,
    );
  }
  const asNumber = units.toNumber();
  if (!Number.isSafeInteger(asNumber)) {
    throw new DecimalInputError("overflow", field, formatDecimal(decimalValue), `${field} "${formatDecimal(decimalValue)}" is too many ${stepName}s for a book`);
  }
  return asNumber;
}

/** The decimal value of `units` whole steps. */
export function fromUnits(units: number | bigint, step: Dec | string): Dec {
  if (typeof step !== "string" && typeof units === "number") return cachedUnits(units, step);
  const decimalStep = typeof step === "string" ? new Dec(step) : step;
  return decimalStep.mul(units.toString());
}

/**
 * Recent products of a step (a market's tickSize or qtyStepSize, kept as one
 * Dec) by a count: books quote the same few prices and quantities over and
 * over, and a Dec is immutable, so one product serves every caller. Bounded:
 * a full table starts over.
 */
const unitProducts = new WeakMap<Dec, Map<number, Dec>>();
const UNIT_PRODUCTS_MAX = 4096;

function cachedUnits(units: number, step: Dec): Dec {
  let products = unitProducts.get(step);
  if (products === undefined) {
    products = new Map();
    unitProducts.set(step, products);
  }
  let value = products.get(units);
  if (value === undefined) {
    value = step.mul(units.toString());
    if (products.size >= UNIT_PRODUCTS_MAX) products.clear();
    products.set(units, value);
  }
  return value;
}
