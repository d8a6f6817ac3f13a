/**
 * A market-data recording is read without reading its file whole
 * (src/record/md-recording.ts readMdRecording): the checks walk its messages
 * through a window, and its complete batches are decoded from chunks read in
 * order. So a recording past the 2 GiB one read can hold (a day of a busy
 * feed) reads, and the file is closed however the read ends.
 */
import { spawn } from "node:child_process";
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Schema, Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_BYTES } from "../../src/record/file-bytes.ts";
import { gapFrame, MdRecordingWriter, readMdRecording, type MdRecording, type MdRowKind } from "../../src/record/md-recording.ts";
import { openFileCount, scratchDirectory, type ScratchDirectory } from "../helpers/scratch-files.ts";

const DEPTH = "/v2/market/ETHRUSDPERP/depth";
const EXECUTIONS = "/v2/market/ETHRUSDPERP/perpExecutions";
/** Not in the metadata's channels: first seen after some batches, so the channel dictionary grows by deltas. */
const LATE = "/v2/market/BTCRUSDPERP/depth";
const META = { source: "ws://127.0.0.1:1/ws", channels: [DEPTH, EXECUTIONS], startMicros: 1_767_225_600_000_000 };
const ROWS = 3_000;
const BATCH_ROWS = 64;
/** Past what one read can hold (Node's 2 GiB), by a few chunks and an odd byte count. */
const LARGE_BYTES = 2 * 1024 ** 3 + 3 * CHUNK_BYTES + 5;

let scratch: ScratchDirectory;
/** A closed recording of ROWS rows in batches of BATCH_ROWS, as MdRecordingWriter writes it. */
let closed: Buffer;
/** Its rows, as read from its bytes in memory. */
let expected: unknown[];

beforeAll(() => {
  scratch = scratchDirectory("md-recording-large-");
  const path = join(scratch.path, "recorded.arrow");
  const writer = new MdRecordingWriter(path, META, { batchRows: BATCH_ROWS });
  for (let i = 0; i < ROWS; i++) {
    const recv = META.startMicros + 1_000 * i;
    if (i % 997 === 500) writer.append(recv, "gap", null, null, gapFrame(1012, `resync ${i}`));
    else if (i % 331 === 7) writer.append(recv, "error", null, null, null);
    else {
      const channel = i >= 1_000 && i % 3 === 0 ? LATE : i % 2 === 0 ? DEPTH : EXECUTIONS;
      // Frames of varied lengths (some empty), so batches and messages straddle any chunk size.
      const frame = Buffer.from(`{"type":"channel_data","timestamp":${1_767_225_600_000 + i},"channel":"${channel}","data":"${"é".repeat(i % 211)}"}`.slice(0, (i * 37) % 400));
      writer.append(recv, i % 50 === 0 ? "subscribed" : "data", channel, i % 5 === 0 ? null : 1_767_225_600_000 + i, frame);
    }
  }
  writer.close();
  closed = readFileSync(path);
  expected = rowsOf(readMdRecording(closed));
});

afterAll(() => {
  scratch?.remove();
});

/** Extends the file at `path` with zeros to `size` bytes (sparse: no disk used). */
function extend(path: string, size: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** Every row, each frame as a latin1 string (lossless, quick to compare). */
function rowsOf(recording: MdRecording): unknown[] {
  const rows: { recvMicros: number; kind: MdRowKind; channel: string | null; timestampMs: number | null; frame: string | null }[] = [];
  for (let i = 0; i < recording.length; i++) {
    const frame = recording.frame(i);
    rows.push({ recvMicros: recording.recvMicros(i), kind: recording.kind(i), channel: recording.channel(i), timestampMs: recording.timestampMs(i), frame: frame === null ? null : Buffer.from(frame).toString("latin1") });
  }
  return rows;
}

describe("a recording past 2 GiB", () => {
  it("reads its complete batches when the zeros a crash left follow them (no end-of-stream marker), as truncated", () => {
    expect(expected).toHaveLength(ROWS);
    expect(expected.some((row) => (row as { channel: string | null }).channel === LATE)).toBe(true);
    // A recorder killed between batches, on a file system that had allocated the file ahead.
    const unclosed = closed.subarray(0, closed.length - 8);
    const path = scratch.file("unclosed-past-2-gib.arrow", unclosed);
    extend(path, LARGE_BYTES);
    // What a whole read of it meets: Node refuses it.
    expect(() => readFileSync(path)).toThrow(expect.objectContaining({ code: "ERR_FS_FILE_TOO_LARGE" }));
    const recording = readMdRecording(path);
    expect(recording.truncated).toEqual({ fileBytes: LARGE_BYTES, completeBytes: unclosed.length });
    expect(recording.trailing).toBeUndefined();
    expect({ source: recording.source, channels: recording.channels, startMicros: recording.startMicros }).toEqual(META);
    expect(rowsOf(recording)).toEqual(expected);
  });

  it("after its end-of-stream marker: zeros are a crash's cut (truncated), other bytes are trailing, each said by a scan a window at a time", () => {
    // 64 MiB, not 2 GiB: the scan's windows are what is tested (the test above reads past 2 GiB), and two scans of 2 GiB take seconds.
    const path = scratch.file("closed-past-marker.arrow", closed);
    const LARGE_BYTES = 64 * 1024 * 1024 + 5;
    extend(path, LARGE_BYTES);
    const zeros = readMdRecording(path);
    // The complete messages end before the marker's 8 bytes.
    expect(zeros.truncated).toEqual({ fileBytes: LARGE_BYTES, completeBytes: closed.length - 8 });
    expect(zeros.trailing).toBeUndefined();
    expect(rowsOf(zeros)).toEqual(expected);
    // One byte that is not zero, the file's last: the zeros before it do not make the rest a cut.
    const fd = openSync(path, "r+");
    try {
      writeSync(fd, new Uint8Array([1]), 0, 1, LARGE_BYTES - 1);
    } finally {
      closeSync(fd);
    }
    const trailing = readMdRecording(path);
    expect(trailing.trailing).toEqual({ fileBytes: LARGE_BYTES, markerEnd: closed.length });
    expect(trailing.truncated).toBeUndefined();
    expect(rowsOf(trailing)).toEqual(expected);
  });
});

describe("a recording read in chunks", () => {
  it("gives the rows a read in memory gives, whatever the chunk size", () => {
    const path = scratch.file("chunked.arrow", closed);
    // Chunks of 1,000 and 4,093 bytes: messages straddle them, and chunk boundaries fall inside lengths, metadata and bodies.
    expect(closed.length).toBeGreaterThan(100 * 1_000);
    for (const chunkBytes of [1_000, 4_093, CHUNK_BYTES]) {
      const recording = readMdRecording(path, { chunkBytes });
      expect(recording.truncated, `chunks of ${chunkBytes}`).toBeUndefined();
      expect(recording.trailing, `chunks of ${chunkBytes}`).toBeUndefined();
      expect(rowsOf(recording), `chunks of ${chunkBytes}`).toEqual(expected);
    }
    // Cut inside a batch: the complete batches, read in chunks.
    const cutAt = Math.floor(closed.length / 2) + 3;
    const cut = readMdRecording(scratch.file("chunked-cut.arrow", closed.subarray(0, cutAt)), { chunkBytes: 1_000 });
    expect(cut.truncated?.fileBytes).toBe(cutAt);
    expect(cut.truncated!.completeBytes).toBeLessThan(cutAt);
    expect(cut.length % BATCH_ROWS, "whole batches only").toBe(0);
    expect(cut.length).toBeGreaterThan(0);
    expect(rowsOf(cut)).toEqual(expected.slice(0, cut.length));
    expect(cut.truncated).toEqual(readMdRecording(closed.subarray(0, cutAt)).truncated);
  });

  it("refuses a chunk size that is not a positive integer", () => {
    const path = scratch.file("chunk-size.arrow", closed);
    for (const chunkBytes of [0, -1, 1.5, Number.NaN]) expect(() => readMdRecording(path, { chunkBytes })).toThrow(RangeError);
  });
});

describe("a recording that is not a regular file", () => {
  it("a FIFO (backtest with <(zcat recording.arrow.gz)) is read whole, as before: it has no size to read by position", async () => {
    const source = scratch.file("fifo-source.arrow", closed);
    const fifo = join(scratch.path, "fifo.arrow");
    await new Promise<void>((resolve, reject) => spawn("mkfifo", [fifo]).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited with ${code}`)))));
    // The writer is another process: opening a FIFO for reading blocks until one opens it for writing.
    const writer = spawn("sh", ["-c", `cat "${source}" > "${fifo}"`]);
    const exited = new Promise<void>((resolve) => writer.on("exit", () => resolve()));
    let rows: unknown[] = [];
    try {
      rows = rowsOf(readMdRecording(fifo));
    } finally {
      // Should the read have given up before opening the FIFO, a reader that never blocks unblocks the writer.
      closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
      await exited;
    }
    expect(rows).toEqual(expected);
  });
});

describe("the file is closed", () => {
  it("after a read, a refusal and an exception", () => {
    const schema = tableFromIPC(closed).schema;
    const schemaEnd = 8 + closed.readInt32LE(4);
    // The second message's metadata, its root offset pointing far outside it: the walk throws.
    const damaged = Buffer.from(closed);
    damaged.writeInt32LE(0x7fff_fff0, schemaEnd + 8);
    // The kind dictionary's "gap" written as "gup": the rows decode, and the recording refuses the kind.
    const badKind = Buffer.from(closed);
    const kinds = badKind.indexOf("subscribeddataerrorgap");
    expect(kinds).toBeGreaterThan(0);
    badKind.write("u", kinds + "subscribeddataerror".length + 1, "latin1");
    const otherFormat = tableToIPC(new Table(new Schema(schema.fields, new Map([...schema.metadata, ["shadowbook.format", "md-recording/9"]]))), "stream");
    const cases: [string, Uint8Array, RegExp][] = [
      ["empty.arrow", new Uint8Array(0), /is not a market-data recording: the file is empty$/],
      ["schema-cut.arrow", closed.subarray(0, schemaEnd - 8), /is truncated before its schema ends/],
      ["arrow-file.arrow", tableToIPC(tableFromIPC(closed), "file"), /is an Arrow IPC file, and md-recording\/1 is an Arrow IPC stream$/],
      ["other-format.arrow", otherFormat, /shadowbook\.format is "md-recording\/9", expected "md-recording\/1"$/],
      ["damaged.arrow", damaged, /is damaged: the metadata of message 2 \(at byte [\d,]+\) is invalid: /],
      ["bad-kind.arrow", badKind, /is not a valid md-recording\/1 file: kind "gup" is not one of subscribed, data, error, gap$/],
    ];
    const paths = cases.map(([name, bytes]) => scratch.file(name, bytes));
    const read = scratch.file("fds.arrow", closed);
    const before = openFileCount();
    expect(readMdRecording(read).length).toBe(ROWS);
    expect(openFileCount(), "after a read").toBe(before);
    expect(readMdRecording(read, { chunkBytes: 1_000 }).length).toBe(ROWS);
    expect(openFileCount(), "after a read in small chunks").toBe(before);
    for (const [i, [name, , refusal]] of cases.entries()) {
      expect(() => readMdRecording(paths[i]!), name).toThrow(refusal);
      expect(openFileCount(), `after ${name}`).toBe(before);
    }
    expect(() => readMdRecording(join(scratch.path, "no-such.arrow"))).toThrow(/does not exist$/);
    expect(() => readMdRecording(scratch.path)).toThrow(/is a directory, not a file$/);
    expect(openFileCount(), "after a missing file and a directory").toBe(before);
  });
});
