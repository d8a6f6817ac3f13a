/**
 * Order ids at the edges of uint64 (spec 4.2: decimal uint64 strings;
 * orderId is opaque), through every action that sends one: the body carries
 * the id's canonical decimal text, the one the service issues and echoes,
 * and the signature covers its value.
 */
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../../src/client/errors.ts";
import { cancelMessage, orderMessage } from "../../src/signing/messages.ts";
import { recoverSignerNative } from "../../src/signing/verify.ts";
import type { OrderBody } from "../../src/signing/wire.ts";
import { ADDRESS, PERP_ID, testClient } from "./fixtures.ts";

const PERP = { marketId: BigInt(PERP_ID), isSpot: false };
const UINT64_MAX = "18446744073709551615";

/** [as passed, as it must be sent]. */
const CANONICAL: readonly (readonly [string, string])[] = [
  ["7", "7"],
  ["0007", "7"],
  [UINT64_MAX, UINT64_MAX],
  [`00${UINT64_MAX}`, UINT64_MAX],
];

const GTC = { symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC" } as const;

function signer(kind: "Order" | "OrderCancel", message: never, signature: unknown): string {
  const result = recoverSignerNative(kind, message, signature as string);
  return result.ok ? result.address : `refused: ${result.reason}`;
}

describe("ids sent by the client", () => {
  it.each(CANONICAL)("createOrder sends clientOrderId %s as %s, signed as its value", async (given, sent) => {
    const { client, transport } = testClient();
    await client.createOrder({ ...GTC, clientOrderId: given });
    const body = transport.body();
    expect(body["clientOrderId"]).toBe(sent);
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.clientOrderId).toBe(BigInt(sent));
    expect(signer("Order", message as never, body["signature"])).toBe(ADDRESS);
  });

  it.each(CANONICAL)("cancelOrder sends orderId %s as %s, and clientOrderId likewise", async (given, sent) => {
    const { client, transport } = testClient();
    await client.cancelOrder({ symbol: "ETHPERP", orderId: given });
    await client.cancelOrder({ symbol: "ETHPERP", clientOrderId: given });
    const [byId, byClientId] = [transport.body(0), transport.body(1)];
    expect(byId["orderId"]).toBe(sent);
    expect(byClientId["clientOrderId"]).toBe(sent);
    const message = cancelMessage(byId as never, PERP);
    expect(message.cancel.orderId).toBe(BigInt(sent));
    expect(signer("OrderCancel", message as never, byId["signature"])).toBe(ADDRESS);
  });

  it.each(CANONICAL)("modifyOrder sends orderId and the restated clientOrderId %s as %s", async (given, sent) => {
    const { client, transport } = testClient();
    await client.modifyOrder({ ...GTC, orderId: given, clientOrderId: given, postOnly: false });
    await client.modifyOrder({ ...GTC, clientOrderId: given, postOnly: false });
    const [byId, byClientId] = [transport.body(0), transport.body(1)];
    expect(byId["orderId"]).toBe(sent);
    expect(byId["clientOrderId"]).toBe(sent);
    expect(byClientId["clientOrderId"]).toBe(sent);
    expect(signer("Order", orderMessage(byId as unknown as OrderBody, PERP) as never, byId["signature"])).toBe(ADDRESS);
  });

  it.each(["+1", "-1", "1e3", "1.0", " 1", "0x1", "18446744073709551616"])("refuses %j before sending anything", async (given) => {
    const { client, transport } = testClient();
    await expect(client.createOrder({ ...GTC, clientOrderId: given })).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(client.cancelOrder({ symbol: "ETHPERP", orderId: given })).rejects.toBeInstanceOf(InvalidParameterError);
    expect(transport.calls).toHaveLength(0);
  });

  it("reads an all-zero id as none: omitted on a create, refused as a cancel target", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ ...GTC, clientOrderId: "000" });
    expect(transport.body()).not.toHaveProperty("clientOrderId");
    await expect(client.cancelOrder({ symbol: "ETHPERP", orderId: "00" })).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(client.cancelOrder({ symbol: "ETHPERP", clientOrderId: "0" })).rejects.toBeInstanceOf(InvalidParameterError);
    expect(transport.calls).toHaveLength(1);
  });
});
