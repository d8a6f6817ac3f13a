/**
 * Columnar building blocks for the Arrow IPC recorders: plain growable
 * column arrays (typed arrays for numbers, validity bitmaps for nulls, one
 * byte buffer plus offsets for strings) cut into an Arrow RecordBatch every
 * `batchRows` rows with `makeData`. No per-row Arrow builders, no
 * `vectorFromArray` over row objects: a row costs a few typed-array stores.
 *
 * Column kinds:
 * - `f64`: Float64 (analysis values: prices, quantities, money); null allowed;
 * - `i32`, `i64`: Int32, Int64 (account ids, sequence numbers, counts); null allowed;
 * - `time`: Timestamp(ms, "UTC"), never null;
 * - `bool`: Bool; null allowed;
 * - `utf8`: Utf8 (ids: orderId, fillId); null allowed;
 * - `binary`: Binary (raw bytes, e.g. a frame exactly as received); null allowed;
 * - `dict`: Dictionary<Int32, Utf8> for low-cardinality text (symbols, agent
 *   names, enums). The vocabulary is seeded with the known values (the
 *   run's markets and agents, the spec's enums) so that codes are the same
 *   in every file and run; an unexpected value is appended. A batch cut
 *   after such a value arrived carries it as an Arrow dictionary delta,
 *   which a stream writer (live input log, market-data recording) writes
 *   as is; a ColumnTable, whose batches stay in memory until `toIPC()`,
 *   writes the whole vocabulary once instead, because some readers of the
 *   file format refuse deltas (polars: "delta dictionary batches not
 *   supported"). A ColumnTable streamed to its file (`streamTo`) cannot:
 *   its batches are on disk, so a value that arrives after the first batch
 *   is written as a delta there too (valid in the file format; read by
 *   apache-arrow, pyarrow, arrow-rs, not polars). Seed a streamed table's
 *   vocabularies completely, as the run outputs do (run-outputs.ts).
 *
 * A table (`ColumnTable`) owns its columns, counts rows (`endRow()` after a
 * row's values were pushed, one per column) and either keeps the sealed
 * batches until `toIPC()` writes the Arrow IPC file format, or, once
 * `streamTo(path)` was called, writes each batch to its file as it is
 * sealed and the footer at `close()` (the same bytes as `toIPC()` when no
 * dictionary grew after the first batch), so that a long run's outputs
 * take one batch of memory per table, not the run's.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import {
  AsyncByteQueue,
  Binary,
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  RecordBatchFileWriter,
  Schema,
  Struct,
  TimestampMillisecond,
  Utf8,
  Vector,
  type Data,
  type DataType,
} from "apache-arrow";

export const DEFAULT_BATCH_ROWS = 65_536;

const INITIAL_CAPACITY = 1_024;

/** A column of one Arrow field: pushes values, and cuts the pushed values into one Data. */
export interface Column {
  readonly name: string;
  readonly field: Field;
  /** Values pushed since the last cut. */
  readonly length: number;
  /** The pushed values as Data (the column restarts empty). */
  cut(): Data;
}

/** A validity bitmap that is only materialized once a null is pushed. */
class Validity {
  private bits: Uint8Array | null = null;
  nulls = 0;

  /** Marks row `index` null (rows before it valid). */
  setNull(index: number, capacity: number): void {
    if (this.bits === null) {
      this.bits = new Uint8Array(Math.max(capacity, INITIAL_CAPACITY) >> 3 | 0).fill(0xff);
    }
    this.ensure(index);
    this.bits[index >> 3]! &= ~(1 << (index & 7));
    this.nulls++;
  }

  /** Rows after the last null must read valid: the bitmap starts all ones, grown ones stay ones. */
  private ensure(index: number): void {
    const bits = this.bits!;
    const need = (index >> 3) + 1;
    if (need <= bits.length) return;
    const grown = new Uint8Array(Math.max(need, bits.length * 2)).fill(0xff);
    grown.set(bits);
    this.bits = grown;
  }

  /** The bitmap for `length` rows (undefined when no null), and restarts. */
  cut(length: number): { nullBitmap?: Uint8Array; nullCount: number } {
    const bits = this.bits;
    const nullCount = this.nulls;
    this.bits = null;
    this.nulls = 0;
    if (bits === null || nullCount === 0) return { nullCount: 0 };
    const bytes = (length + 7) >> 3;
    const out = new Uint8Array(bytes).fill(0xff);
    out.set(bits.subarray(0, Math.min(bytes, bits.length)));
    return { nullBitmap: out, nullCount };
  }
}

function grow<T extends Float64Array | Int32Array | Uint8Array>(array: T, need: number): T {
  if (need <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(Math.max(need, array.length * 2));
  next.set(array as never);
  return next;
}

export class F64Column implements Column {
  readonly field: Field;
  private values = new Float64Array(INITIAL_CAPACITY);
  private readonly validity = new Validity();
  length = 0;

  constructor(readonly name: string) {
    this.field = new Field(name, new Float64(), true);
  }

  push(value: number): void {
    if (this.length === this.values.length) this.values = grow(this.values, this.length + 1);
    this.values[this.length++] = value;
  }

  /** A wire decimal as a float; undefined is null. */
  pushDecimal(text: string | undefined): void {
    if (text === undefined) this.pushNull();
    else this.push(Number(text));
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.values.length);
    this.push(0);
  }

  cut(): Data {
    const length = this.length;
    const data = this.values.slice(0, length);
    this.values = new Float64Array(Math.max(INITIAL_CAPACITY, length));
    this.length = 0;
    return makeData({ type: new Float64(), length, data, ...this.validity.cut(length) });
  }
}

export class I32Column implements Column {
  readonly field: Field;
  private values = new Int32Array(INITIAL_CAPACITY);
  private readonly validity = new Validity();
  length = 0;

  constructor(readonly name: string) {
    this.field = new Field(name, new Int32(), true);
  }

  push(value: number): void {
    if (this.length === this.values.length) this.values = grow(this.values, this.length + 1);
    this.values[this.length++] = value;
  }

  pushOptional(value: number | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.values.length);
    this.push(0);
  }

  cut(): Data {
    const length = this.length;
    const data = this.values.slice(0, length);
    this.values = new Int32Array(Math.max(INITIAL_CAPACITY, length));
    this.length = 0;
    return makeData({ type: new Int32(), length, data, ...this.validity.cut(length) });
  }
}

/**
 * Int64 (or Timestamp ms when `time`), pushed as safe-integer numbers and
 * stored as little-endian 32-bit halves, so a push allocates no BigInt; the
 * cut hands Arrow the same bytes as a BigInt64Array.
 */
export class I64Column implements Column {
  readonly field: Field;
  private words = new Int32Array(INITIAL_CAPACITY * 2);
  private readonly validity = new Validity();
  private readonly type: Int64 | TimestampMillisecond;
  length = 0;

  constructor(
    readonly name: string,
    time = false,
  ) {
    this.type = time ? new TimestampMillisecond("UTC") : new Int64();
    this.field = new Field(name, this.type, !time);
  }

  push(value: number): void {
    const at = this.length * 2;
    if (at + 2 > this.words.length) this.words = grow(this.words, at + 2);
    // Two's complement halves of a safe integer: low word = value mod 2^32, high word = floor(value / 2^32).
    const high = Math.floor(value / 4_294_967_296);
    this.words[at] = value - high * 4_294_967_296;
    this.words[at + 1] = high;
    this.length++;
  }

  pushOptional(value: number | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.words.length >> 1);
    this.push(0);
  }

  cut(): Data {
    const length = this.length;
    const data = new BigInt64Array(this.words.slice(0, length * 2).buffer);
    this.words = new Int32Array(Math.max(INITIAL_CAPACITY, length) * 2);
    this.length = 0;
    return makeData({ type: this.type as DataType, length, data, ...this.validity.cut(length) } as never);
  }
}

/** Timestamp(ms, UTC) column of milliseconds since the Unix epoch. */
export class TimeColumn extends I64Column {
  constructor(name: string) {
    super(name, true);
  }
}

export class BoolColumn implements Column {
  readonly field: Field;
  private bits = new Uint8Array(INITIAL_CAPACITY >> 3);
  private readonly validity = new Validity();
  length = 0;

  constructor(readonly name: string) {
    this.field = new Field(name, new Bool(), true);
  }

  push(value: boolean): void {
    const index = this.length++;
    if ((index >> 3) >= this.bits.length) this.bits = grow(this.bits, (index >> 3) + 1);
    if (value) this.bits[index >> 3]! |= 1 << (index & 7);
  }

  pushOptional(value: boolean | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.bits.length << 3);
    this.push(false);
  }

  cut(): Data {
    const length = this.length;
    const data = this.bits.slice(0, (length + 7) >> 3);
    this.bits = new Uint8Array(Math.max(INITIAL_CAPACITY, length) >> 3);
    this.length = 0;
    return makeData({ type: new Bool(), length, data, ...this.validity.cut(length) });
  }
}

const encoder = new TextEncoder();

/** UTF-8 bytes and offsets, ASCII copied byte by byte (ids are ASCII digits). */
class StringBytes {
  bytes = new Uint8Array(INITIAL_CAPACITY * 8);
  offsets = new Int32Array(INITIAL_CAPACITY + 1);
  count = 0;

  push(text: string): void {
    if (this.count + 1 >= this.offsets.length) this.offsets = grow(this.offsets, this.count + 2);
    let at = this.offsets[this.count]!;
    const n = text.length;
    if (at + n * 3 > this.bytes.length) this.bytes = grow(this.bytes, at + n * 3);
    const bytes = this.bytes;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        ascii = false;
        break;
      }
      bytes[at + i] = code;
    }
    if (ascii) at += n;
    else at += encoder.encodeInto(text, bytes.subarray(at)).written;
    this.offsets[++this.count] = at;
  }

  cut(): { valueOffsets: Int32Array; data: Uint8Array; length: number } {
    const length = this.count;
    const end = this.offsets[length]!;
    const result = { valueOffsets: this.offsets.slice(0, length + 1), data: this.bytes.slice(0, end), length };
    this.offsets = new Int32Array(Math.max(INITIAL_CAPACITY, length) + 1);
    this.bytes = new Uint8Array(Math.max(INITIAL_CAPACITY * 8, end));
    this.count = 0;
    return result;
  }
}

/** Utf8 data of a list of strings (dictionaries, small tables). */
export function utf8Data(strings: readonly string[]): Data<Utf8> {
  const bytes = new StringBytes();
  for (const text of strings) bytes.push(text);
  const { valueOffsets, data, length } = bytes.cut();
  return makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets, data });
}

export class Utf8Column implements Column {
  readonly field: Field;
  private readonly strings = new StringBytes();
  private readonly validity = new Validity();

  constructor(readonly name: string) {
    this.field = new Field(name, new Utf8(), true);
  }

  get length(): number {
    return this.strings.count;
  }

  push(text: string): void {
    this.strings.push(text);
  }

  pushOptional(text: string | undefined): void {
    if (text === undefined) this.pushNull();
    else this.strings.push(text);
  }

  pushNull(): void {
    this.validity.setNull(this.strings.count, this.strings.offsets.length);
    this.strings.push("");
  }

  cut(): Data {
    const { valueOffsets, data, length } = this.strings.cut();
    return makeData({ type: new Utf8(), length, valueOffsets, data, ...this.validity.cut(length) });
  }
}

/**
 * Binary: one byte buffer plus Int32 offsets, a push is one `set` of the
 * value's bytes. `byteLength` (bytes pending) lets a writer cut a batch
 * before its offsets near 2^31. The cut hands the filled part of the buffer
 * to Arrow without copying it and starts a fresh buffer of about the same
 * size; with `reuseBuffers`, it hands out views of the column's own buffers
 * instead, valid until the next push: for a writer that serializes each
 * batch before it pushes again (allocating and zeroing tens of MB per batch
 * costs more than the rows themselves).
 */
export class BinaryColumn implements Column {
  readonly field: Field;
  private bytes: Uint8Array;
  private offsets = new Int32Array(INITIAL_CAPACITY + 1);
  private readonly validity = new Validity();
  private readonly reuseBuffers: boolean;
  length = 0;

  constructor(
    readonly name: string,
    initialBytes = INITIAL_CAPACITY * 64,
    options: { reuseBuffers?: boolean } = {},
  ) {
    this.field = new Field(name, new Binary(), true);
    this.bytes = new Uint8Array(initialBytes);
    this.reuseBuffers = options.reuseBuffers === true;
  }

  /** Bytes pushed since the last cut. */
  get byteLength(): number {
    return this.offsets[this.length]!;
  }

  push(value: Uint8Array): void {
    const index = this.length;
    if (index + 1 >= this.offsets.length) this.offsets = grow(this.offsets, index + 2);
    const at = this.offsets[index]!;
    const end = at + value.length;
    if (end > 2_147_483_647) throw new RangeError(`column "${this.name}" holds more than 2^31 - 1 bytes: cut it sooner`);
    if (end > this.bytes.length) this.bytes = grow(this.bytes, end);
    this.bytes.set(value, at);
    this.offsets[index + 1] = end;
    this.length = index + 1;
  }

  pushOptional(value: Uint8Array | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.offsets.length);
    const index = this.length;
    if (index + 1 >= this.offsets.length) this.offsets = grow(this.offsets, index + 2);
    this.offsets[index + 1] = this.offsets[index]!;
    this.length = index + 1;
  }

  cut(): Data {
    const length = this.length;
    const end = this.offsets[length]!;
    const data = this.bytes.subarray(0, end);
    if (this.reuseBuffers) {
      this.length = 0;
      return makeData({ type: new Binary(), length, valueOffsets: this.offsets.subarray(0, length + 1), data, ...this.validity.cut(length) });
    }
    const valueOffsets = this.offsets.slice(0, length + 1);
    // The next batch is likely about as big: a quarter of headroom saves growing (copying) it near its end.
    this.bytes = new Uint8Array(Math.max(INITIAL_CAPACITY * 64, end + (end >> 2)));
    this.length = 0; // offsets[0] stays 0; later offsets are written as values are pushed
    return makeData({ type: new Binary(), length, valueOffsets, data, ...this.validity.cut(length) });
  }
}

/**
 * Dictionary<Int32, Utf8>: an index per row into a vocabulary shared by every batch.
 *
 * Its Arrow dictionary id is numbered within the file, never by a process-wide
 * counter, so that a file's bytes do not depend on what the process wrote
 * before: either given here (a writer that builds its schema itself, such as
 * the input log's and the market-data recording's), or left out and assigned
 * by the ColumnTable the column is put in (0, 1, 2... in schema order).
 */
export class DictColumn implements Column {
  private type: Dictionary<Utf8, Int32> | undefined;
  private fieldOf: Field | undefined;
  private readonly codes = new Map<string, number>();
  private readonly vocabulary: string[] = [];
  /** Dictionary chunks written so far: a batch's dictionary is their concatenation (later ones are deltas). */
  private readonly chunks: Data<Utf8>[] = [];
  private covered = 0;
  private indices = new Int32Array(INITIAL_CAPACITY);
  private readonly validity = new Validity();
  length = 0;

  constructor(
    readonly name: string,
    seed: Iterable<string> = [],
    /** The Arrow dictionary id, unique within the file; default: assigned by the ColumnTable that holds the column. */
    dictionaryId?: number,
  ) {
    if (dictionaryId !== undefined) this.assignDictionaryId(dictionaryId);
    for (const value of seed) this.code(value);
  }

  /** The Arrow dictionary id (undefined until given or assigned by a table). */
  get dictionaryId(): number | undefined {
    return this.type?.id;
  }

  /** Gives the column its dictionary id (once: a ColumnTable does it for a column made without one). */
  assignDictionaryId(id: number): void {
    if (this.type !== undefined) throw new Error(`column "${this.name}" already has dictionary id ${this.type.id}`);
    if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`column "${this.name}": dictionary id ${id} must be an integer of at least 0`);
    this.type = new Dictionary(new Utf8(), new Int32(), id);
    this.fieldOf = new Field(this.name, this.type, true);
  }

  get field(): Field {
    if (this.fieldOf === undefined) throw new Error(`column "${this.name}" has no dictionary id: give it one, or put it in a ColumnTable first`);
    return this.fieldOf;
  }

  private code(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.vocabulary.length;
      this.vocabulary.push(value);
      this.codes.set(value, code);
    }
    return code;
  }

  push(value: string): void {
    if (this.length === this.indices.length) this.indices = grow(this.indices, this.length + 1);
    this.indices[this.length++] = this.code(value);
  }

  /** The code of `value` (its index in the vocabulary; added when new): with `pushCode`, a caller can skip the lookup for a value it saw last. */
  codeOf(value: string): number {
    return this.code(value);
  }

  /** Pushes the value whose code is `code` (from `codeOf`, or a seeded value's index). */
  pushCode(code: number): void {
    if (!(code >= 0 && code < this.vocabulary.length)) throw new RangeError(`column "${this.name}" has no value of code ${code}`);
    if (this.length === this.indices.length) this.indices = grow(this.indices, this.length + 1);
    this.indices[this.length++] = code;
  }

  pushOptional(value: string | undefined): void {
    if (value === undefined) this.pushNull();
    else this.push(value);
  }

  pushNull(): void {
    this.validity.setNull(this.length, this.indices.length);
    if (this.length === this.indices.length) this.indices = grow(this.indices, this.length + 1);
    this.indices[this.length++] = 0;
  }

  /**
   * The whole vocabulary as one dictionary, for a writer that holds every
   * batch before it writes (ColumnTable.toIPC): undefined when no value was
   * added after the first cut (the batches already share one dictionary).
   * Codes only ever grow, so every batch's indices read the same in it.
   */
  wholeDictionary(): Vector<Utf8> | undefined {
    if (this.chunks.length <= 1 && this.vocabulary.length <= this.covered) return undefined;
    return new Vector([utf8Data(this.vocabulary)]);
  }

  cut(): Data {
    if (this.vocabulary.length > this.covered || this.chunks.length === 0) {
      this.chunks.push(utf8Data(this.vocabulary.slice(this.covered)));
      this.covered = this.vocabulary.length;
    }
    const length = this.length;
    const data = this.indices.slice(0, length);
    this.indices = new Int32Array(Math.max(INITIAL_CAPACITY, length));
    this.length = 0;
    return makeData({ type: this.field.type as Dictionary<Utf8, Int32>, length, data, dictionary: new Vector(this.chunks.slice()), ...this.validity.cut(length) });
  }
}

/**
 * Gives each dictionary column made without an id the smallest id the table's
 * other dictionary columns do not use, in column order (0, 1, 2... when none
 * was given), so the file's ids depend on its schema alone.
 */
function numberDictionaries(table: string, columns: readonly Column[]): void {
  const dictionaries = columns.filter((column): column is DictColumn => column instanceof DictColumn);
  const used = new Set<number>();
  for (const column of dictionaries) {
    const id = column.dictionaryId;
    if (id === undefined) continue;
    if (used.has(id)) throw new Error(`table "${table}" has two dictionary columns with dictionary id ${id}`);
    used.add(id);
  }
  let next = 0;
  for (const column of dictionaries) {
    if (column.dictionaryId !== undefined) continue;
    while (used.has(next)) next++;
    column.assignDictionaryId(next);
    used.add(next);
  }
}

/**
 * An Arrow writer sink that writes each chunk to a file as it comes
 * (writeSync: a recorder's files are its driver's, and a chunk written is
 * one the process cannot lose to a crash of the run later on).
 */
class FileSink extends AsyncByteQueue {
  constructor(private readonly fd: number) {
    super();
  }

  override write(value: Uint8Array): void {
    for (let at = 0; at < value.byteLength; ) at += writeSync(this.fd, value, at, value.byteLength - at);
  }

  /** The writer closes its sink at finish; the table closes the file. */
  override close(): void {}
}

/** A table's file while it is streamed (ColumnTable.streamTo). */
interface StreamedFile {
  readonly path: string;
  readonly fd: number;
  readonly writer: RecordBatchFileWriter;
}

/** One Arrow table being recorded: its columns, its sealed batches (or the file they were written to). */
export class ColumnTable {
  readonly schema: Schema;
  private readonly batches: RecordBatch[] = [];
  private rows = 0;
  private total = 0;
  private file: StreamedFile | undefined;
  private streamed = false;

  constructor(
    readonly name: string,
    private readonly columns: readonly Column[],
    private readonly batchRows = DEFAULT_BATCH_ROWS,
    /** Key-value metadata of the schema (what a reader needs to interpret the file). */
    metadata?: ReadonlyMap<string, string>,
  ) {
    numberDictionaries(name, columns);
    this.schema = new Schema(columns.map((column) => column.field), metadata === undefined ? undefined : new Map(metadata));
  }

  /** Sets a key of the schema's metadata (before `toIPC`): what is known only once the rows are in. */
  setMetadata(key: string, value: string): void {
    this.schema.metadata.set(key, value);
  }

  /** Rows recorded so far. */
  get rowCount(): number {
    return this.total;
  }

  /** Closes the current row (every column got one value); seals a batch every `batchRows` rows. */
  endRow(): void {
    this.rows++;
    this.total++;
    if (this.rows >= this.batchRows) this.seal();
  }

  /** Cuts the pending rows into a RecordBatch. */
  seal(): void {
    if (this.rows === 0) return;
    if (this.streamed && this.file === undefined) throw new Error(`table "${this.name}" was closed: its file takes no more rows`);
    const length = this.rows;
    const children: Data[] = [];
    for (const column of this.columns) {
      if (column.length !== length) throw new Error(`table "${this.name}" column "${column.name}" has ${column.length} values for ${length} rows`);
      children.push(column.cut());
    }
    this.rows = 0;
    const batch = new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children }));
    if (this.file !== undefined) this.file.writer.write(batch);
    else this.batches.push(batch);
  }

  /**
   * From now on writes each batch to `path` as it is sealed, instead of
   * keeping it (call before the first batch is sealed); `close()` writes the
   * rest and the footer. Any failure to write is thrown where it happens
   * (openSync, writeSync), naming the file.
   */
  streamTo(path: string): void {
    if (this.streamed) throw new Error(`table "${this.name}" is already streamed`);
    if (this.batches.length > 0) throw new Error(`table "${this.name}" sealed a batch before streamTo: those rows would be missing from ${path}`);
    const fd = openSync(path, "w");
    const writer = new RecordBatchFileWriter();
    try {
      writer.reset(new FileSink(fd), this.schema);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.file = { path, fd, writer };
    this.streamed = true;
  }

  /** Streamed: writes the pending rows and the footer, and closes the file; returns its path. */
  close(): string {
    const file = this.file;
    if (file === undefined) throw new Error(this.streamed ? `table "${this.name}" is already closed` : `table "${this.name}" is not streamed: use toIPC()`);
    try {
      this.seal();
      file.writer.finish();
    } finally {
      this.file = undefined;
      closeSync(file.fd);
    }
    return file.path;
  }

  /** Streamed: closes the file as it is, without its footer (a run that failed); the caller removes it. */
  abandon(): void {
    const file = this.file;
    if (file === undefined) return;
    this.file = undefined;
    closeSync(file.fd);
  }

  /**
   * The Arrow IPC file bytes of every row recorded (an empty table keeps its
   * schema). A dictionary that grew after the first batch is written once,
   * whole, for every batch (no delta dictionary batches: see the header).
   */
  toIPC(): Uint8Array {
    if (this.streamed) throw new Error(`table "${this.name}" is streamed to its file: close() it`);
    this.seal();
    const wholes = this.columns.map((column) => (column instanceof DictColumn ? column.wholeDictionary() : undefined));
    const batches = wholes.some((whole) => whole !== undefined) ? this.batches.map((batch) => this.withDictionaries(batch, wholes)) : this.batches;
    const writer = new RecordBatchFileWriter();
    writer.reset(undefined, this.schema);
    for (const batch of batches) writer.write(batch);
    writer.finish();
    return writer.toUint8Array(true);
  }

  /** `batch` with the given dictionaries in place of its own (one shared Vector per column, so the writer writes each once). */
  private withDictionaries(batch: RecordBatch, wholes: readonly (Vector<Utf8> | undefined)[]): RecordBatch {
    const children = batch.data.children.map((child, i) => {
      const dictionary = wholes[i];
      if (dictionary === undefined) return child;
      return makeData({ type: child.type as Dictionary<Utf8, Int32>, length: child.length, data: child.values as Int32Array, nullBitmap: child.nullBitmap, nullCount: child.nullCount, dictionary });
    });
    return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: batch.numRows, nullCount: 0, children }));
  }
}
