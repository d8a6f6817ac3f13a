/**
 * Recovering the signer of a signed request, with two implementations behind
 * `recoverSigner`:
 *
 * - native (fast): the hand-written digest of digest.ts, libsecp256k1
 *   `ecdsaRecover`, keccak of the 64-byte public key. Synchronous, reusing
 *   its buffers; also exported as `recoverSignerNative` for callers that
 *   cannot await (the deterministic gateway).
 * - viem (reference and fallback): `recoverTypedDataAddress`, used when the
 *   add-ons did not load, or when forced with `setVerifyPath("viem")`.
 *
 * A caller that knows whose signature it expects (`expected`) may skip the
 * recovery: on the native path, once that signer has been recovered a few
 * times, a precomputed table checks that recovering would give its key, in
 * about a third of the time (known-signers.ts). The answer is the same.
 *
 * Both refuse the same inputs the same way, as a typed failure rather than a
 * throw: the signature's wire form is parsed once, strictly, before either
 * path (signature.ts says why), then the message is checked against its
 * types, then the signature is recovered.
 *
 * Addresses come back lowercase: the native path then needs no EIP-55
 * checksum hash, and lowercase is a canonical key for maps of signers and
 * nonces. Compare a recovered address with a wire address (any case) through
 * `sameAddress`, never with `===`.
 */
import type { Address, Hex } from "viem";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hashTypedData, keccak256, recoverTypedDataAddress } from "viem";
import { DEFAULT_SIGNING_CONFIG, typedDataDomain, type SigningConfig } from "./domain.ts";
import { createTypedDataHasher, MessageFieldError } from "./digest.ts";
import { KnownSigners, type KnownSignerStats } from "./known-signers.ts";
import { native } from "./native.ts";
import { PARSE_FORMAT_ERROR, PARSE_V_ERROR, parseSignature, parseSignatureInto } from "./signature.ts";
import { SIGNING_TYPES, type SignedKind, type SignedMessages } from "./types.ts";

/**
 * Why a signature was refused:
 * - SIGNATURE_FORMAT: not `0x` and 130 hex digits;
 * - SIGNATURE_V: v is not 0, 1, 27 or 28;
 * - MESSAGE_INVALID: a message field is outside its EIP-712 type;
 * - SIGNATURE_INVALID: r or s out of range or zero, or no public key recovers.
 */
export type RecoverFailureReason = "SIGNATURE_FORMAT" | "SIGNATURE_V" | "MESSAGE_INVALID" | "SIGNATURE_INVALID";

export type RecoverResult =
  | { readonly ok: true; readonly address: Address }
  | { readonly ok: false; readonly reason: RecoverFailureReason; readonly detail: string };

export type VerifyPath = "native" | "viem";

/** True when both native add-ons loaded, so the native path can run. */
export const NATIVE_VERIFY_AVAILABLE = native !== null;

let forcedViem = false;

/** The path `recoverSigner` takes now. */
export function verifyPath(): VerifyPath {
  return native !== null && !forcedViem ? "native" : "viem";
}

/** "viem" forces the viem path (for tests and comparisons); "auto" takes the native path when available. */
export function setVerifyPath(path: "auto" | "viem"): void {
  forcedViem = path === "viem";
}

/** Case-insensitive address equality: recovered addresses are lowercase, wire addresses any case. */
export function sameAddress(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

const SIGNATURE_FORMAT_FAILURE: RecoverResult = Object.freeze({
  ok: false,
  reason: "SIGNATURE_FORMAT",
  detail: "signature is not 0x and 65 bytes of hex",
});
const SIGNATURE_V_FAILURE: RecoverResult = Object.freeze({
  ok: false,
  reason: "SIGNATURE_V",
  detail: "signature v is not 27, 28, 0 or 1",
});

function failure(reason: RecoverFailureReason, detail: string): RecoverResult {
  return { ok: false, reason, detail };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n", 1)[0] ?? text;
}

// Buffers of the native path, reused by every call (synchronous, never re-entered).
const rsScratch = Buffer.alloc(64);
const publicKeyScratch = Buffer.alloc(65);
const publicKeyXY = publicKeyScratch.subarray(1);
const hasher = native === null ? null : createTypedDataHasher(native.keccak256, native.keccak256Into);
/** This thread's signers seen before (a cache of speed only: answers never depend on it). */
const knownSigners = new KnownSigners();

/** On by default; off, every signature is recovered (for comparisons and tests). */
export function setKnownSignersEnabled(enabled: boolean): void {
  knownSigners.setEnabled(enabled);
}

/** What this thread's signer cache holds and has saved. */
export function knownSignerStats(): KnownSignerStats {
  return knownSigners.stats();
}

/**
 * True when this thread holds `address`'s table (any case), so that its
 * signatures are confirmed without a recovery. The cache is per thread and
 * lives as long as the module: a caller that waits for a signer's table
 * waits on this, not on a count, which other signers move too.
 */
export function knownSignerReady(address: string): boolean {
  return knownSigners.hasTable(address);
}

/**
 * The native path, synchronous. Throws (an environment error, not an input
 * one) when the add-ons did not load: check NATIVE_VERIFY_AVAILABLE.
 * `expected`, an address in any case, is a hint (see known-signers.ts): the
 * result is the same with any hint or none.
 */
export function recoverSignerNative<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
  expected?: string,
): RecoverResult {
  if (native === null || hasher === null) throw new Error("native signature recovery is unavailable: the secp256k1 or keccak add-on did not load");
  const recid = parseSignatureInto(signature, rsScratch);
  if (recid === PARSE_FORMAT_ERROR) return SIGNATURE_FORMAT_FAILURE;
  if (recid === PARSE_V_ERROR) return SIGNATURE_V_FAILURE;
  let digest: Buffer;
  try {
    digest = hasher.digest(kind, message, config);
  } catch (error) {
    if (error instanceof MessageFieldError) return failure("MESSAGE_INVALID", error.message);
    throw error;
  }
  if (expected !== undefined) {
    const confirmed = knownSigners.confirm(expected, digest, rsScratch, recid);
    if (confirmed !== undefined) return { ok: true, address: confirmed as Address };
  }
  try {
    native.secp256k1.ecdsaRecover(rsScratch, recid, digest, false, publicKeyScratch);
  } catch (error) {
    return failure("SIGNATURE_INVALID", errorText(error));
  }
  const address = `0x${native.keccak256(publicKeyXY).toString("hex", 12)}`;
  knownSigners.noteRecovered(address, publicKeyScratch);
  return { ok: true, address: address as Address };
}

/** Whether confirmSignerLater could start a check of a signature expected from `expected` now (a cheap test before preparing the message). */
export function canConfirmSignerLater(expected: string): boolean {
  return verifyPath() === "native" && hasher !== null && knownSigners.canConfirmLater(expected);
}

/**
 * recoverSignerNative's answer for `expected`, worked out off this thread
 * (known-signers.ts, `confirmLater`) when it can be: returns true and later
 * calls `done` with what recoverSignerNative(kind, message, signature,
 * config, expected) would return when that is `expected`'s address, or with
 * undefined when the caller must recover after all (the signature is not
 * `expected`'s, or would be refused). Returns false, and never calls `done`,
 * when nothing was started: not the native path, a signature or message
 * recovery would refuse, or no table for `expected` yet.
 */
export function confirmSignerLater<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig,
  expected: string,
  done: (address: Address | undefined) => void,
): boolean {
  if (!canConfirmSignerLater(expected) || hasher === null) return false;
  const recid = parseSignatureInto(signature, rsScratch);
  if (recid === PARSE_FORMAT_ERROR || recid === PARSE_V_ERROR) return false;
  let digest: Buffer;
  try {
    digest = hasher.digest(kind, message, config);
  } catch (error) {
    if (error instanceof MessageFieldError) return false;
    throw error;
  }
  return knownSigners.confirmLater(expected, digest, rsScratch, recid, done as (address: string | undefined) => void);
}

/** The viem calls for one kind, with its primary type fixed so that viem's message types apply. */
interface ViemCalls<K extends SignedKind> {
  recover(message: SignedMessages[K], signature: Hex, config: SigningConfig): Promise<Address>;
  hash(message: SignedMessages[K], config: SigningConfig): Hex;
}

const VIEM_CALLS: { [K in SignedKind]: ViemCalls<K> } = {
  Order: {
    recover: (message, signature, config) =>
      recoverTypedDataAddress({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "Order", message, signature }),
    hash: (message, config) => hashTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "Order", message }),
  },
  OrderCancel: {
    recover: (message, signature, config) =>
      recoverTypedDataAddress({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "OrderCancel", message, signature }),
    hash: (message, config) => hashTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "OrderCancel", message }),
  },
  MassCancel: {
    recover: (message, signature, config) =>
      recoverTypedDataAddress({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "MassCancel", message, signature }),
    hash: (message, config) => hashTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "MassCancel", message }),
  },
  CancelAllAfter: {
    recover: (message, signature, config) =>
      recoverTypedDataAddress({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "CancelAllAfter", message, signature }),
    hash: (message, config) => hashTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "CancelAllAfter", message }),
  },
};

/** viem's EIP-712 digest of a message (the reference for digest.ts). */
export function viemDigest<K extends SignedKind>(kind: K, message: SignedMessages[K], config: SigningConfig = DEFAULT_SIGNING_CONFIG): Hex {
  const calls: ViemCalls<K> = VIEM_CALLS[kind];
  return calls.hash(message, config);
}

/** The viem path: `recoverTypedDataAddress`, with its exceptions turned into the same failures. */
export async function recoverSignerViem<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): Promise<RecoverResult> {
  const recid = parseSignatureInto(signature, Buffer.alloc(64));
  if (recid === PARSE_FORMAT_ERROR) return SIGNATURE_FORMAT_FAILURE;
  if (recid === PARSE_V_ERROR) return SIGNATURE_V_FAILURE;
  const calls: ViemCalls<K> = VIEM_CALLS[kind];
  try {
    const address = await calls.recover(message, signature as Hex, config);
    return { ok: true, address: address.toLowerCase() as Address };
  } catch (error) {
    // recoverTypedDataAddress hashes, then recovers: hashing alone tells which one threw.
    try {
      calls.hash(message, config);
    } catch (hashError) {
      return failure("MESSAGE_INVALID", errorText(hashError));
    }
    return failure("SIGNATURE_INVALID", errorText(error));
  }
}

/**
 * The signer of `message` under `signature`, lowercase, on the active path
 * (see verifyPath). Never throws for bad input: a refused signature, or a
 * well-typed message with a value outside its EIP-712 type, is a failure
 * result. (A message that does not have the TypeScript shape at all is a
 * caller bug and may throw.) Build `config` once and reuse the object: the
 * native path caches the domain separator per config object.
 */
export function recoverSigner<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): Promise<RecoverResult> {
  if (verifyPath() === "native") return Promise.resolve(recoverSignerNative(kind, message, signature, config));
  return recoverSignerViem(kind, message, signature, config);
}

/**
 * The pure-JS path, synchronous: viem's own EIP-712 digest (hashTypedData)
 * and its secp256k1 (@noble/curves) recovery. What the gateway falls back on
 * when the native add-ons do not load: identical results, about 40x slower.
 */
export function recoverSignerPureJs<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): RecoverResult {
  const parsed = parseSignature(signature);
  if (parsed === "SIGNATURE_FORMAT") return SIGNATURE_FORMAT_FAILURE;
  if (parsed === "SIGNATURE_V") return SIGNATURE_V_FAILURE;
  let digest: Hex;
  try {
    digest = viemDigest(kind, message, config);
  } catch (error) {
    return failure("MESSAGE_INVALID", errorText(error));
  }
  try {
    const point = secp256k1.Signature.fromCompact(parsed.rs).addRecoveryBit(parsed.recid).recoverPublicKey(digest.slice(2));
    const publicKey = point.toRawBytes(false).subarray(1);
    return { ok: true, address: `0x${keccak256(publicKey).slice(-40)}` as Address };
  } catch (error) {
    return failure("SIGNATURE_INVALID", errorText(error));
  }
}

/**
 * The synchronous recovery the gateway uses: native when loaded, else the
 * pure-JS (viem) path. `expected`: the signer the caller expects, a hint
 * that only the native path uses (recoverSignerNative).
 */
export function recoverSignerSync<K extends SignedKind>(
  kind: K,
  message: SignedMessages[K],
  signature: string,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
  expected?: string,
): RecoverResult {
  return verifyPath() === "native" ? recoverSignerNative(kind, message, signature, config, expected) : recoverSignerPureJs(kind, message, signature, config);
}
