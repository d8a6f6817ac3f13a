/**
 * Funding, hand-computed. Prices: index 36000, exchange-mark oracle 36072,
 * no book: mark = (36000 + 36072) / 2 = 36036; premium 36 / 36000 = 0.001,
 * which is the cap; accrual 0.001 x 36036 = 36.036 per unit per hour
 * (1.001e-8 per microsecond, exact).
 */
import { describe, expect, it } from "vitest";
import { conservation, openFundingClaims } from "../../src/risk/audit.ts";
import { fundingRateFor } from "../../src/risk/funding.ts";
import { BTC_PERP, HOUR, SECOND, T0, trade, venue } from "./fixtures.ts";

const E18 = 10n ** 18n;

function fundedVenue(oracle = "36072") {
  const risk = venue({ accounts: 4, poolDeposit: "1000" });
  for (let id = 1; id <= 4; id++) risk.deposit(id, "RUSD", "1000000", T0);
  risk.setIndexPrice("BTC", "36000", T0);
  risk.setOraclePrice(BTC_PERP, oracle, T0);
  return risk;
}

function btcSummary(risk: ReturnType<typeof venue>, atMicros: number) {
  return risk.marketSummaries(atMicros).find((summary) => summary.symbol === "BTCRUSDPERP")!;
}

describe("funding rate", () => {
  it.each([
    ["36072", "0.1"], // premium 0.001 = cap -> 0.1 %
    ["40000", "0.1"], // premium 0.0555... clamped to the cap
    ["32000", "-0.1"], // clamped to -cap
    ["36036", "0.05"], // mark 36018: premium 0.0005
  ])("oracle %s gives an hourly fundingRate of %s %%", (oracle, rate) => {
    expect(btcSummary(fundedVenue(oracle), T0).fundingRate).toBe(rate);
  });

  it("is the premium of mark over index, clamped", () => {
    expect(fundingRateFor(101n * E18, 100n * E18, E18)).toBe(E18 / 100n);
    expect(fundingRateFor(99n * E18, 100n * E18, E18 / 1000n)).toBe(-E18 / 1000n);
  });
});

describe("funding accrual", () => {
  it("accrues continuously: longs pay and shorts receive units x the value change", () => {
    const risk = fundedVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 360_360, 2_000, T0); // 1 long 2, 2 short 2 @ 36036
    const half = btcSummary(risk, T0 + HOUR / 2);
    expect(half.longFundingValue).toBe("-18.018");
    expect(half.shortFundingValue).toBe("18.018");

    const partial = trade(risk, BTC_PERP, 1, 3, "A", 360_360, 1_000, T0 + HOUR / 2); // 1 closes 1 unit
    expect(partial.record).toMatchObject({ takerFundingPnl: "-18.018", takerPriceVariationPnl: "0", takerRealizedPnl: "-18.018" });
    expect(risk.positions(1)[0]).toMatchObject({ qty: "1", avgEntryFundingValue: "0" });
    expect(risk.positions(3)[0]).toMatchObject({ qty: "1", avgEntryFundingValue: "-18.018" });

    const close = trade(risk, BTC_PERP, 2, 4, "B", 360_360, 2_000, T0 + HOUR); // 2 buys back its short
    expect(close.record).toMatchObject({ takerFundingPnl: "72.072" });
  });

  it("weights avgEntryFundingValue by volume on increase", () => {
    const risk = fundedVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 360_360, 1_000, T0);
    trade(risk, BTC_PERP, 1, 2, "B", 360_360, 1_000, T0 + HOUR / 2); // long value then -18.018
    expect(risk.positions(1)[0]).toMatchObject({ qty: "2", avgEntryFundingValue: "-9.009" });
    expect(risk.positions(2)[0]).toMatchObject({ qty: "2", avgEntryFundingValue: "9.009" });
  });

  it("reads the same value however often it is read (no drift)", () => {
    const often = fundedVenue();
    const once = fundedVenue();
    for (const risk of [often, once]) trade(risk, BTC_PERP, 1, 2, "B", 360_360, 1_000, T0);
    for (let t = T0; t < T0 + 7 * HOUR; t += 137 * SECOND + 1) btcSummary(often, t);
    const end = T0 + 7 * HOUR;
    expect(btcSummary(often, end)).toEqual(btcSummary(once, end));
    expect(btcSummary(once, end).longFundingValue).toBe("-252.252");
  });

  it("keeps funding paid by longs equal to funding received by shorts", () => {
    const risk = fundedVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 360_360, 3_000, T0);
    trade(risk, BTC_PERP, 3, 4, "A", 360_360, 1_000, T0 + 1_234_567);
    trade(risk, BTC_PERP, 1, 4, "A", 360_360, 2_000, T0 + HOUR / 3);
    const at = T0 + 2 * HOUR + 17;
    expect(openFundingClaims(risk.state, at) + risk.state.fundingRealized).toBe(0n);
    for (const line of conservation(risk.state, at)) expect(line.holdings).toBe(line.netDeposits);
  });

  it("re-anchors at a new rate without changing what accrued before", () => {
    const risk = fundedVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 360_360, 1_000, T0);
    // At T0 + 1 h the oracle moves to 36000: mark 36000, premium 0, rate 0.
    risk.setIndexPrice("BTC", "36000", T0 + HOUR);
    risk.setOraclePrice(BTC_PERP, "36000", T0 + HOUR);
    const later = btcSummary(risk, T0 + 5 * HOUR);
    expect(later).toMatchObject({ fundingRate: "0", longFundingValue: "-36.036", shortFundingValue: "36.036" });
  });
});
