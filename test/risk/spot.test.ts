/**
 * Spot BTCRUSD (qty step 0.0001, tick 0.1), hand-computed: balances,
 * resting-order holds, fees in the quote asset, USD volume, absolute
 * 24-hour price change.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collateralValue } from "../../src/risk/collateral.ts";
import { divRound } from "../../src/risk/fixed.ts";
import { conservation } from "../../src/risk/audit.ts";
import { BTC_PERP, BTC_SPOT, HOUR, SECOND, T0, match, setPrices, spotTrade, trade, venue, wallet } from "./fixtures.ts";

function spotVenue() {
  const risk = venue({ accounts: 3, poolDeposit: "1000" });
  risk.deposit(1, "RUSD", "1000", T0);
  risk.deposit(2, "BTC", "1", T0);
  setPrices(risk, T0);
  return risk;
}

const order = (accountId: number, side: "B" | "A", qtyLots: number, priceTicks = 500_000) => ({ accountId, marketId: BTC_SPOT, side, qtyLots, priceTicks });

describe("spot admission", () => {
  it("refuses an order that costs more than the available balance, resting orders included", () => {
    const risk = spotVenue();
    expect(risk.checkOrder(order(1, "B", 100), T0)).toBeNull(); // 500 + 0.2 fee
    expect(risk.checkOrder(order(1, "B", 200), T0)).toEqual({
      error: "INSUFFICIENT_BALANCE_ERROR",
      message: 'order needs "1000.4" RUSD but accountId 1 has "1000" available (resting orders and pending fills included)',
    });
    risk.restOrder({ orderId: "b1", accountId: 1, marketId: BTC_SPOT, side: "B", qtyLots: 150, priceTicks: 500_000 }); // holds 750
    expect(risk.checkOrder(order(1, "B", 60), T0)).toMatchObject({ error: "INSUFFICIENT_BALANCE_ERROR" });
    expect(risk.checkOrder(order(1, "B", 40), T0)).toBeNull(); // 200 + 0.08 <= 250
    expect(risk.checkOrder(order(2, "A", 10_001), T0)).toMatchObject({ error: "INSUFFICIENT_BALANCE_ERROR" });
    expect(risk.checkOrder(order(2, "A", 10_000), T0)).toBeNull();
    expect(risk.checkOrder(order(1, "A", 1), T0)).toMatchObject({ error: "INSUFFICIENT_BALANCE_ERROR" });
  });

  it("keeps perp margin whole when a spot trade swaps collateral", () => {
    const risk = spotVenue();
    risk.deposit(3, "RUSD", "10000", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    trade(risk, BTC_PERP, 3, 2, "B", 500_000, 1_900, T0); // 1.9 BTC perp: 9500 required, margin 9962
    // 0.09 BTC costs 4501.8 and counts 4050 after haircut: 9510.2 >= 9500
    expect(risk.checkOrder(order(3, "B", 900), T0)).toBeNull();
    expect(risk.checkOrder(order(3, "B", 1_000), T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: 'spot order would leave accountId 3 with margin balance "9460" below its initial margin requirement "9500"',
    });
  });
});

describe("spot executions", () => {
  it("move base and quote and charge the taker fee in the quote asset", () => {
    const risk = spotVenue();
    const { record, ledger } = spotTrade(risk, 1, 2, "B", 500_000, 100, T0);
    expect(record).toMatchObject({ symbol: "BTCRUSD", qty: "0.01", price: "50000", takerFee: "0.2", type: "ORDER_MATCH", makerAccountId: 2 });
    expect(risk.balances(1)).toEqual([
      { accountId: 1, asset: "BTC", realBalance: "0.01", balanceDEPRECATED: "0" },
      { accountId: 1, asset: "RUSD", realBalance: "499.8", balanceDEPRECATED: "1000" },
    ]);
    expect(risk.balances(2)).toEqual([
      { accountId: 2, asset: "BTC", realBalance: "0.99", balanceDEPRECATED: "1" },
      { accountId: 2, asset: "RUSD", realBalance: "500", balanceDEPRECATED: "0" },
    ]);
    expect(ledger.map((entry) => [entry.accountId, entry.asset, entry.type, entry.amount])).toEqual([
      [1, "BTC", "SPOT_LEG", "0.01"],
      [1, "RUSD", "SPOT_LEG", "-500"],
      [2, "BTC", "SPOT_LEG", "-0.01"],
      [2, "RUSD", "SPOT_LEG", "500"],
      [1, "RUSD", "SPOT_LEG", "-0.2"],
    ]);
    for (const line of conservation(risk.state, T0)) expect(line.holdings).toBe(line.netDeposits);
  });

  it("applies the OG and referee discounts to the spot fee", () => {
    const risk = spotVenue();
    risk.updateWallet(wallet(1), { og: true, referee: true });
    expect(spotTrade(risk, 1, 2, "B", 500_000, 100, T0).record.takerFee).toBe("0.171"); // 0.2 x 0.9 x 0.95
  });

  it("summarizes volume in USD and the absolute 24-hour price change", () => {
    const risk = spotVenue();
    spotTrade(risk, 1, 2, "B", 500_000, 100, T0);
    spotTrade(risk, 1, 2, "B", 505_000, 10, T0 + 60 * SECOND);
    expect(risk.spotMarketSummaries(T0 + 60 * SECOND)[0]).toMatchObject({ volume24h: "550.5", pxChange24h: "500" });
    const dayLater = T0 + 24 * HOUR + 30 * SECOND;
    expect(risk.spotMarketSummaries(dayLater)[0]).toMatchObject({ volume24h: "50.5", pxChange24h: "500" });
    expect(risk.spotMarketSummaries(dayLater + 31 * SECOND)[0]).toMatchObject({ volume24h: "0", pxChange24h: "0" });
  });
});

describe("spot match time and settlement", () => {
  it("cancels a maker without the asset and rejects a taker without it", () => {
    const risk = spotVenue();
    expect(risk.checkFill(match(BTC_SPOT, 2, 3, "A", 500_000, 100), T0)).toBe("cancel-maker"); // maker 3 has no RUSD
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "B", 500_000, 100), T0)).toBe("reject-taker"); // taker 3 has no RUSD
    expect(risk.checkFill(match(BTC_SPOT, 1, 2, "B", 500_000, 100), T0)).toBe("ok");
    const held = match(BTC_SPOT, 1, 2, "B", 500_000, 150);
    risk.addPending(held); // 750.3 of 1000 held
    expect(risk.checkFill(match(BTC_SPOT, 1, 2, "B", 500_000, 50), T0)).toBe("reject-taker");
    risk.releasePending(held.fillId);
    expect(risk.checkFill(match(BTC_SPOT, 1, 2, "B", 500_000, 50), T0)).toBe("ok");
  });

  it("reports InsufficientBalance from settled balances", () => {
    const risk = spotVenue();
    expect(risk.validateMatch(match(BTC_SPOT, 1, 2, "B", 500_000, 200), T0)).toEqual({
      reasonName: "InsufficientBalance",
      accountId: 1,
      asset: "RUSD",
      required: "1000.4",
      available: "1000",
    });
    expect(risk.validateMatch(match(BTC_SPOT, 2, 1, "A", 1, 10_001), T0)).toEqual({
      reasonName: "InsufficientBalance",
      accountId: 2,
      asset: "BTC",
      required: "1.0001",
      available: "1",
    });
    expect(risk.validateMatch(match(BTC_SPOT, 3, 1, "A", 500_000, 100), T0)).toMatchObject({ accountId: 3, asset: "BTC" }); // the taker
    // both short (taker 1 of RUSD, maker 3 of BTC): the maker is reported
    expect(risk.validateMatch(match(BTC_SPOT, 1, 3, "B", 500_000, 200_000), T0)).toMatchObject({ accountId: 3, asset: "BTC" });
    expect(risk.validateMatch(match(BTC_SPOT, 1, 2, "B", 500_000, 100), T0)).toBeNull();
  });
});

describe("collateral value", () => {
  it("is floor(amount x index x (1 - haircut)) of a holding and floor(amount x index) of a debt, as the index moves", () => {
    // The haircut index is remembered with its index price: a stale one would show after the next move.
    const risk = venue({ accounts: 1 });
    const assets = [...risk.state.assets.values()].filter((asset) => !asset.config.isSettlement);
    const E18 = 10n ** 18n;
    const step = fc.record({
      asset: fc.nat(assets.length - 1),
      price: fc.oneof(fc.constantFrom(1n, E18, 50_000n * E18), fc.bigInt(1n, 10n ** 24n)),
      amounts: fc.array(fc.bigInt(-(10n ** 40n), 10n ** 40n), { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 20 }), (steps) => {
        for (const { asset: pick, price, amounts } of steps) {
          const asset = assets[pick]!;
          asset.index = { price, atMicros: T0 };
          for (const amount of amounts) {
            const expected =
              amount > 0n ? divRound(amount * price * (E18 - asset.config.priceHaircut), E18 * E18, "floor") : amount < 0n ? divRound(amount * price, E18, "floor") : 0n;
            expect(collateralValue(asset, amount)).toBe(expected);
          }
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
