import { describe, expect, it } from "vitest";
import { CursorError, Ledger, type LedgerLeg } from "../../src/settlement/ledger.ts";

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
});
