/**
 * Live order-entry benchmark: the mock server in signed mode (every
 * signature verified) on 127.0.0.1, and a load generator in its own process
 * driving WebSocket order entry (/exec) over 4 connections, one tier-3
 * wallet each (no open-order caps, rate limits raised so that they do not
 * bind).
 *
 * - The parent (this file, no argument) starts the server on the wall clock
 *   with 4 funded accounts and oracle prices (refreshed every 5 s: a price
 *   older than 60 s is not fresh), and a bare `ws` echo server on its own
 *   port; it forks the generator (this file again, with --load-generator,
 *   so that run-all.ts does not take the generator for a benchmark) and
 *   waits for its figures.
 * - The generator builds every body with the SDK's plan builders and signs
 *   it with the native fast signer BEFORE any timing starts: per connection
 *   a warm-up slice and a measured slice of post-only GTC creates well away
 *   from the touch (buys under the mark, sells over it) and cancels, by
 *   clientOrderId, of the oldest still-open create, so the book stays
 *   bounded. Nonces strictly increase per signer in sending order;
 *   cancel deadlines are 540 s ahead (the cap is 600 s), GTC ones a year.
 * - Each phase opens 4 connections, runs a warm-up slice (sent the way its
 *   measured slice is, not measured), then its measured slice on every
 *   connection at once:
 *   - echo: the frames of the live phase sent to the echo server (same
 *     window, same payloads): the floor, a socket round trip and nothing else;
 *   - live (closed loop): at most WINDOW requests in flight per connection,
 *     each timed from send to answer: the most the server answers per
 *     second. Its round trips are mostly queueing: with 4 x 32 requests in
 *     flight, Little's law puts the mean at 128 / rate (25 ms at 5,000/s);
 *   - paced (open loop): fresh frames (their own clientOrderIds and nonces)
 *     sent at the target rate, 5,000 per second in all, each connection on
 *     a fixed schedule whatever is in flight, each request timed from the
 *     moment it was due (so a server falling behind cannot slow the sender
 *     and hide it: no coordinated omission, as wrk2 measures). This is the
 *     target's question: the p99 while serving 5,000 orders per second.
 * - The generator is lean, since it shares the two cores with the server
 *   it measures: whatever CPU it spends per request is taken from the
 *   server (with the `ws` client it took ~25 us per request in the closed
 *   loop and ~45 us paced: a header and a fresh random mask per send, the
 *   Receiver stream, a 'message' event per answer, and a timer per
 *   connection firing every 0.8 ms). It speaks WebSocket itself
 *   (lib/raw-ws-client.ts), on the socket of a normal handshake (no
 *   extensions: permessage-deflate off, as the `ws` client had it):
 *   - sending: before each phase (outside any timing) its frames are built
 *     as the bytes `ws` would send, each text frame masked with its own key
 *     from crypto.randomBytes (built anew per phase: the echo and live
 *     phases send the same texts, never the same masked bytes), end to end
 *     in one buffer per connection; the frames due together then go out as
 *     one write of a slice of it. Closed loop: the frames freed by the
 *     answers of one socket read, after that read; paced: ONE timer for all
 *     connections (firing as often as Node's 1 ms timers allow), sending
 *     every frame then due on each connection;
 *   - reading: server frames are parsed from the socket's chunks (several
 *     per chunk or one split over chunks; a ping answered with a pong, a
 *     close frame the end), each answer's id and ok flag read from its
 *     first bytes (readAnswerHead; JSON.parse for other shapes), its round
 *     trip ending at the time of the socket read that brought it (read once
 *     per read, not per answer).
 *   The echo phases use the same generator, so the floor stays the
 *   generator's own cost plus a socket round trip. Measured 2026-11-27
 *   (runs interleaved with the `ws` generator's, load 4-9): 10-15 us of
 *   generator CPU per request closed loop (7 pairs; was 21-25), 20-25 us
 *   paced (11 pairs; was 27-43). Of the paced ~20 us, the JavaScript is ~6 (half of it
 *   the writes' syscalls, which on loopback do the server's TCP receive
 *   work); the rest is the event loop waking for each socket read and
 *   pacer tick (main thread ~15 us user, ~5 us system): a Node event
 *   loop's floor.
 *
 * Prints one JSON line: for the live phase at the top level and for the
 * paced phase under `paced`: accepted requests (creates and cancels) per
 * second, rejections, p50/p99/p99.9 round trips (paced, also how late the
 * generator wrote each frame after it was due, `sendLateP50Ms` and
 * `sendLateP99Ms`: the sender's share of the round trips, its timer's
 * granularity and its own scheduling on the shared cores, and the same
 * for the paced echo), and the server's CPU time
 * per request over the measured slice (the whole process, and on Linux its
 * main thread alone, the serial part: these hold up when other work shares
 * the cores, where the rates and latencies do not); the echo floor and the
 * p99 ratio; `meetsTarget`: the live phase answers at least 5,000/s and the
 * paced phase keeps up (98% of the offered rate, no rejection) with p99
 * under 10 ms. It never fails: a slow run is cut at the time budget and
 * reported.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Hex } from "viem";
import { buildClientFrames, openRawWs, type ClientFrames, type RawWsClient, type RawWsHandler } from "./lib/raw-ws-client.ts";

const CONNECTIONS = 4;
/** Measured requests per connection (SHADOWBOOK_BENCH_REQUESTS overrides it, for quicker A/B runs). */
const REQUESTS_PER_CONNECTION = windowFromEnv(process.env["SHADOWBOOK_BENCH_REQUESTS"], 20_000);
/**
 * Requests per connection sent before the measured slice, the same way.
 * With 1,000 (0.8 s at the paced rate) the server was still warming up
 * when the measurement began (its compiler and heap still growing into
 * the load): every request of the paced slice's first ~1 s took 45-130
 * ms, then p99 settled at ~14 ms, and that first second alone made up
 * most of the slice's p99 (~80 ms). At 5,000 the measured slice starts
 * in the steady state it is meant to measure.
 */
const WARMUP_PER_CONNECTION = 5_000;
/** Requests in flight per connection (SHADOWBOOK_BENCH_WINDOW overrides it, to trade throughput for latency). */
const WINDOW = windowFromEnv(process.env["SHADOWBOOK_BENCH_WINDOW"], 32);
/** Signature-recovery worker threads of the server (SHADOWBOOK_BENCH_SIGNER_THREADS overrides `shadowbook serve`'s default, defaultSignerThreads(); 0 = inline). */
const SIGNER_THREADS = process.env["SHADOWBOOK_BENCH_SIGNER_THREADS"];
/** SHADOWBOOK_BENCH_EARLY_CONFIRM=0: the server checks every signature inline in its gateway (early-confirm.ts off), for an A/B. */
const EARLY_CONFIRM = process.env["SHADOWBOOK_BENCH_EARLY_CONFIRM"] !== "0";
/** SHADOWBOOK_BENCH_RECORD=sync|async: the server records its input log (serve --record) to a temporary directory, with that durability. */
const RECORD = process.env["SHADOWBOOK_BENCH_RECORD"];
/**
 * SHADOWBOOK_BENCH_PHASES=live,paced (any of echo, live, paced): run only
 * these phases, for profiling one of them or a quicker A/B. A skipped phase
 * prints zeros, and the run then never meets the target.
 */
const PHASES = new Set((process.env["SHADOWBOOK_BENCH_PHASES"] ?? "echo,live,paced").split(",").map((name) => name.trim()));
/** Creates sent before the first cancel: the open orders each account keeps. */
const OPEN_ORDERS = 200;
/** A measured phase stops sending after this long (the answers in flight are still awaited). */
const PHASE_BUDGET_MS = 25_000;
/** The whole run is abandoned after this long. */
const RUN_BUDGET_MS = 150_000;
const PRICE_REFRESH_MS = 5_000;
const CANCEL_DEADLINE_SECONDS = 540;
const SYMBOL = "ETHRUSDPERP";
const MARK = 2000;
const TARGET = { acceptedPerSec: 5_000, p99Ms: 10 };
const GENERATOR_FLAG = "--load-generator";

interface Party {
  key: Hex;
  accountId: number;
}

/** Parent to generator. */
interface StartMessage {
  kind: "start";
  execUrl: string;
  echoUrl: string;
  nowMicros: number;
  parties: Party[];
}

interface PhaseFigures {
  /** Measured requests answered. */
  requests: number;
  accepted: number;
  rejected: number;
  /** Answers that were neither ok nor a rejection (the echo phase: every answer). */
  other: number;
  /** Measured requests sent but never answered within the budget. */
  unanswered: number;
  durationMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  rejections: Record<string, number>;
  warmupRejections: Record<string, number>;
  /** The generator's own CPU time over the measured slice, in ms. */
  cpuMs: number;
  /**
   * Open loop: how late the generator wrote each measured frame after it
   * was due (its timer's granularity and its own scheduling), p50 and p99:
   * the part of the round trips above that is the sender's (0 closed loop).
   */
  sendLateP50Ms: number;
  sendLateP99Ms: number;
}

/** Generator to parent. */
type ResultMessage = { kind: "result"; echo: PhaseFigures; echoPaced: PhaseFigures; live: PhaseFigures; paced: PhaseFigures } | { kind: "error"; message: string };

/** The two phases against the server: closed loop at WINDOW (the most it answers), then open loop at the target rate (its latency there). */
type LivePhase = "live" | "paced";

/** Generator to parent, around a live phase's measured slice: the parent reads its own CPU time there. */
interface MeasureMessage {
  kind: "measure";
  phase: LivePhase;
  at: "start" | "end";
}

function windowFromEnv(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return text !== undefined && Number.isSafeInteger(value) && value >= 1 ? value : fallback;
}

function privateKey(n: number): Hex {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

function round(value: number, digits: number): number {
  if (!Number.isFinite(value)) return 0;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// -- the load generator (child process) ---------------------------------------------------

/** Monotonic milliseconds (hrtime). */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The frames of each connection, in sending order (ids are their indexes).
 * `phase` numbers the live phases: each has its own clientOrderIds and
 * nonces above the previous phase's, so no frame is a replay of another.
 */
async function buildFrames(start: StartMessage, phase: number): Promise<string[][]> {
  const { createClient } = await import("../../src/client/client.ts");
  const { createMarketDirectory } = await import("../../src/client/markets.ts");
  const { createOrderPlan } = await import("../../src/client/actions/createOrder.ts");
  const { cancelOrderPlan } = await import("../../src/client/actions/cancelOrder.ts");
  const { DEFAULT_MARKETS } = await import("../../src/exchange/config.ts");
  const { DEFAULT_SIGNING_CONFIG } = await import("../../src/signing/domain.ts");
  const { createFastSigner } = await import("../../src/signing/fast-sign.ts");
  const { privateKeySigner } = await import("../../src/client/signer.ts");

  const markets = createMarketDirectory({
    perp: DEFAULT_MARKETS.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
    spot: DEFAULT_MARKETS.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  });
  const noTransport = {
    request(): never {
      throw new Error("the benchmark sends pre-signed bodies itself");
    },
  };
  const nowSeconds = Math.floor(start.nowMicros / 1_000_000);
  const total = WARMUP_PER_CONNECTION + REQUESTS_PER_CONNECTION;

  return start.parties.map((party, connection) => {
    const signer = createFastSigner(party.key, DEFAULT_SIGNING_CONFIG);
    const client = createClient({
      transport: noTransport,
      signer: privateKeySigner(party.key, { path: "fast", config: DEFAULT_SIGNING_CONFIG }),
      accountId: party.accountId,
      markets,
      clock: { now: () => start.nowMicros },
      retry: false,
    });
    let nonce = BigInt(start.nowMicros + phase * (total + 1));
    const open: string[] = [];
    let created = 0;
    const frames: string[] = [];
    for (let i = 0; i < total; i++) {
      nonce += 1n;
      const attempt = { nowMicros: start.nowMicros, nonce: nonce.toString() };
      const cancel = i >= OPEN_ORDERS && (i - OPEN_ORDERS) % 2 === 1 && open.length > 0;
      let op: "createOrder" | "cancelOrder";
      let body: Record<string, unknown>;
      if (cancel) {
        const clientOrderId = open.shift()!;
        const built = cancelOrderPlan(client, { symbol: SYMBOL, clientOrderId, deadline: nowSeconds + CANCEL_DEADLINE_SECONDS }).build(attempt);
        if (built.signed.kind !== "OrderCancel") throw new Error(`cancelOrder built a ${built.signed.kind} message`);
        built.body.signature = signer.sign("OrderCancel", built.signed.message);
        op = "cancelOrder";
        body = built.body as unknown as Record<string, unknown>;
      } else {
        const isBuy = created % 2 === 0;
        // 50.00 to 299.50 away from the mark, on the 0.01 tick: never at the touch, never crossing.
        const offset = 50 + (created % 500) * 0.5;
        const limitPx = (isBuy ? MARK - offset : MARK + offset).toFixed(2);
        const clientOrderId = String((connection + 1) * 1_000_000_000 + phase * 100_000_000 + created + 1);
        created++;
        const built = createOrderPlan(client, { symbol: SYMBOL, isBuy, qty: "0.01", limitPx, timeInForce: "GTC", postOnly: true, clientOrderId }).build(attempt);
        if (built.signed.kind !== "Order") throw new Error(`createOrder built a ${built.signed.kind} message`);
        built.body.signature = signer.sign("Order", built.signed.message);
        open.push(clientOrderId);
        op = "createOrder";
        body = built.body as unknown as Record<string, unknown>;
      }
      frames.push(JSON.stringify({ type: op, id: String(i), payload: body }));
    }
    return frames;
  });
}

interface Tally {
  accepted: number;
  rejected: number;
  other: number;
  rejections: Map<string, number>;
}

const ID_KEY = Buffer.from('"id":"');
const OK_KEY = Buffer.from('","ok":');
/** readAnswerHead: the frame is not in the shape it reads; decode it. */
const NOT_READ = -1;
/** readAnswerHead: a rejection; decode it for its code. */
const REJECTED_HEAD = -2;

/**
 * Reads an answer's id and whether it is ok from its first bytes, as the
 * server writes answers (src/live/exec.ts: `{"type":"createOrder","id":"17",
 * "ok":true,...`), without decoding the frame. The generator shares the two
 * cores with the server: what it spends on each answer (a string and a
 * JSON.parse of the whole order row, and their garbage) comes out of the
 * server's headroom. Returns `index * 2 + 1` for an ok answer, `index * 2`
 * for a frame with that id and no `ok` (an echoed request), REJECTED_HEAD
 * for a rejection, NOT_READ for any other shape (decoded instead).
 */
function readAnswerHead(data: Buffer): number {
  const key = data.indexOf(ID_KEY);
  if (key < 0 || key > 40) return NOT_READ;
  let at = key + ID_KEY.length;
  let index = 0;
  const first = at;
  for (let byte = data[at]; byte !== undefined && byte >= 48 && byte <= 57 && at - first < 9; byte = data[++at]) index = index * 10 + (byte - 48);
  if (at === first) return NOT_READ;
  if (data[at] !== 34 /* the id's closing quote */) return NOT_READ;
  if (!startsWithAt(data, at, OK_KEY)) return index * 2;
  const value = data[at + OK_KEY.length];
  return value === 116 /* t */ ? index * 2 + 1 : value === 102 /* f */ ? REJECTED_HEAD : NOT_READ;
}

function startsWithAt(data: Buffer, at: number, bytes: Buffer): boolean {
  return data.length >= at + bytes.length && data.compare(bytes, 0, bytes.length, at, at + bytes.length) === 0;
}

/**
 * Reads one answer frame of frames[from..to): records its round trip from
 * `startedAt` (indexed from `from`) in `rttMs` and tallies it; returns its
 * index, or -1 for a frame that answers none of them.
 */
function recordAnswer(data: Buffer, at: number, from: number, to: number, startedAt: Float64Array, rttMs: Float64Array, tally: Tally): number {
  const head = readAnswerHead(data);
  if (head !== NOT_READ && head !== REJECTED_HEAD) {
    const index = head >> 1;
    if (index < from || index >= to) {
      tally.other++;
      return -1;
    }
    rttMs[index - from] = at - startedAt[index - from]!;
    if ((head & 1) === 1) tally.accepted++;
    else tally.other++;
    return index;
  }
  let frame: { id?: unknown; ok?: unknown; type?: unknown; error?: { error?: unknown } };
  try {
    frame = JSON.parse(data.toString()) as typeof frame;
  } catch {
    tally.other++;
    return -1;
  }
  const index = Number(frame.id);
  if (!Number.isInteger(index) || index < from || index >= to) {
    tally.other++;
    return -1;
  }
  rttMs[index - from] = at - startedAt[index - from]!;
  if (frame.ok === true) tally.accepted++;
  else if (frame.ok === false || frame.type === "error") {
    tally.rejected++;
    const code = typeof frame.error?.error === "string" ? frame.error.error : "UNKNOWN";
    tally.rejections.set(code, (tally.rejections.get(code) ?? 0) + 1);
  } else tally.other++;
  return index;
}

interface DriveResult {
  sent: number;
  answered: number;
  lastAnswerMs: number;
}

/** A connection's handler between drives: answers that come late (after a give-up) are dropped, as before. */
const IGNORE: RawWsHandler = { message: () => undefined, chunkEnd: () => undefined, closed: () => undefined };

/** Frames [first, end) of `frames`: one contiguous slice of its buffer, so one write. */
function frameSlice(frames: ClientFrames, first: number, end: number): Buffer {
  return frames.bytes.subarray(frames.offsets[first]!, frames.offsets[end]!);
}

/**
 * Closed loop: sends frames[from..to) on one connection, at most WINDOW in
 * flight, in order; records each round trip in `rttMs` (indexed from
 * `from`); stops sending at `stopAtMs` and settles once everything sent is
 * answered, or `giveUpAtMs`. The frames that the answers of one socket
 * read free go out together, in one write, after that read.
 */
function drive(
  client: RawWsClient,
  frames: ClientFrames,
  from: number,
  to: number,
  rttMs: Float64Array,
  tally: Tally,
  stopAtMs: number,
  giveUpAtMs: number,
): Promise<DriveResult> {
  return new Promise((resolve) => {
    const sentAt = new Float64Array(to - from);
    let next = from;
    let answered = 0;
    let lastAnswerMs = nowMs();
    /** When the socket read being handled arrived (read once per read, at its first answer), or -1. */
    let readAtMs = -1;
    /** Frames freed by this read's answers, to send after it. */
    let freed = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      client.handler = IGNORE;
      resolve({ sent: next - from, answered, lastAnswerMs });
    };
    const send = (count: number): void => {
      const first = next;
      next += count;
      sentAt.fill(nowMs(), first - from, next - from);
      client.write(frameSlice(frames, first, next));
    };
    client.handler = {
      message(payload) {
        if (readAtMs < 0) readAtMs = nowMs();
        if (recordAnswer(payload, readAtMs, from, to, sentAt, rttMs, tally) < 0) return;
        answered++;
        lastAnswerMs = readAtMs;
        if (next + freed < to && readAtMs < stopAtMs) freed++;
      },
      chunkEnd() {
        readAtMs = -1;
        if (freed > 0) {
          const count = freed;
          freed = 0;
          send(count);
        } else if (answered === next - from) finish();
      },
      closed: finish,
    };
    const giveUp = setTimeout(finish, Math.max(0, giveUpAtMs - nowMs()));
    if (client.closed || to <= from) finish();
    else send(Math.min(WINDOW, to - from));
  });
}

/**
 * Open loop: sends frames[c][from..to) on every connection c at a fixed
 * rate, frame k of connection c due at `firstDueMs + c * periodMs /
 * connections + k * periodMs` whatever is still in flight, and times each
 * round trip from its due time, not from when it went out (a late send
 * counts against the latency, so a server that falls behind cannot hide it
 * by slowing the sender: no coordinated omission). One timer for all the
 * connections sends, each time it fires (every millisecond at best: Node's
 * timers' granularity), every frame due on each connection, in one write
 * per connection. Resolves with each connection's figures.
 */
function drivePaced(
  clients: readonly RawWsClient[],
  frames: readonly ClientFrames[],
  from: number,
  to: number,
  rttMs: readonly Float64Array[],
  sendLateMs: readonly Float64Array[],
  tally: Tally,
  firstDueMs: number,
  periodMs: number,
  stopAtMs: number,
  giveUpAtMs: number,
): Promise<DriveResult[]> {
  return new Promise((resolve) => {
    const lanes = clients.map((client, c) => {
      const dueAt = new Float64Array(to - from);
      const laneFirstDueMs = firstDueMs + (c * periodMs) / clients.length;
      for (let i = 0; i < dueAt.length; i++) dueAt[i] = laneFirstDueMs + i * periodMs;
      return { client, frames: frames[c]!, rtt: rttMs[c]!, late: sendLateMs[c]!, dueAt, next: from, to, answered: 0, lastAnswerMs: nowMs(), readAtMs: -1, done: false };
    });
    type Lane = (typeof lanes)[number];
    let pacer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(giveUp);
      clearTimeout(pacer);
      for (const lane of lanes) lane.client.handler = IGNORE;
      resolve(lanes.map((lane) => ({ sent: lane.next - from, answered: lane.answered, lastAnswerMs: lane.lastAnswerMs })));
    };
    /** A lane is done once closed, or once it has sent all it will and everything sent is answered. */
    const settle = (lane: Lane): void => {
      if (lane.done) return;
      if (!lane.client.closed && (lane.next < lane.to || lane.answered < lane.next - from)) return;
      lane.done = true;
      lane.to = lane.next;
      if (lanes.every((l) => l.done)) finish();
    };
    const sendDue = (): void => {
      pacer = undefined;
      const now = nowMs();
      let earliestDueMs = Infinity;
      for (const lane of lanes) {
        if (lane.done) continue;
        if (now >= stopAtMs) lane.to = lane.next;
        const first = lane.next;
        let end = first;
        while (end < lane.to && lane.dueAt[end - from]! <= now) {
          lane.late[end - from] = now - lane.dueAt[end - from]!;
          end++;
        }
        if (end > first) {
          lane.next = end;
          lane.client.write(frameSlice(lane.frames, first, end));
        }
        if (lane.next < lane.to) earliestDueMs = Math.min(earliestDueMs, lane.dueAt[lane.next - from]!);
        else settle(lane);
      }
      if (!finished && earliestDueMs < Infinity) pacer = setTimeout(sendDue, Math.max(0, earliestDueMs - nowMs()));
    };
    for (const lane of lanes) {
      lane.client.handler = {
        message(payload) {
          if (lane.readAtMs < 0) lane.readAtMs = nowMs();
          if (recordAnswer(payload, lane.readAtMs, from, lane.to, lane.dueAt, lane.rtt, tally) < 0) return;
          lane.answered++;
          lane.lastAnswerMs = lane.readAtMs;
        },
        chunkEnd() {
          lane.readAtMs = -1;
          if (lane.next >= lane.to) settle(lane);
        },
        closed: () => settle(lane),
      };
    }
    const giveUp = setTimeout(finish, Math.max(0, giveUpAtMs - nowMs()));
    for (const lane of lanes) settle(lane);
    if (!finished) pacer = setTimeout(sendDue, Math.max(0, firstDueMs - nowMs()));
  });
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** How a measured slice is sent: closed loop, at most WINDOW in flight per connection, or open loop at a fixed total rate. */
type Pacing = { kind: "window" } | { kind: "rate"; perSec: number };

/** One phase against `url`: a warm-up slice (sent as the measured slice is), then the measured slice on every connection at once. */
async function runPhase(url: string, frames: readonly string[][], pacing: Pacing, onMeasure?: (at: "start" | "end") => void): Promise<PhaseFigures> {
  const clients = await Promise.all(frames.map(() => openRawWs(url)));
  try {
    // This phase's frames as they go on the wire, each masked with a key of its own (built anew for each phase:
    // the echo and live phases send the same texts, never the same masked bytes).
    const wire = frames.map((texts) => buildClientFrames(texts));
    const warm: Tally = { accepted: 0, rejected: 0, other: 0, rejections: new Map() };
    // The generator's heap holds every frame of the run: collect it now rather than in the measured slice.
    (globalThis as { gc?: () => void }).gc?.();
    const warmStartMs = nowMs();
    const warmStop = warmStartMs + PHASE_BUDGET_MS;
    // Open loop: each connection sends every CONNECTIONS * 1000 / perSec ms, the connections staggered evenly.
    const periodMs = pacing.kind === "rate" ? (CONNECTIONS * 1000) / pacing.perSec : 0;
    // The warm-up goes the measured slice's way (closed or open loop), so that its code paths are compiled.
    if (pacing.kind === "window") {
      await Promise.all(clients.map((client, c) => drive(client, wire[c]!, 0, WARMUP_PER_CONNECTION, new Float64Array(WARMUP_PER_CONNECTION), warm, warmStop, warmStop + 5_000)));
    } else {
      const warmRtts = clients.map(() => new Float64Array(WARMUP_PER_CONNECTION));
      const warmLate = clients.map(() => new Float64Array(WARMUP_PER_CONNECTION));
      await drivePaced(clients, wire, 0, WARMUP_PER_CONNECTION, warmRtts, warmLate, warm, warmStartMs, periodMs, warmStop, warmStop + 5_000);
    }

    const tally: Tally = { accepted: 0, rejected: 0, other: 0, rejections: new Map() };
    const rtts = frames.map((f) => new Float64Array(f.length - WARMUP_PER_CONNECTION));
    const sendLate = frames.map((f) => new Float64Array(f.length - WARMUP_PER_CONNECTION));
    onMeasure?.("start");
    const cpuAtStart = process.cpuUsage();
    const startMs = nowMs();
    const stopAtMs = startMs + PHASE_BUDGET_MS;
    const total = WARMUP_PER_CONNECTION + REQUESTS_PER_CONNECTION;
    const results =
      pacing.kind === "window"
        ? await Promise.all(clients.map((client, c) => drive(client, wire[c]!, WARMUP_PER_CONNECTION, total, rtts[c]!, tally, stopAtMs, stopAtMs + 5_000)))
        : await drivePaced(clients, wire, WARMUP_PER_CONNECTION, total, rtts, sendLate, tally, startMs, periodMs, stopAtMs, stopAtMs + 5_000);
    const cpu = process.cpuUsage(cpuAtStart);
    onMeasure?.("end");
    const endMs = Math.max(...results.map((r) => r.lastAnswerMs));
    const answered = results.reduce((sum, r) => sum + r.answered, 0);
    const sent = results.reduce((sum, r) => sum + r.sent, 0);
    // Round trips of the answered requests only (a request never answered has no round trip).
    // Open loop: a request sent but never answered is the slowest of all, not a missing sample: it counts
    // with the time from when it was due until the phase gave up on it.
    const settledMs = nowMs();
    const all = new Float64Array(pacing.kind === "rate" ? sent : answered);
    let k = 0;
    results.forEach((r, c) => {
      const rtt = rtts[c]!;
      for (let i = 0; i < r.sent; i++) {
        if (rtt[i]! > 0) all[k++] = rtt[i]!;
        else if (pacing.kind === "rate") all[k++] = settledMs - (startMs + (c / CONNECTIONS + i) * periodMs);
      }
    });
    const sorted = all.subarray(0, k).sort();
    const lateness = new Float64Array(pacing.kind === "rate" ? sent : 0);
    let l = 0;
    if (pacing.kind === "rate") results.forEach((r, c) => lateness.set(sendLate[c]!.subarray(0, r.sent), (l += r.sent) - r.sent));
    lateness.sort();
    if (process.env["SHADOWBOOK_BENCH_TRACE"] !== undefined && pacing.kind === "rate") {
      // Debugging aid: the worst round trip of each 100 ms of the paced slice, on stderr.
      const periodMs = (CONNECTIONS * 1000) / pacing.perSec;
      const worst = new Map<number, number>();
      rtts.forEach((rtt, c) => rtt.forEach((ms, i) => {
        const bucket = Math.floor(((i + c / CONNECTIONS) * periodMs) / 100);
        worst.set(bucket, Math.max(worst.get(bucket) ?? 0, ms));
      }));
      console.error([...worst].filter(([, ms]) => ms > 5).map(([b, ms]) => `${b * 100}ms:${ms.toFixed(1)}`).join(" "));
    }
    return {
      requests: answered,
      accepted: tally.accepted,
      rejected: tally.rejected,
      other: tally.other,
      unanswered: sent - answered,
      durationMs: endMs - startMs,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      p999Ms: percentile(sorted, 0.999),
      rejections: Object.fromEntries(tally.rejections),
      warmupRejections: Object.fromEntries(warm.rejections),
      cpuMs: (cpu.user + cpu.system) / 1000,
      sendLateP50Ms: percentile(lateness, 0.5),
      sendLateP99Ms: percentile(lateness, 0.99),
    };
  } finally {
    for (const client of clients) client.terminate();
  }
}

/** The figures of a phase SHADOWBOOK_BENCH_PHASES left out. */
const SKIPPED: PhaseFigures = { requests: 0, accepted: 0, rejected: 0, other: 0, unanswered: 0, durationMs: 0, p50Ms: 0, p99Ms: 0, p999Ms: 0, rejections: {}, warmupRejections: {}, cpuMs: 0, sendLateP50Ms: 0, sendLateP99Ms: 0 };

async function generator(start: StartMessage): Promise<ResultMessage> {
  const frames = await buildFrames(start, 0);
  const pacedFrames = await buildFrames(start, 1);
  const measure = (phase: LivePhase) => (at: "start" | "end") => process.send?.({ kind: "measure", phase, at } satisfies MeasureMessage);
  const target: Pacing = { kind: "rate", perSec: TARGET.acceptedPerSec };
  const echo = PHASES.has("echo") ? await runPhase(start.echoUrl, frames, { kind: "window" }) : SKIPPED;
  const echoPaced = PHASES.has("echo") ? await runPhase(start.echoUrl, pacedFrames, target) : SKIPPED;
  const live = PHASES.has("live") ? await runPhase(start.execUrl, frames, { kind: "window" }, measure("live")) : SKIPPED;
  const paced = PHASES.has("paced") ? await runPhase(start.execUrl, pacedFrames, target, measure("paced")) : SKIPPED;
  return { kind: "result", echo, echoPaced, live, paced };
}

function runGenerator(): void {
  process.once("message", (message: StartMessage) => {
    generator(message)
      .catch((error: unknown): ResultMessage => ({ kind: "error", message: errorText(error) }))
      .then((result) => {
        process.send?.(result, () => process.disconnect());
      });
  });
}

// -- the server side (parent process) ----------------------------------------------------

interface EchoServer {
  url: string;
  close(): Promise<void>;
}

async function startEchoServer(): Promise<EchoServer> {
  const { WebSocketServer } = await import("ws");
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, maxPayload: 1024 * 1024 });
  wss.on("connection", (socket) => {
    socket.on("error", () => socket.terminate());
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary }));
  });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", () => resolve());
    wss.once("error", reject);
  });
  const address = wss.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** CPU time of this process's main thread in ms (Linux /proc, 10 ms ticks); undefined elsewhere. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces): state is the 3rd field, utime and stime the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** The server's CPU time over one measured slice, in ms. */
interface ServerCpu {
  totalMs: number;
  /** The kernel's part of it (socket reads and writes, wake-ups): what batching writes can cut. */
  sysMs: number;
  /** The main thread alone, the serial part (Linux only). */
  mainMs?: number;
}

/** The printed figures of one live phase. */
function phaseLine(figures: PhaseFigures, cpu: ServerCpu | undefined) {
  const perRequestUs = (ms: number): number => (figures.requests > 0 ? Math.round((ms * 1000) / figures.requests) : 0);
  return {
    requests: figures.requests,
    acceptedPerSec: Math.round((figures.accepted / figures.durationMs) * 1000) || 0,
    rejected: figures.rejected,
    ...(figures.unanswered > 0 ? { unanswered: figures.unanswered } : {}),
    p50Ms: round(figures.p50Ms, 3),
    p99Ms: round(figures.p99Ms, 3),
    p999Ms: round(figures.p999Ms, 3),
    serverCpuUsPerRequest: perRequestUs(cpu?.totalMs ?? 0),
    serverSysCpuUsPerRequest: perRequestUs(cpu?.sysMs ?? 0),
    ...(cpu?.mainMs === undefined ? {} : { mainThreadCpuUsPerRequest: perRequestUs(cpu.mainMs) }),
    // The load generator's share of the same two cores.
    generatorCpuUsPerRequest: perRequestUs(figures.cpuMs),
  };
}

function waitForResult(child: ChildProcess): Promise<ResultMessage> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: ResultMessage): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      settle({ kind: "error", message: `the load generator did not report within ${RUN_BUDGET_MS} ms` });
    }, RUN_BUDGET_MS);
    child.on("message", (message: ResultMessage | MeasureMessage) => {
      if (message.kind !== "measure") settle(message);
    });
    child.once("exit", (code, signal) => settle({ kind: "error", message: `the load generator exited with ${code ?? signal} before reporting` }));
    child.once("error", (error) => settle({ kind: "error", message: errorText(error) }));
  });
}

function childExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function parent(): Promise<void> {
  const { startLiveServer } = await import("../../src/live/serve.ts");
  const { defaultSignerThreads } = await import("../../src/live/signer-pool.ts");
  const { knownSignerStats } = await import("../../src/signing/verify.ts");
  const { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig } = await import("../../src/exchange/config.ts");
  const { DEFAULT_SIGNING_CONFIG } = await import("../../src/signing/domain.ts");
  const { privateKeySigner } = await import("../../src/client/signer.ts");

  // Room for every request of the run in one 60 s window, tenfold.
  const orderPerWindow = 10 * (REQUESTS_PER_CONNECTION + WARMUP_PER_CONNECTION);
  const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, {
    gateway: {
      ...DEFAULT_GATEWAY_CONFIG,
      verifySignatures: true,
      rateLimitsByTier: { ...DEFAULT_GATEWAY_CONFIG.rateLimitsByTier, 3: { orderPerWindow, cancelAllPerWindow: orderPerWindow } },
      openOrderCapsByTier: { ...DEFAULT_GATEWAY_CONFIG.openOrderCapsByTier, 3: {} },
    },
  });
  const startMicros = Date.now() * 1000;
  const signerThreads = SIGNER_THREADS === undefined ? defaultSignerThreads() : Math.max(0, Math.floor(Number(SIGNER_THREADS)) || 0);
  let log: import("../../src/record/live-input-log.ts").LiveInputLog | undefined;
  if (RECORD === "sync" || RECORD === "async") {
    const { LiveInputLog } = await import("../../src/record/live-input-log.ts");
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    log = new LiveInputLog(mkdtempSync(join(tmpdir(), "shadowbook-bench-")), { config, seed: 1, startMicros, scenario: "bench", signatures: "signed", durability: RECORD });
  }
  const running = await startLiveServer({
    config,
    seed: 1,
    clock: "wall",
    startMicros,
    port: 0,
    drainMs: 2_000,
    ...(log === undefined ? {} : { log }),
    signerThreads,
    earlyConfirm: EARLY_CONFIRM,
  });
  const cleanups: (() => Promise<void> | void)[] = [() => running.close()];
  try {
    const driver = running.context.driver;
    const admin = (action: Parameters<typeof driver.handle>[0]): Record<string, unknown> => {
      const answer = driver.handle(action);
      if (!answer.ok) throw new Error(`setup input ${JSON.stringify(action)} was refused: ${answer.error.message}`);
      return answer.payload;
    };
    const parties: Party[] = [];
    for (let c = 0; c < CONNECTIONS; c++) {
      const key = privateKey(0xbe00 + c);
      const wallet = privateKeySigner(key, { path: "fast" }).address;
      const created = admin({ kind: "admin", admin: { action: "createAccount", wallet, deposits: { rUSD: "100000000" } } });
      admin({ kind: "admin", admin: { action: "wallet", wallet, rateTier: 3 } });
      parties.push({ key, accountId: Number(created["accountId"]) });
    }
    const publishPrices = (): void => {
      admin({
        kind: "prices",
        prices: [
          { asset: "WETH", price: String(MARK) },
          { symbol: SYMBOL, price: String(MARK) },
          { asset: "WBTC", price: "60000" },
          { symbol: "BTCRUSDPERP", price: "60000" },
        ],
      });
    };
    publishPrices();
    const refresh = setInterval(publishPrices, PRICE_REFRESH_MS);
    cleanups.push(() => clearInterval(refresh));

    const echo = await startEchoServer();
    cleanups.push(() => echo.close());

    const child = fork(import.meta.filename, [GENERATOR_FLAG], {
      execArgv: ["--import", "tsx", "--expose-gc"],
      cwd: process.cwd(),
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    cleanups.push(() => childExited(child));
    // The server's CPU time (main thread and workers) over each live phase's measured slice: a figure that
    // holds up better than throughput when other work shares the cores.
    const serverCpu = new Map<LivePhase, ServerCpu>();
    let cpuAtStart: NodeJS.CpuUsage | undefined;
    let mainAtStart: number | undefined;
    child.on("message", (message: MeasureMessage | ResultMessage) => {
      if (message.kind !== "measure") return;
      if (message.at === "start") {
        cpuAtStart = process.cpuUsage();
        mainAtStart = mainThreadCpuMs();
      } else if (cpuAtStart !== undefined) {
        const used = process.cpuUsage(cpuAtStart);
        const mainNow = mainThreadCpuMs();
        serverCpu.set(message.phase, {
          totalMs: (used.user + used.system) / 1000,
          sysMs: used.system / 1000,
          ...(mainNow === undefined || mainAtStart === undefined ? {} : { mainMs: mainNow - mainAtStart }),
        });
      }
    });
    const start: StartMessage = { kind: "start", execUrl: running.urls.exec, echoUrl: echo.url, nowMicros: driver.now(), parties };
    child.send(start);
    const result = await waitForResult(child);
    if (result.kind === "error") {
      console.log(JSON.stringify({ bench: "live", error: result.message }));
      return;
    }
    const { live, paced, echo: floor, echoPaced: pacedFloor } = result;
    if (process.env["SHADOWBOOK_DEBUG"] !== undefined) {
      console.error(JSON.stringify({ live, paced, echo: floor, recoveredOffThread: running.server.surfaces.exec.recoveredOffThread }));
    }
    const saturated = phaseLine(live, serverCpu.get("live"));
    const atTarget = phaseLine(paced, serverCpu.get("paced"));
    console.log(
      JSON.stringify({
        bench: "live",
        ...(log === undefined ? {} : { record: log.durability, logCommits: log.stats.commits }),
        signerThreads,
        connections: CONNECTIONS,
        window: WINDOW,
        ...saturated,
        echo: {
          perSec: Math.round((floor.requests / floor.durationMs) * 1000) || 0,
          p50Ms: round(floor.p50Ms, 3),
          p99Ms: round(floor.p99Ms, 3),
        },
        ratioP99: round(live.p99Ms / floor.p99Ms, 1),
        paced: {
          offeredPerSec: TARGET.acceptedPerSec,
          ...atTarget,
          sendLateP50Ms: round(paced.sendLateP50Ms, 3),
          sendLateP99Ms: round(paced.sendLateP99Ms, 3),
          echo: { p50Ms: round(pacedFloor.p50Ms, 3), p99Ms: round(pacedFloor.p99Ms, 3), sendLateP99Ms: round(pacedFloor.sendLateP99Ms, 3) },
          ratioP99: round(paced.p99Ms / pacedFloor.p99Ms, 1),
        },
        target: TARGET,
        meetsTarget:
          saturated.acceptedPerSec >= TARGET.acceptedPerSec &&
          atTarget.acceptedPerSec >= 0.98 * TARGET.acceptedPerSec &&
          atTarget.rejected === 0 &&
          atTarget.unanswered === undefined &&
          atTarget.p99Ms < TARGET.p99Ms,
        // The server thread's signer cache (src/signing/known-signers.ts): signatures confirmed from a comb table, not recovered.
        knownSigners: {
          tablesReady: knownSignerStats().tablesReady,
          confirmed: knownSignerStats().confirmed,
          confirmedEarly: running.server.surfaces.exec.confirmedEarly,
        },
      }),
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // Closing is best effort: a benchmark never fails.
      }
    }
  }
}

if (process.argv.includes(GENERATOR_FLAG)) {
  runGenerator();
} else {
  parent()
    .catch((error: unknown) => {
      console.log(JSON.stringify({ bench: "live", error: errorText(error) }));
    })
    .finally(() => {
      process.exitCode = 0;
      // Everything is closed by now; if a handle still lingers, do not hang on it.
      setTimeout(() => process.exit(0), 5_000).unref();
    });
}
