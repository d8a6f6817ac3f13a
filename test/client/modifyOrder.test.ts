import { describe, expect, it } from "vitest";
import { modifyOrder } from "../../src/client/actions/modifyOrder.ts";
import { InvalidParameterError } from "../../src/client/errors.ts";
import { TRIGGER_QUANTITY_SENTINEL } from "../../src/signing/domain.ts";
import { orderMessage } from "../../src/signing/messages.ts";
import type { OrderMessage } from "../../src/signing/types.ts";
import { recoverSignerNative } from "../../src/signing/verify.ts";
import type { OrderBody } from "../../src/signing/wire.ts";
import { ACCOUNT_ID, ADDRESS, PERP_ID, RESTING_SECONDS, SIGNATURE, SPOT_ID, T0_SECONDS, testClient } from "./fixtures.ts";

const PERP = { marketId: BigInt(PERP_ID), isSpot: false };

function signerOf(message: OrderMessage, signature: unknown): string {
  if (typeof signature !== "string") throw new Error("no signature in the body");
  const result = recoverSignerNative("Order", message, signature);
  return result.ok ? result.address : `refused: ${result.reason}`;
}

describe("modifyOrder", () => {
  it("restates a resting LIMIT GTC in full, by orderId, with reduceOnly false and its postOnly", async () => {
    const { client, transport } = testClient();
    const response = await client.modifyOrder({
      orderId: "77",
      symbol: "ETHPERP",
      isBuy: true,
      timeInForce: "GTC",
      limitPx: "2990",
      qty: "0.4",
      postOnly: true,
    });
    const body = transport.body();
    expect(transport.calls[0]?.operation).toBe("modifyOrder");
    expect(body).toStrictEqual({
      orderId: "77",
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      exchangeId: 1,
      isBuy: true,
      orderType: "LIMIT",
      timeInForce: "GTC",
      reduceOnly: false,
      limitPx: "2990",
      qty: "0.4",
      postOnly: true,
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: T0_SECONDS + RESTING_SECONDS,
    });
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.postOnly).toBe(true);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
    expect(response).toStrictEqual({ status: "OPEN", orderId: "77" });
  });

  it("restates the order's clientOrderId next to its orderId, and signs it", async () => {
    const { client, transport } = testClient();
    await client.modifyOrder({ orderId: "77", clientOrderId: "9", symbol: "ETHPERP", isBuy: false, timeInForce: "GTC", limitPx: "3010", qty: "1", postOnly: false });
    const body = transport.body();
    expect(body["orderId"]).toBe("77");
    expect(body["clientOrderId"]).toBe("9");
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.clientOrderId).toBe(9n);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
    expect(signerOf({ ...message, order: { ...message.order, clientOrderId: 0n } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("looks an order up by clientOrderId alone", async () => {
    const { client, transport } = testClient();
    await client.modifyOrder({ clientOrderId: "9", symbol: "WETHRUSD", isBuy: true, timeInForce: "GTC", limitPx: "3000", qty: "0.2", postOnly: false });
    const body = transport.body();
    expect(body).not.toHaveProperty("orderId");
    expect(body["clientOrderId"]).toBe("9");
    const message = orderMessage(body as unknown as OrderBody, { marketId: BigInt(SPOT_ID), isSpot: true });
    expect(message.order.marketId).toBe(10_000_000_005n);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
  });

  it("restates a GTT LIMIT with its expiry, signed one second before it", async () => {
    const { client, transport } = testClient();
    const expiresAfter = T0_SECONDS + 600;
    await client.modifyOrder({ orderId: "5", symbol: "ETHPERP", isBuy: true, timeInForce: "GTT", limitPx: "1", qty: "1", postOnly: false, expiresAfter });
    expect(transport.body()["expiresAfter"]).toBe(expiresAfter);
    expect(transport.body()["deadline"]).toBe(expiresAfter - 1);
  });

  it("restates an armed GTT trigger: triggerPx and expiry, no qty, postOnly and reduceOnly false", async () => {
    const { client, transport } = testClient();
    const expiresAfter = T0_SECONDS + 86_400;
    await client.modifyOrder({
      orderId: "88",
      symbol: "ETHPERP",
      orderType: "STOP_LOSS",
      isBuy: false,
      timeInForce: "GTT",
      limitPx: "2600",
      triggerPx: "2650",
      expiresAfter,
    });
    const body = transport.body();
    expect(body).toStrictEqual({
      orderId: "88",
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      exchangeId: 1,
      isBuy: false,
      orderType: "STOP_LOSS",
      timeInForce: "GTT",
      triggerPx: "2650",
      reduceOnly: false,
      limitPx: "2600",
      postOnly: false,
      expiresAfter,
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: expiresAfter - 1,
    });
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.quantity).toBe(-TRIGGER_QUANTITY_SENTINEL);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
  });

  const refusals: { name: string; field: string; parameters: Record<string, unknown> }[] = [
    { name: "an IOC LIMIT (never rests)", field: "timeInForce", parameters: { timeInForce: "IOC" } },
    { name: "a LIMIT without postOnly restated", field: "postOnly", parameters: { postOnly: undefined } },
    { name: "neither orderId nor clientOrderId", field: "orderId", parameters: { orderId: undefined } },
    { name: "a zero clientOrderId as the only key", field: "orderId", parameters: { orderId: undefined, clientOrderId: "0" } },
    { name: "orderId zero", field: "orderId", parameters: { orderId: "0" } },
    { name: "reduceOnly true", field: "reduceOnly", parameters: { reduceOnly: true } },
    { name: "a LIMIT without qty", field: "qty", parameters: { qty: undefined } },
  ];

  it.each(refusals)("refuses $name before sending", async ({ field, parameters }) => {
    const { client, transport } = testClient();
    const call = modifyOrder(client, {
      orderId: "1",
      symbol: "ETHPERP",
      isBuy: true,
      timeInForce: "GTC",
      limitPx: "1",
      qty: "1",
      postOnly: false,
      ...parameters,
    } as never);
    await expect(call).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(call).rejects.toMatchObject({ field });
    expect(transport.calls).toHaveLength(0);
  });
});
