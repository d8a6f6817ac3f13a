/**
 * Spot trades and cross margin (audit D1). Spot balances are collateral:
 * what a spot trade buys counts after haircut and what it pays counts in
 * full, so a spot buy lowers margin (BTC haircut 0.1: 0.1 BTC at 50000
 * costs 5000 and counts 4500). A spot fill that lowers an account's margin
 * gets the initial-margin check a perp fill has, at match time (checkFill:
 * cancel-maker, reject-taker) and at settlement (validateMatch:
 * AccountBelowIM); a resting spot buy's reserved quote (or the base a sell
 * below its haircut value gives up) is not also counted whole as margin at
 * admission, each order's loss on its own. An account with no perp positions, or a
 * fill that does not lower margin, is checked on balances only.
 *
 * Account 3: 10000 RUSD, long 1.9 BTC perp at 50000 (fee 38): margin
 * balance 9962, initial requirement 9500. Account 2 is its counterparty
 * (short 1.9, 100000 RUSD, 1 BTC); account 1 holds 1000 RUSD and no perp.
 */
import { describe, expect, it } from "vitest";
import { BTC_PERP, BTC_SPOT, T0, baseConfig, match, setPrices, spotTrade, trade, venue } from "./fixtures.ts";

function marginVenue() {
  const risk = venue({ accounts: 4, poolDeposit: "1000" });
  risk.deposit(1, "RUSD", "1000", T0);
  risk.deposit(2, "BTC", "1", T0);
  risk.deposit(2, "RUSD", "100000", T0);
  risk.deposit(3, "RUSD", "10000", T0);
  setPrices(risk, T0);
  trade(risk, BTC_PERP, 3, 2, "B", 500_000, 1_900, T0);
  expect(risk.margin(3, T0)).toMatchObject({ marginBalance: "9962", initialMargin: "9500" });
  return risk;
}

const perpBuy = (accountId: number, qtyLots: number) => ({ accountId, marketId: BTC_PERP, side: "B" as const, qtyLots, priceTicks: 500_000 });
const spotBuy = (accountId: number, qtyLots: number) => ({ accountId, marketId: BTC_SPOT, side: "B" as const, qtyLots, priceTicks: 500_000 });

describe("a spot fill that lowers margin, at match time", () => {
  it("rejects a taker whose buy would leave it below its initial margin", () => {
    const risk = marginVenue();
    // 0.1 BTC: 4500 in, 5000 + 2 fee out: 9962 - 502 = 9460 < 9500
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "B", 500_000, 1_000), T0)).toBe("reject-taker");
    // 0.09 BTC: 4050 in, 4500 + 1.8 out: 9510.2 >= 9500
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "B", 500_000, 900), T0)).toBe("ok");
  });

  it("cancels a maker whose resting buy would leave it below its initial margin", () => {
    const risk = marginVenue();
    // the maker pays no fee: 9962 - 500 = 9462 < 9500; 0.09 BTC: 9962 - 450 = 9512
    expect(risk.checkFill(match(BTC_SPOT, 2, 3, "A", 500_000, 1_000), T0)).toBe("cancel-maker");
    expect(risk.checkFill(match(BTC_SPOT, 2, 3, "A", 500_000, 900), T0)).toBe("ok");
  });

  it("counts the margin that pending spot fills take", () => {
    const risk = marginVenue();
    // 0.05 BTC takes 251 (2500 + 1 out, 2250 in): one fits (9711), two do not (9460)
    const first = match(BTC_SPOT, 3, 2, "B", 500_000, 500);
    expect(risk.checkFill(first, T0)).toBe("ok");
    risk.addPending(first);
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "B", 500_000, 500), T0)).toBe("reject-taker");
    // a perp fill that grows the position counts it too: 0.05 BTC perp needs 250 more, 9711 - 1 fee < 9750
    expect(risk.checkFill(match(BTC_PERP, 3, 2, "B", 500_000, 50), T0)).toBe("reject-taker");
    risk.releasePending(first.fillId);
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "B", 500_000, 500), T0)).toBe("ok");
    expect(risk.checkFill(match(BTC_PERP, 3, 2, "B", 500_000, 50), T0)).toBe("ok");
  });

  it("leaves an account without perp positions to the balance check", () => {
    const risk = marginVenue();
    // account 1 buys 0.019 BTC for 950 + 0.38: its margin falls, but it has no requirement
    expect(risk.checkFill(match(BTC_SPOT, 1, 2, "B", 500_000, 190), T0)).toBe("ok");
    expect(risk.validateMatch(match(BTC_SPOT, 1, 2, "B", 500_000, 190), T0)).toBeNull();
    spotTrade(risk, 1, 2, "B", 500_000, 190, T0);
    expect(risk.balances(1).find((balance) => balance.asset === "BTC")?.realBalance).toBe("0.019");
  });

  it("passes a fill that does not lower margin, even below the initial requirement, and refuses one that does", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "10000", T0);
    risk.deposit(4, "BTC", "0.1", T0);
    // long 2.8 BTC at 50500 against a mark of 50000: margin 10000 + 4500 - 1400 - 56.56 = 13043.44 < 14000
    trade(risk, BTC_PERP, 4, 2, "B", 505_000, 2_800, T0);
    expect(risk.margin(4, T0)).toMatchObject({ marginBalance: "13043.44", initialMargin: "14000" });
    // selling 0.1 BTC for 5000 - 2 fee gives up 4500 of collateral: margin +498
    expect(risk.checkFill(match(BTC_SPOT, 4, 2, "A", 500_000, 1_000), T0)).toBe("ok");
    expect(risk.validateMatch(match(BTC_SPOT, 4, 2, "A", 500_000, 1_000), T0)).toBeNull();
    // buying 0.001 BTC for 50 + 0.02 fee, worth 45: margin -5.02
    expect(risk.checkFill(match(BTC_SPOT, 4, 2, "B", 500_000, 10), T0)).toBe("reject-taker");
    expect(risk.validateMatch(match(BTC_SPOT, 4, 2, "B", 500_000, 10), T0)).toEqual({ reasonName: "AccountBelowIM", accountId: 4, delta: "-5.02", shortfall: "961.58" });
  });
});

describe("a spot fill that lowers margin, at settlement", () => {
  it("busts AccountBelowIM for the taker, as a perp fill", () => {
    const risk = marginVenue();
    expect(risk.validateMatch(match(BTC_SPOT, 3, 2, "B", 500_000, 1_000), T0)).toEqual({ reasonName: "AccountBelowIM", accountId: 3, delta: "-502", shortfall: "40" });
    expect(risk.validateMatch(match(BTC_SPOT, 3, 2, "B", 500_000, 900), T0)).toBeNull();
  });

  it("busts AccountBelowIM for the maker, checked before the taker", () => {
    const risk = marginVenue();
    expect(risk.validateMatch(match(BTC_SPOT, 2, 3, "A", 500_000, 1_000), T0)).toEqual({ reasonName: "AccountBelowIM", accountId: 3, delta: "-500", shortfall: "38" });
  });

  it("reports a missing balance before a margin shortfall", () => {
    const risk = marginVenue();
    expect(risk.validateMatch(match(BTC_SPOT, 3, 2, "B", 500_000, 2_000), T0)).toMatchObject({ reasonName: "InsufficientBalance", accountId: 3, asset: "RUSD" });
  });
});

describe("a resting spot buy at admission", () => {
  it("is not counted as perp margin for the part of its reservation that would lower margin", () => {
    const risk = venue({ accounts: 3 });
    risk.deposit(3, "RUSD", "10000", T0);
    setPrices(risk, T0);
    // 1.9 BTC perp: 9500 required, 10000 - 38 fee available
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toBeNull();
    // a resting buy of 0.1 BTC at 50000 holds 5000 RUSD that would buy 4500 of collateral: 500 of margin
    risk.restOrder({ orderId: "s1", ...spotBuy(3, 1_000) });
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: "order would leave accountId 3 with margin balance \"9462\" below its initial margin requirement \"9500\" (admission margin \"9500\" less the order's price loss against the mark \"0\" and its taker fee reserve \"38\")",
    });
    expect(risk.checkOrder(perpBuy(3, 1_890), T0)).toBeNull(); // 10000 - 500 - 37.8 >= 9450
    // a buy priced below the haircut value (0.1 BTC at 44000 buys 4500 for 4400) holds no margin
    risk.removeRestingOrder("s1");
    risk.restOrder({ orderId: "s2", ...spotBuy(3, 1_000), priceTicks: 440_000 });
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toBeNull();
  });

  it("counts each buy's loss on its own: a bid below the haircut value offsets no other bid's loss", () => {
    const risk = venue({ accounts: 3 });
    risk.deposit(3, "RUSD", "10000", T0);
    setPrices(risk, T0);
    risk.restOrder({ orderId: "near", ...spotBuy(3, 1_000) }); // 0.1 BTC at 50000: takes 500
    const refusal = {
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: "order would leave accountId 3 with margin balance \"9462\" below its initial margin requirement \"9500\" (admission margin \"9500\" less the order's price loss against the mark \"0\" and its taker fee reserve \"38\")",
    };
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toEqual(refusal);
    // 0.1 BTC at 100 costs 10 for 4500 of collateral: a gain, which the near bid's fill does not get
    risk.restOrder({ orderId: "deep", ...spotBuy(3, 1_000), priceTicks: 1_000 });
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toEqual(refusal);
    // nor does the withdrawal it would back: 10000 - 500 - 450 = 9050 < 9500 with the perp long 1.9 resting
    risk.restOrder({ orderId: "perp", ...perpBuy(3, 1_900) });
    const withdrawal = risk.withdraw(3, "RUSD", "450", T0);
    expect(withdrawal.ok ? null : withdrawal.rejection).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    // 1.89 BTC fits beside the near bid (10000 - 500 - 37.8 >= 9450); a second near bid adds its own loss:
    // 0.01 BTC at 50000 takes 50 more
    risk.removeRestingOrder("perp");
    expect(risk.checkOrder(perpBuy(3, 1_890), T0)).toBeNull();
    risk.restOrder({ orderId: "near2", ...spotBuy(3, 100) });
    expect(risk.checkOrder(perpBuy(3, 1_890), T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: "order would leave accountId 3 with margin balance \"9412.2\" below its initial margin requirement \"9450\" (admission margin \"9450\" less the order's price loss against the mark \"0\" and its taker fee reserve \"37.8\")",
    });
    // the loss goes with the order: once the near bids are gone, the deep one takes nothing
    risk.removeRestingOrder("near");
    risk.removeRestingOrder("near2");
    expect(risk.checkOrder(perpBuy(3, 1_900), T0)).toBeNull();
    expect([...risk.state.accounts.get(3)!.spotOrders.values()].map((orders) => [...orders].map((order) => order.orderId))).toEqual([["deep"]]);
  });

  it("is counted when a spot order is admitted against perp margin", () => {
    const risk = marginVenue();
    expect(risk.checkOrder(spotBuy(3, 900), T0)).toBeNull(); // 9962 - 451.8 = 9510.2
    risk.restOrder({ orderId: "s1", ...spotBuy(3, 100) }); // 0.01 BTC resting: 50 of margin
    expect(risk.checkOrder(spotBuy(3, 900), T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: 'spot order would leave accountId 3 with margin balance "9460.2" below its initial margin requirement "9500"',
    });
    risk.removeRestingOrder("s1");
    expect(risk.checkOrder(spotBuy(3, 900), T0)).toBeNull();
  });

  it("moves from resting to pending when it fills, and is gone when the fill settles", () => {
    const risk = marginVenue();
    risk.restOrder({ orderId: "s1", ...spotBuy(3, 500) }); // 250 of margin resting
    const fill = { ...match(BTC_SPOT, 2, 3, "A", 500_000, 500), makerOrderId: "s1" };
    expect(risk.checkFill(fill, T0)).toBe("ok");
    risk.addPending(fill); // 250 of margin pending
    expect(risk.restingOrder("s1")).toBeUndefined();
    expect(risk.checkOrder(spotBuy(3, 400), T0)).toBeNull(); // 9962 - 250 - 200.8 = 9511.2
    expect(risk.checkOrder(spotBuy(3, 500), T0)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" }); // 9461
    risk.releasePending(fill.fillId);
    expect(risk.state.accounts.get(3)!.pendingSpotLoss).toBe(0n);
    expect(risk.state.accounts.get(3)!.spotOrders.size).toBe(0);
  });
});

describe("a resting spot sell at admission", () => {
  it("holds its loss when it is priced below the haircut value of what it sells, as a buy's", () => {
    const risk = venue({ accounts: 3 });
    risk.deposit(3, "RUSD", "10000", T0);
    risk.deposit(3, "BTC", "0.1", T0);
    setPrices(risk, T0);
    const perp = perpBuy(3, 2_800); // IM 14000; margin 10000 + 4500 of BTC, fee 56
    expect(risk.checkOrder(perp, T0)).toBeNull();
    // an ask of 0.1 BTC at 40000 sells 4500 of collateral for 4000 as maker: takes 500
    const ask = { accountId: 3, marketId: BTC_SPOT, side: "A" as const, qtyLots: 1_000, priceTicks: 400_000 };
    expect(risk.checkOrder(ask, T0)).toBeNull(); // imOrders 0: balance check only
    risk.restOrder({ orderId: "ask", ...ask });
    expect(risk.checkOrder(perp, T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: "order would leave accountId 3 with margin balance \"13944\" below its initial margin requirement \"14000\" (admission margin \"14000\" less the order's price loss against the mark \"0\" and its taker fee reserve \"56\")",
    });
    // what admission lets in beside the ask leaves room for the ask's fill at match time (before, 2.8 BTC was
    // admitted and a buyer lifting the ask got cancel-maker)
    const long = { ...match(BTC_PERP, 3, 2, "B", 500_000, 2_700), makerOrderId: "x" };
    risk.deposit(2, "RUSD", "1000000", T0);
    expect(risk.checkOrder(perpBuy(3, 2_700), T0)).toBeNull(); // 14500 - 500 - 54 >= 13500
    risk.addPending(long);
    expect(risk.checkFill(match(BTC_SPOT, 2, 3, "B", 400_000, 1_000), T0)).toBe("ok"); // 13946 >= 13500
    risk.releasePending(long.fillId);
    // an ask at or above the haircut value (45000) takes nothing, and its loss goes when the order does
    risk.removeRestingOrder("ask");
    risk.restOrder({ orderId: "ask2", ...ask, priceTicks: 450_000 });
    expect(risk.checkOrder(perp, T0)).toBeNull();
    risk.removeRestingOrder("ask2");
    expect(risk.state.accounts.get(3)!.spotOrders.size).toBe(0);
  });

  it("does not back a withdrawal with the margin it would take", () => {
    const risk = marginVenue(); // account 3: margin 9962, IM 9500
    risk.deposit(3, "BTC", "0.01", T0); // +450: 10412
    // an ask of 0.01 BTC at 40000 takes 50: 10412 - 50 - 900 = 9462 < 9500
    risk.restOrder({ orderId: "ask", accountId: 3, marketId: BTC_SPOT, side: "A", qtyLots: 100, priceTicks: 400_000 });
    expect(venueWithdrawal(risk, "900")).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    expect(venueWithdrawal(risk, "850")).toBeNull(); // 9512
  });
});

describe("a resting spot buy and a withdrawal", () => {
  it("does not back a withdrawal with the margin its reservation would take", () => {
    const risk = marginVenue();
    // 9962 - 450 = 9512 >= 9500: the withdrawal fits while nothing rests
    expect(risk.state.accounts.get(3)!.imOrders).toBeGreaterThan(0n);
    const withdrawable = venueWithdrawal(risk, "450");
    expect(withdrawable).toBeNull();
    const withResting = marginVenue();
    withResting.restOrder({ orderId: "s1", ...spotBuy(3, 100) }); // 0.01 BTC resting: 50 of margin
    expect(venueWithdrawal(withResting, "450")).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" }); // 9962 - 50 - 450 = 9462
    expect(venueWithdrawal(withResting, "400")).toBeNull(); // 9512
  });
});

/** Withdraws `amount` RUSD from account 3: null when it passes, else its refusal. */
function venueWithdrawal(risk: ReturnType<typeof marginVenue>, amount: string) {
  const result = risk.withdraw(3, "RUSD", amount, T0);
  return result.ok ? null : result.rejection;
}

describe("admission of what does not lower margin, below the requirement only for its resting bids", () => {
  /**
   * Account 3: 10000 RUSD, 0.1 BTC (and 1 ETH with `eth`), a resting bid of
   * 0.1 BTC at 50000 (imOrders 0 when it rests), then long `perpLots` BTC
   * perp at 50000; BTC then falls to `btc`, leaving the margin balance above
   * the requirement but admission margin (less the bid's loss) below it.
   */
  function bidVenue(options: { perpLots: number; btc: string; btcHeld?: string; config?: Parameters<typeof baseConfig>[0]; eth?: string }) {
    const risk = venue({ accounts: 3, ...(options.config === undefined ? {} : { config: options.config }) });
    risk.deposit(2, "RUSD", "1000000", T0);
    risk.deposit(2, "BTC", "10", T0);
    risk.deposit(3, "RUSD", "10000", T0);
    if (options.btcHeld !== undefined) risk.deposit(3, "BTC", options.btcHeld, T0);
    if (options.eth !== undefined) risk.deposit(3, "ETH", options.eth, T0);
    setPrices(risk, T0);
    risk.restOrder({ orderId: "bid", ...spotBuy(3, 1_000) });
    trade(risk, BTC_PERP, 3, 2, "B", 500_000, options.perpLots, T0);
    setPrices(risk, T1, options.btc);
    return risk;
  }
  const T1 = T0 + 1_000_000;
  const spotSell = (qtyLots: number, priceTicks: number) => ({ accountId: 3, marketId: BTC_SPOT, side: "A" as const, qtyLots, priceTicks });

  it("admits a spot sell that raises margin, as match time and settlement pass its fill", () => {
    const risk = bidVenue({ perpLots: 2_700, btc: "49800", btcHeld: "0.1" });
    // margin 13888 >= 13446; the bid takes 518 (5000 for 4482 of BTC): admission margin 13370 < 13446
    expect(risk.margin(3, T1)).toMatchObject({ marginBalance: "13888", initialMargin: "13446" });
    // selling 0.005 BTC at 49800: +249 - 0.0996 fee, 224.1 of collateral given up: +24.8
    expect(risk.checkOrder(spotSell(50, 498_000), T1)).toBeNull();
    expect(risk.checkFill(match(BTC_SPOT, 3, 2, "A", 498_000, 50), T1)).toBe("ok");
    expect(risk.validateMatch(match(BTC_SPOT, 3, 2, "A", 498_000, 50), T1)).toBeNull();
    // a sell below the haircut price lowers margin: 0.005 BTC at 40000 gives 200 - 0.08 for 224.1: -24.18
    expect(risk.checkOrder(spotSell(50, 400_000), T1)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: 'spot order would leave accountId 3 with margin balance "13345.82" below its initial margin requirement "13446"',
    });
    // and so does any buy
    expect(risk.checkOrder({ ...spotBuy(3, 10), priceTicks: 498_000 }, T1)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
  });

  it("lets an asset that counts 0 as collateral be withdrawn, and refuses one that takes margin", () => {
    const assets = baseConfig().assets.map((asset) => (asset.asset === "ETH" ? { ...asset, priceHaircut: "1" } : asset));
    const risk = bidVenue({ perpLots: 1_800, btc: "49700", config: { assets }, eth: "1" });
    // margin 9424 >= 8946; the bid takes 527 (5000 for 4473 of BTC): admission margin 8897 < 8946
    expect(risk.margin(3, T1)).toMatchObject({ marginBalance: "9424", initialMargin: "8946" });
    expect(risk.withdraw(3, "ETH", "1", T1).ok).toBe(true);
    const rusd = risk.withdraw(3, "RUSD", "1", T1);
    expect(rusd.ok ? null : rusd.rejection).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: 'taking "1" RUSD out of accountId 3 leaves margin balance "8896" below the initial margin requirement "8946"',
    });
  });
});
