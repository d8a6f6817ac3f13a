/**
 * Market-data recordings, format "md-recording/1": every frame a streaming
 * client received (spec 4.4), with its receive time, as an Arrow IPC
 * *stream* written one record batch at a time, so that a recorder killed
 * mid-way leaves a readable prefix (`readMdRecording` reads the complete
 * batches of a truncated file).
 *
 * Columns:
 * | column      | type                 | meaning                                                         |
 * |-------------|----------------------|-----------------------------------------------------------------|
 * | recvMicros  | Int64                | receive time, µs since the Unix epoch (wall clock for           |
 * |             |                      | `shadowbook record`, virtual time inside a simulation)          |
 * | kind        | Dictionary<Utf8>     | subscribed, data (channel_data), error, gap (see below)         |
 * | channel     | Dictionary<Utf8>     | the frame's channel; null for a gap and an error without one    |
 * | timestampMs | Int64                | a channel_data frame's `timestamp`; null otherwise              |
 * | frame       | Binary               | the frame's UTF-8 bytes exactly as received; for a gap the JSON |
 * |             |                      | `{"code":1012,"reason":"..."}` of the close that was seen       |
 *
 * A `gap` row says the connection was lost at recvMicros: the rows after it
 * belong to a new session, and a channel's rows are a continuation again
 * from its next `subscribed` row (depth's SNAPSHOT and orderChanges'
 * snapshot arrive in the `subscribed` frame's `contents`).
 *
 * Schema metadata: `shadowbook.format` ("md-recording/1"),
 * `shadowbook.source` (the URL, or "sim:<scenario> seed <n>"),
 * `shadowbook.channels` (JSON array of the channels subscribed),
 * `shadowbook.startMicros`.
 *
 * Writing costs a few typed-array stores and one byte copy per row
 * (src/record/columns.ts); a batch is cut every `batchRows` rows (or
 * BATCH_BYTES_MAX frame bytes) and appended to the file at once, and the
 * frame column's buffers are reused from batch to batch.
 *
 * Reading (`readMdRecording`) never reads the file whole (Node reads at
 * most 2 GiB into one Buffer, and a day of a busy feed passes it): the checks
 * walk its messages through a window (file-bytes.ts), and apache-arrow
 * decodes its complete batches from chunks read in order (CHUNK_BYTES each).
 * The recording keeps what it decoded: its rows' columns, and the frames in
 * the chunks they were decoded from (or in the bytes given): `frame(i)` is a
 * view into them, not a copy (copy it to keep it after the recording is
 * dropped).
 * A file without the end-of-stream marker reads as its complete batches and
 * says so (`truncated`); one with bytes after the marker reads as its
 * stream and says so (`trailing`: they are not read), as an input log's
 * replay does (src/record/replay.ts, LogEnd "trailing"); a file that is no md-recording/1 stream (missing,
 * a directory, empty, random bytes, an Arrow IPC file such as an input log,
 * another format, cut inside its schema, a message whose metadata is
 * damaged) is refused with an MdRecordingError that names the file and the
 * rule. The checks (arrow-files.ts) verify every message's metadata before
 * apache-arrow decodes it, and read the schema once, never the rows.
 *
 * `scanEnvelope` reads `type`, `channel` and `timestamp` from a frame's bytes
 * without parsing its payload: it walks the top-level keys and stops as soon
 * as the envelope is known (for channel_data: type, timestamp and channel,
 * which shadowbook sends before `data`), skipping other values without
 * decoding them; a channel seen lately costs a byte comparison, not a new
 * string. Whatever it is not sure of (escapes in a key, a
 * non-integer timestamp, a value of an unexpected type, malformed JSON) falls
 * back to JSON.parse. Duplicate top-level keys are not supported (the scan
 * takes the first, JSON.parse the last); no server sends them.
 */
import { closeSync, openSync, writevSync } from "node:fs";
import {
  AsyncByteQueue,
  DataType,
  Field,
  Int64,
  makeData,
  RecordBatch,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  type Data,
} from "apache-arrow";
import { ARROW_MAGIC, ArrowIpcError, bytesSource, checkArrowFile, chunkedSource, describeDamage, startsWithArrowMagic, walkStream, zerosFrom, type ByteSource, type StreamStop, type StreamWalk } from "./arrow-files.ts";
import { BinaryColumn, DictColumn, I64Column } from "./columns.ts";
import { CHUNK_BYTES, FileBytes, FileChangedError } from "./file-bytes.ts";
import { INPUT_LOG_FORMAT } from "./input-log.ts";
import { readWholeFile } from "./read-file.ts";

export const MD_RECORDING_FORMAT = "md-recording/1";
export type MdRowKind = "subscribed" | "data" | "error" | "gap";
/** The kinds, in dictionary order. */
export const MD_ROW_KINDS: readonly MdRowKind[] = ["subscribed", "data", "error", "gap"];

/** Default rows per record batch. */
export const MD_BATCH_ROWS_DEFAULT = 65_536;
/** A batch is also cut once its frames hold this many bytes (Binary offsets are Int32). */
export const BATCH_BYTES_MAX = 64 * 1024 * 1024;

const KIND_DICTIONARY_ID = 0;
const CHANNEL_DICTIONARY_ID = 1;
/** End-of-stream marker: continuation token, then a zero metadata length. */
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

export interface MdRecordingMeta {
  source: string;
  channels: readonly string[];
  startMicros: number;
}

/** The JSON of a gap row's frame. */
export function gapFrame(code: number, reason: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ code, reason }));
}

/** Collects the bytes the Arrow writer emits; the recording writes them to the file after each message group. */
class ChunkSink extends AsyncByteQueue {
  chunks: Uint8Array[] = [];

  override write(value: Parameters<AsyncByteQueue["write"]>[0]): void {
    // The Arrow writer hands Uint8Arrays and Int32Arrays (markers, lengths).
    const view = value as ArrayBufferView;
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    if (bytes.byteLength > 0) this.chunks.push(bytes);
  }

  override close(): void {}

  take(): Uint8Array[] {
    const chunks = this.chunks;
    this.chunks = [];
    return chunks;
  }
}

/**
 * Appends rows to an md-recording/1 file. The schema is written at once (an
 * empty recording is readable); each batch is appended when it is cut
 * (`batchRows` rows, BATCH_BYTES_MAX frame bytes, or `flush()`); `close()`
 * writes the rest and the end-of-stream marker.
 */
export class MdRecordingWriter {
  readonly path: string;
  private readonly schema: Schema;
  private readonly recv = new I64Column("recvMicros");
  private readonly kinds = new DictColumn("kind", MD_ROW_KINDS, KIND_DICTIONARY_ID);
  private readonly channels: DictColumn;
  private readonly timestamps = new I64Column("timestampMs");
  /** Its buffers are reused batch after batch: each batch is written to the file before the next row is pushed. */
  private readonly frames = new BinaryColumn("frame", 1 << 20, { reuseBuffers: true });
  private readonly batchRows: number;
  private readonly writer = new RecordBatchStreamWriter();
  private readonly sink = new ChunkSink();
  private fd: number | undefined;
  private lastChannel: string | undefined;
  private lastChannelCode = 0;
  private pending = 0;
  private total = 0;
  private written = 0;

  constructor(path: string, meta: MdRecordingMeta, options: { batchRows?: number } = {}) {
    this.batchRows = options.batchRows ?? MD_BATCH_ROWS_DEFAULT;
    if (!(Number.isSafeInteger(this.batchRows) && this.batchRows > 0)) throw new RangeError(`batchRows must be a positive integer, got ${this.batchRows}`);
    if (!Number.isSafeInteger(meta.startMicros)) throw new RangeError(`startMicros must be a safe integer, got ${meta.startMicros}`);
    this.path = path;
    this.channels = new DictColumn("channel", meta.channels, CHANNEL_DICTIONARY_ID);
    const metadata = new Map([
      ["shadowbook.format", MD_RECORDING_FORMAT],
      ["shadowbook.source", meta.source],
      ["shadowbook.channels", JSON.stringify(meta.channels)],
      ["shadowbook.startMicros", String(meta.startMicros)],
    ]);
    this.schema = new Schema(
      [
        new Field("recvMicros", new Int64(), false),
        new Field("kind", this.kinds.field.type, false),
        new Field("channel", this.channels.field.type, true),
        new Field("timestampMs", new Int64(), true),
        new Field("frame", this.frames.field.type, true),
      ],
      metadata,
    );
    this.fd = openSync(path, "w");
    this.writer.reset(this.sink, this.schema);
    this.drain();
  }

  /** Rows appended so far (written or pending). */
  get rows(): number {
    return this.total;
  }

  /** Bytes written to the file so far. */
  get bytesWritten(): number {
    return this.written;
  }

  append(recvMicros: number, kind: MdRowKind, channel: string | null, timestampMs: number | null, frame: Uint8Array | null): void {
    if (this.fd === undefined) throw new Error(`md recording "${this.path}" is closed`);
    if (!Number.isSafeInteger(recvMicros)) throw new RangeError(`recvMicros must be a safe integer, got ${recvMicros}`);
    const kindCode = kind === "data" ? 1 : kind === "subscribed" ? 0 : kind === "error" ? 2 : kind === "gap" ? 3 : -1;
    if (kindCode < 0) throw new RangeError(`kind "${String(kind)}" is not one of ${MD_ROW_KINDS.join(", ")}`);
    this.recv.push(recvMicros);
    this.kinds.pushCode(kindCode);
    if (channel === null) this.channels.pushNull();
    else {
      // Frames come in runs of a few channels: the last one's code saves the dictionary lookup.
      if (channel !== this.lastChannel) {
        this.lastChannel = channel;
        this.lastChannelCode = this.channels.codeOf(channel);
      }
      this.channels.pushCode(this.lastChannelCode);
    }
    if (timestampMs === null) this.timestamps.pushNull();
    else {
      if (!Number.isSafeInteger(timestampMs)) throw new RangeError(`timestampMs must be a safe integer or null, got ${timestampMs}`);
      this.timestamps.push(timestampMs);
    }
    if (frame === null) this.frames.pushNull();
    else this.frames.push(frame);
    this.total++;
    if (++this.pending >= this.batchRows || this.frames.byteLength >= BATCH_BYTES_MAX) this.flush();
  }

  /** Cuts the pending rows into a batch and appends it to the file. */
  flush(): void {
    if (this.fd === undefined || this.pending === 0) return;
    const length = this.pending;
    this.pending = 0;
    const children: Data[] = [this.recv.cut(), this.kinds.cut(), this.channels.cut(), this.timestamps.cut(), this.frames.cut()];
    const batch = new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children }));
    this.writer.write(batch);
    this.drain();
  }

  /** Flushes, writes the end-of-stream marker and closes the file (again: nothing). */
  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    this.sink.chunks.push(END_OF_STREAM);
    this.drain();
    closeSync(this.fd);
    this.fd = undefined;
  }

  private drain(): void {
    let chunks = this.sink.take();
    while (chunks.length > 0) {
      let wrote = writevSync(this.fd!, chunks);
      this.written += wrote;
      // A short write (rare, for regular files) continues with what is left.
      const rest: Uint8Array[] = [];
      for (const chunk of chunks) {
        if (wrote >= chunk.byteLength) wrote -= chunk.byteLength;
        else {
          rest.push(chunk.subarray(wrote));
          wrote = 0;
        }
      }
      chunks = rest;
    }
  }
}

// -- scanning a frame's envelope ---------------------------------------------------------

/** What a frame's top-level envelope says. */
export interface Envelope {
  readonly type: string;
  /** null when the frame has no `channel` (or it is not a string). */
  readonly channel: string | null;
  /** `timestamp` when it is an integer, else null. */
  readonly timestampMs: number | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

const decoder = new TextDecoder("utf-8", { fatal: false });

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Strings seen as envelope values (channels, unusual types), by a hash of
 * their bytes, so that a frame's channel costs no new string. Bounded: past
 * STRING_CACHE_MAX entries, new strings are decoded and not kept.
 */
const STRING_CACHE_MAX = 4_096;
const stringCache = new Map<number, { bytes: Uint8Array; text: string }[]>();
let stringCacheSize = 0;

function sameBytes(a: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== bytes[start + i]) return false;
  return true;
}

/** The printable-ASCII string bytes[start, end) (no escapes), from the cache when seen before. */
function asciiString(bytes: Uint8Array, start: number, end: number, hash: number): string {
  const bucket = stringCache.get(hash);
  if (bucket !== undefined) {
    for (const entry of bucket) if (sameBytes(entry.bytes, bytes, start, end)) return entry.text;
  }
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
  if (stringCacheSize < STRING_CACHE_MAX) {
    const entry = { bytes: bytes.slice(start, end), text };
    if (bucket === undefined) stringCache.set(hash, [entry]);
    else bucket.push(entry);
    stringCacheSize++;
  }
  return text;
}

/**
 * The scan's state: one module-level cursor (the scan is synchronous and
 * never re-entered), so a frame costs no allocation but its result.
 */
let at = 0;
/** The string value read last by readString. */
let text = "";

function skipSpace(bytes: Uint8Array): number {
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (!isSpace(byte)) return byte;
    at++;
  }
  return -1;
}

/** At a key's `"`: which key (1 type, 2 channel, 3 timestamp, 0 another), or -1 when unsure (escapes, unterminated). */
function readKey(bytes: Uint8Array): number {
  const start = at + 1;
  let end = start;
  while (end < bytes.length) {
    const byte = bytes[end]!;
    if (byte === QUOTE) break;
    if (byte === BACKSLASH) return -1;
    end++;
  }
  if (end >= bytes.length) return -1;
  at = end + 1;
  const length = end - start;
  // "type", "channel", "timestamp": told apart by length and checked byte by byte.
  if (length === 4) return bytes[start] === 0x74 && bytes[start + 1] === 0x79 && bytes[start + 2] === 0x70 && bytes[start + 3] === 0x65 ? 1 : 0;
  if (length === 7) {
    return bytes[start] === 0x63 && bytes[start + 1] === 0x68 && bytes[start + 2] === 0x61 && bytes[start + 3] === 0x6e && bytes[start + 4] === 0x6e && bytes[start + 5] === 0x65 && bytes[start + 6] === 0x6c ? 2 : 0;
  }
  if (length === 9) {
    return bytes[start] === 0x74 &&
      bytes[start + 1] === 0x69 &&
      bytes[start + 2] === 0x6d &&
      bytes[start + 3] === 0x65 &&
      bytes[start + 4] === 0x73 &&
      bytes[start + 5] === 0x74 &&
      bytes[start + 6] === 0x61 &&
      bytes[start + 7] === 0x6d &&
      bytes[start + 8] === 0x70
      ? 3
      : 0;
  }
  return 0;
}

/**
 * The strings read last (a frame's channel is usually one of a few): tried
 * first, by their length (the closing quote must follow) and bytes, before
 * any hashing. Only plain strings (printable ASCII, no escapes) are kept, so
 * equal bytes followed by a quote are that string.
 */
const RECENT_MAX = 16;
const recent: { bytes: Uint8Array; text: string }[] = [];
let recentNext = 0;

function recentString(bytes: Uint8Array, start: number): string | undefined {
  for (let k = 0; k < recent.length; k++) {
    const entry = recent[k]!;
    const known = entry.bytes;
    const end = start + known.length;
    if (bytes[end] !== QUOTE) continue;
    let i = 0;
    while (i < known.length && known[i] === bytes[start + i]) i++;
    if (i === known.length) {
      at = end + 1;
      return entry.text;
    }
  }
  return undefined;
}

/** At a value's `"`: reads it into `text`; false when malformed. Escapes and non-ASCII bytes are decoded exactly (JSON.parse of the literal). */
function readString(bytes: Uint8Array): boolean {
  const start = at + 1;
  const seen = recentString(bytes, start);
  if (seen !== undefined) {
    text = seen;
    return true;
  }
  let end = start;
  let hash = 0;
  let plain = true;
  while (end < bytes.length) {
    const byte = bytes[end]!;
    if (byte === QUOTE) break;
    if (byte === BACKSLASH) {
      plain = false;
      end += 2;
      continue;
    }
    if (byte > 0x7e || byte < 0x20) plain = false;
    hash = (Math.imul(hash, 31) + byte) & 0x3fffffff;
    end++;
  }
  if (end >= bytes.length) return false;
  at = end + 1;
  if (plain) {
    text = asciiString(bytes, start, end, hash);
    const entry = { bytes: bytes.slice(start, end), text };
    if (recent.length < RECENT_MAX) recent.push(entry);
    else recent[recentNext] = entry;
    recentNext = (recentNext + 1) % RECENT_MAX;
    return true;
  }
  try {
    text = JSON.parse(decoder.decode(bytes.subarray(start - 1, end + 1))) as string;
  } catch {
    return false;
  }
  return true;
}

/** The known types without a string decode. */
function readType(bytes: Uint8Array): string | undefined {
  const start = at + 1;
  // "channel_data" + closing quote
  if (bytes[start + 12] === QUOTE && bytes[start] === 0x63 && bytes[start + 7] === 0x5f && bytes[start + 8] === 0x64 && bytes[start + 11] === 0x61) {
    if (sameBytes(TYPE_CHANNEL_DATA, bytes, start, start + 12)) {
      at = start + 13;
      return "channel_data";
    }
  }
  return readString(bytes) ? text : undefined;
}

const TYPE_CHANNEL_DATA = new TextEncoder().encode("channel_data");

function skipString(bytes: Uint8Array): boolean {
  let end = at + 1;
  while (end < bytes.length) {
    const byte = bytes[end]!;
    if (byte === QUOTE) {
      at = end + 1;
      return true;
    }
    end += byte === BACKSLASH ? 2 : 1;
  }
  return false;
}

/** Skips one JSON value without decoding it; false when it cannot be skipped. */
function skipValue(bytes: Uint8Array, first: number): boolean {
  if (first === QUOTE) return skipString(bytes);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    while (at < bytes.length) {
      const byte = bytes[at]!;
      if (byte === QUOTE) {
        if (!skipString(bytes)) return false;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) {
          at++;
          return true;
        }
      }
      at++;
    }
    return false;
  }
  // A number or a literal: up to the next delimiter.
  const start = at;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
    at++;
  }
  return at > start;
}

/** An integer of at most 15 digits followed by a delimiter, else NaN (the caller falls back). */
function readInteger(bytes: Uint8Array): number {
  let end = at;
  let negative = false;
  if (bytes[end] === MINUS) {
    negative = true;
    end++;
  }
  const start = end;
  let value = 0;
  while (end < bytes.length) {
    const byte = bytes[end]!;
    if (byte < ZERO || byte > NINE) break;
    value = value * 10 + (byte - ZERO);
    end++;
  }
  const digits = end - start;
  if (digits === 0 || digits > 15 || (digits > 1 && bytes[start] === ZERO)) return Number.NaN;
  const next = end < bytes.length ? bytes[end]! : -1;
  if (!(next === COMMA || next === CLOSE_BRACE || isSpace(next))) return Number.NaN;
  at = end;
  return negative ? -value : value;
}

/**
 * The envelope of a streaming frame (see the module comment), or null when
 * the frame is not a JSON object with a string `type`.
 */
export function scanEnvelope(bytes: Uint8Array): Envelope | null {
  const scanned = scanFast(bytes);
  return scanned === undefined ? parseEnvelope(bytes) : scanned;
}

/** The targeted scan; undefined when it is not sure (the caller parses). */
function scanFast(bytes: Uint8Array): Envelope | undefined {
  at = 0;
  if (skipSpace(bytes) !== OPEN_BRACE) return undefined;
  at++;
  let type: string | undefined;
  let channel: string | null = null;
  let timestampMs: number | null = null;
  let sawChannel = false;
  let sawTimestamp = false;
  for (;;) {
    let next = skipSpace(bytes);
    if (next === CLOSE_BRACE) break;
    if (next !== QUOTE) return undefined;
    const key = readKey(bytes);
    if (key < 0) return undefined;
    if (skipSpace(bytes) !== COLON) return undefined;
    at++;
    const first = skipSpace(bytes);
    if (key === 1) {
      if (first !== QUOTE || type !== undefined) return undefined;
      type = readType(bytes);
      if (type === undefined) return undefined;
    } else if (key === 2) {
      if (first !== QUOTE || sawChannel || !readString(bytes)) return undefined;
      channel = text;
      sawChannel = true;
    } else if (key === 3) {
      if (sawTimestamp) return undefined;
      const value = readInteger(bytes);
      if (Number.isNaN(value)) return undefined;
      timestampMs = value;
      sawTimestamp = true;
    } else if (!skipValue(bytes, first)) return undefined;
    if (type !== undefined && sawChannel && (sawTimestamp || type !== "channel_data")) {
      // Known: only channel_data carries a timestamp (other frames' `timestamp`, if any, is not recorded).
      return { type, channel, timestampMs: type === "channel_data" ? timestampMs : null };
    }
    next = skipSpace(bytes);
    if (next === COMMA) {
      at++;
      continue;
    }
    if (next === CLOSE_BRACE) break;
    return undefined;
  }
  if (type === undefined) return undefined;
  // The whole object was read: make sure nothing but whitespace follows.
  at++;
  if (skipSpace(bytes) !== -1) return undefined;
  return { type, channel, timestampMs: type === "channel_data" ? timestampMs : null };
}

/** The envelope by JSON.parse (the scan's fallback). */
export function parseEnvelope(bytes: Uint8Array): Envelope | null {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const fields = value as Record<string, unknown>;
  const type = fields["type"];
  if (typeof type !== "string") return null;
  const channel = typeof fields["channel"] === "string" ? fields["channel"] : null;
  const timestamp = fields["timestamp"];
  const timestampMs = type === "channel_data" && typeof timestamp === "number" && Number.isSafeInteger(timestamp) ? timestamp : null;
  return { type, channel, timestampMs };
}

/** The row kind of a frame type, or null for frames that are not recorded (pong, unsubscribed, unknown). */
export function kindOfType(type: string): MdRowKind | null {
  switch (type) {
    case "channel_data":
      return "data";
    case "subscribed":
      return "subscribed";
    case "error":
      return "error";
    default:
      return null;
  }
}

// -- reading -----------------------------------------------------------------------------

/**
 * Where a recording read by `readMdRecording` stopped short: it has no
 * end-of-stream marker (its recorder was killed, or is still writing). The
 * rows read are those of the complete batches before `completeBytes`.
 */
export interface MdTruncation {
  /** The file's size in bytes. */
  readonly fileBytes: number;
  /** The end of the last complete record batch (or of the schema): what follows was cut short or cannot be read. */
  readonly completeBytes: number;
}

export interface MdRecording {
  readonly source: string;
  readonly channels: readonly string[];
  readonly startMicros: number;
  readonly length: number;
  /** Set when the file has no end-of-stream marker: the rows are those of its complete batches. */
  readonly truncated?: MdTruncation;
  /** Set when bytes follow the end-of-stream marker (describeTrailing): they were not read; the rows are all of the stream's. */
  readonly trailing?: MdTrailing;
  recvMicros(i: number): number;
  kind(i: number): MdRowKind;
  channel(i: number): string | null;
  timestampMs(i: number): number | null;
  frame(i: number): Uint8Array | null;
  frameText(i: number): string | null;
}

/** A file that cannot be read as an md-recording/1 (the message names the file and says why). */
export class MdRecordingError extends Error {
  override readonly name = "MdRecordingError";
}

/**
 * Where a closed recording's stream ends before its file does: bytes follow
 * its end-of-stream marker. They are not part of the recording and are not
 * read; the rows are all of the stream's. (Zeros after the marker are not
 * this: they are what a crash leaves of a message whose first bytes alone
 * reached the disk, and read as `truncated`.)
 */
export interface MdTrailing {
  /** The file's size in bytes. */
  readonly fileBytes: number;
  /** The byte after the end-of-stream marker: the bytes from there on were not read. */
  readonly markerEnd: number;
}

/** How an Arrow IPC stream's bytes end: the complete messages, and whether an end-of-stream marker follows them. */
export interface StreamExtent {
  /** The end of the last complete schema or record batch message. */
  readonly completeBytes: number;
  /** An end-of-stream marker follows the complete messages (a closed recording). */
  readonly endOfStream: boolean;
  /** With `endOfStream`: the byte after the marker (bytes from there on are not part of the stream); else -1. */
  readonly markerEnd: number;
}

/** Why a stream's first message is no Arrow schema, by where walkStream stopped. */
const FIRST_MESSAGE_PROBLEMS: Partial<Record<StreamStop, string>> = {
  length: "its first bytes are not the length of an Arrow message",
  "not-schema": "its first message is not an Arrow schema",
  "body-length": "its first message has a negative or impossible body length",
  "end-of-stream": "it ends before its schema",
};

/**
 * Walks the messages of an Arrow IPC stream (their metadata, verified, not
 * the batches' bodies: arrow-files.ts), in memory or read by position (a
 * ByteSource such as a FileBytes: the file is not read whole). Throws an
 * MdRecordingError, naming the file as `name`, when the bytes are not an
 * Arrow IPC stream, end before the schema does, or hold a message whose
 * metadata is damaged.
 */
export function scanStream(input: Uint8Array | ByteSource, name = "md recording"): StreamExtent {
  const source = input instanceof Uint8Array ? bytesSource(input) : input;
  if (source.length === 0) throw new MdRecordingError(`${name} is not a market-data recording: the file is empty`);
  const notStream = (why: string) => new MdRecordingError(`${name} is not a market-data recording: it is not an Arrow IPC stream (${why})`);
  // The first message must be a schema: anything else is not a stream at all (a short prefix of one is a truncated recording).
  const continued = source.slice(0, 4).every((byte) => byte === 0xff);
  if (!continued && source.length < 4) throw notStream("it is too short to hold an Arrow message");
  let walk: StreamWalk;
  try {
    walk = walkStream(source);
  } catch (error) {
    if (!(error instanceof ArrowIpcError)) throw error;
    // Without the continuation marker, a first "message" that fails the checks is most likely no Arrow at all.
    if (error.messageIndex === 0 && !continued) throw notStream(FIRST_MESSAGE_PROBLEMS["not-schema"]!);
    throw new MdRecordingError(`${name} is damaged: ${error.message}`);
  }
  // Read as truncated, a recording damaged in the middle would silently lose everything after the damage.
  if (walk.stop === "damaged") throw new MdRecordingError(`${name} is damaged: ${describeDamage(walk)}`);
  if (walk.completeBytes < 0) {
    const problem = FIRST_MESSAGE_PROBLEMS[walk.stop];
    if (problem !== undefined) throw notStream(problem);
    throw new MdRecordingError(`${name} is truncated before its schema ends (${source.length} bytes)`);
  }
  const endOfStream = walk.stop === "end-of-stream";
  return { completeBytes: walk.completeBytes, endOfStream, markerEnd: endOfStream ? walk.markerEnd : -1 };
}

/**
 * The end of the last complete message group of an Arrow IPC stream: after
 * the last whole record batch (or the schema), so a file cut anywhere reads
 * as its complete batches. Throws when not even the schema is complete.
 */
export function completeStreamPrefix(bytes: Uint8Array | ByteSource): number {
  return scanStream(bytes).completeBytes;
}

/** What the schema metadata says a file is: `shadowbook.format "input-log/1" (a run's input log)`. */
function describeKind(metadata: Map<string, string>): string {
  const format = metadata.get("shadowbook.format");
  if (format === INPUT_LOG_FORMAT) return `shadowbook.format "${format}" (a run's input log)`;
  if (format !== undefined) return `shadowbook.format "${format}"`;
  const table = metadata.get("shadowbook.table");
  if (table !== undefined) return `shadowbook.table "${table}" and no shadowbook.format`;
  return "no shadowbook.format";
}

/**
 * The refusal of an Arrow IPC file (md-recording/1 is a stream), saying what
 * kind of file it is when its schema tells. `read` gives the file's bytes (a
 * file is read whole for this; one that cannot be, too large, is an Arrow
 * IPC file whose schema cannot be read).
 */
function arrowFileError(read: () => Uint8Array, name: string): MdRecordingError {
  let metadata: Map<string, string> | undefined;
  try {
    const bytes = read();
    // Verified first: apache-arrow reads the footer, its schema and the dictionaries without checking them.
    checkArrowFile(bytes);
    const reader = RecordBatchReader.from(bytes);
    reader.open();
    metadata = reader.schema.metadata;
  } catch {
    metadata = undefined;
  }
  if (metadata === undefined) return new MdRecordingError(`${name} is not a market-data recording: it is an Arrow IPC file whose schema cannot be read, not an md-recording/1 stream`);
  if (metadata.get("shadowbook.format") === MD_RECORDING_FORMAT) {
    return new MdRecordingError(`${name} is not a market-data recording as written: it is an Arrow IPC file, and ${MD_RECORDING_FORMAT} is an Arrow IPC stream`);
  }
  return new MdRecordingError(`${name} is not a market-data recording: it is an Arrow IPC file with ${describeKind(metadata)}, not an ${MD_RECORDING_FORMAT} stream`);
}

function readBytes(path: string, name: string): Uint8Array {
  return readWholeFile(path, (problem, cause) => new MdRecordingError(`${name} ${problem}`, { cause }));
}

/** The schema's columns and their types, in order (the reader relies on them). */
const COLUMNS: readonly { name: string; type: string; is: (type: DataType) => boolean }[] = [
  { name: "recvMicros", type: "Int64", is: (type) => DataType.isInt(type) && type.bitWidth === 64 },
  { name: "kind", type: "Dictionary<Utf8>", is: (type) => DataType.isDictionary(type) && DataType.isUtf8(type.dictionary) },
  { name: "channel", type: "Dictionary<Utf8>", is: (type) => DataType.isDictionary(type) && DataType.isUtf8(type.dictionary) },
  { name: "timestampMs", type: "Int64", is: (type) => DataType.isInt(type) && type.bitWidth === 64 },
  { name: "frame", type: "Binary", is: (type) => DataType.isBinary(type) },
];

/** Checks an md-recording/1 schema: format, columns, metadata. */
function checkSchema(schema: Schema, name: string): void {
  const metadata = schema.metadata;
  const format = metadata.get("shadowbook.format");
  if (format !== MD_RECORDING_FORMAT) {
    const found = format === undefined ? "shadowbook.format is missing" : `shadowbook.format is "${format}"${format === INPUT_LOG_FORMAT ? " (a run's input log)" : ""}`;
    throw new MdRecordingError(`${name} is not a market-data recording: ${found}, expected "${MD_RECORDING_FORMAT}"`);
  }
  for (const [index, column] of COLUMNS.entries()) {
    const field = schema.fields[index];
    if (field?.name !== column.name) throw new MdRecordingError(`${name} is not a valid ${MD_RECORDING_FORMAT} file: column ${index} is "${String(field?.name)}", expected "${column.name}"`);
    if (!column.is(field.type)) throw new MdRecordingError(`${name} is not a valid ${MD_RECORDING_FORMAT} file: column "${column.name}" is ${String(field.type)}, expected ${column.type}`);
  }
  let channels: unknown;
  try {
    channels = JSON.parse(metadata.get("shadowbook.channels") ?? "[]");
  } catch {
    channels = undefined;
  }
  if (!(Array.isArray(channels) && channels.every((channel) => typeof channel === "string"))) {
    throw new MdRecordingError(`${name} is not a valid ${MD_RECORDING_FORMAT} file: shadowbook.channels "${String(metadata.get("shadowbook.channels"))}" is not a JSON array of strings`);
  }
  const startMicros = metadata.get("shadowbook.startMicros");
  if (startMicros !== undefined && !Number.isSafeInteger(Number(startMicros))) {
    throw new MdRecordingError(`${name} is not a valid ${MD_RECORDING_FORMAT} file: shadowbook.startMicros "${startMicros}" is not an integer`);
  }
}

export interface ReadMdRecordingOptions {
  /**
   * How messages name the recording (default `md recording "<path>"`, or
   * `md recording` for bytes), e.g. `marketData.recording "eth.arrow"`.
   */
  readonly name?: string;
  /**
   * For a path: the bytes of each read that feeds the decoder (default
   * CHUNK_BYTES, 4 MiB; a positive integer). The frames are views into these
   * chunks, so the recording holds them while it is kept.
   */
  readonly chunkBytes?: number;
}

/**
 * Reads an md-recording/1 file (or its bytes); a truncated file reads as its
 * complete batches, with `truncated` set; bytes after the end-of-stream
 * marker are not read, and `trailing` says how many. Throws an MdRecordingError, naming
 * the file and the rule, for a file that is missing, a directory, empty, not
 * an Arrow IPC stream (random bytes; an Arrow IPC *file*, such as an input
 * log), of another format, cut before its schema ends, or damaged.
 *
 * A file is never read whole (it may pass the 2 GiB one read can hold): it
 * is walked through a window and decoded from chunks of `chunkBytes`, and
 * closed before this returns or throws. (A FIFO or a device, which cannot
 * be read by position, is read whole, up to 2 GiB.)
 */
export function readMdRecording(pathOrBytes: string | Uint8Array, options: ReadMdRecordingOptions = {}): MdRecording {
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  if (!(Number.isSafeInteger(chunkBytes) && chunkBytes > 0)) throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  if (typeof pathOrBytes !== "string") {
    const bytes = pathOrBytes;
    const name = options.name ?? "md recording";
    if (startsWithArrowMagic(bytes)) throw arrowFileError(() => bytes, name);
    const extent = scanStream(bytes, name);
    // The complete messages, without copying them: the reader ends where the bytes end, marker or not.
    return decodeRecording(bytes.subarray(0, extent.completeBytes), bytesSource(bytes), extent, name);
  }
  const path = pathOrBytes;
  const name = options.name ?? `md recording "${path}"`;
  const refuse = (problem: string, cause: unknown) => new MdRecordingError(`${name} ${problem}`, { cause });
  const file = FileBytes.open(path, refuse);
  try {
    // A FIFO or a device (`<(zcat recording.arrow.gz)`, /dev/stdin from a pipe) has no size to read by position: read whole.
    if (!file.isRegularFile) return readMdRecording(file.readWhole(refuse), { ...options, name });
    if (startsWithArrowMagic(file.slice(0, ARROW_MAGIC.length))) throw arrowFileError(() => readBytes(path, name), name);
    const extent = scanStream(file, name);
    const chunks = [...file.chunks(0, extent.completeBytes, chunkBytes)];
    // The bytes to decode are walked again, in memory, before apache-arrow reads them: a file rewritten since the
    // walk above (a recorder restarted on the same path) is refused, not decoded unchecked.
    let again: StreamExtent | undefined;
    try {
      again = scanStream(chunkedSource(extent.completeBytes, chunkBytes, (index) => chunks[index]!), name);
    } catch {
      again = undefined;
    }
    if (again?.completeBytes !== extent.completeBytes) throw new MdRecordingError(`${name} changed while being read: its messages are not those walked a moment before`);
    return decodeRecording(chunks, file, extent, name);
  } catch (error) {
    if (error instanceof FileChangedError) throw new MdRecordingError(`${name} changed while being read: ${error.message}`, { cause: error });
    throw error;
  } finally {
    // apache-arrow does not close the chunks' generator when it stops early (a refusal): the file is closed here.
    file.close();
  }
}

/**
 * Decodes a stream's complete messages (`stream`: its bytes [0,
 * extent.completeBytes), whole or in chunks) into a recording; `source` is
 * the whole file, for how it ends (recordingEnd).
 */
function decodeRecording(stream: Uint8Array | Iterable<Uint8Array>, source: ByteSource, extent: StreamExtent, name: string): MdRecording {
  let reader: RecordBatchReader;
  try {
    reader = RecordBatchReader.from(stream);
    reader.open();
  } catch (error) {
    if (error instanceof MdRecordingError) throw error;
    throw new MdRecordingError(`${name} is not a market-data recording: its Arrow schema cannot be read`);
  }
  const schema = reader.schema;
  checkSchema(schema, name);
  const batches: RecordBatch[] = [];
  try {
    for (const batch of reader) batches.push(batch);
  } catch (error) {
    if (error instanceof MdRecordingError) throw error;
    throw new MdRecordingError(`${name} is damaged: record batch ${batches.length + 1} cannot be read`);
  }
  const { truncated, trailing } = recordingEnd(source, extent);
  try {
    return new MdRecordingView(schema.metadata, batches, truncated, trailing);
  } catch (error) {
    if (error instanceof MdRecordingError) throw new MdRecordingError(`${name} is not a valid ${MD_RECORDING_FORMAT} file: ${error.message}`);
    throw new MdRecordingError(`${name} is damaged: its record batches do not match its schema`);
  }
}

/**
 * How a recording's bytes end when not as a closed one's do, as the input
 * log's replay tells it (src/record/replay.ts, streamEnd): no end-of-stream
 * marker, or zeros after one (a crash), is `truncated` (its complete
 * batches are read); other bytes after the marker are `trailing` (not part
 * of the stream, not read, and said: a file with more in it than its rows
 * is not passed over in silence).
 */
function recordingEnd(source: ByteSource, extent: StreamExtent): { truncated?: MdTruncation; trailing?: MdTrailing } {
  const fileBytes = source.length;
  if (!extent.endOfStream) return { truncated: { fileBytes, completeBytes: extent.completeBytes } };
  if (extent.markerEnd >= fileBytes) return {};
  // Read a window at a time: a crash's zeros may run to gigabytes.
  if (zerosFrom(source, extent.markerEnd)) return { truncated: { fileBytes, completeBytes: extent.completeBytes } };
  return { trailing: { fileBytes, markerEnd: extent.markerEnd } };
}

/**
 * What bytes after a recording's end-of-stream marker mean, as the end of a
 * sentence naming it: `has 8 bytes after its end-of-stream marker (of
 * 40,037): not part of the recording, they were not read; its 2,000 rows
 * were read`.
 */
export function describeTrailing(trailing: MdTrailing, rows: number): string {
  const rest = (trailing.fileBytes - trailing.markerEnd).toLocaleString("en-US");
  const of = trailing.fileBytes.toLocaleString("en-US");
  return `has ${rest} bytes after its end-of-stream marker (of ${of}): not part of the recording, they were not read; its ${rows.toLocaleString("en-US")} row${rows === 1 ? "" : "s"} were read`;
}

/**
 * What a truncated recording lost, as the end of a sentence naming it:
 * `is truncated: it ends inside a record batch (its last 1,927,792 bytes are
 * incomplete), leaving no complete row`.
 */
export function describeTruncation(truncation: MdTruncation, rows: number): string {
  const cut = truncation.fileBytes - truncation.completeBytes;
  const complete = rows === 0 ? "no complete row" : `${rows.toLocaleString("en-US")} complete row${rows === 1 ? "" : "s"}`;
  if (cut > 0) return `is truncated: it ends inside a record batch (its last ${cut.toLocaleString("en-US")} bytes are incomplete), leaving ${complete}`;
  return `is incomplete: it has no end-of-stream marker (its recorder was not closed), leaving ${complete}`;
}

function isValid(data: Data, index: number): boolean {
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return true;
  const bit = data.offset + index;
  return ((data.nullBitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
}

function int64At(data: Data, index: number): number {
  return Number((data.values as BigInt64Array)[data.offset + index]!);
}

/** Global ids of a batch's dictionary entries, interned in `names`. */
function dictionaryIds(data: Data, names: string[], ids: Map<string, number>): Int32Array {
  const dictionary = data.dictionary!;
  const out = new Int32Array(dictionary.length);
  for (let code = 0; code < dictionary.length; code++) {
    const text = dictionary.get(code) as string;
    let id = ids.get(text);
    if (id === undefined) {
      id = names.length;
      names.push(text);
      ids.set(text, id);
    }
    out[code] = id;
  }
  return out;
}

class MdRecordingView implements MdRecording {
  readonly source: string;
  readonly channels: readonly string[];
  readonly startMicros: number;
  readonly length: number;
  readonly truncated?: MdTruncation;
  readonly trailing?: MdTrailing;
  private readonly recv: Float64Array;
  private readonly kinds: Uint8Array;
  /** Index into channelNames, -1 for null. */
  private readonly channelIds: Int32Array;
  private readonly channelNames: string[] = [];
  /** NaN for null. */
  private readonly timestamps: Float64Array;
  /** Frames stay in their batches (views into the chunks decoded, or the bytes given): the first row of each batch, its Data. */
  private readonly batchStarts: number[] = [];
  private readonly frameData: Data[] = [];
  private lastBatch = 0;

  constructor(metadata: Map<string, string>, batches: readonly RecordBatch[], truncated: MdTruncation | undefined, trailing: MdTrailing | undefined) {
    if (truncated !== undefined) this.truncated = truncated;
    if (trailing !== undefined) this.trailing = trailing;
    this.source = metadata.get("shadowbook.source") ?? "";
    this.channels = JSON.parse(metadata.get("shadowbook.channels") ?? "[]") as string[];
    this.startMicros = Number(metadata.get("shadowbook.startMicros") ?? "0");
    let length = 0;
    for (const batch of batches) length += batch.numRows;
    this.length = length;
    this.recv = new Float64Array(length);
    this.kinds = new Uint8Array(length);
    this.channelIds = new Int32Array(length);
    this.timestamps = new Float64Array(length);
    const channelIds = new Map<string, number>();
    let row = 0;
    for (const batch of batches) {
      const recv = batch.getChildAt(0)!.data[0]!;
      const kind = batch.getChildAt(1)!.data[0]!;
      const channel = batch.getChildAt(2)!.data[0]!;
      const timestamp = batch.getChildAt(3)!.data[0]!;
      this.batchStarts.push(row);
      this.frameData.push(batch.getChildAt(4)!.data[0]!);
      const kindCodes = kind.dictionary!.toArray() as string[];
      const kindIds = kindCodes.map((text) => {
        const index = MD_ROW_KINDS.indexOf(text as MdRowKind);
        if (index < 0) throw new MdRecordingError(`kind ${JSON.stringify(text)} is not one of ${MD_ROW_KINDS.join(", ")}`);
        return index;
      });
      const channelMap = dictionaryIds(channel, this.channelNames, channelIds);
      const kindValues = kind.values as Int32Array;
      const channelValues = channel.values as Int32Array;
      for (let i = 0; i < batch.numRows; i++, row++) {
        this.recv[row] = int64At(recv, i);
        this.kinds[row] = kindIds[kindValues[kind.offset + i]!]!;
        this.channelIds[row] = isValid(channel, i) ? channelMap[channelValues[channel.offset + i]!]! : -1;
        this.timestamps[row] = isValid(timestamp, i) ? int64At(timestamp, i) : Number.NaN;
      }
    }
  }

  recvMicros(i: number): number {
    this.check(i);
    return this.recv[i]!;
  }

  kind(i: number): MdRowKind {
    this.check(i);
    return MD_ROW_KINDS[this.kinds[i]!]!;
  }

  channel(i: number): string | null {
    this.check(i);
    const id = this.channelIds[i]!;
    return id < 0 ? null : this.channelNames[id]!;
  }

  timestampMs(i: number): number | null {
    this.check(i);
    const value = this.timestamps[i]!;
    return Number.isNaN(value) ? null : value;
  }

  frame(i: number): Uint8Array | null {
    this.check(i);
    const batch = this.batchOf(i);
    const data = this.frameData[batch]!;
    const index = i - this.batchStarts[batch]!;
    if (!isValid(data, index)) return null;
    const offsets = data.valueOffsets as Int32Array;
    const at = data.offset + index;
    return (data.values as Uint8Array).subarray(offsets[at]!, offsets[at + 1]!);
  }

  frameText(i: number): string | null {
    const bytes = this.frame(i);
    return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  }

  private check(i: number): void {
    if (!(Number.isInteger(i) && i >= 0 && i < this.length)) throw new RangeError(`row ${i} is out of range [0, ${this.length})`);
  }

  /** The batch holding row i (the last one found first: reads are mostly in order). */
  private batchOf(i: number): number {
    const starts = this.batchStarts;
    let batch = this.lastBatch;
    if (i >= starts[batch]! && (batch + 1 === starts.length || i < starts[batch + 1]!)) return batch;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= i) low = mid;
      else high = mid - 1;
    }
    batch = low;
    this.lastBatch = batch;
    return batch;
  }
}
