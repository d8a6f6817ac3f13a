/**
 * The EIP-712 signing domain and the encoding constants of the reference
 * deployment (shared/reference/signing.md).
 *
 * The domain is `{ name, version, verifyingContract }` with no `chainId`: the
 * reference deployment binds the chain inside each message as its first
 * field, `verifyingChainId`, so the domain separator is the same on every
 * chain that shares a gateway address. Every value is configurable; the
 * defaults are the devnet deployment that the published test vectors use.
 */
import type { Address } from "viem";
import { isAddress } from "viem";
import { UINT64_MAX } from "../core/decimal.ts";

/** Everything a signature is bound to besides the message itself. */
export interface SigningConfig {
  readonly name: string;
  readonly version: string;
  /** The orders gateway (settlement) contract of the environment. */
  readonly verifyingContract: Address;
  /** Signed inside each message (not in the domain); must fit uint64, the cancel family's width. */
  readonly verifyingChainId: bigint;
}

export const DEFAULT_VERIFYING_CHAIN_ID = 89346162n;
export const DEFAULT_VERIFYING_CONTRACT: Address = "0x7Ec89E555c771D2B5939aBE5C4E4291852633D4D";

/** The devnet deployment of the reference service (signing.md, "Known values"). */
export const DEFAULT_SIGNING_CONFIG: SigningConfig = Object.freeze({
  name: "Reya",
  version: "1",
  verifyingContract: DEFAULT_VERIFYING_CONTRACT,
  verifyingChainId: DEFAULT_VERIFYING_CHAIN_ID,
});

/**
 * A frozen config: the defaults with `overrides` applied, checked once here
 * so that no signing or verifying call can fail on the config. The contract
 * address must pass viem's strict check (lowercase, or a valid EIP-55
 * checksum), because viem refuses to hash a domain that does not.
 */
export function signingConfig(overrides: Partial<SigningConfig> = {}): SigningConfig {
  const config: SigningConfig = { ...DEFAULT_SIGNING_CONFIG, ...overrides };
  if (!isAddress(config.verifyingContract)) {
    const shape = /^0x[0-9a-fA-F]{40}$/.test(config.verifyingContract);
    const why = shape ? "is an address with an invalid EIP-55 checksum (give it all lowercase, or checksummed)" : "is not an address: 0x and 40 hex digits";
    throw new RangeError(`verifyingContract "${config.verifyingContract}" ${why}`);
  }
  // The cancel family signs verifyingChainId as uint64; a wider chain id could
  // sign orders but never a cancel, so it is refused up front.
  if (config.verifyingChainId < 0n || config.verifyingChainId > UINT64_MAX) {
    throw new RangeError(`verifyingChainId "${config.verifyingChainId}" is outside the uint64 range`);
  }
  return Object.freeze(config);
}

/** The domain object in the shape viem takes (no chainId, on purpose). */
export function typedDataDomain(config: SigningConfig): {
  name: string;
  version: string;
  verifyingContract: Address;
} {
  return { name: config.name, version: config.version, verifyingContract: config.verifyingContract };
}

/** A spot market signs its spot market id plus this offset, so it never collides with a perp id. */
export const SPOT_MARKET_ID_OFFSET = 10n ** 10n;

/**
 * The quantity a trigger order signs, with the sign of its side: int256 max,
 * raw (not scaled by 10^18). A trigger protects the whole live position at
 * fire time, so it carries no qty on the wire and signs this sentinel.
 */
export const TRIGGER_QUANTITY_SENTINEL = 2n ** 255n - 1n;

/** `orderType` as signed (uint8). */
export const ORDER_TYPE_CODES = Object.freeze({ LIMIT: 0, STOP_LOSS: 1, TAKE_PROFIT: 2 } as const);

/** `timeInForce` as signed (uint8). */
export const TIME_IN_FORCE_CODES = Object.freeze({ GTC: 0, IOC: 1, GTT: 2 } as const);
