/**
 * Review of 779ba51 ("replay: a live log is read a batch at a time, never
 * whole"): defects found, each shown by a test that fails on that commit.
 *
 * 1. nextMessageAt (arrow-files.ts) slices a candidate message's whole
 *    metadata through FileBytes, with no SCHEMA_METADATA_MAX cap: each
 *    candidate `FFFFFFFF <length>` in a damaged stream now costs a read (and a
 *    window allocation) of `length` bytes, up to 2 GiB, and the window slides
 *    8 bytes per candidate, so it is re-read whole each time. Before, a
 *    candidate cost a subarray.
 * 2. A log that is not a regular file (a FIFO: `replay <(zcat log.gz)`,
 *    `/dev/stdin` from a pipe) was read whole by readFileSync; now fstat's
 *    size 0 makes it "empty: not a shadowbook input log".
 * 3. The bytes replayed are not the bytes checked (since 9b35766, for a log
 *    of more than 100,000 steps; the tests pass keptStepsMax 0): the file is opened again
 *    by path for every pass, and only a shrink below the complete batches at
 *    the start of a pass is caught. A file rewritten in place (a server
 *    restarted on the same --record directory truncates and rewrites
 *    inputs.arrow) replays unchecked bytes, reported as the recording's
 *    divergence; a file that shrinks during a pass is called "corrupt".
 *
 * Fixed: candidates above SCHEMA_METADATA_MAX are skipped and a large read
 * reads ahead (1); a pipe, and any log of up to 256 MiB, is read whole, once
 * (2); a large log's later passes check each chunk against the SHA-256 of
 * the first pass's and refuse a change, and a short read is "changed while
 * being read" (3); and the walked bytes are sealed (a SHA-256 per chunk) and
 * walked again before anything decodes them, so a rewrite between the walk
 * and the first decoding is refused too. The tests pass `wholeReadMax: 0` (and `keptStepsMax: 0`)
 * to take the large-log path with small logs.
 */
import { spawn } from "node:child_process";
import { closeSync, ftruncateSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { walkStreamTail } from "../../src/record/arrow-files.ts";
import { FileBytes } from "../../src/record/file-bytes.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { openInputLog, readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { scratchDirectory, type ScratchDirectory } from "../helpers/scratch-files.ts";

let scratch: ScratchDirectory;
/** A closed live log (an Arrow IPC stream) of batches of 13 rows. */
let stream: Buffer;
let rows: number;

beforeAll(async () => {
  scratch = scratchDirectory("shadowbook-review-s28-");
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 20, observers: [recorder] });
  const filePath = join(scratch.path, "run.arrow");
  recorder.write(filePath);
  const table = tableFromIPC(readFileSync(filePath));
  rows = table.numRows;
  const parts: Table[] = [];
  for (let from = 0; from < rows; from += 13) parts.push(table.slice(from, Math.min(rows, from + 13)));
  stream = Buffer.from(tableToIPC(new Table(parts.flatMap((part) => part.batches)), "stream"));
}, 120_000);

afterAll(() => {
  scratch?.remove();
});

/** Bytes this process has read through read(2)/pread(2) so far (/proc/self/io rchar). */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "latin1"))![1]);
}

describe("1. a damaged stream's search for a next message reads each candidate's claimed metadata whole", () => {
  it("reads about the file once, not once per candidate", () => {
    // An unclosed log, then a message whose metadata length no writer writes (2 GiB - 8: "length"), so the
    // walk looks for a complete message after it (nextMessageAt). After it: 32 candidates `FFFFFFFF`
    // followed by a metadata length of 64 MiB (a multiple of 8 that fits the file), then zeros (sparse).
    const unclosed = stream.subarray(0, stream.length - 8);
    const candidates = 32;
    const claimed = 64 * 1024 * 1024;
    const tail = Buffer.alloc(8 + 8 * candidates);
    tail.writeInt32LE(-1, 0);
    tail.writeInt32LE(0x7ffffff8, 4);
    for (let i = 0; i < candidates; i++) {
      tail.writeInt32LE(-1, 8 + 8 * i);
      tail.writeInt32LE(claimed, 12 + 8 * i);
    }
    const path = scratch.file("candidates.arrow", Buffer.concat([unclosed, tail]));
    const size = unclosed.length + tail.length + claimed + 4096;
    const fd = openSync(path, "r+");
    ftruncateSync(fd, size);
    closeSync(fd);

    const before = bytesRead();
    const log = openInputLog(path, { wholeReadMax: 0 });
    const read = bytesRead() - before;
    // As before the commit: the complete batches replay, and the rest is named as a cut.
    expect(log.stepCount).toBe(rows);
    expect(log.end).toEqual({ kind: "cut", fileBytes: size, readBytes: unclosed.length });
    // Before the commit: the file read once (~64 MiB). Now: 64 MiB read for each of the 32 candidates (~2 GiB).
    expect(read, `${read.toLocaleString("en-US")} bytes read for a file of ${size.toLocaleString("en-US")}`).toBeLessThan(4 * size);
  }, 120_000);
});

describe("2. a log that is not a regular file", () => {
  it("a FIFO (replay <(zcat inputs.arrow.gz)) is read, as readFileSync read it before the commit", async () => {
    const source = scratch.file("fifo-source.arrow", stream);
    const fifo = join(scratch.path, "fifo.arrow");
    await new Promise<void>((resolve, reject) => spawn("mkfifo", [fifo]).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo ${code}`)))));
    // A writer in another process (opening a FIFO for reading blocks until one opens it for writing).
    const writer = spawn("sh", ["-c", `cat "${source}" > "${fifo}"`]);
    const exited = new Promise<void>((resolve) => writer.on("exit", () => resolve()));
    let steps = -1;
    let problem = "";
    try {
      steps = readInputLog(fifo).stepCount;
    } catch (error) {
      problem = (error as Error).message;
      // Unblock the writer if the reader gave up before reading it.
      try {
        const reader = openSync(fifo, "r");
        closeSync(reader);
      } catch {
        // gone
      }
    }
    await exited;
    expect(problem).toBe("");
    expect(steps).toBe(rows);
  }, 30_000);
});

describe("3. the bytes replayed are the bytes checked", () => {
  it("a log rewritten in place between the check and the replay is refused, not replayed unchecked as a divergence", () => {
    const path = scratch.file("rewritten.arrow", stream);
    // keptStepsMax 0 (9b35766): read again as a log past 100,000 steps is (779ba51 read every log so).
    const log = openInputLog(path, { keptStepsMax: 0, wholeReadMax: 0 });
    expect(log.stepCount).toBe(rows);
    // The same length, another recording: here, one recorded fingerprint differs by a hex digit (a server
    // restarted on the same --record directory truncates inputs.arrow and writes a new session into it).
    const recorded = readInputLog(path).steps[3]!.fingerprint;
    const at = stream.indexOf(Buffer.from(recorded, "latin1"));
    expect(at).toBeGreaterThan(0);
    const other = Buffer.from(stream);
    other[at] = other[at] === "0".charCodeAt(0) ? "1".charCodeAt(0) : "0".charCodeAt(0);
    const fd = openSync(path, "r+");
    writeSync(fd, other, 0, other.length, 0);
    closeSync(fd);
    // The check read `stream`; the replay reads `other`: it either replays what was checked or refuses the change.
    let outcome: string;
    try {
      const result = replayInputLog(log);
      outcome = result.divergence === undefined ? "replayed as checked" : `divergence at step ${result.divergence.step.index}`;
    } catch (error) {
      outcome = (error as Error).message;
    }
    expect(outcome).toMatch(/replayed as checked|changed while being read/);
  });

  it("a log that shrinks during a pass is said to have changed, not to be corrupt", () => {
    const path = scratch.file("shrinks-during.arrow", stream);
    const log = openInputLog(path, { chunkBytes: 1_000, keptStepsMax: 0, wholeReadMax: 0 });
    let replayed = 0;
    let message = "";
    try {
      for (const _step of log.steps) if (replayed++ === 0) truncateSync(path, Math.floor(stream.length / 2));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(replayed).toBeGreaterThan(1);
    expect(message).toMatch(/changed while being read|changed under the reader/);
    expect(message).not.toMatch(/corrupt/);
  });
});

describe("3. the bytes walked are the bytes decoded", () => {
  it("a log rewritten between the walk of its messages and their first decoding is refused as changed, not decoded unchecked", () => {
    const path = scratch.file("rewritten-after-walk.arrow", stream);
    // The same length, the last batch's metadata length made one no writer writes: a walk stops before that batch.
    const { lastBatch } = walkStreamTail(stream);
    const other = Buffer.from(stream);
    other.writeInt32LE(0x7ffffff0, lastBatch.previousCompleteBytes + 4);
    // The first read of the file's chunks comes after the walk: the file is rewritten just before it.
    const original = FileBytes.prototype.chunks;
    let rewritten = false;
    const spy = vi.spyOn(FileBytes.prototype, "chunks").mockImplementation(function (this: FileBytes, from: number, to: number, chunkBytes?: number) {
      if (!rewritten) {
        rewritten = true;
        const fd = openSync(path, "r+");
        writeSync(fd, other, 0, other.length, 0);
        closeSync(fd);
      }
      return original.call(this, from, to, chunkBytes);
    });
    try {
      expect(() => openInputLog(path, { keptStepsMax: 0, wholeReadMax: 0 })).toThrow(/changed while being read: its messages are not those walked a moment before/);
    } finally {
      spy.mockRestore();
    }
    expect(rewritten).toBe(true);
  });
});
