/**
 * Fixed-point money for the risk layer: exact bigint arithmetic, one rounding
 * policy.
 *
 * Scales (all bigint, all exact):
 *  - `Qty`, `Price`, `Rate`: 10^18 (the signing scale; `toE18` parses them);
 *  - `Money`: 10^36, so that qty x price is exact (10^18 x 10^18);
 *  - `FundingValue`: 10^36 per unit of base, so that funding accrued per
 *    microsecond keeps 36 fraction digits;
 *  - `Claim`: 10^54, qty x funding value, exact.
 *
 * Rounding policy (the only one): a computation is carried out exactly, and
 * an amount is rounded once, HALF-EVEN, to the `decimals` of the asset it is
 * booked in, at the moment it moves between accounts (fees, realized PnL,
 * funding, penalties, collateral sales). Booked balances are therefore always
 * whole multiples of 10^-decimals. What rounding leaves behind on a closed
 * position (below half a unit of the last decimal) goes to the risk state's
 * rounding residual, so conservation stays exact. Margin figures are not
 * money that moves; they round against the account (requirements up, funding
 * claims down) so that a check never passes on a rounding.
 */
import { E18, formatDigits, formatScaled, ZEROS } from "../core/decimal.ts";
import { assert } from "../core/assert.ts";

export { E18, formatScaled };
export const E36 = E18 * E18;
export const E54 = E36 * E18;

/** 10^18 scale: base quantity. */
export type Qty = bigint;
/** 10^18 scale: price in quote per base. */
export type Price = bigint;
/** 10^18 scale: a dimensionless fraction (rates, haircuts, discounts). */
export type Rate = bigint;
/** 10^36 scale: an amount of an asset. */
export type Money = bigint;
/** 10^36 scale: value per unit of base. */
export type FundingValue = bigint;
/** 10^54 scale: units x funding value. */
export type Claim = bigint;

export type RoundingMode = "half-even" | "floor" | "ceil";

/** numerator / denominator rounded by `mode` (floor and ceil toward -inf / +inf). */
export function divRound(numerator: bigint, denominator: bigint, mode: RoundingMode): bigint {
  if (denominator <= 0n) {
    assert(denominator !== 0n, "divRound denominator must not be zero");
    numerator = -numerator;
    denominator = -denominator;
  }
  const quotient = numerator / denominator; // truncates toward zero
  const remainder = numerator - quotient * denominator; // sign of the numerator
  if (remainder === 0n) return quotient;
  if (mode === "floor") return remainder < 0n ? quotient - 1n : quotient;
  if (mode === "ceil") return remainder > 0n ? quotient + 1n : quotient;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  const awayFromZero = twice > denominator || (twice === denominator && (quotient & 1n) !== 0n);
  if (!awayFromZero) return quotient;
  return remainder < 0n ? quotient - 1n : quotient + 1n;
}

export function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

export function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function sign(value: bigint): -1n | 0n | 1n {
  return value > 0n ? 1n : value < 0n ? -1n : 0n;
}

/** The Money unit of an asset with `decimals` fraction digits: 10^(36 - decimals). */
export function moneyUnit(decimals: number): Money {
  assert(Number.isSafeInteger(decimals) && decimals >= 0 && decimals <= 18, `asset decimals ${decimals} must be an integer in 0..18`);
  return 10n ** BigInt(36 - decimals);
}

/** Rounds a Money value half-even to a whole number of `unit` (see moneyUnit). */
export function roundMoney(value: Money, unit: Money): Money {
  return divRound(value, unit, "half-even") * unit;
}

/** Rounds value / divisor half-even to a whole number of `unit`: exact rational to booked Money. */
export function roundMoneyRatio(numerator: bigint, divisor: bigint, unit: Money): Money {
  return divRound(numerator, divisor * unit, "half-even") * unit;
}

/** qty x price, exact. */
export function notional(qty: Qty, price: Price): Money {
  return qty * price;
}

/** A Rate as a fraction in lowest terms: rate / 10^18 = numerator / denominator, exactly (see mulFractionCeil). */
export interface RateFraction {
  readonly numerator: bigint;
  readonly denominator: bigint;
  readonly denominatorLessOne: bigint;
}

export function rateFraction(rate: Rate): RateFraction {
  let a = rate < 0n ? -rate : rate;
  let b = E18;
  while (b !== 0n) [a, b] = [b, a % b];
  const denominator = E18 / a;
  return { numerator: rate / a, denominator, denominatorLessOne: denominator - 1n };
}

/**
 * A Money value times a Rate, rounded up (requirements), with the rate in
 * lowest terms: the same rational as rate / 10^18, so the same ceiling, and a rate of 1/n (0.05 = 1/20, as margin rates usually are)
 * makes no product: one addition and one division by a small number.
 */
export function mulFractionCeil(value: Money, rate: RateFraction): Money {
  const product = rate.numerator === 1n ? value : value * rate.numerator;
  return product > 0n ? (product + rate.denominatorLessOne) / rate.denominator : product / rate.denominator;
}

/** 10^18 - 1: the addend of a ceiling (or floor) division by 10^18 done in one division. */
export const E18_MINUS_ONE = E18 - 1n;

/** value / 10^18 rounded toward -inf: divRound(value, E18, "floor") in one division. */
export function divFloorE18(value: bigint): bigint {
  return value < 0n ? (value - E18_MINUS_ONE) / E18 : value / E18;
}

const MONEY_TAIL = "0".repeat(18);

const E30 = 10n ** 30n;

/** Canonical text of a booked Money amount (a whole number of 10^-18 at most; exact). */
export function formatMoney(value: Money): string {
  if (value === 0n) return "0";
  // An amount of at most 6 decimals (the settlement asset's) below 2^53 millionths, nearly every amount booked:
  // one division and a Number's text instead of the ~37-digit text of the 10^36 value.
  const millionths = value / E30;
  if (millionths * E30 === value) {
    const count = Number(millionths);
    if (Number.isSafeInteger(count)) return formatMillionths(count);
  }
  const negative = value < 0n;
  const text = (negative ? -value : value).toString();
  // A booked amount has at least 18 trailing zeros at 10^36 (or is zero): read its digits without dividing.
  if (text.length > 18 && text.endsWith(MONEY_TAIL)) return formatDigits(negative, text.slice(0, -18), 18);
  if (value % E18 !== 0n) assert(false, `money ${value} has more than 18 fraction digits`);
  return formatScaled(value / E18, 18);
}

/** The canonical text of -x given that of x (formatMoney(-x) from formatMoney(x), without formatting again). */
export function negatedText(text: string): string {
  if (text === "0") return text;
  return text.charCodeAt(0) === 45 ? text.slice(1) : `-${text}`;
}

/** Canonical text of a non-zero safe integer count of millionths (formatMoney's of count x 10^30). */
function formatMillionths(count: number): string {
  const negative = count < 0;
  const magnitude = negative ? -count : count;
  const fraction = magnitude % 1_000_000; // exact: safe integers
  let text = String((magnitude - fraction) / 1_000_000);
  if (fraction !== 0) {
    let digits = String(fraction);
    if (digits.length < 6) digits = ZEROS.slice(0, 6 - digits.length) + digits;
    let end = 6;
    while (digits.charCodeAt(end - 1) === 48) end--;
    text = `${text}.${digits.slice(0, end)}`;
  }
  return negative ? `-${text}` : text;
}

/** Canonical text of a 10^36-scaled value rounded half-even to 18 fraction digits (display of prices, averages). */
export function formatE36(value: bigint): string {
  return formatScaled(divRound(value, E18, "half-even"), 18);
}

/**
 * The text of a value shown again and again (a summary's figures every
 * 500 ms, an index price on every oracle step), remembered with the value it
 * was made from and made again only when the value changes: comparing two
 * bigints costs far less than formatting one (bigint's toString and the
 * slicing). `format` must be a pure function of the value.
 */
export class RememberedText {
  private value: bigint | undefined = undefined;
  private text = "";

  constructor(private readonly format: (value: bigint) => string) {}

  /** format(value), from memory when value is the last one formatted. */
  of(value: bigint): string {
    if (value !== this.value) {
      this.text = this.format(value);
      this.value = value;
    }
    return this.text;
  }
}

/** Canonical text of a 10^18-scaled value. */
export function formatE18Value(value: bigint): string {
  return formatScaled(value, 18);
}

/** Fraction digits of a positive 10^18-scaled step (tickSize, qtyStepSize): 0.001 -> 3. */
export function fractionDigitsE18(step: bigint): number {
  if (step <= 0n) assert(false, `step ${step} must be positive`);
  let digits = 18;
  let rest = step;
  while (digits > 0 && rest % 10n === 0n) {
    rest /= 10n;
    digits -= 1;
  }
  return digits;
}

/** Rounds a 10^18 value half-even to a whole number of `step` and returns the count. */
export function toStepsHalfEven(value: bigint, step: bigint): number {
  const steps = divRound(value, step, "half-even");
  const asNumber = Number(steps);
  if (!Number.isSafeInteger(asNumber)) assert(false, `value ${value} is too many steps of ${step}`);
  return asNumber;
}

/** A count of lots or ticks (safe integer) times its 10^18 step. */
export function fromSteps(count: number, step: bigint): bigint {
  if (!Number.isSafeInteger(count)) assert(false, `step count ${count} must be a safe integer`);
  return BigInt(count) * step;
}

/**
 * fromSteps for one step size (a market's lots or ticks) that remembers its
 * last conversion: an order's or a fill's lots and ticks are converted
 * several times in a row (pre-trade check, resting, match-time check,
 * pending hold, validation, application), and comparing two numbers makes no
 * bigint.
 */
export class StepScale {
  private lastCount = 0;
  private lastValue = 0n;

  constructor(readonly step: bigint) {}

  /** fromSteps(count, step). */
  of(count: number): bigint {
    if (count !== this.lastCount) {
      this.lastValue = fromSteps(count, this.step);
      this.lastCount = count;
    }
    return this.lastValue;
  }
}
