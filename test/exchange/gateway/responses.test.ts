/**
 * Success answers through Exchange.handle in signed mode have exactly the
 * shape of the spec responses (4.2.2 to 4.2.6): each payload parses with the
 * src/spec response schema, carries no field the schema does not name
 * (the schemas are loose, so that is checked apart), survives JSON
 * unchanged, and has the values the spec's notes require (echoes, fields
 * present only when filled, triggerAt only when armed). The client SDK's
 * own actions, run against the exchange, decode them too.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { createClient } from "../../../src/client/client.ts";
import { RequestFailedError } from "../../../src/client/errors.ts";
import type { OrderEntryTransport } from "../../../src/client/transport.ts";
import { MICROS_PER_MILLI } from "../../../src/core/time.ts";
import { RequestError } from "../../../src/spec/errors.ts";
import { CancelAllAfterResponse, CancelAllResponse, CancelOrderResponse, CreateOrderResponse, ModifyOrderResponse } from "../../../src/spec/responses.ts";
import { ETH, MARKETS, SPOT, World } from "./harness.ts";

type LooseSchema = z.ZodObject;

/** Parses with the spec schema, and checks that no other field is present and that JSON keeps it as it is. */
function expectShape(schema: LooseSchema, payload: unknown): Record<string, unknown> {
  const parsed = schema.parse(payload) as Record<string, unknown>;
  expect(Object.keys(payload as object).filter((key) => !(key in schema.shape))).toEqual([]);
  expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
  return parsed;
}

describe("Success answers have the spec's response shapes", () => {
  it("createOrder: resting, filled, partly filled, unfilled IOC, post-only, spot and trigger orders", () => {
    const w = new World();
    const resting = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.bob, { symbol: ETH, isBuy: false, qty: "0.05", limitPx: "2001", timeInForce: "GTC", clientOrderId: "11" })));
    expect(resting).toEqual({ status: "OPEN", orderId: expect.any(String), cumQty: "0", clientOrderId: "11" });

    const filled = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.02", limitPx: "2001", timeInForce: "IOC" })));
    expect(filled).toEqual({ status: "FILLED", orderId: expect.any(String), execQty: "0.02", cumQty: "0.02", firstFillId: expect.any(String), fillCount: 1 });

    const partial = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.05", limitPx: "2001", timeInForce: "IOC", clientOrderId: "12" })));
    expect(partial).toMatchObject({ status: "CANCELLED", execQty: "0.03", cumQty: "0.03", clientOrderId: "12", fillCount: 1, cancelReason: expect.any(String), cancelReasonMessage: expect.any(String) });
    expect(BigInt(partial["firstFillId"] as string)).toBe(BigInt(filled["firstFillId"] as string) + 1n);

    const unfilled = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "IOC" })));
    expect(unfilled).toMatchObject({ status: "CANCELLED", cumQty: "0" });
    expect(unfilled).not.toHaveProperty("execQty");
    expect(unfilled).not.toHaveProperty("firstFillId");
    expect(unfilled).not.toHaveProperty("fillCount");

    const postOnly = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1999.99", timeInForce: "GTC", postOnly: true })));
    expect(postOnly).toEqual({ status: "OPEN", orderId: expect.any(String), cumQty: "0" });

    const spot = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.carol, { symbol: SPOT, isBuy: false, qty: "0.5", limitPx: "2100", timeInForce: "GTC" })));
    expect(spot).toEqual({ status: "OPEN", orderId: expect.any(String), cumQty: "0" });

    const stop = expectShape(CreateOrderResponse, w.ok("createOrder", w.create(w.alice, { symbol: ETH, orderType: "STOP_LOSS", isBuy: false, triggerPx: "1900", limitPx: "1890", timeInForce: "GTC" })));
    expect(stop).toMatchObject({ status: "OPEN", orderId: expect.any(String) });

    const ids = [resting, filled, partial, unfilled, postOnly, spot, stop].map((payload) => BigInt(payload["orderId"] as string));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("modifyOrder keeps the orderId; execQty only when the modify crossed and filled; cumQty over the order's life", () => {
    const w = new World();
    const orderId = w.rest(w.alice, { isBuy: true, qty: "0.05", limitPx: "1990", clientOrderId: "21" });
    const modify = (qty: string, limitPx: string) =>
      w.ok("modifyOrder", w.modify(w.alice, { orderId, clientOrderId: "21", symbol: ETH, isBuy: true, qty, limitPx, postOnly: false, timeInForce: "GTC" }));
    const quiet = expectShape(ModifyOrderResponse, modify("0.04", "1990"));
    expect(quiet).toEqual({ status: "OPEN", orderId, cumQty: "0", clientOrderId: "21" });

    w.rest(w.bob, { isBuy: false, qty: "0.01", limitPx: "1995" });
    const crossed = expectShape(ModifyOrderResponse, modify("0.04", "1995"));
    expect(crossed).toMatchObject({ status: "OPEN", orderId, execQty: "0.01", cumQty: "0.01", clientOrderId: "21", fillCount: 1, firstFillId: expect.any(String) });

    const after = expectShape(ModifyOrderResponse, modify("0.03", "1995"));
    expect(after).toEqual({ status: "OPEN", orderId, cumQty: "0.01", clientOrderId: "21" });
  });

  it("cancelOrder: status CANCELLED, the orderId, and the clientOrderId echo", () => {
    const w = new World();
    const plain = w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990" });
    const tagged = w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1989", clientOrderId: "31" });
    expect(expectShape(CancelOrderResponse, w.ok("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: plain })))).toEqual({ status: "CANCELLED", orderId: plain });
    expect(expectShape(CancelOrderResponse, w.ok("cancelOrder", w.cancel(w.alice, { symbol: ETH, clientOrderId: "31" })))).toEqual({
      status: "CANCELLED",
      orderId: tagged,
      clientOrderId: "31",
    });
  });

  it("cancelAll: the count of cancelled orders, per market or across markets", () => {
    const w = new World();
    w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990" });
    w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1989" });
    w.rest(w.alice, { symbol: "BTCRUSDPERP", isBuy: true, qty: "0.001", limitPx: "59000" });
    expect(expectShape(CancelAllResponse, w.ok("cancelAll", w.cancelAll(w.alice, { symbol: ETH })))).toEqual({ cancelledCount: 2 });
    expect(expectShape(CancelAllResponse, w.ok("cancelAll", w.cancelAll(w.alice)))).toEqual({ cancelledCount: 1 });
    expect(expectShape(CancelAllResponse, w.ok("cancelAll", w.cancelAll(w.alice)))).toEqual({ cancelledCount: 0 });
  });

  it("cancelAllAfter: triggerAt is the receipt time (ms) plus timeoutMs when armed, and absent when disarmed", () => {
    const w = new World();
    w.advance(1_234);
    const armed = expectShape(CancelAllAfterResponse, w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 5_000 })));
    expect(armed).toEqual({ accountId: 2, timeoutMs: 5_000, triggerAt: w.now / MICROS_PER_MILLI + 5_000 });
    const disarmed = expectShape(CancelAllAfterResponse, w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 })));
    expect(disarmed).toEqual({ accountId: 2, timeoutMs: 0 });
  });

  it("the client SDK's actions, over a transport into the exchange, decode every answer and raise RequestFailedError on a rejection", async () => {
    const w = new World();
    const transport: OrderEntryTransport = {
      request: (operation, body) => {
        const answer = w.send(operation, body);
        return Promise.resolve(answer.ok ? { ok: true, payload: answer.payload } : { ok: false, error: answer.error });
      },
    };
    const client = createClient({ transport, signer: w.bob.key, accountId: w.bob.accountId, markets: MARKETS, clock: { now: () => w.now }, retry: false });
    const created = await client.createOrder({ symbol: ETH, isBuy: false, qty: "0.01", limitPx: "2005", timeInForce: "GTC", clientOrderId: "41" });
    expect(created).toMatchObject({ status: "OPEN", clientOrderId: "41" });
    const modified = await client.modifyOrder({ orderId: created.orderId, clientOrderId: "41", symbol: ETH, isBuy: false, qty: "0.02", limitPx: "2005", postOnly: false, timeInForce: "GTC" });
    expect(modified).toMatchObject({ status: "OPEN", orderId: created.orderId });
    expect(await client.cancelOrder({ symbol: ETH, orderId: created.orderId })).toMatchObject({ status: "CANCELLED", orderId: created.orderId });
    expect(await client.cancelAll()).toEqual({ cancelledCount: 0 });
    expect(await client.cancelAllAfter({ timeoutMs: 10_000 })).toMatchObject({ accountId: 3, timeoutMs: 10_000 });
    const failure = await client.createOrder({ symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990.001", timeInForce: "GTC" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestFailedError);
    const answer = w.send("createOrder", w.create(w.bob, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990.001", timeInForce: "GTC" }));
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(Object.keys(RequestError.parse(answer.error)).sort()).toEqual(["error", "message"]);
  });
});
