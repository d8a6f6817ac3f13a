import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataType, tableFromIPC, type Table } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ColumnTable, DictColumn, F64Column, I32Column, I64Column, Utf8Column } from "../../src/record/columns.ts";
import { POOL_AGENT, RUN_OUTPUT_FILES, RunOutputsRecorder } from "../../src/record/run-outputs.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import type { RunObserver, RunSetup } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import type { RunFigures } from "../../src/sim/runner.ts";
import { fixtureScenario } from "./run-fixture.ts";

const DURATION_SECONDS = 60;

/** Keeps every output and sample time, as the recorder saw them. */
class Capture implements RunObserver {
  setup: RunSetup | undefined;
  readonly outputs: ExchangeOutput[] = [];
  readonly samples: number[] = [];
  /** The Exchange's own settled margin balance of each agent account (rUSD) at each sample: ms -> agent -> text. */
  readonly settledMargin = new Map<number, Map<string, string>>();
  begin(setup: RunSetup): void {
    this.setup = setup;
  }
  output(output: ExchangeOutput): void {
    this.outputs.push(output);
  }
  sample(atMicros: number): void {
    this.samples.push(atMicros);
    const risk = this.setup!.world.exchange.risk;
    this.settledMargin.set(Math.floor(atMicros / 1_000), new Map(this.setup!.agents.map((a) => [a.name, risk.margin(a.accountId, atMicros).settledMarginBalance])));
  }
}

let dir: string;
let capture: Capture;
let figures: RunFigures;
let plainFingerprint: string;
let recorder: RunOutputsRecorder;
const tables = new Map<string, Table>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sb-record-"));
  capture = new Capture();
  recorder = new RunOutputsRecorder(dir, { batchRows: 500 });
  ({ figures } = await runScenario(fixtureScenario(DURATION_SECONDS), { observers: [recorder, capture] }));
  plainFingerprint = (await runScenario(fixtureScenario(DURATION_SECONDS))).figures.fingerprint;
  for (const path of recorder.write()) tables.set(path.slice(dir.length + 1).replace(/\.arrow$/, ""), tableFromIPC(readFileSync(path)));
}, 60_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const rowCache = new Map<string, Record<string, unknown>[]>();
function rows(name: string): Record<string, unknown>[] {
  let cached = rowCache.get(name);
  if (cached === undefined) {
    cached = tables.get(name)!.toArray().map((row) => row.toJSON() as Record<string, unknown>);
    rowCache.set(name, cached);
  }
  return cached;
}

const agentOf = (accountId: number | undefined): string | null => {
  if (accountId === undefined) return null;
  if (accountId === capture.setup!.config.risk.poolAccountId) return POOL_AGENT;
  return capture.setup!.agents.find((a) => a.accountId === accountId)?.name ?? null;
};

describe("RunOutputsRecorder", () => {
  it("does not change the run: same fingerprint as a run without observers", () => {
    expect(figures.fingerprint).toBe(plainFingerprint);
  });

  it("writes every file, readable as Arrow IPC", () => {
    expect([...tables.keys()]).toEqual([...RUN_OUTPUT_FILES]);
    expect([...RUN_OUTPUT_FILES]).toEqual(["executions", "busts", "orders", "ledger", "positions", "balances", "equity", "prices", "depth"]);
    const times = tables.get("executions")!.schema.fields.find((f) => f.name === "time")!;
    expect(DataType.isTimestamp(times.type)).toBe(true);
    expect(String(times.type)).toBe("Timestamp<MILLISECOND, UTC>");
    const symbol = tables.get("executions")!.schema.fields.find((f) => f.name === "symbol")!;
    expect(DataType.isDictionary(symbol.type)).toBe(true);
    expect(DataType.isFloat(tables.get("executions")!.schema.fields.find((f) => f.name === "price")!.type)).toBe(true);
  });

  it("records every execution once, with its price, quantity, sides and fees", () => {
    const executions = capture.outputs.flatMap((o) => (o.kind === "perpExecution" || o.kind === "spotExecution" ? [{ kind: o.kind, record: o.record }] : []));
    expect(executions.length).toBeGreaterThan(50);
    expect(executions.some((e) => e.record.type === "ADL")).toBe(true);
    const recorded = rows("executions");
    expect(recorded.length).toBe(executions.length);
    expect(new Set(recorded.map((r) => r["fillId"])).size).toBe(recorded.length);
    const byFill = new Map(recorded.map((r) => [r["fillId"] as string, r]));
    for (const { kind, record } of executions) {
      const row = byFill.get(record.fillId)!;
      expect(row).toBeDefined();
      expect(row["symbol"]).toBe(record.symbol);
      expect(row["market"]).toBe(kind === "perpExecution" ? "perp" : "spot");
      expect(row["type"]).toBe(record.type);
      expect(row["time"]).toBe(record.timestamp);
      expect(row["side"]).toBe(record.side);
      expect(row["price"]).toBe(Number(record.price));
      expect(row["qty"]).toBe(Number(record.qty));
      expect(row["takerFee"]).toBe(Number(record.takerFee));
      expect(Number(row["sequenceNumber"])).toBe(record.sequenceNumber);
      expect(row["takerAccountId"]).toBe(record.takerAccountId);
      expect(row["takerAgent"]).toBe(agentOf(record.takerAccountId));
      expect(row["makerAccountId"]).toBe(record.makerAccountId ?? null);
      expect(row["makerAgent"]).toBe(agentOf(record.makerAccountId));
      expect(row["takerOrderId"]).toBe(record.takerOrderId ?? null);
      expect(row["makerOrderId"]).toBe(record.makerOrderId ?? null);
      const realized = (record as { takerRealizedPnl?: string }).takerRealizedPnl;
      expect(row["takerRealizedPnl"]).toBe(realized === undefined ? null : Number(realized));
    }
  });

  it("records busts and order updates one row per output, in order", () => {
    const busts = capture.outputs.flatMap((o) => (o.kind === "bust" ? [o.record] : []));
    expect(busts.length).toBeGreaterThan(0);
    const bustRows = rows("busts");
    expect(bustRows.map((r) => r["fillId"])).toEqual(busts.map((b) => b.fillId));
    expect(bustRows.map((r) => r["reasonName"])).toEqual(busts.map((b) => b.reason.reasonName));
    expect(bustRows.map((r) => JSON.parse(r["reason"] as string))).toEqual(busts.map((b) => b.reason));

    const orders = capture.outputs.flatMap((o) => (o.kind === "order" ? [o] : []));
    const orderRows = rows("orders");
    expect(orderRows.length).toBe(orders.length);
    expect(tables.get("orders")!.batches.length).toBeGreaterThan(1); // batches of 500 rows share each dictionary
    orders.forEach((o, i) => {
      const row = orderRows[i]!;
      expect(row["orderId"]).toBe(o.row.orderId);
      expect(row["status"]).toBe(o.row.status);
      expect(row["symbol"]).toBe(o.row.symbol);
      expect(row["agent"]).toBe(agentOf(o.row.accountId));
      expect(row["cumQty"]).toBe(o.row.cumQty === undefined ? null : Number(o.row.cumQty));
      expect(row["qty"]).toBe(o.row.qty === undefined ? null : Number(o.row.qty));
      expect(row["cancelReason"]).toBe(o.row.cancelReason ?? null);
      expect(row["onOrderChanges"]).toBe(o.onOrderChanges);
      expect(row["time"]).toBe(o.row.lastUpdateAt);
    });
  });

  it("samples positions, balances, equity and prices at every sample time", () => {
    const setup = capture.setup!;
    const samples = capture.samples.length;
    expect(samples).toBe(DURATION_SECONDS + 1);
    const agents = setup.agents.length;
    const perps = setup.config.risk.perpMarkets.length;
    const markets = perps + setup.config.risk.spotMarkets.length;
    expect(tables.get("positions")!.numRows).toBe(samples * agents * perps);
    expect(tables.get("equity")!.numRows).toBe(samples * agents);
    expect(tables.get("prices")!.numRows).toBe(samples * markets);
    const times = new Set(rows("equity").map((r) => r["time"]));
    expect([...times]).toEqual(capture.samples.map((t) => Math.floor(t / 1_000)));
    // The last positions rows agree with the Exchange's positions at the end.
    const end = capture.samples.at(-1)!;
    for (const agent of setup.agents) {
      for (const position of setup.world.queries.positions(agent.wallet)) {
        const row = rows("positions").find((r) => r["time"] === Math.floor(end / 1_000) && r["agent"] === agent.name && r["symbol"] === position.symbol)!;
        expect(row["qty"]).toBe((position.side === "B" ? 1 : -1) * Number(position.qty));
        expect(row["avgEntryPrice"]).toBe(Number(position.avgEntryPrice));
      }
      const balances = rows("balances").filter((r) => r["time"] === Math.floor(end / 1_000) && r["agent"] === agent.name);
      expect(balances.map((r) => [r["asset"], r["realBalance"]])).toEqual(setup.world.queries.accountBalances(agent.wallet).map((b) => [b.asset, Number(b.realBalance)]));
    }
  });

  it("values an account as the Exchange does at the sample time: an rUSD-only account's equity is its settled margin balance", () => {
    // For an account holding only the settlement asset, equity = balance + sum of qty x (mark - entry) + accrued
    // funding, which is the Exchange's settled margin balance (margin.ts, no haircut on rUSD, pending matches apart).
    const rusdOnly = new Set(capture.setup!.agents.map((a) => a.name));
    for (const r of rows("balances")) if (r["asset"] !== "rUSD") rusdOnly.delete(r["agent"] as string);
    expect(rusdOnly.has("gambler")).toBe(true);
    let withPositions = 0;
    for (const r of rows("equity")) {
      const agent = r["agent"] as string;
      if (!rusdOnly.has(agent)) continue;
      const expected = Number(capture.settledMargin.get(Number(r["time"]))!.get(agent)!);
      expect(Math.abs((r["equity"] as number) - expected), `${agent} at ${r["time"]}: equity ${r["equity"]}, Exchange ${expected}`).toBeLessThan(1e-6);
      if (r["unrealizedPnl"] !== 0) withPositions++;
    }
    expect(withPositions).toBeGreaterThan(10);
  });

  it("samples a spot market's oracle at the sample time: index(base) / index(quote), the index in the same row for an rUSD quote", () => {
    const spot = rows("prices").filter((r) => r["market"] === "spot" && r["oraclePrice"] !== null);
    expect(spot.length).toBe(capture.samples.length);
    for (const r of spot) expect(r["oraclePrice"], `WETHRUSD at ${r["time"]}`).toBe(r["indexPrice"]);
  });

  it("samples the top depth levels, best first", () => {
    const depth = rows("depth");
    expect(depth.length).toBeGreaterThan(0);
    expect(depth.every((r) => (r["level"] as number) < 10)).toBe(true);
    const last = Math.max(...depth.map((r) => r["time"] as number));
    const bids = depth.filter((r) => r["time"] === last && r["symbol"] === "ETHRUSDPERP" && r["side"] === "bid");
    const asks = depth.filter((r) => r["time"] === last && r["symbol"] === "ETHRUSDPERP" && r["side"] === "ask");
    const view = capture.setup!.world.queries.depth("ETHRUSDPERP", 10)!;
    expect(bids.map((r) => [r["price"], r["qty"]])).toEqual(view.bids.map((l) => [Number(l.px), Number(l.qty)]));
    expect(asks.map((r) => [r["price"], r["qty"]])).toEqual(view.asks.map((l) => [Number(l.px), Number(l.qty)]));
    expect(recorder.rowCounts().depth).toBe(depth.length);
  });
});

describe("columns", () => {
  it("keeps nulls, strings and a growing dictionary across batches", () => {
    const price = new F64Column("price");
    const count = new I32Column("count");
    const id = new Utf8Column("id");
    const kind = new DictColumn("kind", ["a", "b"]);
    const t = new ColumnTable("t", [price, count, id, kind], 7);
    const expected: Record<string, unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      const isNull = i % 5 === 3;
      if (isNull) price.pushNull();
      else price.push(i / 4);
      count.pushOptional(i % 3 === 0 ? undefined : i);
      id.pushOptional(i % 11 === 10 ? undefined : `id-${i}-é`);
      const k = i < 20 ? (i % 2 === 0 ? "a" : "b") : `late-${i % 3}`;
      kind.pushOptional(i % 13 === 12 ? undefined : k);
      t.endRow();
      expected.push({
        price: isNull ? null : i / 4,
        count: i % 3 === 0 ? null : i,
        id: i % 11 === 10 ? null : `id-${i}-é`,
        kind: i % 13 === 12 ? null : k,
      });
    }
    const table = tableFromIPC(t.toIPC());
    expect(table.batches.length).toBe(6);
    expect(table.toArray().map((r) => r.toJSON())).toEqual(expected);
  });

  it("writes an empty table with its schema", () => {
    const t = new ColumnTable("empty", [new F64Column("x"), new DictColumn("y", ["q"])]);
    const table = tableFromIPC(t.toIPC());
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(["x", "y"]);
  });
});

describe("I64Column", () => {
  it("stores safe integers exactly, negative ones included", () => {
    const values = [0, 1, -1, 2 ** 32, 2 ** 32 - 1, -(2 ** 32), 1_767_225_600_123, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
    const column = new I64Column("v");
    const t = new ColumnTable("t", [column]);
    for (const v of values) {
      column.push(v);
      t.endRow();
    }
    const read = tableFromIPC(t.toIPC()).getChild("v")!.toArray() as BigInt64Array;
    expect([...read]).toEqual(values.map((v) => BigInt(v)));
  });
});
