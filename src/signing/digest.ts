/**
 * A hand-written EIP-712 digest of the four message families, for the fast
 * path. viem's `hashTypedData` walks the type definitions and builds hex
 * strings for every field; here the layout is fixed in code:
 *
 *   digest     = keccak(0x19 0x01 || domainSeparator || hashStruct(primary))
 *   hashStruct = keccak(typeHash || field words...), the nested details
 *                struct hashed first and placed as one word
 *
 * Type hashes are computed once from SIGNING_TYPES (the same definitions
 * viem is given); the domain separator and the 66-byte prefix buffer are
 * cached per config object. Every word is written into buffers that belong
 * to the hasher and are reused call after call, each hash straight into the
 * buffer the next hash reads (keccak256Into): a digest is synchronous and
 * never re-entered, so sharing them is safe.
 *
 * Field checks mirror viem's `validateTypedData` and ABI encoder, so that a
 * message viem refuses to hash is refused here too: integers within their
 * widths (int256 in two's complement), booleans that are booleans, addresses
 * of 40 hex digits with a valid EIP-55 checksum when mixed case. A refused
 * field throws MessageFieldError naming it.
 */
import { isAddress } from "viem";
import type { SigningConfig } from "./domain.ts";
import { hexValue, isUpperHexLetter } from "./hex.ts";
import { copyingKeccak256Into, type Keccak256, type Keccak256Into } from "./keccak.ts";
import {
  encodeType,
  type CancelAllAfterMessage,
  type MassCancelMessage,
  type OrderCancelMessage,
  type OrderMessage,
  type SignedKind,
  type SignedMessages,
} from "./types.ts";

/** A message field that its EIP-712 type cannot hold. */
export class MessageFieldError extends Error {
  override readonly name = "MessageFieldError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TypedDataHasher {
  /** The EIP-712 digest that is signed; throws MessageFieldError for a field out of its type. */
  digest<K extends SignedKind>(kind: K, message: SignedMessages[K], config: SigningConfig): Buffer;
  /** The domain separator of `config` (cached). */
  domainSeparator(config: SigningConfig): Buffer;
}

const WORD = 32;
const MASK_64 = (1n << 64n) - 1n;
const LIMIT_64 = 1n << 64n;
const UINT64_MAX = MASK_64;
const UINT128_MAX = (1n << 128n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;
const INT256_MAX = (1n << 255n) - 1n;
const INT256_MIN = -(1n << 255n);
const TWO_256 = 1n << 256n;

const DOMAIN_TYPE = "EIP712Domain(string name,string version,address verifyingContract)";

const SAFE_LIMIT = BigInt(Number.MAX_SAFE_INTEGER);

/** Writes 0 <= value < 2^256 as one big-endian word at `offset`. */
function putWord(buf: Buffer, offset: number, value: bigint): void {
  if (value <= SAFE_LIMIT) {
    // Most fields (ids, counts, seconds, nonces from microsecond clocks) are small: plain byte stores,
    // no Buffer.fill or writeBigUInt64BE call. Exact: value < 2^53 is a safe integer.
    putSafeWord(buf, offset, Number(value));
    return;
  }
  if (value < LIMIT_64) {
    buf.fill(0, offset, offset + 24);
    buf.writeBigUInt64BE(value, offset + 24);
    return;
  }
  buf.writeBigUInt64BE(value >> 192n, offset);
  buf.writeBigUInt64BE((value >> 128n) & MASK_64, offset + 8);
  buf.writeBigUInt64BE((value >> 64n) & MASK_64, offset + 16);
  buf.writeBigUInt64BE(value & MASK_64, offset + 24);
}

/** Writes a safe integer 0 <= n < 2^53 as one big-endian word at `offset`. */
function putSafeWord(buf: Buffer, offset: number, n: number): void {
  const end = offset + 24;
  for (let i = offset; i < end; i++) buf[i] = 0;
  let low = n % 0x1_0000_0000;
  let high = (n - low) / 0x1_0000_0000;
  for (let i = offset + 31; i >= offset + 28; i--) {
    buf[i] = low & 0xff;
    low >>>= 8;
  }
  for (let i = offset + 27; i >= end; i--) {
    buf[i] = high & 0xff;
    high >>>= 8;
  }
}

function putUint(buf: Buffer, word: number, value: bigint, max: bigint, bits: number, field: string): void {
  if (typeof value !== "bigint" || value < 0n || value > max) {
    throw new MessageFieldError(field, `${field} ${String(value)} is not a uint${bits}`);
  }
  putWord(buf, word * WORD, value);
}

function putUint8(buf: Buffer, word: number, value: number, field: string): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 255) {
    throw new MessageFieldError(field, `${field} ${String(value)} is not a uint8`);
  }
  putSafeWord(buf, word * WORD, value);
}

function putInt256(buf: Buffer, word: number, value: bigint, field: string): void {
  if (typeof value !== "bigint" || value < INT256_MIN || value > INT256_MAX) {
    throw new MessageFieldError(field, `${field} ${String(value)} is not an int256`);
  }
  putWord(buf, word * WORD, value < 0n ? value + TWO_256 : value);
}

function putBool(buf: Buffer, word: number, value: boolean, field: string): void {
  if (typeof value !== "boolean") throw new MessageFieldError(field, `${field} ${String(value)} is not a bool`);
  putSafeWord(buf, word * WORD, value ? 1 : 0);
}

function putAddress(buf: Buffer, word: number, value: string, field: string): void {
  const offset = word * WORD;
  if (typeof value !== "string" || value.length !== 42 || value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 120) {
    throw new MessageFieldError(field, `${field} "${String(value)}" is not an address`);
  }
  buf.fill(0, offset, offset + 12);
  let mixedCase = false;
  for (let i = 0; i < 20; i++) {
    const high = value.charCodeAt(2 + 2 * i);
    const low = value.charCodeAt(3 + 2 * i);
    const h = hexValue(high);
    const l = hexValue(low);
    if (h < 0 || l < 0) throw new MessageFieldError(field, `${field} "${value}" is not an address`);
    if (isUpperHexLetter(high) || isUpperHexLetter(low)) mixedCase = true;
    buf[offset + 12 + i] = (h << 4) | l;
  }
  // viem refuses any address with an uppercase digit unless it is a valid EIP-55 checksum.
  if (mixedCase && !isAddress(value)) {
    throw new MessageFieldError(field, `${field} "${value}" has an invalid checksum`);
  }
}

/** A hasher over the given keccak256 (and its writing form, when there is one), with its own reusable buffers. */
export function createTypedDataHasher(keccak256: Keccak256, keccak256Into?: Keccak256Into): TypedDataHasher {
  const hashInto: Keccak256Into = keccak256Into ?? copyingKeccak256Into(keccak256);
  const typeHash = (encodedType: string): Buffer => keccak256(Buffer.from(encodedType, "utf8"));
  const ORDER_TYPE_HASH = typeHash(encodeType("Order"));
  const ORDER_DETAILS_TYPE_HASH = typeHash(encodeType("OrderDetails"));
  const CANCEL_TYPE_HASH = typeHash(encodeType("OrderCancel"));
  const CANCEL_DETAILS_TYPE_HASH = typeHash(encodeType("OrderCancelDetails"));
  const MASS_CANCEL_TYPE_HASH = typeHash(encodeType("MassCancel"));
  const MASS_CANCEL_DETAILS_TYPE_HASH = typeHash(encodeType("MassCancelDetails"));
  const CANCEL_ALL_AFTER_TYPE_HASH = typeHash(encodeType("CancelAllAfter"));
  const CANCEL_ALL_AFTER_DETAILS_TYPE_HASH = typeHash(encodeType("CancelAllAfterDetails"));

  // One buffer per layout, the type hash written once in word 0.
  const orderDetails = Buffer.alloc(15 * WORD);
  ORDER_DETAILS_TYPE_HASH.copy(orderDetails, 0);
  const cancelDetails = Buffer.alloc(6 * WORD);
  CANCEL_DETAILS_TYPE_HASH.copy(cancelDetails, 0);
  const threeFieldDetails = Buffer.alloc(4 * WORD); // MassCancelDetails and CancelAllAfterDetails
  const envelope = Buffer.alloc(4 * WORD); // typeHash, verifyingChainId, deadline, details hash

  const prefixes = new WeakMap<SigningConfig, Buffer>();

  function domainPrefix(config: SigningConfig): Buffer {
    let prefix = prefixes.get(config);
    if (prefix === undefined) {
      const domain = Buffer.alloc(4 * WORD);
      typeHash(DOMAIN_TYPE).copy(domain, 0);
      keccak256(Buffer.from(config.name, "utf8")).copy(domain, WORD);
      keccak256(Buffer.from(config.version, "utf8")).copy(domain, 2 * WORD);
      putAddress(domain, 3, config.verifyingContract, "verifyingContract");
      prefix = Buffer.alloc(2 + 2 * WORD);
      prefix[0] = 0x19;
      prefix[1] = 0x01;
      keccak256(domain).copy(prefix, 2);
      prefixes.set(config, prefix);
    }
    return prefix;
  }

  /**
   * hashStruct of the primary type over the filled details buffer, written
   * into `output` at `offset` (the details struct hashed into the envelope's
   * last word first).
   */
  function envelopeHashInto(
    primaryTypeHash: Buffer,
    chainId: bigint,
    deadline: bigint,
    details: Buffer,
    uintMax: bigint,
    bits: number,
    output: Buffer,
    offset: number,
  ): void {
    primaryTypeHash.copy(envelope, 0);
    putUint(envelope, 1, chainId, uintMax, bits, "verifyingChainId");
    putUint(envelope, 2, deadline, uintMax, bits, "deadline");
    hashInto(details, envelope, 3 * WORD);
    hashInto(envelope, output, offset);
  }

  function orderHash(message: OrderMessage, output: Buffer, offset: number): void {
    const o = message.order;
    const b = orderDetails;
    putUint(b, 1, o.accountId, UINT128_MAX, 128, "order.accountId");
    putUint(b, 2, o.marketId, UINT128_MAX, 128, "order.marketId");
    putUint(b, 3, o.exchangeId, UINT128_MAX, 128, "order.exchangeId");
    putUint8(b, 4, o.orderType, "order.orderType");
    putInt256(b, 5, o.quantity, "order.quantity");
    putUint(b, 6, o.limitPrice, UINT256_MAX, 256, "order.limitPrice");
    putUint(b, 7, o.triggerPrice, UINT256_MAX, 256, "order.triggerPrice");
    putUint8(b, 8, o.timeInForce, "order.timeInForce");
    putUint(b, 9, o.clientOrderId, UINT64_MAX, 64, "order.clientOrderId");
    putBool(b, 10, o.reduceOnly, "order.reduceOnly");
    putBool(b, 11, o.postOnly, "order.postOnly");
    putUint(b, 12, o.expiresAfter, UINT256_MAX, 256, "order.expiresAfter");
    putAddress(b, 13, o.signer, "order.signer");
    putUint(b, 14, o.nonce, UINT256_MAX, 256, "order.nonce");
    envelopeHashInto(ORDER_TYPE_HASH, message.verifyingChainId, message.deadline, b, UINT256_MAX, 256, output, offset);
  }

  function cancelHash(message: OrderCancelMessage, output: Buffer, offset: number): void {
    const c = message.cancel;
    const b = cancelDetails;
    putUint(b, 1, c.accountId, UINT64_MAX, 64, "cancel.accountId");
    putUint(b, 2, c.marketId, UINT64_MAX, 64, "cancel.marketId");
    putUint(b, 3, c.orderId, UINT64_MAX, 64, "cancel.orderId");
    putUint(b, 4, c.clOrdId, UINT64_MAX, 64, "cancel.clOrdId");
    putUint(b, 5, c.nonce, UINT64_MAX, 64, "cancel.nonce");
    envelopeHashInto(CANCEL_TYPE_HASH, message.verifyingChainId, message.deadline, b, UINT64_MAX, 64, output, offset);
  }

  function massCancelHash(message: MassCancelMessage, output: Buffer, offset: number): void {
    const m = message.massCancel;
    const b = threeFieldDetails;
    MASS_CANCEL_DETAILS_TYPE_HASH.copy(b, 0);
    putUint(b, 1, m.accountId, UINT64_MAX, 64, "massCancel.accountId");
    putUint(b, 2, m.marketId, UINT64_MAX, 64, "massCancel.marketId");
    putUint(b, 3, m.nonce, UINT64_MAX, 64, "massCancel.nonce");
    envelopeHashInto(MASS_CANCEL_TYPE_HASH, message.verifyingChainId, message.deadline, b, UINT64_MAX, 64, output, offset);
  }

  function cancelAllAfterHash(message: CancelAllAfterMessage, output: Buffer, offset: number): void {
    const m = message.cancelAllAfter;
    const b = threeFieldDetails;
    CANCEL_ALL_AFTER_DETAILS_TYPE_HASH.copy(b, 0);
    putUint(b, 1, m.accountId, UINT64_MAX, 64, "cancelAllAfter.accountId");
    putUint(b, 2, m.timeoutMs, UINT64_MAX, 64, "cancelAllAfter.timeoutMs");
    putUint(b, 3, m.nonce, UINT64_MAX, 64, "cancelAllAfter.nonce");
    envelopeHashInto(CANCEL_ALL_AFTER_TYPE_HASH, message.verifyingChainId, message.deadline, b, UINT64_MAX, 64, output, offset);
  }

  const structHashes: { [K in SignedKind]: (message: SignedMessages[K], output: Buffer, offset: number) => void } = {
    Order: orderHash,
    OrderCancel: cancelHash,
    MassCancel: massCancelHash,
    CancelAllAfter: cancelAllAfterHash,
  };

  return {
    digest<K extends SignedKind>(kind: K, message: SignedMessages[K], config: SigningConfig): Buffer {
      // The domain first, as viem checks it: a hand-built config with a bad
      // verifyingContract is refused before the message's fields are read.
      const hashStructInto: (message: SignedMessages[K], output: Buffer, offset: number) => void = structHashes[kind];
      const prefix = domainPrefix(config);
      hashStructInto(message, prefix, 2 + WORD);
      const digest = Buffer.allocUnsafe(WORD);
      hashInto(prefix, digest, 0);
      return digest;
    },
    domainSeparator(config: SigningConfig): Buffer {
      return Buffer.from(domainPrefix(config).subarray(2, 2 + WORD));
    },
  };
}
