/**
 * Scalar types of the contract (spec section 2.1) plus the id, nonce and
 * signature strings that the objects and requests share.
 *
 * Each schema carries a stable registry id (`.meta({ id })`) so that the
 * OpenAPI/AsyncAPI generator emits it once under `$defs` and references it.
 */
import { z } from "zod";

/** Spec 2.1 UnsignedDecimal: digits, optional fraction, optional exponent. */
export const UNSIGNED_DECIMAL_PATTERN = /^\d+(\.\d+)?([eE][+-]?\d+)?$/;
/** Spec 2.1 SignedDecimal: UnsignedDecimal with an optional leading minus. */
export const SIGNED_DECIMAL_PATTERN = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
/** Spec 2.1 Symbol (and the symbol parameter of channel names, spec 6.1). */
export const SYMBOL_PATTERN = /^[A-Za-z0-9]+$/;
/** Spec 2.1 Asset. */
export const ASSET_PATTERN = /^[A-Za-z0-9]+$/;
/** Spec 2.1 Address (and the address parameter of channel names, spec 6.1). */
export const ADDRESS_PATTERN = /^0x[a-fA-F0-9]{40}$/;
/** A decimal unsigned integer string: order ids, fill ids, client ids, nonces. */
export const DECIMAL_UINT_PATTERN = /^\d+$/;
/** An EIP-712 signature: 0x then 65 bytes (r, s, v) as hex. */
export const SIGNATURE_PATTERN = /^0x[0-9a-fA-F]{130}$/;

/** 2^64 - 1, the largest order id, fill id or client order id. */
export const UINT64_MAX_DECIMAL = "18446744073709551615";
/** 2^256 - 1, the largest nonce (signed as uint256). */
export const UINT256_MAX_DECIMAL =
  "115792089237316195423570985008687907853269984665640564039457584007913129639935";

/**
 * `params.reason` of the issue raised when a well-formed decimal integer
 * string is beyond its range, so that the gateway can answer
 * NUMERIC_OVERFLOW_ERROR rather than INPUT_VALIDATION_ERROR (DESIGN.md,
 * "Errors and bad input").
 */
export const NUMERIC_OVERFLOW_REASON = "numericOverflow";

/** True when every character of `text` (at least one) is an ASCII digit. */
export function isDecimalDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/**
 * True when the digit string `digits` is at most `maxDecimal`, compared
 * without floating point: leading zeros are skipped, then the significant
 * lengths are compared, then (same length) the strings themselves.
 */
export function decimalDigitsAtMost(digits: string, maxDecimal: string): boolean {
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
  const significantLength = digits.length - start;
  if (significantLength !== maxDecimal.length) return significantLength < maxDecimal.length;
  return digits.slice(start) <= maxDecimal;
}

function boundedUintString(bitsName: string, maxDecimal: string): z.ZodString {
  return z
    .string()
    .regex(DECIMAL_UINT_PATTERN)
    .check((ctx) => {
      if (!isDecimalDigits(ctx.value)) return; // the pattern reports it
      if (decimalDigitsAtMost(ctx.value, maxDecimal)) return;
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: `value "${ctx.value}" is beyond the ${bitsName} range (at most ${maxDecimal})`,
        params: { reason: NUMERIC_OVERFLOW_REASON },
      });
    });
}

/** Spec 2.1 UnsignedInteger: an integer >= 0 (a safe JS integer). */
export const UnsignedInteger = z.number().int().nonnegative().meta({ id: "UnsignedInteger" });
export type UnsignedInteger = z.infer<typeof UnsignedInteger>;

/** Spec 2.1 UnsignedDecimal, a JSON string. */
export const UnsignedDecimal = z.string().regex(UNSIGNED_DECIMAL_PATTERN).meta({ id: "UnsignedDecimal" });
export type UnsignedDecimal = z.infer<typeof UnsignedDecimal>;

/** Spec 2.1 SignedDecimal, a JSON string. */
export const SignedDecimal = z.string().regex(SIGNED_DECIMAL_PATTERN).meta({ id: "SignedDecimal" });
export type SignedDecimal = z.infer<typeof SignedDecimal>;

/**
 * Spec 2.1 Symbol, a market symbol (perp symbols end in PERP). Exported as
 * `MarketSymbol` so that importing it never shadows the global `Symbol`; its
 * registry id is the spec's name, "Symbol".
 */
export const MarketSymbol = z.string().regex(SYMBOL_PATTERN).meta({ id: "Symbol" });
export type MarketSymbol = z.infer<typeof MarketSymbol>;

/** Spec 2.1 Asset, an asset symbol. */
export const Asset = z.string().regex(ASSET_PATTERN).meta({ id: "Asset" });
export type Asset = z.infer<typeof Asset>;

/** Spec 2.1 Address, a wallet address (any letter case). */
export const Address = z.string().regex(ADDRESS_PATTERN).meta({ id: "Address" });
export type Address = z.infer<typeof Address>;

/** Spec 2.1 Side values: `B` (buy/bid), `A` (ask/sell). */
export const SIDES = ["B", "A"] as const;
/** Spec 2.1 Side. */
export const Side = z.enum(SIDES).meta({ id: "Side" });
export type Side = z.infer<typeof Side>;

/**
 * An order id, fill id or client order id: an opaque decimal uint64 string
 * (spec section 1). Compare as strings, never as floats. Leading zeros pass
 * the pattern and do not count toward the range; a value above 2^64 - 1
 * raises an issue with `params.reason` NUMERIC_OVERFLOW_REASON.
 */
export const Id = boundedUintString("uint64", UINT64_MAX_DECIMAL).meta({ id: "Id" });
export type Id = z.infer<typeof Id>;

/**
 * A request nonce: a decimal string signed as uint256 (spec 5). A value above
 * 2^256 - 1 raises an issue with `params.reason` NUMERIC_OVERFLOW_REASON.
 */
export const Nonce = boundedUintString("uint256", UINT256_MAX_DECIMAL).meta({ id: "Nonce" });
export type Nonce = z.infer<typeof Nonce>;

/** An EIP-712 signature: `0x` and 130 hex digits (65 bytes). */
export const Signature = z.string().regex(SIGNATURE_PATTERN).meta({ id: "Signature" });
export type Signature = z.infer<typeof Signature>;
