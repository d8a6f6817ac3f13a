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
