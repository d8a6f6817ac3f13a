/**
 * The published test vectors of shared/reference/signing.md, through the
 * wire builders, both signers and both recovery paths, plus the exact type
 * strings and domain of the reference deployment.
 */
import { domainSeparator as viemDomainSeparator } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SIGNING_CONFIG,
  signingConfig,
  typedDataDomain,
} from "../../src/signing/domain.ts";
import { createTypedDataHasher } from "../../src/signing/digest.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { cancelMessage, orderMessage } from "../../src/signing/messages.ts";
import { ADDON } from "../../src/signing/addon.ts";
import { native } from "../../src/signing/native.ts";
import { signCancel, signMessage, signOrder } from "../../src/signing/sign.ts";
import { encodeType } from "../../src/signing/types.ts";
import { recoverSigner, recoverSignerNative, recoverSignerViem, setVerifyPath, verifyPath } from "../../src/signing/verify.ts";

const KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

const ORDER_SIGNATURE =
  "0x8b7d36f622ad44815d66a6f75678f40c99cdb965088bcc857b53db5f8a7b272d0204574e11bb9c8109c132490b7f36ff4dc6ee1e93c277a616cf60c2db26cce61c";
const CANCEL_SIGNATURE =
  "0x90ddba6ff879dee4773c214c927a470720f42378574281866edce100ea8c59d775fb29e4ab6108a9ea84bfe12fffcdbbd6dfff98ea6ae034bbd87f4c21254f941b";

/** Vector 1 as a createOrder wire body (perp IOC LIMIT buy). */
const ORDER_MESSAGE = orderMessage(
  {
    accountId: 12345,
    exchangeId: 2,
    isBuy: true,
    orderType: "LIMIT",
    timeInForce: "IOC",
    limitPx: "3000",
    qty: "0.5",
    reduceOnly: false,
    clientOrderId: "42",
    nonce: "1700000000000000",
    deadline: 1745000000,
    signerWallet: ADDRESS,
  },
  { marketId: 1n, isSpot: false },
);

/** Vector 2 as a cancelOrder wire body (by orderId). */
const CANCEL_MESSAGE = cancelMessage(
  { accountId: 12345, orderId: "63552420354981888", nonce: "1700000000000001", deadline: 1745000060 },
  { marketId: 1n, isSpot: false },
);

describe("the reference deployment's types and domain", () => {
  it("derives exactly the type strings of signing.md", () => {
    expect(encodeType("Order")).toBe(
      "Order(uint256 verifyingChainId,uint256 deadline,OrderDetails order)" +
        "OrderDetails(uint128 accountId,uint128 marketId,uint128 exchangeId,uint8 orderType,int256 quantity,uint256 limitPrice,uint256 triggerPrice,uint8 timeInForce,uint64 clientOrderId,bool reduceOnly,bool postOnly,uint256 expiresAfter,address signer,uint256 nonce)",
    );
    expect(encodeType("OrderCancel")).toBe(
      "OrderCancel(uint64 verifyingChainId,uint64 deadline,OrderCancelDetails cancel)" +
        "OrderCancelDetails(uint64 accountId,uint64 marketId,uint64 orderId,uint64 clOrdId,uint64 nonce)",
    );
    expect(encodeType("MassCancel")).toBe(
      "MassCancel(uint64 verifyingChainId,uint64 deadline,MassCancelDetails massCancel)MassCancelDetails(uint64 accountId,uint64 marketId,uint64 nonce)",
    );
    expect(encodeType("CancelAllAfter")).toBe(
      "CancelAllAfter(uint64 verifyingChainId,uint64 deadline,CancelAllAfterDetails cancelAllAfter)" +
        "CancelAllAfterDetails(uint64 accountId,uint64 timeoutMs,uint64 nonce)",
    );
  });

  it("defaults to the devnet deployment, with no chainId in the domain", () => {
    expect(DEFAULT_SIGNING_CONFIG).toEqual({
      name: "Reya",
      version: "1",
      verifyingContract: "0x7Ec89E555c771D2B5939aBE5C4E4291852633D4D",
      verifyingChainId: 89346162n,
    });
    expect(Object.keys(typedDataDomain(DEFAULT_SIGNING_CONFIG))).toEqual(["name", "version", "verifyingContract"]);
    expect(signingConfig()).toEqual(DEFAULT_SIGNING_CONFIG);
  });

  it("computes the same domain separator as viem, per config", () => {
    if (native === null) throw new Error("native add-ons expected in this environment");
    const hasher = createTypedDataHasher(native.keccak256);
    const mainnet = signingConfig({ verifyingChainId: 1729n, verifyingContract: "0xfc8c96be87da63cecddbf54abfa7b13ee8044739" });
    for (const config of [DEFAULT_SIGNING_CONFIG, mainnet, signingConfig({ name: "Other", version: "2" })]) {
      const expected = viemDomainSeparator({ domain: typedDataDomain(config) });
      expect(`0x${hasher.domainSeparator(config).toString("hex")}`).toBe(expected);
    }
  });

  it("refuses a config whose contract checksum is wrong, whose contract is not an address, or whose chain id exceeds uint64", () => {
    expect(() => signingConfig({ verifyingContract: "0x7ec89E555c771D2B5939aBE5C4E4291852633D4D" })).toThrow(
      'verifyingContract "0x7ec89E555c771D2B5939aBE5C4E4291852633D4D" is an address with an invalid EIP-55 checksum (give it all lowercase, or checksummed)',
    );
    expect(() => signingConfig({ verifyingContract: "0x12" })).toThrow('verifyingContract "0x12" is not an address: 0x and 40 hex digits');
    expect(() => signingConfig({ verifyingChainId: 1n << 64n })).toThrow(/uint64/);
  });
});

describe("test vector 1: Order", () => {
  it("is encoded from the wire body as signing.md lists it", () => {
    expect(ORDER_MESSAGE).toEqual({
      verifyingChainId: 89346162n,
      deadline: 1745000000n,
      order: {
        accountId: 12345n,
        marketId: 1n,
        exchangeId: 2n,
        orderType: 0,
        quantity: 5n * 10n ** 17n,
        limitPrice: 3000n * 10n ** 18n,
        triggerPrice: 0n,
        timeInForce: 1,
        clientOrderId: 42n,
        reduceOnly: false,
        postOnly: false,
        expiresAfter: 0n,
        signer: ADDRESS.toLowerCase(),
        nonce: 1700000000000000n,
      },
    });
  });

  it("signs to the published bytes with viem and with the fast signer", async () => {
    expect(await signOrder(KEY, ORDER_MESSAGE)).toBe(ORDER_SIGNATURE);
    expect(await signMessage("Order", KEY, ORDER_MESSAGE)).toBe(ORDER_SIGNATURE);
    expect(createFastSigner(KEY).sign("Order", ORDER_MESSAGE)).toBe(ORDER_SIGNATURE);
  });

  it("recovers the published signer on both paths", async () => {
    expect(recoverSignerNative("Order", ORDER_MESSAGE, ORDER_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
    expect(await recoverSignerViem("Order", ORDER_MESSAGE, ORDER_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
  });
});

describe("test vector 2: OrderCancel", () => {
  it("is encoded from the wire body with clOrdId 0", () => {
    expect(CANCEL_MESSAGE).toEqual({
      verifyingChainId: 89346162n,
      deadline: 1745000060n,
      cancel: { accountId: 12345n, marketId: 1n, orderId: 63552420354981888n, clOrdId: 0n, nonce: 1700000000000001n },
    });
  });

  it("signs to the published bytes with viem and with the fast signer", async () => {
    expect(await signCancel(KEY, CANCEL_MESSAGE)).toBe(CANCEL_SIGNATURE);
    expect(createFastSigner(KEY).sign("OrderCancel", CANCEL_MESSAGE)).toBe(CANCEL_SIGNATURE);
  });

  it("recovers the published signer on both paths", async () => {
    expect(recoverSignerNative("OrderCancel", CANCEL_MESSAGE, CANCEL_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
    expect(await recoverSignerViem("OrderCancel", CANCEL_MESSAGE, CANCEL_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
  });
});

describe("path selection", () => {
  it("runs natively here, and can be forced onto viem and back", async () => {
    // shadowbook's add-on when it is built (npm ci builds it), else the keccak package's sponge.
    expect(native?.keccakVia).toBe(typeof ADDON?.["keccak256"] === "function" ? "addon" : "sponge");
    expect(verifyPath()).toBe("native");
    try {
      setVerifyPath("viem");
      expect(verifyPath()).toBe("viem");
      expect(await recoverSigner("Order", ORDER_MESSAGE, ORDER_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
    } finally {
      setVerifyPath("auto");
    }
    expect(verifyPath()).toBe("native");
    expect(await recoverSigner("OrderCancel", CANCEL_MESSAGE, CANCEL_SIGNATURE)).toEqual({ ok: true, address: ADDRESS.toLowerCase() });
  });

  it("derives the fast signer's address as viem does", () => {
    expect(createFastSigner(KEY).address).toBe(privateKeyToAccount(KEY).address.toLowerCase());
  });
});
