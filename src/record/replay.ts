/**
 * Replay of an input log (input-log.ts): a fresh Exchange from the log's
 * configuration and seed re-executes every step at its virtual time (an
 * input through `handle`, a timer step through `advanceTo`), and the run
 * fingerprint after each step is compared with the one recorded. The first
 * step whose fingerprint differs is where the replay diverges: the outputs
 * up to the step before were the same, byte for byte.
 *
 * A log that cannot be replayed (missing, a directory, empty, not Arrow, an
 * Arrow file cut short, damaged Arrow metadata such as one flipped byte in a
 * message's flatbuffer (arrow-files.ts), another format, a metadata field or
 * column missing or malformed, a payload that is not JSON, a configuration
 * the Exchange refuses, a step the Exchange throws on, a recorded fingerprint
 * that is not 16 or 64 hex digits) is an InputLogError naming the file and
 * what is wrong, before any step runs (openInputLog reads and checks every
 * step first; a log of up to KEPT_STEPS_MAX steps is kept as read, a larger
 * one is decoded again to replay it, so that a replay holds one batch of
 * steps, not the log). A log of any size replays: one larger than
 * WHOLE_READ_MAX is read from the file a chunk at a time, never whole.
 *
 * A live log (an Arrow IPC stream) that does not end as a closed one does
 * (cut inside a batch, without its end-of-stream marker, or with bytes after
 * it) reads as its complete batches, and says so (`InputLog.end`,
 * describeLogEnd): a server killed with -9 leaves such a log, and it replays;
 * what the file lacks is named rather than passed over. A simulated run's
 * log (an Arrow IPC file) with bytes after its footer and closing "ARROW1"
 * reads as the file and says so likewise ("trailing"); one cut short is
 * refused.
 */
import { createHash } from "node:crypto";
import { DataType, RecordBatchStreamReader, tableFromIPC, type RecordBatch, type Schema } from "apache-arrow";
import { Fingerprint } from "../core/fingerprint.ts";
import { Exchange } from "../exchange/exchange.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import { ARROW_FILE_BYTES_MIN, ARROW_MAGIC, ArrowIpcError, arrowFileEnd, bytesSource, checkArrowFile, chunkedSource, describeDamage, endsWithArrowMagic, startsWithArrowMagic, trailingZerosStart, walkStreamTail, zerosFrom, type ByteSource, type LastBatch, type StreamWalk } from "./arrow-files.ts";
import { CHUNK_BYTES, FileBytes, FileChangedError } from "./file-bytes.ts";
import { CODE_KEY, COMMAND_KEY, NODE_KEY, REPLAY_CODE_KEY, configFromJson, configOutlineProblem, FAILED_AFTER_OUTPUTS_KEY, FINGERPRINT_PREFIX_DIGITS, INPUT_LOG_FORMAT } from "./input-log.ts";

/** One step of a log. */
export interface LoggedStep {
  readonly index: number;
  readonly timeMicros: number;
  readonly kind: string;
  /** The input (undefined for a timer step). */
  readonly input: ExchangeInput | undefined;
  /** The recorded fingerprint after the step (a 16-digit prefix or all 64). */
  readonly fingerprint: string;
}

/**
 * How a live log's stream ends when not as a closed log's does (with its
 * end-of-stream marker, and nothing after it). Its steps are those of the
 * complete batches before this end.
 */
export interface LogEnd {
  /**
   * - "cut": the bytes after the last complete batch do not form one (a write
   *   cut short by a crash, or a copy cut short): the steps in them are missing;
   * - "unclosed": the file ends right after a complete batch, without an
   *   end-of-stream marker: its server did not close it (killed, or still
   *   writing), and steps it logged after that batch, if any, are missing;
   * - "trailing": bytes follow the end-of-stream marker (of an Arrow IPC
   *   file, `format` "file": its footer and closing "ARROW1"): they are not
   *   part of the log (which is whole) and are not read.
   */
  readonly kind: "cut" | "unclosed" | "trailing";
  /** The file's length. */
  readonly fileBytes: number;
  /** The bytes read: up to the end of the last complete batch (for "trailing", of the marker, or of a file's closing "ARROW1"). */
  readonly readBytes: number;
  /**
   * "file" for an Arrow IPC file (a simulated run's log, whole or not at
   * all: only "trailing" applies), whose end is its footer and closing
   * "ARROW1"; absent for a stream (a live log).
   */
  readonly format?: "file";
}

/** A log's metadata, how it ends and how many steps it has (InputLog and StreamedInputLog add the steps). */
export interface InputLogHeader {
  /** The file read (messages name it). */
  readonly path: string;
  readonly scenario: string;
  readonly seed: number;
  readonly startMicros: number;
  readonly signatures: string;
  readonly configJson: string;
  /**
   * The code that recorded the log (`shadowbook.code`, code-id.ts), as the
   * log names it; undefined for a log written before logs named their code.
   * Only reported (a replay runs any log through the code it has).
   */
  readonly code?: string;
  /** The `shadowbook run` command that re-runs the run (`shadowbook.command`); undefined for a live server's log and logs written before logs named it. Only reported. */
  readonly command?: string;
  /** The replay identity of that code (`shadowbook.replayCode`: src/ and the dependencies, without agents/); undefined for a log written before logs named it. Only reported. */
  readonly replayCode?: string;
  /** The Node.js major version that recorded the log (`shadowbook.node`); undefined for a log written before logs named it. Only reported. */
  readonly node?: string;
  /** The steps read (of the complete batches, for a log cut short). */
  readonly stepCount: number;
  /** Set when the log's bytes do not end as a closed log's do (describeLogEnd says how); its steps are those read. */
  readonly end?: LogEnd;
  /**
   * Set in the log of a run that failed (input-log.ts FAILED_AFTER_OUTPUTS_KEY):
   * the outputs its last fingerprint covers. A replay fingerprints no more.
   */
  readonly failedAfterOutputs?: number;
}

/** A log read whole (readInputLog): every step in memory. */
export interface InputLog extends InputLogHeader {
  readonly steps: readonly LoggedStep[];
}

/** A log whose steps are read from its file on each iteration, a batch at a time (openInputLog): a log of any size. */
export interface StreamedInputLog extends InputLogHeader {
  readonly steps: Iterable<LoggedStep>;
}

/**
 * What `end` means for a log of `steps` steps, as the end of a sentence
 * naming it: `is truncated: its last 893 of 40,029 bytes are not a complete
 * record batch (...); the 63 steps before them were read, the steps after
 * them are missing`.
 */
export function describeLogEnd(end: LogEnd, steps: number): string {
  const count = `${steps.toLocaleString("en-US")} step${steps === 1 ? "" : "s"}`;
  const rest = (end.fileBytes - end.readBytes).toLocaleString("en-US");
  const of = end.fileBytes.toLocaleString("en-US");
  switch (end.kind) {
    case "cut":
      return `is truncated: its last ${rest} of ${of} bytes are not a complete record batch (a write cut short by a crash, or a copy cut short); the ${count} before them were read, the steps after them are missing`;
    case "unclosed":
      return `has no end-of-stream marker: its server did not close it (killed, or still writing it); the ${count} of its complete batches were read, any logged after them are missing`;
    case "trailing":
      return `has ${rest} bytes after its ${end.format === "file" ? 'footer and closing "ARROW1"' : "end-of-stream marker"} (of ${of}): not part of the log, they were not read; its ${count} were read`;
  }
}

export interface ReplayResult {
  readonly steps: number;
  /** The fingerprint after the last step replayed. */
  readonly fingerprint: string;
  /** The first step whose fingerprint differs, with both; undefined when every step matched. */
  readonly divergence?: { readonly step: LoggedStep; readonly replayed: string };
  /** The outputs the replayed steps made (more than `failedAfterOutputs` when the failing run stopped inside its last step). */
  readonly outputs: number;
  /**
   * The steps the Exchange threw on whose fingerprint after them still
   * matched the log's (see replayInputLog), in order, with what was thrown;
   * empty when none threw.
   */
  readonly threw: readonly ThrownStep[];
}

/** A step the Exchange threw on, replayed past because its fingerprint matched. */
export interface ThrownStep {
  readonly step: LoggedStep;
  /** The error's class name and message ("InvariantError: ..."). */
  readonly error: string;
}

/** A log that cannot be read or replayed; the message names the file and what is wrong with it. */
export class InputLogError extends Error {
  override readonly name = "InputLogError";
}

/** How messages name a log. */
function named(path: string): string {
  return `input log "${path}"`;
}

/**
 * The log's schema and record batches: an Arrow IPC file (a simulated run)
 * read whole; an Arrow IPC stream (the live server, live-input-log.ts) read
 * up to its last complete record batch, since a killed server leaves the
 * batch it was writing cut short and no end-of-stream marker. A file is
 * written whole at the end of a run, so one cut short (no closing magic) is
 * refused. Either is checked (arrow-files.ts: its footer or message walk,
 * every message's metadata verified) before apache-arrow decodes it.
 *
 * A log of up to WHOLE_READ_MAX bytes (and a pipe) is read whole, in one
 * read. A larger stream is not: a live session's log grows without bound,
 * past the 2 GiB one read can hold. Its walk reads each message's lengths
 * and metadata through a window (file-bytes.ts), and `batches` decodes it a
 * chunk at a time, afresh on each iteration, checking that each chunk is
 * the one walked (filePasses), so a replay holds one batch of steps at
 * a time. (A file is a simulated run's, written from memory in one piece:
 * it is read whole at any size, and one above 2 GiB is refused as too large.)
 */
interface LogBatches {
  readonly schema: Schema;
  /** The record batches in order; each iteration reads them again. */
  readonly batches: Iterable<RecordBatch>;
  readonly end?: LogEnd;
}

/** How the log's bytes are read (openInputLog's options). */
export interface ReadOptions {
  /** The bytes of a stream read at a time from the file (default CHUNK_BYTES). */
  readonly chunkBytes?: number;
  /** A file of at most this many bytes is read whole, once (default WHOLE_READ_MAX). */
  readonly wholeReadMax?: number;
}

/**
 * A log of at most this many bytes is read whole, in one read, as a
 * snapshot: every pass decodes the bytes checked. A larger one (a live
 * session's) is walked and decoded from the file, a chunk at a time.
 */
const WHOLE_READ_MAX = 256 * 1024 * 1024;

function readLogBatches(path: string, options: ReadOptions = {}): LogBatches {
  const refuse = (problem: string, cause: unknown) => new InputLogError(`${named(path)} ${problem}`, { cause });
  const file = FileBytes.open(path, refuse);
  try {
    // A pipe (replay <(zcat log.gz)) has no positions: it is read once, whole, as a small file is.
    if (!file.isRegularFile || file.length <= (options.wholeReadMax ?? WHOLE_READ_MAX)) return readLogBytes(path, file.readWhole(refuse));
    if (startsWithArrowMagic(file.slice(0, ARROW_MAGIC.length))) return readLogFile(path, file.readWhole(refuse));
    return readLogStream(path, file, filePasses(path, options.chunkBytes ?? CHUNK_BYTES));
  } catch (error) {
    if (error instanceof FileChangedError) throw changed(path, error);
    throw error;
  } finally {
    file.close();
  }
}

/** A log's bytes, read whole: an Arrow IPC file or stream. */
function readLogBytes(path: string, bytes: Buffer): LogBatches {
  if (bytes.length === 0) throw new InputLogError(`${named(path)} is empty: not a shadowbook input log`);
  if (startsWithArrowMagic(bytes)) return readLogFile(path, bytes);
  const whole = bytesSource(bytes);
  return readLogStream(path, whole, memoryPasses(bytes));
}

/** The refusal of a log that changed while it was read (a file rewritten or cut under the reader). */
function changed(path: string, error: Error): InputLogError {
  return new InputLogError(`${named(path)} changed while being read: ${error.message}`, { cause: error });
}

/** An ArrowIpcError as the log's corruption; anything else as it is. */
function corrupt(path: string, error: unknown): never {
  if (error instanceof ArrowIpcError) throw new InputLogError(`${named(path)} is corrupt: ${error.message}`, { cause: error });
  throw error;
}

/**
 * An Arrow IPC file (a simulated run's log): its bytes, read whole. One
 * whose last bytes are not its closing "ARROW1" is either cut short
 * (refused: a file is whole or nothing) or a complete file with bytes
 * appended (arrow-files.ts arrowFileEnd finds its end): that one reads as
 * the file, and says the bytes after it were not read (LogEnd "trailing").
 */
function readLogFile(path: string, whole: Buffer): LogBatches {
  let bytes = whole;
  let end: LogEnd | undefined;
  if (whole.length < ARROW_FILE_BYTES_MIN || !endsWithArrowMagic(whole)) {
    const fileEnd = arrowFileEnd(whole);
    if (fileEnd < 0) {
      throw new InputLogError(`${named(path)} is truncated: an Arrow IPC file ends with its footer and "ARROW1", and this one (${whole.length.toLocaleString("en-US")} bytes) stops before them`);
    }
    bytes = whole.subarray(0, fileEnd);
    end = { kind: "trailing", fileBytes: whole.length, readBytes: fileEnd, format: "file" };
  }
  try {
    checkArrowFile(bytes);
  } catch (error) {
    return corrupt(path, error);
  }
  try {
    const table = tableFromIPC(bytes);
    return { schema: table.schema, batches: table.batches, ...(end === undefined ? {} : { end }) };
  } catch (error) {
    throw new InputLogError(`${named(path)} is corrupt: its Arrow IPC footer or a record batch cannot be read`, { cause: error });
  }
}

/** Passes over a stream's checked bytes [0, readTo). */
interface StreamPasses {
  /** One pass: the chunks a decoder reads, and what to close after it. */
  open(readTo: number): { chunks: Iterable<Uint8Array>; close(): void };
  /**
   * For bytes read again on each pass (a file): takes the SHA-256 of each
   * chunk of [0, readTo), which every pass after it must match, and returns
   * those bytes as a source that refuses any others (to walk them again).
   * Absent for bytes in memory, which cannot change.
   */
  seal?(readTo: number): ByteSource & { close(): void };
}

/** The bytes of a log read whole, in memory: every pass is the same bytes. */
function memoryPasses(bytes: Uint8Array): StreamPasses {
  return { open: (readTo) => ({ chunks: [bytes.subarray(0, readTo)], close: () => undefined }) };
}

/**
 * Passes over a large log's file, `chunkBytes` at a time, each opening it
 * again. `seal` takes each chunk's SHA-256 once the walk has found where the
 * complete batches end; the bytes are then walked again through a source
 * that checks every chunk it reads against them, and every pass checks its
 * chunks too, before apache-arrow decodes them: a file rewritten in place
 * meanwhile (a server restarted on the same --record directory truncates and
 * rewrites it) is refused as a file that changed, so the bytes replayed are
 * the bytes walked and checked.
 */
function filePasses(path: string, chunkBytes: number): StreamPasses {
  const digests: string[] = [];
  const openFile = () => FileBytes.open(path, (problem, cause) => new InputLogError(`${named(path)} ${problem}`, { cause }));
  const check = (index: number, chunk: Uint8Array): void => {
    if (digestOf(chunk) === digests[index]) return;
    const from = index * chunkBytes;
    throw new FileChangedError(`its bytes ${from.toLocaleString("en-US")}-${(from + chunk.length).toLocaleString("en-US")} are not those walked`);
  };
  return {
    seal(readTo) {
      const file = openFile();
      try {
        let index = 0;
        for (const chunk of file.chunks(0, readTo, chunkBytes)) digests[index++] = digestOf(chunk);
      } finally {
        file.close();
      }
      return sealedSource(openFile(), readTo, chunkBytes, check);
    },
    open(readTo) {
      const file = openFile();
      function* chunks(): Generator<Uint8Array, void, undefined> {
        let index = 0;
        for (const chunk of file.chunks(0, readTo, chunkBytes)) {
          check(index++, chunk);
          yield chunk;
        }
      }
      return { chunks: chunks(), close: () => file.close() };
    },
  };
}

/** A chunk's SHA-256, as hex. */
function digestOf(chunk: Uint8Array): string {
  return createHash("sha256").update(chunk).digest("hex");
}

/**
 * The bytes [0, length) of `file` as a ByteSource read a chunk at a time,
 * each chunk checked (`check`) when read; the last two are kept (a message
 * may straddle two).
 */
function sealedSource(file: FileBytes, length: number, chunkBytes: number, check: (index: number, chunk: Uint8Array) => void): ByteSource & { close(): void } {
  const kept = new Map<number, Uint8Array>();
  const chunk = (index: number): Uint8Array => {
    let bytes = kept.get(index);
    if (bytes === undefined) {
      const from = index * chunkBytes;
      bytes = file.read(from, Math.min(chunkBytes, length - from));
      check(index, bytes);
      if (kept.size >= 2) kept.delete(kept.keys().next().value!);
      kept.set(index, bytes);
    }
    return bytes;
  };
  return { ...chunkedSource(length, chunkBytes, chunk), close: () => file.close() };
}

/**
 * An Arrow IPC stream (a live server's log): walked through `source` (its
 * messages' metadata verified, its end told), then decoded from the chunks
 * of a pass, afresh on each iteration of `batches`.
 */
function readLogStream(path: string, source: ByteSource, passes: StreamPasses): LogBatches {
  let walk: StreamWalk;
  let lastBatch: LastBatch;
  try {
    ({ walk, lastBatch } = walkStreamTail(source));
  } catch (error) {
    return corrupt(path, error);
  }
  // A crash cuts a stream at its end; bytes damaged in the middle would silently drop every input after them.
  if (walk.stop === "damaged") throw new InputLogError(`${named(path)} is damaged: ${describeDamage(walk)}`);
  if (walk.completeBytes < 0) {
    if (walk.stop === "end-of-stream") throw new InputLogError(`${named(path)} has no Arrow schema: not a shadowbook input log`);
    // A stream's first message starts with the continuation marker: after it, the bytes are an Arrow stream cut short.
    if (walk.stop === "cut" && walk.continued) throw new InputLogError(`${named(path)} is truncated: its Arrow IPC stream ends before its schema does`);
    throw new InputLogError(`${named(path)} is not an Arrow IPC stream or file`);
  }
  // The complete messages (a batch cut short by a crash is left out), all verified.
  const readTo = unwrittenTail(source, walk, lastBatch) ? lastBatch.previousCompleteBytes : walk.completeBytes;
  const end = streamEnd(source, walk, readTo);
  if (passes.seal !== undefined) walkSealed(path, passes.seal(readTo), readTo);
  const opened = openStreamReader(path, passes, readTo);
  let schema: Schema;
  try {
    schema = opened.reader.schema;
  } finally {
    opened.close();
  }
  const batches: Iterable<RecordBatch> = {
    *[Symbol.iterator]() {
      const { reader, close } = openStreamReader(path, passes, readTo);
      let read = 0;
      try {
        for (;;) {
          let next: IteratorResult<RecordBatch>;
          try {
            next = reader.next();
          } catch (error) {
            if (error instanceof FileChangedError) throw changed(path, error);
            throw new InputLogError(`${named(path)} is corrupt: record batch ${read + 1} cannot be read`, { cause: error });
          }
          if (next.done === true) return;
          read++;
          yield next.value;
        }
      } finally {
        // apache-arrow's cancel does not reach the chunks' generator: the pass is closed here.
        close();
      }
    },
  };
  return { schema, batches, ...(end === undefined ? {} : { end }) };
}

/**
 * Walks the sealed bytes [0, readTo) again: they must be complete messages
 * up to readTo, as the first walk found them, or the file changed between
 * the two reads.
 */
function walkSealed(path: string, sealed: ByteSource & { close(): void }, readTo: number): void {
  try {
    let again: number;
    try {
      again = walkStreamTail(sealed).walk.completeBytes;
    } catch (error) {
      if (!(error instanceof ArrowIpcError)) throw error;
      again = -1;
    }
    if (again !== readTo) throw new InputLogError(`${named(path)} changed while being read: its messages are not those walked a moment before`);
  } finally {
    sealed.close();
  }
}

/** A reader of a pass over the stream's bytes [0, readTo), opened (its schema read), and what closes the pass. */
function openStreamReader(path: string, passes: StreamPasses, readTo: number): { reader: RecordBatchStreamReader; close(): void } {
  const { chunks, close } = passes.open(readTo);
  try {
    return { reader: RecordBatchStreamReader.from(chunks).open() as RecordBatchStreamReader, close };
  } catch (error) {
    close();
    if (error instanceof FileChangedError) throw changed(path, error);
    throw new InputLogError(`${named(path)} is corrupt: its schema cannot be read`, { cause: error });
  }
}

/**
 * Whether the zeros that end a stream that was not closed reach into the
 * buffers of its last complete record batch: the last pages of the commit a
 * crash cut short never reached the disk (the pages of a write need not
 * reach it in order, and the file's length may cover them), though its
 * lengths did. An input log's batch cannot end so: its last buffer is the
 * fingerprint column's text, ending with the last step's fingerprint, hex
 * digits (only the padding after it is zeros). The batch is then cut, as one
 * whose lengths ran past the end would be (its steps were never durable, so
 * never answered with --durability sync).
 */
function unwrittenTail(source: ByteSource, walk: StreamWalk, lastBatch: LastBatch): boolean {
  if (walk.stop === "end-of-stream" || lastBatch.previousCompleteBytes < 0) return false;
  return trailingZerosStart(source) < lastBatch.dataEnd;
}

/** How a stream read up to `readTo` (its complete batches) ends, when not as a closed log's does. */
function streamEnd(source: ByteSource, walk: StreamWalk, readTo: number): LogEnd | undefined {
  const fileBytes = source.length;
  if (walk.stop !== "end-of-stream") return { kind: readTo < fileBytes ? "cut" : "unclosed", fileBytes, readBytes: readTo };
  if (walk.markerEnd >= fileBytes) return undefined;
  // Zeros after a "marker" are what a crash leaves of a message whose first bytes alone reached the disk: a cut.
  if (zerosFrom(source, walk.markerEnd)) return { kind: "cut", fileBytes, readBytes: walk.completeBytes };
  return { kind: "trailing", fileBytes, readBytes: walk.markerEnd };
}

/** A recorded fingerprint: the first FINGERPRINT_PREFIX_DIGITS hex digits of the digest, or all 64. */
const FINGERPRINT_TEXT = new RegExp(`^(?:[0-9a-f]{${FINGERPRINT_PREFIX_DIGITS}}|[0-9a-f]{64})$`);

/** Text read from a log (a damaged cell, a metadata value), quoted, with every character outside printable ASCII escaped (and cut after 80). */
export function shown(text: string): string {
  const cut = text.length > 80 ? text.slice(0, 80) : text;
  const escaped = cut.replace(/[^\x20-\x7e]|["\\]/g, (char) => (char === '"' || char === "\\" ? `\\${char}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`));
  return `"${escaped}"${cut.length < text.length ? `... (${text.length.toLocaleString("en-US")} characters)` : ""}`;
}

/** The columns a replay reads, and their types. */
const COLUMNS: readonly { name: string; type: string; is: (type: DataType) => boolean }[] = [
  { name: "timeMicros", type: "Int64", is: (type) => DataType.isInt(type) && type.bitWidth === 64 },
  { name: "kind", type: "Utf8 or Dictionary<Utf8>", is: (type) => DataType.isUtf8(type) || (DataType.isDictionary(type) && DataType.isUtf8(type.dictionary)) },
  { name: "payload", type: "Utf8", is: (type) => DataType.isUtf8(type) },
  { name: "fingerprint", type: "Utf8", is: (type) => DataType.isUtf8(type) },
];

/** The index of a column the replay reads in the schema: present, of its type. */
function columnIndex(schema: Schema, path: string, name: string): number {
  const spec = COLUMNS.find((entry) => entry.name === name)!;
  const index = schema.fields.findIndex((entry) => entry.name === name);
  if (index < 0) throw new InputLogError(`${named(path)}: column "${name}" is missing: not a shadowbook input log`);
  const type = schema.fields[index]!.type;
  if (!spec.is(type)) throw new InputLogError(`${named(path)}: column "${name}" is ${String(type)}, expected ${spec.type}`);
  return index;
}

/**
 * Reads a log whole: its metadata and every step, in memory. For a log of
 * any size, openInputLog reads the same steps one batch at a time.
 */
export function readInputLog(path: string): InputLog {
  const { header, steps } = openLog(path, {});
  const list = [...steps];
  return { ...header, stepCount: list.length, steps: list };
}

/**
 * Opens a log for a replay of any size: its metadata, and its steps read
 * from the file again on each iteration of `steps`, one record batch at a
 * time (a replay holds one batch of steps, not the log); a log of at most
 * KEPT_STEPS_MAX steps is kept as read instead (one read, as readInputLog's). Every step is read
 * and checked once here (a damaged value, a payload that is not JSON),
 * so a log that cannot be replayed is refused before any step runs, as
 * readInputLog refuses it, and `stepCount` is known. A live log still
 * being written grows after its complete batches, which are all that is
 * read; a large log whose bytes read change between the reads (rewritten in
 * place, or cut) is refused as changed (filePasses).
 * `chunkBytes`: the bytes of a large live log read at a time (default 4 MiB);
 * `wholeReadMax`: a log of at most this many bytes is read whole (default WHOLE_READ_MAX, 256 MiB);
 * `keptStepsMax`: the most steps kept rather than read again (default KEPT_STEPS_MAX);
 * `onProgress`: called every PROGRESS_EVERY steps checked, with their count
 * and the last one (checking a log of gigabytes takes a while).
 */
export function openInputLog(path: string, options: ReadOptions & { keptStepsMax?: number; onProgress?: (checked: number, last: LoggedStep) => void } = {}): StreamedInputLog {
  const { header, steps } = openLog(path, options);
  let stepCount = 0;
  // A log of up to keptStepsMax steps (an hour of the default scenario has 55,008) is kept as checked, not read twice.
  const keptMax = options.keptStepsMax ?? KEPT_STEPS_MAX;
  let kept: LoggedStep[] | null = [];
  for (const step of steps) {
    if (kept !== null) {
      if (kept.length < keptMax) kept.push(step);
      else kept = null;
    }
    if (++stepCount % PROGRESS_EVERY === 0) options.onProgress?.(stepCount, step);
  }
  return { ...header, stepCount, steps: kept ?? steps };
}

/** The most steps openInputLog keeps in memory rather than reads again (some tens of MB of parsed inputs). */
const KEPT_STEPS_MAX = 100_000;

/** The log's metadata (checked), and its steps as an iterable that reads and checks them from its batches. */
function openLog(path: string, options: ReadOptions): { header: Omit<InputLogHeader, "stepCount">; steps: Iterable<LoggedStep> } {
  const { schema, batches, end } = readLogBatches(path, options);
  const meta = schema.metadata;
  const need = (key: string): string => {
    const value = meta.get(key);
    if (value === undefined) throw new InputLogError(`${named(path)}: schema metadata "${key}" is missing: not a shadowbook input log`);
    return value;
  };
  const integer = (key: string): number => {
    const text = need(key);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new InputLogError(`${named(path)}: schema metadata "${key}" "${text}" must be a non-negative integer`);
    return Number(text);
  };
  const format = need("shadowbook.format");
  if (format !== INPUT_LOG_FORMAT) throw new InputLogError(`${named(path)}: format "${format}" is not ${INPUT_LOG_FORMAT}`);
  const scenario = need("shadowbook.scenario");
  const seed = integer("shadowbook.seed");
  const startMicros = integer("shadowbook.startMicros");
  const signatures = need("shadowbook.signatures");
  const configJson = need("shadowbook.config");
  const failedAfterOutputs = meta.has(FAILED_AFTER_OUTPUTS_KEY) ? integer(FAILED_AFTER_OUTPUTS_KEY) : undefined;
  const code = meta.get(CODE_KEY);
  const replayCode = meta.get(REPLAY_CODE_KEY);
  const command = meta.get(COMMAND_KEY);
  const node = meta.get(NODE_KEY);
  let config: unknown;
  try {
    config = configFromJson(configJson);
  } catch (error) {
    throw new InputLogError(`${named(path)}: schema metadata "shadowbook.config" is not valid JSON`, { cause: error });
  }
  const outline = configOutlineProblem(config);
  if (outline !== undefined) throw new InputLogError(`${named(path)}: schema metadata "shadowbook.config" is not an exchange configuration: ${outline}`);
  const columns: StepColumns = {
    time: columnIndex(schema, path, "timeMicros"),
    kind: columnIndex(schema, path, "kind"),
    payload: columnIndex(schema, path, "payload"),
    fingerprint: columnIndex(schema, path, "fingerprint"),
  };
  const header = {
    path,
    scenario,
    seed,
    startMicros,
    signatures,
    configJson,
    ...(code === undefined ? {} : { code }),
    ...(replayCode === undefined ? {} : { replayCode }),
    ...(command === undefined ? {} : { command }),
    ...(node === undefined ? {} : { node }),
    ...(end === undefined ? {} : { end }),
    ...(failedAfterOutputs === undefined ? {} : { failedAfterOutputs }),
  };
  return { header, steps: { [Symbol.iterator]: () => stepsOf(path, batches, columns) } };
}

/** Where the columns a replay reads are in the log's schema. */
interface StepColumns {
  readonly time: number;
  readonly kind: number;
  readonly payload: number;
  readonly fingerprint: number;
}

/** The steps of `batches`, numbered from 0 across them, each checked as it is read. */
function* stepsOf(path: string, batches: Iterable<RecordBatch>, columns: StepColumns): Generator<LoggedStep, void, undefined> {
  let index = 0;
  for (const batch of batches) {
    const time = batch.getChildAt(columns.time)!;
    const kind = batch.getChildAt(columns.kind)!;
    const payload = batch.getChildAt(columns.payload)!;
    const fingerprint = batch.getChildAt(columns.fingerprint)!;
    const rows = batch.numRows;
    for (let row = 0; row < rows; row++, index++) {
      let step: LoggedStep;
      // `index` says which step failed.
      try {
        step = readStep(path, index, (time.get(row) as bigint | number), kind.get(row) as string, payload.get(row) as string | null, fingerprint.get(row) as string | null);
      } catch (error) {
        if (error instanceof InputLogError) throw error;
        if (error instanceof SyntaxError) throw new InputLogError(`${named(path)}: the payload of step ${index} is not valid JSON`, { cause: error });
        throw new InputLogError(`${named(path)} is corrupt: step ${index} cannot be read`, { cause: error });
      }
      yield step;
    }
  }
}

/** One step from its row's values. */
function readStep(path: string, index: number, time: bigint | number, kind: string, text: string | null, recorded: string | null): LoggedStep {
  // Not a digest's digits: the log's bytes were damaged (else replay would call it a divergence, and print the damage).
  if (recorded === null || !FINGERPRINT_TEXT.test(recorded)) {
    const what = recorded === null ? "missing (null)" : shown(recorded);
    throw new InputLogError(`${named(path)} is corrupt: the fingerprint of step ${index} is ${what}, not ${FINGERPRINT_PREFIX_DIGITS} or 64 hex digits`);
  }
  return { index, timeMicros: Number(time), kind, input: text === null ? undefined : (JSON.parse(text) as ExchangeInput), fingerprint: recorded };
}

/**
 * The Exchange of the log's configuration, seed and start. A configuration
 * the Exchange refuses is named as the log's; one that makes it fail inside
 * (a field missing deep in it: a TypeError) is named without the
 * JavaScript detail.
 */
function exchangeOf(log: InputLogHeader): Exchange {
  try {
    return new Exchange({ config: configFromJson(log.configJson), startMicros: log.startMicros, seed: log.seed });
  } catch (error) {
    const why = error instanceof TypeError ? "a field it needs is missing or of the wrong type" : (error as Error).message;
    throw new InputLogError(`${named(log.path)}: schema metadata "shadowbook.config" is not a valid exchange configuration: ${why}`, { cause: error });
  }
}

/**
 * Replays `log` (up to `untilMicros`, inclusive, when given) and compares
 * every step's fingerprint. The log of a failed run (`failedAfterOutputs`)
 * is fingerprinted up to its failure: the step it failed in runs to its end,
 * its outputs after the failure are counted but not hashed.
 *
 * A step the Exchange throws on (a bug: an InvariantError, say) is an
 * incident worth replaying, not a reason to stop: the live server answers
 * that request with an internal error and goes on with the Exchange as the
 * throw left it, and a failed run's log ends with it. So when the
 * fingerprint after the step still matches the log's (the recording made
 * the same outputs up to the throw, so it threw there too, or the step
 * makes no output), the replay goes on from the same state, and the step
 * is listed in `threw`. When it does not match, the step cannot be
 * replayed (InputLogError, naming the step and the error): a payload the
 * Exchange cannot take (a TypeError) is named as such.
 *
 * `onProgress` is called every PROGRESS_EVERY steps with the steps replayed
 * and the last one (a progress line for a long log: cli/replay.ts).
 */
export function replayInputLog(log: InputLog | StreamedInputLog, options: ReplayOptions = {}): ReplayResult & { exchange: Exchange } {
  const exchange = exchangeOf(log);
  const fingerprint = new Fingerprint();
  const hashed = log.failedAfterOutputs ?? Infinity;
  let outputs = 0;
  // Detached at the end: the Exchange may go on (replay --serve) without hashing what follows.
  const detach = exchange.subscribe((output) => {
    if (outputs++ < hashed) fingerprint.update(output);
  });
  const steps = options.steps ?? log.steps;
  const threw: ThrownStep[] = [];
  let replayed = 0;
  let digest = fingerprint.digest();
  try {
    for (const step of steps) {
      if (options.untilMicros !== undefined && step.timeMicros > options.untilMicros) break;
      const error = runStep(exchange, step);
      replayed++;
      if (replayed % PROGRESS_EVERY === 0) options.onProgress?.(replayed, step);
      digest = fingerprint.digest();
      const matched = digest.startsWith(step.fingerprint);
      if (error !== undefined) {
        if (!matched) throw cannotReplay(log, step, error);
        threw.push({ step, error: errorText(error) });
      }
      if (!matched) return { steps: replayed, fingerprint: digest, divergence: { step, replayed: digest }, outputs, threw, exchange };
    }
    return { steps: replayed, fingerprint: digest, outputs, threw, exchange };
  } finally {
    detach();
  }
}

export interface ReplayOptions {
  /** Replay the steps at or before this time only. */
  readonly untilMicros?: number;
  /** These steps instead of the log's. */
  readonly steps?: Iterable<LoggedStep>;
  /** Called every PROGRESS_EVERY steps. */
  readonly onProgress?: (replayed: number, last: LoggedStep) => void;
}

/** How often replayInputLog calls `onProgress`, in steps. */
export const PROGRESS_EVERY = 1_024;

/** Runs one step; what it threw, or undefined. */
function runStep(exchange: Exchange, step: LoggedStep): unknown {
  try {
    if (step.input === undefined) exchange.advanceTo(step.timeMicros);
    else exchange.handle(step.input, step.timeMicros);
    return undefined;
  } catch (error) {
    return error ?? new Error(`step ${step.index} threw ${String(error)}`);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : `thrown ${typeof error}: ${String(error)}`;
}

function cannotReplay(log: InputLogHeader, step: LoggedStep, error: unknown): InputLogError {
  const why = error instanceof TypeError ? `its payload is not a valid ${step.kind} input (SHADOWBOOK_DEBUG=1 shows where it failed)` : error instanceof Error ? error.message : errorText(error);
  return new InputLogError(`${named(log.path)}: step ${step.index} (${step.kind} at ${step.timeMicros} µs) cannot be replayed: ${why}`, { cause: error });
}
