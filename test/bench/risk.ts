/**
 * Risk benchmark: 1,000 accounts, each holding a position in each of 10
 * perp markets (10,000 positions) plus a resting order in each, with prices
 * fresh. Measures pre-trade margin checks (RiskEngine.checkOrder on random
 * orders: account, market, side, size, price; the full admission path:
 * access, freshness, open interest, margin), mark updates (each refreshes
 * the 1,000 holders of its market and looks for liquidations) and settled
 * executions applied. Random draws are made before timing starts. Prints
 * one JSON line; it never fails. No peer on the package registry does this
 * job, so no ratio is printed.
 */
import { RngRoot } from "../../src/core/rng.ts";
import type { PerpMarketInput } from "../../src/risk/config.ts";
import { RiskEngine } from "../../src/risk/risk.ts";
import type { OrderIntent } from "../../src/risk/types.ts";

const ACCOUNTS = 1_000;
const MARKETS = 10;
const CHECKS = 1_000_000;
const MARK_UPDATES = 200;
const EXECUTIONS = 50_000;
const SECOND = 1_000_000;
const T0 = 1_700_000_000 * SECOND;

const markets: PerpMarketInput[] = Array.from({ length: MARKETS }, (_, i) => ({
  symbol: `M${i}RUSDPERP`,
  marketId: i + 1,
  minOrderQty: "0.001",
  qtyStepSize: "0.001",
  tickSize: "0.01",
  liquidationMarginParameter: "0.05",
  initialMarginParameter: "0.1",
  maxLeverage: 20,
  oiCap: "100000000",
  indexAsset: `A${i}`,
  impactNotional: "1000",
  fundingRateCap: "0.001",
  liquidationPenalty: "0.01",
  premiumSmoothingMicros: 100 * SECOND,
}));

const risk = new RiskEngine({
  exchangeId: 1,
  settlementAsset: "RUSD",
  assets: [
    { asset: "RUSD", priceHaircut: "0", liquidationDiscount: "0", status: "ENABLED", decimals: 6, displayDecimals: 2 },
    ...markets.map((market) => ({ asset: market.indexAsset, priceHaircut: "0.1", liquidationDiscount: "0.05", status: "ENABLED" as const, decimals: 8, displayDecimals: 4 })),
  ],
  perpMarkets: markets,
  spotMarkets: [],
  feeTiers: [{ tierId: 0, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" }],
  globalFees: { ogDiscount: "0.1", refereeDiscount: "0.05", referrerRebate: "0.1", affiliateReferrerRebate: "0.2", poolFeeShare: "0.2" },
  whitelistEnabled: false,
  poolAccountId: 0,
});

const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
risk.createWallet(wallet(0));
risk.createAccount(0, wallet(0));
risk.deposit(0, "RUSD", "100000000", T0);
for (let id = 1; id <= ACCOUNTS; id++) {
  risk.createWallet(wallet(id));
  risk.createAccount(id, wallet(id));
  risk.deposit(id, "RUSD", "150000", T0);
}
const basePriceTicks = (marketId: number) => 100_000 * marketId; // 1000.00 x marketId
for (const market of markets) {
  const price = String(basePriceTicks(market.marketId) / 100);
  risk.setIndexPrice(market.indexAsset, price, T0);
  risk.setOraclePrice(market.marketId, price, T0);
}

let fillId = 0;
let sequenceNumber = 0;
const rng = new RngRoot("bench:risk").stream("workload");
// Every account gets a position in every market: pairs (1,2), (3,4), ... trade 1 to 50 lots.
for (const market of markets) {
  for (let id = 1; id <= ACCOUNTS; id += 2) {
    fillId += 1;
    risk.applyPerpExecution(
      { type: "ORDER_MATCH", marketId: market.marketId, takerAccountId: id, makerAccountId: id + 1, takerSide: rng.bernoulli(0.5) ? "B" : "A", priceTicks: basePriceTicks(market.marketId), qtyLots: rng.int(1, 50_000), fillId: String(fillId), sequenceNumber: ++sequenceNumber },
      T0,
    );
    for (const account of [id, id + 1]) {
      risk.restOrder({ orderId: `r${market.marketId}-${account}`, accountId: account, marketId: market.marketId, side: rng.bernoulli(0.5) ? "B" : "A", qtyLots: rng.int(1, 5_000), priceTicks: basePriceTicks(market.marketId) });
    }
  }
}

const intents: OrderIntent[] = [];
for (let i = 0; i < 1 << 16; i++) {
  const marketId = rng.int(1, MARKETS);
  intents.push({
    accountId: rng.int(1, ACCOUNTS),
    marketId,
    side: rng.bernoulli(0.5) ? "B" : "A",
    qtyLots: rng.int(1, 200_000),
    priceTicks: basePriceTicks(marketId) + rng.int(-2_000, 2_000),
  });
}

const at = T0 + SECOND;
let accepted = 0;
for (let i = 0; i < 20_000; i++) risk.checkOrder(intents[i & 0xffff]!, at); // warm-up
let started = process.hrtime.bigint();
for (let i = 0; i < CHECKS; i++) {
  if (risk.checkOrder(intents[i & 0xffff]!, at) === null) accepted++;
}
const checkSeconds = Number(process.hrtime.bigint() - started) / 1e9;

// Mark updates: alternate the oracle of market 1 between two values (every holder refreshed).
started = process.hrtime.bigint();
for (let i = 0; i < MARK_UPDATES; i++) {
  const price = i % 2 === 0 ? "1000.5" : "1000";
  risk.setOraclePrice(1, price, at + i);
}
const markSeconds = Number(process.hrtime.bigint() - started) / 1e9;

// Settled executions between random account pairs.
const pairs = Array.from({ length: EXECUTIONS }, () => [rng.int(1, ACCOUNTS), rng.int(1, MARKETS), rng.int(1, 100)] as const);
started = process.hrtime.bigint();
const executionAt = at + MARK_UPDATES;
for (const [account, marketId, lots] of pairs) {
  const maker = account === ACCOUNTS ? 1 : account + 1;
  fillId += 1;
  risk.applyPerpExecution(
    { type: "ORDER_MATCH", marketId, takerAccountId: account, makerAccountId: maker, takerSide: lots % 2 === 0 ? "B" : "A", priceTicks: basePriceTicks(marketId), qtyLots: lots, fillId: String(fillId), sequenceNumber: ++sequenceNumber },
    executionAt,
  );
}
const executionSeconds = Number(process.hrtime.bigint() - started) / 1e9;

console.log(
  JSON.stringify({
    bench: "risk",
    preTradeChecksPerSec: Math.round(CHECKS / checkSeconds),
    accounts: ACCOUNTS,
    markets: MARKETS,
    positions: ACCOUNTS * MARKETS,
    checks: CHECKS,
    acceptedShare: Number((accepted / CHECKS).toFixed(3)),
    markUpdatesPerSec: Math.round(MARK_UPDATES / markSeconds),
    holdersPerMarkUpdate: ACCOUNTS,
    executionsAppliedPerSec: Math.round(EXECUTIONS / executionSeconds),
    seconds: Number((checkSeconds + markSeconds + executionSeconds).toFixed(3)),
  }),
);
