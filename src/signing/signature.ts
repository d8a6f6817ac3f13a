/**
 * The wire form of a signature: `0x` and 65 bytes `r || s || v` as hex
 * (signing.md). Parsed strictly here, before either verification path sees
 * it, because viem is lenient in ways that would make the paths disagree: a
 * string that is not hex is taken by viem as UTF-8 bytes (so any 65-character
 * string "recovers" some address).
 *
 * Accepted v: 27 or 28 (what signers emit) and 0 or 1 (y parity), exactly the
 * set viem accepts; anything else, EIP-155 style values included, is refused.
 * High-s signatures are accepted, as viem (noble) and libsecp256k1's recovery
 * both accept them: for each valid signature (r, s, v) the malleated
 * (r, n - s, v ^ 1) recovers the same signer, so signature bytes are not a
 * unique request id (nonces are what make requests single-use).
 */
import type { Hex } from "viem";
import { hexValue } from "./hex.ts";

export type SignatureFormatFailure = "SIGNATURE_FORMAT" | "SIGNATURE_V";

const SIGNATURE_HEX_LENGTH = 2 + 65 * 2;

/** Codes of `parseSignatureInto`, negative so that a recid (0 or 1) is the success value. */
export const PARSE_FORMAT_ERROR = -1;
export const PARSE_V_ERROR = -2;

/**
 * Writes `r || s` of `signature` into `rs` (64 bytes, owned by the caller
 * and reusable) and returns the recovery id 0 or 1, or PARSE_FORMAT_ERROR or
 * PARSE_V_ERROR. Allocates nothing.
 */
export function parseSignatureInto(signature: string, rs: Buffer): number {
  if (typeof signature !== "string" || signature.length !== SIGNATURE_HEX_LENGTH) return PARSE_FORMAT_ERROR;
  if (signature.charCodeAt(0) !== 48 || signature.charCodeAt(1) !== 120) return PARSE_FORMAT_ERROR;
  for (let i = 0; i < 64; i++) {
    const high = hexValue(signature.charCodeAt(2 + 2 * i));
    const low = hexValue(signature.charCodeAt(3 + 2 * i));
    if (high < 0 || low < 0) return PARSE_FORMAT_ERROR;
    rs[i] = (high << 4) | low;
  }
  const vHigh = hexValue(signature.charCodeAt(130));
  const vLow = hexValue(signature.charCodeAt(131));
  if (vHigh < 0 || vLow < 0) return PARSE_FORMAT_ERROR;
  const v = (vHigh << 4) | vLow;
  if (v === 0 || v === 1) return v;
  if (v === 27 || v === 28) return v - 27;
  return PARSE_V_ERROR;
}

/** A parsed signature (a fresh copy, for callers off the hot path). */
export interface ParsedSignature {
  readonly rs: Buffer;
  readonly recid: 0 | 1;
}

export function parseSignature(signature: string): ParsedSignature | SignatureFormatFailure {
  const rs = Buffer.alloc(64);
  const recid = parseSignatureInto(signature, rs);
  if (recid === PARSE_FORMAT_ERROR) return "SIGNATURE_FORMAT";
  if (recid === PARSE_V_ERROR) return "SIGNATURE_V";
  return { rs, recid: recid === 0 ? 0 : 1 };
}

/** The wire form of `r || s` and a recovery id, with v = 27 + recid as signers emit it. */
export function serializeSignature(rs: Uint8Array, recid: number): Hex {
  if (rs.length !== 64) throw new RangeError(`signature r || s must be 64 bytes, got ${rs.length}`);
  if (recid !== 0 && recid !== 1) throw new RangeError(`recovery id must be 0 or 1, got ${recid}`);
  const v = recid === 0 ? "1b" : "1c";
  return `0x${Buffer.from(rs.buffer, rs.byteOffset, 64).toString("hex")}${v}`;
}

/** secp256k1's group order n, and n / 2 (rounded down): a signature whose s is above it is "high-s". */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_CURVE_ORDER = CURVE_ORDER >> 1n;
/** n / 2 as 64 lowercase hex digits: a low s compares at most this as text. */
const HALF_CURVE_ORDER_HEX = HALF_CURVE_ORDER.toString(16).padStart(64, "0");

/**
 * The canonical wire form of `signature`, which recovers the same signer:
 * low s (a high s is replaced by n - s, and the recovery id flipped, the
 * malleated twin above) and v = 27 or 28. It is what Ethereum signers emit,
 * and the one form that every verifier takes: the EVM's ecrecover reads only
 * v 27 or 28, and OpenZeppelin's ECDSA refuses s > n / 2, so a signature
 * that this project's gateway accepts in another form could still fail where
 * the order is settled on chain. A signature that parseSignature refuses, or
 * whose s is 0 or not below n, is returned as it is (the service refuses it).
 */
export function canonicalSignature(signature: string): string {
  // Fast paths, for what signers emit: v written 1b or 1c, and s's first hex digit at most 6
  // (so s < 0x7 x 16^63 < n / 2), else 7 and s at most n / 2 compared as text.
  if (typeof signature === "string" && signature.length === SIGNATURE_HEX_LENGTH) {
    const sHigh = hexValue(signature.charCodeAt(66));
    const v = (hexValue(signature.charCodeAt(130)) << 4) | hexValue(signature.charCodeAt(131));
    if (v === 27 || v === 28) {
      if (sHigh >= 0 && sHigh <= 6) return signature;
      if (sHigh === 7 && signature.slice(66, 130).toLowerCase() <= HALF_CURVE_ORDER_HEX) return signature;
    }
  }
  const parsed = parseSignature(signature);
  if (typeof parsed === "string") return signature;
  const s = BigInt(`0x${parsed.rs.toString("hex", 32, 64)}`);
  if (s === 0n || s >= CURVE_ORDER) return signature;
  let recid: number = parsed.recid;
  if (s > HALF_CURVE_ORDER) {
    parsed.rs.write((CURVE_ORDER - s).toString(16).padStart(64, "0"), 32, "hex");
    recid ^= 1;
  }
  const canonical = serializeSignature(parsed.rs, recid);
  return canonical.toLowerCase() === signature.toLowerCase() ? signature : canonical;
}
