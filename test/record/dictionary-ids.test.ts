/**
 * The dictionary ids of every Arrow file the project writes are numbered
 * within the file, not by a process-wide counter: the same data written twice
 * in one process (with other files written between) gives the same bytes,
 * as a fuzz run writing several failing seeds' logs, or a notebook running
 * the same scenario twice, relies on.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataType, tableFromIPC, type Field } from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import type { FillRecord } from "../../src/backtest/account.ts";
import { fillsTable, gridsOf } from "../../src/backtest/run.ts";
import { ColumnTable, DictColumn, F64Column } from "../../src/record/columns.ts";
import { InputLogColumns, InputLogRecorder } from "../../src/record/input-log.ts";
import { RunOutputsRecorder } from "../../src/record/run-outputs.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fixtureScenario } from "./run-fixture.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Some other Arrow file written by the same process (it makes dictionary columns of its own). */
function writeSomethingElse(): void {
  const table = new ColumnTable("other", [new DictColumn("a", ["x"]), new DictColumn("b", ["y"]), new F64Column("c")]);
  table.toIPC();
}

function dictionaryIds(fields: readonly Field[]): number[] {
  return fields.filter((field) => DataType.isDictionary(field.type)).map((field) => (field.type as { id: number }).id);
}

/** Runs the recorder fixture with the run outputs and the input log into a new directory; returns it. */
async function recordRun(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "sb-dict-ids-"));
  dirs.push(dir);
  const outputs = new RunOutputsRecorder(dir, { batchRows: 500 });
  const inputs = new InputLogRecorder();
  await runScenario(fixtureScenario(15), { observers: [outputs, inputs] });
  outputs.write();
  inputs.write(join(dir, "inputs.arrow"));
  return dir;
}

describe("dictionary ids", () => {
  it("the same run recorded twice in one process gives the same bytes in every file", async () => {
    const first = await recordRun();
    writeSomethingElse();
    const second = await recordRun();
    const files = readdirSync(first).sort();
    expect(files).toContain("inputs.arrow");
    expect(files).toContain("executions.arrow");
    expect(readdirSync(second).sort()).toEqual(files);
    for (const file of files) {
      const a = readFileSync(join(first, file));
      const b = readFileSync(join(second, file));
      expect(a.equals(b), `${file} differs between the two writes`).toBe(true);
      // Numbered 0, 1, 2... within the file.
      const ids = dictionaryIds(tableFromIPC(a).schema.fields);
      expect(ids, file).toEqual(ids.map((_, index) => index));
    }
  }, 60_000);

  it("fills.arrow is the same bytes whatever was written before", () => {
    const grids = gridsOf();
    const symbol = grids[0]!.symbol;
    const fills: FillRecord[] = [
      { fillId: 1, orderId: 10, symbol, side: "B", priceTicks: 300_000, qtyLots: 5, maker: true, fee: 0, positionLots: 5, atMicros: 1_767_225_600_000_000 },
      { fillId: 2, orderId: 11, symbol, side: "A", priceTicks: 300_010, qtyLots: 2, maker: false, fee: 0.25, positionLots: 3, atMicros: 1_767_225_601_000_000 },
    ];
    const a = fillsTable(fills, grids).toIPC();
    writeSomethingElse();
    const b = fillsTable(fills, grids).toIPC();
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(dictionaryIds(tableFromIPC(a).schema.fields)).toEqual([0, 1, 2]);
  });

  it("the input log's columns (the live log's schema too) have dictionary ids 0 and 1", () => {
    writeSomethingElse();
    expect(dictionaryIds(new InputLogColumns().list.map((column) => column.field))).toEqual([0, 1]);
    writeSomethingElse();
    expect(dictionaryIds(new InputLogColumns().list.map((column) => column.field))).toEqual([0, 1]);
  });

  it("a table numbers its dictionary columns from 0, after any fixed id it was given", () => {
    writeSomethingElse();
    const table = new ColumnTable("t", [new DictColumn("a", ["x"]), new F64Column("b"), new DictColumn("c", ["y"])]);
    expect(dictionaryIds(table.schema.fields)).toEqual([0, 1]);
    const mixed = new ColumnTable("m", [new DictColumn("a", ["x"]), new DictColumn("c", ["y"], 0)]);
    expect(dictionaryIds(mixed.schema.fields)).toEqual([1, 0]);
    expect(() => new ColumnTable("dup", [new DictColumn("a", [], 3), new DictColumn("b", [], 3)])).toThrow(/dictionary id 3/);
  });
});
