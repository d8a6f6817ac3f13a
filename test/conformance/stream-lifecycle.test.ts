/**
 * Connection management of the streaming surface over real sockets (spec
 * 6.3): 1013 for a slow consumer, 1012 on an admin resync, the graceful
 * shutdown (readiness 503 during the drain, and 503 to a new upgrade, idle connections closed first
 * with 1001, a connection still flushing its backlog kept until it is out),
 * and protocol-level pings.
 */
import { createServer, type Server } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { createStreamSurface, type StreamSurface } from "../../src/live/stream.ts";
import { openWebSocket } from "./helpers/sockets.ts";
import { StreamClient } from "./helpers/stream-client.ts";
import { StreamWorld } from "./helpers/stream-world.ts";

const worlds: StreamWorld[] = [];
const servers: Server[] = [];
const surfaces: StreamSurface[] = [];

afterAll(async () => {
  for (const surface of surfaces) surface.closeAll(1001, "test over");
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const world of worlds) await world.close();
});

async function startWorld(options: { slowConsumerBytes?: number; drainMs?: number } = {}): Promise<StreamWorld> {
  const world = await StreamWorld.start(options);
  worlds.push(world);
  return world;
}

/** Gives the wallet `count` ledger entries, so that its transfers snapshot is large (about 200 bytes an entry). */
function fillLedger(world: StreamWorld, count: number): void {
  for (let i = 0; i < count; i++) world.adminOk({ action: "deposit", accountId: 2, asset: "rUSD", amount: "1" });
}

async function until(condition: () => boolean, timeoutMs = 5_000, what = "the condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("slow consumer (1013)", () => {
  it("a client that stops reading is closed with 1013 once its unsent data passes slowConsumerBytes; others are unaffected", async () => {
    const world = await startWorld({ slowConsumerBytes: 64 * 1024 });
    fillLedger(world, 100);
    const healthy = await world.connect();
    const slow = await world.connect();
    const channel = `/v2/wallet/${world.alice.address}/transfers`;
    const first = await slow.subscribeAndWait(channel);
    const snapshotBytes = JSON.stringify(first).length;
    expect(snapshotBytes).toBeGreaterThan(10_000);
    slow.tcp.pause();
    const subscribes = Math.ceil((24 * 1024 * 1024) / snapshotBytes); // far beyond the kernel's socket buffers
    for (let i = 0; i < subscribes; i++) slow.subscribe(channel);
    await healthy.sync(); // the server is alive and serving others meanwhile
    let closedAt = -1;
    void slow.closed.then(() => (closedAt = slow.received.length));
    await new Promise((resolve) => setTimeout(resolve, 300));
    slow.tcp.resume();
    const { code, reason } = await slow.closedWithin(10_000);
    expect(code).toBe(1013);
    expect(reason).toBe("slow consumer");
    expect(closedAt).toBeGreaterThan(1);
    // The server stopped sending at the limit: the client got far fewer answers than it asked for.
    expect(slow.received.length).toBeLessThan(subscribes);
    await healthy.sync();
    expect(healthy.socket.readyState).toBe(healthy.socket.OPEN);
  });
});

describe("resync (1012)", () => {
  it("closes every stream connection with 1012 and reports how many; reconnecting works", async () => {
    const world = await startWorld();
    const a = await world.connect();
    const b = await world.connect();
    await a.subscribeAndWait(`/v2/market/ETHRUSDPERP/depth`);
    await b.sync();
    expect(world.context.resyncStreams()).toBe(2);
    expect(await a.closedWithin()).toEqual({ code: 1012, reason: "resync" });
    expect((await b.closedWithin()).code).toBe(1012);
    const again = await world.connect();
    expect((await again.subscribeAndWait(`/v2/market/ETHRUSDPERP/depth`)).type).toBe("subscribed");
  });
});

describe("graceful shutdown (1001)", () => {
  it("readiness answers 503 during the drain; idle connections are closed first with 1001; the drain is bounded", async () => {
    const drainMs = 1_500;
    const world = await startWorld({ drainMs });
    worlds.pop(); // closed by this test
    const base = world.running.urls.rest.replace(/\/v2$/, "");
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    const idle = await world.connect();
    const stuck = await world.connect(); // never reads: cannot complete the close handshake
    await idle.subscribeAndWait("/v2/assetOraclePrices");
    await stuck.sync();
    stuck.tcp.pause();
    const started = Date.now();
    const closing = world.running.close();
    expect(await idle.closedWithin()).toEqual({ code: 1001, reason: "server shutting down" });
    expect(Date.now() - started).toBeLessThan(drainMs / 2);
    const ready = await fetch(`${base}/health/ready`, { headers: { connection: "close" } });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    await closing;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(drainMs - 100);
    expect(elapsed).toBeLessThan(drainMs + 5_000);
    stuck.tcp.resume();
    expect([1001, 1006]).toContain((await stuck.closedWithin()).code);
  });

  it("answers a WebSocket upgrade during the drain with 503, as readiness does, not 404: /ws and /exec exist, the instance is going away", async () => {
    const world = await startWorld({ drainMs: 1_500 });
    worlds.pop(); // closed by this test
    const { stream, exec } = world.running.urls;
    const stuck = await world.connect(); // keeps the drain going
    await stuck.sync();
    stuck.tcp.pause();
    const closing = world.running.close();
    const base = world.running.urls.rest.replace(/\/v2$/, "");
    expect((await fetch(`${base}/health/ready`, { headers: { connection: "close" } })).status).toBe(503);
    for (const url of [stream, exec]) {
      const refused = await openWebSocket(url);
      expect("status" in refused ? refused.status : "opened", url).toBe(503);
    }
    // An unknown path is still 404 while draining.
    const unknown = await openWebSocket(stream.replace(/\/ws$/, "/nope"));
    expect("status" in unknown ? unknown.status : "opened").toBe(404);
    stuck.tcp.resume();
    await closing;
  });
});

describe("the surface's own rules, on a server of its own", () => {
  async function surfaceServer(world: StreamWorld, pingIntervalMs: number): Promise<{ surface: StreamSurface; url: string }> {
    const surface = createStreamSurface(world.context, { slowConsumerBytes: 1 << 30, pingIntervalMs });
    const server = createServer();
    server.on("upgrade", (request, socket, head) => surface.wss.handleUpgrade(request, socket, head, (ws) => surface.wss.emit("connection", ws, request)));
    servers.push(server);
    surfaces.push(surface);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    return { surface, url: `ws://127.0.0.1:${address.port}/ws` };
  }

  it("closeIdle closes idle connections with 1001 but keeps one with unsent data until its backlog is out", async () => {
    const world = await startWorld();
    fillLedger(world, 100);
    const { surface, url } = await surfaceServer(world, 60_000);
    const idle = await StreamClient.connect(url);
    const busy = await StreamClient.connect(url);
    const channel = `/v2/wallet/${world.alice.address}/transfers`;
    busy.tcp.pause();
    const subscribes = 800;
    for (let i = 0; i < subscribes; i++) busy.subscribe(channel);
    await until(() => surface.unsentBytes() > 0, 10_000, "a backlog on the busy connection");
    await idle.sync();
    surface.closeIdle(1001, "server shutting down");
    expect(await idle.closedWithin()).toEqual({ code: 1001, reason: "server shutting down" });
    await until(() => surface.connectionCount === 1, 2_000, "the idle connection to be gone");
    busy.tcp.resume();
    await until(() => busy.received.length >= subscribes, 20_000, "the whole backlog");
    await busy.sync(); // still open: answered after its backlog
    expect(busy.received.filter((f) => f.type === "subscribed")).toHaveLength(subscribes);
    surface.closeIdle(1001, "server shutting down");
    expect((await busy.closedWithin()).code).toBe(1001);
    await until(() => surface.connectionCount === 0, 2_000, "no connection left");
    expect(surface.subscriptionCount).toBe(0);
  });

  it("sends protocol pings that keep a reading client open, and ends a peer that stops answering them", async () => {
    const world = await startWorld();
    const { surface, url } = await surfaceServer(world, 50);
    const alive = await StreamClient.connect(url);
    const dead = await StreamClient.connect(url);
    let pings = 0;
    alive.socket.on("ping", () => pings++);
    await alive.subscribeAndWait("/v2/assetOraclePrices");
    dead.tcp.pause(); // reads nothing, so answers no ping
    await until(() => pings >= 4, 3_000, "four protocol pings");
    await until(() => surface.connectionCount === 1, 3_000, "the silent peer to be ended");
    await alive.sync();
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    expect(surface.subscriptionCount).toBe(1);
    alive.close();
    dead.tcp.resume();
    await dead.closedWithin();
  });
});
