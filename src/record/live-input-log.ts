/**
 * The live server's input log (`shadowbook serve --record <dir>`):
 * `<dir>/inputs.arrow`, format input-log/1 (input-log.ts: the same columns
 * and schema metadata as a simulated run's log, so `shadowbook replay` reads
 * both), written as an Arrow IPC stream that grows one record batch at a time.
 *
 * Group commit: the driver's steps (every input, every timer-only advance,
 * with the fingerprint after it) accumulate in memory. A commit cuts them
 * into one record batch, writes it and fdatasyncs the file, through the
 * libuv thread pool (async fs), so the event loop goes on serving while a
 * commit is in flight. Commits run one at a time, start at most every
 * `groupCommitMs` (2 ms), and at once (the next turn of the event loop) when
 * the log was idle that long. The last step of every batch carries its full
 * fingerprint (any batch may be the last one a killed server wrote).
 *
 * Durability:
 * - `sync` (the default): `whenDurable` holds a callback (the surfaces send
 *   answers from there) until the commit holding every step so far is on
 *   disk, so a `kill -9` never loses an answered request; answers keep their
 *   order.
 * - `async`: callbacks run at once; commits go on in the background, so a
 *   crash may lose the last few milliseconds of answered requests.
 * Stream pushes (and REST reads) are not held in either mode: a stream
 * client may see the effect of a request before it is durable.
 *
 * A killed server leaves a stream whose last batch may be cut short, and no
 * end-of-stream marker; readInputLog (replay.ts) reads its complete batches.
 * A write or fdatasync failure is fatal (`onError`): answers that wait for
 * the log could never be sent.
 */
import { close, closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, write, writeSync } from "node:fs";
import { join } from "node:path";
import { AsyncByteQueue, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Struct, type Data } from "apache-arrow";
import { compactConsumed } from "../core/array-queue.ts";
import type { Micros } from "../core/time.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import type { InputLog } from "../live/driver.ts";
import { inputLogMetadata, InputLogColumns, type InputLogSetup } from "./input-log.ts";

export const LIVE_INPUT_LOG_FILE = "inputs.arrow";
/** The shortest time between the starts of two commits. */
export const GROUP_COMMIT_MS = 2;

export type Durability = "sync" | "async";

export interface LiveInputLogOptions extends InputLogSetup {
  durability: Durability;
  /** Default GROUP_COMMIT_MS. */
  groupCommitMs?: number;
  /** A write or fdatasync failed; default: thrown (the process ends). */
  onError?: (error: Error) => void;
}

/** What the log did so far (for tests and figures). */
export interface LiveInputLogStats {
  /** Steps ended (logged in memory). */
  readonly steps: number;
  /** Steps on disk (fdatasync'ed). */
  readonly durableSteps: number;
  readonly commits: number;
  readonly bytes: number;
  /** Rows of each commit's batch, oldest first (the last 1,000 commits). */
  readonly batchRows: readonly number[];
}

/** An Arrow writer sink that hands over the bytes written since the last `take`. */
class ChunkSink extends AsyncByteQueue {
  private chunks: Uint8Array[] = [];

  override write(value: Uint8Array): void {
    if (value.byteLength > 0) this.chunks.push(value);
  }

  take(): Buffer {
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    return bytes;
  }
}

interface Waiter {
  /** Released once this many steps are durable. */
  readonly steps: number;
  readonly callback: () => void;
}

const BATCH_ROWS_KEPT = 1_000;

export class LiveInputLog implements InputLog {
  readonly path: string;
  readonly durability: Durability;
  /** The shortest time between the starts of two commits. */
  readonly groupCommitMs: number;
  private readonly onError: (error: Error) => void;
  private readonly columns = new InputLogColumns();
  private readonly schema: Schema;
  private readonly sink = new ChunkSink();
  private readonly writer = new RecordBatchStreamWriter();
  private fd: number;
  private position = 0;
  /** Complete rows in the columns, not committed yet. */
  private rows = 0;
  /** A step began and has not ended. */
  private stepOpen = false;
  private ended = 0;
  /** The fingerprint of the last ended step, not in the columns yet (its row closes at the next step or the commit). */
  private pendingDigest: string | undefined;
  private durable = 0;
  private committing = false;
  private scheduled = false;
  private lastCommitMs = -Infinity;
  private readonly waiters: Waiter[] = [];
  private waiterHead = 0;
  private closed = false;
  private failure: Error | undefined;
  /** Ends a `close` that waits for a commit when the log fails instead. */
  private onFailure: (() => void) | undefined;
  private commitCount = 0;
  private readonly batchRows: number[] = [];

  constructor(directory: string, options: LiveInputLogOptions) {
    if (options.durability !== "sync" && options.durability !== "async") throw new RangeError(`durability "${String(options.durability)}" must be sync or async`);
    this.durability = options.durability;
    this.groupCommitMs = options.groupCommitMs ?? GROUP_COMMIT_MS;
    if (!(this.groupCommitMs >= 0)) throw new RangeError(`groupCommitMs must be at least 0, got ${this.groupCommitMs}`);
    this.onError =
      options.onError ??
      ((error) => {
        throw error;
      });
    mkdirSync(directory, { recursive: true });
    this.path = join(directory, LIVE_INPUT_LOG_FILE);
    this.schema = new Schema(
      this.columns.list.map((column) => column.field),
      inputLogMetadata(options),
    );
    this.writer.reset(this.sink, this.schema);
    // The schema is on disk, and the file in its directory, before the first step. "wx": a log already
    // there (an earlier session's, an incident to replay) is never overwritten: EEXIST instead.
    this.fd = openSync(this.path, "wx");
    const head = this.sink.take();
    writeSync(this.fd, head);
    this.position = head.byteLength;
    fdatasyncSync(this.fd);
    syncDirectory(directory);
  }

  get stats(): LiveInputLogStats {
    return { steps: this.ended, durableSteps: this.durable, commits: this.commitCount, bytes: this.position, batchRows: this.batchRows.slice() };
  }

  // -- InputLog ----------------------------------------------------------------------------

  append(atMicros: Micros, input: ExchangeInput): void {
    this.begin(atMicros, input);
  }

  advance(atMicros: Micros): void {
    this.begin(atMicros, undefined);
  }

  endStep(fingerprint: string): void {
    if (!this.stepOpen) throw new Error("input log: endStep without a step");
    this.stepOpen = false;
    this.ended++;
    this.pendingDigest = fingerprint;
    this.schedule();
  }

  whenDurable(callback: () => void): void {
    if (this.durability === "async" || this.durable >= this.ended) {
      callback();
      return;
    }
    this.waiters.push({ steps: this.ended, callback });
  }

  /** Commits what is left, ends the stream and closes the file; later steps throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => {
      if (this.durable >= this.ended || this.failure !== undefined) return resolve();
      this.waiters.push({ steps: this.ended, callback: resolve });
      this.onFailure = resolve;
      this.schedule();
    });
    if (this.failure !== undefined) return;
    this.writer.finish(); // the end-of-stream marker
    const tail = this.sink.take();
    writeSync(this.fd, tail, 0, tail.byteLength, this.position);
    this.position += tail.byteLength;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
  }

  // -- steps -------------------------------------------------------------------------------

  private begin(atMicros: Micros, input: ExchangeInput | undefined): void {
    if (this.closed) throw new Error(`input log ${this.path} is closed`);
    if (this.stepOpen) throw new Error("input log: a step began before the last one ended");
    this.closeRow(false);
    this.columns.pushStep(atMicros, input);
    this.stepOpen = true;
  }

  /** Completes the row of the last ended step with its fingerprint (full when `last` of a batch). */
  private closeRow(last: boolean): void {
    const digest = this.pendingDigest;
    if (digest === undefined) return;
    this.pendingDigest = undefined;
    this.columns.pushFingerprint(digest, this.ended, last);
    this.rows++;
  }

  // -- group commit ------------------------------------------------------------------------

  private schedule(): void {
    if (this.scheduled || this.committing || this.failure !== undefined) return;
    this.scheduled = true;
    const waitMs = this.lastCommitMs + this.groupCommitMs - performance.now();
    if (waitMs <= 0) setImmediate(() => this.commit());
    else setTimeout(() => this.commit(), waitMs);
  }

  /** Cuts the steps so far into one record batch, writes it and fdatasyncs; then releases the callbacks it covers. */
  private commit(): void {
    this.scheduled = false;
    if (this.committing || this.failure !== undefined) return;
    if (this.stepOpen) throw new Error("input log: a commit ran inside a step");
    this.closeRow(true);
    if (this.rows === 0) {
      this.release();
      return;
    }
    const steps = this.ended;
    this.batchRows.push(this.rows);
    if (this.batchRows.length > BATCH_ROWS_KEPT) this.batchRows.shift();
    this.writer.write(this.cutBatch());
    const bytes = this.sink.take();
    this.committing = true;
    this.lastCommitMs = performance.now();
    this.commitCount++;
    writeFully(this.fd, bytes, this.position, (writeError) => {
      if (writeError !== null) return this.fail(writeError);
      this.position += bytes.byteLength;
      fdatasync(this.fd, (syncError) => {
        if (syncError !== null) return this.fail(syncError);
        this.committing = false;
        this.durable = steps;
        this.release();
        if (this.ended > this.durable) this.schedule();
      });
    });
  }

  private cutBatch(): RecordBatch {
    const length = this.rows;
    const children: Data[] = [];
    for (const column of this.columns.list) {
      if (column.length !== length) throw new Error(`input log column "${column.name}" has ${column.length} values for ${length} rows`);
      children.push(column.cut());
    }
    this.rows = 0;
    return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children }));
  }

  /** Runs the callbacks whose steps are durable, in the order they were asked for. */
  private release(): void {
    while (this.waiterHead < this.waiters.length && this.waiters[this.waiterHead]!.steps <= this.durable) {
      const { callback } = this.waiters[this.waiterHead]!;
      this.waiters[this.waiterHead++] = undefined as unknown as Waiter;
      try {
        callback();
      } catch (error) {
        if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
      }
    }
    this.waiterHead = compactConsumed(this.waiters, this.waiterHead);
  }

  private fail(error: Error): void {
    this.failure = error;
    this.committing = false;
    close(this.fd, () => undefined);
    this.onFailure?.();
    this.onError(new Error(`input log ${this.path}: ${error.message}`, { cause: error }));
  }
}

/** Writes all of `bytes` at `position` (a write may take part of them). */
function writeFully(fd: number, bytes: Buffer, position: number, done: (error: Error | null) => void): void {
  let offset = 0;
  const next = (): void => {
    write(fd, bytes, offset, bytes.byteLength - offset, position + offset, (error, written) => {
      if (error !== null) return done(error);
      offset += written;
      if (offset < bytes.byteLength) next();
      else done(null);
    });
  };
  next();
}

/** fsync of a directory, so a new file's entry survives a power loss (best effort: not every platform opens directories). */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, "r");
    fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; the file's own data is synced all the same.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
