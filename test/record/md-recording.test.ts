import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Binary, Field, Float64, Message, RecordBatch, RecordBatchReader, Schema, Table, tableFromArrays, tableFromIPC, tableToIPC } from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  completeStreamPrefix,
  describeTrailing,
  describeTruncation,
  gapFrame,
  kindOfType,
  MD_RECORDING_FORMAT,
  MdRecordingError,
  MdRecordingWriter,
  parseEnvelope,
  readMdRecording,
  scanEnvelope,
  type MdRowKind,
} from "../../src/record/md-recording.ts";

const dir = mkdtempSync(join(tmpdir(), "md-recording-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (text: string) => new TextEncoder().encode(text);

interface Row {
  recvMicros: number;
  kind: MdRowKind;
  channel: string | null;
  timestampMs: number | null;
  frame: Uint8Array | null;
}

const DEPTH = "/v2/market/ETHRUSDPERP/depth";
const EXECUTIONS = "/v2/market/ETHRUSDPERP/perpExecutions";
const META = { source: "ws://127.0.0.1:1/ws", channels: [DEPTH, EXECUTIONS], startMicros: 1_767_225_600_000_123 };

function write(path: string, rows: readonly Row[], batchRows?: number): MdRecordingWriter {
  const writer = new MdRecordingWriter(path, META, batchRows === undefined ? {} : { batchRows });
  for (const row of rows) writer.append(row.recvMicros, row.kind, row.channel, row.timestampMs, row.frame);
  writer.close();
  return writer;
}

/** Rows with each frame as a latin1 string (lossless, and quick to compare). */
function norm(rows: readonly Row[]): unknown[] {
  return rows.map((row) => ({ ...row, frame: row.frame === null ? null : Buffer.from(row.frame).toString("latin1") }));
}

function readRows(path: string | Uint8Array): Row[] {
  const recording = readMdRecording(path);
  const rows: Row[] = [];
  for (let i = 0; i < recording.length; i++) {
    const frame = recording.frame(i);
    rows.push({ recvMicros: recording.recvMicros(i), kind: recording.kind(i), channel: recording.channel(i), timestampMs: recording.timestampMs(i), frame: frame === null ? null : frame.slice() });
  }
  return rows;
}

/** Every kind, nulls in each nullable column, non-ASCII bytes, an empty frame, a channel not in the metadata. */
const ROWS: Row[] = [
  { recvMicros: 1_767_225_600_000_200, kind: "subscribed", channel: DEPTH, timestampMs: null, frame: bytes(`{"type":"subscribed","channel":"${DEPTH}","contents":{"symbol":"ETHRUSDPERP","type":"SNAPSHOT","bids":[],"asks":[],"updatedAt":0}}`) },
  { recvMicros: 1_767_225_600_001_000, kind: "data", channel: DEPTH, timestampMs: 1_767_225_600_001, frame: bytes(`{"type":"channel_data","timestamp":1767225600001,"channel":"${DEPTH}","data":{"note":"prix é ü 価格 🚀"}}`) },
  { recvMicros: 1_767_225_600_002_000, kind: "error", channel: null, timestampMs: null, frame: bytes(`{"type":"error","message":"Invalid JSON"}`) },
  { recvMicros: 1_767_225_600_002_500, kind: "error", channel: "/v2/market/NOPE/depth", timestampMs: null, frame: bytes(`{"type":"error","message":"Invalid channel name","channel":"/v2/market/NOPE/depth"}`) },
  { recvMicros: 1_767_225_600_003_000, kind: "gap", channel: null, timestampMs: null, frame: gapFrame(1012, "resync ✓") },
  { recvMicros: 1_767_225_600_004_000, kind: "data", channel: EXECUTIONS, timestampMs: -5, frame: new Uint8Array([0xff, 0x00, 0xfe, 0x80]) },
  { recvMicros: -1, kind: "data", channel: EXECUTIONS, timestampMs: 2 ** 53 - 1, frame: new Uint8Array(0) },
  { recvMicros: 2 ** 53 - 1, kind: "gap", channel: null, timestampMs: null, frame: null },
];

describe("MdRecordingWriter and readMdRecording", () => {
  it("round-trips every kind, nulls, negative and large integers, and raw non-ASCII bytes", () => {
    const path = join(dir, "round-trip.arrow");
    const writer = write(path, ROWS);
    expect(writer.rows).toBe(ROWS.length);
    expect(readRows(path)).toEqual(ROWS);
    const recording = readMdRecording(path);
    expect(recording.source).toBe(META.source);
    expect(recording.channels).toEqual(META.channels);
    expect(recording.startMicros).toBe(META.startMicros);
    expect(recording.frameText(1)).toContain("prix é ü 価格 🚀");
    expect(JSON.parse(recording.frameText(4)!)).toEqual({ code: 1012, reason: "resync ✓" });
    expect(recording.frameText(7)).toBeNull();
    expect(() => recording.kind(ROWS.length)).toThrow(RangeError);
  });

  it("writes an Arrow IPC stream with the documented columns, types and metadata", () => {
    const path = join(dir, "schema.arrow");
    write(path, ROWS, 3);
    const table = tableFromIPC(readFileSync(path));
    expect(table.schema.fields.map((field) => `${field.name}:${String(field.type)}:${field.nullable}`)).toEqual([
      "recvMicros:Int64:false",
      "kind:Dictionary<Int32, Utf8>:false",
      "channel:Dictionary<Int32, Utf8>:true",
      "timestampMs:Int64:true",
      "frame:Binary:true",
    ]);
    expect(table.schema.metadata.get("shadowbook.format")).toBe(MD_RECORDING_FORMAT);
    expect(JSON.parse(table.schema.metadata.get("shadowbook.channels")!)).toEqual(META.channels);
    expect(table.schema.metadata.get("shadowbook.startMicros")).toBe(String(META.startMicros));
    expect(table.numRows).toBe(ROWS.length);
    // Batches of 3 rows: 8 rows make 3 batches; apache-arrow reads the same values.
    expect(table.batches.map((batch) => batch.numRows)).toEqual([3, 3, 2]);
    expect(table.getChild("kind")!.toArray()).toEqual(ROWS.map((row) => row.kind));
    expect([...table.getChild("channel")!]).toEqual(ROWS.map((row) => row.channel));
    expect([...table.getChild("timestampMs")!].map((value) => (value === null ? null : Number(value)))).toEqual(ROWS.map((row) => row.timestampMs));
  });

  it("appends each batch to the file as it is cut, and flush() cuts the pending rows", () => {
    const path = join(dir, "incremental.arrow");
    const writer = new MdRecordingWriter(path, META, { batchRows: 2 });
    const schemaOnly = readFileSync(path).length;
    expect(readMdRecording(path).length).toBe(0);
    writer.append(1, "data", DEPTH, 1, bytes("{}"));
    expect(readFileSync(path).length).toBe(schemaOnly); // pending
    writer.append(2, "data", DEPTH, 2, bytes("{}"));
    expect(readMdRecording(path).length).toBe(2); // a batch of 2 was written, no end marker yet
    writer.append(3, "gap", null, null, gapFrame(1001, "going away"));
    writer.flush();
    expect(readMdRecording(path).length).toBe(3);
    expect(writer.bytesWritten).toBe(readFileSync(path).length);
    writer.close();
    writer.close();
    expect(readMdRecording(path).kind(2)).toBe("gap");
    expect(() => writer.append(4, "data", DEPTH, 4, null)).toThrow(/closed/);
  });

  it("cuts every batchRows rows, with many batches and a growing channel dictionary", () => {
    const path = join(dir, "batches.arrow");
    const rows: Row[] = [];
    for (let i = 0; i < 2_500; i++) {
      const channel = i % 7 === 0 ? null : `/v2/market/M${i % 13}/depth`;
      rows.push({ recvMicros: 1_000_000 + i * 17, kind: channel === null ? "gap" : "data", channel, timestampMs: channel === null ? null : 1_000 + i, frame: i % 11 === 0 ? null : bytes(`{"i":${i},"pad":"${"x".repeat(i % 300)}"}`) });
    }
    write(path, rows, 256);
    expect(norm(readRows(path))).toEqual(norm(rows));
    const reader = RecordBatchReader.from(readFileSync(path));
    expect([...reader].map((batch) => batch.numRows)).toEqual([...Array(9).fill(256), 2_500 - 9 * 256]);
  });

  it("reads the complete batches of a file cut anywhere (a killed recorder)", () => {
    const path = join(dir, "truncated.arrow");
    const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({ recvMicros: i, kind: "data" as const, channel: DEPTH, timestampMs: i, frame: bytes(`{"row":${i}}`) }));
    const writer = new MdRecordingWriter(path, META, { batchRows: 4 });
    const ends: number[] = [readFileSync(path).length];
    for (const row of rows) {
      writer.append(row.recvMicros, row.kind, row.channel, row.timestampMs, row.frame);
      if (writer.rows % 4 === 0) ends.push(readFileSync(path).length);
    }
    // Not closed: two batches were written (rows 0-7); rows 8-9 are pending, like a killed process.
    const whole = readFileSync(path);
    expect(ends).toEqual([ends[0], ends[1], whole.length]);
    // Every 5th byte, and each side of the batch boundaries (inside a message's length, metadata, body).
    const cuts = new Set<number>();
    for (let cut = ends[0]!; cut <= whole.length; cut += 5) cuts.add(cut);
    for (const end of ends) for (let delta = -9; delta <= 9; delta++) if (end + delta >= ends[0]! && end + delta <= whole.length) cuts.add(end + delta);
    for (const cut of cuts) {
      const complete = cut < ends[1]! ? 0 : cut < whole.length ? 4 : 8;
      const prefix = whole.subarray(0, cut);
      expect(norm(readRows(prefix))).toEqual(norm(rows.slice(0, complete)));
      // No end-of-stream marker: the recording says where its complete batches end.
      expect(readMdRecording(prefix).truncated).toEqual({ fileBytes: cut, completeBytes: complete === 0 ? ends[0] : complete === 4 ? ends[1] : whole.length });
    }
    writeFileSync(join(dir, "cut.arrow"), whole.subarray(0, whole.length - 3));
    expect(readMdRecording(join(dir, "cut.arrow")).length).toBe(4);
    expect(() => readMdRecording(whole.subarray(0, ends[0]! - 1))).toThrow(/truncated before its schema/);
    writer.close();
    expect(completeStreamPrefix(readFileSync(path))).toBe(readFileSync(path).length - 8);
    expect(readMdRecording(path).truncated).toBeUndefined();
  });

  it("refuses a kind outside the four, unsafe integers, and a file of another format", () => {
    const writer = new MdRecordingWriter(join(dir, "refuse.arrow"), META);
    expect(() => writer.append(1, "pong" as MdRowKind, null, null, null)).toThrow(/kind "pong"/);
    expect(() => writer.append(1.5, "data", DEPTH, 1, null)).toThrow(/recvMicros/);
    expect(() => writer.append(1, "data", DEPTH, 2 ** 53, null)).toThrow(/timestampMs/);
    expect(writer.rows).toBe(0);
    writer.close();
    const other = join(dir, "other.arrow");
    writeFileSync(other, readFileSync(join(dir, "refuse.arrow")).toString("latin1").replace(MD_RECORDING_FORMAT, "md-recording/9"), "latin1");
    expect(() => readMdRecording(other)).toThrow(/shadowbook.format is "md-recording\/9"/);
  });
});

// -- files that are not recordings -------------------------------------------------------

/** A recording's refusal: an MdRecordingError (not a TypeError from apache-arrow) whose message matches. */
function refusal(read: () => unknown): MdRecordingError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(MdRecordingError);
    return error as MdRecordingError;
  }
  throw new Error("read, not refused");
}

/** Fixed pseudo-random bytes (xorshift32), no format at all. */
function noise(length: number, seed = 0x2545f491): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A one-row Arrow table with this metadata (an input log's, say). */
function arrowTable(metadata: Map<string, string>): Table {
  const plain = tableFromArrays({ timeMicros: new Float64Array([1]) });
  const schema = new Schema(plain.schema.fields, metadata);
  return new Table(schema, plain.batches.map((batch) => new RecordBatch(schema, batch.data)));
}

describe("readMdRecording refuses what is not a recording, naming the file", () => {
  const recordingBytes = () => {
    const path = join(dir, "good.arrow");
    write(path, ROWS, 3);
    return readFileSync(path);
  };

  it("a missing file, a directory, an empty file", () => {
    const missing = join(dir, "no-such.arrow");
    expect(refusal(() => readMdRecording(missing)).message).toBe(`md recording "${missing}" does not exist`);
    const directory = join(dir, "a-directory");
    mkdirSync(directory);
    expect(refusal(() => readMdRecording(directory)).message).toBe(`md recording "${directory}" is a directory, not a file`);
    const empty = join(dir, "empty.arrow");
    writeFileSync(empty, "");
    expect(refusal(() => readMdRecording(empty)).message).toBe(`md recording "${empty}" is not a market-data recording: the file is empty`);
    // The caller's name for the file (a scenario's field) replaces the default.
    expect(refusal(() => readMdRecording(empty, { name: `marketData.recording "empty.arrow"` })).message).toBe(`marketData.recording "empty.arrow" is not a market-data recording: the file is empty`);
  });

  it("bytes that are no Arrow IPC stream: random, text, too short, a stream that ends before its schema", () => {
    const random = join(dir, "random.bin");
    writeFileSync(random, noise(4_096));
    expect(refusal(() => readMdRecording(random)).message).toMatch(new RegExp(`^md recording "${random}" is not a market-data recording: it is not an Arrow IPC stream \\(`));
    for (const text of ["hello, world\n", '{"type":"channel_data"}', "ab"]) {
      expect(refusal(() => readMdRecording(bytes(text))).message).toMatch(/^md recording is not a market-data recording: it is not an Arrow IPC stream/);
    }
    expect(refusal(() => readMdRecording(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]))).message).toMatch(/not an Arrow IPC stream \(it ends before its schema\)/);
    // A prefix of a real stream is a truncated recording, not a foreign file.
    for (const length of [1, 4, 7, 8, 100]) expect(refusal(() => readMdRecording(recordingBytes().subarray(0, length))).message).toMatch(/truncated before its schema ends/);
  });

  it("an Arrow IPC file (an input log, an output table) and a stream of another format", () => {
    const inputLog = join(dir, "inputs.arrow");
    writeFileSync(inputLog, tableToIPC(arrowTable(new Map([["shadowbook.format", "input-log/1"]])), "file"));
    expect(refusal(() => readMdRecording(inputLog)).message).toBe(
      `md recording "${inputLog}" is not a market-data recording: it is an Arrow IPC file with shadowbook.format "input-log/1" (a run's input log), not an md-recording/1 stream`,
    );
    const orders = join(dir, "orders.arrow");
    writeFileSync(orders, tableToIPC(arrowTable(new Map()), "file"));
    expect(refusal(() => readMdRecording(orders)).message).toMatch(/is not a market-data recording: it is an Arrow IPC file with no shadowbook\.format/);
    // A recording converted to the file format: said so.
    const converted = tableToIPC(tableFromIPC(recordingBytes()), "file");
    expect(refusal(() => readMdRecording(converted)).message).toMatch(/it is an Arrow IPC file, and md-recording\/1 is an Arrow IPC stream/);
    // An input log written as a stream (the live server's) has the right shape but the wrong format.
    const liveLog = tableToIPC(arrowTable(new Map([["shadowbook.format", "input-log/1"]])), "stream");
    expect(refusal(() => readMdRecording(liveLog)).message).toBe(`md recording is not a market-data recording: shadowbook.format is "input-log/1" (a run's input log), expected "md-recording/1"`);
    const unmarked = tableToIPC(arrowTable(new Map()), "stream");
    expect(refusal(() => readMdRecording(unmarked)).message).toMatch(/shadowbook\.format is missing, expected "md-recording\/1"/);
  });

  it("the right format with wrong columns or metadata", () => {
    const fields = tableFromIPC(recordingBytes()).schema.fields;
    // A schema only (no rows needed to see the columns and metadata).
    const schemaOnly = (edit: (meta: Map<string, string>) => void, columns: readonly Field[] = fields) => {
      const meta = new Map(tableFromIPC(recordingBytes()).schema.metadata);
      edit(meta);
      return tableToIPC(new Table(new Schema([...columns], meta)), "stream");
    };
    const floatTime = schemaOnly(() => {}, [new Field("recvMicros", new Float64(), false), ...fields.slice(1)]);
    expect(refusal(() => readMdRecording(floatTime)).message).toBe(`md recording is not a valid md-recording/1 file: column "recvMicros" is Float64, expected Int64`);
    const renamed = schemaOnly(() => {}, [new Field("time", new Float64(), false)]);
    expect(refusal(() => readMdRecording(renamed)).message).toBe(`md recording is not a valid md-recording/1 file: column 0 is "time", expected "recvMicros"`);
    const binaryKind = schemaOnly(() => {}, [fields[0]!, new Field("kind", new Binary(), false), ...fields.slice(2)]);
    expect(refusal(() => readMdRecording(binaryKind)).message).toBe(`md recording is not a valid md-recording/1 file: column "kind" is Binary, expected Dictionary<Utf8>`);
    const badChannels = schemaOnly((meta) => meta.set("shadowbook.channels", "not json"));
    expect(refusal(() => readMdRecording(badChannels)).message).toBe(`md recording is not a valid md-recording/1 file: shadowbook.channels "not json" is not a JSON array of strings`);
    const badStart = schemaOnly((meta) => meta.set("shadowbook.startMicros", "soon"));
    expect(refusal(() => readMdRecording(badStart)).message).toBe(`md recording is not a valid md-recording/1 file: shadowbook.startMicros "soon" is not an integer`);
  });

  // Flips in the batches' bodies only: flips anywhere, the messages' flatbuffer metadata included (verified before
  // apache-arrow decodes it: src/record/arrow-files.ts), are the property of test/record/arrow-files.test.ts, run in a
  // process of its own so that a runaway allocation is seen.
  it("never fails with anything but an MdRecordingError: random bytes, a recording cut anywhere or with bytes of its batches' bodies flipped", () => {
    const good = new Uint8Array(recordingBytes());
    const bodies = bodyOffsets(good);
    expect(bodies.length).toBeGreaterThan(100);
    const attempt = (input: Uint8Array) => {
      try {
        const recording = readMdRecording(input);
        for (let i = 0; i < recording.length; i++) recording.frame(i);
      } catch (error) {
        expect(error).toBeInstanceOf(MdRecordingError);
      }
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.nat(good.length).map((cut) => good.slice(0, cut)),
          fc.array(fc.tuple(fc.constantFrom(...bodies), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => {
            const edited = good.slice();
            for (const [at, mask] of flips) edited[at] = edited[at]! ^ mask;
            return edited;
          }),
        ),
        attempt,
      ),
      { seed: 42, numRuns: 2_000 },
    );
  });
});

describe("readMdRecording refuses a recording whose message metadata is damaged, naming the file and the message", () => {
  const good = () => {
    const path = join(dir, "metadata-good.arrow");
    write(path, ROWS, 3);
    return new Uint8Array(readFileSync(path));
  };
  /** The refusal of `bytes`, written as `<dir>/<name>` and read from there. */
  const refused = (name: string, bytes: Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const message = refusal(() => readMdRecording(path)).message;
    expect(message.startsWith(`md recording "${path}" is damaged: the metadata of message `), message).toBe(true);
    return message.slice(`md recording "${path}" is damaged: the metadata of `.length);
  };

  it("a byte of the schema's flatbuffer flipped (byte 60: its fields vector), with every mask", () => {
    const bytes = good();
    // Byte 60 lies in the schema message's metadata (the first message, its flatbuffer from byte 8).
    expect(new DataView(bytes.buffer).getInt32(4, true)).toBeGreaterThan(60);
    for (let mask = 1; mask <= 255; mask++) {
      const flipped = bytes.slice();
      flipped[60] = flipped[60]! ^ mask;
      expect(refused("schema-flip.arrow", flipped)).toMatch(/^message [12] \(at byte \d+\) is invalid: /);
    }
    const once = bytes.slice();
    once[60] = once[60]! ^ 0x01;
    expect(refused("schema-flip.arrow", once)).toMatch(/^message 1 \(at byte 0\) is invalid: the schema's fields: its vector of \d+ entries of 4 bytes \(at byte \d+\) runs past the metadata \(\d+ bytes\)$/);
  });

  it("a dictionary batch claiming 2^31 values (its field node's length), which apache-arrow would decode until Node runs out of memory", () => {
    const bytes = good();
    // The kind dictionary's node: length 4 (subscribed, data, error, gap), null count 0, as two Int64s.
    const node = new Uint8Array(new BigInt64Array([4n, 0n]).buffer);
    const at = bytes.findIndex((_, i) => node.every((byte, k) => bytes[i + k] === byte));
    expect(at).toBeGreaterThan(0);
    const damaged = bytes.slice();
    new DataView(damaged.buffer).setBigInt64(at, 2n ** 31n, true);
    expect(refused("dictionary-length.arrow", damaged)).toMatch(
      /^message 2 \(at byte [\d,]+\) is invalid: the dictionary batch's field node 1 \(length 2147483648\) has offsets of \d+ bytes, fewer than the 8589934596 its length takes$/,
    );
  });
});

/** The offsets of the bytes of every message body of an Arrow IPC stream (the batches' buffers). */
function bodyOffsets(stream: Uint8Array): number[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const offsets: number[] = [];
  let at = 0;
  while (at + 8 <= stream.length) {
    const metaLength = view.getInt32(at + 4, true);
    if (metaLength === 0) break;
    const bodyStart = at + 8 + metaLength;
    const message = Message.decode(stream.subarray(at + 8, bodyStart));
    for (let i = bodyStart; i < bodyStart + message.bodyLength; i++) offsets.push(i);
    at = bodyStart + message.bodyLength;
  }
  return offsets;
}

describe("truncated recordings", () => {
  it("end at a message whose body length is negative (damaged), instead of walking back", () => {
    const path = join(dir, "negative-body.arrow");
    write(path, ROWS, 3);
    const stream = new Uint8Array(readFileSync(path));
    // The last record batch's message: its bodyLength (an Int64 in the metadata) set to point before the file's start.
    const view = new DataView(stream.buffer);
    let at = 0;
    let last = { at: 0, metaLength: 0, bodyLength: 0 };
    while (view.getInt32(at + 4, true) !== 0) {
      const metaLength = view.getInt32(at + 4, true);
      const message = Message.decode(stream.subarray(at + 8, at + 8 + metaLength));
      if (message.isRecordBatch()) last = { at, metaLength, bodyLength: message.bodyLength };
      at += 8 + metaLength + message.bodyLength;
    }
    const metadata = stream.subarray(last.at + 8, last.at + 8 + last.metaLength);
    const encoded = new Uint8Array(new BigInt64Array([BigInt(last.bodyLength)]).buffer);
    const field = metadata.findIndex((_, i) => encoded.every((byte, k) => metadata[i + k] === byte));
    expect(field).toBeGreaterThanOrEqual(0);
    metadata.set(new Uint8Array(new BigInt64Array([BigInt(-(last.at + 8 + last.metaLength + 8))]).buffer), field);
    const recording = readMdRecording(stream);
    expect(recording.length).toBe(6); // the batches before it
    expect(recording.truncated).toEqual({ fileBytes: stream.length, completeBytes: last.at });
  });

  it("are told from a recording damaged in the middle, which is refused rather than read up to the damage", () => {
    const path = join(dir, "damaged-middle.arrow");
    write(path, ROWS, 3);
    const stream = new Uint8Array(readFileSync(path));
    const view = new DataView(stream.buffer);
    const batches: number[] = [];
    for (let at = 0; view.getInt32(at + 4, true) !== 0; ) {
      const metaLength = view.getInt32(at + 4, true);
      const message = Message.decode(stream.subarray(at + 8, at + 8 + metaLength));
      if (message.isRecordBatch()) batches.push(at);
      at += 8 + metaLength + message.bodyLength;
    }
    expect(batches.length).toBeGreaterThan(1);
    // The first batch's metadata length made negative: a complete batch still follows it.
    view.setInt32(batches[0]! + 4, -16, true);
    const damaged = join(dir, "damaged-middle-edited.arrow");
    writeFileSync(damaged, stream);
    expect(refusal(() => readMdRecording(damaged)).message).toMatch(
      new RegExp(`^md recording "${damaged.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" is damaged: message \\d+ \\(at byte ${batches[0]!.toLocaleString("en-US")}\\) cannot be read, yet a complete message follows at byte [\\d,]+: the bytes were damaged in place, not cut short by a crash$`),
    );
  });

  it("say what they lost: cut inside a batch, or only missing the end-of-stream marker", () => {
    const path = join(dir, "describe.arrow");
    const writer = new MdRecordingWriter(path, META, { batchRows: 2 });
    for (let i = 0; i < 5; i++) writer.append(i, "data", DEPTH, i, bytes(`{"i":${i}}`));
    // Two batches written, one row pending: a killed recorder leaves this file.
    const atBoundary = readMdRecording(path);
    expect(atBoundary.length).toBe(4);
    expect(describeTruncation(atBoundary.truncated!, atBoundary.length)).toBe("is incomplete: it has no end-of-stream marker (its recorder was not closed), leaving 4 complete rows");
    const whole = readFileSync(path);
    const cut = readMdRecording(whole.subarray(0, whole.length - 10));
    expect(cut.length).toBe(2);
    expect(cut.truncated!.fileBytes - cut.truncated!.completeBytes).toBeGreaterThan(0);
    expect(describeTruncation(cut.truncated!, cut.length)).toMatch(/^is truncated: it ends inside a record batch \(its last [\d,]+ bytes are incomplete\), leaving 2 complete rows$/);
    expect(describeTruncation({ fileBytes: 2_000, completeBytes: 1_000 }, 0)).toBe("is truncated: it ends inside a record batch (its last 1,000 bytes are incomplete), leaving no complete row");
    expect(describeTruncation({ fileBytes: 2_000, completeBytes: 2_000 }, 1)).toMatch(/leaving 1 complete row$/);
    // A tail of zeros (what a crash can leave of unwritten blocks) is not an end-of-stream marker.
    const zeroTail = new Uint8Array(whole.length + 4_096);
    zeroTail.set(whole);
    expect(readMdRecording(zeroTail).truncated).toEqual({ fileBytes: zeroTail.length, completeBytes: whole.length });
    writer.close();
    expect(readMdRecording(path).truncated).toBeUndefined();
  });
});

describe("bytes after the end-of-stream marker", () => {
  it("are said (trailing: how many, not read), as an input log's replay says them; the rows are all of the stream's", () => {
    const path = join(dir, "trailing.arrow");
    write(path, ROWS, 3);
    const whole = new Uint8Array(readFileSync(path));
    const closed = readMdRecording(whole);
    expect(closed.trailing).toBeUndefined();
    expect(closed.truncated).toBeUndefined();
    const garbage = bytes("garbage!");
    const extended = new Uint8Array(whole.length + garbage.length);
    extended.set(whole);
    extended.set(garbage, whole.length);
    const recording = readMdRecording(extended);
    expect(recording.length).toBe(ROWS.length);
    expect(recording.truncated).toBeUndefined();
    expect(recording.trailing).toEqual({ fileBytes: extended.length, markerEnd: whole.length });
    for (let i = 0; i < ROWS.length; i++) expect(recording.frame(i)).toEqual(ROWS[i]!.frame);
    expect(describeTrailing(recording.trailing!, recording.length)).toBe(
      `has 8 bytes after its end-of-stream marker (of ${extended.length.toLocaleString("en-US")}): not part of the recording, they were not read; its ${ROWS.length} rows were read`,
    );
    expect(describeTrailing({ fileBytes: 2_000, markerEnd: 1_000 }, 1)).toBe("has 1,000 bytes after its end-of-stream marker (of 2,000): not part of the recording, they were not read; its 1 row were read");
  });

  it("are a cut when they are zeros (what a crash leaves of a message whose first bytes alone were written), as in an input log", () => {
    const path = join(dir, "marker-zeros.arrow");
    write(path, ROWS, 3);
    const whole = new Uint8Array(readFileSync(path));
    const zeros = new Uint8Array(whole.length + 4_096);
    zeros.set(whole);
    const recording = readMdRecording(zeros);
    expect(recording.length).toBe(ROWS.length);
    expect(recording.trailing).toBeUndefined();
    expect(recording.truncated).toEqual({ fileBytes: zeros.length, completeBytes: whole.length - 8 });
  });
});

// -- the envelope scan -------------------------------------------------------------------

describe("scanEnvelope", () => {
  it("reads type, channel and timestamp of shadowbook's frames", () => {
    expect(scanEnvelope(bytes(`{"type":"channel_data","timestamp":1767225600001,"channel":"${DEPTH}","data":{"bids":[]}}`))).toEqual({ type: "channel_data", channel: DEPTH, timestampMs: 1_767_225_600_001 });
    expect(scanEnvelope(bytes(`{"type":"subscribed","channel":"${DEPTH}","contents":{"type":"SNAPSHOT"}}`))).toEqual({ type: "subscribed", channel: DEPTH, timestampMs: null });
    expect(scanEnvelope(bytes(`{"type":"error","message":"Invalid JSON"}`))).toEqual({ type: "error", channel: null, timestampMs: null });
    expect(scanEnvelope(bytes(`{"type":"pong"}`))).toEqual({ type: "pong", channel: null, timestampMs: null });
    expect(scanEnvelope(bytes(`not json`))).toBeNull();
    expect(scanEnvelope(bytes(`[1,2]`))).toBeNull();
    expect(scanEnvelope(bytes(`{"type":7,"channel":"x"}`))).toBeNull();
    expect(kindOfType("channel_data")).toBe("data");
    expect(kindOfType("subscribed")).toBe("subscribed");
    expect(kindOfType("error")).toBe("error");
    expect(kindOfType("unsubscribed")).toBeNull();
  });

  it("stops at the envelope: a channel_data frame's payload is never decoded", () => {
    // The payload after `channel` is not even JSON: the scan does not read it (JSON.parse would fail).
    const frame = bytes(`{"type":"channel_data","timestamp":12,"channel":"/c","data":{{{ not json`);
    expect(scanEnvelope(frame)).toEqual({ type: "channel_data", channel: "/c", timestampMs: 12 });
    expect(parseEnvelope(frame)).toBeNull();
  });

  it("agrees with JSON.parse on varied frames (key order, whitespace, escapes, UTF-8, decoy keys, odd values)", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: "grapheme", maxLength: 8 }),
      // Seen again and again (the scan's cache of recent strings), prefixes and extensions of each other, escapes, UTF-8.
      fc.constantFrom(DEPTH, EXECUTIONS, `${DEPTH}x`, DEPTH.slice(0, -1), `${DEPTH}\\`, "", "/v2/assetOraclePrices", 'a"b', "a\\b", "tab\there", "line\nbreak", "é", "\u2028", "💥"),
    );
    const json = fc.jsonValue({ maxDepth: 3 });
    const decoy = fc.dictionary(fc.constantFrom("channel", "timestamp", "type", "data", "x"), json, { maxKeys: 4 });
    const timestamp = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 ** 53 - 1 }) },
      { weight: 1, arbitrary: fc.integer({ min: -1_000, max: 1_000 }) },
      { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
      // 16 digits, beyond 2^53 (not safe integers: no timestamp)
      { weight: 1, arbitrary: fc.bigInt({ min: 9_007_199_254_740_993n, max: 9_999_999_999_999_999n }).map(Number) },
      { weight: 1, arbitrary: fc.constantFrom("123", null, true, [1], 1e21, 12.5, -0) },
    );
    const frame = fc
      .record(
        {
          type: fc.oneof({ weight: 5, arbitrary: fc.constantFrom("channel_data", "subscribed", "error", "unsubscribed", "pong") }, { weight: 1, arbitrary: fc.oneof(text, json) }),
          timestamp,
          channel: fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: json }),
          data: fc.oneof(json, decoy),
          contents: decoy,
          message: text,
          extra: json,
        },
        { requiredKeys: [] },
      )
      .chain((fields) => fc.tuple(fc.constant(fields), fc.shuffledSubarray(Object.keys(fields), { minLength: Object.keys(fields).length }), fc.constantFrom("", " ", "\n  ", "\t"), fc.boolean()));
    fc.assert(
      fc.property(frame, ([fields, order, space, asciiEscapes]) => {
        const parts = order.map((key) => `${space}${JSON.stringify(key)}${space}:${space}${JSON.stringify((fields as Record<string, unknown>)[key])}`);
        let source = `${space}{${parts.join(",")}${space}}${space}`;
        // Some servers escape every non-ASCII character.
        if (asciiEscapes) source = source.replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
        const encoded = bytes(source);
        const expected = parseEnvelope(encoded);
        // The oracle: JSON.parse's view of the same fields.
        const parsed = JSON.parse(source) as Record<string, unknown>;
        if (typeof parsed["type"] !== "string") expect(expected).toBeNull();
        else {
          expect(expected).toEqual({
            type: parsed["type"],
            channel: typeof parsed["channel"] === "string" ? parsed["channel"] : null,
            timestampMs: parsed["type"] === "channel_data" && Number.isSafeInteger(parsed["timestamp"]) ? parsed["timestamp"] : null,
          });
        }
        expect(scanEnvelope(encoded)).toEqual(expected);
      }),
      { seed: 42, numRuns: 3_000 },
    );
  });
});
