/**
 * Files for tests of readers: a scratch directory removed after the file's
 * tests, files written into it, and the count of file descriptors this
 * process has open (a reader must close what it opens on every path).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ScratchDirectory {
  /** The directory (made by `open`). */
  readonly path: string;
  /** Writes `bytes` to `name` in it; its path. */
  file(name: string, bytes: Uint8Array): string;
  remove(): void;
}

/** A fresh directory under the system's temporary one, named from `prefix`. */
export function scratchDirectory(prefix: string): ScratchDirectory {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file(name, bytes) {
      const file = join(path, name);
      writeFileSync(file, bytes);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** The file descriptors this process has open (Linux: /proc/self/fd). */
export function openFileCount(): number {
  return readdirSync("/proc/self/fd").length;
}
