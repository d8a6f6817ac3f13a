/**
 * The server's plain-HTTP limits, over real sockets (the specification
 * shows none, 8.5): open TCP connections per source IP (beyond the cap a
 * connection is destroyed unanswered; every close makes room, however it
 * happened), the headers, request and keep-alive timeouts (slowloris
 * clients get 408 and are closed; upgraded WebSockets are not touched), and
 * the request body limit on /v2 and /admin alike (a body that never ends is
 * cut as soon as it passes the limit). Servers are started with a small cap
 * and short timeouts; one keeps the defaults.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { REST_BODY_LIMIT_BYTES } from "../../src/live/rest.ts";
import { startLiveServer, type RunningServer, type StartOptions } from "../../src/live/serve.ts";
import {
  CONNECTIONS_PER_IP_MAX,
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  WEBSOCKETS_PER_IP_MAX,
} from "../../src/live/server.ts";
import { hasResponse, keepAliveGet, RawConnection, statusOf } from "./helpers/raw-http.ts";
import { closeWebSocket, openWebSocket } from "./helpers/sockets.ts";
import { signedConfig, START_MICROS } from "./helpers/rest-world.ts";
import { StreamClient } from "./helpers/stream-client.ts";

const CAP = 4;
const HEADERS_MS = 300;
const REQUEST_MS = 700;
const KEEP_ALIVE_MS = 1_000;
/** Node closes an idle keep-alive connection this long after the advertised timeout. */
const NODE_KEEP_ALIVE_GRACE_MS = 1_000;
/** How late a timeout may be: the server checks a tenth of the headers timeout apart, plus scheduling on a busy machine. */
const LATE_MS = 400;

const servers: RunningServer[] = [];

function start(options: Partial<StartOptions>): Promise<RunningServer> {
  return startLiveServer({ config: signedConfig(), seed: 7, port: 0, clock: "manual", startMicros: START_MICROS, ...options }).then((running) => {
    servers.push(running);
    return running;
  });
}

afterAll(async () => {
  await Promise.all(servers.map((running) => running.close()));
});


/** A connection that answered a keep-alive GET /health/live (and stays open), or "dropped" when closed unanswered. */
async function probe(port: number, localAddress?: string): Promise<RawConnection | "dropped"> {
  const connection = new RawConnection(port, localAddress === undefined ? {} : { localAddress });
  await connection.connected;
  connection.write(keepAliveGet("/health/live"));
  const text = await connection.until(hasResponse);
  if (hasResponse(text)) {
    expect(statusOf(text)).toBe(200);
    return connection;
  }
  // Dropped: no answer at all (not a 429 or any other status).
  expect(text).toBe("");
  return "dropped";
}

/** A probe that must be admitted; the server sees a close a moment after the client, so it tries for up to a second. */
async function admitted(port: number, localAddress?: string): Promise<RawConnection> {
  for (let tries = 0; tries < 50; tries++) {
    const outcome = await probe(port, localAddress);
    if (outcome !== "dropped") return outcome;
    await sleep(20);
  }
  throw new Error("no connection admitted within a second");
}


/** Writes a chunked body of 16 KiB chunks every 2 ms until the connection closes. */
function streamForever(connection: RawConnection, head: string): void {
  connection.write(`${head}\r\ntransfer-encoding: chunked\r\n\r\n`);
  const chunk = Buffer.concat([Buffer.from("4000\r\n"), Buffer.alloc(0x4000, " "), Buffer.from("\r\n")]);
  const timer = setInterval(() => connection.write(chunk), 2);
  void connection.closed.then(() => clearInterval(timer));
}

describe("TCP connections per source IP", () => {
  let running: RunningServer;

  beforeAll(async () => {
    running = await start({ connectionsPerIp: CAP });
  });

  it("admits the cap, drops the next unanswered, and admits exactly one more for each close, however it closed", async () => {
    const { port } = running;
    const open: RawConnection[] = [];
    for (let i = 0; i < CAP; i++) open.push(await admitted(port));
    // Refused connections are not counted: several in a row are all dropped, and dropped at once.
    for (let i = 0; i < 3; i++) {
      const refused = new RawConnection(port);
      await refused.connected;
      const closed = await refused.closedWithin(1_000);
      expect(closed.text).toBe("");
    }
    // The ones held still work (keep-alive: a second request on the same connection).
    const answered = open[0]!.text.length;
    open[0]!.write(keepAliveGet("/health/ready"));
    expect(statusOf((await open[0]!.until((text) => hasResponse(text.slice(answered)))).slice(answered))).toBe(200);

    // The client closes (FIN): one more, and only one.
    open.shift()!.socket.end();
    open.push(await admitted(port));
    expect(await probe(port)).toBe("dropped");
    // The client resets (RST).
    open.shift()!.socket.resetAndDestroy();
    open.push(await admitted(port));
    expect(await probe(port)).toBe("dropped");
    // The server closes (a request with connection: close).
    const leaving = open.shift()!;
    leaving.write("GET /health/live HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    expect(statusOf((await leaving.closedWithin(2_000)).text)).toBe(200);
    open.push(await admitted(port));
    expect(await probe(port)).toBe("dropped");

    for (const connection of open) connection.socket.destroy();
    await Promise.all(open.map((connection) => connection.closed));
  });

  it("counts a WebSocket as a connection: beyond the cap an upgrade is dropped too, before the WebSocket limit's 429", async () => {
    const { port, urls } = running;
    const held: RawConnection[] = [];
    for (let i = 0; i < CAP - 1; i++) held.push(await admitted(port));
    const opened = await openWebSocket(urls.stream);
    if (!("socket" in opened)) throw new Error(`upgrade answered ${opened.status}`);
    expect(await probe(port)).toBe("dropped");
    await expect(openWebSocket(urls.exec)).rejects.toThrow(/socket hang up|ECONNRESET/);
    // Closing the WebSocket makes room.
    await closeWebSocket(opened.socket);
    held.push(await admitted(port));
    expect(await probe(port)).toBe("dropped");
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
  });

  it("does not leak: after every connection closed, rounds of the full cap are admitted again", async () => {
    for (let round = 0; round < 3; round++) {
      const held: RawConnection[] = [];
      for (let i = 0; i < CAP; i++) held.push(await admitted(running.port));
      expect(await probe(running.port)).toBe("dropped");
      for (const connection of held) connection.socket.destroy();
      await Promise.all(held.map((connection) => connection.closed));
    }
  });

  it("counts per source IP: at the cap from 127.0.0.1, a connection from 127.0.0.2 is admitted", async (context) => {
    const other = new RawConnection(running.port, { localAddress: "127.0.0.2" });
    const usable = await other.connected.then(
      () => true,
      () => false,
    );
    other.socket.destroy();
    if (!usable) return context.skip(); // a loopback without 127.0.0.2 (not Linux)
    const held: RawConnection[] = [];
    for (let i = 0; i < CAP; i++) held.push(await admitted(running.port));
    expect(await probe(running.port)).toBe("dropped");
    const fromOther = await admitted(running.port, "127.0.0.2");
    expect(await probe(running.port)).toBe("dropped");
    for (const connection of [...held, fromOther]) connection.socket.destroy();
    await Promise.all([...held, fromOther].map((connection) => connection.closed));
  });
});

describe.concurrent("HTTP timeouts (headers 300 ms, request 700 ms, keep-alive 1 s)", () => {
  let running: RunningServer;

  beforeAll(async () => {
    running = await start({ headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, keepAliveTimeoutMs: KEEP_ALIVE_MS });
  });

  it("answers 408 and closes a connection that sends nothing, after the headers timeout", async ({ expect }) => {
    const silent = new RawConnection(running.port);
    const closed = await silent.closedWithin(HEADERS_MS + LATE_MS);
    expect(statusOf(closed.text)).toBe(408);
    expect(closed.afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 20);
  });

  it("closes a slowloris client trickling header lines (a REST request and a WebSocket upgrade) after the headers timeout, though it never stops sending", async ({ expect }) => {
    const heads = ["GET /v2/feeTiers HTTP/1.1\r\nhost: localhost\r\n", "GET /ws HTTP/1.1\r\nhost: localhost\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"];
    const closes = heads.map(async (head) => {
      const slow = new RawConnection(running.port);
      slow.write(head);
      let line = 0;
      const timer = setInterval(() => slow.write(`x-slow-${line++}: 1\r\n`), 50);
      const closed = await slow.closedWithin(HEADERS_MS + LATE_MS).finally(() => clearInterval(timer));
      expect(line).toBeGreaterThan(2);
      return closed;
    });
    for (const closed of await Promise.all(closes)) {
      expect(statusOf(closed.text)).toBe(408);
      expect(closed.afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 20);
    }
  });

  it("closes a client trickling a body after the request timeout (its headers were complete at once)", async ({ expect }) => {
    const slow = new RawConnection(running.port);
    slow.write("POST /admin/prices HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n");
    const timer = setInterval(() => slow.write(" "), 50);
    const closed = await slow.closedWithin(REQUEST_MS + LATE_MS).finally(() => clearInterval(timer));
    expect(statusOf(closed.text)).toBe(408);
    // Past the headers timeout: it is the request timeout that ended it.
    expect(closed.afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 20);
  });

  it("answers a request whose body never ends on a route that reads none with connection: close, and closes it then, long before the request timeout", async ({ expect }) => {
    const heads = ["POST /health/live HTTP/1.1", "GET /v2/feeTiers HTTP/1.1", "POST /v2/feeTiers HTTP/1.1", "GET /v2/no-such-route HTTP/1.1", "GET /admin/state HTTP/1.1", "POST //[ HTTP/1.1"];
    const closes = heads.map(async (line) => {
      const endless = new RawConnection(running.port);
      streamForever(endless, `${line}\r\nhost: localhost`);
      return endless.closedWithin(REQUEST_MS + LATE_MS);
    });
    for (const [i, closed] of (await Promise.all(closes)).entries()) {
      expect(statusOf(closed.text), heads[i]).toBe([200, 200, 405, 404, 200, 400][i]);
      expect(closed.text, heads[i]).toMatch(/\r\nconnection: close\r\n/i);
      expect(closed.afterMs, heads[i]).toBeLessThan(REQUEST_MS - 200);
    }
  });

  it("keeps a connection alive after a request whose body was read: the next request on it is answered", async ({ expect }) => {
    const client = new RawConnection(running.port);
    const body = "{}";
    // Read, then refused (400: no prices in it): reading is what keeps the connection, not the outcome.
    client.write(`POST /admin/prices HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    const first = await client.until(hasResponse);
    expect(statusOf(first)).toBe(400);
    expect(first).not.toMatch(/\r\nconnection: close\r\n/i);
    client.write(keepAliveGet("/health/live"));
    const both = await client.until((text) => (text.match(/HTTP\/1\.1 /g) ?? []).length === 2 && hasResponse(text.slice(text.lastIndexOf("HTTP/1.1 "))));
    expect(both.slice(both.lastIndexOf("HTTP/1.1 "))).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.isClosed).toBe(false);
    client.socket.destroy();
  });

  it("keeps an idle keep-alive connection for the keep-alive timeout (advertised), then closes it", async ({ expect }) => {
    const idle = new RawConnection(running.port);
    idle.write(keepAliveGet("/health/live"));
    const answer = await idle.until(hasResponse);
    const answeredAt = Date.now();
    expect(statusOf(answer)).toBe(200);
    expect(answer.toLowerCase()).toContain(`keep-alive: timeout=${KEEP_ALIVE_MS / 1000}\r\n`);
    await idle.closedWithin(KEEP_ALIVE_MS + NODE_KEEP_ALIVE_GRACE_MS + LATE_MS);
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 20);
    expect(idle.text).toBe(answer);
  });

  it("leaves upgraded WebSockets alone: /ws and /exec connections idle past every timeout still answer", async ({ expect }) => {
    const stream = await StreamClient.connect(running.urls.stream);
    const exec = await StreamClient.connect(running.urls.exec);
    await sleep(KEEP_ALIVE_MS + NODE_KEEP_ALIVE_GRACE_MS + LATE_MS);
    stream.send({ type: "ping" });
    exec.send({ type: "ping", id: "late" });
    expect(await stream.take((frame) => frame.type === "pong", 2_000, "pong on /ws")).toEqual({ type: "pong" });
    expect(await exec.take((frame) => frame.type === "pong", 2_000, "pong on /exec")).toEqual({ type: "pong", id: "late" });
    expect(stream.socket.readyState).toBe(WebSocket.OPEN);
    expect(exec.socket.readyState).toBe(WebSocket.OPEN);
    stream.close();
    exec.close();
    await Promise.all([stream.closed, exec.closed]);
  });
});

describe("Request bodies on /v2 and /admin (default timeouts: a cut within a second is the limit's)", () => {
  let running: RunningServer;

  beforeAll(async () => {
    running = await start({});
  });

  it("serves with the documented defaults in place of Node's implicit timeouts", () => {
    expect(running.server.http.headersTimeout).toBe(HTTP_HEADERS_TIMEOUT_MS);
    expect(running.server.http.requestTimeout).toBe(HTTP_REQUEST_TIMEOUT_MS);
    expect(running.server.http.keepAliveTimeout).toBe(HTTP_KEEP_ALIVE_TIMEOUT_MS);
    expect(HTTP_HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(HTTP_REQUEST_TIMEOUT_MS);
    expect(CONNECTIONS_PER_IP_MAX).toBeGreaterThan(WEBSOCKETS_PER_IP_MAX);
  });

  const routes = [
    { path: "/v2/createOrder", valid: "{}", status: 400 },
    { path: "/admin/prices", valid: '{"prices":[{"asset":"WETH","price":"2000"}]}', status: 200 },
  ];

  for (const { path } of routes) {
    it(`answers 400 naming the limit and closes the connection as soon as a body streamed forever to ${path} passes it`, async () => {
      const endless = new RawConnection(running.port);
      streamForever(endless, `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json`);
      const closed = await endless.closedWithin(2_000);
      expect(statusOf(closed.text)).toBe(400);
      expect(closed.text.toLowerCase()).toContain("\r\nconnection: close\r\n");
      expect(closed.text).toContain(`"error":"INPUT_VALIDATION_ERROR"`);
      expect(closed.text).toContain(`request body exceeds ${REST_BODY_LIMIT_BYTES} bytes`);
    });

    it(`answers 400 at once, reading nothing, when the content-length declared to ${path} is above the limit`, async () => {
      const declared = new RawConnection(running.port);
      declared.write(`POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${REST_BODY_LIMIT_BYTES + 1}\r\n\r\n`);
      const closed = await declared.closedWithin(2_000);
      expect(statusOf(closed.text)).toBe(400);
      expect(closed.text).toContain(`request body exceeds ${REST_BODY_LIMIT_BYTES} bytes`);
    });
  }

  it("takes a body of exactly the limit on /v2 and /admin, and refuses one byte more", async () => {
    for (const { path, valid, status } of routes) {
      const post = (size: number) =>
        fetch(`http://127.0.0.1:${running.port}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: valid.padEnd(size, " ") }).then(async (response) => ({
          status: response.status,
          text: await response.text(),
        }));
      const atLimit = await post(REST_BODY_LIMIT_BYTES);
      expect(atLimit.status, `${path}: ${atLimit.text}`).toBe(status);
      expect(atLimit.text).not.toContain("exceeds");
      const beyond = await post(REST_BODY_LIMIT_BYTES + 1);
      expect(beyond.status).toBe(400);
      expect(JSON.parse(beyond.text)).toEqual({ error: "INPUT_VALIDATION_ERROR", message: `request body exceeds ${REST_BODY_LIMIT_BYTES} bytes` });
    }
  });
});

describe("Limit options", () => {
  it("refuses a cap or timeout that is not a positive integer, and a headers timeout above the request timeout", async () => {
    await expect(start({ connectionsPerIp: 0 })).rejects.toThrow('connectionsPerIp "0" is not a positive integer');
    await expect(start({ keepAliveTimeoutMs: 1.5 })).rejects.toThrow('keepAliveTimeoutMs "1.5" is not a positive integer');
    await expect(start({ headersTimeoutMs: 800, requestTimeoutMs: 700 })).rejects.toThrow('headersTimeoutMs "800" is above requestTimeoutMs "700"');
  });
});
