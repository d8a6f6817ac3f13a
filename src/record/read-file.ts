/**
 * Reading a whole file a user named (a recording, an input log), with what
 * went wrong said in words instead of Node's error codes. Each reader puts
 * its own error type and the file's name in front.
 */
import { readFileSync } from "node:fs";

/** What a failed read of a file means, after the file's name: "does not exist", "is a directory, not a file", ... */
export function fileReadProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
      return "does not exist";
    case "EISDIR":
      return "is a directory, not a file";
    case "ENOTDIR":
      return "does not exist: a directory in its path is a file";
    case "EACCES":
    case "EPERM":
      return "cannot be read: permission denied";
    case "ERR_FS_FILE_TOO_LARGE":
      // Node reads at most 2 GiB into one Buffer. Read whole: a simulated run's input log (an Arrow IPC file), and a
      // pipe; a large live log or md recording is read by position instead (file-bytes.ts).
      return `is too large to read: ${sizeOf(error)}more than the 2 GiB a file read whole can hold`;
    default:
      return `cannot be read: ${code ?? (error as Error).message}`;
  }
}

/** "3,221,225,472 bytes, " from Node's "File size (3221225472) is greater than 2 GiB", or "" when the message does not say. */
function sizeOf(error: unknown): string {
  const size = /\((\d+)\)/.exec((error as Error).message ?? "")?.[1];
  return size === undefined ? "" : `${Number(size).toLocaleString("en-US")} bytes, `;
}

/** The file's bytes, or the error `refuse` makes of what went wrong (fileReadProblem). */
export function readWholeFile(path: string, refuse: (problem: string, cause: unknown) => Error): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw refuse(fileReadProblem(error), error);
  }
}
