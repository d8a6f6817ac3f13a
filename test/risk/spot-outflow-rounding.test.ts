/**
 * Settlement validation of a spot fill compares what applySpotExecution
 * books: the cost qty x price rounded half-even to the quote asset's
 * decimals, plus the net fee rounded the same way (audit D2). A market
 * quoted in a 2-decimal asset (CENT) makes the difference visible:
 * 0.005 BTC at 2990.07 costs 14.95035 exactly, books 14.95, and its fee
 * 0.0004 x 14.95035 = 0.00598014 books 0.01, so the buyer pays 14.96.
 */
import { describe, expect, it } from "vitest";
import { BTC_SPOT, T0, baseConfig, execution, match, setPrices, venue } from "./fixtures.ts";

const BTC_CENT = 5002;
const base = baseConfig();
const config = {
  assets: [...base.assets, { asset: "CENT", priceHaircut: "0", liquidationDiscount: "0", status: "ENABLED" as const, decimals: 2, displayDecimals: 2 }],
  spotMarkets: [
    ...base.spotMarkets,
    { symbol: "BTCCENT", marketId: BTC_CENT, baseAsset: "BTC", quoteAsset: "CENT", minOrderQty: "0.001", qtyStepSize: "0.001", tickSize: "0.01" },
  ],
};

function centVenue(buyerCents: string) {
  const risk = venue({ accounts: 2, config });
  risk.deposit(1, "CENT", buyerCents, T0);
  risk.deposit(2, "BTC", "1", T0);
  setPrices(risk, T0);
  return risk;
}

// Taker 1 buys 0.005 BTC (5 lots) at 2990.07 (299_007 ticks) from maker 2.
const fill = () => match(BTC_CENT, 1, 2, "B", 299_007, 5);

describe("spot settlement validation with a quote of fewer decimals than qty x price", () => {
  it("settles a fill whose booked cost and fee fit the balance exactly", () => {
    const risk = centVenue("14.96");
    const m = fill();
    expect(risk.validateMatch(m, T0)).toBeNull();
    risk.addPending(m);
    risk.releasePending(m.fillId);
    const { record } = risk.applySpotExecution(execution(m), T0);
    expect(record.takerFee).toBe("0.01");
    expect(risk.balances(1).find((b) => b.asset === "CENT")?.realBalance).toBe("0");
  });

  it("reports the booked amount, in the quote's decimals, as required in a bust", () => {
    const risk = centVenue("14.95");
    expect(risk.validateMatch(fill(), T0)).toEqual({ reasonName: "InsufficientBalance", accountId: 1, asset: "CENT", required: "14.96", available: "14.95" });
  });

  it("leaves a quote with enough decimals as it was", () => {
    const risk = venue({ accounts: 2 });
    risk.deposit(1, "RUSD", "14.95633", T0);
    risk.deposit(2, "BTC", "1", T0);
    setPrices(risk, T0);
    // 0.005 BTC at 2990.1 on BTCRUSD (tick 0.1): cost 14.9505, fee 0.005980 (6 decimals): 14.95648
    expect(risk.validateMatch(match(BTC_SPOT, 1, 2, "B", 29_901, 50), T0)).toEqual({
      reasonName: "InsufficientBalance",
      accountId: 1,
      asset: "RUSD",
      required: "14.95648",
      available: "14.95633",
    });
  });
});
