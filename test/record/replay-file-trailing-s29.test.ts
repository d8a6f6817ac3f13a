/**
 * A simulated run's input log (an Arrow IPC file, as `shadowbook run --out`
 * writes inputs.arrow) with bytes appended after its footer and closing
 * "ARROW1": the file is whole, so it reads and replays in full, and the
 * bytes after it are named as trailing (LogEnd "trailing", format "file"),
 * not as a truncation (it used to be refused as "is truncated: ... stops
 * before them", since its last bytes are not "ARROW1"). A file cut short is
 * still refused as truncated.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeLogEnd, InputLogError, readInputLog } from "../../src/record/replay.ts";
import { runReplay } from "../helpers/replay-command.ts";
import { writeRunLog } from "../helpers/run-log.ts";

let dir: string;
let whole: Buffer;
let rows: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-file-trailing-s29-"));
  const path = join(dir, "inputs.arrow");
  await writeRunLog(path, 2);
  whole = readFileSync(path);
  rows = readInputLog(path).steps.length;
}, 120_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe("an input log file with bytes after its closing ARROW1", () => {
  it("18 junk bytes: read whole, the bytes after it named as trailing, not as a truncation", async () => {
    const path = file("junk.arrow", Buffer.concat([whole, Buffer.from("eighteen junk byte")]));
    const log = readInputLog(path);
    expect(log.steps.length).toBe(rows);
    expect(log.end).toEqual({ kind: "trailing", fileBytes: whole.length + 18, readBytes: whole.length, format: "file" });
    const { lines, result, exitCode } = await runReplay(path);
    expect(result.steps).toBe(rows);
    expect(result.diverged).toBe(false);
    expect(lines[1]).toBe(
      `  warning: the log has 18 bytes after its footer and closing "ARROW1" (of ${(whole.length + 18).toLocaleString("en-US")}): not part of the log, they were not read; its ${rows.toLocaleString("en-US")} steps were read`,
    );
    expect(lines[2]).toMatch(/steps replayed in [\d.]+ s, every fingerprint matched$/);
    expect(exitCode).toBeUndefined();
  });

  it("appended bytes that hold ARROW1 themselves (the start of a second copy): the first file is the log", () => {
    const path = file("twice.arrow", Buffer.concat([whole, Buffer.from("xx"), whole.subarray(0, 100)]));
    expect(readInputLog(path).end).toEqual({ kind: "trailing", fileBytes: whole.length + 102, readBytes: whole.length, format: "file" });
  });

  it("a stream's trailing bytes are still named after its end-of-stream marker", () => {
    expect(describeLogEnd({ kind: "trailing", fileBytes: 108, readBytes: 100 }, 3)).toBe("has 8 bytes after its end-of-stream marker (of 108): not part of the log, they were not read; its 3 steps were read");
  });

  it("a file cut short (inside its footer, or with junk after the cut) is still refused as truncated", () => {
    for (const [name, bytes] of [
      ["cut.arrow", whole.subarray(0, whole.length - 3)],
      ["cut-junk.arrow", Buffer.concat([whole.subarray(0, whole.length - 20), Buffer.from("eighteen junk byte")])],
    ] as const) {
      const path = file(name, bytes);
      expect(() => readInputLog(path)).toThrow(InputLogError);
      expect(() => readInputLog(path)).toThrow(`input log "${path}" is truncated: an Arrow IPC file ends with its footer and "ARROW1", and this one (${bytes.length.toLocaleString("en-US")} bytes) stops before them`);
    }
  });
});
