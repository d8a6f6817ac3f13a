/**
 * The four EIP-712 message families, exactly as the reference deployment
 * signs them (shared/reference/signing.md, "Types"), and the TypeScript shapes
 * of their messages.
 *
 * Why the cancel family is uint64 while Order is uint128/uint256: the widths
 * are the reference deployment's (signing.md says "on purpose"), and they are
 * part of each type hash, so "widening for consistency" would reject every
 * real client. Our reading of the reason: an Order is also settled on chain
 * by the gateway contract, whose fields are uint128/uint256, while the cancel
 * family only acts on the off-chain book, where ids are uint64 (spec section
 * 1). One consequence: nonces are shared by all five operations, so a nonce
 * above 2^64 - 1 can sign an order but never a cancel; official clients use
 * microseconds since the epoch, far below that.
 */
import type { Address } from "viem";

/** The EIP-712 type definitions, in viem's shape (no EIP712Domain: viem derives it from the domain). */
export const SIGNING_TYPES = {
  Order: [
    { name: "verifyingChainId", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "order", type: "OrderDetails" },
  ],
  OrderDetails: [
    { name: "accountId", type: "uint128" },
    { name: "marketId", type: "uint128" },
    { name: "exchangeId", type: "uint128" },
    { name: "orderType", type: "uint8" },
    { name: "quantity", type: "int256" },
    { name: "limitPrice", type: "uint256" },
    { name: "triggerPrice", type: "uint256" },
    { name: "timeInForce", type: "uint8" },
    { name: "clientOrderId", type: "uint64" },
    { name: "reduceOnly", type: "bool" },
    { name: "postOnly", type: "bool" },
    { name: "expiresAfter", type: "uint256" },
    { name: "signer", type: "address" },
    { name: "nonce", type: "uint256" },
  ],
  OrderCancel: [
    { name: "verifyingChainId", type: "uint64" },
    { name: "deadline", type: "uint64" },
    { name: "cancel", type: "OrderCancelDetails" },
  ],
  OrderCancelDetails: [
    { name: "accountId", type: "uint64" },
    { name: "marketId", type: "uint64" },
    { name: "orderId", type: "uint64" },
    { name: "clOrdId", type: "uint64" },
    { name: "nonce", type: "uint64" },
  ],
  MassCancel: [
    { name: "verifyingChainId", type: "uint64" },
    { name: "deadline", type: "uint64" },
    { name: "massCancel", type: "MassCancelDetails" },
  ],
  MassCancelDetails: [
    { name: "accountId", type: "uint64" },
    { name: "marketId", type: "uint64" },
    { name: "nonce", type: "uint64" },
  ],
  CancelAllAfter: [
    { name: "verifyingChainId", type: "uint64" },
    { name: "deadline", type: "uint64" },
    { name: "cancelAllAfter", type: "CancelAllAfterDetails" },
  ],
  CancelAllAfterDetails: [
    { name: "accountId", type: "uint64" },
    { name: "timeoutMs", type: "uint64" },
    { name: "nonce", type: "uint64" },
  ],
} as const;

export type SigningTypes = typeof SIGNING_TYPES;

/** The primary types that are signed: one per message family. */
export const SIGNED_KINDS = ["Order", "OrderCancel", "MassCancel", "CancelAllAfter"] as const;
export type SignedKind = (typeof SIGNED_KINDS)[number];

/** `OrderDetails`: 14 flat members. Integers are bigint, except the uint8 codes. */
export interface OrderDetails {
  accountId: bigint;
  marketId: bigint;
  exchangeId: bigint;
  orderType: number;
  quantity: bigint;
  limitPrice: bigint;
  triggerPrice: bigint;
  timeInForce: number;
  clientOrderId: bigint;
  reduceOnly: boolean;
  postOnly: boolean;
  expiresAfter: bigint;
  signer: Address;
  nonce: bigint;
}

export interface OrderMessage {
  verifyingChainId: bigint;
  deadline: bigint;
  order: OrderDetails;
}

export interface OrderCancelDetails {
  accountId: bigint;
  marketId: bigint;
  orderId: bigint;
  clOrdId: bigint;
  nonce: bigint;
}

export interface OrderCancelMessage {
  verifyingChainId: bigint;
  deadline: bigint;
  cancel: OrderCancelDetails;
}

export interface MassCancelDetails {
  accountId: bigint;
  marketId: bigint;
  nonce: bigint;
}

export interface MassCancelMessage {
  verifyingChainId: bigint;
  deadline: bigint;
  massCancel: MassCancelDetails;
}

export interface CancelAllAfterDetails {
  accountId: bigint;
  timeoutMs: bigint;
  nonce: bigint;
}

export interface CancelAllAfterMessage {
  verifyingChainId: bigint;
  deadline: bigint;
  cancelAllAfter: CancelAllAfterDetails;
}

/** The message shape of each signed kind. */
export interface SignedMessages {
  Order: OrderMessage;
  OrderCancel: OrderCancelMessage;
  MassCancel: MassCancelMessage;
  CancelAllAfter: CancelAllAfterMessage;
}

/** Every struct type: the signed kinds and their details structs. */
export type SigningTypeName = keyof SigningTypes;

function isTypeName(name: string): name is SigningTypeName {
  return Object.hasOwn(SIGNING_TYPES, name);
}

/**
 * EIP-712 `encodeType`: the primary type, then every struct type it
 * references, sorted by name. Derived from SIGNING_TYPES so that the type
 * hashes of the fast path and the definitions given to viem cannot drift;
 * the tests pin the results to the strings of signing.md.
 */
export function encodeType(primary: SigningTypeName): string {
  const referenced = new Set<SigningTypeName>();
  const visit = (name: SigningTypeName): void => {
    for (const field of SIGNING_TYPES[name]) {
      if (isTypeName(field.type) && !referenced.has(field.type)) {
        referenced.add(field.type);
        visit(field.type);
      }
    }
  };
  visit(primary);
  referenced.delete(primary);
  const order = [primary, ...[...referenced].sort()];
  return order
    .map((name) => `${name}(${SIGNING_TYPES[name].map((field) => `${field.type} ${field.name}`).join(",")})`)
    .join("");
}
