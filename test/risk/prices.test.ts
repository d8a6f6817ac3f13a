/**
 * Feeds, freshness and the mark, hand-computed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { divRound } from "../../src/risk/fixed.ts";
import { advancePremium, impactSidePrice, median, medianOfThree } from "../../src/risk/prices.ts";
import { BTC_PERP, BTC_SPOT, SECOND, T0, venue } from "./fixtures.ts";

const E18 = 10n ** 18n;
const order = { accountId: 1, marketId: BTC_PERP, side: "B", qtyLots: 1, priceTicks: 500_000 } as const;

function pricedVenue() {
  const risk = venue({ accounts: 2 });
  risk.deposit(1, "RUSD", "100000", T0);
  risk.setIndexPrice("BTC", "50000", T0);
  risk.setOraclePrice(BTC_PERP, "50300", T0);
  return risk;
}

const book = {
  bids: [{ priceTicks: 501_000, qtyLots: 1_000 }], // 1 BTC @ 50100
  asks: [{ priceTicks: 503_000, qtyLots: 1_000 }], // 1 BTC @ 50300
};

describe("impact price", () => {
  it("averages the price of taking the impact notional, the last level partially", () => {
    // 500 at 100 (5 units), then 500 at 50 (10 units): 1000 / 15 units
    const levels = [
      { priceTicks: 100, qtyLots: 5 },
      { priceTicks: 50, qtyLots: 100 },
    ];
    expect(impactSidePrice(levels, E18, E18, 1000n * E18 * E18)).toBe(66_666_666_666_666_666_667n);
    expect(impactSidePrice(levels, E18, E18, 500n * E18 * E18)).toBe(100n * E18);
  });

  it("is undefined when the side is thinner than the impact notional", () => {
    expect(impactSidePrice([{ priceTicks: 10, qtyLots: 1 }], E18, E18, 11n * E18 * E18)).toBeUndefined();
  });
});

describe("mark price", () => {
  it("is the median of impact price, index plus smoothed premium, and the exchange-mark oracle", () => {
    const risk = pricedVenue();
    expect(risk.markPriceTicks(BTC_PERP)).toBe(501_500); // no book yet: mean(50000 + 0, 50300) = 50150
    const update = risk.setBook(BTC_PERP, book, T0 + 1);
    // impact 50200, premium 200: median(50200, 50200, 50300) = 50200
    expect(update.markChanges).toEqual([{ marketId: BTC_PERP, markPrice: "50200", markPriceTicks: 502_000, markFloorTicks: 502_000, markBetweenTicks: false }]);
    const summary = risk.marketSummaries(T0 + 1)[0]!;
    expect(summary).toMatchObject({ markPrice: "50200", oraclePrice: "50300", throttledMidPrice: "50200", pricesUpdatedAt: T0 / 1000 });
  });

  it("smooths the premium exponentially on the virtual clock, each sample weighing by how long it held", () => {
    const first = advancePremium(undefined, 1000n, 0, 100)!;
    expect(first).toEqual({ ema: 1000n, held: 1000n, atMicros: 0 });
    const second = advancePremium(first, 0n, 100, 100)!; // 1000 held for tau: no change yet, 0 held from now
    expect(second).toEqual({ ema: 1000n, held: 0n, atMicros: 100 });
    const third = advancePremium(second, 0n, 200, 100)!; // 0 held for tau: half way
    expect(third.ema).toBe(500n);
    expect(advancePremium(third, 0n, 500, 100)!.ema).toBe(125n); // 0 held for 3 tau: 3/4 of the way
    expect(advancePremium(third, 7n, 200, 100)).toEqual({ ema: 500n, held: 7n, atMicros: 200 }); // no time, no weight
    expect(advancePremium(third, undefined, 300, 100)).toEqual({ ema: 250n, held: undefined, atMicros: 300 });
  });

  it("takes the median of what exists", () => {
    expect(median([3n, 1n, 2n])).toBe(2n);
    expect(median([4n, 1n])).toBe(2n); // mean 2.5, half-even
    expect(median([7n])).toBe(7n);
    expect(median([])).toBeUndefined();
  });

  it("is, without sorting, the middle of the sorted values (the mean of the two middle ones, half-even)", () => {
    const sortedMedian = (values: bigint[]) => {
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const upper = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[upper] : divRound(sorted[upper - 1]! + sorted[upper]!, 2n, "half-even");
    };
    // Few distinct values: ties are frequent.
    const value = fc.oneof(fc.bigInt(-3n, 3n), fc.bigInt(-(10n ** 40n), 10n ** 40n));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 5 }), (values) => {
        expect(median(values)).toBe(sortedMedian(values));
        if (values.length === 3) expect(medianOfThree(values[0]!, values[1]!, values[2]!)).toBe(sortedMedian(values));
      }),
      { seed: 42, numRuns: 2_000 },
    );
  });

  it("keeps the premium's memory: a later book moves the mark only part of the way", () => {
    const risk = pricedVenue();
    risk.setBook(BTC_PERP, book, T0 + 1); // premium 200
    const later = T0 + 100 * SECOND + 1;
    risk.setIndexPrice("BTC", "50000", later);
    risk.setOraclePrice(BTC_PERP, "50300", later);
    risk.setBook(BTC_PERP, { bids: [{ priceTicks: 499_000, qtyLots: 1_000 }], asks: [{ priceTicks: 501_000, qtyLots: 1_000 }] }, later);
    // 200 held for 100 s: premium still 200; median(impact 50000, 50200, oracle 50300) = 50200
    expect(risk.markPriceTicks(BTC_PERP)).toBe(502_000);
    // 0 held for another 100 s (tau): premium 100; median(50000, 50100, 50300) = 50100
    risk.setIndexPrice("BTC", "50000", later + 100 * SECOND);
    risk.setOraclePrice(BTC_PERP, "50300", later + 100 * SECOND);
    expect(risk.markPriceTicks(BTC_PERP)).toBe(501_000);
  });
});

describe("freshness", () => {
  it("accepts orders while prices are at most 60 s old and refuses them after", () => {
    const risk = pricedVenue();
    expect(risk.checkOrder(order, T0 + 60 * SECOND)).toBeNull();
    expect(risk.checkOrder(order, T0 + 60 * SECOND + 1)).toMatchObject({ error: "NO_PRICES_FOUND_FOR_SYMBOL_ERROR" });
  });

  it("refuses orders before any price", () => {
    const risk = venue({ accounts: 1 });
    risk.deposit(1, "RUSD", "100000", T0);
    expect(risk.checkOrder(order, T0)).toMatchObject({ error: "NO_PRICES_FOUND_FOR_SYMBOL_ERROR", message: "no fresh prices for BTCRUSDPERP" });
    risk.setIndexPrice("BTC", "50000", T0);
    expect(risk.checkOrder(order, T0)).toMatchObject({ error: "NO_PRICES_FOUND_FOR_SYMBOL_ERROR" }); // no exchange-mark oracle yet
    expect(risk.checkOrder({ ...order, marketId: BTC_SPOT, qtyLots: 1, side: "B" }, T0)).toBeNull(); // spot needs the index only
  });

  it("omits stale prices from summaries, and the mid on a one-sided book", () => {
    const risk = pricedVenue();
    risk.setBook(BTC_PERP, { bids: book.bids, asks: [] }, T0);
    risk.setBook(BTC_SPOT, { bids: [], asks: [] }, T0);
    const stale = T0 + 61 * SECOND;
    const summary = risk.marketSummaries(stale)[0]!;
    expect(summary.oraclePrice).toBeUndefined();
    expect(summary.markPrice).toBeUndefined();
    expect(summary.throttledMidPrice).toBeUndefined();
    expect(summary.pricesUpdatedAt).toBe(T0 / 1000);
    expect(risk.assetOraclePrices(T0)).toEqual([{ asset: "BTC", oraclePrice: "50000", updatedAt: T0 / 1000 }]);
    expect(risk.assetOraclePrices(stale)).toEqual([]);
    expect(risk.spotMarketSummaries(T0)[0]).toEqual({ symbol: "BTCRUSD", updatedAt: T0 / 1000, volume24h: "0", oraclePrice: "50000" });
    expect(risk.spotMarketSummaries(stale)[0]!.oraclePrice).toBeUndefined();
  });

  it("does not move the mark on stale inputs", () => {
    const risk = pricedVenue();
    const later = T0 + 120 * SECOND;
    const update = risk.setOraclePrice(BTC_PERP, "40000", later); // the index is stale now
    expect(update.markChanges).toEqual([]);
    expect(risk.markPriceTicks(BTC_PERP)).toBe(501_500);
  });
});

describe("summary cadence", () => {
  it("keeps each computation as the latest, and a summary made for a read before the first is kept nowhere", () => {
    const risk = pricedVenue();
    expect(risk.summaryCadenceMicros).toBe(500_000);
    expect(risk.latestSummaries()).toBeUndefined();
    const forRead = risk.summariesAt(T0 + 100_000);
    expect(forRead.markets[0]!.updatedAt).toBe(T0 / 1000 + 100);
    expect(risk.latestSummaries()).toBeUndefined();
    const first = risk.computeSummaries(T0 + 500_000);
    expect(first.markets[0]!.updatedAt).toBe(T0 / 1000 + 500);
    expect(risk.latestSummaries()).toBe(first);
    expect(risk.computeSummaries(T0 + 1_000_000).spotMarkets[0]!.updatedAt).toBe(T0 / 1000 + 1000);
    expect(risk.latestSummaries()).not.toBe(first);
  });
});
