/**
 * Liquidation, ADL, socialized losses and market close, hand-computed.
 */
import { describe, expect, it } from "vitest";
import { conservation, openInterest } from "../../src/risk/audit.ts";
import { isLiquidatable } from "../../src/risk/margin.ts";
import type { RiskEngine } from "../../src/risk/risk.ts";
import { BTC_PERP, ETH_PERP, HOUR, POOL, SECOND, T0, adlVenue, match, setPrices, trade, venue } from "./fixtures.ts";

function expectConserved(risk: RiskEngine, atMicros: number) {
  for (const line of conservation(risk.state, atMicros)) expect(line.holdings, line.asset).toBe(line.netDeposits);
  for (const line of openInterest(risk.state)) expect(line.long).toBe(line.short);
}

function entries(ledger: readonly { accountId: number; asset: string; type: string; amount: string }[]) {
  return ledger.map((entry) => [entry.accountId, entry.asset, entry.type, entry.amount]);
}

describe("a liquidation pass", () => {
  it("with nothing flagged returns one shared, frozen, empty outcome; with a liquidation, an outcome of its own", () => {
    const risk = venue({ accounts: 2, poolDeposit: "1000000" });
    risk.deposit(1, "RUSD", "1000", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    setPrices(risk, T0);
    const idle = risk.runLiquidations(T0);
    expect(risk.runLiquidations(T0)).toBe(idle);
    expect(Object.isFrozen(idle) && Object.values(idle).every((list) => Object.isFrozen(list) && list.length === 0)).toBe(true);
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 190, T0);
    expect(risk.setIndexPrice("BTC", "47000", T0 + 1).liquidation).toBe(idle);
    const update = risk.setOraclePrice(BTC_PERP, "47000", T0 + 1);
    expect(update.liquidation).not.toBe(idle);
    expect(update.liquidation.liquidatedAccountIds).toEqual([1]);
    expect(Object.values(idle).every((list) => list.length === 0)).toBe(true);
  });
});

describe("liquidation against the pool", () => {
  it("closes the positions at mark, charges the penalty to the pool", () => {
    const risk = venue({ accounts: 2, poolDeposit: "1000000" });
    risk.deposit(1, "RUSD", "1000", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    setPrices(risk, T0);
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 190, T0); // long 0.19 @ 50000, fee 3.8
    const at = T0 + 1;
    expect(risk.setIndexPrice("BTC", "47000", at).liquidation.liquidatedAccountIds).toEqual([]); // mark 48500: 711.2 >= 460.75
    const update = risk.setOraclePrice(BTC_PERP, "47000", at); // mark 47000: 426.2 < 446.5
    expect(update.liquidation.liquidatedAccountIds).toEqual([1]);
    const [liquidation] = update.liquidation.executions;
    expect(liquidation!.record).toMatchObject({
      type: "LIQUIDATION",
      takerAccountId: 1,
      makerAccountId: POOL,
      side: "A",
      qty: "0.19",
      price: "47000",
      takerFee: "0",
      takerPriceVariationPnl: "-570",
      takerOpeningFee: "3.8",
    });
    expect(liquidation!.record.protocolFeeCredit).toBeUndefined();
    expect(entries(update.liquidation.ledger)).toEqual([
      [1, "RUSD", "LIQUIDATION_PENALTY", "-89.3"],
      [POOL, "RUSD", "LIQUIDATION_PENALTY", "89.3"],
    ]);
    expect(risk.balances(1)[0]!.realBalance).toBe("336.9");
    expect(risk.positions(1)).toEqual([]);
    expect(risk.positions(POOL)[0]).toMatchObject({ qty: "0.19", side: "B", avgEntryPrice: "47000" });
    expect(risk.balances(POOL)[0]!.realBalance).toBe("1000090.06"); // deposit + 0.76 pool fee + 89.3
    expectConserved(risk, at);
  });

  it("charges no more penalty than the account has left", () => {
    const risk = venue({ accounts: 2, poolDeposit: "1000000" });
    risk.deposit(1, "RUSD", "1000", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    setPrices(risk, T0);
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 190, T0); // balance 996.2
    const at = T0 + 61 * SECOND; // the oracle is stale: the index alone moves nothing
    risk.setIndexPrice("BTC", "44800", at);
    const update = risk.setOraclePrice(BTC_PERP, "44800", at); // closes at 44800: -988, 8.2 left of a nominal 85.12
    expect(entries(update.liquidation.ledger)).toEqual([
      [1, "RUSD", "LIQUIDATION_PENALTY", "-8.2"],
      [POOL, "RUSD", "LIQUIDATION_PENALTY", "8.2"],
    ]);
    expect(risk.balances(1)[0]!.realBalance).toBe("0");
    expectConserved(risk, at);
  });

  it("sells non-settlement collateral at its liquidation discount to cover a negative balance", () => {
    const risk = venue({ accounts: 3, poolDeposit: "1000000" });
    risk.deposit(2, "RUSD", "100000", T0);
    risk.deposit(3, "RUSD", "100", T0);
    risk.deposit(3, "BTC", "0.02", T0); // 900 of margin at 50000 with a 0.1 haircut
    setPrices(risk, T0);
    trade(risk, ETH_PERP, 3, 2, "B", 300_000, 300, T0); // long 3 ETH @ 3000, fee 3.6
    const at = T0 + 1;
    risk.setIndexPrice("ETH", "2700", at); // mark 2850: 546.4 >= 342
    const update = risk.setOraclePrice(ETH_PERP, "2700", at); // mark 2700: 96.4 < 324
    expect(update.liquidation.liquidatedAccountIds).toEqual([3]);
    expect(update.liquidation.executions[0]!.record).toMatchObject({ type: "LIQUIDATION", price: "2700", takerPriceVariationPnl: "-900" });
    // balance -803.6; penalty 81 (there is 146.4 of value left); then 884.6 to raise at 47500 per BTC
    expect(entries(update.liquidation.ledger)).toEqual([
      [3, "RUSD", "LIQUIDATION_PENALTY", "-81"],
      [POOL, "RUSD", "LIQUIDATION_PENALTY", "81"],
      [3, "BTC", "COLLATERAL_LIQUIDATION", "-0.01862316"],
      [3, "RUSD", "COLLATERAL_LIQUIDATION", "884.6001"],
      [POOL, "BTC", "COLLATERAL_LIQUIDATION", "0.01862316"],
      [POOL, "RUSD", "COLLATERAL_LIQUIDATION", "-884.6001"],
    ]);
    expect(risk.balances(3)).toEqual([
      { accountId: 3, asset: "BTC", realBalance: "0.00137684", balanceDEPRECATED: "0.02" },
      { accountId: 3, asset: "RUSD", realBalance: "0.0001", balanceDEPRECATED: "100" },
    ]);
    expectConserved(risk, at);
  });

  it("catches an account that funding alone pushes below its requirement, at the next feed update", () => {
    const risk = venue({ accounts: 2, poolDeposit: "1000000" });
    risk.deposit(1, "RUSD", "2600", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    risk.setIndexPrice("BTC", "50000", T0);
    risk.setOraclePrice(BTC_PERP, "50100", T0); // mark 50050, rate 0.001 (cap): 50.05 per hour
    trade(risk, BTC_PERP, 1, 2, "B", 500_500, 1_000, T0); // margin 2579.98, liquidation 2502.5
    const later = T0 + 2 * HOUR; // funding -100.1
    expect(isLiquidatable(risk.state.accounts.get(1)!, later)).toBe(true);
    expect(risk.setIndexPrice("BTC", "50000", later).liquidation.liquidatedAccountIds).toEqual([]); // oracle stale: nothing moves
    const update = risk.setOraclePrice(BTC_PERP, "50100", later); // same mark, same rate
    expect(update.markChanges).toEqual([]);
    expect(update.liquidation.liquidatedAccountIds).toEqual([1]);
    expect(update.liquidation.executions[0]!.record).toMatchObject({ takerFundingPnl: "-100.1", takerPriceVariationPnl: "0" });
    expectConserved(risk, later);
  });

  it("never liquidates the pool itself", () => {
    const risk = venue({ accounts: 2, poolDeposit: "100" });
    risk.deposit(2, "RUSD", "100000", T0);
    setPrices(risk, T0);
    trade(risk, BTC_PERP, POOL, 2, "B", 500_000, 1_000, T0); // the pool, far over its margin
    const update = risk.setOraclePrice(BTC_PERP, "40000", T0 + 1);
    expect(update.liquidation.liquidatedAccountIds).toEqual([]);
    expect(risk.positions(POOL)).toHaveLength(1);
  });
});


describe("ADL and socialized losses", () => {
  it("deleverages the most profitable opposite positions when the pool cannot absorb", () => {
    const { risk, at, update } = adlVenue(false);
    const outcome = update.liquidation;
    expect(outcome.liquidatedAccountIds).toEqual([1]);
    // ranks: 3 (700 / 5100) before 2 (600 / 5000), 2 before 4 (same ratio, lower id)
    expect(outcome.deleveragedAccountIds).toEqual([3, 2]);
    expect(outcome.executions.map((execution) => [execution.record.type, execution.record.takerAccountId, execution.record.side, execution.record.qty, execution.record.price])).toEqual([
      ["ADL", 1, "A", "0.1", "44000"],
      ["ADL", 3, "B", "0.1", "44000"],
      ["ADL", 1, "A", "0.1", "44000"],
      ["ADL", 2, "B", "0.1", "44000"],
    ]);
    for (const execution of outcome.executions) expect(execution.record.makerAccountId).toBeUndefined();
    expect(outcome.executions.map((execution) => execution.record.takerPriceVariationPnl)).toEqual(["-650", "700", "-650", "600"]);
    // 1095.96 - 1300 = -204.04: no penalty; the pool covers its 1.208 of fee credits; 202.832 is socialized
    expect(entries(outcome.ledger)).toEqual([
      [POOL, "RUSD", "SOCIALIZED_LOSS", "-1.208"],
      [1, "RUSD", "SOCIALIZED_LOSS", "1.208"],
      [1, "RUSD", "SOCIALIZED_LOSS", "202.832"],
    ]);
    expect(risk.balances(1)[0]!.realBalance).toBe("0");
    // over the remaining short OI (4's 0.1): 2028.32 per unit off the short funding value
    const summary = risk.marketSummaries(at)[0]!;
    expect(summary).toMatchObject({ longFundingValue: "0", shortFundingValue: "-2028.32", oiQty: "0.1" });
    expect(risk.margin(4, at).marginBalance).toBe("10397.168"); // 10000 + 600 - 202.832
    expect(outcome.badDebtAccountIds).toEqual([]);
    expectConserved(risk, at);
    // and 4 realizes it as funding when it closes
    const close = trade(risk, BTC_PERP, 4, 5, "B", 440_000, 100, at);
    expect(close.record).toMatchObject({ takerPriceVariationPnl: "600", takerFundingPnl: "-202.832" });
    expectConserved(risk, at);
  });

  it("without audit records (state.recordLiquidations off), makes the same close and records neither judgement nor queue", () => {
    const recorded = adlVenue(false).update.liquidation;
    expect(recorded.judgements).toHaveLength(1);
    expect(recorded.adlCloses).toHaveLength(1);
    const { risk, at, update } = adlVenue(false, false);
    const bare = update.liquidation;
    expect(bare.judgements).toEqual([]);
    expect(bare.adlCloses).toEqual([]);
    const rows = (outcome: typeof bare) => outcome.executions.map((execution) => execution.record);
    expect(rows(bare)).toEqual(rows(recorded));
    expect(bare.ledger).toEqual(recorded.ledger);
    expect([bare.liquidatedAccountIds, bare.deleveragedAccountIds, bare.badDebtAccountIds]).toEqual([recorded.liquidatedAccountIds, recorded.deleveragedAccountIds, recorded.badDebtAccountIds]);
    expectConserved(risk, at);
  });

  it("leaves the deficit on the account when nothing is left to socialize over", () => {
    const { risk, at, update } = adlVenue(true);
    expect(update.liquidation.badDebtAccountIds).toEqual([1]);
    expect(risk.balances(1)[0]!.realBalance).toBe("-203.232"); // -204.04 + the pool's 0.808
    expect(risk.marketSummaries(at)[0]).toMatchObject({ longFundingValue: "0", shortFundingValue: "0", oiQty: "0" });
    expect(isLiquidatable(risk.state.accounts.get(1)!, at)).toBe(false); // no positions left
    expectConserved(risk, at);
  });
});

describe("market close", () => {
  it("settles every position at the settlement price and refuses orders after", () => {
    const risk = venue({ accounts: 3, poolDeposit: "1000" });
    for (const id of [1, 2, 3]) risk.deposit(id, "RUSD", "100000", T0);
    setPrices(risk, T0);
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    trade(risk, BTC_PERP, 3, 2, "B", 500_000, 500, T0);
    risk.restOrder({ orderId: "r", accountId: 3, marketId: BTC_PERP, side: "B", qtyLots: 10, priceTicks: 490_000 });
    const pending = match(BTC_PERP, 3, 1, "B", 500_000, 1);
    risk.addPending(pending);
    expect(() => risk.closeMarket(BTC_PERP, 510_000, T0 + 1)).toThrow(/pending/);
    risk.releasePending(pending.fillId);
    const executions = risk.closeMarket(BTC_PERP, 510_000, T0 + 1);
    expect(executions.map((execution) => [execution.record.type, execution.record.takerAccountId, execution.record.side, execution.record.qty, execution.record.takerPriceVariationPnl])).toEqual([
      ["MARKET_CLOSE", 1, "A", "1", "1000"],
      ["MARKET_CLOSE", 2, "B", "1.5", "-1500"],
      ["MARKET_CLOSE", 3, "A", "0.5", "500"],
    ]);
    for (const execution of executions) expect(execution.record.makerAccountId).toBeUndefined();
    expect(risk.removeRestingOrder("r")).toBe(false);
    expect(risk.margin(3, T0 + 1).initialMarginWithOrders).toBe("0");
    expect(risk.marketSummaries(T0 + 1)[0]).toMatchObject({ oiQty: "0", fundingRate: "0" });
    expect(risk.checkOrder({ accountId: 1, marketId: BTC_PERP, side: "B", qtyLots: 1, priceTicks: 500_000 }, T0 + 1)).toMatchObject({ error: "TRADING_HALTED_ERROR" });
    expectConserved(risk, T0 + 1);
  });
});
