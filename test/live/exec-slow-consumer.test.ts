/**
 * /exec slow consumers over real sockets (exec.ts, liveness.ts
 * isSlowConsumer, audit s21 D1): a client that sends and never reads is
 * closed with 1013 "slow consumer" once the answers it has not read pass
 * the bound, whether they are answers to requests (the batched, corked
 * writes) or pongs (written at once), and the server never holds more than
 * the bound plus one frame for it; its requests still happen. A client that
 * reads the same traffic, a few frames in flight, is served in full and
 * stays open, and so is a burst of ordinary requests sent at once. (A client
 * that pipelines megabytes of large answers at once can pass the bound
 * while reading: the bound judges what is unread, not why.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { EXEC_FRAME_BYTES_MAX, EXEC_SLOW_CONSUMER_BYTES_DEFAULT, WRITE_EVERY } from "../../src/live/exec.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { START_MICROS } from "../exchange/gateway/harness.ts";

/** Each frame's id: the answer echoes it, so every answer is about this large (a frame is at most EXEC_FRAME_BYTES_MAX, 65 KiB). */
const ID_BYTES = 60 * 1024;
/** 30 MiB of answers: far beyond what the kernel's socket buffers take on both sides. */
const FRAMES = 512;

let running: RunningServer;
const clients: WebSocket[] = [];

beforeAll(async () => {
  running = await startLiveServer({
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 5,
    port: 0,
    clock: "manual",
    startMicros: START_MICROS,
  });
});

afterAll(async () => {
  for (const client of clients) client.terminate();
  await running?.close();
});

async function open(): Promise<{ socket: WebSocket; received: number; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(running.urls.exec);
  clients.push(socket);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const client = {
    socket,
    received: 0,
    closed: new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
  socket.on("message", () => client.received++);
  return client;
}

/** The server's side of the one open /exec connection. */
function serverSide(): WebSocket {
  const sockets = [...running.server.surfaces.exec.wss.clients];
  expect(sockets).toHaveLength(1);
  return sockets[0]!;
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A request the Exchange refuses at once (no such account): any number can be sent. */
function requestFrame(i: number): string {
  return JSON.stringify({ type: "cancelAll", id: `r${i}-${"x".repeat(ID_BYTES)}`, payload: { accountId: 999 } });
}

function pingFrame(i: number): string {
  return JSON.stringify({ type: "ping", id: `p${i}-${"x".repeat(ID_BYTES)}` });
}

/**
 * Sends FRAMES frames without reading (the client's socket paused), watching
 * the server's unsent bytes for this connection until the server closes it;
 * then reads again and returns how it closed and the largest backlog seen.
 */
async function floodWithoutReading(frame: (i: number) => string) {
  const client = await open();
  const server = serverSide();
  const tcp = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  tcp.pause();
  let maxUnsent = 0;
  const sample = setInterval(() => (maxUnsent = Math.max(maxUnsent, server.bufferedAmount)), 1);
  try {
    for (let i = 0; i < FRAMES; i++) client.socket.send(frame(i));
    await until(() => server.readyState !== WebSocket.OPEN, 20_000, "the server to close the non-reading client");
    maxUnsent = Math.max(maxUnsent, server.bufferedAmount);
  } finally {
    clearInterval(sample);
  }
  tcp.resume();
  const closed = await client.closed;
  return { closed, received: client.received, maxUnsent };
}

describe("/exec slow consumer", () => {
  it("closes a client that sends requests and never reads with 1013 past the bound; its requests still happen", async () => {
    const inputs = running.context.driver.inputsHandled;
    const { closed, received, maxUnsent } = await floodWithoutReading(requestFrame);
    expect(closed).toEqual({ code: 1013, reason: "slow consumer" });
    expect(received).toBeLessThan(FRAMES);
    expect(maxUnsent).toBeLessThanOrEqual(EXEC_SLOW_CONSUMER_BYTES_DEFAULT + WRITE_EVERY * EXEC_FRAME_BYTES_MAX);
    // Every request read before the client saw the close was handled (spec 4.3: verify through REST).
    await until(() => running.context.driver.inputsHandled === inputs + FRAMES, 10_000, "every request to be handled");
    await until(() => running.server.surfaces.exec.connectionCount === 0, 5_000, "the connection to be gone");
  }, 60_000);

  it("closes a client that sends pings and never reads with 1013 past the bound", async () => {
    const { closed, received, maxUnsent } = await floodWithoutReading(pingFrame);
    expect(closed).toEqual({ code: 1013, reason: "slow consumer" });
    expect(received).toBeLessThan(FRAMES);
    expect(maxUnsent).toBeLessThanOrEqual(EXEC_SLOW_CONSUMER_BYTES_DEFAULT + WRITE_EVERY * EXEC_FRAME_BYTES_MAX);
    await until(() => running.server.surfaces.exec.connectionCount === 0, 5_000, "the connection to be gone");
  }, 60_000);

  it("serves a client that reads the same traffic, a few frames in flight, in full and keeps it open", async () => {
    const client = await open();
    const IN_FLIGHT = 4;
    let sent = 0;
    const next = () => {
      if (sent < FRAMES) client.socket.send(sent % 2 === 0 ? requestFrame(sent++) : pingFrame(sent++));
    };
    client.socket.on("message", next);
    for (let i = 0; i < IN_FLIGHT; i++) next();
    await until(() => client.received === FRAMES, 20_000, "every answer");
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
    await client.closed;
  }, 60_000);

  it("serves a burst of ordinary requests sent at once in full", async () => {
    const client = await open();
    const BURST = 2_000;
    for (let i = 0; i < BURST; i++) client.socket.send(JSON.stringify({ type: "cancelAll", id: `b${i}`, payload: { accountId: 999 } }));
    await until(() => client.received === BURST, 20_000, "every answer");
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
    await client.closed;
  }, 60_000);
});

describe("the /exec bound from startLiveServer", () => {
  it("is execSlowConsumerBytes when given, EXEC_SLOW_CONSUMER_BYTES_DEFAULT otherwise", async () => {
    expect(running.exec.slowConsumerBytes).toBe(EXEC_SLOW_CONSUMER_BYTES_DEFAULT);
    const other = await startLiveServer({ config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 5, port: 0, clock: "manual", startMicros: START_MICROS, execSlowConsumerBytes: 3 << 20 });
    try {
      expect(other.exec.slowConsumerBytes).toBe(3 << 20);
    } finally {
      await other.close();
    }
  });
});
