/**
 * Records a streaming server's frames (spec 4.4, 6) into an md-recording/1
 * file: shadowbook's `/ws` or the real service, anything that speaks the
 * streaming interface. This is a driver: it reads the wall clock.
 *
 * - Sessions: each connection subscribes to every channel, then every
 *   `subscribed`, `channel_data` and `error` frame is written with its
 *   receive time (µs, wall clock), its bytes exactly as received. Other
 *   frames (`pong`, `unsubscribed`, unknown types, frames that are not a
 *   JSON object with a string `type`) are counted as ignored, not written.
 * - Losing a session writes a `gap` row (`{"code","reason"}` of the close,
 *   recvMicros = when the close was seen) and reconnects after a backoff:
 *   `backoffInitialMs`, doubled after each failed attempt up to
 *   `backoffMaxMs`, until the recording ends. Close codes 1012 (resync),
 *   1013 (slow consumer) and 1001 (going away) are the documented ones (spec
 *   6.3); any other close, a network error, a missing pong (the recorder
 *   pings every `pingIntervalMs` and ends a connection that did not answer
 *   the previous ping) or a refused reconnection is handled the same way,
 *   and logged as unexpected: a recorder keeps going. The backoff starts
 *   again from `backoffInitialMs` once a session got every `subscribed`.
 * - Startup fails fast: `start()` rejects when the first connection cannot be
 *   opened (refused, HTTP error, `connectTimeoutMs`), closes before every
 *   channel was subscribed, or a channel is refused with "Invalid channel
 *   name". Nothing is retried then: the URL or the channels are wrong. No
 *   file is left behind: the recording never started (what a first session
 *   wrote before the failure, its `subscribed` and `error` frames, is
 *   removed with the file). Only a recording that started keeps what it
 *   wrote when it ends early (killed: its complete batches).
 * - "Error while fetching snapshot from {channel}" (spec 7.5: the
 *   subscription was rolled back) is written as an error row, and the
 *   channel is subscribed again after the backoff, in the same session.
 * - The end: `durationMs`, `maxRows`, or `stop()` (the CLI's SIGINT and
 *   SIGTERM). The socket is closed with 1000, the pending rows are written
 *   with the end-of-stream marker, and the summary is returned. Pending rows
 *   are also written every `flushEveryMs`, so a killed recorder loses at most
 *   that much (the file reads as its complete batches).
 */
import { rmSync } from "node:fs";
import WebSocket from "ws";
import { gapFrame, kindOfType, MdRecordingWriter, MD_ROW_KINDS, scanEnvelope, type MdRowKind } from "./md-recording.ts";

/** The close codes after which the spec says to reconnect (6.3). */
export const RECONNECT_CLOSE_CODES: readonly number[] = [1012, 1013, 1001];
const SNAPSHOT_ERROR_PREFIX = "Error while fetching snapshot from ";
const INVALID_CHANNEL = "Invalid channel name";
/** The longest delay a Node timer holds (2^31 - 1 ms); a longer one fires at once. */
const TIMER_MAX_MS = 2_147_483_647;

export interface WsRecorderOptions {
  /** ws:// or wss:// URL of the streaming endpoint. */
  url: string;
  channels: readonly string[];
  /** The md-recording/1 file to write (replaced; removed when start() fails: the recording never started). */
  out: string;
  /** Wall-clock ms to record, counted from start(); default: until stop(). */
  durationMs?: number;
  /** Stop once this many rows were written. */
  maxRows?: number;
  batchRows?: number;
  /** Pending rows are written at least this often. Default 1000. */
  flushEveryMs?: number;
  /** Default 250. */
  backoffInitialMs?: number;
  /** Default 10,000. */
  backoffMaxMs?: number;
  /** Default 10,000: for the opening handshake and for the first session's subscriptions. */
  connectTimeoutMs?: number;
  /** Default 15,000. */
  pingIntervalMs?: number;
  /** Called after each row is written. */
  onRow?: (kind: MdRowKind, channel: string | null) => void;
  /** Progress and warnings, one line each (default: none). */
  log?: (line: string) => void;
  /** Receive time, µs since the Unix epoch (default: the wall clock, µs resolution). */
  nowMicros?: () => number;
}

export type StopReason = "duration" | "maxRows" | "stop" | "signal";

export interface RecordSummary {
  readonly url: string;
  readonly out: string;
  readonly rows: number;
  readonly byKind: Readonly<Record<MdRowKind, number>>;
  /** Connections that were opened. */
  readonly sessions: number;
  readonly gaps: number;
  /** Frames received and not written (pong, unsubscribed, unknown). */
  readonly ignored: number;
  /** Bytes of the frames written. */
  readonly frameBytes: number;
  readonly fileBytes: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly stoppedBy: StopReason;
}

function wallMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1_000);
}

export class WsRecorder {
  private readonly options: WsRecorderOptions;
  private readonly now: () => number;
  private writer: MdRecordingWriter | undefined;
  private socket: WebSocket | undefined;
  private readonly counts: Record<MdRowKind, number> = { subscribed: 0, data: 0, error: 0, gap: 0 };
  private sessions = 0;
  private ignored = 0;
  private frameBytes = 0;
  private backoffMs: number;
  private startedAt = 0;
  private stopping: StopReason | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private endTimer: NodeJS.Timeout | undefined;
  /** Settles start() when the recording ends before the first session got every channel (maxRows). */
  private startPending: (() => void) | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private resolveFinished!: (summary: RecordSummary) => void;
  private rejectFinished!: (error: unknown) => void;
  /** Resolves with the summary when the recording ends. */
  readonly finished: Promise<RecordSummary>;

  constructor(options: WsRecorderOptions) {
    // Named as the record command's flags: its options are these.
    if (!/^wss?:\/\//.test(options.url)) throw new Error(`--url "${options.url}" is not a ws:// or wss:// URL`);
    if (options.channels.length === 0) throw new Error("--channels is empty: name at least one channel");
    if (options.durationMs !== undefined && !(options.durationMs > 0)) throw new Error(`durationMs must be positive, got ${options.durationMs}`);
    if (options.maxRows !== undefined && !(Number.isSafeInteger(options.maxRows) && options.maxRows > 0)) throw new Error(`maxRows must be a positive integer, got ${options.maxRows}`);
    this.options = options;
    this.now = options.nowMicros ?? wallMicros;
    this.backoffMs = this.backoffInitialMs;
    this.finished = new Promise((resolve, reject) => {
      this.resolveFinished = resolve;
      this.rejectFinished = reject;
    });
    // A failed start rejects start(); `finished` only matters after a start.
    this.finished.catch(() => {});
  }

  private get backoffInitialMs(): number {
    return this.options.backoffInitialMs ?? 250;
  }

  /** Rows written so far. */
  get rows(): number {
    return this.writer?.rows ?? 0;
  }

  /**
   * Opens the first connection and subscribes; resolves once every channel
   * was subscribed. Rejects (and ends the recording) when that fails.
   */
  async start(): Promise<void> {
    this.startedAt = performance.now();
    try {
      await this.firstSession();
    } catch (error) {
      this.finish("stop");
      // The recording never started: the file of the failed first session is not one.
      if (this.writer !== undefined) rmSync(this.options.out, { force: true });
      throw error;
    }
    // Ended already (maxRows reached by the first session's frames, or stop()): no timer to arm, or it would keep the process alive.
    if (this.stopping !== undefined) return;
    const flushEveryMs = this.options.flushEveryMs ?? 1_000;
    this.flushTimer = setInterval(() => this.writer?.flush(), flushEveryMs);
    if (this.options.durationMs !== undefined) this.armEnd(this.options.durationMs);
  }

  /**
   * Ends the recording `durationMs` after its start. Node's timers hold at
   * most 2^31 - 1 ms (24.8 days) and fire at once beyond that, so a longer
   * recording waits in steps of that size.
   */
  private armEnd(durationMs: number): void {
    const leftMs = durationMs - (performance.now() - this.startedAt);
    if (leftMs > TIMER_MAX_MS) this.endTimer = setTimeout(() => this.armEnd(durationMs), TIMER_MAX_MS);
    else this.endTimer = setTimeout(() => this.finish("duration"), Math.max(0, leftMs));
  }

  /** Ends the recording now (`reason` "signal" for SIGINT/SIGTERM); the summary. */
  stop(reason: "stop" | "signal" = "stop"): Promise<RecordSummary> {
    this.finish(reason);
    return this.finished;
  }

  private firstSession(): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        fail(new Error(`${this.options.url}: the channels were not all subscribed within ${timeoutMs} ms`));
        this.socket?.terminate();
      }, timeoutMs);
      let settled = false;
      this.startPending = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      };
      this.connect({
        subscribed: () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve();
        },
        failed: fail,
      });
    });
  }

  /**
   * Opens a connection. `first` (the startup session) turns every failure
   * into a rejection; later sessions reconnect instead.
   */
  private connect(first?: { subscribed: () => void; failed: (error: Error) => void }): void {
    if (this.stopping !== undefined) return;
    const { url, channels } = this.options;
    const socket = new WebSocket(url, { handshakeTimeout: this.options.connectTimeoutMs ?? 10_000 });
    this.socket = socket;
    let opened = false;
    const pending = new Set(channels);
    let lost: { code: number; reason: string } | undefined;
    let awaitingPong = false;
    let pingTimer: NodeJS.Timeout | undefined;

    socket.on("unexpected-response", (_request, response) => {
      const error = new Error(`${url}: the server answered HTTP ${response.statusCode} to the WebSocket upgrade`);
      response.resume();
      socket.terminate();
      if (first !== undefined) first.failed(error);
      else this.log(`reconnect refused: HTTP ${response.statusCode}`);
    });
    socket.on("error", (error) => {
      if (first !== undefined && !opened) first.failed(new Error(`${url}: cannot connect: ${error.message}`));
      else this.log(`connection error: ${error.message}`);
    });
    socket.on("open", () => {
      opened = true;
      this.sessions++;
      this.ensureWriter();
      this.log(`session ${this.sessions} open: subscribing to ${channels.length} channel${channels.length === 1 ? "" : "s"}`);
      for (const channel of channels) socket.send(JSON.stringify({ type: "subscribe", channel }));
      pingTimer = setInterval(() => {
        if (awaitingPong) {
          lost = { code: 1006, reason: `no pong within ${this.pingIntervalMs} ms` };
          socket.terminate();
          return;
        }
        awaitingPong = true;
        socket.ping();
      }, this.pingIntervalMs);
    });
    socket.on("pong", () => (awaitingPong = false));
    // Text and binary frames alike: the bytes as received.
    socket.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      if (this.stopping !== undefined) return;
      const at = this.now();
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const envelope = scanEnvelope(bytes);
      const kind = envelope === null ? null : kindOfType(envelope.type);
      if (envelope === null || kind === null) {
        this.ignored++;
        return;
      }
      this.append(at, kind, envelope.channel, envelope.timestampMs, bytes);
      if (kind === "subscribed" && envelope.channel !== null && pending.delete(envelope.channel) && pending.size === 0) {
        this.backoffMs = this.backoffInitialMs;
        first?.subscribed();
        first = undefined;
      } else if (kind === "error" && envelope.channel !== null) {
        this.onChannelError(socket, bytes, envelope.channel, first);
      }
    });
    socket.on("close", (code: number, reason: Buffer) => {
      clearInterval(pingTimer);
      if (this.socket === socket) this.socket = undefined;
      if (this.stopping !== undefined) return;
      const seen = lost ?? { code, reason: reason.toString("utf8") };
      if (first !== undefined) {
        first.failed(new Error(opened ? `${url}: closed (${seen.code} ${seen.reason}) before every channel was subscribed` : `${url}: cannot connect`));
        return;
      }
      if (opened) {
        this.append(this.now(), "gap", null, null, gapFrame(seen.code, seen.reason));
        const expected = RECONNECT_CLOSE_CODES.includes(seen.code);
        this.log(`session ${this.sessions} ${expected ? "closed" : "lost (unexpected)"}: ${seen.code} ${seen.reason}; reconnecting in ${this.backoffMs} ms`);
      }
      this.later(this.backoffMs, () => this.connect());
      this.backoffMs = Math.min(this.backoffMs * 2, this.options.backoffMaxMs ?? 10_000);
    });
  }

  private get pingIntervalMs(): number {
    return this.options.pingIntervalMs ?? 15_000;
  }

  /** An error frame tied to a channel: fatal at startup when the name is refused; a failed snapshot is retried. */
  private onChannelError(socket: WebSocket, bytes: Buffer, channel: string, first: { failed: (error: Error) => void } | undefined): void {
    if (!this.options.channels.includes(channel)) return;
    let message = "";
    try {
      message = String((JSON.parse(bytes.toString("utf8")) as { message?: unknown }).message);
    } catch {
      return;
    }
    if (message === INVALID_CHANNEL && first !== undefined) {
      first.failed(new Error(`channel "${channel}" was refused: ${INVALID_CHANNEL}`));
      return;
    }
    if (message.startsWith(SNAPSHOT_ERROR_PREFIX)) {
      this.log(`${message}: subscribing again in ${this.backoffMs} ms`);
      this.later(this.backoffMs, () => {
        if (this.socket === socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "subscribe", channel }));
      });
    }
  }

  private ensureWriter(): void {
    if (this.writer !== undefined) return;
    const { url, channels, out } = this.options;
    this.writer = new MdRecordingWriter(out, { source: url, channels, startMicros: this.now() }, this.options.batchRows === undefined ? {} : { batchRows: this.options.batchRows });
  }

  private append(at: number, kind: MdRowKind, channel: string | null, timestampMs: number | null, frame: Uint8Array): void {
    this.writer!.append(at, kind, channel, timestampMs, frame);
    this.counts[kind]++;
    this.frameBytes += frame.byteLength;
    this.options.onRow?.(kind, channel);
    if (this.options.maxRows !== undefined && this.writer!.rows >= this.options.maxRows) this.finish("maxRows");
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /** Ends once: closes the socket (1000), writes the rest, resolves `finished`. */
  private finish(reason: StopReason): void {
    if (this.stopping !== undefined) return;
    this.stopping = reason;
    this.startPending?.();
    clearTimeout(this.endTimer);
    clearInterval(this.flushTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined) {
      if (socket.readyState === WebSocket.OPEN) socket.close(1000, "recording ended");
      else socket.terminate();
      // The close handshake is not awaited; the socket ends by itself (or is cut here if the server is silent).
      setTimeout(() => socket.terminate(), 1_000).unref();
    }
    try {
      this.writer?.close();
    } catch (error) {
      this.rejectFinished(error);
      return;
    }
    const seconds = (performance.now() - this.startedAt) / 1_000;
    const rows = this.writer?.rows ?? 0;
    this.resolveFinished(
      Object.freeze({
        url: this.options.url,
        out: this.options.out,
        rows,
        byKind: Object.freeze({ ...this.counts }),
        sessions: this.sessions,
        gaps: this.counts.gap,
        ignored: this.ignored,
        frameBytes: this.frameBytes,
        fileBytes: this.writer?.bytesWritten ?? 0,
        seconds,
        rowsPerSecond: seconds > 0 ? rows / seconds : 0,
        stoppedBy: reason,
      }),
    );
  }
}

/** Records until the duration, maxRows, or `signal` aborts; the summary. */
export async function recordStream(options: WsRecorderOptions, signal?: AbortSignal): Promise<RecordSummary> {
  const recorder = new WsRecorder(options);
  await recorder.start();
  if (signal !== undefined) {
    if (signal.aborted) void recorder.stop();
    else signal.addEventListener("abort", () => void recorder.stop(), { once: true });
  }
  return recorder.finished;
}

/** What ended a recording, as the summary names it: the CLI's flag for a limit. */
const STOPPED_BY: Readonly<Record<StopReason, string>> = { duration: "--duration", maxRows: "--max-rows", signal: "a signal (SIGINT or SIGTERM)", stop: "stop()" };

/** The summary as lines for a terminal. */
export function formatSummary(summary: RecordSummary): string[] {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const kinds = MD_ROW_KINDS.map((kind) => `${kind} ${summary.byKind[kind]}`).join(", ");
  return [
    `recorded ${summary.url} -> ${summary.out} (stopped by ${STOPPED_BY[summary.stoppedBy]})`,
    `  rows      ${summary.rows} (${kinds})`,
    `  sessions  ${summary.sessions}, gaps ${summary.gaps}, ignored frames ${summary.ignored}`,
    `  bytes     ${mb(summary.frameBytes)} of frames, file ${mb(summary.fileBytes)}`,
    `  time      ${summary.seconds.toFixed(1)} s, ${summary.rowsPerSecond.toFixed(1)} rows/s`,
  ];
}
