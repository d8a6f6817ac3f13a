/**
 * WebSocket order entry (/exec) over real sockets: the paths exec.test.ts
 * leaves out.
 *
 * - modifyOrder and cancelAllAfter error and success answers, each frame's
 *   `payload` / `error` byte for byte the REST body for the same request
 *   (spec 4.2: "identical on both transports"; a rejected request leaves no
 *   trace, so the same signed body can be sent on both);
 * - `retryAfterMs` inside the WS `error` object when the per-wallet rate
 *   limit answers (spec 7.1), with a cancelAll bucket of 1 configured
 *   through the server's ExchangeConfig;
 * - the INTERNAL framing error (exec.ts, ExecQueue.run): triggered by an
 *   input log whose `append` throws (a recording failure: the real log
 *   throws once closed), so the Exchange never sees the request; the
 *   connection stays open and the id may be used again;
 * - `pong` from a client: with an id UNKNOWN_TYPE, without one
 *   MALFORMED_JSON (it lacks the required id, spec 7.4);
 * - the frame-size limit (EXEC_FRAME_BYTES_MAX, 65 KiB): a non-JSON frame at
 *   the limit is MALFORMED_JSON on a connection that stays open, one byte
 *   more is closed with 1009 (RFC 6455 7.4.1; exec.ts says why);
 * - protocol-level pings on an idle connection (a surface of its own with a
 *   50 ms interval);
 * - graceful shutdown: an idle /exec connection is closed with 1001 at once,
 *   a busy one (its answer held by the input log's group commit) gets its
 *   answer, then 1001, within the drain.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { DEFAULT_RATE_LIMITS_BY_TIER } from "../../src/exchange/gateway/rate-limiter.ts";
import { createExecSurface, EXEC_FRAME_BYTES_MAX, type ExecSurface } from "../../src/live/exec.ts";
import { startLiveServer } from "../../src/live/serve.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { ETH, RestWorld, signedConfig, START_MICROS, type LoggedInput } from "./helpers/rest-world.ts";

/** A raw /exec socket: every frame as text and parsed, in arrival order, and how it closed. */
class ExecSocket {
  private readonly frames: { text: string; frame: Record<string, unknown> }[] = [];
  private readonly waiters: ((entry: { text: string; frame: Record<string, unknown> }) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string; atMs: number }>;
  pings = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const text = data.toString();
      const entry = { text, frame: JSON.parse(text) as Record<string, unknown> };
      const waiter = this.waiters.shift();
      if (waiter) waiter(entry);
      else this.frames.push(entry);
    });
    socket.on("ping", () => this.pings++);
    this.closed = new Promise((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString(), atMs: Date.now() })));
  }

  static async open(url: string): Promise<ExecSocket> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    return new ExecSocket(socket);
  }

  /** The next frame's text and value (waits at most 5 s). */
  nextEntry(): Promise<{ text: string; frame: Record<string, unknown> }> {
    const ready = this.frames.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no frame within 5 s")), 5_000);
      this.waiters.push((entry) => {
        clearTimeout(timer);
        resolve(entry);
      });
    });
  }

  /** How the connection closed (fails after `timeoutMs`). */
  closedWithin(timeoutMs = 5_000): Promise<{ code: number; reason: string; atMs: number }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not closed within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([this.closed, timeout]).finally(() => clearTimeout(timer));
  }

  async next(): Promise<Record<string, unknown>> {
    return (await this.nextEntry()).frame;
  }

  /** Frames received and not yet read. */
  get unread(): number {
    return this.frames.length;
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** Sends one request and returns its answer's text. */
  async request(type: string, id: string, payload: unknown): Promise<string> {
    this.send({ type, id, payload });
    const { text, frame } = await this.nextEntry();
    expect(frame["id"]).toBe(id);
    return text;
  }

  close(): void {
    this.socket.close();
  }
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// -- the main server: signed mode, manual clock, cancelAll bucket of 1, a log that can be made to fail --

/** The cancelAll bucket of every tier: one accepted cancelAll per 60 s (createOrder/cancelOrder/modifyOrder unchanged). */
const CANCEL_ALL_PER_WINDOW = 1;

let w: RestWorld;
let failNextAppend = false;
let ids = 0;
const sockets: ExecSocket[] = [];
const servers: Server[] = [];
const surfaces: ExecSurface[] = [];

async function execSocket(url = w.running.urls.exec): Promise<ExecSocket> {
  const socket = await ExecSocket.open(url);
  sockets.push(socket);
  return socket;
}

function nextId(): string {
  return `r-${++ids}`;
}

/**
 * Sends `body` as REST POST /v2/{op}, then as an /exec `op` request, and
 * checks that the frame is `{type, id, ok, payload | error}` around exactly
 * the REST body's bytes (HTTP 200: payload, HTTP 400: error). Only for
 * requests the Exchange rejects (a rejection consumes no nonce and counts in
 * no bucket), or whose answer does not depend on being the first.
 */
async function sameOnBoth(exec: ExecSocket, op: string, body: unknown): Promise<{ ok: boolean; body: any }> {
  const rest = await w.post(`/v2/${op}`, body);
  expect([200, 400], rest.text).toContain(rest.status);
  const id = nextId();
  const text = await exec.request(op, id, body);
  const ok = rest.status === 200;
  expect(text).toBe(`{"type":"${op}","id":"${id}","ok":${ok},"${ok ? "payload" : "error"}":${rest.text}}`);
  return { ok, body: rest.body };
}

beforeAll(async () => {
  const base = signedConfig();
  const tiers = Object.fromEntries(Object.entries(DEFAULT_RATE_LIMITS_BY_TIER).map(([tier, limits]) => [tier, { ...limits, cancelAllPerWindow: CANCEL_ALL_PER_WINDOW }]));
  const config = { ...base, gateway: { ...base.gateway, rateLimitsByTier: tiers } };
  const log: LoggedInput[] = [];
  const running = await startLiveServer({
    config,
    seed: 11,
    port: 0,
    clock: "manual",
    startMicros: START_MICROS,
    log: {
      append: (atMicros, input) => {
        if (failNextAppend) {
          failNextAppend = false;
          throw new Error("input log write failed at /secret/inputs.arrow");
        }
        log.push({ atMicros, input: structuredClone(input) });
      },
    },
  });
  w = new RestWorld(running, config, log);
  await w.admin("accounts", { wallet: w.alice.address, accountId: 2, deposits: { rUSD: "10000" } });
  await w.admin("accounts", { wallet: w.bob.address, accountId: 3, deposits: { rUSD: "10000" } });
  await w.admin("accounts", { wallet: w.carol.address, accountId: 4, deposits: { rUSD: "1000", WETH: "2" } });
  await w.prices();
});

afterAll(async () => {
  for (const socket of sockets) socket.socket.terminate();
  for (const surface of surfaces) {
    surface.closeAll(1001, "test over");
    surface.dispose?.();
  }
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await w?.close();
});

describe("modifyOrder over /exec: the REST bodies, byte for byte", () => {
  it("answers ORDER_NOT_FOUND_ERROR, EMPTY_MODIFY_ERROR and errors naming the field, then modifies", async () => {
    const exec = await execSocket();
    const orderId = await w.rest(w.alice, { isBuy: true, qty: "0.03", limitPx: "1950", clientOrderId: "31" });
    const state = { orderId, clientOrderId: "31", symbol: ETH, isBuy: true, qty: "0.03", limitPx: "1950", postOnly: false, timeInForce: "GTC" } as const;

    const { clientOrderId: _restated, ...withoutClientId } = state;
    const notFound = await sameOnBoth(exec, "modifyOrder", w.modify(w.alice, { ...withoutClientId, orderId: "4242" }));
    expect(notFound.ok).toBe(false);
    expect(notFound.body).toEqual({ error: "ORDER_NOT_FOUND_ERROR", message: expect.stringContaining("4242") });

    const empty = await sameOnBoth(exec, "modifyOrder", w.modify(w.alice, state));
    expect(empty.body).toEqual({ error: "EMPTY_MODIFY_ERROR", message: expect.stringContaining(orderId) });

    // Schema: a number where the decimal string belongs.
    const schema = await sameOnBoth(exec, "modifyOrder", { ...w.modify(w.alice, { ...state, qty: "0.04" }), limitPx: 1960 });
    expect(schema.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("limitPx") });
    // Off the qty grid (qtyStepSize 0.001).
    const grid = await sameOnBoth(exec, "modifyOrder", w.modify(w.alice, { ...state, qty: "0.0305" }));
    expect(grid.body).toEqual({ error: "PRICE_QTY_BOUNDS_ERROR", message: 'qty "0.0305" is not a multiple of qtyStepSize "0.001"' });
    // An immutable field restated differently (properly signed).
    const immutable = await sameOnBoth(exec, "modifyOrder", w.modify(w.alice, { ...state, isBuy: false, limitPx: "2100" }));
    expect(immutable.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("isBuy") });

    // None of them changed the order; a real modify over /exec does.
    const id = nextId();
    const modified = JSON.parse(await exec.request("modifyOrder", id, w.modify(w.alice, { ...state, qty: "0.04", limitPx: "1960" })));
    expect(modified).toEqual({ type: "modifyOrder", id, ok: true, payload: { status: "OPEN", orderId, cumQty: "0", clientOrderId: "31" } });
    expect(((await w.ok(`/v2/wallet/${w.alice.address}/openOrders`)) as any[]).find((o) => o.orderId === orderId)).toMatchObject({ qty: "0.04", limitPx: "1960" });
    exec.close();
  });
});

describe("cancelAllAfter over /exec: the REST bodies", () => {
  it("refuses timeoutMs out of range with INPUT_VALIDATION_ERROR, identical to REST", async () => {
    const exec = await execSocket();
    for (const timeoutMs of [1, 4_999, 60_001, -5_000]) {
      const answer = await sameOnBoth(exec, "cancelAllAfter", { ...w.cancelAllAfter(w.bob, { timeoutMs: 5_000 }), timeoutMs });
      expect(answer.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("timeoutMs") });
    }
    exec.close();
  });

  it("arms with triggerAt = receipt + timeoutMs and disarms with 0 (no triggerAt), as REST answers at the same time", async () => {
    const exec = await execSocket();
    for (const timeoutMs of [5_000, 60_000, 0]) {
      const id = nextId();
      const ws = JSON.parse(await exec.request("cancelAllAfter", id, w.cancelAllAfter(w.bob, { timeoutMs })));
      const rest = await w.post("/v2/cancelAllAfter", w.cancelAllAfter(w.bob, { timeoutMs }));
      expect(rest.status).toBe(200);
      const expected = timeoutMs === 0 ? { accountId: 3, timeoutMs: 0 } : { accountId: 3, timeoutMs, triggerAt: w.nowMs() + timeoutMs };
      expect(rest.body).toEqual(expected);
      expect(ws).toEqual({ type: "cancelAllAfter", id, ok: true, payload: expected });
      if (timeoutMs === 0) expect(ws.payload).not.toHaveProperty("triggerAt");
    }
    exec.close();
  });
});

describe("rate limits over /exec", () => {
  it("carries retryAfterMs inside the error object, as the REST body does", async () => {
    const exec = await execSocket();
    const first = JSON.parse(await exec.request("cancelAll", "c-1", w.cancelAll(w.carol)));
    expect(first).toEqual({ type: "cancelAll", id: "c-1", ok: true, payload: { cancelledCount: 0 } });
    await w.advance(1_500);
    const limited = await sameOnBoth(exec, "cancelAll", w.cancelAll(w.carol));
    expect(limited.body).toEqual({ error: "RATE_LIMITED_ERROR", message: expect.stringContaining(`${CANCEL_ALL_PER_WINDOW} cancelAll`), retryAfterMs: 58_500 });
    // Other errors carry no retryAfterMs (spec 7.1).
    const other = JSON.parse(await exec.request("cancelAll", "c-2", { ...w.cancelAll(w.carol), accountId: 999 }));
    expect(other).toMatchObject({ ok: false, error: { error: "NO_ACCOUNTS_FOUND_ERROR" } });
    expect(other.error).not.toHaveProperty("retryAfterMs");
    // The wait is the minimum: once it has passed, the bucket takes the next one.
    await w.advance(58_500);
    expect(JSON.parse(await exec.request("cancelAll", "c-3", w.cancelAll(w.carol)))).toMatchObject({ ok: true, payload: { cancelledCount: 0 } });
    await w.prices(); // oracle prices stay fresh for the tests after this one
    exec.close();
  });
});

describe("framing errors over /exec", () => {
  it("answers INTERNAL in the top-level envelope when handling throws, keeps the connection, and takes the next request", async () => {
    const exec = await execSocket();
    const inputs = w.running.context.driver.inputsHandled;
    const body = w.cancelAllAfter(w.alice, { timeoutMs: 0 });
    failNextAppend = true;
    exec.send({ type: "cancelAllAfter", id: "boom", payload: body });
    const { text, frame } = await exec.nextEntry();
    expect(failNextAppend).toBe(false);
    expect(frame).toEqual({ type: "error", id: "boom", error: { error: "INTERNAL", message: "internal failure handling the frame" } });
    expect(text).not.toContain("secret");
    expect(w.running.context.driver.inputsHandled).toBe(inputs); // the Exchange never saw it
    expect(exec.socket.readyState).toBe(WebSocket.OPEN);
    // The same connection, the same id (no longer in flight), the same body (its nonce was never used).
    const again = JSON.parse(await exec.request("cancelAllAfter", "boom", body));
    expect(again).toEqual({ type: "cancelAllAfter", id: "boom", ok: true, payload: { accountId: 2, timeoutMs: 0 } });
    exec.close();
  });

  it("answers a client pong: UNKNOWN_TYPE with an id, MALFORMED_JSON without one (no id in the error)", async () => {
    const exec = await execSocket();
    exec.send({ type: "pong", id: "p-1" });
    expect(await exec.next()).toEqual({ type: "error", id: "p-1", error: { error: "UNKNOWN_TYPE", message: expect.stringContaining("pong") } });
    exec.send({ type: "pong" });
    const missing = await exec.next();
    expect(missing).toEqual({ type: "error", error: { error: "MALFORMED_JSON", message: expect.stringContaining("id") } });
    exec.send({ type: "ping", id: "after" });
    expect(await exec.next()).toEqual({ type: "pong", id: "after" });
    exec.close();
  });

  it("answers a non-JSON frame of exactly 65 KiB (the REST body limit and 1 KiB of envelope) with MALFORMED_JSON and stays open; one byte more closes with 1009", async () => {
    expect(EXEC_FRAME_BYTES_MAX).toBe(65 * 1024);
    const exec = await execSocket();
    exec.send("x".repeat(EXEC_FRAME_BYTES_MAX));
    expect(await exec.next()).toEqual({ type: "error", error: { error: "MALFORMED_JSON", message: expect.any(String) } });
    expect(exec.socket.readyState).toBe(WebSocket.OPEN);
    exec.send({ type: "ping", id: "still-open" });
    expect(await exec.next()).toEqual({ type: "pong", id: "still-open" });
    exec.send("x".repeat(EXEC_FRAME_BYTES_MAX + 1));
    expect((await exec.closedWithin()).code).toBe(1009);
    expect(exec.unread).toBe(0); // no framing error for it: the frame was never read
  });
});

describe("protocol-level pings on /exec", () => {
  it("pings an idle connection at the configured interval; it stays open and usable", async () => {
    const surface = createExecSurface(w.running.context, { pingIntervalMs: 50 });
    surfaces.push(surface);
    const server = createServer();
    servers.push(server);
    server.on("upgrade", (request, socket, head) => surface.wss.handleUpgrade(request, socket, head, (ws) => surface.wss.emit("connection", ws, request)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    const exec = await execSocket(`ws://127.0.0.1:${address.port}/exec`);
    await until(() => exec.pings >= 5, 3_000, "five protocol pings");
    expect(exec.socket.readyState).toBe(WebSocket.OPEN);
    expect(surface.connectionCount).toBe(1);
    const id = nextId();
    expect(JSON.parse(await exec.request("cancelAllAfter", id, w.cancelAllAfter(w.alice, { timeoutMs: 0 })))).toMatchObject({ id, ok: true });
    expect(() => createExecSurface(w.running.context, { pingIntervalMs: 0 })).toThrow(RangeError);
    exec.close();
  });
});

describe("graceful shutdown of /exec connections", () => {
  it("closes an idle connection with 1001 at once, and a busy one after its answer, within the drain", async () => {
    // A log that holds answers back while `holding` (as the group commit does until its fdatasync).
    let holding = false;
    const held: (() => void)[] = [];
    const drainMs = 3_000;
    const running = await startLiveServer({
      config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
      seed: 12,
      port: 0,
      clock: "manual",
      startMicros: START_MICROS,
      drainMs,
      log: {
        append: () => {},
        whenDurable: (callback) => (holding ? held.push(callback) : callback()),
      },
    });
    const idle = await ExecSocket.open(running.urls.exec);
    const busy = await ExecSocket.open(running.urls.exec);
    sockets.push(idle, busy);
    holding = true;
    busy.send({ type: "cancelAll", id: "held", payload: { accountId: 999 } });
    await until(() => held.length > 0, 2_000, "the answer to be held");

    const started = Date.now();
    const closing = running.close();
    expect(await idle.closedWithin()).toMatchObject({ code: 1001, reason: "server shutting down" });
    expect(busy.socket.readyState).toBe(WebSocket.OPEN); // its request is still in flight
    expect(busy.unread).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(busy.socket.readyState).toBe(WebSocket.OPEN);

    holding = false;
    for (const release of held.splice(0)) release();
    expect(await busy.next()).toMatchObject({ type: "cancelAll", id: "held", ok: false, error: { error: "INPUT_VALIDATION_ERROR" } });
    const closed = await busy.closedWithin();
    expect(closed).toMatchObject({ code: 1001, reason: "server shutting down" });
    expect(closed.atMs - started).toBeLessThan(drainMs);
    await closing;
    expect(Date.now() - started).toBeLessThan(drainMs);
  });
});
