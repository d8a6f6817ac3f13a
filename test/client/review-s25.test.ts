/**
 * Review s25 of the client SDK against spec sections 4-8: the defects
 * found, each pinned over real sockets where it matters (a live server
 * started in-process, signed mode, manual clock), or over a minimal fake
 * server where the live one cannot be made to answer so.
 *
 * - Reconnecting after a stream close (spec 6.3) with connectLiveAgent made
 *   a new client whose fresh nonce manager restarted from the clock: on a
 *   manual clock every request of the new connection was INVALID_NONCE_ERROR
 *   (spec 5.9, 7.3), and so was the second of two connections of one signer;
 *   connectLiveAgent had no way to pass the signer's manager.
 * - A WebSocket upgrade answered with an HTTP status (429 when the server
 *   holds its connections per IP, as the edge answers, spec 7.6) lost the
 *   status: connectWsStream's ConnectionError had no `status`, and
 *   connectWsTransport rejected with a plain Error.
 * - connectLiveAgent left its /ws and /exec sockets open when createClient
 *   then refused the configuration (a malformed key).
 * - REST order entry answered HTTP 500 lost the ServerError (spec 7.1:
 *   INTERNAL_SERVER_ERROR and its message) under TransportFailedError.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientConfigError,
  ConnectionError,
  connectLiveAgent,
  connectWsStream,
  connectWsTransport,
  createClient,
  httpTransport,
  privateKeySigner,
  TransportFailedError,
  type LiveAgentConnection,
  type WsStream,
} from "../../src/client/index.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import type { StreamChannelData } from "../../src/spec/stream-envelopes.ts";
import { ETH, START_MICROS, signedConfig } from "../conformance/helpers/rest-world.ts";
import { KEY, markets } from "./fixtures.ts";

const config = signedConfig();
const ALICE_KEY = `0x${"a1".repeat(32)}` as const;
const ALICE = privateKeySigner(ALICE_KEY).address;

let running: RunningServer;
let base: string;

async function admin(path: string, body: unknown = {}): Promise<any> {
  const response = await fetch(`${base}/admin/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text);
}

async function prices(): Promise<void> {
  await admin("prices", { prices: [{ asset: "WETH", price: "2000" }, { symbol: ETH, price: "2000" }, { asset: "WBTC", price: "60000" }, { symbol: "BTCRUSDPERP", price: "60000" }] });
}

/** The server's manual clock: it moves only when a test moves it. */
const serverClock = { now: () => running.context.driver.now() };

function connect(accountId: number, extra: Partial<Parameters<typeof connectLiveAgent>[0]> = {}): Promise<LiveAgentConnection> {
  return connectLiveAgent({ url: base, signer: ALICE_KEY, accountId, signing: config.signing, clock: serverClock, retry: false, ...extra });
}

/** Waits (a few ms at a time) until `condition` holds, or fails after `ms`. */
async function eventually(condition: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  running = await startLiveServer({ config, seed: 25, port: 0, clock: "manual", startMicros: START_MICROS });
  base = `http://127.0.0.1:${running.port}`;
  await admin("accounts", { wallet: ALICE, accountId: 2, deposits: { rUSD: "100000" } });
  await admin("accounts", { wallet: ALICE, accountId: 3, deposits: { rUSD: "100000" } });
  await prices();
});

afterAll(async () => {
  await running?.close();
});

describe("reconnecting after a stream close (spec 6.3) keeps the signer's nonces strictly increasing (spec 5.9)", () => {
  it("a connection made again after a 1012 resync, with the previous one's nonceManager, is not refused INVALID_NONCE_ERROR", async () => {
    const first = await connect(2);
    const channel = `/v2/wallet/${first.wallet}/orderChanges`;
    await first.stream.subscribe(channel, () => undefined);
    const placed = [];
    for (const limitPx of ["1900", "1901"]) placed.push((await first.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx, timeInForce: "GTC" })).orderId);
    // The server resyncs its streams: the client reconnects, re-subscribes and rebuilds from the snapshot (spec 6.3).
    await admin("resync");
    expect((await first.stream.closed).code).toBe(1012);
    await first.close();

    const second = await connect(2, { nonceManager: first.client.nonces });
    try {
      const rows: StreamChannelData[] = [];
      const subscribed = await second.stream.subscribe(channel, (message) => void rows.push(message));
      const snapshot = subscribed.contents as { data: { orderId: string }[]; snapshotSequenceNumber: number };
      expect(snapshot.data.map((order) => order.orderId).sort()).toEqual(placed.sort());
      // The clock has not moved: a fresh manager would sign the nonces the server already accepted.
      const response = await second.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1902", timeInForce: "GTC" });
      expect(response.status).toBe("OPEN");
      await (second.stream as WsStream).ping();
      const updates = rows.flatMap((message) => message.data as { orderId: string; sequenceNumber: number }[]);
      expect(updates.map((row) => row.orderId)).toEqual([response.orderId]);
      expect(updates[0]!.sequenceNumber).toBeGreaterThan(snapshot.snapshotSequenceNumber);
      await second.client.cancelAll();
    } finally {
      await second.close();
    }
  });

  it("two connections of one signer (two of its accounts) that share its nonceManager both get their orders in", async () => {
    // Past the nonces of the test above, so that the first connection's own fresh manager is fine.
    await admin("clock", { advanceMs: 1_000 });
    const two = await connect(2);
    const three = await connect(3, { nonceManager: two.client.nonces });
    try {
      // At one instant of the manual clock: separate managers would both sign the clock's microsecond.
      const a = await two.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1800", timeInForce: "GTC" });
      const b = await three.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1800", timeInForce: "GTC" });
      expect([a.status, b.status]).toEqual(["OPEN", "OPEN"]);
      expect((await two.client.cancelAll()).cancelledCount).toBe(1);
      expect((await three.client.cancelAll()).cancelledCount).toBe(1);
    } finally {
      await two.close();
      await three.close();
    }
  });
});

describe("connectLiveAgent with a configuration createClient refuses", () => {
  it("closes the /ws and /exec sockets it opened before refusing", async () => {
    const stream = running.server.surfaces.stream;
    await eventually(() => stream.connectionCount === 0 && running.exec.connectionCount === 0);
    const failure = await connectLiveAgent({ url: base, signer: "0x1234", accountId: 2, orderEntry: "ws", clock: serverClock }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientConfigError);
    // Nothing of the failed call is left holding the server (or the caller's process).
    await eventually(() => stream.connectionCount === 0 && running.exec.connectionCount === 0);
  });
});

describe("a WebSocket upgrade answered with an HTTP status", () => {
  let limited: RunningServer;

  beforeAll(async () => {
    limited = await startLiveServer({ config, seed: 25, port: 0, clock: "manual", startMicros: START_MICROS, websocketsPerIp: 1 });
  });

  afterAll(async () => {
    await limited?.close();
  });

  it("is a ConnectionError with that status (429: the per-IP WebSocket limit), from the stream and from order entry alike", async () => {
    const held = await connectWsStream(`ws://127.0.0.1:${limited.port}/ws`);
    try {
      for (const [what, open] of [
        ["stream", () => connectWsStream(`ws://127.0.0.1:${limited.port}/ws`)],
        ["order entry", () => connectWsTransport(`ws://127.0.0.1:${limited.port}/exec`)],
      ] as const) {
        const failure = await (open() as Promise<unknown>).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure, what).toBeInstanceOf(ConnectionError);
        expect(failure, what).toMatchObject({ status: 429 });
      }
    } finally {
      await held.close();
    }
    // Once the held connection is gone, the same call connects.
    await eventually(() => limited.server.surfaces.stream.connectionCount === 0);
    const transport = await connectWsTransport(`ws://127.0.0.1:${limited.port}/exec`);
    await transport.close();
  });
});

describe("REST order entry answered HTTP 500 (spec 7.1 ServerError)", () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", message: "matching engine crashed mid-request" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v2`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("is a TransportFailedError (outcome unknown, not resent) whose cause keeps the status, the code and the message", async () => {
    const client = createClient({ transport: httpTransport(url), signer: KEY, accountId: 2, markets, clock: { now: () => START_MICROS }, retry: false });
    const failure = await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportFailedError);
    const cause = (failure as TransportFailedError).walk((error) => error instanceof ConnectionError);
    expect(cause).toBeInstanceOf(ConnectionError);
    expect(cause).toMatchObject({ status: 500, details: "INTERNAL_SERVER_ERROR: matching engine crashed mid-request" });
  });
});

describe("an /exec connection the server closes (spec 6.3 codes)", () => {
  it("rejects the request in flight, and every later one, with a ConnectionError naming the close code", async () => {
    const { WebSocketServer } = await import("ws");
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    // Closes with 1012 (a resync) on the first frame, without answering it.
    server.on("connection", (socket) => socket.once("message", () => socket.close(1012, "resync")));
    try {
      const { port } = server.address() as { port: number };
      const transport = await connectWsTransport(`ws://127.0.0.1:${port}/exec`);
      const inFlight = await transport.request("createOrder", {} as never).catch((error: unknown) => error);
      expect(inFlight).toBeInstanceOf(ConnectionError);
      expect(inFlight).toMatchObject({ closeCode: 1012, closeReason: "resync" });
      expect((inFlight as Error).message).toMatch(/closed with 1012 \(resync\) with the request in flight/);
      const later = await transport.request("cancelAll", {} as never).catch((error: unknown) => error);
      expect(later).toMatchObject({ closeCode: 1012 });
      expect((later as Error).message).toMatch(/it was not sent/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
