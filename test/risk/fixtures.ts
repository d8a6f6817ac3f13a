/**
 * A small venue for the risk tests: rUSD (6 decimals), BTC and ETH
 * collateral, two perps and one spot market, three fee tiers, a pool account.
 */
import { RiskEngine } from "../../src/risk/risk.ts";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import type { ExecutionInput, Match, Side } from "../../src/risk/types.ts";

export const BTC_PERP = 1;
export const ETH_PERP = 2;
export const BTC_SPOT = 5001;
export const POOL = 0;
export const SECOND = 1_000_000;
export const HOUR = 3_600 * SECOND;
export const T0 = 1_700_000_000 * SECOND;

export function wallet(n: number): string {
  return `0x${n.toString(16).padStart(40, "0")}`;
}

export function baseConfig(overrides: Partial<RiskConfigInput> = {}): RiskConfigInput {
  return {
    exchangeId: 1,
    settlementAsset: "RUSD",
    assets: [
      { asset: "RUSD", priceHaircut: "0", liquidationDiscount: "0", status: "ENABLED", decimals: 6, displayDecimals: 2 },
      { asset: "BTC", priceHaircut: "0.1", liquidationDiscount: "0.05", status: "ENABLED", decimals: 8, displayDecimals: 4, spotMarketSymbol: "BTCRUSD" },
      { asset: "ETH", priceHaircut: "0.2", liquidationDiscount: "0.1", status: "ENABLED", decimals: 8, displayDecimals: 4 },
    ],
    perpMarkets: [
      {
        symbol: "BTCRUSDPERP",
        marketId: BTC_PERP,
        minOrderQty: "0.001",
        qtyStepSize: "0.001",
        tickSize: "0.1",
        liquidationMarginParameter: "0.05",
        initialMarginParameter: "0.1",
        maxLeverage: 20,
        oiCap: "100",
        indexAsset: "BTC",
        impactNotional: "1000",
        fundingRateCap: "0.001",
        liquidationPenalty: "0.01",
        premiumSmoothingMicros: 100 * SECOND,
      },
      {
        symbol: "ETHRUSDPERP",
        marketId: ETH_PERP,
        minOrderQty: "0.01",
        qtyStepSize: "0.01",
        tickSize: "0.01",
        liquidationMarginParameter: "0.04",
        initialMarginParameter: "0.05",
        maxLeverage: 10,
        oiCap: "1000",
        indexAsset: "ETH",
        impactNotional: "1000",
        fundingRateCap: "0.001",
        liquidationPenalty: "0.01",
        premiumSmoothingMicros: 100 * SECOND,
      },
    ],
    spotMarkets: [
      { symbol: "BTCRUSD", marketId: BTC_SPOT, baseAsset: "BTC", quoteAsset: "RUSD", minOrderQty: "0.0001", qtyStepSize: "0.0001", tickSize: "0.1" },
    ],
    feeTiers: [
      { tierId: 0, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
      { tierId: 1, takerFee: "0.0003", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
      { tierId: 9, takerFee: "0.0001", makerFee: "0", volume30d: "0", tierType: "VIP" },
    ],
    globalFees: { ogDiscount: "0.1", refereeDiscount: "0.05", referrerRebate: "0.1", affiliateReferrerRebate: "0.2", poolFeeShare: "0.2" },
    whitelistEnabled: false,
    poolAccountId: POOL,
    ...overrides,
  };
}

/** An engine with a funded pool (account 0) and accounts 1..n, each its own wallet. */
export function venue(options: { accounts?: number; poolDeposit?: string; config?: Partial<RiskConfigInput> } = {}): RiskEngine {
  const risk = new RiskEngine(baseConfig(options.config));
  risk.createWallet(wallet(1000));
  risk.createAccount(POOL, wallet(1000));
  if (options.poolDeposit !== undefined) risk.deposit(POOL, "RUSD", options.poolDeposit, T0);
  for (let i = 1; i <= (options.accounts ?? 4); i++) {
    risk.createWallet(wallet(i));
    risk.createAccount(i, wallet(i));
  }
  return risk;
}

/** Sets fresh index and exchange-mark oracle prices for both perps (mark = these when the book is empty). */
export function setPrices(risk: RiskEngine, atMicros: number, btc = "50000", eth = "3000"): void {
  risk.setIndexPrice("BTC", btc, atMicros);
  risk.setOraclePrice(BTC_PERP, btc, atMicros);
  risk.setIndexPrice("ETH", eth, atMicros);
  risk.setOraclePrice(ETH_PERP, eth, atMicros);
}

let fillCounter = 0;
let sequenceCounter = 0;

export function match(marketId: number, taker: number, maker: number, takerSide: Side, priceTicks: number, qtyLots: number): Match {
  fillCounter += 1;
  return { fillId: `9${fillCounter}`, marketId, takerAccountId: taker, makerAccountId: maker, makerOrderId: `m${fillCounter}`, takerSide, priceTicks, qtyLots };
}

export function execution(m: Match): ExecutionInput {
  sequenceCounter += 1;
  return {
    type: "ORDER_MATCH",
    marketId: m.marketId,
    takerAccountId: m.takerAccountId,
    makerAccountId: m.makerAccountId,
    takerSide: m.takerSide,
    priceTicks: m.priceTicks,
    qtyLots: m.qtyLots,
    fillId: m.fillId,
    sequenceNumber: sequenceCounter,
  };
}

/** Matches, holds pending, settles and applies a perp fill: the full path of one fill. */
export function trade(risk: RiskEngine, marketId: number, taker: number, maker: number, takerSide: Side, priceTicks: number, qtyLots: number, atMicros: number) {
  const m = match(marketId, taker, maker, takerSide, priceTicks, qtyLots);
  risk.addPending(m);
  risk.releasePending(m.fillId);
  return risk.applyPerpExecution(execution(m), atMicros);
}

/** The same for a spot fill. */
export function spotTrade(risk: RiskEngine, taker: number, maker: number, takerSide: Side, priceTicks: number, qtyLots: number, atMicros: number) {
  const m = match(BTC_SPOT, taker, maker, takerSide, priceTicks, qtyLots);
  risk.addPending(m);
  risk.releasePending(m.fillId);
  return risk.applySpotExecution(execution(m), atMicros);
}

/**
 * A venue whose pool has no money of its own, so a liquidation is closed by
 * ADL (test/risk/liquidation.test.ts, test/sim/adl-ranking-invariant.test.ts):
 * 1 is long 0.2 (0.1 @ 50000 from 2, 0.1 @ 51000 from 3); 5 long 0.1 @ 50000
 * from 4 unless `alone`. The mark then falls to 44000 at `at`; `update` is
 * that price update's answer, its pass building audit records if `record`.
 */
export function adlVenue(alone: boolean, record = true) {
  const risk = venue({ accounts: 5 }); // the pool holds only the fee credits it earns
  risk.deposit(1, "RUSD", "1100", T0);
  for (const id of [2, 3, 4]) risk.deposit(id, "RUSD", "10000", T0);
  risk.deposit(5, "RUSD", "100000", T0);
  setPrices(risk, T0);
  trade(risk, BTC_PERP, 1, 2, "B", 500_000, 100, T0);
  trade(risk, BTC_PERP, 1, 3, "B", 510_000, 100, T0);
  if (!alone) trade(risk, BTC_PERP, 5, 4, "B", 500_000, 100, T0);
  // The oracle is stale at 61 s, so the index alone moves nothing; the oracle then moves the mark to 44000 at once.
  const at = T0 + 61 * SECOND;
  risk.setIndexPrice("BTC", "44000", at);
  risk.state.recordLiquidations = record;
  return { risk, at, update: risk.setOraclePrice(BTC_PERP, "44000", at) };
}
