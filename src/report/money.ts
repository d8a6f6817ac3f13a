/**
 * Exact money sums for the run summary, cheap enough to run on every
 * execution: wire decimals become bigints at a fixed scale (10^18, the
 * scale of every wire decimal), sums stay bigints, and the text is made
 * once at the end. Products (notional = price x qty) are kept at 10^36.
 *
 * The Exchange's outputs are canonical (no exponent, at most 18 fraction
 * digits), which the fast path parses with one BigInt call; anything else
 * goes through the project's one decimal parser (core/decimal.ts).
 */
import { formatE18, toE18 } from "../core/decimal.ts";

export const SCALE_18 = 18;
export const SCALE_36 = 36;
const ZEROS_18 = "000000000000000000";

/** A canonical wire decimal as a bigint scaled by 10^18 (exact). */
export function e18(text: string): bigint {
  const dot = text.indexOf(".");
  if (dot < 0) {
    if (/^-?\d+$/.test(text)) return BigInt(text) * 10n ** 18n;
    return toE18(text, "amount");
  }
  const fraction = text.length - dot - 1;
  if (fraction > SCALE_18 || text.includes("e") || text.includes("E")) return toE18(text, "amount");
  return BigInt(text.slice(0, dot) + text.slice(dot + 1) + ZEROS_18.slice(fraction));
}

/** Optional wire decimal: absent is 0. */
export function e18Optional(text: string | undefined): bigint {
  return text === undefined ? 0n : e18(text);
}

/** Canonical text of a bigint scaled by 10^scale (no exponent, no trailing zeros). */
export function formatScaled(value: bigint, scale: number): string {
  if (scale === SCALE_18) return formatE18(value);
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const unit = 10n ** BigInt(scale);
  const whole = magnitude / unit;
  const fraction = (magnitude % unit).toString().padStart(scale, "0").replace(/0+$/, "");
  const text = fraction === "" ? whole.toString() : `${whole}.${fraction}`;
  return negative && text !== "0" ? `-${text}` : text;
}

/** A float of a bigint scaled by 10^scale (for display and charts). */
export function toNumber(value: bigint, scale: number): number {
  return Number(formatScaled(value, scale));
}
