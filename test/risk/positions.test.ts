/**
 * Position accounting, hand-computed: average entry on increase, reduce and
 * flip; realized PnL split into price variation and funding; opening fees.
 */
import { describe, expect, it } from "vitest";
import { BTC_PERP, ETH_PERP, T0, setPrices, trade, venue } from "./fixtures.ts";
import { conservation } from "../../src/risk/audit.ts";

function richVenue() {
  const risk = venue({ accounts: 4, poolDeposit: "1000" });
  for (let id = 1; id <= 4; id++) risk.deposit(id, "RUSD", "1000000", T0);
  setPrices(risk, T0); // mark 50000, funding rate 0
  return risk;
}

describe("average entry price", () => {
  it("is volume-weighted on increase, unchanged on reduce, reset on flip", () => {
    const risk = richVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0); // buy 1 @ 50000
    trade(risk, BTC_PERP, 1, 2, "B", 504_000, 3_000, T0); // buy 3 @ 50400
    expect(risk.positions(1)[0]).toMatchObject({ qty: "4", side: "B", avgEntryPrice: "50300" });

    const reduce = trade(risk, BTC_PERP, 1, 3, "A", 510_000, 2_000, T0); // sell 2 @ 51000
    expect(reduce.record).toMatchObject({ takerPriceVariationPnl: "1400", takerFundingPnl: "0", takerRealizedPnl: "1400" });
    expect(risk.positions(1)[0]).toMatchObject({ qty: "2", side: "B", avgEntryPrice: "50300" });

    const flip = trade(risk, BTC_PERP, 1, 3, "A", 490_000, 4_000, T0); // sell 4 @ 49000: close 2, open short 2
    expect(flip.record).toMatchObject({ takerPriceVariationPnl: "-2600", takerRealizedPnl: "-2600" });
    expect(risk.positions(1)[0]).toMatchObject({ qty: "2", side: "A", avgEntryPrice: "49000", lastTradeSequenceNumber: expect.any(Number) });
  });

  it("keeps the exact cost when the average is not a finite decimal", () => {
    const risk = richVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0); // 1 @ 50000
    trade(risk, BTC_PERP, 1, 2, "B", 500_001, 2_000, T0); // 2 @ 50000.1 -> avg 50000.0666...
    expect(risk.positions(1)[0]!.avgEntryPrice).toBe("50000.066666666666666667");
    // Closing everything realizes exactly 3 x 50001 - 150000.2 = 2.8: no rounding leaks.
    const close = trade(risk, BTC_PERP, 1, 3, "A", 500_010, 3_000, T0);
    expect(close.record.takerPriceVariationPnl).toBe("2.8");
    expect(risk.positions(1)).toEqual([]);
  });

  it("rounds a partial realization half-even and leaves the rest on the position", () => {
    const risk = richVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    trade(risk, BTC_PERP, 1, 2, "B", 500_001, 2_000, T0); // cost 150000.2 over 3 units
    // Sell 1 @ 50000: exact PnL (150000 - 150000.2) / 3 = -0.0666...67 -> -0.066667
    const first = trade(risk, BTC_PERP, 1, 3, "A", 500_000, 1_000, T0);
    expect(first.record.takerPriceVariationPnl).toBe("-0.066667");
    // The remaining 2 units close at 50000 for exactly the rest: -0.2 + 0.066667 = -0.133333
    const rest = trade(risk, BTC_PERP, 1, 3, "A", 500_000, 2_000, T0);
    expect(rest.record.takerPriceVariationPnl).toBe("-0.133333");
    for (const line of conservation(risk.state, T0)) expect(line.holdings).toBe(line.netDeposits);
  });

  it("reports maker PnL only when the maker reduces", () => {
    const risk = richVenue();
    const open = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    expect(open.record.makerRealizedPnl).toBeUndefined();
    expect(open.record.takerRealizedPnl).toBeUndefined();
    expect(open.record.takerOpeningFee).toBeUndefined();
    const close = trade(risk, BTC_PERP, 3, 2, "A", 495_000, 1_000, T0); // maker 2 (short 1 @ 50000) buys back at 49500
    expect(close.record).toMatchObject({ makerPriceVariationPnl: "500", makerFundingPnl: "0", makerRealizedPnl: "500" });
    expect(close.record.takerRealizedPnl).toBeUndefined();
  });
});

describe("opening fees", () => {
  it("allocates the fees that opened a position to the closes, pro rata", () => {
    const risk = richVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0); // fee 20
    trade(risk, BTC_PERP, 1, 2, "B", 504_000, 3_000, T0); // fee 60.48; opening fees 80.48 on 4 units
    const reduce = trade(risk, BTC_PERP, 1, 3, "A", 510_000, 2_000, T0);
    expect(reduce.record.takerOpeningFee).toBe("40.24");
    const flip = trade(risk, BTC_PERP, 1, 3, "A", 490_000, 4_000, T0); // fee 78.4, half of it opens the short
    expect(flip.record.takerOpeningFee).toBe("40.24");
    const close = trade(risk, BTC_PERP, 1, 4, "B", 490_000, 2_000, T0);
    expect(close.record.takerOpeningFee).toBe("39.2");
  });
});

describe("reads", () => {
  it("list positions by marketId and balances by asset, whatever order they were opened in", () => {
    const risk = richVenue();
    risk.deposit(1, "ETH", "2", T0);
    risk.deposit(1, "BTC", "0.5", T0);
    trade(risk, ETH_PERP, 1, 2, "B", 300_000, 100, T0); // ETH first (marketId 2)
    trade(risk, BTC_PERP, 1, 2, "A", 500_000, 1_000, T0); // then BTC (marketId 1)
    expect(risk.positions(1).map((position) => [position.symbol, position.side])).toEqual([
      ["BTCRUSDPERP", "A"],
      ["ETHRUSDPERP", "B"],
    ]);
    expect(risk.balances(1).map((balance) => balance.asset)).toEqual(["BTC", "ETH", "RUSD"]);
    // Closing the first market's position leaves the other.
    trade(risk, BTC_PERP, 1, 3, "B", 500_000, 1_000, T0);
    expect(risk.positions(1).map((position) => position.symbol)).toEqual(["ETHRUSDPERP"]);
  });
});
