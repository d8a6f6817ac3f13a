/**
 * fast-check arbitraries of signed messages, for the signing tests: raw
 * messages over the full range of each EIP-712 type (extremes weighted in),
 * messages built from wire bodies through the builders, private keys, and
 * single-field tamperings.
 */
import fc from "fast-check";
import { getAddress, type Address, type Hex } from "viem";
import { orderMessage } from "../../src/signing/messages.ts";
import { TRIGGER_QUANTITY_SENTINEL } from "../../src/signing/domain.ts";
import {
  SIGNING_TYPES,
  type SigningTypeName,
  type CancelAllAfterMessage,
  type MassCancelMessage,
  type OrderCancelMessage,
  type OrderMessage,
  type SignedKind,
  type SignedMessages,
} from "../../src/signing/types.ts";
import type { OrderBody } from "../../src/signing/wire.ts";

export const SEED = 7;

export const UINT64_MAX = (1n << 64n) - 1n;
export const UINT128_MAX = (1n << 128n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;
export const INT256_MAX = (1n << 255n) - 1n;
export const INT256_MIN = -(1n << 255n);
/** secp256k1 group order n. */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Any uint of `max`, with 0, 1, max - 1 and max drawn often. */
export function uintUpTo(max: bigint): fc.Arbitrary<bigint> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(0n, 1n, max - 1n, max) },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 1n << 64n }).map((v) => (v > max ? max : v)) },
    { weight: 2, arbitrary: fc.bigInt({ min: 0n, max }) },
  );
}

/** Any int256, with the bounds, ±1, the trigger sentinels and 1e-18 steps drawn often. */
export const int256 = fc.oneof(
  fc.constantFrom(INT256_MIN, INT256_MAX, -1n, 0n, 1n, TRIGGER_QUANTITY_SENTINEL, -TRIGGER_QUANTITY_SENTINEL, INT256_MIN + 1n),
  fc.bigInt({ min: INT256_MIN, max: INT256_MAX }),
  fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }),
);

const uint8 = fc.oneof(fc.constantFrom(0, 1, 2, 255), fc.integer({ min: 0, max: 255 }));

/** A 20-byte address, lowercase or EIP-55 checksummed (both are valid for viem). */
export const address: fc.Arbitrary<Address> = fc
  .tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean())
  .map(([bytes, checksummed]) => {
    const lower = `0x${Buffer.from(bytes).toString("hex")}` as Address;
    return checksummed ? getAddress(lower) : lower;
  });

export const orderMessageArb: fc.Arbitrary<OrderMessage> = fc.record({
  verifyingChainId: uintUpTo(UINT256_MAX),
  deadline: uintUpTo(UINT256_MAX),
  order: fc.record({
    accountId: uintUpTo(UINT128_MAX),
    marketId: fc.oneof(uintUpTo(UINT128_MAX), fc.bigInt({ min: 10n ** 10n, max: 10n ** 10n + 1000n })),
    exchangeId: uintUpTo(UINT128_MAX),
    orderType: uint8,
    quantity: int256,
    limitPrice: uintUpTo(UINT256_MAX),
    triggerPrice: uintUpTo(UINT256_MAX),
    timeInForce: uint8,
    clientOrderId: uintUpTo(UINT64_MAX),
    reduceOnly: fc.boolean(),
    postOnly: fc.boolean(),
    expiresAfter: uintUpTo(UINT256_MAX),
    signer: address,
    nonce: uintUpTo(UINT256_MAX),
  }),
});

export const cancelMessageArb: fc.Arbitrary<OrderCancelMessage> = fc.record({
  verifyingChainId: uintUpTo(UINT64_MAX),
  deadline: uintUpTo(UINT64_MAX),
  cancel: fc.record({
    accountId: uintUpTo(UINT64_MAX),
    marketId: fc.oneof(uintUpTo(UINT64_MAX), fc.bigInt({ min: 10n ** 10n, max: 10n ** 10n + 1000n })),
    orderId: uintUpTo(UINT64_MAX),
    clOrdId: uintUpTo(UINT64_MAX),
    nonce: uintUpTo(UINT64_MAX),
  }),
});

export const massCancelMessageArb: fc.Arbitrary<MassCancelMessage> = fc.record({
  verifyingChainId: uintUpTo(UINT64_MAX),
  deadline: uintUpTo(UINT64_MAX),
  massCancel: fc.record({ accountId: uintUpTo(UINT64_MAX), marketId: uintUpTo(UINT64_MAX), nonce: uintUpTo(UINT64_MAX) }),
});

export const cancelAllAfterMessageArb: fc.Arbitrary<CancelAllAfterMessage> = fc.record({
  verifyingChainId: uintUpTo(UINT64_MAX),
  deadline: uintUpTo(UINT64_MAX),
  cancelAllAfter: fc.record({ accountId: uintUpTo(UINT64_MAX), timeoutMs: uintUpTo(UINT64_MAX), nonce: uintUpTo(UINT64_MAX) }),
});

/** A wire decimal with up to 18 fraction digits (18 drawn often), optionally in exponent form. */
const wireDecimal = fc
  .tuple(
    fc.bigInt({ min: 0n, max: 10n ** 30n }),
    fc.oneof(fc.constant(18), fc.integer({ min: 0, max: 18 })),
    fc.boolean(),
  )
  .map(([units, fractionDigits, exponentForm]) => {
    if (exponentForm) return `${units}e-${fractionDigits}`;
    const text = units.toString().padStart(fractionDigits + 1, "0");
    return fractionDigits === 0 ? text : `${text.slice(0, -fractionDigits)}.${text.slice(-fractionDigits)}`;
  });

/** A createOrder body as the wire carries it, with its market; limits and triggers, perp and spot. */
export const orderBodyArb: fc.Arbitrary<{ body: OrderBody; marketId: bigint; isSpot: boolean }> = fc
  .record({
    isSpot: fc.boolean(),
    marketId: fc.bigInt({ min: 0n, max: 10n ** 10n - 1n }),
    accountId: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    exchangeId: fc.integer({ min: 0, max: 10 }),
    isBuy: fc.boolean(),
    orderType: fc.constantFrom("LIMIT", "LIMIT", "STOP_LOSS", "TAKE_PROFIT"),
    timeInForce: fc.constantFrom("IOC", "GTC", "GTT"),
    limitPx: wireDecimal,
    qty: wireDecimal,
    triggerPx: wireDecimal,
    reduceOnly: fc.option(fc.boolean(), { nil: undefined }),
    postOnly: fc.option(fc.boolean(), { nil: undefined }),
    expiresAfter: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
    clientOrderId: fc.option(uintUpTo(UINT64_MAX).map(String), { nil: undefined }),
    nonce: uintUpTo(UINT256_MAX).map(String),
    deadline: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    signerWallet: address,
  })
  .map(({ isSpot, marketId, orderType, qty, triggerPx, ...rest }) => {
    const isTrigger = orderType !== "LIMIT";
    const body: OrderBody = { ...rest, orderType, ...(isTrigger ? { triggerPx } : { qty }) };
    return { body, marketId, isSpot: isTrigger ? false : isSpot };
  });

/** Orders built from wire bodies through `orderMessage`. */
export const builtOrderMessageArb: fc.Arbitrary<OrderMessage> = orderBodyArb.map(({ body, marketId, isSpot }) =>
  orderMessage(body, { marketId, isSpot }),
);

/** A message of any kind, with its kind. */
export type AnyMessage = { [K in SignedKind]: { kind: K; message: SignedMessages[K] } }[SignedKind];

export const anyMessageArb: fc.Arbitrary<AnyMessage> = fc.oneof(
  orderMessageArb.map((message) => ({ kind: "Order" as const, message })),
  builtOrderMessageArb.map((message) => ({ kind: "Order" as const, message })),
  cancelMessageArb.map((message) => ({ kind: "OrderCancel" as const, message })),
  massCancelMessageArb.map((message) => ({ kind: "MassCancel" as const, message })),
  cancelAllAfterMessageArb.map((message) => ({ kind: "CancelAllAfter" as const, message })),
);

/** A valid secp256k1 private key. */
export const privateKeyArb: fc.Arbitrary<Hex> = fc
  .bigInt({ min: 1n, max: CURVE_ORDER - 1n })
  .map((k) => `0x${k.toString(16).padStart(64, "0")}` as Hex);

/** The leaf fields of a kind, as [path, EIP-712 type]: the envelope's scalars, then the details struct's members. */
export function leafFields(kind: SignedKind): { path: [string] | [string, string]; type: string }[] {
  const leaves: { path: [string] | [string, string]; type: string }[] = [];
  for (const field of SIGNING_TYPES[kind]) {
    const nested = Object.hasOwn(SIGNING_TYPES, field.type) ? SIGNING_TYPES[field.type as SigningTypeName] : undefined;
    if (nested === undefined) leaves.push({ path: [field.name], type: field.type });
    else for (const member of nested) leaves.push({ path: [field.name, member.name], type: member.type });
  }
  return leaves;
}

type Leaf = bigint | number | boolean | string;

/** `value` changed by `delta` (>= 1) within its EIP-712 type, so that the result always differs and stays valid. */
function changed(value: Leaf, type: string, delta: bigint): Leaf {
  if (type === "bool") return !value;
  if (type === "address") {
    const bytes = Buffer.from(String(value).slice(2), "hex");
    const index = Number(delta % 20n);
    bytes[index] = (bytes[index] ?? 0) ^ (Number(delta % 255n) + 1);
    return `0x${bytes.toString("hex")}`;
  }
  const match = /^(u?)int(\d+)$/.exec(type);
  if (match === null) throw new Error(`no tampering for type ${type}`);
  const bits = BigInt(match[2] ?? "256");
  const modulus = 1n << bits;
  const step = (delta % (modulus - 1n)) + 1n; // 1 .. modulus - 1: never a full turn
  if (typeof value === "number") return Number((BigInt(value) + step) % modulus);
  if (typeof value !== "bigint") throw new Error(`field of type ${type} is not a bigint`);
  if (match[1] === "u") return (value + step) % modulus;
  const half = modulus >> 1n;
  const shifted = (value + half + step) % modulus; // to unsigned, add, back
  return shifted - half;
}

/** A copy of `message` with the leaf at `path` changed by `delta`. */
export function tampered<K extends SignedKind>(kind: K, message: SignedMessages[K], fieldIndex: number, delta: bigint): SignedMessages[K] {
  const leaves = leafFields(kind);
  const leaf = leaves[fieldIndex % leaves.length];
  if (leaf === undefined) throw new Error("no leaf fields");
  const copy = structuredClone(message);
  const record = copy as unknown as Record<string, Leaf | Record<string, Leaf>>;
  const [head, tail] = leaf.path;
  if (tail === undefined) {
    record[head] = changed(record[head] as Leaf, leaf.type, delta);
  } else {
    const inner = record[head] as Record<string, Leaf>;
    inner[tail] = changed(inner[tail] as Leaf, leaf.type, delta);
  }
  return copy;
}
