/**
 * Open interest on the BTC perp (oiCap 100), enforced at admission and at
 * match time.
 */
import { describe, expect, it } from "vitest";
import { openInterest } from "../../src/risk/audit.ts";
import { BTC_PERP, T0, match, setPrices, trade, venue } from "./fixtures.ts";

function nearCap() {
  const risk = venue({ accounts: 5, poolDeposit: "1000" });
  for (let id = 1; id <= 5; id++) risk.deposit(id, "RUSD", "100000000", T0);
  setPrices(risk, T0);
  trade(risk, BTC_PERP, 1, 2, "B", 500_000, 99_900, T0); // OI 99.9
  return risk;
}

const order = (accountId: number, side: "B" | "A", qtyLots: number) => ({ accountId, marketId: BTC_PERP, side, qtyLots, priceTicks: 500_000 });

describe("admission", () => {
  it("refuses an order whose opening part exceeds the room left", () => {
    const risk = nearCap();
    expect(risk.checkOrder(order(3, "B", 200), T0)).toEqual({
      error: "OPEN_INTEREST_BUDGET_ERROR",
      message: 'order would open "0.2" on BTCRUSDPERP but only "0.1" is left under oiCap "100"',
    });
    expect(risk.checkOrder(order(3, "B", 100), T0)).toBeNull();
    // 2 is short 99.9: buying 100.1 flips it to long 0.2, which opens 0.2
    expect(risk.checkOrder(order(2, "B", 100_100), T0)).toMatchObject({ error: "OPEN_INTEREST_BUDGET_ERROR" });
  });

  it("refuses any opening order at the cap, and lets reducing orders through", () => {
    const risk = nearCap();
    trade(risk, BTC_PERP, 3, 4, "B", 500_000, 100, T0); // OI 100
    expect(risk.checkOrder(order(5, "A", 1), T0)).toEqual({
      error: "OPEN_INTEREST_CAP_ERROR",
      message: 'open interest "100" of BTCRUSDPERP is at its oiCap "100"',
    });
    expect(risk.checkOrder(order(1, "A", 1_000), T0)).toBeNull(); // 1 reduces its long
    expect(risk.checkOrder(order(2, "B", 1_000), T0)).toBeNull(); // 2 reduces its short
  });

  it("counts pending matches in open interest", () => {
    const risk = nearCap();
    risk.addPending(match(BTC_PERP, 3, 4, "B", 500_000, 100));
    expect(openInterest(risk.state)[0]).toMatchObject({ long: 99_900n * 10n ** 15n, longEffective: 100n * 10n ** 18n, shortEffective: 100n * 10n ** 18n });
    expect(risk.checkOrder(order(5, "B", 1), T0)).toMatchObject({ error: "OPEN_INTEREST_CAP_ERROR" });
  });
});

describe("match time", () => {
  it("cancels a maker that would open past the cap, and rejects a taker that would", () => {
    const risk = nearCap();
    // taker 3 opens long 0.2, maker 4 opens short 0.2: +0.2 over the cap -> the maker goes, matching goes on
    expect(risk.checkFill(match(BTC_PERP, 3, 4, "B", 500_000, 200), T0)).toBe("cancel-maker");
    // against a maker that reduces (1 is long and sells), OI does not grow
    expect(risk.checkFill(match(BTC_PERP, 3, 1, "B", 500_000, 200), T0)).toBe("ok");
    // taker 2 flips from short 99.9 to long 0.1 against maker 1 (long 99.9) reducing: long OI 99.9 - 0.2 + 0.1... fits
    expect(risk.checkFill(match(BTC_PERP, 2, 1, "B", 500_000, 100_000), T0)).toBe("ok");
    // taker 2 flips to long 0.3 against maker 5 opening short 100.2: +0.3 on top of 99.9 -> the maker goes
    expect(risk.checkFill(match(BTC_PERP, 2, 5, "B", 500_000, 100_200), T0)).toBe("cancel-maker");
    // taker 2 (short 99.9) buys 100.2 from maker 1 (long 99.9, flips to short 0.3): long OI 0.3 fits; short side 0.3 too
    expect(risk.checkFill(match(BTC_PERP, 2, 1, "B", 500_000, 100_200), T0)).toBe("ok");
  });

  it("rejects the taker when only the taker's growth passes the cap", () => {
    const risk = nearCap();
    trade(risk, BTC_PERP, 3, 4, "B", 500_000, 100, T0); // OI 100; 3 long 0.1, 4 short 0.1
    // taker 4 (short 0.1) buys 0.3, flipping to long 0.2; maker 1 (long 99.9) sells 0.3 reducing: long OI +0.2 - 0.3 < 0: fits
    expect(risk.checkFill(match(BTC_PERP, 4, 1, "B", 500_000, 300), T0)).toBe("ok");
    // taker 4 buys 0.3 from maker 3 (long 0.1, flips to short 0.2): long OI +0.2 - 0.1 = +0.1 over the cap; maker grows too
    expect(risk.checkFill(match(BTC_PERP, 4, 3, "B", 500_000, 300), T0)).toBe("cancel-maker");
    // taker 4 buys 0.15 from maker 3 (long 0.1 -> short 0.05, no growth): long OI +0.05 - 0.1 < 0: fits
    expect(risk.checkFill(match(BTC_PERP, 4, 3, "B", 500_000, 150), T0)).toBe("ok");
    // taker 5 (flat) buys 0.2 from maker 3 (long 0.1 -> short 0.1, no growth): long OI +0.2 - 0.1 over the cap
    expect(risk.checkFill(match(BTC_PERP, 5, 3, "B", 500_000, 200), T0)).toBe("reject-taker");
  });

  it("reports a cap breach at settlement", () => {
    const risk = nearCap();
    expect(risk.validateMatch(match(BTC_PERP, 3, 4, "B", 500_000, 200), T0)).toEqual({
      reasonName: "OpenInterestCapExceeded",
      args: { marketId: BTC_PERP, oiQty: "99.9", oiCap: "100" },
    });
  });

  it("keeps long and short open interest equal", () => {
    const risk = nearCap();
    trade(risk, BTC_PERP, 2, 3, "B", 500_000, 100_000, T0); // 2 flips to long 0.1, 3 short 100
    const [line] = openInterest(risk.state);
    expect(line!.long).toBe(line!.short);
    expect(line!.long).toBe(line!.longFromPositions);
    expect(line!.short).toBe(line!.shortFromPositions);
    expect(risk.marketSummaries(T0)[0]!.oiQty).toBe("100");
  });
});
