import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileReadProblem, readWholeFile } from "../../src/record/read-file.ts";

describe("readWholeFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-read-file-"));
  const file = join(dir, "a.bin");
  writeFileSync(file, Buffer.from([1, 2, 3]));
  const refuse = (problem: string, cause: unknown) => new Error(`the file ${problem}`, { cause });

  it("reads a file's bytes", () => {
    expect([...readWholeFile(file, refuse)]).toEqual([1, 2, 3]);
  });

  it("says what went wrong in words, with the error as the cause", () => {
    const cases = [
      { path: join(dir, "missing"), problem: "does not exist", code: "ENOENT" },
      { path: dir, problem: "is a directory, not a file", code: "EISDIR" },
      { path: join(file, "inside"), problem: "does not exist: a directory in its path is a file", code: "ENOTDIR" },
    ];
    for (const { path, problem, code } of cases) {
      let thrown: Error | undefined;
      try {
        readWholeFile(path, refuse);
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown?.message).toBe(`the file ${problem}`);
      expect((thrown?.cause as NodeJS.ErrnoException).code).toBe(code);
    }
    expect(fileReadProblem(Object.assign(new Error("x"), { code: "EACCES" }))).toBe("cannot be read: permission denied");
    expect(fileReadProblem(Object.assign(new Error("x"), { code: "EIO" }))).toBe("cannot be read: EIO");
  });
});
