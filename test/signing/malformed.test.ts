/**
 * Malformed signatures and unsignable messages are refused cleanly (a typed
 * failure, never a throw), the same way on both paths; and the cases where
 * viem is looser than our parser are shown, so the pre-parse is justified.
 */
import { recoverTypedDataAddress } from "viem";
import { describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG, typedDataDomain } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { parseSignature, serializeSignature } from "../../src/signing/signature.ts";
import { SIGNING_TYPES, type OrderMessage, type SignedKind, type SignedMessages } from "../../src/signing/types.ts";
import { recoverSignerNative, recoverSignerViem, type RecoverResult } from "../../src/signing/verify.ts";
import { CURVE_ORDER, INT256_MAX, INT256_MIN, UINT64_MAX } from "./arbitraries.ts";

const KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const signer = createFastSigner(KEY);

const ORDER: OrderMessage = {
  verifyingChainId: 89346162n,
  deadline: 1745000000n,
  order: {
    accountId: 12345n,
    marketId: 1n,
    exchangeId: 2n,
    orderType: 0,
    quantity: -5n * 10n ** 17n,
    limitPrice: 3000n * 10n ** 18n,
    triggerPrice: 0n,
    timeInForce: 0,
    clientOrderId: 0n,
    reduceOnly: false,
    postOnly: true,
    expiresAfter: 0n,
    signer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    nonce: 1n,
  },
};
const SIGNATURE = signer.sign("Order", ORDER);
const R = BigInt(SIGNATURE.slice(0, 66));
const S = BigInt(`0x${SIGNATURE.slice(66, 130)}`);
const V = SIGNATURE.slice(130);

function word(value: bigint): string {
  return value.toString(16).padStart(64, "0");
}

function withRS(r: bigint, s: bigint, v = V): string {
  return `0x${word(r)}${word(s)}${v}`;
}

/** Both paths' results; they must agree on success, address and reason. */
async function both<K extends SignedKind>(kind: K, message: SignedMessages[K], signature: string): Promise<RecoverResult> {
  const native = recoverSignerNative(kind, message, signature);
  const viem = await recoverSignerViem(kind, message, signature);
  expect(viem.ok).toBe(native.ok);
  if (native.ok && viem.ok) expect(viem.address).toBe(native.address);
  if (!native.ok && !viem.ok) {
    expect(viem.reason).toBe(native.reason);
    expect(native.detail.length).toBeGreaterThan(0);
    expect(viem.detail.length).toBeGreaterThan(0);
  }
  return native;
}

async function reason<K extends SignedKind>(kind: K, message: SignedMessages[K], signature: string): Promise<string> {
  const result = await both(kind, message, signature);
  return result.ok ? "ok" : result.reason;
}

describe("signature wire form", () => {
  it.each([
    ["empty", ""],
    ["bare 0x", "0x"],
    ["no 0x prefix", SIGNATURE.slice(2)],
    ["uppercase 0X prefix", `0X${SIGNATURE.slice(2)}`],
    ["64 bytes", SIGNATURE.slice(0, -2)],
    ["66 bytes", `${SIGNATURE}00`],
    ["odd number of digits", SIGNATURE.slice(0, -1)],
    ["a non-hex digit", `${SIGNATURE.slice(0, 40)}g${SIGNATURE.slice(41)}`],
    ["a non-hex digit in v", `${SIGNATURE.slice(0, 130)}1x`],
    ["whitespace", ` ${SIGNATURE.slice(1)}`],
    ["132 non-hex characters", "z".repeat(132)],
  ])("refuses %s as SIGNATURE_FORMAT", async (_name, signature) => {
    expect(await reason("Order", ORDER, signature)).toBe("SIGNATURE_FORMAT");
  });

  it("refuses a value that is not a string", async () => {
    const notAString = 42 as unknown as string;
    expect(await reason("Order", ORDER, notAString)).toBe("SIGNATURE_FORMAT");
  });

  it.each(["1d", "1e", "02", "03", "25", "26", "ff"])("refuses v = 0x%s as SIGNATURE_V, as viem does", async (v) => {
    const signature = `${SIGNATURE.slice(0, 130)}${v}`;
    expect(await reason("Order", ORDER, signature)).toBe("SIGNATURE_V");
    const direct = recoverTypedDataAddress({
      domain: typedDataDomain(DEFAULT_SIGNING_CONFIG),
      types: SIGNING_TYPES,
      primaryType: "Order",
      message: ORDER,
      signature: signature as `0x${string}`,
    });
    await expect(direct).rejects.toThrow();
  });

  it("accepts v as y parity (0 or 1) as well as 27 or 28, for the same signer", async () => {
    const parity = V === "1b" ? "00" : "01";
    const result = await both("Order", ORDER, `${SIGNATURE.slice(0, 130)}${parity}`);
    expect(result).toEqual({ ok: true, address: signer.address });
    const flipped = await both("Order", ORDER, `${SIGNATURE.slice(0, 130)}${V === "1b" ? "1c" : "1b"}`);
    expect(flipped.ok && flipped.address !== signer.address).toBe(true);
  });

  it("accepts the high-s twin of a signature for the same signer, as viem does", async () => {
    const twin = withRS(R, CURVE_ORDER - S, V === "1b" ? "1c" : "1b");
    expect(await both("Order", ORDER, twin)).toEqual({ ok: true, address: signer.address });
  });

  it.each([
    ["r = 0", () => withRS(0n, S)],
    ["s = 0", () => withRS(R, 0n)],
    ["r = n", () => withRS(CURVE_ORDER, S)],
    ["s = n", () => withRS(R, CURVE_ORDER)],
    ["r = 2^256 - 1", () => withRS((1n << 256n) - 1n, S)],
    ["s = 2^256 - 1", () => withRS(R, (1n << 256n) - 1n)],
    ["r not the x of a curve point", () => withRS(5n, S)],
  ])("refuses %s as SIGNATURE_INVALID", async (_name, make) => {
    expect(await reason("Order", ORDER, make())).toBe("SIGNATURE_INVALID");
  });

  it("hides a viem leniency: viem takes a 65-character non-hex string as UTF-8 bytes and recovers from it", async () => {
    // 64 "b" then ESC (0x1b): read as bytes, r = s = 0x6262...62 and v = 27, which happens to recover.
    const text = `${"b".repeat(64)}\u001b`;
    const direct = await recoverTypedDataAddress({
      domain: typedDataDomain(DEFAULT_SIGNING_CONFIG),
      types: SIGNING_TYPES,
      primaryType: "Order",
      message: ORDER,
      signature: text as `0x${string}`,
    });
    expect(direct).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await reason("Order", ORDER, text)).toBe("SIGNATURE_FORMAT");
  });
});

describe("unsignable messages", () => {
  const order = (changes: Partial<OrderMessage["order"]>): OrderMessage => ({ ...ORDER, order: { ...ORDER.order, ...changes } });

  it.each([
    ["quantity above int256", order({ quantity: INT256_MAX + 1n })],
    ["quantity below int256", order({ quantity: INT256_MIN - 1n })],
    ["negative limitPrice", order({ limitPrice: -1n })],
    ["limitPrice above uint256", order({ limitPrice: 1n << 256n })],
    ["accountId above uint128", order({ accountId: 1n << 128n })],
    ["clientOrderId above uint64", order({ clientOrderId: UINT64_MAX + 1n })],
    ["orderType above uint8", order({ orderType: 256 })],
    ["negative timeInForce", order({ timeInForce: -1 })],
    ["a signer with a wrong checksum", order({ signer: "0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266" })],
    ["a signer that is not an address", order({ signer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226" })],
    ["a deadline above uint256", { ...ORDER, deadline: 1n << 256n }],
  ])("refuses an Order with %s as MESSAGE_INVALID", async (_name, message) => {
    expect(await reason("Order", message, SIGNATURE)).toBe("MESSAGE_INVALID");
  });

  it("refuses cancel-family values beyond uint64 as MESSAGE_INVALID", async () => {
    const cancel = { verifyingChainId: 1n, deadline: 2n, cancel: { accountId: 1n, marketId: 1n, orderId: 1n, clOrdId: 0n, nonce: UINT64_MAX + 1n } };
    expect(await reason("OrderCancel", cancel, SIGNATURE)).toBe("MESSAGE_INVALID");
    const mass = { verifyingChainId: UINT64_MAX + 1n, deadline: 2n, massCancel: { accountId: 1n, marketId: 0n, nonce: 1n } };
    expect(await reason("MassCancel", mass, SIGNATURE)).toBe("MESSAGE_INVALID");
    const after = { verifyingChainId: 1n, deadline: 2n, cancelAllAfter: { accountId: 1n, timeoutMs: -1n, nonce: 1n } };
    expect(await reason("CancelAllAfter", after, SIGNATURE)).toBe("MESSAGE_INVALID");
  });

  it("accepts uint64 max in every cancel field", async () => {
    const max = UINT64_MAX;
    const cancel = { verifyingChainId: max, deadline: max, cancel: { accountId: max, marketId: max, orderId: max, clOrdId: max, nonce: max } };
    const signature = signer.sign("OrderCancel", cancel);
    expect(await both("OrderCancel", cancel, signature)).toEqual({ ok: true, address: signer.address });
  });
});

describe("signature helpers", () => {
  it("parse and serialize are inverse, with v emitted as 27 or 28", () => {
    const parsed = parseSignature(SIGNATURE);
    if (typeof parsed === "string") throw new Error(parsed);
    expect(serializeSignature(parsed.rs, parsed.recid)).toBe(SIGNATURE);
    expect(parseSignature(`${SIGNATURE.slice(0, 130)}01`)).toEqual({ rs: parsed.rs, recid: 1 });
    expect(parseSignature("0x12")).toBe("SIGNATURE_FORMAT");
    expect(parseSignature(`${SIGNATURE.slice(0, 130)}1d`)).toBe("SIGNATURE_V");
    expect(() => serializeSignature(new Uint8Array(63), 0)).toThrow(RangeError);
    expect(() => serializeSignature(parsed.rs, 2)).toThrow(RangeError);
  });

  it("refuses invalid private keys in the fast signer", () => {
    expect(() => createFastSigner("0x00")).toThrow(RangeError);
    expect(() => createFastSigner(`0x${"0".repeat(64)}`)).toThrow(RangeError);
    expect(() => createFastSigner(`0x${CURVE_ORDER.toString(16)}`)).toThrow(RangeError);
  });
});
