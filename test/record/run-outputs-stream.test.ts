/**
 * Run outputs written while the run runs (RunOutputsRecorder `stream`, what
 * `shadowbook run --out` uses): each batch goes to its file as it fills, so
 * a long run holds one batch per file rather than its outputs, and the
 * files are the same bytes as those written at the end (every dictionary is
 * seeded whole, so no file needs a delta). Under it, ColumnTable.streamTo:
 * batches on disk as sealed, the footer at close, a dictionary that grows
 * late written as a delta that readers of the file format take. The input
 * log (InputLogRecorder `streamTo`) likewise.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ColumnTable, DictColumn, I32Column } from "../../src/record/columns.ts";
import { FAILED_AFTER_OUTPUTS_KEY, InputLogRecorder } from "../../src/record/input-log.ts";
import { readInputLog } from "../../src/record/replay.ts";
import { RUN_OUTPUT_FILES, RunOutputsRecorder } from "../../src/record/run-outputs.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fixtureScenario } from "./run-fixture.ts";

const BATCH_ROWS = 50;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sb-stream-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("RunOutputsRecorder with stream", () => {
  let streamed: RunOutputsRecorder;
  let held: RunOutputsRecorder;
  /** Each file's size on disk when the run had ended, before write(). */
  const sizesBeforeWrite = new Map<string, number>();

  beforeAll(async () => {
    streamed = new RunOutputsRecorder(join(dir, "streamed"), { batchRows: BATCH_ROWS, stream: true });
    held = new RunOutputsRecorder(join(dir, "held"), { batchRows: BATCH_ROWS });
    await runScenario(fixtureScenario(60), { observers: [streamed, held] });
    for (const name of RUN_OUTPUT_FILES) sizesBeforeWrite.set(name, statSync(join(dir, "streamed", `${name}.arrow`)).size);
  }, 60_000);

  it("has each full batch on disk before write(), and nothing of the held recorder", () => {
    expect(existsSync(join(dir, "held")), "the held recorder writes nothing before write()").toBe(false);
    const counts = streamed.rowCounts();
    const batched = RUN_OUTPUT_FILES.filter((name) => counts[name] >= 3 * BATCH_ROWS);
    expect(batched.length, "the run fills several batches of most files").toBeGreaterThanOrEqual(6);
    for (const name of batched) {
      // A batch of BATCH_ROWS rows takes at least 4 bytes a row (an Int32 or a timestamp column): the full batches are there.
      expect(sizesBeforeWrite.get(name)!, name).toBeGreaterThan(Math.floor(counts[name] / BATCH_ROWS) * BATCH_ROWS * 4);
    }
  });

  it("writes the same bytes as the recorder that holds its batches until write()", () => {
    const streamedPaths = streamed.write();
    const heldPaths = held.write();
    expect(streamedPaths).toEqual(RUN_OUTPUT_FILES.map((name) => join(dir, "streamed", `${name}.arrow`)));
    streamedPaths.forEach((path, i) => {
      const bytes = readFileSync(path);
      expect(bytes.length, path).toBeGreaterThanOrEqual(sizesBeforeWrite.get(RUN_OUTPUT_FILES[i]!)!);
      expect(bytes.equals(readFileSync(heldPaths[i]!)), path).toBe(true);
      expect(tableFromIPC(bytes).numRows, path).toBe(streamed.rowCounts()[RUN_OUTPUT_FILES[i]!]);
    });
  });
});

describe("RunOutputsRecorder.abandon", () => {
  it("closes and removes the files streamed so far, and nothing else", async () => {
    const out = join(dir, "abandoned");
    const recorder = new RunOutputsRecorder(out, { batchRows: BATCH_ROWS, stream: true });
    await runScenario(fixtureScenario(10), { observers: [recorder] });
    expect(readdirSync(out).sort()).toEqual(RUN_OUTPUT_FILES.map((name) => `${name}.arrow`).sort());
    recorder.abandon();
    expect(readdirSync(out)).toEqual([]);
  }, 60_000);
});

/** A two-column table (an Int32 and a dictionary seeded with "a") streamed to `path`. */
function streamedTable(path: string, batchRows: number): { table: ColumnTable; n: I32Column; word: DictColumn } {
  const n = new I32Column("n");
  const word = new DictColumn("word", ["a"]);
  const table = new ColumnTable("t", [n, word], batchRows);
  table.streamTo(path);
  return { table, n, word };
}

describe("ColumnTable.streamTo", () => {
  it("writes each batch when sealed and the footer at close; a value added after the first batch reads back (a dictionary delta)", () => {
    const path = join(dir, "late-word.arrow");
    const { table, n, word } = streamedTable(path, 2);
    const words = ["a", "a", "a", "b", "c", "b", "a"];
    words.forEach((value, i) => {
      n.push(i);
      word.push(value);
      table.endRow();
    });
    const sealed = statSync(path).size;
    expect(sealed, "three batches of two rows are on disk before close").toBeGreaterThan(8);
    expect(table.close()).toBe(path);
    const read = tableFromIPC(readFileSync(path));
    expect(read.toArray().map((row) => [row.n, row.word])).toEqual(words.map((value, i) => [i, value]));
    expect(statSync(path).size).toBeGreaterThan(sealed);
  });

  it("writes an empty table as the held table does", () => {
    const path = join(dir, "empty.arrow");
    const { table } = streamedTable(path, 2);
    table.close();
    const held = new ColumnTable("t", [new I32Column("n"), new DictColumn("word", ["a"])], 2);
    expect(readFileSync(path).equals(Buffer.from(held.toIPC()))).toBe(true);
  });

  it("refuses toIPC, a second streamTo, rows after close, and a streamTo after a batch was kept", () => {
    const { table, n, word } = streamedTable(join(dir, "refusals.arrow"), 1);
    expect(() => table.toIPC()).toThrow('table "t" is streamed to its file: close() it');
    expect(() => table.streamTo(join(dir, "again.arrow"))).toThrow('table "t" is already streamed');
    table.close();
    expect(() => table.close()).toThrow('table "t" is already closed');
    n.push(1);
    word.push("a");
    expect(() => table.endRow()).toThrow('table "t" was closed: its file takes no more rows');

    const held = new ColumnTable("h", [new I32Column("n")], 1);
    (held as unknown as { columns: I32Column[] }).columns[0]!.push(1);
    held.endRow();
    expect(() => held.streamTo(join(dir, "late.arrow"))).toThrow(`table "h" sealed a batch before streamTo: those rows would be missing from ${join(dir, "late.arrow")}`);
  });

  it("names the file when it cannot be opened", () => {
    const { table } = { table: new ColumnTable("t", [new I32Column("n")]) };
    expect(() => table.streamTo(join(dir, "no-such-dir", "x.arrow"))).toThrow(/ENOENT.*no-such-dir/);
  });
});

describe("InputLogRecorder with streamTo", () => {
  it("writes the same bytes as the log written at the end, a failed run's metadata included, and reads back", async () => {
    for (const failed of [false, true]) {
      const path = join(dir, `inputs-streamed-${failed}.arrow`);
      const streamed = new InputLogRecorder({ code: "0.1.0+000000000000", replayCode: "0.1.0+111111111111", streamTo: path });
      const held = new InputLogRecorder({ code: "0.1.0+000000000000", replayCode: "0.1.0+111111111111" });
      await runScenario(fixtureScenario(60), { observers: [streamed, held] });
      // Opened when the run began (the Arrow magic is there); its batches are of 65,536 steps, more than this run has.
      expect(readFileSync(path).subarray(0, 6).toString("latin1"), "the log's file is open before write()").toBe("ARROW1");
      streamed.write(undefined, { failed });
      const heldPath = join(dir, `inputs-held-${failed}.arrow`);
      held.write(heldPath, { failed });
      expect(readFileSync(path).equals(readFileSync(heldPath))).toBe(true);
      const log = readInputLog(path);
      expect(log.steps.length).toBeGreaterThan(1_000);
      expect(log.failedAfterOutputs !== undefined, FAILED_AFTER_OUTPUTS_KEY).toBe(failed);
      expect(log.code).toBe("0.1.0+000000000000");
    }
  }, 60_000);

  it("refuses a path at write() when streamed, and none when not; abandon() removes the file", async () => {
    const path = join(dir, "inputs-abandoned.arrow");
    const streamed = new InputLogRecorder({ streamTo: path });
    const held = new InputLogRecorder();
    await runScenario(fixtureScenario(5), { observers: [streamed, held] });
    expect(() => streamed.write(join(dir, "elsewhere.arrow"))).toThrow(`InputLogRecorder.write: the log is streamed to ${path}, not written to ${join(dir, "elsewhere.arrow")}`);
    expect(() => held.write()).toThrow("InputLogRecorder.write needs the log's path");
    streamed.abandon();
    expect(existsSync(path)).toBe(false);
  }, 60_000);
});
