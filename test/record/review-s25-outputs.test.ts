/**
 * Review s25 of a backtest's outputs (`run --out DIR`: the Arrow files,
 * summary.json, report.html), read as a quant loading them into pandas,
 * polars or DuckDB would. Defects found, each shown by a test here:
 *
 * 1. A dictionary column that meets a value after its first batch was cut
 *    was written as an Arrow delta dictionary batch. apache-arrow and
 *    pyarrow read it; polars refuses the whole file ("delta dictionary
 *    batches not supported"). ColumnTable keeps every batch in memory until
 *    toIPC, so it now writes the whole vocabulary once.
 * 2. busts.arrow's reasonName vocabulary left out the bust reasons the risk
 *    layer itself reports (ReduceOnlyViolation, OpenInterestCapExceeded,
 *    risk/pretrade.ts validateMatch): such a bust after the first 65,536
 *    rows made the delta of (1), and their codes differed between runs.
 *    And reasonAccountId was null for them: an unmodeled reason names its
 *    account in `args.accountId` (spec 2.16 `{reasonName, args}`).
 * 3. executions.arrow's notional was the product of the two parsed doubles,
 *    not the double nearest the exact price x qty as every other column is
 *    the double nearest its decimal (2838.39 x 22.685 read 64388.87714999999,
 *    from the liquidation-cascade scenario's first ADL).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataType, RecordBatchReader, tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { ColumnTable, DictColumn, F64Column } from "../../src/record/columns.ts";
import { RunOutputsRecorder } from "../../src/record/run-outputs.ts";
import type { RunObserver, RunSetup } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fixtureScenario } from "./run-fixture.ts";

/** The dictionary batches an Arrow IPC file's footer lists (one per dictionary column when none is a delta). */
function dictionaryBatches(bytes: Uint8Array): number {
  const reader = RecordBatchReader.from(bytes);
  reader.open();
  return (reader as unknown as { footer: { numDictionaries: number } }).footer.numDictionaries;
}

function dictionaryColumns(bytes: Uint8Array): number {
  return tableFromIPC(bytes).schema.fields.filter((field) => DataType.isDictionary(field.type)).length;
}

class SetupCapture implements RunObserver {
  setup: RunSetup | undefined;
  begin(setup: RunSetup): void {
    this.setup = setup;
  }
  output(): void {}
}

const dirs: string[] = [];
let setup: RunSetup;

beforeAll(async () => {
  const capture = new SetupCapture();
  await runScenario(fixtureScenario(2), { observers: [capture] });
  setup = capture.setup!;
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A recorder begun on the fixture's setup, fed `outputs`, written; returns the directory. */
function record(outputs: readonly ExchangeOutput[], batchRows = 1): string {
  const dir = mkdtempSync(join(tmpdir(), "sb-review-s25-outputs-"));
  dirs.push(dir);
  const recorder = new RunOutputsRecorder(dir, { batchRows });
  recorder.begin(setup);
  for (const output of outputs) recorder.output(output, setup.world.now());
  recorder.write();
  return dir;
}

function bust(fillId: string, reason: Record<string, unknown>): ExchangeOutput {
  const [taker, maker] = setup.agents;
  return {
    kind: "bust",
    symbol: "ETHRUSDPERP",
    wallets: [],
    record: {
      symbol: "ETHRUSDPERP",
      takerAccountId: taker!.accountId,
      exchangeId: 1,
      makerAccountId: maker!.accountId,
      takerOrderId: "11",
      makerOrderId: "12",
      qty: "0.5",
      side: "B",
      price: "3000.5",
      reason,
      timestamp: 1_767_225_601_000,
      sequenceNumber: Number(fillId),
      fillId,
    },
  } as never;
}

describe("review s25: Arrow files a polars reader can open", () => {
  it("writes a dictionary that grew after the first batch once, whole: no delta dictionary batch", () => {
    const kind = new DictColumn("kind", ["a"]);
    const other = new DictColumn("other", ["x"]);
    const value = new F64Column("value");
    const table = new ColumnTable("t", [kind, other, value], 2);
    const values = ["a", "b", "a", "c", "d", "b", "a"];
    values.forEach((v, i) => {
      kind.push(v);
      other.push("x");
      value.push(i);
      table.endRow();
    });
    const bytes = table.toIPC();
    expect(dictionaryBatches(bytes)).toBe(2); // one per dictionary column
    const read = tableFromIPC(bytes);
    expect(read.batches.length).toBe(4);
    expect(read.toArray().map((row) => row.toJSON())).toEqual(values.map((v, i) => ({ kind: v, other: "x", value: i })));
  });

  it("busts.arrow: a ReduceOnlyViolation or OpenInterestCapExceeded bust is in the seeded vocabulary, and names its account", () => {
    const [taker] = setup.agents;
    const dir = record([
      bust("1", { reasonName: "AccountBelowIM", accountId: taker!.accountId, delta: "-1", shortfall: "1" }),
      bust("2", { reasonName: "ReduceOnlyViolation", args: { accountId: taker!.accountId, marketId: 1, position: "0", delta: "0.5" } }),
      bust("3", { reasonName: "OpenInterestCapExceeded", args: { marketId: 1, oiQty: "10", oiCap: "10" } }),
    ]);
    const bytes = readFileSync(join(dir, "busts.arrow"));
    expect(dictionaryBatches(bytes)).toBe(dictionaryColumns(bytes));
    const rows = tableFromIPC(bytes)
      .toArray()
      .map((row) => row.toJSON());
    expect(rows.map((r) => [r["reasonName"], r["reasonAccountId"]])).toEqual([
      ["AccountBelowIM", taker!.accountId],
      ["ReduceOnlyViolation", taker!.accountId],
      ["OpenInterestCapExceeded", null],
    ]);
  });

  it("executions.arrow: notional is the double nearest the exact price x qty", () => {
    const [taker, maker] = setup.agents;
    const execution = (fillId: string, price: string, qty: string): ExchangeOutput =>
      ({
        kind: "perpExecution",
        symbol: "ETHRUSDPERP",
        wallets: [],
        record: {
          exchangeId: 1,
          symbol: "ETHRUSDPERP",
          takerAccountId: taker!.accountId,
          makerAccountId: maker!.accountId,
          qty,
          side: "A",
          price,
          takerFee: "0",
          type: "ORDER_MATCH",
          timestamp: 1_767_225_601_000,
          sequenceNumber: Number(fillId),
          fillId,
        },
      }) as never;
    const dir = record([execution("1", "2838.39", "22.685"), execution("2", "0.1", "0.3"), execution("3", "60123.4", "0.003")], 65_536);
    const notional = [...(tableFromIPC(readFileSync(join(dir, "executions.arrow"))).getChild("notional")!.toArray() as Float64Array)];
    expect(notional).toEqual([64388.87715, 0.03, 180.3702]);
  });
});
