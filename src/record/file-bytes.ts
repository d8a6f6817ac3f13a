/**
 * A file's bytes read by position, a window at a time, for readers of files
 * that may be larger than one read can hold (Node reads at most 2 GiB into
 * one Buffer, and an input log of a long live session passes it: replay.ts).
 * The checks of arrow-files.ts walk a file through it reading only each
 * message's lengths and metadata; `chunks` hands a decoder the bytes in
 * order, a chunk at a time.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ByteSource } from "./arrow-files.ts";
import { fileReadProblem } from "./read-file.ts";

/** The window a small read fills (a stream's messages are walked through it). */
const WINDOW_BYTES = 64 * 1024;
/** The chunks `chunks` yields: large enough that a read's cost is the bytes, not the call. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

export class FileBytes implements ByteSource {
  readonly length: number;
  private fd: number;
  private window: Buffer = Buffer.alloc(WINDOW_BYTES);
  private windowStart = 0;
  private windowEnd = 0;

  private constructor(fd: number, length: number) {
    this.fd = fd;
    this.length = length;
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
      return new FileBytes(fd, stats.size);
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

  /** Reads the window from `at`, at least up to `end`. */
  private fill(at: number, end: number): void {
    if (end - at > this.window.length) this.window = Buffer.alloc(end - at);
    const want = Math.min(this.window.length, this.length - at);
    this.readFully(this.window, want, at);
    this.windowStart = at;
    this.windowEnd = at + want;
  }

  /** The bytes [from, to) in order, as fresh buffers of at most `chunkBytes` (a decoder may keep them). */
  *chunks(from: number, to: number, chunkBytes = CHUNK_BYTES): Generator<Uint8Array, void, undefined> {
    for (let at = from; at < to; at += chunkBytes) {
      const size = Math.min(chunkBytes, to - at);
      const chunk = Buffer.allocUnsafe(size);
      this.readFully(chunk, size, at);
      yield chunk;
    }
  }

  /** Fills buffer[0, size) from the file at `at`; a file that shrank under the reader is an error. */
  private readFully(buffer: Buffer, size: number, at: number): void {
    let done = 0;
    while (done < size) {
      const read = readSync(this.fd, buffer, done, size - done, at + done);
      if (read === 0) throw new Error(`the file ended at byte ${(at + done).toLocaleString("en-US")} while being read; it was ${this.length.toLocaleString("en-US")} bytes when opened (changed under the reader?)`);
      done += read;
    }
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
