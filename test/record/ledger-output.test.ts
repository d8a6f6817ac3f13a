/**
 * ledger.arrow (record/run-outputs.ts): one row per account ledger entry
 * (spec 2.20 Transfer) the Exchange emitted, every field of the entry, and
 * the cash flows add up: per account and asset the amounts sum to the final
 * balance, the last netDepositsAfter is the final net deposits, the setup
 * deposits are DEPOSIT rows, and each fill's fee rows are executions.arrow's
 * fees. The run is the recorder fixture (fills on two perps and a spot
 * market, fees, funding, a liquidation and busts), recorded twice: the file
 * must be the same bytes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataType, tableFromIPC, type Table } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toE18 } from "../../src/core/decimal.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { POOL_AGENT, RunOutputsRecorder } from "../../src/record/run-outputs.ts";
import type { Transfer } from "../../src/spec/account.ts";
import type { RunObserver, RunSetup } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fixtureScenario } from "./run-fixture.ts";

const DURATION_SECONDS = 60;

/** The ledger entries the Exchange emitted (the "transfer" outputs), in order. */
class TransferCapture implements RunObserver {
  setup: RunSetup | undefined;
  readonly entries: Transfer[] = [];
  begin(setup: RunSetup): void {
    this.setup = setup;
  }
  output(output: ExchangeOutput): void {
    if (output.kind === "transfer") this.entries.push(output.entry);
  }
}

type Row = Record<string, unknown>;

const dirs: string[] = [];
let capture: TransferCapture;
let ledgerBytes: Buffer;
let secondLedgerBytes: Buffer;
let ledger: Table;
let ledgerRows: Row[];
let executionRows: Row[];
let bustRows: Row[];
let balanceRows: Row[];

async function record(observers: RunObserver[] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "sb-ledger-"));
  dirs.push(dir);
  const recorder = new RunOutputsRecorder(dir, { batchRows: 200 });
  await runScenario(fixtureScenario(DURATION_SECONDS), { observers: [recorder, ...observers] });
  recorder.write();
  return dir;
}

const rowsOf = (table: Table): Row[] => table.toArray().map((row) => row.toJSON() as Row);

beforeAll(async () => {
  capture = new TransferCapture();
  const dir = await record([capture]);
  const again = await record();
  ledgerBytes = readFileSync(join(dir, "ledger.arrow"));
  secondLedgerBytes = readFileSync(join(again, "ledger.arrow"));
  ledger = tableFromIPC(ledgerBytes);
  ledgerRows = rowsOf(ledger);
  executionRows = rowsOf(tableFromIPC(readFileSync(join(dir, "executions.arrow"))));
  bustRows = rowsOf(tableFromIPC(readFileSync(join(dir, "busts.arrow"))));
  balanceRows = rowsOf(tableFromIPC(readFileSync(join(dir, "balances.arrow"))));
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const poolAccountId = (): number => capture.setup!.config.risk.poolAccountId;

const agentOf = (accountId: number | undefined): string | null => {
  if (accountId === undefined) return null;
  if (accountId === poolAccountId()) return POOL_AGENT;
  return capture.setup!.agents.find((a) => a.accountId === accountId)?.name ?? null;
};

/** A number as its exact 10^18 fixed point, for a sum of wire decimals. */
const e18 = (text: string): bigint => toE18(text, "amount", { signed: true });

describe("ledger.arrow", () => {
  it("has the documented columns and types", () => {
    const fields = ledger.schema.fields.map((f) => [f.name, String(f.type)]);
    expect(fields).toEqual([
      ["time", "Timestamp<MILLISECOND, UTC>"],
      ["id", "Utf8"],
      ["accountId", "Int32"],
      ["agent", "Dictionary<Int32, Utf8>"],
      ["type", "Dictionary<Int32, Utf8>"],
      ["asset", "Dictionary<Int32, Utf8>"],
      ["amount", "Float64"],
      ["netDepositsAfter", "Float64"],
      ["counterpartyAccountId", "Int32"],
      ["counterpartyAgent", "Dictionary<Int32, Utf8>"],
      ["fillId", "Utf8"],
    ]);
    expect(DataType.isDictionary(ledger.schema.fields.find((f) => f.name === "type")!.type)).toBe(true);
    expect(ledger.batches.length).toBeGreaterThan(1); // batches of 200 rows share each dictionary
  });

  it("has one row per ledger entry the Exchange emitted, in order, with every field of the entry", () => {
    const entries = capture.entries;
    expect(entries.length).toBeGreaterThan(500);
    expect(ledgerRows.length).toBe(entries.length);
    entries.forEach((entry, i) => {
      const row = ledgerRows[i]!;
      expect(row["id"]).toBe(entry.id);
      expect(row["time"]).toBe(entry.timestamp);
      expect(row["accountId"]).toBe(entry.accountId);
      expect(row["agent"]).toBe(agentOf(entry.accountId));
      expect(row["type"]).toBe(entry.type);
      expect(row["asset"]).toBe(entry.asset);
      expect(row["amount"]).toBe(Number(entry.amount));
      expect(row["netDepositsAfter"]).toBe(Number(entry.netDepositsAfter));
      expect(row["counterpartyAccountId"]).toBe(entry.counterpartyAccountId ?? null);
      expect(row["counterpartyAgent"]).toBe(agentOf(entry.counterpartyAccountId));
      expect(row["fillId"]).toBe(entry.fillId ?? null);
    });
    // The same entries the REST listing (/v2/wallet/{address}/transfers) pages through, every wallet.
    const { world } = capture.setup!;
    const wallets = new Set(entries.map((e) => world.exchange.risk.accountOwner(e.accountId)!));
    const listed: string[] = [];
    for (const wallet of wallets) {
      let cursor: string | undefined;
      do {
        const page = world.queries.transfers(wallet, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
        listed.push(...page.data.map((e) => e.id));
        cursor = page.meta.nextCursor;
      } while (cursor !== undefined);
    }
    expect(listed.sort((a, b) => Number(a) - Number(b))).toEqual(ledgerRows.map((r) => r["id"]));
    // Ids increase: the ledger's order.
    for (let i = 1; i < ledgerRows.length; i++) expect(Number(ledgerRows[i]!["id"])).toBeGreaterThan(Number(ledgerRows[i - 1]!["id"]));
  });

  it("holds the setup deposits as DEPOSIT rows, the first rows of the run", () => {
    const setup = capture.setup!;
    const expected: [string, string, number, number][] = [];
    for (const definition of setup.scenario.agents) {
      const accountId = setup.agents.find((a) => a.name === definition.name)!.accountId;
      for (const [asset, amount] of Object.entries(definition.account?.deposits ?? {})) expected.push([definition.name, asset, Number(amount), accountId]);
    }
    expect(expected.length).toBe(7);
    const deposits = ledgerRows.filter((r) => r["type"] === "DEPOSIT");
    expect(deposits.map((r) => [r["agent"], r["asset"], r["amount"], r["accountId"]])).toEqual(expected);
    expect(ledgerRows.slice(0, deposits.length)).toEqual(deposits);
    for (const r of deposits) {
      expect(r["netDepositsAfter"]).toBe(r["amount"]); // the first deposit of the asset
      expect(r["time"]).toBe(setup.startMicros / 1_000);
      expect(r["fillId"]).toBeNull();
      expect(r["counterpartyAccountId"]).toBeNull();
    }
  });

  it("per account and asset, the amounts sum to the final balance and the last netDepositsAfter is the final net deposits", () => {
    const { world, agents } = capture.setup!;
    const risk = world.exchange.risk;
    // Exactly, from the wire decimals the Exchange emitted, against the Exchange's final balances (every account).
    const exact = new Map<string, bigint>();
    for (const e of capture.entries) exact.set(`${e.accountId}/${e.asset}`, (exact.get(`${e.accountId}/${e.asset}`) ?? 0n) + e18(e.amount));
    const accountIds = new Set([...agents.map((a) => a.accountId), poolAccountId(), ...capture.entries.map((e) => e.accountId)]);
    const finals = new Map<string, { realBalance: string; netDeposits: string }>();
    for (const accountId of accountIds) {
      for (const b of world.queries.accountBalances(risk.accountOwner(accountId)!)) {
        if (b.accountId === accountId) finals.set(`${accountId}/${b.asset}`, { realBalance: b.realBalance, netDeposits: b.balanceDEPRECATED });
      }
    }
    expect(finals.has(`${poolAccountId()}/rUSD`)).toBe(true); // the pool's fee credits and penalties are in the ledger too
    for (const [key, final] of finals) expect(exact.get(key) ?? 0n, key).toBe(e18(final.realBalance));
    for (const [key, sum] of exact) if (!finals.has(key)) expect(sum, key).toBe(0n);

    // From ledger.arrow's Float64 column, against balances.arrow's last sample (the end of the run) for the agents.
    // Tolerance: each amount is the double nearest its decimal (relative error <= 2^-53) and a sum of n doubles adds
    // at most (n - 1) x 2^-53 x sum|amount|; with n < 1,000 rows per account and asset, 1e-12 x sum|amount| bounds both.
    const sums = new Map<string, { sum: number; abs: number; lastNet: number }>();
    for (const r of ledgerRows) {
      const key = `${r["agent"]}/${r["asset"]}`;
      const s = sums.get(key) ?? { sum: 0, abs: 0, lastNet: 0 };
      s.sum += r["amount"] as number;
      s.abs += Math.abs(r["amount"] as number);
      s.lastNet = r["netDepositsAfter"] as number;
      sums.set(key, s);
    }
    const end = Math.max(...balanceRows.map((r) => r["time"] as number));
    const last = balanceRows.filter((r) => r["time"] === end);
    expect(last.length).toBeGreaterThanOrEqual(agents.length);
    for (const b of last) {
      const s = sums.get(`${b["agent"]}/${b["asset"]}`)!;
      expect(s, `${b["agent"]} ${b["asset"]}`).toBeDefined();
      expect(Math.abs(s.sum - (b["realBalance"] as number)), `${b["agent"]} ${b["asset"]}: ledger sum ${s.sum}, realBalance ${b["realBalance"]}`).toBeLessThanOrEqual(1e-12 * s.abs);
      expect(s.lastNet, `${b["agent"]} ${b["asset"]} netDepositsAfter`).toBe(b["netDeposits"]);
    }
    // Fills moved every agent's balance: the sums are not just the deposits.
    for (const agent of agents) expect(sums.get(`${agent.name}/rUSD`)!.abs, agent.name).toBeGreaterThan(Number(capture.setup!.scenario.agents.find((a) => a.name === agent.name)!.account!.deposits!["rUSD"]));
  });

  it("holds each fill's fees, credits, funding and spot legs as executions.arrow shows them, and nothing for a busted match", () => {
    const byFill = new Map<string, Row[]>();
    for (const r of ledgerRows) {
      if (r["fillId"] === null) continue;
      byFill.set(r["fillId"] as string, [...(byFill.get(r["fillId"] as string) ?? []), r]);
    }
    const pool = poolAccountId();
    let perpFees = 0;
    let spotFees = 0;
    for (const x of executionRows) {
      const rows = byFill.get(x["fillId"] as string) ?? [];
      const taker = x["takerAccountId"] as number;
      const of = (type: string, accountId: number) => rows.filter((r) => r["type"] === type && r["accountId"] === accountId);
      if (x["market"] === "perp") {
        if (x["type"] === "ORDER_MATCH" && x["takerFee"] !== 0) {
          perpFees++;
          expect(of("PERP_FEE", taker).map((r) => r["amount"])).toEqual([-(x["takerFee"] as number)]);
          expect(of("PERP_REBATE", pool).map((r) => [r["amount"], r["counterpartyAccountId"]])).toEqual(x["poolFeeCredit"] === 0 ? [] : [[x["poolFeeCredit"], taker]]);
          expect(of("PERP_REBATE", taker).map((r) => r["amount"])).toEqual(x["takerRebateCredit"] === 0 ? [] : [x["takerRebateCredit"]]);
        } else expect(rows.filter((r) => r["type"] === "PERP_FEE")).toEqual([]);
        // A closing leg's funding is its own entry; price PnL + funding is the record's realized PnL.
        const funding = x["takerFundingPnl"] as number | null;
        expect(of("FUNDING", taker).map((r) => r["amount"])).toEqual(funding === null || funding === 0 ? [] : [funding]);
        const realized = of("REALIZED_PNL", taker).reduce((sum, r) => sum + (r["amount"] as number), 0) + of("FUNDING", taker).reduce((sum, r) => sum + (r["amount"] as number), 0);
        expect(Math.abs(realized - ((x["takerRealizedPnl"] as number | null) ?? 0))).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(realized)));
      } else {
        spotFees++;
        const maker = x["makerAccountId"] as number;
        const [buyer, seller] = x["side"] === "B" ? [taker, maker] : [maker, taker];
        // The taker's fee: a SPOT_LEG of -takerFee in the quote asset, with no counterparty.
        expect(rows.filter((r) => r["counterpartyAccountId"] === null).map((r) => [r["type"], r["accountId"], r["asset"], r["amount"]])).toEqual([["SPOT_LEG", taker, "rUSD", -(x["takerFee"] as number)]]);
        expect(of("SPOT_LEG", buyer).find((r) => r["asset"] === "WETH")!["amount"]).toBe(x["qty"]);
        expect(of("SPOT_LEG", seller).find((r) => r["asset"] === "WETH")!["amount"]).toBe(-(x["qty"] as number));
        const cost = of("SPOT_LEG", seller).find((r) => r["asset"] === "rUSD")!["amount"] as number;
        expect(Math.abs(cost - (x["notional"] as number))).toBeLessThanOrEqual(0.005); // rounded to the quote's decimals
      }
    }
    expect(perpFees).toBeGreaterThan(50);
    expect(spotFees).toBeGreaterThan(20);
    // Every fill a ledger row names is a settled execution; a busted match has no entry.
    const settled = new Set(executionRows.map((x) => x["fillId"]));
    for (const fillId of byFill.keys()) expect(settled.has(fillId), `ledger fill ${fillId}`).toBe(true);
    expect(bustRows.length).toBeGreaterThan(0);
    for (const b of bustRows) expect(byFill.has(b["fillId"] as string), `busted fill ${b["fillId"]}`).toBe(false);
  });

  it("holds a liquidation penalty as a pair: the account debited, the pool credited, each the other's counterparty", () => {
    const penalties = ledgerRows.filter((r) => r["type"] === "LIQUIDATION_PENALTY");
    expect(penalties.length).toBeGreaterThanOrEqual(2);
    expect(penalties.length % 2).toBe(0);
    for (let i = 0; i < penalties.length; i += 2) {
      const [debit, credit] = [penalties[i]!, penalties[i + 1]!];
      expect(debit["agent"]).toBe("gambler");
      expect(credit["agent"]).toBe(POOL_AGENT);
      expect(debit["amount"] as number).toBeLessThan(0);
      expect(credit["amount"]).toBe(-(debit["amount"] as number));
      expect(debit["counterpartyAccountId"]).toBe(credit["accountId"]);
      expect(credit["counterpartyAccountId"]).toBe(debit["accountId"]);
      expect(credit["counterpartyAgent"]).toBe("gambler");
    }
  });

  it("is the same bytes in two runs of the same seed", () => {
    expect(ledgerBytes.length).toBeGreaterThan(10_000);
    expect(ledgerBytes.equals(secondLedgerBytes)).toBe(true);
  });
});
