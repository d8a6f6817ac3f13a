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
    default:
      return `cannot be read: ${code ?? (error as Error).message}`;
  }
}

/** The file's bytes, or the error `refuse` makes of what went wrong (fileReadProblem). */
export function readWholeFile(path: string, refuse: (problem: string, cause: unknown) => Error): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw refuse(fileReadProblem(error), error);
  }
}
