/**
 * The shared checks of Arrow IPC files and streams (src/record/arrow-files.ts):
 * the message walk, the flatbuffer verifier on good messages and on messages
 * damaged by hand (each field the verifier follows, pointed outside the
 * metadata or made implausible), the file footer and its blocks, and a
 * seeded property flipping bytes anywhere in a small recording and a small
 * input log, run in a child process so that a runaway allocation is seen.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Field, Int32, Message, Schema, Struct, Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import {
  ArrowIpcError,
  checkArrowFile,
  describeDamage,
  HEADER_DICTIONARY_BATCH,
  HEADER_RECORD_BATCH,
  HEADER_SCHEMA,
  NESTING_MAX,
  verifyMessage,
  walkStream,
  type SchemaLayout,
} from "../../src/record/arrow-files.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { gapFrame, MdRecordingWriter } from "../../src/record/md-recording.ts";
import { runScenario } from "../../src/sim/runner.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "arrow-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEPTH = "/v2/market/ETHRUSDPERP/depth";
const EXECUTIONS = "/v2/market/ETHRUSDPERP/perpExecutions";
const text = (value: string) => new TextEncoder().encode(value);

/** A small recording: 8 rows in batches of 3, two dictionaries, one of them growing (a delta batch), nulls. */
function writeRecording(path: string, close = true): MdRecordingWriter {
  const writer = new MdRecordingWriter(path, { source: "test", channels: [DEPTH], startMicros: 1 }, { batchRows: 3 });
  for (let i = 0; i < 8; i++) {
    if (i % 4 === 3) writer.append(1_000 + i, "gap", null, null, gapFrame(1012, "resync"));
    else writer.append(1_000 + i, "data", i < 4 ? DEPTH : EXECUTIONS, i, text(`{"type":"channel_data","timestamp":${i},"channel":"${DEPTH}","data":{}}`));
  }
  if (close) writer.close();
  return writer;
}

let recording: Uint8Array;
let logFile: Uint8Array;
let logStream: Uint8Array;

beforeAll(async () => {
  writeRecording(join(dir, "recording.arrow"));
  recording = new Uint8Array(readFileSync(join(dir, "recording.arrow")));
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 0.3, observers: [recorder] });
  recorder.write(join(dir, "inputs.arrow"));
  logFile = new Uint8Array(readFileSync(join(dir, "inputs.arrow")));
  // The live server's log: the same table as an Arrow IPC stream.
  logStream = tableToIPC(tableFromIPC(logFile), "stream");
  writeFileSync(join(dir, "inputs-stream.arrow"), logStream);
}, 120_000);

// -- reading the format independently (apache-arrow's decode, hand-read flatbuffers) -------

interface Framed {
  /** The message's first byte (its continuation marker). */
  readonly at: number;
  readonly metadata: Uint8Array;
  readonly headerType: number;
  readonly bodyLength: number;
  /** The byte after its body. */
  readonly end: number;
}

/** The messages of a whole stream, decoded by apache-arrow (for good bytes only). */
function framed(stream: Uint8Array, from = 0): Framed[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: Framed[] = [];
  let at = from;
  while (view.getInt32(at + 4, true) !== 0) {
    const metadata = stream.slice(at + 8, at + 8 + view.getInt32(at + 4, true));
    const message = Message.decode(metadata);
    const end = at + 8 + metadata.length + message.bodyLength;
    out.push({ at, metadata, headerType: message.headerType, bodyLength: message.bodyLength, end });
    at = end;
  }
  return out;
}

const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** The position an offset (uoffset) stored at `at` points to. */
const deref = (bytes: Uint8Array, at: number) => at + viewOf(bytes).getUint32(at, true);
/** Where field `slot` of the table at `table` is stored (-1 when absent). */
function fieldAt(bytes: Uint8Array, table: number, slot: number): number {
  const view = viewOf(bytes);
  const vtable = table - view.getInt32(table, true);
  const entry = 4 + 2 * slot;
  if (entry >= view.getUint16(vtable, true)) return -1;
  const offset = view.getUint16(vtable + entry, true);
  return offset === 0 ? -1 : table + offset;
}
/** The table (or vector) field `slot` of `table` points to. */
const childOf = (bytes: Uint8Array, table: number, slot: number) => deref(bytes, fieldAt(bytes, table, slot));
const rootOf = (bytes: Uint8Array) => deref(bytes, 0);
/** A message's header table (a Schema, RecordBatch or DictionaryBatch). */
const headerOf = (metadata: Uint8Array) => childOf(metadata, rootOf(metadata), 2);
const setInt64 = (bytes: Uint8Array, at: number, value: number) => viewOf(bytes).setBigInt64(at, BigInt(value), true);

/** What verifyMessage throws for `metadata`: an ArrowIpcError, whose message is returned. */
function problem(metadata: Uint8Array, schema: SchemaLayout | undefined): string {
  try {
    verifyMessage(metadata, schema);
  } catch (error) {
    expect(error).toBeInstanceOf(ArrowIpcError);
    return (error as Error).message;
  }
  throw new Error("verified, not refused");
}

/** The recording's schema layout, its first record batch message and its first dictionary batch message. */
function recordingParts(): { schema: SchemaLayout; batch: Framed; dictionary: Framed } {
  const messages = framed(recording);
  const schema = verifyMessage(messages[0]!.metadata, undefined).schema!;
  // The channel dictionary (id 1): the kind dictionary's id is 0, the default, which the writer leaves out.
  const dictionary = messages.filter((m) => m.headerType === HEADER_DICTIONARY_BATCH)[1]!;
  return { schema, batch: messages.find((m) => m.headerType === HEADER_RECORD_BATCH)!, dictionary };
}

// -- the verifier ----------------------------------------------------------------------------

describe("verifyMessage", () => {
  it("verifies every message of good streams, agreeing with apache-arrow on the header type and body length", () => {
    for (const stream of [recording, logStream]) {
      const messages = framed(stream);
      expect(messages.map((m) => m.headerType)).toContain(HEADER_DICTIONARY_BATCH);
      let schema: SchemaLayout | undefined;
      for (const message of messages) {
        const info = verifyMessage(message.metadata, schema);
        expect(info.headerType).toBe(message.headerType);
        expect(info.bodyLength).toBe(message.bodyLength);
        if (info.headerType === HEADER_SCHEMA) schema = info.schema;
      }
      expect(schema!.fields.length).toBe(5);
    }
  });

  it("refuses a vector whose length runs past the metadata: the schema's fields and custom metadata, a batch's nodes and buffers", () => {
    const { schema, batch } = recordingParts();
    const schemaMessage = framed(recording)[0]!.metadata;
    for (const [slot, name] of [
      [1, "the schema's fields"],
      [2, "the schema's custom metadata"],
    ] as const) {
      const damaged = schemaMessage.slice();
      viewOf(damaged).setUint32(childOf(damaged, headerOf(damaged), slot), 0x7fff_ffff, true);
      expect(problem(damaged, undefined)).toMatch(new RegExp(`^${name}: its vector of 2147483647 entries of 4 bytes \\(at byte \\d+\\) runs past the metadata \\(${damaged.length} bytes\\)$`));
    }
    for (const [slot, name] of [
      [1, "nodes"],
      [2, "buffers"],
    ] as const) {
      const damaged = batch.metadata.slice();
      viewOf(damaged).setUint32(childOf(damaged, headerOf(damaged), slot), 0x10_0000, true);
      expect(problem(damaged, schema)).toMatch(new RegExp(`^the record batch's ${name}: its vector of 1048576 entries of 16 bytes .* runs past the metadata`));
    }
  });

  it("refuses an offset or a vtable outside the metadata", () => {
    const metadata = framed(recording)[0]!.metadata;
    const root = metadata.slice();
    viewOf(root).setUint32(0, root.length, true);
    expect(problem(root, undefined)).toBe(`the message: offset ${root.length} at byte 0 points outside the metadata (${root.length} bytes)`);
    const vtable = metadata.slice();
    viewOf(vtable).setInt32(rootOf(vtable), -1_000_000, true);
    expect(problem(vtable, undefined)).toMatch(/^the message: its vtable \(at byte \d+\) lies outside the metadata/);
    const field = metadata.slice();
    // The first field's name: its offset pointed backwards, out of the buffer.
    const name = fieldAt(field, deref(field, childOf(field, headerOf(field), 1) + 4), 0);
    viewOf(field).setInt32(name, -name - 4, true);
    expect(problem(field, undefined)).toMatch(/^field 1's name: offset -\d+ at byte \d+ points outside the metadata/);
  });

  it("refuses a header it cannot read: a tensor, metadata version V3, a batch before any schema, a dictionary id no field has", () => {
    const { schema, batch, dictionary } = recordingParts();
    const tensor = batch.metadata.slice();
    tensor[fieldAt(tensor, rootOf(tensor), 1)] = 4;
    expect(problem(tensor, schema)).toBe("its header type 4 (tensor) is not a schema, dictionary batch or record batch");
    const v3 = batch.metadata.slice();
    viewOf(v3).setInt16(fieldAt(v3, rootOf(v3), 0), 2, true);
    expect(problem(v3, schema)).toBe("its metadata version V3 is not V4 or V5");
    expect(problem(batch.metadata, undefined)).toBe("it is a record batch before any schema");
    const unknown = dictionary.metadata.slice();
    setInt64(unknown, fieldAt(unknown, headerOf(unknown), 0), 7);
    expect(problem(unknown, schema)).toBe("it is a dictionary batch for id 7, which no schema field has");
  });

  it("refuses a buffer outside the body or not 8-byte aligned", () => {
    const { schema, batch } = recordingParts();
    const buffers = (metadata: Uint8Array) => childOf(metadata, headerOf(metadata), 2) + 4;
    const outside = batch.metadata.slice();
    setInt64(outside, buffers(outside) + 16, batch.bodyLength);
    expect(problem(outside, schema)).toMatch(new RegExp(`^the record batch's buffer 2 \\(offset ${batch.bodyLength}, length \\d+\\) lies outside its body \\(${batch.bodyLength} bytes\\)$`));
    const huge = batch.metadata.slice();
    setInt64(huge, buffers(huge) + 8, 2 ** 40);
    expect(problem(huge, schema)).toMatch(/^the record batch's buffer 1 \(offset 0, length 1099511627776\) lies outside its body/);
    const misaligned = batch.metadata.slice();
    setInt64(misaligned, buffers(misaligned), 4); // buffer 1: recvMicros's empty validity bitmap
    expect(problem(misaligned, schema)).toBe("the record batch's buffer 1 (offset 4) is not 8-byte aligned");
  });

  it("refuses lengths the buffers cannot hold: a batch or node longer than its values, a null count above the length", () => {
    const { schema, batch, dictionary } = recordingParts();
    const nodes = (metadata: Uint8Array, header = headerOf(metadata)) => childOf(metadata, header, 1) + 4;
    // The batch's length (3 rows): a billion rows the nodes do not have.
    const rows = batch.metadata.slice();
    setInt64(rows, fieldAt(rows, headerOf(rows), 0), 1_000_000_000);
    expect(problem(rows, schema)).toBe("the record batch's field node 1 does not have the batch's length 1000000000");
    // recvMicros (Int64, 24 bytes of values) claiming a thousand rows.
    const node = batch.metadata.slice();
    setInt64(node, nodes(node), 1_000);
    expect(problem(node, schema)).toBe("the record batch's field node 1 (length 1000) has values of 24 bytes, fewer than the 8000 its length takes");
    const nulls = batch.metadata.slice();
    setInt64(nulls, nodes(nulls) + 8, 4);
    expect(problem(nulls, schema)).toBe("the record batch's field node 1 has length 3 and null count 4");
    // The dictionary's values (Utf8): a length its offsets cannot hold; the node of a dictionary batch is inside its data.
    const values = dictionary.metadata.slice();
    const data = childOf(values, headerOf(values), 1);
    setInt64(values, nodes(values, data), 2 ** 31);
    expect(problem(values, schema)).toMatch(/^the dictionary batch's field node 1 \(length 2147483648\) has offsets of \d+ bytes, fewer than the 8589934596 its length takes$/);
  });

  it("refuses node and buffer counts its schema does not take", () => {
    const { schema, batch } = recordingParts();
    const fewer = batch.metadata.slice();
    const nodes = childOf(fewer, headerOf(fewer), 1);
    viewOf(fewer).setUint32(nodes, 4, true);
    expect(problem(fewer, schema)).toBe("the record batch has 4 field nodes, fewer than its fields");
    const buffers = batch.metadata.slice();
    const vector = childOf(buffers, headerOf(buffers), 2);
    viewOf(buffers).setUint32(vector, viewOf(buffers).getUint32(vector, true) - 1, true);
    expect(problem(buffers, schema)).toMatch(/^the record batch has \d+ buffers, fewer than its fields take$/);
  });

  it(`refuses fields nested more than ${NESTING_MAX} deep`, () => {
    const nested = (depth: number) => {
      let field: Field = new Field("leaf", new Int32(), true);
      for (let level = 1; level < depth; level++) field = new Field(`level${level}`, new Struct([field]), true);
      return framed(tableToIPC(new Table(new Schema([field])), "stream"))[0]!.metadata;
    };
    expect(verifyMessage(nested(NESTING_MAX), undefined).schema!.fields.length).toBe(1);
    expect(problem(nested(NESTING_MAX + 1), undefined)).toMatch(new RegExp(`nests fields more than ${NESTING_MAX} deep$`));
  });

  it("bounds the work when tables are shared: children that all point at one table are not walked 2^depth times", () => {
    // 40 levels, each a struct of (the next level, an Int32); then each level's second child is pointed at its first.
    let field: Field = new Field("leaf", new Int32(), true);
    for (let level = 1; level < 40; level++) field = new Field(`level${level}`, new Struct([field, new Field(`int${level}`, new Int32(), true)]), true);
    const metadata = framed(tableToIPC(new Table(new Schema([field])), "stream"))[0]!.metadata.slice();
    expect(verifyMessage(metadata, undefined).schema).toBeDefined();
    let table = deref(metadata, childOf(metadata, headerOf(metadata), 1) + 4);
    for (let level = 1; level < 40; level++) {
      const children = childOf(metadata, table, 5);
      const first = deref(metadata, children + 4);
      viewOf(metadata).setUint32(children + 8, first - (children + 8), true);
      table = first;
    }
    expect(problem(metadata, undefined)).toMatch(/the metadata holds more tables than its \d+ bytes can \(shared or cyclic tables\)$/);
  });
});

// -- the stream walk -------------------------------------------------------------------------

describe("walkStream", () => {
  it("walks a closed stream to its end-of-stream marker", () => {
    const messages = framed(recording);
    expect(walkStream(recording)).toEqual({ completeBytes: recording.length - 8, messages: messages.length, stop: "end-of-stream", continued: true, damage: null, markerEnd: recording.length });
    expect(walkStream(logStream).stop).toBe("end-of-stream");
  });

  it("ends a cut stream at its last complete schema or record batch (not at a dictionary batch)", () => {
    const messages = framed(recording);
    const lastBatch = messages.findLast((m) => m.headerType === HEADER_RECORD_BATCH)!;
    const beforeLast = messages[messages.indexOf(lastBatch) - 1]!;
    expect(walkStream(recording.subarray(0, lastBatch.end - 1))).toMatchObject({ completeBytes: beforeLast.end, stop: "cut" });
    expect(walkStream(recording.subarray(0, lastBatch.end))).toMatchObject({ completeBytes: lastBatch.end, stop: "cut" });
    // A dictionary batch with no record batch after it is not part of the readable prefix.
    const dictionary = messages.find((m) => m.headerType === HEADER_DICTIONARY_BATCH)!;
    expect(walkStream(recording.subarray(0, dictionary.end))).toMatchObject({ completeBytes: messages[0]!.end, messages: 2, stop: "cut" });
    expect(walkStream(recording.subarray(0, 5))).toMatchObject({ completeBytes: -1, messages: 0, stop: "cut", continued: true });
  });

  it("takes zeros for a cut tail: after the messages, and in place of a message's metadata", () => {
    const withZeros = new Uint8Array(recording.length + 4_096);
    withZeros.set(recording.subarray(0, recording.length - 8));
    expect(walkStream(withZeros)).toMatchObject({ completeBytes: recording.length - 8, stop: "cut" });
    // The prefix of the next message written (continuation, length), its metadata not.
    const last = framed(recording).at(-1)!;
    const zeroMetadata = new Uint8Array(last.end);
    zeroMetadata.set(recording.subarray(0, last.at + 8));
    expect(walkStream(zeroMetadata)).toMatchObject({ completeBytes: last.at, stop: "cut" });
  });

  it("stops at lengths that make no sense: negative or unpadded metadata, a negative body", () => {
    const last = framed(recording).at(-1)!;
    const edit = (at: number, value: number) => {
      const edited = recording.slice();
      viewOf(edited).setInt32(at, value, true);
      return edited;
    };
    expect(walkStream(edit(last.at + 4, -16))).toMatchObject({ completeBytes: last.at, stop: "length" });
    expect(walkStream(edit(last.at + 4, last.metadata.length + 4))).toMatchObject({ completeBytes: last.at, stop: "length" });
    const negative = recording.slice();
    setInt64(negative, last.at + 8 + fieldAt(last.metadata, rootOf(last.metadata), 3), -8);
    expect(walkStream(negative)).toMatchObject({ completeBytes: last.at, stop: "body-length" });
    // The first message: no stream at all.
    expect(walkStream(edit(4, 1 << 30)).stop).toBe("length");
    const dictionary = framed(recording)[1]!;
    expect(walkStream(recording.subarray(dictionary.at))).toMatchObject({ completeBytes: -1, stop: "not-schema" });
  });

  it("tells a stream damaged in the middle from one cut at its end: lengths no writer writes, with a complete message after them", () => {
    const messages = framed(recording);
    const batches = messages.filter((m) => m.headerType === HEADER_RECORD_BATCH);
    expect(batches.length).toBeGreaterThan(2);
    const middle = batches[1]!;
    const next = messages[messages.indexOf(middle) + 1]!;
    const edit = (value: number) => {
      const edited = recording.slice();
      viewOf(edited).setInt32(middle.at + 4, value, true);
      return edited;
    };
    // A length past the end (as a cut message has), a negative one, an unpadded one: each followed by a good message.
    for (const value of [1 << 28, -16, middle.metadata.length + 4]) {
      const walk = walkStream(edit(value));
      expect(walk, String(value)).toMatchObject({ stop: "damaged", messages: messages.indexOf(middle), damage: { at: middle.at, nextMessageAt: next.at } });
      expect(describeDamage(walk)).toBe(
        `message ${messages.indexOf(middle) + 1} (at byte ${middle.at.toLocaleString("en-US")}) cannot be read, yet a complete message follows at byte ${next.at.toLocaleString("en-US")}: the bytes were damaged in place, not cut short by a crash`,
      );
    }
    // A sane length that runs past the end is a cut, whatever follows (a recorded frame may hold anything).
    const pastEnd = recording.length - middle.at;
    expect(walkStream(edit(pastEnd - (pastEnd % 8)))).toMatchObject({ stop: "cut", damage: null, completeBytes: batches[0]!.end });
    // The same message cut where it starts, or zeros from there on (what a crash leaves): cut, as before, after the batch before it.
    expect(walkStream(recording.subarray(0, middle.at + 12))).toMatchObject({ stop: "cut", damage: null, completeBytes: batches[0]!.end });
    const zeroed = recording.slice();
    zeroed.fill(0, middle.at);
    expect(walkStream(zeroed)).toMatchObject({ stop: "cut", damage: null, completeBytes: batches[0]!.end });
  });

  it("throws an ArrowIpcError naming the message whose metadata is damaged", () => {
    const messages = framed(recording);
    const batch = messages.find((m) => m.headerType === HEADER_RECORD_BATCH)!;
    const damaged = recording.slice();
    const metadata = damaged.subarray(batch.at + 8, batch.at + 8 + batch.metadata.length);
    viewOf(metadata).setUint32(childOf(metadata, headerOf(metadata), 1), 0x7fff_ffff, true);
    let thrown: unknown;
    try {
      walkStream(damaged);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArrowIpcError);
    expect((thrown as ArrowIpcError).messageIndex).toBe(messages.indexOf(batch));
    expect((thrown as Error).message).toMatch(new RegExp(`^the metadata of message ${messages.indexOf(batch) + 1} \\(at byte ${batch.at.toLocaleString("en-US")}\\) is invalid: the record batch's nodes: its vector of 2147483647 entries`));
  });
});

// -- files -----------------------------------------------------------------------------------

describe("checkArrowFile", () => {
  /** The footer's flatbuffer, its first byte in the file, and its root table. */
  const footerOf = (file: Uint8Array) => {
    const length = viewOf(file).getInt32(file.length - 10, true);
    const start = file.length - 10 - length;
    const footer = file.subarray(start, start + length);
    return { footer, start, root: rootOf(footer) };
  };
  const refusal = (file: Uint8Array): string => {
    try {
      checkArrowFile(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ArrowIpcError);
      return (error as Error).message;
    }
    throw new Error("checked, not refused");
  };

  it("passes a good file: its footer, schema, dictionary and record batch blocks", () => {
    expect(() => checkArrowFile(logFile)).not.toThrow();
    const { footer, root } = footerOf(logFile);
    expect(viewOf(footer).getUint32(childOf(footer, root, 2), true)).toBeGreaterThan(0);
  });

  it("refuses a file without its magic or whose footer length does not fit", () => {
    expect(refusal(logStream)).toBe(`it does not start with "ARROW1"`);
    expect(refusal(logFile.subarray(0, logFile.length - 1))).toBe(`it does not end with its footer and "ARROW1"`);
    const long = logFile.slice();
    viewOf(long).setInt32(long.length - 10, long.length, true);
    expect(refusal(long)).toBe(`its footer length ${long.length} does not fit the file`);
  });

  it("refuses a damaged footer: its schema's fields vector, its blocks vector", () => {
    const fields = logFile.slice();
    const { footer, root } = footerOf(fields);
    viewOf(footer).setUint32(childOf(footer, childOf(footer, root, 1), 1), 0x7fff_ffff, true);
    expect(refusal(fields)).toMatch(/^its footer is invalid: the schema's fields: its vector of 2147483647 entries of 4 bytes/);
    const blocks = logFile.slice();
    const parts = footerOf(blocks);
    viewOf(parts.footer).setUint32(childOf(parts.footer, parts.root, 3), 1_000_000, true);
    expect(refusal(blocks)).toMatch(/^its footer is invalid: the footer's record batch blocks: its vector of 1000000 entries of 24 bytes/);
  });

  it("refuses a block outside the messages, of the wrong kind, or whose lengths are not its message's", () => {
    const edit = (change: (footer: Uint8Array, batchBlock: number, dictionaryBlock: number) => void) => {
      const file = logFile.slice();
      const { footer, root } = footerOf(file);
      change(footer, childOf(footer, root, 3) + 4, childOf(footer, root, 2) + 4);
      return file;
    };
    expect(refusal(edit((footer, block) => setInt64(footer, block, 4)))).toBe("record batch block 1 of its footer (at byte 4) lies outside the file's messages");
    expect(refusal(edit((footer, block) => setInt64(footer, block, 2 ** 40)))).toMatch(/^record batch block 1 of its footer \(at byte 1099511627776\) lies outside/);
    const wrongKind = edit((footer, block, dictionary) => footer.copyWithin(block, dictionary, dictionary + 24));
    expect(refusal(wrongKind)).toMatch(/^record batch block 1 of its footer \(at byte \d+\): its message is a dictionary batch$/);
    const body = edit((footer, block) => setInt64(footer, block + 16, Number(viewOf(footer).getBigInt64(block + 16, true)) + 8));
    expect(refusal(body)).toMatch(/^record batch block 1 of its footer \(at byte \d+\): its body length \d+ is not its message's \d+$/);
    const metadata = edit((footer, block) => viewOf(footer).setInt32(block + 8, viewOf(footer).getInt32(block + 8, true) + 8, true));
    expect(refusal(metadata)).toMatch(/^record batch block 1 of its footer \(at byte \d+\): its metadata length \d+ is not its message's \d+$/);
  });

  it("refuses a block whose message's metadata is damaged", () => {
    const file = logFile.slice();
    const { footer, root } = footerOf(file);
    const at = Number(viewOf(footer).getBigInt64(childOf(footer, root, 3) + 4, true));
    const length = viewOf(file).getInt32(at + 4, true);
    const metadata = file.subarray(at + 8, at + 8 + length);
    viewOf(metadata).setUint32(childOf(metadata, headerOf(metadata), 2), 0x7fff_ffff, true);
    expect(refusal(file)).toMatch(new RegExp(`^record batch block 1 of its footer \\(at byte ${at}\\): the metadata of its message is invalid: the record batch's buffers: its vector`));
  });
});

// -- bytes flipped anywhere ----------------------------------------------------------------

describe("a recording or input log with bytes flipped anywhere", () => {
  it("is read, or refused with the reader's own error naming the file: never another error, never a runaway allocation", { timeout: 120_000 }, async () => {
    // A recording reads in a fraction of a millisecond; an input log is written to a file and its payloads parsed.
    const runs = { recording: 8_000, logFile: 2_000, logStream: 2_000 };
    const paths = [join(dir, "recording.arrow"), join(dir, "inputs.arrow"), join(dir, "inputs-stream.arrow")];
    // Its own process with a small heap and a time limit: a runaway allocation or loop ends it, and fails here.
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(
        process.execPath,
        ["--max-old-space-size=256", "--import", "tsx", join(ROOT, "test/record/arrow-flips-child.ts"), ...paths, dir, String(runs.recording), String(runs.logFile)],
        { cwd: ROOT, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      ));
    } catch (error) {
      const lastFlips = join(dir, "last-flips.json");
      const last = existsSync(lastFlips) ? readFileSync(lastFlips, "utf8") : "its start";
      throw new Error(`the byte-flip property failed or its process died, at ${last}: ${(error as Error).message.slice(0, 2_000)}`);
    }
    const result = JSON.parse(stdout) as Record<keyof typeof runs, { runs: number; read: number; refused: number }>;
    for (const [file, tally] of Object.entries(result)) {
      const numRuns = runs[file as keyof typeof runs];
      expect(tally.runs).toBe(numRuns);
      expect(tally.read + tally.refused).toBe(numRuns);
      // Most flips land in metadata or checked columns: refusals dominate, and some flips are harmless.
      expect(tally.refused).toBeGreaterThan(numRuns / 10);
      expect(tally.read).toBeGreaterThan(0);
    }
    console.log(`byte flips (seed 42): ${JSON.stringify(result)}`);
  });
});
