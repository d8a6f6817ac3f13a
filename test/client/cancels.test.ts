/** cancelOrder, cancelAll and cancelAllAfter. */
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../../src/client/errors.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import type { CancelAllAfterMessage, MassCancelMessage, OrderCancelMessage } from "../../src/signing/types.ts";
import { recoverSignerNative } from "../../src/signing/verify.ts";
import { ACCOUNT_ID, ADDRESS, SIGNATURE, T0_SECONDS, testClient, testClock } from "./fixtures.ts";

const CHAIN = DEFAULT_SIGNING_CONFIG.verifyingChainId;
const NONCE = 1_718_000_000_123_456n;

function recovered<K extends "OrderCancel" | "MassCancel" | "CancelAllAfter">(
  kind: K,
  message: K extends "OrderCancel" ? OrderCancelMessage : K extends "MassCancel" ? MassCancelMessage : CancelAllAfterMessage,
  signature: unknown,
): string {
  if (typeof signature !== "string") throw new Error("no signature in the body");
  const result = recoverSignerNative(kind, message as never, signature);
  return result.ok ? result.address : `refused: ${result.reason}`;
}

describe("cancelOrder", () => {
  it("cancels by orderId: no signerWallet, a minute's deadline, OrderCancel with clOrdId 0", async () => {
    const { client, transport } = testClient();
    const response = await client.cancelOrder({ symbol: "ETHPERP", orderId: "63552420354981888" });
    const body = transport.body();
    expect(transport.calls[0]?.operation).toBe("cancelOrder");
    expect(body).toStrictEqual({
      orderId: "63552420354981888",
      accountId: ACCOUNT_ID,
      symbol: "ETHPERP",
      signature: expect.stringMatching(SIGNATURE),
      nonce: NONCE.toString(),
      deadline: T0_SECONDS + 60,
    });
    const message: OrderCancelMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      cancel: { accountId: BigInt(ACCOUNT_ID), marketId: 1n, orderId: 63552420354981888n, clOrdId: 0n, nonce: NONCE },
    };
    expect(recovered("OrderCancel", message, body["signature"])).toBe(ADDRESS);
    expect(response).toStrictEqual({ status: "CANCELLED", orderId: "63552420354981888" });
  });

  it("cancels by clientOrderId: orderId signed as 0", async () => {
    const { client, transport } = testClient();
    await client.cancelOrder({ symbol: "WETHRUSD", clientOrderId: "7" });
    const body = transport.body();
    expect(body).not.toHaveProperty("orderId");
    expect(body["clientOrderId"]).toBe("7");
    const message: OrderCancelMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      cancel: { accountId: BigInt(ACCOUNT_ID), marketId: 10_000_000_005n, orderId: 0n, clOrdId: 7n, nonce: NONCE },
    };
    expect(recovered("OrderCancel", message, body["signature"])).toBe(ADDRESS);
    expect(recovered("OrderCancel", { ...message, cancel: { ...message.cancel, orderId: 7n, clOrdId: 0n } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("reproduces the published cancel test vector byte for byte", async () => {
    const { client, transport } = testClient({ clock: testClock(1_700_000_000_000_001) });
    await client.cancelOrder({ symbol: "ETHPERP", orderId: "63552420354981888", deadline: 1745000060 });
    expect(transport.body()["signature"]).toBe(
      "0x90ddba6ff879dee4773c214c927a470720f42378574281866edce100ea8c59d775fb29e4ab6108a9ea84bfe12fffcdbbd6dfff98ea6ae034bbd87f4c21254f941b",
    );
  });

  it.each([
    { name: "both ids", parameters: { orderId: "1", clientOrderId: "2" }, field: "clientOrderId" },
    { name: "no id", parameters: {}, field: "orderId" },
    { name: "a zero clientOrderId", parameters: { clientOrderId: "0" }, field: "clientOrderId" },
    { name: "a non-decimal orderId", parameters: { orderId: "0x10" }, field: "orderId" },
  ])("refuses $name before sending", async ({ parameters, field }) => {
    const { client, transport } = testClient();
    const call = client.cancelOrder({ symbol: "ETHPERP", ...parameters } as never);
    await expect(call).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(call).rejects.toMatchObject({ field });
    expect(transport.calls).toHaveLength(0);
  });
});

describe("cancelAll", () => {
  it("cancels one market: MassCancel over its marketId", async () => {
    const { client, transport } = testClient();
    const response = await client.cancelAll({ symbol: "BTCPERP" });
    const body = transport.body();
    expect(body).toStrictEqual({
      accountId: ACCOUNT_ID,
      symbol: "BTCPERP",
      signature: expect.stringMatching(SIGNATURE),
      nonce: NONCE.toString(),
      deadline: T0_SECONDS + 60,
    });
    const message: MassCancelMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      massCancel: { accountId: BigInt(ACCOUNT_ID), marketId: 2n, nonce: NONCE },
    };
    expect(recovered("MassCancel", message, body["signature"])).toBe(ADDRESS);
    expect(response).toStrictEqual({ cancelledCount: 3 });
  });

  it("cancels every market without a symbol: marketId 0 signed, no symbol sent", async () => {
    const { client, transport } = testClient();
    await client.cancelAll();
    const body = transport.body();
    expect(body).toStrictEqual({
      accountId: ACCOUNT_ID,
      signature: expect.stringMatching(SIGNATURE),
      nonce: NONCE.toString(),
      deadline: T0_SECONDS + 60,
    });
    const message: MassCancelMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      massCancel: { accountId: BigInt(ACCOUNT_ID), marketId: 0n, nonce: NONCE },
    };
    expect(recovered("MassCancel", message, body["signature"])).toBe(ADDRESS);
    expect(recovered("MassCancel", { ...message, massCancel: { ...message.massCancel, marketId: 1n } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("signs a spot market with the 10^10 offset", async () => {
    const { client, transport } = testClient();
    await client.cancelAll({ symbol: "WETHRUSD" });
    const message: MassCancelMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      massCancel: { accountId: BigInt(ACCOUNT_ID), marketId: 10_000_000_005n, nonce: NONCE },
    };
    expect(recovered("MassCancel", message, transport.body()["signature"])).toBe(ADDRESS);
  });
});

describe("cancelAllAfter", () => {
  it("arms the switch: timeoutMs, signerWallet, a minute's deadline; the response carries triggerAt", async () => {
    const { client, transport } = testClient();
    const response = await client.cancelAllAfter({ timeoutMs: 30_000 });
    const body = transport.body();
    expect(transport.calls[0]?.operation).toBe("cancelAllAfter");
    expect(body).toStrictEqual({
      accountId: ACCOUNT_ID,
      timeoutMs: 30_000,
      signature: expect.stringMatching(SIGNATURE),
      nonce: NONCE.toString(),
      signerWallet: ADDRESS,
      deadline: T0_SECONDS + 60,
    });
    const message: CancelAllAfterMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      cancelAllAfter: { accountId: BigInt(ACCOUNT_ID), timeoutMs: 30_000n, nonce: NONCE },
    };
    expect(recovered("CancelAllAfter", message, body["signature"])).toBe(ADDRESS);
    expect(response).toStrictEqual({ accountId: ACCOUNT_ID, timeoutMs: 30_000, triggerAt: 1_718_000_030_000 });
  });

  it("disarms with timeoutMs 0; the response has no triggerAt", async () => {
    const { client, transport } = testClient();
    const response = await client.cancelAllAfter({ timeoutMs: 0 });
    expect(transport.body()["timeoutMs"]).toBe(0);
    const message: CancelAllAfterMessage = {
      verifyingChainId: CHAIN,
      deadline: BigInt(T0_SECONDS + 60),
      cancelAllAfter: { accountId: BigInt(ACCOUNT_ID), timeoutMs: 0n, nonce: NONCE },
    };
    expect(recovered("CancelAllAfter", message, transport.body()["signature"])).toBe(ADDRESS);
    expect(response).toStrictEqual({ accountId: ACCOUNT_ID, timeoutMs: 0 });
  });

  it.each([4_999, 60_001, 1, 5_000.5, -1])("refuses timeoutMs %s before sending", async (timeoutMs) => {
    const { client, transport } = testClient();
    const call = client.cancelAllAfter({ timeoutMs });
    await expect(call).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(call).rejects.toMatchObject({ field: "timeoutMs" });
    expect(transport.calls).toHaveLength(0);
  });

  it("accepts both ends of the armed range", async () => {
    const { client, transport } = testClient();
    await client.cancelAllAfter({ timeoutMs: 5_000 });
    await client.cancelAllAfter({ timeoutMs: 60_000 });
    expect(transport.calls.map((call) => call.body)).toMatchObject([{ timeoutMs: 5_000 }, { timeoutMs: 60_000 }]);
  });
});
