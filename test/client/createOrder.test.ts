import { describe, expect, it } from "vitest";
import { createOrder } from "../../src/client/actions/createOrder.ts";
import { InvalidParameterError, MarketNotFoundError } from "../../src/client/errors.ts";
import { privateKeySigner } from "../../src/client/signer.ts";
import { DEFAULT_SIGNING_CONFIG, SPOT_MARKET_ID_OFFSET, TRIGGER_QUANTITY_SENTINEL } from "../../src/signing/domain.ts";
import { orderMessage } from "../../src/signing/messages.ts";
import type { OrderMessage } from "../../src/signing/types.ts";
import { NATIVE_VERIFY_AVAILABLE, recoverSignerNative } from "../../src/signing/verify.ts";
import type { OrderBody } from "../../src/signing/wire.ts";
import { ACCOUNT_ID, ADDRESS, KEY, PERP_ID, RESTING_SECONDS, SIGNATURE, SPOT_ID, T0_SECONDS, testClient, testClock } from "./fixtures.ts";

const E18 = 10n ** 18n;

function signerOf(message: OrderMessage, signature: unknown): string {
  if (typeof signature !== "string") throw new Error("no signature in the body");
  const result = recoverSignerNative("Order", message, signature);
  return result.ok ? result.address : `refused: ${result.reason}`;
}

/** The signer the gateway would recover: the message rebuilt from the body as sent. */
function bodySigner(body: Record<string, unknown>, market: { marketId: bigint; isSpot: boolean }): string {
  return signerOf(orderMessage(body as unknown as OrderBody, market), body["signature"]);
}

const PERP = { marketId: BigInt(PERP_ID), isSpot: false };

describe("createOrder", () => {
  it("needs the native recovery path for these checks", () => {
    expect(NATIVE_VERIFY_AVAILABLE).toBe(true);
  });

  it("builds a LIMIT GTC post-only body with exactly its fields, signed by the client", async () => {
    const { client, transport } = testClient();
    const response = await client.createOrder({
      symbol: "ETHPERP",
      isBuy: true,
      qty: "0.5",
      limitPx: "3000",
      timeInForce: "GTC",
      postOnly: true,
      clientOrderId: "42",
    });
    const body = transport.body();
    expect(transport.calls[0]?.operation).toBe("createOrder");
    expect(body).toStrictEqual({
      exchangeId: 1,
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      isBuy: true,
      limitPx: "3000",
      qty: "0.5",
      orderType: "LIMIT",
      timeInForce: "GTC",
      postOnly: true,
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: T0_SECONDS + RESTING_SECONDS,
      clientOrderId: "42",
    });
    expect(bodySigner(body, PERP)).toBe(ADDRESS);
    expect(response).toStrictEqual({ status: "OPEN", orderId: "1001", clientOrderId: "42" });
  });

  it("builds a perp LIMIT IOC reduce-only sell: reduceOnly sent, no postOnly, deadline a minute ahead", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "ETHPERP", isBuy: false, qty: "1.25", limitPx: "2999.5", timeInForce: "IOC", reduceOnly: true });
    const body = transport.body();
    expect(body).toStrictEqual({
      exchangeId: 1,
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      isBuy: false,
      limitPx: "2999.5",
      qty: "1.25",
      orderType: "LIMIT",
      timeInForce: "IOC",
      reduceOnly: true,
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: T0_SECONDS + 60,
    });
    // Signed: a negative quantity for the sell, reduceOnly true.
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.quantity).toBe(-1_250_000_000_000_000_000n);
    expect(message.order.reduceOnly).toBe(true);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
    expect(signerOf({ ...message, order: { ...message.order, reduceOnly: false } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("sends reduceOnly false on a perp IOC that does not set it (the field is required there)", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "BTCPERP", isBuy: true, qty: "0.01", limitPx: "65000", timeInForce: "IOC" });
    expect(transport.body()["reduceOnly"]).toBe(false);
    expect(transport.body()).not.toHaveProperty("postOnly");
  });

  it("builds a GTT with its expiry and a deadline one second before it", async () => {
    const { client, transport } = testClient();
    const expiresAfter = T0_SECONDS + 3600;
    await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "2", limitPx: "2500", timeInForce: "GTT", expiresAfter });
    const body = transport.body();
    expect(body).toStrictEqual({
      exchangeId: 1,
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      isBuy: true,
      limitPx: "2500",
      qty: "2",
      orderType: "LIMIT",
      timeInForce: "GTT",
      postOnly: false,
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: expiresAfter - 1,
      expiresAfter,
    });
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.expiresAfter).toBe(BigInt(expiresAfter));
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
  });

  it("builds a STOP_LOSS without qty and signs the full-position sentinel with the side's sign", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "ETHPERP", orderType: "STOP_LOSS", isBuy: false, limitPx: "2700", triggerPx: "2750.5", timeInForce: "IOC" });
    const body = transport.body();
    expect(body).toStrictEqual({
      exchangeId: 1,
      symbol: "ETHPERP",
      accountId: ACCOUNT_ID,
      isBuy: false,
      limitPx: "2700",
      orderType: "STOP_LOSS",
      timeInForce: "IOC",
      triggerPx: "2750.5",
      signature: expect.stringMatching(SIGNATURE),
      nonce: "1718000000123456",
      signerWallet: ADDRESS,
      deadline: T0_SECONDS + RESTING_SECONDS,
    });
    // The message built by hand, independently of src/signing's builders.
    const expected: OrderMessage = {
      verifyingChainId: DEFAULT_SIGNING_CONFIG.verifyingChainId,
      deadline: BigInt(T0_SECONDS + RESTING_SECONDS),
      order: {
        accountId: BigInt(ACCOUNT_ID),
        marketId: 1n,
        exchangeId: 1n,
        orderType: 1,
        quantity: -(2n ** 255n - 1n),
        limitPrice: 2700n * E18,
        triggerPrice: 27505n * 10n ** 17n,
        timeInForce: 1,
        clientOrderId: 0n,
        reduceOnly: false,
        postOnly: false,
        expiresAfter: 0n,
        signer: ADDRESS,
        nonce: 1_718_000_000_123_456n,
      },
    };
    expect(expected.order.quantity).toBe(-TRIGGER_QUANTITY_SENTINEL);
    expect(signerOf(expected, body["signature"])).toBe(ADDRESS);
    expect(signerOf({ ...expected, order: { ...expected.order, quantity: TRIGGER_QUANTITY_SENTINEL } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("builds a TAKE_PROFIT GTT whose stop and child share the expiry", async () => {
    const { client, transport } = testClient();
    const expiresAfter = T0_SECONDS + 7 * 86_400;
    await client.createOrder({ symbol: "ETHPERP", orderType: "TAKE_PROFIT", isBuy: true, limitPx: "2100", triggerPx: "2000", timeInForce: "GTT", expiresAfter });
    const body = transport.body();
    expect(body["expiresAfter"]).toBe(expiresAfter);
    expect(body["deadline"]).toBe(expiresAfter - 1);
    expect(body).not.toHaveProperty("qty");
    expect(body).not.toHaveProperty("postOnly");
    expect(body).not.toHaveProperty("reduceOnly");
    const message = orderMessage(body as unknown as OrderBody, PERP);
    expect(message.order.quantity).toBe(TRIGGER_QUANTITY_SENTINEL);
    expect(signerOf(message, body["signature"])).toBe(ADDRESS);
  });

  it("signs a spot order with its market id plus 10^10, and omits reduceOnly", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "WETHRUSD", isBuy: true, qty: "0.1", limitPx: "3100", timeInForce: "IOC" });
    const body = transport.body();
    expect(body).not.toHaveProperty("reduceOnly");
    expect(body["symbol"]).toBe("WETHRUSD");
    const spotMessage = orderMessage(body as unknown as OrderBody, { marketId: BigInt(SPOT_ID), isSpot: true });
    expect(spotMessage.order.marketId).toBe(SPOT_MARKET_ID_OFFSET + 5n);
    // Built by hand: 10^10 + 5 recovers the client, the bare listed id does not.
    const byHand = { ...spotMessage, order: { ...spotMessage.order, marketId: 10_000_000_005n } };
    expect(signerOf(byHand, body["signature"])).toBe(ADDRESS);
    expect(signerOf({ ...byHand, order: { ...byHand.order, marketId: 5n } }, body["signature"])).not.toBe(ADDRESS);
  });

  it("reproduces the published order test vector byte for byte", async () => {
    const clock = testClock(1_700_000_000_000_000);
    const { client, transport } = testClient({ clock, exchangeId: 2 });
    await client.createOrder({
      symbol: "ETHPERP",
      isBuy: true,
      qty: "0.5",
      limitPx: "3000",
      timeInForce: "IOC",
      reduceOnly: false,
      clientOrderId: "42",
      deadline: 1745000000,
    });
    expect(transport.body()["nonce"]).toBe("1700000000000000");
    expect(transport.body()["signature"]).toBe(
      "0x8b7d36f622ad44815d66a6f75678f40c99cdb965088bcc857b53db5f8a7b272d0204574e11bb9c8109c132490b7f36ff4dc6ee1e93c277a616cf60c2db26cce61c",
    );
  });

  it("signs the same bytes through the viem signer as through the fast signer", async () => {
    const fast = testClient();
    const slow = testClient({ signer: privateKeySigner(KEY, { path: "viem" }) });
    const parameters = { symbol: "ETHPERP", isBuy: true, qty: "3", limitPx: "2000", timeInForce: "GTC", postOnly: false } as const;
    await fast.client.createOrder(parameters);
    await slow.client.createOrder(parameters);
    expect(slow.transport.body()).toStrictEqual(fast.transport.body());
  });

  it("omits a zero clientOrderId (the wire reads it as none)", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC", clientOrderId: "0" });
    expect(transport.body()).not.toHaveProperty("clientOrderId");
  });

  it("takes an explicit deadline as given", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "IOC", deadline: T0_SECONDS + 5 });
    expect(transport.body()["deadline"]).toBe(T0_SECONDS + 5);
  });

  /** perAttempt: checked when an attempt is built (it depends on the clock), after its nonce is drawn. */
  const refusals: { name: string; field: string; parameters: Record<string, unknown>; perAttempt?: boolean }[] = [
    { name: "postOnly on IOC", field: "postOnly", parameters: { timeInForce: "IOC", postOnly: true } },
    { name: "reduceOnly on GTC", field: "reduceOnly", parameters: { timeInForce: "GTC", reduceOnly: true } },
    { name: "reduceOnly on spot", field: "reduceOnly", parameters: { symbol: "WETHRUSD", timeInForce: "IOC", reduceOnly: true } },
    { name: "a trigger on spot", field: "orderType", parameters: { symbol: "WETHRUSD", orderType: "STOP_LOSS", qty: undefined, triggerPx: "1" } },
    { name: "qty on a trigger", field: "qty", parameters: { orderType: "STOP_LOSS", triggerPx: "1" } },
    { name: "a trigger without triggerPx", field: "triggerPx", parameters: { orderType: "TAKE_PROFIT", qty: undefined } },
    { name: "a zero triggerPx", field: "triggerPx", parameters: { orderType: "TAKE_PROFIT", qty: undefined, triggerPx: "0.0" } },
    { name: "triggerPx on a LIMIT", field: "triggerPx", parameters: { triggerPx: "5" } },
    { name: "postOnly true on a trigger", field: "postOnly", parameters: { orderType: "STOP_LOSS", qty: undefined, triggerPx: "1", timeInForce: "GTC", postOnly: true } },
    { name: "a GTT without expiresAfter", field: "expiresAfter", parameters: { timeInForce: "GTT" } },
    { name: "expiresAfter on GTC", field: "expiresAfter", parameters: { timeInForce: "GTC", expiresAfter: T0_SECONDS + 100 } },
    { name: "a deadline not before expiresAfter", field: "expiresAfter", parameters: { timeInForce: "GTT", expiresAfter: T0_SECONDS + 100, deadline: T0_SECONDS + 100 } },
    { name: "a GTT expiring too soon for its default deadline", field: "expiresAfter", parameters: { timeInForce: "GTT", expiresAfter: T0_SECONDS }, perAttempt: true },
    // Its default deadline is this very second, which began 0.123456 s ago (T0_MICROS): past, to the microsecond, as the service compares.
    { name: "a GTT whose default deadline is the second already begun", field: "expiresAfter", parameters: { timeInForce: "GTT", expiresAfter: T0_SECONDS + 1 }, perAttempt: true },
    { name: "19 fraction digits", field: "qty", parameters: { qty: "1.0000000000000000001" } },
    // Within uint256 once scaled but beyond int256, where the order message signs the quantity: once a raw DecimalInputError.
    { name: "a qty beyond int256 once scaled", field: "qty", parameters: { qty: (2n ** 255n / 10n ** 18n + 1n).toString() } },
    { name: "a malformed price", field: "limitPx", parameters: { limitPx: "-3" } },
    { name: "a clientOrderId beyond uint64", field: "clientOrderId", parameters: { clientOrderId: "18446744073709551616" } },
    { name: "an unknown timeInForce", field: "timeInForce", parameters: { timeInForce: "FOK" } },
    { name: "a fractional deadline", field: "deadline", parameters: { deadline: 1.5 } },
  ];

  it.each(refusals)("refuses $name before anything is signed or sent", async ({ field, parameters, perAttempt }) => {
    const { client, transport } = testClient();
    const before = client.nonces.last;
    const call = client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "100", timeInForce: "GTC", ...parameters } as never);
    await expect(call).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(call).rejects.toMatchObject({ field });
    expect(transport.calls).toHaveLength(0);
    if (perAttempt !== true) expect(client.nonces.last).toBe(before);
  });

  it("refuses a symbol that is not in the directory with MarketNotFoundError", async () => {
    const { client, transport } = testClient();
    const call = createOrder(client, { symbol: "DOGEPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC" });
    await expect(call).rejects.toBeInstanceOf(MarketNotFoundError);
    await expect(call).rejects.toThrow('symbol "DOGEPERP" is not in the market directory');
    expect(transport.calls).toHaveLength(0);
  });
});
