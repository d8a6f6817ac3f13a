/**
 * The signer a client signs with: `{ address, config, sign(kind, message) }`.
 *
 * `sign` may be synchronous or asynchronous: it returns the signature, or a
 * promise of it. The difference matters and the SDK keeps it:
 *
 * - A synchronous signer (the native fast signer of src/signing, what
 *   simulations use) keeps an action synchronous from the call up to
 *   `transport.request`: the request reaches the transport in the same tick,
 *   at the virtual time the caller acted. The simulation kernel runs its
 *   handlers synchronously, so this is what puts an agent's request into the
 *   simulation at the right time.
 * - An asynchronous signer (viem, a hardware wallet, a remote signer) is
 *   awaited. The client then hands requests to the transport in nonce order
 *   even when signatures complete out of order, because the service refuses
 *   a nonce below one it already accepted.
 *
 * The signer carries its SigningConfig: the domain it signs under and the
 * verifyingChainId the client writes into each message must agree, so the
 * client takes both from the signer.
 *
 * `address` is what the client sends as signerWallet. The signers made here
 * use lowercase (src/signing's canonical case; the wire accepts any case).
 */
import type { Address, Hex, LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEFAULT_SIGNING_CONFIG, signingConfig, typedDataDomain, type SigningConfig } from "../signing/domain.ts";
import { createFastSigner, FAST_SIGNING_AVAILABLE } from "../signing/fast-sign.ts";
import { signMessage } from "../signing/sign.ts";
import { SIGNING_TYPES, type SignedKind, type SignedMessages } from "../signing/types.ts";
import { ClientConfigError } from "./errors.ts";

export interface ClientSigner {
  readonly address: Address;
  readonly config: SigningConfig;
  /** The 65-byte `r || s || v` signature as 0x hex; synchronous or asynchronous (see above). */
  sign<K extends SignedKind>(kind: K, message: SignedMessages[K]): Hex | Promise<Hex>;
  /**
   * Set only by a signer that does not sign: the simulator's trusted mode,
   * whose gateway does not check signatures. Every request then carries
   * this signature, and the client neither builds the signed message nor
   * calls `sign`. So the encoding checks of the message builders
   * (src/signing/messages.ts) are not made: the ones the client's own
   * parameter checks do not repeat (a qty beyond int256 at 18 decimals)
   * are left to the service.
   */
  readonly fixedSignature?: Hex;
}

export type SigningPath = "fast" | "viem";

export interface PrivateKeySignerOptions {
  config?: SigningConfig;
  /**
   * "fast": the native signer (synchronous; throws when the add-ons did not
   * load); "viem": viem's signTypedData (asynchronous). Default: fast when
   * available, else viem. Both give the same bytes (RFC 6979).
   */
  path?: SigningPath;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * `config` itself, once it passes signingConfig's checks (a verifyingContract
 * viem can hash, a verifyingChainId within uint64). Checked when a signer or
 * client is made: a chain id beyond uint64 signs orders (uint256) but no
 * cancel (uint64), so unchecked it would surface at the first cancel.
 */
export function checkSigningConfig(config: SigningConfig): SigningConfig {
  try {
    signingConfig(config);
  } catch (cause) {
    throw new ClientConfigError(`signing config refused: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  return config;
}

/** A signer over a private key: the fast signer when the native add-ons loaded, viem otherwise. */
export function privateKeySigner(privateKey: Hex, options: PrivateKeySignerOptions = {}): ClientSigner & { readonly path: SigningPath } {
  if (typeof privateKey !== "string" || !PRIVATE_KEY.test(privateKey)) {
    throw new ClientConfigError("private key must be 0x and 64 hex digits");
  }
  const config = checkSigningConfig(options.config ?? DEFAULT_SIGNING_CONFIG);
  const path = options.path ?? (FAST_SIGNING_AVAILABLE ? "fast" : "viem");
  if (path === "fast") {
    if (!FAST_SIGNING_AVAILABLE) throw new ClientConfigError('signing path "fast" needs the native secp256k1 and keccak add-ons, which did not load');
    const fast = createFastSigner(privateKey, config);
    return Object.freeze({ address: fast.address, config, path, sign: fast.sign });
  }
  const address = privateKeyToAccount(privateKey).address.toLowerCase() as Address;
  return Object.freeze({
    address,
    config,
    path,
    sign: <K extends SignedKind>(kind: K, message: SignedMessages[K]): Promise<Hex> => signMessage(kind, privateKey, message, config),
  });
}

/** What viemAccountSigner needs of a viem account (a LocalAccount, or any custom account). */
export type TypedDataAccount = Pick<LocalAccount, "address" | "signTypedData">;

type AccountCall<K extends SignedKind> = (account: TypedDataAccount, message: SignedMessages[K], config: SigningConfig) => Promise<Hex>;

const ACCOUNT_CALLS: { [K in SignedKind]: AccountCall<K> } = {
  Order: (account, message, config) =>
    account.signTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "Order", message }),
  OrderCancel: (account, message, config) =>
    account.signTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "OrderCancel", message }),
  MassCancel: (account, message, config) =>
    account.signTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "MassCancel", message }),
  CancelAllAfter: (account, message, config) =>
    account.signTypedData({ domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "CancelAllAfter", message }),
};

/** A signer over a viem account (hardware wallets, remote signers, ...): asynchronous. */
export function viemAccountSigner(account: TypedDataAccount, config: SigningConfig = DEFAULT_SIGNING_CONFIG): ClientSigner {
  checkSigningConfig(config);
  return Object.freeze({
    address: account.address.toLowerCase() as Address,
    config,
    sign<K extends SignedKind>(kind: K, message: SignedMessages[K]): Promise<Hex> {
      const call: AccountCall<K> = ACCOUNT_CALLS[kind];
      return call(account, message, config);
    },
  });
}
