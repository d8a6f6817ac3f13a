import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../src/risk/types.ts";
import { CursorError, Ledger, LEDGER_LEG_KEYS, type LedgerLeg } from "../../src/settlement/ledger.ts";
import { runFlow } from "../exchange/flow.ts";

/** `true` when every member of T is listed; a type error otherwise (the risk layer's entries bring no member Ledger.record would drop). */
type AllListed<T, Listed> = Exclude<keyof T, Listed> extends never ? true : never;
const riskEntryKeysListed: AllListed<LedgerEntry, "timestamp" | (typeof LEDGER_LEG_KEYS)[number]> = true;
void riskEntryKeysListed;

/** What Ledger.record's entry must be: the leg spread after id and timestamp. */
function reference(id: string, atMillis: number, leg: object): string {
  return JSON.stringify({ id, timestamp: atMillis, ...leg });
}

const MS = 1000;

function leg(accountId: number, type: string, amount: string): LedgerLeg {
  return { accountId, asset: "rUSD", type, amount, netDepositsAfter: "0" };
}

describe("Ledger", () => {
  it("never records a zero-amount leg", () => {
    const ledger = new Ledger();
    expect(ledger.record(leg(1, "PERP_FEE", "0"), 0)).toBeUndefined();
    expect(ledger.record(leg(1, "PERP_FEE", "-0.000"), 0)).toBeUndefined();
    expect(ledger.list([1]).data).toEqual([]);
  });

  it("lists newest first with type and inclusive time filters", () => {
    const ledger = new Ledger();
    ledger.record(leg(1, "DEPOSIT", "100"), 1_000 * MS);
    ledger.record(leg(1, "PERP_FEE", "-1.5"), 2_000 * MS);
    ledger.record(leg(2, "DEPOSIT", "7"), 2_500 * MS);
    ledger.record(leg(1, "WITHDRAWAL", "-10"), 3_000 * MS);
    expect(ledger.list([1]).data.map((e) => e.type)).toEqual(["WITHDRAWAL", "PERP_FEE", "DEPOSIT"]);
    expect(ledger.list([1, 2]).data.map((e) => e.amount)).toEqual(["-10", "7", "-1.5", "100"]);
    expect(ledger.list([1], { type: "DEPOSIT" }).data.map((e) => e.amount)).toEqual(["100"]);
    const window = ledger.list([1], { startTime: 2_000, endTime: 3_000 });
    expect(window.data.map((e) => e.timestamp)).toEqual([3_000, 2_000]);
    expect(window.meta).toEqual({ limit: 100, startTime: 2_000, endTime: 3_000 });
  });

  it("pages with an opaque cursor, without gaps or repeats, across accounts", () => {
    const ledger = new Ledger();
    for (let i = 0; i < 25; i++) ledger.record(leg(1 + (i % 3), "DEPOSIT", String(i + 1)), i * MS);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ledger.list([1, 2, 3], cursor === undefined ? { limit: 10 } : { limit: 10, cursor });
      seen.push(...page.data.map((e) => e.amount));
      cursor = page.meta.nextCursor;
      pages++;
      if (cursor !== undefined) expect(cursor).not.toMatch(/^\d+$/);
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => String(25 - i)));
  });

  it("refuses cursors it did not issue", () => {
    const ledger = new Ledger();
    expect(() => ledger.list([1], { cursor: "12" })).toThrow(CursorError);
    expect(() => ledger.list([1], { cursor: "not a cursor!" })).toThrow(/not a cursor/);
  });

  it("tells subscribers about every recorded entry, in order", () => {
    const ledger = new Ledger();
    const seen: string[] = [];
    ledger.subscribe((entry) => seen.push(entry.id));
    ledger.record(leg(1, "DEPOSIT", "1"), 0);
    ledger.record(leg(1, "DEPOSIT", "0"), 0);
    ledger.record(leg(2, "DEPOSIT", "2"), 0);
    expect(seen).toEqual(["1", "2"]);
  });

  it("makes each entry as { id, timestamp, ...leg } would, key order included, the leg's own timestamp winning", () => {
    const optional = fc.record(
      { counterpartyAccountId: fc.nat(50), fillId: fc.nat(10_000).map(String), timestamp: fc.nat(2_000_000) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.nat(50), fc.integer({ min: 1, max: 10_000 }), optional, fc.nat(10_000_000), (accountId, amount, extra, atMicros) => {
        // In the risk layer's member order: timestamp after netDepositsAfter, then the optional ones.
        const built: Record<string, unknown> = { accountId, asset: "rUSD", type: "PERP_FEE", amount: String(amount), netDepositsAfter: "0" };
        if (extra.timestamp !== undefined) built["timestamp"] = extra.timestamp;
        if (extra.counterpartyAccountId !== undefined) built["counterpartyAccountId"] = extra.counterpartyAccountId;
        if (extra.fillId !== undefined) built["fillId"] = extra.fillId;
        const ledger = new Ledger();
        const entry = ledger.record(built as unknown as LedgerLeg, atMicros)!;
        expect(JSON.stringify(entry)).toBe(reference("1", Math.floor(atMicros / 1000), built));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("records the risk layer's entries of a random flow as the spread would", () => {
    const seen: string[] = [];
    const expected: string[] = [];
    runFlow({ seed: 5, accounts: 10, durationMicros: 30_000_000, ordersPerSecond: 60 }, (exchange) => {
      const record = exchange.ledger.record.bind(exchange.ledger);
      let id = 0;
      exchange.ledger.record = (leg, at) => {
        const entry = record(leg, at);
        if (entry !== undefined) {
          id++;
          expect(entry.id).toBe(String(id));
          expected.push(reference(entry.id, Math.floor(at / 1000), leg));
          seen.push(JSON.stringify(entry));
        }
        return entry;
      };
    });
    expect(seen.length).toBeGreaterThan(100);
    expect(seen.some((entry) => entry.includes("fillId"))).toBe(true);
    expect(seen).toEqual(expected);
  });
});
