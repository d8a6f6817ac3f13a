/**
 * Review of face084 (readMdRecording reads a file by position and decodes it
 * from chunks): what happens when the file changes while it is read.
 *
 * Before face084 the file was read once (readFileSync): the bytes checked
 * were the bytes decoded, and a read that failed was an MdRecordingError
 * naming the file. Now the file is read three times by position (the walk of
 * its messages, the chunks decoded, the scan of its tail), and:
 *
 * - a file that shrinks under the walk or the tail scan throws FileBytes'
 *   bare FileChangedError (no file name, not an MdRecordingError); only the
 *   chunk reads are wrapped (fileChunks);
 * - bytes rewritten between the walk and the decode are decoded by
 *   apache-arrow without having been verified (what replay.ts guards
 *   against with a SHA-256 per chunk).
 *
 * Fixed: a FileChangedError on any read is an MdRecordingError naming the
 * file ("changed while being read"), and the chunks to decode are walked
 * again in memory before apache-arrow reads them.
 */
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { FileBytes } from "../../src/record/file-bytes.ts";
import { MdRecordingError, MdRecordingWriter, readMdRecording } from "../../src/record/md-recording.ts";
import { openFileCount, scratchDirectory, type ScratchDirectory } from "../helpers/scratch-files.ts";

const ROWS = 400;
let scratch: ScratchDirectory;
let closed: Buffer;

beforeAll(() => {
  scratch = scratchDirectory("review-s28-md-");
  const path = join(scratch.path, "source.arrow");
  const writer = new MdRecordingWriter(path, { source: "ws://127.0.0.1:1/ws", channels: ["/d"], startMicros: 1_000_000 }, { batchRows: 16 });
  for (let i = 0; i < ROWS; i++) writer.append(1_000_000 + i, "data", "/d", 5_000 + i, Buffer.from(`{"frame":${i},"pad":"${"x".repeat(i % 97)}"}`));
  writer.close();
  closed = readFileSync(path);
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => {
  scratch?.remove();
});

/** What readMdRecording threw (or "returned N rows"). */
function thrown(read: () => { length: number }): unknown {
  try {
    return `returned ${read().length} rows`;
  } catch (error) {
    return error;
  }
}

describe("review s28: a recording that changes while it is read", () => {
  it("shrinking after it is opened (while its messages are walked) is an MdRecordingError naming the file, as a whole read's failure was", () => {
    const path = scratch.file("shrinks-during-walk.arrow", closed);
    const open = FileBytes.open.bind(FileBytes);
    vi.spyOn(FileBytes, "open").mockImplementation((p, refuse) => {
      const opened = open(p, refuse);
      // Another process rewrites the file (a recorder restarted on the same path): it is 100 bytes now.
      truncateSync(p, 100);
      return opened;
    });
    const before = openFileCount();
    const error = thrown(() => readMdRecording(path));
    expect(openFileCount(), "the file is closed").toBe(before);
    // Today: a bare FileChangedError, "it ended at byte 100 while being read, ..." with no file named.
    expect(error).toBeInstanceOf(MdRecordingError);
    expect((error as Error).message).toContain(`md recording "${path}"`);
    expect((error as Error).message).toMatch(/ended at byte 100 while being read/);
  });

  it("zeros after the marker that shrink before the tail is scanned are an MdRecordingError naming the file", () => {
    // A closed recording and zeros a crash left after it (it reads as truncated).
    const path = scratch.file("tail-shrinks.arrow", Buffer.concat([closed, Buffer.alloc(200_000)]));
    expect(readMdRecording(path).truncated).toBeDefined();
    const chunks = FileBytes.prototype.chunks;
    vi.spyOn(FileBytes.prototype, "chunks").mockImplementation(function* (this: FileBytes, from: number, to: number, chunkBytes?: number) {
      yield* chunks.call(this, from, to, chunkBytes);
      // The zeros are cut off after the complete batches were decoded, before recordingEnd scans them.
      truncateSync(path, closed.length + 8);
    });
    const before = openFileCount();
    const error = thrown(() => readMdRecording(path));
    expect(openFileCount(), "the file is closed").toBe(before);
    expect(error).toBeInstanceOf(MdRecordingError);
    expect((error as Error).message).toContain(`md recording "${path}"`);
  });

  it("bytes rewritten between the check of its messages and the decode are refused, not decoded unchecked", () => {
    const schemaEnd = 8 + closed.readInt32LE(4);
    // The second message's metadata, its root offset pointing far outside it: the walk refuses these bytes.
    const damaged = Buffer.from(closed);
    damaged.writeInt32LE(0x7fff_fff0, schemaEnd + 8);
    expect(() => readMdRecording(damaged)).toThrow(/is damaged: the metadata of message 2 \(at byte [\d,]+\) is invalid/);
    const path = scratch.file("rewritten.arrow", closed);
    expect(readMdRecording(path).length).toBe(ROWS);
    const chunks = FileBytes.prototype.chunks;
    vi.spyOn(FileBytes.prototype, "chunks").mockImplementation(function* (this: FileBytes, from: number, to: number, chunkBytes?: number) {
      // Rewritten in place (same size) after the walk checked it, before apache-arrow decodes it.
      const fd = openSync(path, "r+");
      try {
        writeFileSync(fd, damaged);
      } finally {
        closeSync(fd);
      }
      yield* chunks.call(this, from, to, chunkBytes);
    });
    const error = thrown(() => readMdRecording(path));
    // Today: "returned 0 rows": an empty recording that says it is whole (no truncated, no trailing), from bytes never verified.
    expect(error).toBeInstanceOf(MdRecordingError);
  });
});
