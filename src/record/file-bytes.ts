/**
 * A file's bytes read by position, a window at a time, for readers of files
 * that may be larger than one read can hold (Node reads at most 2 GiB into
 * one Buffer, and an input log of a long live session passes it: replay.ts).
 * The checks of arrow-files.ts walk a file through it reading only each
 * message's lengths and metadata; `chunks` hands a decoder the bytes in
 * order, a chunk at a time. A pipe or FIFO has no positions: `readWhole`
 * reads it once.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import type { ByteSource } from "./arrow-files.ts";
import { fileReadProblem } from "./read-file.ts";

/** The window a small read fills (a stream's messages are walked through it). */
const WINDOW_BYTES = 64 * 1024;
/** The chunks `chunks` yields: large enough that a read's cost is the bytes, not the call. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** The file changed under the reader (it shrank while being read): the reader names the file. */
export class FileChangedError extends Error {
  override readonly name = "FileChangedError";
}

export class FileBytes implements ByteSource {
  /** The file's size when opened (0 for a pipe: see `isRegularFile`). */
  readonly length: number;
  /** A regular file: positional reads work and its size is its length. A pipe or FIFO is read once, whole (`readWhole`). */
  readonly isRegularFile: boolean;
  private fd: number;
  private window: Buffer = Buffer.alloc(WINDOW_BYTES);
  private windowStart = 0;
  private windowEnd = 0;

  private constructor(fd: number, length: number, isRegularFile: boolean) {
    this.fd = fd;
    this.length = length;
    this.isRegularFile = isRegularFile;
  }

  /**
   * Opens `path` for reading; a file that cannot be (missing, a directory, no
   * permission) is the error `refuse` makes of what went wrong, in the words
   * of read-file.ts fileReadProblem.
   */
  static open(path: string, refuse: (problem: string, cause: unknown) => Error): FileBytes {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      throw refuse(fileReadProblem(error), error);
    }
    try {
      const stats = fstatSync(fd);
      // Linux opens a directory for reading; its reads fail with EISDIR, which is what it is.
      if (stats.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
      return new FileBytes(fd, stats.size, stats.isFile());
    } catch (error) {
      closeSync(fd);
      throw refuse(fileReadProblem(error), error);
    }
  }

  /**
   * bytes[at, at + length), cut at the file's end. The view is valid until
   * the next call (it may lie in the reused window): read it at once, or copy it.
   */
  slice(at: number, length: number): Uint8Array {
    const end = Math.min(this.length, at + length);
    if (at >= end) return new Uint8Array(0);
    if (at < this.windowStart || end > this.windowEnd) this.fill(at, end);
    return this.window.subarray(at - this.windowStart, end - this.windowStart);
  }

  /**
   * Reads the window from `at`, at least up to `end`. A read larger than the
   * window reads twice what was asked, so that reads that slide forward a
   * little (a search for the next message, 8 bytes at a time) are served from it.
   */
  private fill(at: number, end: number): void {
    if (end - at > this.window.length) this.window = Buffer.alloc(2 * (end - at));
    const want = Math.min(this.window.length, this.length - at);
    this.readFully(this.window, want, at);
    this.windowStart = at;
    this.windowEnd = at + want;
  }

  /** A fresh buffer of the bytes [at, at + size), which must lie inside the file. */
  read(at: number, size: number): Buffer {
    const bytes = Buffer.allocUnsafe(size);
    this.readFully(bytes, size, at);
    return bytes;
  }

  /** The bytes [from, to) in order, as fresh buffers of at most `chunkBytes` (a decoder may keep them). */
  *chunks(from: number, to: number, chunkBytes = CHUNK_BYTES): Generator<Uint8Array, void, undefined> {
    for (let at = from; at < to; at += chunkBytes) {
      yield this.read(at, Math.min(chunkBytes, to - at));
    }
  }

  /** Fills buffer[0, size) from the file at `at`; a file that shrank under the reader is a FileChangedError. */
  private readFully(buffer: Buffer, size: number, at: number): void {
    let done = 0;
    while (done < size) {
      const read = readSync(this.fd, buffer, done, size - done, at + done);
      if (read === 0) throw new FileChangedError(`it ended at byte ${(at + done).toLocaleString("en-US")} while being read, and was ${this.length.toLocaleString("en-US")} bytes when opened`);
      done += read;
    }
  }

  /**
   * The whole file, read from its descriptor to its end (a pipe or FIFO
   * too: it can be read only once); a file that cannot be (over the 2 GiB
   * one read can hold) is the error `refuse` makes of what went wrong.
   */
  readWhole(refuse: (problem: string, cause: unknown) => Error): Buffer {
    try {
      return readFileSync(this.fd);
    } catch (error) {
      throw refuse(fileReadProblem(error), error);
    }
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
