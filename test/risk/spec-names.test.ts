/**
 * The risk layer spells the specification's names with its own string
 * unions (so it does not depend on src/spec at run time); this test holds
 * them to src/spec, and parses the risk layer's outputs with the spec's
 * schemas.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { AccountBalance, Position, Transfer } from "../../src/spec/account.ts";
import { ExecutionBustReason } from "../../src/spec/bust.ts";
import { ASSET_STATUSES, EXECUTION_TYPES, TIER_TYPES, TRANSFER_TYPES } from "../../src/spec/enums.ts";
import type { RequestErrorCode } from "../../src/spec/errors.ts";
import { REQUEST_ERROR_CODES } from "../../src/spec/errors.ts";
import { PerpExecution, SpotExecution } from "../../src/spec/execution.ts";
import { AssetOraclePrice, MarketSummary, SpotMarketSummary, WalletConfiguration } from "../../src/spec/market.ts";
import { SIDES } from "../../src/spec/scalars.ts";
import type { AssetStatus, ExecutionType, LedgerType, RiskErrorCode, Side, TierType } from "../../src/risk/types.ts";
import { BTC_PERP, SECOND, T0, match, setPrices, spotTrade, trade, venue, wallet } from "./fixtures.ts";

const RISK_ERROR_CODES = [
  "NO_ACCOUNTS_FOUND_ERROR",
  "UNAUTHORIZED_SIGNATURE_ERROR",
  "SYMBOL_NOT_FOUND_ERROR",
  "NO_PRICES_FOUND_FOR_SYMBOL_ERROR",
  "INPUT_VALIDATION_ERROR",
  "INSUFFICIENT_BALANCE_ERROR",
  "TRADING_HALTED_ERROR",
  "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR",
  "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
  "OPEN_INTEREST_CAP_ERROR",
  "OPEN_INTEREST_BUDGET_ERROR",
  "NOT_WHITELISTED_ERROR",
  "ACCOUNT_SUSPENDED_ERROR",
] as const satisfies readonly RiskErrorCode[];

const LEDGER_TYPES = [
  "DEPOSIT",
  "WITHDRAWAL",
  "TRANSFER_IN",
  "TRANSFER_OUT",
  "SPOT_LEG",
  "PERP_FEE",
  "PERP_REBATE",
  "REALIZED_PNL",
  "FUNDING",
  "LIQUIDATION_PENALTY",
  "COLLATERAL_LIQUIDATION",
  "SOCIALIZED_LOSS",
] as const satisfies readonly LedgerType[];

describe("names", () => {
  it("are the specification's", () => {
    expectTypeOf<RiskErrorCode>().toEqualTypeOf<(typeof RISK_ERROR_CODES)[number]>();
    expectTypeOf<LedgerType>().toEqualTypeOf<(typeof LEDGER_TYPES)[number]>();
    expectTypeOf<RiskErrorCode>().toExtend<RequestErrorCode>();
    for (const code of RISK_ERROR_CODES) expect(REQUEST_ERROR_CODES).toContain(code);
    for (const type of LEDGER_TYPES) expect(TRANSFER_TYPES).toContain(type);
    expect(["ORDER_MATCH", "LIQUIDATION", "ADL", "MARKET_CLOSE"] satisfies ExecutionType[]).toEqual([...EXECUTION_TYPES]);
    expect(["B", "A"] satisfies Side[]).toEqual([...SIDES]);
    expect(["ENABLED", "WITHDRAWAL_ONLY"] satisfies AssetStatus[]).toEqual([...ASSET_STATUSES]);
    expect(["REGULAR", "VIP"] satisfies TierType[]).toEqual([...TIER_TYPES]);
  });
});

describe("outputs", () => {
  it("parse with the specification's schemas", () => {
    const risk = venue({ accounts: 3, poolDeposit: "1000" });
    risk.deposit(1, "RUSD", "100000", T0);
    risk.deposit(2, "RUSD", "100000", T0);
    risk.deposit(2, "BTC", "1", T0);
    risk.deposit(3, "RUSD", "10", T0);
    setPrices(risk, T0);
    risk.setBook(BTC_PERP, { bids: [{ priceTicks: 499_000, qtyLots: 1_000 }], asks: [{ priceTicks: 501_000, qtyLots: 1_000 }] }, T0);
    const opened = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    const closed = trade(risk, BTC_PERP, 1, 2, "A", 501_000, 500, T0 + SECOND);
    const spot = spotTrade(risk, 1, 2, "B", 500_000, 100, T0 + SECOND);
    for (const { record } of [opened, closed]) PerpExecution.parse({ ...record, takerOrderId: "1", makerOrderId: "2" });
    SpotExecution.parse(spot.record);
    let id = 0;
    for (const entry of [...opened.ledger, ...closed.ledger, ...spot.ledger]) Transfer.parse({ id: String(++id), ...entry });
    for (const position of [...risk.positions(1), ...risk.positions(2)]) Position.parse(position);
    for (const balance of [...risk.balances(1), ...risk.balances(2)]) AccountBalance.parse(balance);
    for (const summary of risk.marketSummaries(T0 + SECOND)) MarketSummary.parse(summary);
    for (const summary of risk.spotMarketSummaries(T0 + SECOND)) SpotMarketSummary.parse(summary);
    for (const price of risk.assetOraclePrices(T0 + SECOND)) AssetOraclePrice.parse(price);
    WalletConfiguration.parse(risk.walletConfiguration(wallet(1), T0 + SECOND));
    const reasons = [
      risk.validateMatch(match(BTC_PERP, 3, 1, "B", 500_000, 1_000), T0 + SECOND),
      risk.validateMatch(match(5001, 3, 2, "B", 500_000, 100), T0 + SECOND),
    ];
    expect(reasons.map((reason) => reason?.reasonName)).toEqual(["AccountBelowIM", "InsufficientBalance"]);
    for (const reason of reasons) ExecutionBustReason.parse(reason);
    expect(Object.keys(closed.record)).toEqual(
      Object.keys(PerpExecution.shape).filter((key) => key in closed.record),
    ); // fields in the spec's order
  });
});
