/**
 * The five order-entry POSTs over a real socket (spec 4.2, 7.1), with bodies
 * built by the client SDK and really signed: success (HTTP 200 with the
 * response body) and failure (HTTP 400 with the RequestError, retryAfterMs
 * when rate limited), transport failures answered before the Exchange
 * (content type, JSON, size), a response dropped by the dropResponses fault
 * (socket closed, order made), an Exchange exception (500 ServerError), and
 * finally that every REST body is exactly the Exchange's answer: the input
 * log replayed into a fresh Exchange gives the same answers, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exchange } from "../../src/exchange/exchange.ts";
import { RequestError, ServerError } from "../../src/spec/errors.ts";
import { CancelAllAfterResponse, CancelAllResponse, CancelOrderResponse, CreateOrderResponse, ModifyOrderResponse } from "../../src/spec/responses.ts";
import { ETH, startRestWorld, START_MICROS, type RestWorld } from "./helpers/rest-world.ts";

let w: RestWorld;

async function send(op: string, body: unknown): Promise<{ status: number; body: any }> {
  return w.post(`/v2/${op}`, body);
}

async function ok(op: string, body: unknown): Promise<any> {
  const answer = await send(op, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

async function rejected(op: string, body: unknown, code: string, mentions: string[] = []): Promise<RequestError> {
  const answer = await send(op, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  const error = RequestError.parse(answer.body);
  expect(error.error, error.message).toBe(code);
  for (const mention of mentions) expect(error.message).toContain(mention);
  if (code !== "RATE_LIMITED_ERROR") expect(error).not.toHaveProperty("retryAfterMs");
  return error;
}

async function openOrders(address: string): Promise<any[]> {
  return w.ok(`/v2/wallet/${address}/openOrders`);
}

beforeAll(async () => {
  w = await startRestWorld();
});

afterAll(async () => {
  await w?.close();
});

describe("POST /v2/createOrder", () => {
  it("answers 200 with the createOrder response: resting, filled and unfilled orders", async () => {
    const resting = CreateOrderResponse.parse(await ok("createOrder", w.create(w.bob, { symbol: ETH, isBuy: false, qty: "0.05", limitPx: "2001", timeInForce: "GTC", clientOrderId: "11" })));
    expect(resting).toEqual({ status: "OPEN", orderId: expect.any(String), cumQty: "0", clientOrderId: "11" });
    expect((await openOrders(w.bob.address)).map((o) => o.orderId)).toEqual([resting.orderId]);
    const filled = CreateOrderResponse.parse(await ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.02", limitPx: "2001", timeInForce: "IOC" })));
    expect(filled).toEqual({ status: "FILLED", orderId: expect.any(String), execQty: "0.02", cumQty: "0.02", firstFillId: expect.any(String), fillCount: 1 });
    const unfilled = CreateOrderResponse.parse(await ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "IOC" })));
    expect(unfilled).toMatchObject({ status: "CANCELLED", cumQty: "0" });
    await w.advance(200);
    expect((await w.ok(`/v2/wallet/${w.alice.address}/positions`))[0]).toMatchObject({ qty: "0.02", side: "B" });
  });

  it("answers 400 with the Exchange's RequestError: a tampered body, a replayed nonce", async () => {
    const body = w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" });
    await rejected("createOrder", { ...body, limitPx: "1991" }, "UNAUTHORIZED_SIGNATURE_ERROR", ["recovered signer"]);
    expect((await ok("createOrder", body)).status).toBe("OPEN");
    await rejected("createOrder", body, "INVALID_NONCE_ERROR", ["nonce"]);
    await rejected("createOrder", [body], "INPUT_VALIDATION_ERROR");
  });

  it("answers RATE_LIMITED_ERROR with retryAfterMs once the wallet's bucket is spent", async () => {
    for (let i = 0; i < 30; i++) {
      expect((await ok("createOrder", w.create(w.carol, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "IOC" }))).status).toBe("CANCELLED");
    }
    const error = await rejected("createOrder", w.create(w.carol, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "IOC" }), "RATE_LIMITED_ERROR");
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(1);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    await w.advance(60_000);
    await w.prices(); // fresh oracle prices (they go stale after 60 s)
    await ok("createOrder", w.create(w.carol, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "IOC" }));
  });
});

describe("POST /v2/modifyOrder, /v2/cancelOrder, /v2/cancelAll, /v2/cancelAllAfter", () => {
  it("modifies a resting order in place, and answers ORDER_NOT_FOUND_ERROR for an unknown one", async () => {
    const orderId = await w.rest(w.alice, { isBuy: true, qty: "0.03", limitPx: "1950", clientOrderId: "21" });
    const modified = ModifyOrderResponse.parse(
      await ok("modifyOrder", w.modify(w.alice, { orderId, clientOrderId: "21", symbol: ETH, isBuy: true, qty: "0.04", limitPx: "1960", postOnly: false, timeInForce: "GTC" })),
    );
    expect(modified).toMatchObject({ status: "OPEN", orderId, clientOrderId: "21" });
    expect((await openOrders(w.alice.address)).find((o) => o.orderId === orderId)).toMatchObject({ limitPx: "1960", qty: "0.04" });
    await rejected("modifyOrder", w.modify(w.alice, { orderId: "4242", symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", postOnly: false, timeInForce: "GTC" }), "ORDER_NOT_FOUND_ERROR", ["4242"]);
  });

  it("cancels one order, and refuses to cancel it twice", async () => {
    const orderId = await w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1940" });
    expect(CancelOrderResponse.parse(await ok("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId })))).toEqual({ status: "CANCELLED", orderId });
    expect((await openOrders(w.alice.address)).map((o) => o.orderId)).not.toContain(orderId);
    const history = await w.ok(`/v2/wallet/${w.alice.address}/orderHistory?limit=1`);
    expect(history.data[0]).toMatchObject({ orderId, status: "CANCELLED", cancelReason: "USER_CANCEL" });
    await rejected("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId }), "CANCEL_ORDER_OTHER_ERROR", [orderId]);
  });

  it("cancels every order of the account, and refuses a replayed nonce", async () => {
    const before = (await openOrders(w.alice.address)).length;
    expect(before).toBeGreaterThanOrEqual(2);
    const body = w.cancelAll(w.alice, { symbol: ETH });
    expect(CancelAllResponse.parse(await ok("cancelAll", body))).toEqual({ cancelledCount: before });
    expect(await openOrders(w.alice.address)).toEqual([]);
    await rejected("cancelAll", body, "INVALID_NONCE_ERROR");
  });

  it("arms, fires and disarms the cancel-on-disconnect switch, and refuses an out-of-range timeout", async () => {
    const orderId = await w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1930" });
    const armed = CancelAllAfterResponse.parse(await ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 5_000 })));
    expect(armed).toEqual({ accountId: 2, timeoutMs: 5_000, triggerAt: w.nowMs() + 5_000 });
    await w.advance(5_001);
    expect(await openOrders(w.alice.address)).toEqual([]);
    expect((await w.ok(`/v2/wallet/${w.alice.address}/orderHistory?limit=1`)).data[0]).toMatchObject({ orderId, cancelReason: "CANCEL_ALL_AFTER" });
    expect(await ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 30_000 }))).toHaveProperty("triggerAt");
    expect(await ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 }))).toEqual({ accountId: 2, timeoutMs: 0 });
    await rejected("cancelAllAfter", { ...w.cancelAllAfter(w.alice, { timeoutMs: 5_000 }), timeoutMs: 1_000 }, "INPUT_VALIDATION_ERROR", ["timeoutMs"]);
  });
});

describe("Transport failures answered before the Exchange", () => {
  it("answers 400 INPUT_VALIDATION_ERROR for a wrong content type, bad JSON or an oversized body, and sends no input", async () => {
    const inputs = w.log.length;
    const body = JSON.stringify(w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }));
    const cases: [Record<string, string>, string | Uint8Array, string][] = [
      [{}, Buffer.from(body), "no content type"],
      [{ "content-type": "text/plain" }, body, '"text/plain"'],
      [{ "content-type": "application/x-www-form-urlencoded" }, body, "application/x-www-form-urlencoded"],
      [{ "content-type": "application/json" }, "{not json", "not valid JSON"],
      [{ "content-type": "application/json" }, "", "not valid JSON"],
      [{ "content-type": "application/json; charset=utf-8" }, `{"pad":"${"x".repeat(70_000)}"}`, "exceeds 65536 bytes"],
    ];
    for (const [headers, text, mention] of cases) {
      const answer = await w.request("POST", "/v2/createOrder", { body: text, headers });
      expect(answer.status, mention).toBe(400);
      expect(RequestError.parse(answer.body)).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining(mention) });
    }
    expect(w.log.length).toBe(inputs);
    // The same body with the right content type (a parameter is fine) reaches the Exchange.
    const accepted = await w.request("POST", "/v2/createOrder", { body, headers: { "content-type": "Application/JSON; charset=utf-8" } });
    w.entries.push({ op: "createOrder", status: accepted.status, body: accepted.body });
    expect(accepted.status).toBe(200);
    expect(w.log.length).toBe(inputs + 1);
  });
});

describe("A response dropped by the dropResponses fault", () => {
  it("closes the connection without an answer, yet the order is made; the next request is answered", async () => {
    await w.admin("faults", { dropResponses: 1 });
    const body = w.create(w.bob, { symbol: ETH, isBuy: false, qty: "0.01", limitPx: "2222", timeInForce: "GTC", clientOrderId: "555" });
    await expect(fetch(`${w.base}/v2/createOrder`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })).rejects.toThrow();
    w.entries.push({ op: "createOrder", status: 0, body: undefined });
    expect((await openOrders(w.bob.address)).filter((o) => o.clientOrderId === "555")).toHaveLength(1);
    expect((await ok("cancelOrder", w.cancel(w.bob, { symbol: ETH, clientOrderId: "555" }))).status).toBe("CANCELLED");
  });
});

describe("REST bodies are the Exchange's answers", () => {
  it("replaying the input log into a fresh Exchange gives every answer, byte for byte, in order", () => {
    const exchange = new Exchange({ config: w.config, startMicros: START_MICROS, seed: 7 });
    const replayed = w.log
      .map(({ atMicros, input }) => ({ input, answer: exchange.handle(input, atMicros) }))
      .filter(({ input }) => input.kind === "request");
    expect(replayed.map(({ input }) => (input.kind === "request" ? input.op : ""))).toEqual(w.entries.map((entry) => entry.op));
    for (const [i, { answer }] of replayed.entries()) {
      const sent = w.entries[i]!;
      expect(answer.responseDropped === true, `answer ${i}`).toBe(sent.status === 0);
      if (sent.status === 0) continue;
      expect(sent.status, `answer ${i}`).toBe(answer.ok ? 200 : 400);
      expect(sent.body, `answer ${i}`).toEqual(answer.ok ? answer.payload : answer.error);
    }
    expect(w.entries.filter((entry) => entry.status === 400).length).toBeGreaterThanOrEqual(8);
    expect(w.entries.filter((entry) => entry.status === 0)).toHaveLength(1);
  });
});

describe("An Exchange exception", () => {
  it("is answered 500 with a ServerError and no stack trace", async () => {
    const other = await startRestWorld();
    try {
      other.running.context.exchange.subscribe((output) => {
        if (output.kind === "order") throw new Error("listener exploded at /secret/file.ts:42");
      });
      const answer = await other.post("/v2/createOrder", other.create(other.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }));
      expect(answer.status).toBe(500);
      expect(ServerError.parse(answer.body)).toEqual({ error: "INTERNAL_SERVER_ERROR", message: expect.any(String) });
      expect(answer.text).not.toContain("exploded");
      expect(answer.text).not.toContain("secret");
    } finally {
      await other.close();
    }
  });
});
