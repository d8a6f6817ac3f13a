/**
 * The WebSocket recorder over real sockets:
 * - against a shadowbook server (manual clock): the depth snapshot and its
 *   updates, executions, the frames byte-identical to what a plain client
 *   receives, and an admin resync (1012) giving a gap row then fresh
 *   `subscribed` snapshots;
 * - against a tiny fake server closing with 1013, 1001 and an unexpected
 *   code: a gap row for each, reconnection, re-subscription;
 * - startup failures are fast and reported; maxRows ends the recording.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { readMdRecording, type MdRecording, type MdRowKind } from "../../src/record/md-recording.ts";
import { formatSummary, WsRecorder } from "../../src/record/ws-recorder.ts";
import { ETH, StreamWorld } from "../conformance/helpers/stream-world.ts";

const dir = mkdtempSync(join(tmpdir(), "ws-recorder-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEPTH = `/v2/market/${ETH}/depth`;
const EXECUTIONS = `/v2/market/${ETH}/perpExecutions`;

/** Resolves when `predicate` holds, checked after every row the recorder writes. */
class RowWatch {
  private readonly waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  readonly seen: { kind: MdRowKind; channel: string | null }[] = [];

  onRow = (kind: MdRowKind, channel: string | null): void => {
    this.seen.push({ kind, channel });
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  until(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; rows: ${JSON.stringify(this.seen)}`)), timeoutMs);
      this.waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  count(kind: MdRowKind, channel?: string | null): number {
    return this.seen.filter((row) => row.kind === kind && (channel === undefined || row.channel === channel)).length;
  }
}

interface Level {
  px: string;
  qty: string;
}
interface DepthFrame {
  type: string;
  bids: Level[];
  asks: Level[];
}

/** Applies an UPDATE to a book the way spec 6.2 says (absolute quantities, "0" removes). */
function apply(book: Map<string, string>, levels: readonly Level[]): void {
  for (const level of levels) {
    if (Number(level.qty) === 0) book.delete(level.px);
    else book.set(level.px, level.qty);
  }
}

function rows(recording: MdRecording): { kind: MdRowKind; channel: string | null; json: Record<string, unknown> }[] {
  return Array.from({ length: recording.length }, (_, i) => ({ kind: recording.kind(i), channel: recording.channel(i), json: JSON.parse(recording.frameText(i)!) as Record<string, unknown> }));
}

describe("recording a shadowbook server", () => {
  let world: StreamWorld;
  beforeAll(async () => {
    world = await StreamWorld.start();
  });
  afterAll(async () => {
    await world.close();
  });

  it("records the depth snapshot, its updates and executions byte for byte, and a resync as a gap then fresh snapshots", async () => {
    // A plain client beside the recorder: the bytes it receives are what the recording must hold.
    const plain = new WebSocket(world.url);
    const plainFrames: string[] = [];
    plain.on("message", (data) => plainFrames.push(data.toString()));
    await new Promise((resolve) => plain.once("open", resolve));
    for (const channel of [DEPTH, EXECUTIONS]) plain.send(JSON.stringify({ type: "subscribe", channel }));

    const watch = new RowWatch();
    const out = join(dir, "shadowbook.arrow");
    const wallBefore = Date.now() * 1_000;
    const recorder = new WsRecorder({ url: world.url, channels: [DEPTH, EXECUTIONS], out, backoffInitialMs: 20, onRow: watch.onRow });
    await recorder.start();
    expect(watch.count("subscribed")).toBe(2);

    // Activity: resting orders on both sides (depth UPDATEs), then a trade settled at the next block (an execution).
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.5", limitPx: "1999.50" });
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.25", limitPx: "1999.00" });
    world.rest(world.bob, { symbol: ETH, isBuy: false, qty: "0.4", limitPx: "2001.00" });
    world.trade(world.carol, world.bob, ETH, "0.1", "2000.50");
    world.advance(200);
    await watch.until(() => watch.count("data", EXECUTIONS) >= 1 && watch.count("data", DEPTH) >= 5, "depth updates and an execution");

    // The admin resync closes every stream connection with 1012: a gap, then the recorder is back with fresh snapshots.
    expect(world.context.resyncStreams()).toBe(2);
    await watch.until(() => watch.count("subscribed") === 4, "the second session's subscriptions");
    world.rest(world.bob, { symbol: ETH, isBuy: false, qty: "0.3", limitPx: "2002.00" });
    await watch.until(() => watch.count("data", DEPTH) >= 6 && watch.seen.at(-1)?.kind === "data", "an update after the resync");
    const summary = await recorder.stop();
    const wallAfter = Date.now() * 1_000;
    plain.close();

    const recording = readMdRecording(out);
    const all = rows(recording);
    expect(recording.source).toBe(world.url);
    expect(recording.channels).toEqual([DEPTH, EXECUTIONS]);
    expect(summary).toMatchObject({ rows: recording.length, sessions: 2, gaps: 1, stoppedBy: "stop", byKind: { subscribed: 4, gap: 1, error: 0 } });
    expect(formatSummary(summary)[1]).toContain(`subscribed 4, data ${summary.byKind.data}, error 0, gap 1`);

    // Session 1: both subscribed answers, then data; the plain client got the same bytes, in the same order.
    const gapAt = all.findIndex((row) => row.kind === "gap");
    expect(all.slice(0, 2).map((row) => [row.kind, row.channel])).toEqual([
      ["subscribed", DEPTH],
      ["subscribed", EXECUTIONS],
    ]);
    const firstSession = Array.from({ length: gapAt }, (_, i) => recording.frameText(i)!);
    expect(firstSession).toEqual(plainFrames.slice(0, gapAt));
    expect(all.slice(2, gapAt).every((row) => row.kind === "data")).toBe(true);

    // Columns agree with the frames; receive times are wall-clock µs, in order.
    for (let i = 0; i < recording.length; i++) {
      const row = all[i]!;
      if (row.kind === "data") expect(recording.timestampMs(i)).toBe(row.json["timestamp"]);
      else expect(recording.timestampMs(i)).toBeNull();
      if (row.kind !== "gap") expect(row.channel).toBe(row.json["channel"]);
      expect(recording.recvMicros(i)).toBeGreaterThanOrEqual(i === 0 ? wallBefore : recording.recvMicros(i - 1));
      expect(recording.recvMicros(i)).toBeLessThanOrEqual(wallAfter);
    }

    // The first snapshot with every update of session 1 applied is the book the server shows.
    const book = { bids: new Map<string, string>(), asks: new Map<string, string>() };
    const first = all[0]!.json["contents"] as DepthFrame;
    expect(first.type).toBe("SNAPSHOT");
    apply(book.bids, first.bids);
    apply(book.asks, first.asks);
    let updates = 0;
    for (const row of all.slice(0, gapAt)) {
      if (row.kind !== "data" || row.channel !== DEPTH) continue;
      const depth = row.json["data"] as DepthFrame;
      expect(depth.type).toBe("UPDATE");
      apply(book.bids, depth.bids);
      apply(book.asks, depth.asks);
      updates++;
    }
    expect(updates).toBeGreaterThanOrEqual(5);
    expect([...book.bids].map(([px, qty]) => `${px} ${qty}`)).toEqual(["1999.5 0.5", "1999 0.25"]);
    expect([...book.asks].map(([px, qty]) => `${px} ${qty}`)).toEqual(["2001 0.4"]);
    const executions = all.filter((row) => row.kind === "data" && row.channel === EXECUTIONS);
    expect(executions).toHaveLength(1);
    expect((executions[0]!.json["data"] as { qty: string; price: string }[])[0]).toMatchObject({ qty: "0.1", price: "2000.5", side: "B" });

    // The gap: the 1012 close, then session 2 starts with fresh subscribed frames, depth's snapshot holding the book as it was.
    expect(all[gapAt]!.json).toEqual({ code: 1012, reason: "resync" });
    expect(all[gapAt]!.channel).toBeNull();
    expect(all.slice(gapAt + 1, gapAt + 3).map((row) => [row.kind, row.channel])).toEqual([
      ["subscribed", DEPTH],
      ["subscribed", EXECUTIONS],
    ]);
    const fresh = all[gapAt + 1]!.json["contents"] as DepthFrame;
    expect(fresh.type).toBe("SNAPSHOT");
    expect(fresh.bids.map((level) => `${level.px} ${level.qty}`)).toEqual(["1999.5 0.5", "1999 0.25"]);
    expect(fresh.asks.map((level) => `${level.px} ${level.qty}`)).toEqual(["2001 0.4"]);
    const after = all.slice(gapAt + 3);
    expect(after.map((row) => row.kind)).toEqual(["data"]);
    expect((after[0]!.json["data"] as DepthFrame).asks).toEqual([{ px: "2002", qty: "0.3" }]);
  });

  it("fails fast when a channel is refused", async () => {
    const recorder = new WsRecorder({ url: world.url, channels: [DEPTH, "/v2/market/NOPE/depth"], out: join(dir, "refused.arrow") });
    await expect(recorder.start()).rejects.toThrow('channel "/v2/market/NOPE/depth" was refused: Invalid channel name');
    // The recording never started: no file is left (not even the first session's subscribed and error frames).
    expect(existsSync(join(dir, "refused.arrow"))).toBe(false);
  });

  it("subscribes again after a failed snapshot (engineUnavailable), in the same session", async () => {
    // While the engine is unavailable the depth snapshot fails; it succeeds once the window ends.
    world.fault({ fault: "engineUnavailable", durationMs: 1_000 });
    const depthWatch = new RowWatch();
    const depthRecorder = new WsRecorder({ url: world.url, channels: [DEPTH], out: join(dir, "snapshot-retry-depth.arrow"), backoffInitialMs: 30, onRow: depthWatch.onRow });
    const started = depthRecorder.start();
    await depthWatch.until(() => depthWatch.count("error", DEPTH) >= 1, "the snapshot error");
    world.advance(1_001);
    await started;
    const summary = await depthRecorder.stop();
    expect(summary.sessions).toBe(1);
    const recording = readMdRecording(join(dir, "snapshot-retry-depth.arrow"));
    const kinds = Array.from({ length: recording.length }, (_, i) => recording.kind(i));
    expect(kinds.at(-1)).toBe("subscribed");
    expect(kinds.filter((kind) => kind === "error").length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(recording.frameText(0)!)).toEqual({ type: "error", message: `Error while fetching snapshot from ${DEPTH}`, channel: DEPTH });
  });
});

describe("recording a server that closes with 1013, 1001 and an unexpected code", () => {
  it("writes a gap for each close, reconnects and subscribes again; ignores frames that are not recorded", async () => {
    const closes: [number, string][] = [
      [1013, "slow consumer"],
      [1001, "going away"],
      [4000, "odd"],
    ];
    let connections = 0;
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    server.on("connection", (socket) => {
      const session = connections++;
      const subscribed: string[] = [];
      socket.on("message", (raw) => {
        const { channel } = JSON.parse(raw.toString()) as { channel: string };
        subscribed.push(channel);
        socket.send(`{"type":"subscribed","channel":${JSON.stringify(channel)}}`);
        if (subscribed.length < 2) return;
        // Another server's key order and spacing; a pong and a non-JSON frame (ignored).
        socket.send(`{ "channel": "/a", "data": {"session": ${session}, "note": "é"}, "timestamp": ${1_000 + session}, "type": "channel_data" }`);
        socket.send(`{"type":"pong"}`);
        socket.send(`garbage`);
        const close = closes[session];
        if (close !== undefined) socket.close(close[0], close[1]);
      });
    });
    const port = (server.address() as { port: number }).port;
    const watch = new RowWatch();
    const logs: string[] = [];
    const out = join(dir, "fake.arrow");
    const recorder = new WsRecorder({ url: `ws://127.0.0.1:${port}/`, channels: ["/a", "/b"], out, backoffInitialMs: 10, onRow: watch.onRow, log: (line) => logs.push(line) });
    await recorder.start();
    await watch.until(() => watch.count("data") === 4, "four sessions' data");
    const summary = await recorder.stop();
    server.close();

    const recording = readMdRecording(out);
    const all = rows(recording);
    const session = [
      ["subscribed", "/a"],
      ["subscribed", "/b"],
      ["data", "/a"],
    ];
    expect(all.map((row) => [row.kind, row.channel])).toEqual([...session, ["gap", null], ...session, ["gap", null], ...session, ["gap", null], ...session]);
    expect(all.filter((row) => row.kind === "gap").map((row) => row.json)).toEqual(closes.map(([code, reason]) => ({ code, reason })));
    expect(all.filter((row) => row.kind === "data").map((row) => (row.json["data"] as { session: number }).session)).toEqual([0, 1, 2, 3]);
    const dataRows = Array.from({ length: recording.length }, (_, i) => i).filter((i) => recording.kind(i) === "data");
    expect(dataRows.map((i) => recording.timestampMs(i))).toEqual([1_000, 1_001, 1_002, 1_003]);
    expect(recording.frameText(dataRows[0]!)).toBe(`{ "channel": "/a", "data": {"session": 0, "note": "é"}, "timestamp": 1000, "type": "channel_data" }`);
    expect(summary).toMatchObject({ sessions: 4, gaps: 3, ignored: 8, byKind: { subscribed: 8, data: 4, error: 0, gap: 3 } });
    expect(logs.filter((line) => line.includes("lost (unexpected): 4000 odd"))).toHaveLength(1);
    expect(logs.filter((line) => /closed: 10(13|01)/.test(line))).toHaveLength(2);
  });

  it("keeps retrying with backoff while the server is down, and marks one gap for the loss", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as { port: number }).port;
    const serve = (target: WebSocketServer) =>
      target.on("connection", (socket) => socket.on("message", (raw) => socket.send(`{"type":"subscribed","channel":${JSON.stringify((JSON.parse(raw.toString()) as { channel: string }).channel)}}`)));
    serve(server);
    const watch = new RowWatch();
    const logs: string[] = [];
    const recorder = new WsRecorder({ url: `ws://127.0.0.1:${port}/`, channels: ["/a"], out: join(dir, "down.arrow"), backoffInitialMs: 10, backoffMaxMs: 40, onRow: watch.onRow, log: (line) => logs.push(line) });
    await recorder.start();
    // The server goes away (connections cut without a close frame: 1006), stays down a while, then comes back on the same port.
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await watch.until(() => watch.count("gap") === 1, "the gap");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = logs.filter((line) => line.startsWith("connection error")).length;
    expect(refused).toBeGreaterThanOrEqual(3); // capped at 40 ms: several attempts in 300 ms
    const back = new WebSocketServer({ port, host: "127.0.0.1" });
    serve(back);
    await watch.until(() => watch.count("subscribed") === 2, "the new session");
    const summary = await recorder.stop();
    back.close();
    expect(summary).toMatchObject({ sessions: 2, gaps: 1 });
    const recording = readMdRecording(join(dir, "down.arrow"));
    expect(JSON.parse(recording.frameText(1)!)).toMatchObject({ code: 1006 });
  });
});

describe("startup and the end", () => {
  it("fails fast when the first connection cannot be made, leaving no file", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const out = join(dir, "never.arrow");
    const started = Date.now();
    await expect(new WsRecorder({ url: `ws://127.0.0.1:${port}/ws`, channels: ["/a"], out }).start()).rejects.toThrow(/cannot connect/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(existsSync(out)).toBe(false);
    expect(() => new WsRecorder({ url: "http://x", channels: ["/a"], out })).toThrow('--url "http://x" is not a ws:// or wss:// URL');
    expect(() => new WsRecorder({ url: "ws://x", channels: [], out })).toThrow("--channels is empty: name at least one channel");
  });

  it("ends at maxRows, and at the duration", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as { port: number }).port;
    server.on("connection", (socket) =>
      socket.on("message", (raw) => {
        const { channel } = JSON.parse(raw.toString()) as { channel: string };
        socket.send(`{"type":"subscribed","channel":${JSON.stringify(channel)}}`);
        for (let i = 0; i < 50; i++) socket.send(`{"type":"channel_data","timestamp":${i},"channel":${JSON.stringify(channel)},"data":[]}`);
      }),
    );
    const limited = new WsRecorder({ url: `ws://127.0.0.1:${port}/`, channels: ["/a"], out: join(dir, "max.arrow"), maxRows: 10 });
    await limited.start();
    const summary = await limited.finished;
    expect(summary).toMatchObject({ rows: 10, stoppedBy: "maxRows" });
    expect(readMdRecording(join(dir, "max.arrow")).length).toBe(10);

    const timed = new WsRecorder({ url: `ws://127.0.0.1:${port}/`, channels: ["/a"], out: join(dir, "timed.arrow"), durationMs: 300 });
    await timed.start();
    const ended = await timed.finished;
    expect(ended.stoppedBy).toBe("duration");
    expect(ended.seconds).toBeGreaterThanOrEqual(0.29);
    expect(readMdRecording(join(dir, "timed.arrow")).length).toBe(51);

    // Beyond a Node timer's 24.8 days: still recording, not ended at once.
    const long = new WsRecorder({ url: `ws://127.0.0.1:${port}/`, channels: ["/a"], out: join(dir, "long.arrow"), durationMs: 30 * 86_400_000 });
    await long.start();
    let ended30 = false;
    void long.finished.then(() => (ended30 = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ended30).toBe(false);
    expect((await long.stop()).stoppedBy).toBe("stop");
    server.close();
  });
});
