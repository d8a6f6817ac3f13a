import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordBatchReader, tableFromIPC } from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  completeStreamPrefix,
  gapFrame,
  kindOfType,
  MD_RECORDING_FORMAT,
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
    }
    writeFileSync(join(dir, "cut.arrow"), whole.subarray(0, whole.length - 3));
    expect(readMdRecording(join(dir, "cut.arrow")).length).toBe(4);
    expect(() => readMdRecording(whole.subarray(0, ends[0]! - 1))).toThrow(/truncated before its schema/);
    writer.close();
    expect(completeStreamPrefix(readFileSync(path))).toBe(readFileSync(path).length - 8);
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
