/**
 * WebSocket order entry (/exec) over a real socket: framing, ping/pong,
 * every operation's success and error answers (the same bodies the Exchange
 * gives REST), several signers on one connection, and a connection that
 * stays open through errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Hex } from "viem";
import { createClient, type Client } from "../../src/client/client.ts";
import { createMarketDirectory } from "../../src/client/markets.ts";
import { RequestFailedError } from "../../src/client/errors.ts";
import { connectWsTransport, type WsTransport } from "../../src/client/transports/ws.ts";
import { DEFAULT_MARKETS, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { CreateOrderResponse } from "../../src/spec/responses.ts";

const START_MICROS = 1_767_225_600_000_000;
const MARKETS = createMarketDirectory({
  perp: DEFAULT_MARKETS.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  spot: DEFAULT_MARKETS.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
});

function key(n: number): Hex {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

let running: RunningServer;
let transport: WsTransport;
const clients: Client[] = [];

/** Opens a raw socket and collects its frames. */
async function rawSocket(): Promise<{ socket: WebSocket; next: () => Promise<Record<string, unknown>> }> {
  const socket = new WebSocket(running.urls.exec);
  const frames: Record<string, unknown>[] = [];
  const waiters: ((frame: Record<string, unknown>) => void)[] = [];
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  await new Promise((resolve) => socket.once("open", resolve));
  return {
    socket,
    next: () => new Promise((resolve) => (frames.length > 0 ? resolve(frames.shift()!) : waiters.push(resolve))),
  };
}

beforeAll(async () => {
  running = await startLiveServer({
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 1,
    clock: "manual",
    startMicros: START_MICROS,
  });
  const driver = running.context.driver;
  transport = await connectWsTransport(running.urls.exec);
  for (const n of [1, 2]) {
    const probe = createClient({ transport, signer: key(n), accountId: 0, markets: MARKETS, clock: { now: () => driver.now() }, retry: false });
    const created = driver.handle({ kind: "admin", admin: { action: "createAccount", wallet: probe.address, deposits: { rUSD: "100000" } } });
    expect(created.ok).toBe(true);
    if (!created.ok) throw new Error(created.error.message);
    const accountId = Number(created.payload["accountId"]);
    clients.push(createClient({ transport, signer: key(n), accountId, markets: MARKETS, clock: { now: () => driver.now() }, retry: false }));
  }
  driver.handle({
    kind: "prices",
    prices: [
      { asset: "WETH", price: "3000" },
      { symbol: "ETHRUSDPERP", price: "3000" },
    ],
  });
});

afterAll(async () => {
  await transport.close();
  await running.close();
});

describe("WebSocket order entry", () => {
  it("answers ping with pong, echoing the id only when sent", async () => {
    const { socket, next } = await rawSocket();
    socket.send(JSON.stringify({ type: "ping", id: "p-1" }));
    expect(await next()).toEqual({ type: "pong", id: "p-1" });
    socket.send(JSON.stringify({ type: "ping" }));
    expect(await next()).toEqual({ type: "pong" });
    socket.close();
  });

  it("answers framing errors in the top-level envelope and stays open", async () => {
    const { socket, next } = await rawSocket();
    socket.send("{nope");
    expect(await next()).toMatchObject({ type: "error", error: { error: "MALFORMED_JSON" } });
    socket.send(JSON.stringify({ type: "pong", id: "x" }));
    expect(await next()).toMatchObject({ type: "error", id: "x", error: { error: "UNKNOWN_TYPE" } });
    socket.send(JSON.stringify({ type: "createOrder" }));
    const missingId = await next();
    expect(missingId).toMatchObject({ type: "error", error: { error: "MALFORMED_JSON" } });
    expect(missingId).not.toHaveProperty("id");
    socket.send(JSON.stringify({ type: "cancelAll", id: "bad", payload: { accountId: "x" } }));
    expect(await next()).toMatchObject({ type: "cancelAll", id: "bad", ok: false, error: { error: "INPUT_VALIDATION_ERROR" } });
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it("refuses an id already in flight and leaves the original request alone", async () => {
    const { socket, next } = await rawSocket();
    const frame = JSON.stringify({ type: "cancelAll", id: "same", payload: { accountId: 999 } });
    const raw = (socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
    raw.cork();
    socket.send(frame);
    socket.send(frame);
    raw.uncork();
    const answers = [await next(), await next()];
    expect(answers).toContainEqual({ type: "error", id: "same", error: { error: "DUPLICATE_REQUEST_ID", message: expect.stringContaining("same") } });
    expect(answers).toContainEqual(expect.objectContaining({ type: "cancelAll", id: "same", ok: false }));
    socket.send(frame); // answered: the id may be used again
    expect(await next()).toMatchObject({ type: "cancelAll", id: "same", ok: false, error: { error: "INPUT_VALIDATION_ERROR" } });
    socket.close();
  });

  it("carries every operation for several signers on one connection, with spec-shaped answers", async () => {
    const [alice, bob] = clients as [Client, Client];
    const resting = await alice.createOrder({ symbol: "ETHRUSDPERP", isBuy: false, limitPx: "3001", qty: "0.5", timeInForce: "GTC", postOnly: true });
    expect(CreateOrderResponse.parse(resting)).toMatchObject({ status: "OPEN" });
    const taken = await bob.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "3001", qty: "0.2", timeInForce: "IOC" });
    expect(taken).toMatchObject({ status: "FILLED", execQty: "0.2", cumQty: "0.2", fillCount: 1 });
    const modified = await alice.modifyOrder({
      orderId: resting.orderId, symbol: "ETHRUSDPERP", isBuy: false, limitPx: "3002", qty: "0.5", timeInForce: "GTC", postOnly: true,
    });
    expect(modified).toMatchObject({ orderId: resting.orderId, status: "OPEN", cumQty: "0.2" });
    expect(await alice.cancelOrder({ symbol: "ETHRUSDPERP", orderId: resting.orderId })).toMatchObject({ status: "CANCELLED", orderId: resting.orderId });
    expect(await alice.cancelAll({})).toEqual({ cancelledCount: 0 });
    const armed = await alice.cancelAllAfter({ timeoutMs: 5000 });
    expect(armed).toMatchObject({ accountId: alice.accountId, timeoutMs: 5000 });
    expect(armed.triggerAt).toBe(Math.floor(running.context.driver.now() / 1000) + 5000);
    const disarmed = await alice.cancelAllAfter({ timeoutMs: 0 });
    expect(disarmed).not.toHaveProperty("triggerAt");
    await expect(alice.cancelOrder({ symbol: "ETHRUSDPERP", orderId: resting.orderId })).rejects.toMatchObject({ code: "CANCEL_ORDER_OTHER_ERROR" });
    const offGrid = bob.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "3000.001", qty: "0.1", timeInForce: "GTC" });
    await expect(offGrid).rejects.toBeInstanceOf(RequestFailedError);
    await expect(offGrid).rejects.toMatchObject({ code: "PRICE_QTY_BOUNDS_ERROR" });
  });
});
