/**
 * Dead-peer detection on /exec (exec.ts, liveness.ts) over real sockets, on
 * a surface of its own with a 50 ms ping interval:
 *
 * - a client that answers pings (ws answers them by itself) stays open over
 *   many intervals and is served;
 * - a client that answers none (`autoPong: false`) is terminated at the
 *   second tick, after exactly one ping, its request still in flight (its
 *   answer held by the input log's group commit): the connection is gone
 *   from the surface's count, the request still happened, and releasing its
 *   held answer writes nothing and stops nothing;
 * - the server being the slow side never costs a live peer its connection:
 *   not while its answer is held for many intervals, and not when a turn of
 *   the event loop is blocked for several intervals right after the peer
 *   answered a ping (the pong then waits on the socket while the overdue
 *   tick comes due; the verdict must come after the pong is read).
 */
import { createServer, type Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { createExecSurface, type ExecSurface } from "../../src/live/exec.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { START_MICROS } from "./helpers/rest-world.ts";

const PING_INTERVAL_MS = 50;

/** An /exec client: frames received, pings seen, and how it closed. */
class Peer {
  readonly frames: Record<string, unknown>[] = [];
  /** When the client began to connect: the server's ping timer starts after this, before the client sees the open. */
  readonly connectingAtMs: number;
  readonly closed: Promise<{ code: number; atMs: number }>;
  pings = 0;

  private constructor(
    readonly socket: WebSocket,
    connectingAtMs: number,
  ) {
    this.connectingAtMs = connectingAtMs;
    socket.on("message", (data) => this.frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
    socket.on("ping", () => this.pings++);
    this.closed = new Promise((resolve) => socket.once("close", (code) => resolve({ code, atMs: Date.now() })));
  }

  static async open(url: string, options: { autoPong: boolean }): Promise<Peer> {
    const connectingAtMs = Date.now();
    const socket = new WebSocket(url, { autoPong: options.autoPong });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    return new Peer(socket, connectingAtMs);
  }

  send(frame: unknown): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** The answer to `id` (waits at most 5 s). */
  async answer(id: string): Promise<Record<string, unknown>> {
    await until(() => this.frames.some((frame) => frame["id"] === id), 5_000, `the answer to ${id}`);
    return this.frames.find((frame) => frame["id"] === id)!;
  }
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}


/** A request the Exchange answers at once (and refuses: no such account), so that any number can be sent. */
function request(peer: Peer, id: string): void {
  peer.send({ type: "cancelAll", id, payload: { accountId: 999 } });
}

let running: RunningServer;
let surface: ExecSurface;
let server: Server;
let url: string;
/** While set, the input log holds answers back (as its group commit does until the fdatasync). */
let holding = false;
const held: (() => void)[] = [];
const peers: Peer[] = [];

function release(): void {
  holding = false;
  for (const callback of held.splice(0)) callback();
}

async function peer(autoPong: boolean): Promise<Peer> {
  const opened = await Peer.open(url, { autoPong });
  peers.push(opened);
  return opened;
}

beforeAll(async () => {
  running = await startLiveServer({
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 21,
    port: 0,
    clock: "manual",
    startMicros: START_MICROS,
    log: {
      append: () => {},
      whenDurable: (callback) => (holding ? held.push(callback) : callback()),
    },
  });
  surface = createExecSurface(running.context, { pingIntervalMs: PING_INTERVAL_MS });
  server = createServer();
  server.on("upgrade", (req, socket, head) => surface.wss.handleUpgrade(req, socket, head, (ws) => surface.wss.emit("connection", ws, req)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  url = `ws://127.0.0.1:${address.port}/exec`;
});

afterAll(async () => {
  release();
  for (const opened of peers) opened.socket.terminate();
  surface?.closeAll(1001, "test over");
  surface?.dispose?.();
  await new Promise((resolve) => server?.close(resolve));
  await running?.close();
});

describe("/exec dead-peer detection", () => {
  it("keeps a peer that answers pings open over many intervals, and serves it", async () => {
    const alive = await peer(true);
    await until(() => alive.pings >= 6, 5_000, "six protocol pings");
    expect(alive.socket.readyState).toBe(WebSocket.OPEN);
    expect(surface.connectionCount).toBe(1);
    request(alive, "a-1");
    expect(await alive.answer("a-1")).toMatchObject({ type: "cancelAll", id: "a-1", ok: false });
    alive.socket.close();
    await alive.closed;
    await until(() => surface.connectionCount === 0, 2_000, "the closed connection to be gone");
  });

  it("terminates a peer that answers no ping after one interval unanswered, its request in flight, and forgets it", async () => {
    const alive = await peer(true);
    const silent = await peer(false);
    expect(surface.connectionCount).toBe(2);
    const inputs = running.context.driver.inputsHandled;
    holding = true;
    request(silent, "s-1");
    await until(() => held.length === 1, 2_000, "the silent peer's answer to be held");
    expect(running.context.driver.inputsHandled).toBe(inputs + 1); // the request happened

    const closed = await Promise.race([silent.closed, sleep(3_000).then(() => undefined)]);
    expect(closed, "the silent peer was never terminated").toBeDefined();
    expect(closed!.code).toBe(1006); // terminated: no close frame
    // One ping at the first tick, the verdict at the second: about two intervals.
    expect(silent.pings).toBe(1);
    // From before the connection (the server's timer starts between that and the open the client sees): never early.
    const elapsedMs = closed!.atMs - silent.connectingAtMs;
    expect(elapsedMs).toBeGreaterThanOrEqual(2 * PING_INTERVAL_MS - 10);
    expect(elapsedMs).toBeLessThan(2 * PING_INTERVAL_MS + 1_000);
    await until(() => surface.connectionCount === 1, 2_000, "the silent connection to be gone");

    // Its held answer is released onto a dead socket: nothing is written, nothing breaks.
    release();
    expect(silent.frames).toEqual([]);
    expect(surface.connectionCount).toBe(1);
    request(alive, "a-2");
    expect(await alive.answer("a-2")).toMatchObject({ id: "a-2", ok: false });
    expect(alive.socket.readyState).toBe(WebSocket.OPEN);
    alive.socket.close();
    await until(() => surface.connectionCount === 0, 2_000, "no connection left");
  });

  it("keeps a live peer while the server is the slow side: answers held, and a turn blocked for several intervals", async () => {
    const busy = await peer(true);
    holding = true;
    request(busy, "b-1");
    await until(() => held.length === 1, 2_000, "the answer to be held");

    // Answers held for many intervals: the peer's pongs alone decide.
    const pingsBefore = busy.pings;
    await until(() => busy.pings >= pingsBefore + 6, 5_000, "six pings while the answer is held");
    expect(busy.socket.readyState).toBe(WebSocket.OPEN);

    // Block the process (server included) for four intervals right after the
    // peer's automatic pong is written: the server's overdue tick comes due
    // with the pong still unread on its socket.
    let blocks = 0;
    const block = () => {
      const endMs = Date.now() + 4 * PING_INTERVAL_MS;
      while (Date.now() < endMs) {
        // busy: no timer, no I/O
      }
      if (++blocks === 3) busy.socket.off("ping", block);
    };
    busy.socket.on("ping", block);
    await until(() => blocks === 3 || busy.socket.readyState !== WebSocket.OPEN, 5_000, "three blocked turns");
    expect(busy.socket.readyState, "the live peer was terminated while the server was blocked").toBe(WebSocket.OPEN);
    const pingsAfterBlocks = busy.pings;
    await until(() => busy.pings >= pingsAfterBlocks + 3, 5_000, "three more pings");
    expect(busy.socket.readyState).toBe(WebSocket.OPEN);
    expect(surface.connectionCount).toBe(1);

    release();
    expect(await busy.answer("b-1")).toMatchObject({ type: "cancelAll", id: "b-1", ok: false });
    busy.socket.close();
    await until(() => surface.connectionCount === 0, 2_000, "no connection left");
  });
});
