/**
 * Remembered texts: a summary figure, an index price and the mark are
 * formatted again only when their value changes. Over seeded random streams
 * of trades, price and book moves and time steps, every summary and every
 * index price list equals the one made with nothing remembered (fresh texts
 * swapped in), and the mark's ticks and text equal a fresh computation.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RememberedText, formatScaled, toStepsHalfEven } from "../../src/risk/fixed.ts";
import type { RiskEngine } from "../../src/risk/risk.ts";
import { type PerpTexts, type SpotTexts, newPerpTexts, newSpotTexts } from "../../src/risk/state.ts";
import type { BookView } from "../../src/risk/types.ts";
import { BTC_PERP, BTC_SPOT, ETH_PERP, SECOND, T0, setPrices, spotTrade, trade, venue } from "./fixtures.ts";

describe("RememberedText", () => {
  it("formats a value once while it stays the same, and again when it changes", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt(-5n, 5n), { maxLength: 50 }), (values) => {
        const formatted: bigint[] = [];
        const text = new RememberedText((value) => {
          formatted.push(value);
          return `v${value}`;
        });
        const expected: bigint[] = [];
        for (const value of values) {
          expect(text.of(value)).toBe(`v${value}`);
          if (expected.at(-1) !== value) expected.push(value);
        }
        expect(formatted).toEqual(expected);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

/** The summaries and index prices as made with every text remembered so far, and as made with none. */
function expectSameAsFresh(risk: RiskEngine, atMicros: number): void {
  const remembered = JSON.stringify([risk.summariesAt(atMicros), risk.assetOraclePrices(atMicros)]);
  const state = risk.state;
  const kept = {
    perps: [...state.perps.values()].map((market) => market.texts),
    spots: [...state.spots.values()].map((market) => market.texts),
    assets: [...state.assets.values()].map((asset) => asset.indexText),
  };
  for (const market of state.perps.values()) (market as { texts: PerpTexts }).texts = newPerpTexts();
  for (const market of state.spots.values()) (market as { texts: SpotTexts }).texts = newSpotTexts();
  for (const asset of state.assets.values()) (asset as { indexText: RememberedText }).indexText = new RememberedText((value) => formatScaled(value, 18));
  const fresh = JSON.stringify([risk.summariesAt(atMicros), risk.assetOraclePrices(atMicros)]);
  // The remembered texts go back, to be exercised by the next steps.
  [...state.perps.values()].forEach((market, i) => ((market as { texts: PerpTexts }).texts = kept.perps[i]!));
  [...state.spots.values()].forEach((market, i) => ((market as { texts: SpotTexts }).texts = kept.spots[i]!));
  [...state.assets.values()].forEach((asset, i) => ((asset as { indexText: RememberedText }).indexText = kept.assets[i]!));
  expect(remembered).toBe(fresh);
}

function book(centerTicks: number, spread: number, lots: number): BookView {
  return { bids: [{ priceTicks: centerTicks - spread, qtyLots: lots }], asks: [{ priceTicks: centerTicks + spread, qtyLots: lots }] };
}

const step = fc.oneof(
  fc.record({ kind: fc.constant("perp" as const), taker: fc.integer({ min: 1, max: 3 }), lots: fc.integer({ min: 1, max: 500 }), bp: fc.integer({ min: -50, max: 50 }) }),
  fc.record({ kind: fc.constant("spot" as const), buy: fc.boolean(), lots: fc.integer({ min: 1, max: 500 }) }),
  fc.record({ kind: fc.constant("prices" as const), btcBp: fc.integer({ min: -100, max: 100 }), ethBp: fc.integer({ min: -100, max: 100 }) }),
  fc.record({ kind: fc.constant("book" as const), marketId: fc.constantFrom(BTC_PERP, ETH_PERP, BTC_SPOT), bp: fc.integer({ min: -300, max: 300 }), empty: fc.boolean() }),
  fc.record({ kind: fc.constant("time" as const), seconds: fc.constantFrom(0, 1, 30, 61, 3_600, 90_000) }),
);

describe("summary, index price and mark texts", () => {
  it("equal fresh ones after every step of random streams", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        const risk = venue({ accounts: 4, poolDeposit: "1000" });
        for (let id = 1; id <= 4; id++) {
          risk.deposit(id, "RUSD", "100000000", T0);
          risk.deposit(id, "BTC", "100", T0);
        }
        let now = T0;
        let btc = 50_000;
        let eth = 3_000;
        setPrices(risk, now);
        for (const s of steps) {
          switch (s.kind) {
            case "perp":
              trade(risk, BTC_PERP, s.taker, 4, s.bp >= 0 ? "B" : "A", Math.round(btc * 10 * (1 + s.bp / 10_000)), s.lots, now);
              break;
            case "spot":
              spotTrade(risk, 1, 2, s.buy ? "B" : "A", Math.round(btc * 10), s.lots, now);
              break;
            case "prices":
              btc = Math.round(btc * (1 + s.btcBp / 10_000));
              eth = Math.round(eth * (1 + s.ethBp / 10_000));
              setPrices(risk, now, String(btc), String(eth));
              break;
            case "book": {
              const center = Math.round((s.marketId === ETH_PERP ? eth * 100 : btc * 10) * (1 + s.bp / 10_000));
              for (const change of risk.setBook(s.marketId, s.empty ? { bids: [], asks: [] } : book(center, 5, 100_000), now).markChanges) {
                const market = risk.state.perps.get(change.marketId)!;
                expect(change.markPrice).toBe(formatScaled(market.mark!, 18));
                expect(change.markPriceTicks).toBe(Math.max(1, toStepsHalfEven(market.mark!, market.config.tick)));
              }
              break;
            }
            case "time":
              now += s.seconds * SECOND;
              break;
          }
          for (const market of risk.state.perps.values()) {
            const mark = market.mark;
            expect(risk.markPriceTicks(market.config.marketId)).toBe(mark === undefined ? undefined : Math.max(1, toStepsHalfEven(mark, market.config.tick)));
          }
          expectSameAsFresh(risk, now);
        }
      }),
      { seed: 42, numRuns: 100 },
    );
  });
});
