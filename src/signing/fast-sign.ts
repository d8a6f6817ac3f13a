/**
 * A synchronous signer on the native fast path, for agents of signed-mode
 * simulations that sign every request.
 *
 * libsecp256k1's `ecdsaSign` without options uses its RFC 6979 nonce
 * function (HMAC-SHA256, the message reduced mod n, no extra data) and emits
 * low-s signatures: the same scalar k and the same (r, s) that viem (noble,
 * `lowS: true`, no extra entropy) produces for the same digest. The tests
 * check it byte for byte against the reference signers over thousands of
 * messages. The key is parsed once per signer; the digest is fast-path
 * (digest.ts).
 */
import type { Address, Hex } from "viem";
import { DEFAULT_SIGNING_CONFIG, type SigningConfig } from "./domain.ts";
import { createTypedDataHasher } from "./digest.ts";
import { native, type NativeCrypto } from "./native.ts";
import { serializeSignature } from "./signature.ts";
import type { SignedKind, SignedMessages } from "./types.ts";

export interface FastSigner {
  /** The signer's address, lowercase (see verify.ts on address case). */
  readonly address: Address;
  readonly config: SigningConfig;
  sign<K extends SignedKind>(kind: K, message: SignedMessages[K]): Hex;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

function requireNative(): NativeCrypto {
  if (native === null) throw new Error("fast signing needs the native secp256k1 and keccak add-ons, which did not load; use the viem signers of sign.ts");
  return native;
}

/** True when the fast signer can be used (both native add-ons loaded). */
export const FAST_SIGNING_AVAILABLE = native !== null;

/**
 * A signer bound to one key and one config. Throws when the add-ons are not
 * loaded (check FAST_SIGNING_AVAILABLE) or the key is not a valid secp256k1
 * private key. `sign` throws MessageFieldError for a field out of its type.
 */
export function createFastSigner(privateKey: Hex, config: SigningConfig = DEFAULT_SIGNING_CONFIG): FastSigner {
  const { secp256k1, keccak256, keccak256Into } = requireNative();
  if (!PRIVATE_KEY.test(privateKey)) throw new RangeError("private key must be 0x and 64 hex digits");
  const key = Buffer.from(privateKey.slice(2), "hex");
  if (!secp256k1.privateKeyVerify(key)) throw new RangeError("private key is not a valid secp256k1 scalar");
  const publicKey = secp256k1.publicKeyCreate(key, false);
  const address = `0x${keccak256(publicKey.subarray(1)).toString("hex", 12)}` as Address;
  const hasher = createTypedDataHasher(keccak256, keccak256Into);
  return Object.freeze({
    address,
    config,
    sign<K extends SignedKind>(kind: K, message: SignedMessages[K]): Hex {
      const digest = hasher.digest(kind, message, config);
      const { signature, recid } = secp256k1.ecdsaSign(digest, key);
      return serializeSignature(signature, recid);
    },
  });
}
