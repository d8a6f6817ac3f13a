/**
 * The low-level checks of an Arrow IPC file or stream, shared by the
 * readers of market-data recordings (md-recording.ts, a stream) and of input
 * logs (replay.ts, a file or a stream), made before apache-arrow decodes
 * anything:
 *
 * - the Arrow file magic, "ARROW1", at the start and the end of a file;
 * - the walk over a stream's encapsulated messages (`walkStream`): the
 *   continuation marker 0xFFFFFFFF (or none, the pre-0.15 framing), the
 *   metadata length, padded to 8 bytes, the body length from the metadata,
 *   and the end-of-stream marker; a file's footer and the messages its blocks
 *   point at (`checkArrowFile`);
 * - a verifier of each message's flatbuffer metadata (Format/Message.fbs,
 *   Schema.fbs, File.fbs): apache-arrow decodes flatbuffers without checking
 *   them, so one flipped byte (a vector's length, an offset) makes it loop
 *   over billions of entries or read far outside the metadata, until Node
 *   runs out of memory. The verifier follows what apache-arrow follows
 *   (ipc/metadata/message.mjs, file.mjs) and checks, first, that every
 *   offset, vtable, table, string and vector lies inside the metadata (a
 *   vector's length times its element size included) and that fields nest at
 *   most NESTING_MAX deep, with at most one table visited per 4 bytes of
 *   metadata (shared tables cannot multiply the work); then that each record
 *   or dictionary batch fits its schema as apache-arrow's VectorLoader reads
 *   it: one field node per field and the buffers each type takes, every
 *   buffer 8-byte aligned inside the message body, and every length and null
 *   count bounded by the buffers that hold it, so a batch cannot claim more
 *   rows than its bytes hold.
 *
 * The checks read the metadata once per message (tens of bytes for a batch),
 * never the rows. A problem is an ArrowIpcError saying what is wrong and
 * where, without the file's name: each reader names the file in its own error.
 */

/** "ARROW1": an Arrow IPC file starts with it (then 2 bytes of padding) and ends with it. */
export const ARROW_MAGIC: readonly number[] = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31];
/** The smallest Arrow IPC file: magic and padding, an (empty) footer's length, magic. */
export const ARROW_FILE_BYTES_MIN = 2 * ARROW_MAGIC.length + 6;
/** A first message's metadata beyond this is not credible (a schema is a few KiB): the bytes are not an Arrow stream. */
export const SCHEMA_METADATA_MAX = 16 * 1024 * 1024;
/** Fields nested deeper than this (a list of structs of lists ...) are refused. */
export const NESTING_MAX = 64;

/** Message header types (Message.fbs MessageHeader, apache-arrow's MessageHeader). */
export const HEADER_SCHEMA = 1;
export const HEADER_DICTIONARY_BATCH = 2;
export const HEADER_RECORD_BATCH = 3;
const HEADER_NOUNS = ["none", "schema", "dictionary batch", "record batch", "tensor", "sparse tensor"];

/** Metadata versions apache-arrow reads with the layout checked here (before V4, buffers had another layout). */
const VERSION_V4 = 3;
const VERSION_V5 = 4;
const CONTINUATION = -1;

/** What is wrong with an Arrow file or stream's bytes (the reader adds the file's name). */
export class ArrowIpcError extends Error {
  override readonly name = "ArrowIpcError";
  /** The index of the message at fault in a stream (0 for the first), or -1. */
  readonly messageIndex: number;

  constructor(message: string, messageIndex = -1) {
    super(message);
    this.messageIndex = messageIndex;
  }
}

/**
 * Bytes read by position: a buffer in memory (`bytesSource`), or a file read
 * a window at a time (file-bytes.ts), so that a stream larger than one read
 * can hold is walked without reading it whole.
 */
export interface ByteSource {
  readonly length: number;
  /** bytes[at, at + length), cut at the end; valid until the next call (read it at once). */
  slice(at: number, length: number): Uint8Array;
}

/** A buffer as a ByteSource (its views are subarrays). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { length: bytes.length, slice: (at, length) => bytes.subarray(at, at + length) };
}

/**
 * The bytes [0, length) held in chunks of `chunkBytes` (the last one
 * shorter), `chunk(index)` giving each, as a ByteSource: a slice inside one
 * chunk is a view of it, one across chunks a copy.
 */
export function chunkedSource(length: number, chunkBytes: number, chunk: (index: number) => Uint8Array): ByteSource {
  return {
    length,
    slice(at, size) {
      const end = Math.min(length, at + size);
      if (at >= end) return new Uint8Array(0);
      const first = Math.floor(at / chunkBytes);
      const last = Math.floor((end - 1) / chunkBytes);
      if (first === last) return chunk(first).subarray(at - first * chunkBytes, end - first * chunkBytes);
      const copy = new Uint8Array(end - at);
      for (let index = first; index <= last; index++) {
        const base = index * chunkBytes;
        copy.set(chunk(index).subarray(Math.max(at, base) - base, Math.min(end, base + chunkBytes) - base), Math.max(at, base) - at);
      }
      return copy;
    },
  };
}

/** The little-endian int32 at `at` (which must lie inside the source). */
function int32At(source: ByteSource, at: number): number {
  const bytes = source.slice(at, 4);
  return bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24);
}

/** The bytes [from, end) of `source` are all zero (what a crash can leave of blocks never written). Read a window at a time. */
export function zerosFrom(source: ByteSource, from: number): boolean {
  for (let at = from; at < source.length; at += ZERO_SCAN_BYTES) {
    const bytes = source.slice(at, ZERO_SCAN_BYTES);
    // memcmp against zeros: a crash's tail may be gigabytes (a file system that allocated ahead).
    if (Buffer.compare(bytes, ZEROS.subarray(0, bytes.length)) !== 0) return false;
  }
  return true;
}

/** Where the zeros that end `source` begin (its length when its last byte is not zero). Read a window at a time from the end. */
export function trailingZerosStart(source: ByteSource): number {
  let end = source.length;
  while (end > 0) {
    const from = Math.max(0, end - ZERO_SCAN_BYTES);
    const bytes = source.slice(from, end - from);
    if (Buffer.compare(bytes, ZEROS.subarray(0, bytes.length)) !== 0) {
      for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== 0) return from + i + 1;
    }
    end = from;
  }
  return 0;
}

/** The span zerosFrom and trailingZerosStart read at once, and as many zeros to compare it with. */
const ZERO_SCAN_BYTES = 1024 * 1024;
const ZEROS = new Uint8Array(ZERO_SCAN_BYTES);

/** `bytes` starts with "ARROW1" (an Arrow IPC file, not a stream). */
export function startsWithArrowMagic(bytes: Uint8Array): boolean {
  return bytes.length >= ARROW_MAGIC.length && ARROW_MAGIC.every((byte, i) => bytes[i] === byte);
}

/** `bytes` ends with "ARROW1", as a whole Arrow IPC file does. */
export function endsWithArrowMagic(bytes: Uint8Array): boolean {
  const from = bytes.length - ARROW_MAGIC.length;
  return from >= 0 && ARROW_MAGIC.every((byte, i) => bytes[from + i] === byte);
}

// -- the flatbuffer verifier ----------------------------------------------------------------

interface Table {
  /** What the table is, for problems: "the record batch". */
  readonly what: string;
  readonly at: number;
  readonly vtable: number;
  readonly vtableBytes: number;
  readonly tableBytes: number;
}

/**
 * Bounds-checked reads of one flatbuffer (a message's metadata, or a file's
 * footer): every position it returns lies inside the buffer. Scalars need no
 * alignment (apache-arrow reads them byte by byte).
 */
class Flatbuffer {
  private readonly view: DataView;
  private readonly size: number;
  /** Tables left to visit: at most one per 4 bytes, so shared tables cannot multiply the work. */
  private tablesLeft: number;

  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.size = bytes.byteLength;
    this.tablesLeft = bytes.byteLength >> 2;
  }

  fail(why: string): never {
    throw new ArrowIpcError(why);
  }

  /** The root table (the buffer starts with its offset). */
  root(what: string): Table {
    if (this.size < 8) this.fail(`${what} is ${this.size} bytes, too short for a flatbuffer`);
    return this.table(this.target(0, what), what);
  }

  /** The table at `at`, with its vtable checked to lie inside the buffer. */
  private table(at: number, what: string): Table {
    if (--this.tablesLeft < 0) this.fail(`${what}: the metadata holds more tables than its ${this.size} bytes can (shared or cyclic tables)`);
    const vtable = at - this.view.getInt32(at, true);
    if (vtable < 0 || vtable + 4 > this.size) this.fail(`${what}: its vtable (at byte ${vtable}) lies outside the metadata (${this.size} bytes)`);
    const vtableBytes = this.view.getUint16(vtable, true);
    const tableBytes = this.view.getUint16(vtable + 2, true);
    // Entries are read as signed 16-bit by flatbuffers' JavaScript: 0x8000 and more would go backwards.
    if (vtableBytes < 4 || vtableBytes % 2 !== 0 || vtableBytes >= 0x8000 || vtable + vtableBytes > this.size) this.fail(`${what}: its vtable (at byte ${vtable}) has an impossible size ${vtableBytes}`);
    if (tableBytes < 4 || tableBytes >= 0x8000 || at + tableBytes > this.size) this.fail(`${what}: its table (at byte ${at}) of ${tableBytes} bytes runs past the metadata (${this.size} bytes)`);
    return { what, at, vtable, vtableBytes, tableBytes };
  }

  /** Where field `slot` of `table` is (`bytes` wide, inside the table), or -1 when it is absent. */
  private field(table: Table, slot: number, bytes: number): number {
    const entry = 4 + 2 * slot;
    if (entry >= table.vtableBytes) return -1;
    const offset = this.view.getUint16(table.vtable + entry, true);
    if (offset === 0) return -1;
    if (offset + bytes > table.tableBytes) this.fail(`${table.what}: its field ${slot} (at byte ${table.at + offset}) lies outside its table`);
    return table.at + offset;
  }

  /** The position an offset stored at `at` points to, with room for the 4 bytes found there. */
  private target(at: number, what: string): number {
    const offset = this.view.getInt32(at, true);
    const to = at + offset;
    if (offset <= 0 || to + 4 > this.size) this.fail(`${what}: offset ${offset} at byte ${at} points outside the metadata (${this.size} bytes)`);
    return to;
  }

  uint8(table: Table, slot: number, fallback: number): number {
    const at = this.field(table, slot, 1);
    return at < 0 ? fallback : this.view.getUint8(at);
  }

  int16(table: Table, slot: number, fallback: number): number {
    const at = this.field(table, slot, 2);
    return at < 0 ? fallback : this.view.getInt16(at, true);
  }

  int32(table: Table, slot: number, fallback: number): number {
    const at = this.field(table, slot, 4);
    return at < 0 ? fallback : this.view.getInt32(at, true);
  }

  /** An Int64 field, or NaN when it is negative or beyond the safe integers (apache-arrow throws on those). */
  int64(table: Table, slot: number): number {
    const at = this.field(table, slot, 8);
    return at < 0 ? 0 : this.int64At(at);
  }

  /** The Int32 at `at` (inside the buffer: a checked vector element). */
  int32At(at: number): number {
    return this.view.getInt32(at, true);
  }

  /** The Int64 at `at` (inside the buffer: a checked field or vector element), NaN when negative or unsafe. */
  int64At(at: number): number {
    const high = this.view.getInt32(at + 4, true);
    if (high < 0 || high >= 0x200000) return Number.NaN;
    return high * 0x1_0000_0000 + this.view.getUint32(at, true);
  }

  /** The sub-table of field `slot`, or undefined when absent. */
  child(table: Table, slot: number, what: string): Table | undefined {
    const at = this.field(table, slot, 4);
    return at < 0 ? undefined : this.table(this.target(at, what), what);
  }

  /** The vector of field `slot` ({start, length} of its elements, each `elementBytes` wide), or undefined when absent. */
  vector(table: Table, slot: number, elementBytes: number, what: string): { start: number; length: number } | undefined {
    const at = this.field(table, slot, 4);
    if (at < 0) return undefined;
    const vector = this.target(at, what);
    const length = this.view.getUint32(vector, true);
    if (vector + 4 + length * elementBytes > this.size) {
      this.fail(`${what}: its vector of ${length} entries of ${elementBytes} bytes (at byte ${vector}) runs past the metadata (${this.size} bytes)`);
    }
    return { start: vector + 4, length };
  }

  /** The tables of a vector of tables (field `slot`), the i-th named `element(i)`; none when absent. */
  tables(table: Table, slot: number, what: string, element: (i: number) => string): Table[] {
    const vector = this.vector(table, slot, 4, what);
    const out: Table[] = [];
    if (vector === undefined) return out;
    if (vector.length > this.tablesLeft) this.fail(`${what}: its vector of ${vector.length} tables is more than the metadata (${this.size} bytes) can hold`);
    for (let i = 0; i < vector.length; i++) {
      const at = vector.start + 4 * i;
      out.push(this.table(this.target(at, element(i)), element(i)));
    }
    return out;
  }

  /** Checks the string of field `slot` (when present) lies inside the buffer. */
  string(table: Table, slot: number, what: string): void {
    this.vector(table, slot, 1, what);
  }

  /** Checks a custom_metadata vector of KeyValue{key, value} tables (field `slot`). */
  keyValues(table: Table, slot: number, what: string): void {
    const entries = this.tables(table, slot, `${what} custom metadata`, (i) => `${what} custom metadata entry ${i + 1}`);
    for (const entry of entries) {
      this.string(entry, 0, `${entry.what}'s key`);
      this.string(entry, 1, `${entry.what}'s value`);
    }
  }
}

// -- schemas: the layout of each field's nodes and buffers ---------------------------------

/**
 * How apache-arrow's VectorLoader reads a field from a batch: one field node,
 * then its buffers (a validity bitmap first, except for null and, from V5,
 * union), then its children's.
 */
type FieldKind = "null" | "fixed" | "bits" | "offsets" | "view" | "list" | "fixedList" | "struct" | "sparseUnion" | "denseUnion" | "dictionary";

export interface FieldLayout {
  readonly kind: FieldKind;
  /** fixed: bytes per value; offsets, list: bytes per offset; fixedList: values per list; dictionary: bytes per index. */
  readonly width: number;
  readonly children: readonly FieldLayout[];
}

/** A schema as the batch checks need it. */
export interface SchemaLayout {
  readonly version: number;
  readonly fields: readonly FieldLayout[];
  /** Each dictionary id's value layout (the first field with that id, as apache-arrow decodes it). */
  readonly dictionaries: ReadonlyMap<number, FieldLayout>;
}

/** Type ids (Schema.fbs Type) and what each takes; the parameters apache-arrow reads are read from the type table. */
const TYPE_NAMES = [
  "NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal", "Date", "Time", "Timestamp", "Interval", "List", "Struct_", "Union",
  "FixedSizeBinary", "FixedSizeList", "Map", "Duration", "LargeBinary", "LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View", "ListView", "LargeListView",
];

function intWidth(fb: Flatbuffer, bitWidth: number, what: string): number {
  if (bitWidth !== 8 && bitWidth !== 16 && bitWidth !== 32 && bitWidth !== 64) fb.fail(`${what} has bitWidth ${bitWidth}, not 8, 16, 32 or 64`);
  return bitWidth / 8;
}

/** The layout of a field's type (not its dictionary encoding), from its type_type and type table. */
function typeLayout(fb: Flatbuffer, field: Table, children: FieldLayout[], what: string): FieldLayout {
  const typeId = fb.uint8(field, 2, 0);
  const name = TYPE_NAMES[typeId] ?? `type ${typeId}`;
  const leaf = (kind: FieldKind, width: number): FieldLayout => ({ kind, width, children: [] });
  const nested = (kind: FieldKind, width: number, count?: number): FieldLayout => {
    if (count !== undefined && children.length !== count) fb.fail(`${what} is a ${name} with ${children.length} children, not ${count}`);
    return { kind, width, children };
  };
  switch (typeId) {
    case 0:
    case 1:
      return leaf("null", 0);
    case 4:
    case 5:
      return leaf("offsets", 4);
    case 19:
    case 20:
      return leaf("offsets", 8);
    case 23:
    case 24:
      return leaf("view", 16);
    case 6:
      return leaf("bits", 1);
    case 12:
    case 17:
      return nested("list", 4, 1);
    case 21:
      return nested("list", 8, 1);
    case 13:
      return nested("struct", 0);
  }
  // The types whose parameters apache-arrow reads from the type table (a missing one is a TypeError there).
  const type = fb.child(field, 3, `${what}'s ${name} type`);
  if (type === undefined) fb.fail(`${what} is a ${name} without its type table`);
  switch (typeId) {
    case 2:
      return leaf("fixed", intWidth(fb, fb.int32(type, 0, 0), `${what}'s Int`));
    case 3: {
      const precision = fb.int16(type, 0, 0);
      if (precision < 0 || precision > 2) fb.fail(`${what} has FloatingPoint precision ${precision}, not 0, 1 or 2`);
      return leaf("fixed", 2 << precision);
    }
    case 7: {
      const bitWidth = fb.int32(type, 2, 128);
      if (bitWidth !== 32 && bitWidth !== 64 && bitWidth !== 128 && bitWidth !== 256) fb.fail(`${what} has Decimal bitWidth ${bitWidth}`);
      return leaf("fixed", bitWidth / 8);
    }
    case 8:
      return leaf("fixed", fb.int16(type, 0, 1) === 0 ? 4 : 8);
    case 9:
      return leaf("fixed", intWidth(fb, fb.int32(type, 1, 32), `${what}'s Time`));
    case 10:
      fb.string(type, 1, `${what}'s timezone`);
      return leaf("fixed", 8);
    case 18:
      return leaf("fixed", 8);
    case 11: {
      const unit = fb.int16(type, 0, 0);
      return leaf("fixed", unit === 0 ? 4 : unit === 1 ? 8 : 16);
    }
    case 14: {
      fb.vector(type, 1, 4, `${what}'s Union typeIds`);
      return nested(fb.int16(type, 0, 0) === 1 ? "denseUnion" : "sparseUnion", 0);
    }
    case 15: {
      const byteWidth = fb.int32(type, 0, 0);
      if (byteWidth <= 0) fb.fail(`${what} has FixedSizeBinary byteWidth ${byteWidth}, not positive`);
      return leaf("fixed", byteWidth);
    }
    case 16: {
      const listSize = fb.int32(type, 0, 0);
      if (listSize < 0) fb.fail(`${what} has FixedSizeList listSize ${listSize}, negative`);
      return nested("fixedList", listSize, 1);
    }
  }
  return fb.fail(`${what} is of ${name}, which apache-arrow does not read`);
}

/** Checks a Field table (and its children, to NESTING_MAX) and returns its layout; registers its dictionary. */
function fieldLayout(fb: Flatbuffer, field: Table, depth: number, dictionaries: Map<number, FieldLayout>, what: string): FieldLayout {
  if (depth > NESTING_MAX) fb.fail(`${what} nests fields more than ${NESTING_MAX} deep`);
  fb.string(field, 0, `${what}'s name`);
  fb.keyValues(field, 6, what);
  const children = fb.tables(field, 5, `${what}'s children`, (i) => `${what}.${i + 1}`).map((child) => fieldLayout(fb, child, depth + 1, dictionaries, child.what));
  const layout = typeLayout(fb, field, children, what);
  const encoding = fb.child(field, 4, `${what}'s dictionary encoding`);
  if (encoding === undefined) return layout;
  const id = fb.int64(encoding, 0);
  if (Number.isNaN(id)) fb.fail(`${what} has a dictionary id that is negative or beyond the safe integers`);
  const indexType = fb.child(encoding, 1, `${what}'s dictionary index type`);
  const indexWidth = indexType === undefined ? 4 : intWidth(fb, fb.int32(indexType, 0, 0), `${what}'s dictionary index type`);
  if (!dictionaries.has(id)) dictionaries.set(id, layout);
  return { kind: "dictionary", width: indexWidth, children: [] };
}

/** Checks a Schema table and returns its layout. */
function schemaLayout(fb: Flatbuffer, schema: Table, version: number): SchemaLayout {
  // endianness (a scalar) and features (never read by apache-arrow) need no check.
  fb.keyValues(schema, 2, "the schema's");
  const dictionaries = new Map<number, FieldLayout>();
  const fields = fb.tables(schema, 1, "the schema's fields", (i) => `field ${i + 1}`).map((field) => fieldLayout(fb, field, 1, dictionaries, field.what));
  return { version, fields, dictionaries };
}

// -- batches -------------------------------------------------------------------------------

/** A RecordBatch table's checked vectors: nodes and buffers are 16-byte structs (two Int64s each). */
interface BatchTable {
  readonly length: number;
  readonly nodes: { start: number; length: number };
  readonly buffers: { start: number; length: number };
  readonly variadic: { start: number; length: number };
}

function batchTable(fb: Flatbuffer, batch: Table, what: string): BatchTable {
  if (fb.child(batch, 3, `${what}'s compression`) !== undefined) fb.fail(`${what} is compressed, which this reader does not support`);
  const none = { start: 0, length: 0 };
  return {
    length: fb.int64(batch, 0),
    nodes: fb.vector(batch, 1, 16, `${what}'s nodes`) ?? none,
    buffers: fb.vector(batch, 2, 16, `${what}'s buffers`) ?? none,
    variadic: fb.vector(batch, 4, 8, `${what}'s variadic buffer counts`) ?? none,
  };
}

/** An Int64 read by int64At, for problems: NaN (negative or unsafe) is said so. */
function show(value: number): string {
  return Number.isNaN(value) ? "out of range" : String(value);
}

/**
 * Checks a batch against the fields it holds, as VectorLoader reads them:
 * every buffer inside the body and 8-byte aligned, one node per field and
 * the buffers each type takes (no more, no fewer), each node's null count at
 * most its length, and its length bounded by its buffers (a validity bitmap
 * when it has nulls, values, offsets, indices, children). The top-level
 * nodes have the batch's length.
 */
function checkBatch(fb: Flatbuffer, batch: BatchTable, fields: readonly FieldLayout[], version: number, bodyLength: number, what: string): number {
  if (Number.isNaN(batch.length)) fb.fail(`${what} has a length that is negative or beyond the safe integers`);
  let dataBytes = 0;
  for (let i = 0; i < batch.buffers.length; i++) {
    const offset = fb.int64At(batch.buffers.start + 16 * i);
    const length = fb.int64At(batch.buffers.start + 16 * i + 8);
    if (!(offset + length <= bodyLength)) fb.fail(`${what}'s buffer ${i + 1} (offset ${show(offset)}, length ${show(length)}) lies outside its body (${bodyLength} bytes)`);
    if (offset % 8 !== 0) fb.fail(`${what}'s buffer ${i + 1} (offset ${offset}) is not 8-byte aligned`);
    dataBytes = Math.max(dataBytes, offset + length);
  }
  const cursor = { node: 0, buffer: 0, variadic: 0 };
  for (const field of fields) {
    const at = cursor.node + 1;
    if (checkNode(fb, batch, field, version, cursor, what) !== batch.length) fb.fail(`${what}'s field node ${at} does not have the batch's length ${batch.length}`);
  }
  if (cursor.node !== batch.nodes.length || cursor.buffer !== batch.buffers.length) {
    fb.fail(`${what} has ${batch.nodes.length} field nodes and ${batch.buffers.length} buffers, its fields take ${cursor.node} and ${cursor.buffer}`);
  }
  return dataBytes;
}

/** Checks the next node of `batch` (and its buffers, and its children's) for `field`; returns its length. */
function checkNode(fb: Flatbuffer, batch: BatchTable, field: FieldLayout, version: number, cursor: { node: number; buffer: number; variadic: number }, what: string): number {
  if (cursor.node >= batch.nodes.length) fb.fail(`${what} has ${batch.nodes.length} field nodes, fewer than its fields`);
  const length = fb.int64At(batch.nodes.start + 16 * cursor.node);
  const nullCount = fb.int64At(batch.nodes.start + 16 * cursor.node + 8);
  const name = `${what}'s field node ${++cursor.node}`;
  if (!(nullCount <= length)) fb.fail(`${name} has length ${show(length)} and null count ${show(nullCount)}`);
  /** The next buffer's length, checked to hold `needed` bytes. */
  const buffer = (needed: number, which: string): void => {
    if (cursor.buffer >= batch.buffers.length) fb.fail(`${what} has ${batch.buffers.length} buffers, fewer than its fields take`);
    const bytes = fb.int64At(batch.buffers.start + 16 * cursor.buffer++ + 8);
    if (bytes < needed) fb.fail(`${name} (length ${length}) has ${which} of ${bytes} bytes, fewer than the ${needed} its length takes`);
  };
  const child = (child: FieldLayout) => checkNode(fb, batch, child, version, cursor, what);
  const union = field.kind === "sparseUnion" || field.kind === "denseUnion";
  if (field.kind !== "null" && !(union && version >= VERSION_V5)) buffer(nullCount > 0 ? Math.ceil(length / 8) : 0, "a validity bitmap");
  const offsetsBytes = length > 0 ? (length + 1) * field.width : 0;
  switch (field.kind) {
    case "fixed":
    case "dictionary":
      buffer(length * field.width, "values");
      break;
    case "bits":
      buffer(Math.ceil(length / 8), "values");
      break;
    case "offsets":
      buffer(offsetsBytes, "offsets");
      buffer(0, "values");
      break;
    case "view": {
      buffer(length * field.width, "views");
      const count = cursor.variadic < batch.variadic.length ? fb.int64At(batch.variadic.start + 8 * cursor.variadic) : 0;
      cursor.variadic++;
      if (!(count <= batch.buffers.length)) fb.fail(`${what} has a variadic buffer count beyond its buffers`);
      for (let i = 0; i < count; i++) buffer(0, "a variadic buffer");
      break;
    }
    case "list":
      buffer(offsetsBytes, "offsets");
      child(field.children[0]!);
      break;
    case "fixedList":
      if (child(field.children[0]!) < length * field.width) fb.fail(`${name} (a fixed-size list) is longer than its values allow`);
      break;
    case "struct":
      for (const each of field.children) if (child(each) < length) fb.fail(`${name} (a struct) is longer than its children`);
      break;
    case "sparseUnion":
    case "denseUnion":
      buffer(length, "type ids");
      if (field.kind === "denseUnion") buffer(length * 4, "offsets");
      for (const each of field.children) child(each);
      break;
  }
  return length;
}

// -- messages ------------------------------------------------------------------------------

/** What a message's verified metadata says. */
export interface MessageInfo {
  readonly headerType: number;
  /** NaN when negative or beyond the safe integers. */
  readonly bodyLength: number;
  /** A schema message's layout (for the batches after it). */
  readonly schema?: SchemaLayout;
  /** A record batch's: where its last buffer ends in its body (the rest is padding). */
  readonly dataBytes?: number;
}

/**
 * Verifies one message's metadata (the flatbuffer after its length). A
 * batch is checked against `schema` (the layout of the schema before it) and
 * must lie inside its body; a schema message returns its layout. Throws an
 * ArrowIpcError saying what is wrong.
 */
export function verifyMessage(metadata: Uint8Array, schema: SchemaLayout | undefined): MessageInfo {
  const fb: Flatbuffer = new Flatbuffer(metadata);
  const { version, headerType, bodyLength, header } = messageTable(fb);
  const kind = HEADER_NOUNS[headerType]!;
  if (headerType === HEADER_SCHEMA) {
    // apache-arrow reads no body after a schema: one would be taken for the next message.
    if (bodyLength !== 0) fb.fail(`it is a schema with a body of ${bodyLength} bytes`);
    return { headerType, bodyLength, schema: schemaLayout(fb, header, version) };
  }
  if (schema === undefined) fb.fail(`it is a ${kind} before any schema`);
  if (Number.isNaN(bodyLength)) return { headerType, bodyLength };
  if (headerType === HEADER_RECORD_BATCH) {
    const dataBytes = checkBatch(fb, batchTable(fb, header, "the record batch"), schema.fields, schema.version, bodyLength, "the record batch");
    return { headerType, bodyLength, dataBytes };
  }
  const id = fb.int64(header, 0);
  const values = schema.dictionaries.get(id);
  if (values === undefined) fb.fail(`it is a dictionary batch for id ${show(id)}, which no schema field has`);
  const data = fb.child(header, 1, "the dictionary batch's data");
  if (data === undefined) fb.fail("it is a dictionary batch without its data");
  checkBatch(fb, batchTable(fb, data, "the dictionary batch"), [values], schema.version, bodyLength, "the dictionary batch");
  return { headerType, bodyLength };
}

/** The Message table (Message.fbs): its version, header type and header (a schema or a batch), body length and custom metadata. */
function messageTable(fb: Flatbuffer): { version: number; headerType: number; bodyLength: number; header: Table } {
  const message = fb.root("the message");
  const version = fb.int16(message, 0, 0);
  if (version < VERSION_V4 || version > VERSION_V5) fb.fail(`its metadata version V${version + 1} is not V4 or V5`);
  const headerType = fb.uint8(message, 1, 0);
  const bodyLength = fb.int64(message, 3);
  fb.keyValues(message, 4, "the message's");
  if (headerType !== HEADER_SCHEMA && headerType !== HEADER_DICTIONARY_BATCH && headerType !== HEADER_RECORD_BATCH) {
    fb.fail(`its header type ${headerType} (${HEADER_NOUNS[headerType] ?? "unknown"}) is not a schema, dictionary batch or record batch`);
  }
  const kind = HEADER_NOUNS[headerType]!;
  const header = fb.child(message, 2, `the ${kind}`);
  if (header === undefined) fb.fail(`it is a ${kind} without its header`);
  return { version, headerType, bodyLength, header };
}

/** "message 3 (at byte 1,280)": how problems name a message of a stream. */
function messageName(index: number, at: number): string {
  return `message ${index + 1} (at byte ${at.toLocaleString("en-US")})`;
}

// -- streams -------------------------------------------------------------------------------

/** Why a stream's walk stopped short of its end. */
export type StreamStop =
  /** An end-of-stream marker (continuation and zero length; or a bare zero length that ends the bytes). */
  | "end-of-stream"
  /** The bytes end, or a message is cut short (its length, metadata or body runs past the end; zeros fill the rest). */
  | "cut"
  /** A message's metadata length is negative, not padded to 8 bytes, or beyond SCHEMA_METADATA_MAX (for the first, also past the end without a continuation marker). */
  | "length"
  /** A message's body length is negative or beyond the safe integers. */
  | "body-length"
  /** The first message is a valid message but not a schema. */
  | "not-schema"
  /**
   * A message's lengths make no sense (negative, unpadded, metadata above
   * SCHEMA_METADATA_MAX, an impossible body), yet a complete, verified
   * message follows it: the bytes were damaged in place, not cut short by a
   * crash (`damage` says where). A message with sane lengths that runs past
   * the end is "cut", whatever follows its start.
   */
  | "damaged";

/** How far an Arrow IPC stream's bytes can be read. */
export interface StreamWalk {
  /** The end of the last complete schema or record batch message (-1 when the schema is not complete). */
  readonly completeBytes: number;
  /** The messages walked, complete and verified. */
  readonly messages: number;
  /** Why the walk stopped: "end-of-stream" for a closed stream. */
  readonly stop: StreamStop;
  /** The first four bytes are the continuation marker (an Arrow stream of format 0.15 or later). */
  readonly continued: boolean;
  /** For "damaged": the byte where the unreadable message starts, and where the next complete message does. */
  readonly damage: { readonly at: number; readonly nextMessageAt: number } | null;
  /** For "end-of-stream": the byte after the marker (any bytes from there on are not part of the stream); else -1. */
  readonly markerEnd: number;
}

/** Where a stream's last complete record batch lies (walkStreamTail), for a reader that checks what a crash left of it. */
export interface LastBatch {
  /**
   * The end of the complete schema or record batch message before it (-1
   * when no record batch is complete): where the readable prefix ends if
   * the batch is found damaged by a crash (replay.ts: its body's last pages
   * never written).
   */
  readonly previousCompleteBytes: number;
  /** Where its buffers end in the bytes (its body's padding follows), or -1. */
  readonly dataEnd: number;
}

/** What a "damaged" walk found, for a refusal: `message 3 (at byte 1,024) cannot be read, yet ...`. */
export function describeDamage(walk: StreamWalk): string {
  const damage = walk.damage!;
  return `${messageName(walk.messages, damage.at)} cannot be read, yet a complete message follows at byte ${damage.nextMessageAt.toLocaleString("en-US")}: the bytes were damaged in place, not cut short by a crash`;
}

/**
 * The first offset from `from` (stepping 8 bytes, as messages of a stream
 * with continuation markers are aligned) where a complete message starts
 * whose metadata verifies against `schema`, or -1. Only when a walk stops at
 * lengths no writer writes: it tells a stream damaged in the middle from one
 * cut at its end. (Each candidate that fails costs a thrown error: a file
 * crafted to be full of them takes seconds per 8 MB.)
 */
function nextMessageAt(source: ByteSource, from: number, schema: SchemaLayout): number {
  for (let at = from; at + 8 <= source.length; at += 8) {
    if (int32At(source, at) !== CONTINUATION) continue;
    const metaLength = int32At(source, at + 4);
    const metaEnd = at + 8 + metaLength;
    // Above SCHEMA_METADATA_MAX no message is credible (as in the walk): not read, so that a crafted file's candidates cost little.
    if (metaLength <= 0 || metaLength % 8 !== 0 || metaLength > SCHEMA_METADATA_MAX || metaEnd > source.length) continue;
    try {
      const info = verifyMessage(source.slice(at + 8, metaLength), schema);
      if (!Number.isNaN(info.bodyLength) && metaEnd + info.bodyLength <= source.length) return at;
    } catch (error) {
      if (!(error instanceof ArrowIpcError)) throw error;
    }
  }
  return -1;
}

/**
 * Walks the messages of an Arrow IPC stream, verifying each one's metadata
 * before anything decodes it, and says where its complete messages end and
 * why the walk stopped. A message cut short, or whose lengths make no sense,
 * ends the walk (the messages before it are the readable prefix), unless its
 * lengths are ones no writer writes and a complete message follows it: then
 * the stop is "damaged" (a crash cuts a stream; it does not write impossible
 * lengths). A message whose metadata is complete but fails verification
 * throws an ArrowIpcError naming it.
 */
export function walkStream(bytes: Uint8Array | ByteSource): StreamWalk {
  return walkStreamTail(bytes).walk;
}

/** walkStream, and where the last complete record batch lies. */
export function walkStreamTail(input: Uint8Array | ByteSource): { walk: StreamWalk; lastBatch: LastBatch } {
  const source = input instanceof Uint8Array ? bytesSource(input) : input;
  const size = source.length;
  const continued = size >= 4 && int32At(source, 0) === CONTINUATION;
  let at = 0;
  let index = 0;
  let completeBytes = -1;
  let previousCompleteBytes = -1;
  let lastBatchDataEnd = -1;
  let schema: SchemaLayout | undefined;
  const result = (stop: StreamStop, markerEnd = -1): { walk: StreamWalk; lastBatch: LastBatch } => {
    const lastBatch = { previousCompleteBytes, dataEnd: lastBatchDataEnd };
    // Only after lengths no writer writes: a message with sane lengths that runs past the end is a cut, and
    // what lies after its start is its own bytes (a recorded frame may hold anything), or pages an OS crash
    // left unwritten before ones it wrote.
    if ((stop === "length" || stop === "body-length") && continued && schema !== undefined) {
      const next = nextMessageAt(source, at + 8, schema);
      if (next >= 0) return { walk: { completeBytes, messages: index, stop: "damaged", continued, damage: { at, nextMessageAt: next }, markerEnd: -1 }, lastBatch };
    }
    return { walk: { completeBytes, messages: index, stop, continued, damage: null, markerEnd }, lastBatch };
  };
  while (at + 4 <= size) {
    let metaStart = at + 4;
    let metaLength = int32At(source, at);
    if (metaLength === CONTINUATION) {
      if (at + 8 > size) break;
      metaLength = int32At(source, at + 4);
      metaStart = at + 8;
    }
    // The marker: continuation and zero length (what writers write), or a bare zero length that ends the bytes
    // (the legacy marker). Zeros inside the bytes without the continuation are a zero-filled tail, not a close.
    if (metaLength === 0) return metaStart === at + 8 || at + 4 === size ? result("end-of-stream", metaStart) : result("cut");
    const metaEnd = metaStart + metaLength;
    if (metaLength > SCHEMA_METADATA_MAX || (index === 0 && !continued && metaEnd > size)) return result("length");
    if (metaLength < 0 || (metaEnd - at) % 8 !== 0) return result("length");
    if (metaEnd > size) break;
    let info: MessageInfo;
    try {
      const metadata = source.slice(metaStart, metaLength);
      // A stream starts with its schema: a first message that is a valid batch is no stream (and cannot be checked without one).
      if (index === 0 && messageTable(new Flatbuffer(metadata)).headerType !== HEADER_SCHEMA) return result("not-schema");
      info = verifyMessage(metadata, schema);
    } catch (error) {
      if (!(error instanceof ArrowIpcError)) throw error;
      // Zeros from a byte of this metadata to the end of the file (its last page, and every one after it, not
      // written: the pages of a write need not reach the disk in order) are a crash's cut, not damage.
      if (zerosFrom(source, metaEnd - 1)) break;
      throw new ArrowIpcError(`the metadata of ${messageName(index, at)} is invalid: ${error.message}`, index);
    }
    if (Number.isNaN(info.bodyLength)) return result("body-length");
    const end = metaEnd + info.bodyLength;
    if (end > size) break;
    if (info.schema !== undefined) schema = info.schema;
    if (info.headerType === HEADER_RECORD_BATCH) {
      previousCompleteBytes = completeBytes;
      lastBatchDataEnd = metaEnd + (info.dataBytes ?? 0);
    }
    if (info.headerType !== HEADER_DICTIONARY_BATCH) completeBytes = end;
    at = end;
    index++;
  }
  return result("cut");
}

// -- files ---------------------------------------------------------------------------------

/**
 * Checks an Arrow IPC file as apache-arrow reads it (the footer and the
 * blocks it lists, not the messages in between): the magic at both ends, the
 * footer's length, flatbuffer and schema, and each block (checkBlock).
 * Throws an ArrowIpcError saying what is wrong.
 */
export function checkArrowFile(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!startsWithArrowMagic(bytes)) throw new ArrowIpcError(`it does not start with "ARROW1"`);
  if (bytes.length < ARROW_FILE_BYTES_MIN || !endsWithArrowMagic(bytes)) throw new ArrowIpcError(`it does not end with its footer and "ARROW1"`);
  const footerLength = view.getInt32(bytes.length - ARROW_MAGIC.length - 4, true);
  const footerStart = bytes.length - ARROW_MAGIC.length - 4 - footerLength;
  if (footerLength <= 0 || footerStart < 8) throw new ArrowIpcError(`its footer length ${footerLength} does not fit the file`);
  let schema: SchemaLayout;
  let blocks: { kind: number; start: number; length: number }[];
  const footer: Flatbuffer = new Flatbuffer(bytes.subarray(footerStart, footerStart + footerLength));
  try {
    const root = footer.root("the footer");
    const version = footer.int16(root, 0, 0);
    if (version < VERSION_V4 || version > VERSION_V5) footer.fail(`its metadata version V${version + 1} is not V4 or V5`);
    const table = footer.child(root, 1, "the footer's schema");
    if (table === undefined) footer.fail("it has no schema");
    schema = schemaLayout(footer, table, version);
    footer.keyValues(root, 4, "the footer's");
    // Blocks are 24-byte structs: offset Int64, metaDataLength Int32 (and 4 bytes of padding), bodyLength Int64.
    const dictionaries = footer.vector(root, 2, 24, "the footer's dictionary blocks");
    const batches = footer.vector(root, 3, 24, "the footer's record batch blocks");
    blocks = [
      { kind: HEADER_DICTIONARY_BATCH, start: dictionaries?.start ?? 0, length: dictionaries?.length ?? 0 },
      { kind: HEADER_RECORD_BATCH, start: batches?.start ?? 0, length: batches?.length ?? 0 },
    ];
  } catch (error) {
    if (error instanceof ArrowIpcError) throw new ArrowIpcError(`its footer is invalid: ${error.message}`);
    throw error;
  }
  for (const list of blocks) {
    for (let i = 0; i < list.length; i++) {
      const entry = list.start + 24 * i;
      const block = { at: footer.int64At(entry), metaDataLength: footer.int32At(entry + 8), bodyLength: footer.int64At(entry + 16) };
      checkBlock(bytes, view, block, footerStart, list.kind, schema, `${HEADER_NOUNS[list.kind]} block ${i + 1} of its footer (at byte ${show(block.at)})`);
    }
  }
}

/**
 * Where the complete Arrow IPC file that `bytes` start with ends, when
 * bytes follow it (its closing "ARROW1" is not their last bytes: a file
 * with something appended), or -1 when no complete file is found. A file's
 * end is an "ARROW1" preceded by its footer's length, the footer starting
 * right after the end-of-stream marker of its messages (the Arrow file
 * format: the stream with its marker, the footer, its length, the magic),
 * and everything up to it passing checkArrowFile. The first such end is
 * taken: bytes appended after it are not the file's, whatever they hold.
 * Each "ARROW1" is a candidate, checked cheaply (the footer length and the
 * marker before the footer) before the footer is verified.
 */
export function arrowFileEnd(bytes: Uint8Array): number {
  if (!startsWithArrowMagic(bytes)) return -1;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = Buffer.from(ARROW_MAGIC);
  for (let at = buffer.indexOf(magic, 8); at >= 0; at = buffer.indexOf(magic, at + 1)) {
    const end = at + ARROW_MAGIC.length;
    if (end < ARROW_FILE_BYTES_MIN) continue;
    const footerLength = buffer.readInt32LE(at - 4);
    const footerStart = at - 4 - footerLength;
    // The end-of-stream marker (continuation, zero length) just before the footer, after the magic and its padding.
    if (footerLength <= 0 || footerStart < 16 || buffer.readInt32LE(footerStart - 8) !== CONTINUATION || buffer.readInt32LE(footerStart - 4) !== 0) continue;
    try {
      checkArrowFile(bytes.subarray(0, end));
      return end;
    } catch (error) {
      if (!(error instanceof ArrowIpcError)) throw error;
    }
  }
  return -1;
}

/**
 * The message a file's block points at: inside the file before `limit` (the
 * footer), 8-byte aligned, of `kind`, its metadata verified, its lengths
 * those the block says (apache-arrow reads both: a block's body length
 * beyond the safe integers throws there).
 */
function checkBlock(bytes: Uint8Array, view: DataView, block: { at: number; metaDataLength: number; bodyLength: number }, limit: number, kind: number, schema: SchemaLayout, name: string): void {
  const at = block.at;
  if (!(at >= 8 && at + 8 <= limit && at % 8 === 0)) throw new ArrowIpcError(`${name} lies outside the file's messages`);
  const continued = view.getInt32(at, true) === CONTINUATION;
  const metaStart = continued ? at + 8 : at + 4;
  const metaLength = view.getInt32(continued ? at + 4 : at, true);
  const metaEnd = metaStart + metaLength;
  if (metaLength <= 0 || (metaEnd - at) % 8 !== 0 || metaEnd > limit) throw new ArrowIpcError(`${name}: its message's metadata length ${metaLength} is not padded to 8 bytes or runs past the footer`);
  if (metaEnd - at !== block.metaDataLength) throw new ArrowIpcError(`${name}: its metadata length ${block.metaDataLength} is not its message's ${metaEnd - at}`);
  let info: MessageInfo;
  try {
    info = verifyMessage(bytes.subarray(metaStart, metaEnd), schema);
  } catch (error) {
    if (error instanceof ArrowIpcError) throw new ArrowIpcError(`${name}: the metadata of its message is invalid: ${error.message}`);
    throw error;
  }
  if (info.headerType !== kind) throw new ArrowIpcError(`${name}: its message is a ${HEADER_NOUNS[info.headerType]}`);
  if (!(info.bodyLength === block.bodyLength)) throw new ArrowIpcError(`${name}: its body length ${show(block.bodyLength)} is not its message's ${show(info.bodyLength)}`);
  if (!(metaEnd + info.bodyLength <= limit)) throw new ArrowIpcError(`${name}: its message's body of ${info.bodyLength} bytes runs past the footer`);
}
