/**
 * The reference signers: viem's `signTypedData` over SIGNING_TYPES and the
 * configured domain. They are the definition of a correct signature in this
 * project (the fast signer in fast-sign.ts is tested byte for byte against
 * them), and what the client SDK should use when the native add-ons are not
 * there. viem signs with RFC 6979 nonces and low s, so signatures are
 * deterministic.
 */
import type { Hex } from "viem";
import { signTypedData } from "viem/accounts";
import { DEFAULT_SIGNING_CONFIG, typedDataDomain, type SigningConfig } from "./domain.ts";
import {
  SIGNING_TYPES,
  type CancelAllAfterMessage,
  type MassCancelMessage,
  type OrderCancelMessage,
  type OrderMessage,
  type SignedKind,
  type SignedMessages,
} from "./types.ts";

export function signOrder(privateKey: Hex, message: OrderMessage, config: SigningConfig = DEFAULT_SIGNING_CONFIG): Promise<Hex> {
  return signTypedData({ privateKey, domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "Order", message });
}

export function signCancel(privateKey: Hex, message: OrderCancelMessage, config: SigningConfig = DEFAULT_SIGNING_CONFIG): Promise<Hex> {
  return signTypedData({ privateKey, domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "OrderCancel", message });
}

export function signMassCancel(privateKey: Hex, message: MassCancelMessage, config: SigningConfig = DEFAULT_SIGNING_CONFIG): Promise<Hex> {
  return signTypedData({ privateKey, domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "MassCancel", message });
}

export function signCancelAllAfter(
  privateKey: Hex,
  message: CancelAllAfterMessage,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): Promise<Hex> {
  return signTypedData({ privateKey, domain: typedDataDomain(config), types: SIGNING_TYPES, primaryType: "CancelAllAfter", message });
}

type ReferenceSigner<K extends SignedKind> = (privateKey: Hex, message: SignedMessages[K], config: SigningConfig) => Promise<Hex>;

const REFERENCE_SIGNERS: { [K in SignedKind]: ReferenceSigner<K> } = {
  Order: signOrder,
  OrderCancel: signCancel,
  MassCancel: signMassCancel,
  CancelAllAfter: signCancelAllAfter,
};

/** Signs a message of any kind with viem (the kind selects the primary type). */
export function signMessage<K extends SignedKind>(
  kind: K,
  privateKey: Hex,
  message: SignedMessages[K],
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): Promise<Hex> {
  const sign: ReferenceSigner<K> = REFERENCE_SIGNERS[kind];
  return sign(privateKey, message, config);
}
