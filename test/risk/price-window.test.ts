/**
 * PriceWindow (src/risk/rolling.ts), the last-trade prices behind
 * pxChange24h: the change is the last price minus the last price at or
 * before 24 h ago, or minus the first trade's price while no trade is that
 * old. Trades of one block share a time: the first of them is still the
 * first trade, and the last of them the last price at that time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PriceWindow } from "../../src/risk/rolling.ts";

const HOUR = 3_600_000_000;
const DAY = 24 * HOUR;

describe("PriceWindow", () => {
  it("measures from the first trade when trades of the first block share its time", () => {
    const window = new PriceWindow(DAY);
    window.add(1_000, 2_998n);
    window.add(1_000, 3_000n);
    window.add(1_000, 3_001n);
    expect(window.change(2_000)).toBe(3n);
    window.add(5_000, 2_990n);
    expect(window.change(5_000)).toBe(-8n);
  });

  it("is undefined before any trade, and 0 after a single one", () => {
    const window = new PriceWindow(DAY);
    expect(window.change(0)).toBeUndefined();
    window.add(10, 100n);
    expect(window.change(20)).toBe(0n);
  });

  it("measures from the last price at or before 24 h ago once a trade is that old", () => {
    const window = new PriceWindow(DAY);
    window.add(0, 100n);
    window.add(0, 110n);
    window.add(HOUR, 120n);
    window.add(2 * HOUR, 130n);
    // At DAY + HOUR, the trades at 0 and HOUR are at or before the horizon: the last of them (120) is the reference.
    expect(window.change(DAY + HOUR)).toBe(10n);
    // Past every trade's 24 h: the reference is the last price, the change 0.
    expect(window.change(3 * DAY)).toBe(0n);
  });

  it("agrees with a plain reading of the rule on random trade sequences (seeded)", () => {
    const tradeArb = fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 * DAY })), price: fc.bigInt({ min: 1n, max: 10_000n }) });
    fc.assert(
      fc.property(fc.array(tradeArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 2 * DAY }), (trades, after) => {
        const window = new PriceWindow(DAY);
        const seen: { at: number; price: bigint }[] = [];
        let at = 0;
        for (const trade of trades) {
          at += trade.gap;
          window.add(at, trade.price);
          seen.push({ at, price: trade.price });
        }
        const now = at + after;
        const old = seen.filter((trade) => trade.at <= now - DAY);
        const reference = old.length > 0 ? old[old.length - 1]!.price : seen[0]!.price;
        expect(window.change(now)).toBe(seen[seen.length - 1]!.price - reference);
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });
});
