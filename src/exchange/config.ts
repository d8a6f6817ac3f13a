/**
 * The configuration of one simulated exchange: its markets, assets and fees
 * (the risk layer's input, which carries the spec's definitions), and the
 * parameters of the engine, the chain and the gateway.
 *
 * `DEFAULT_MARKETS` is the built-in market set that the default scenario and
 * `shadowbook serve` without a scenario use: two perp markets (ETHRUSDPERP,
 * marketId 1; BTCRUSDPERP, marketId 2) and one spot market (WETHRUSD,
 * marketId 5, which signs as 10000000005), with rUSD and WETH.
 */
import type { RiskConfigInput } from "../risk/config.ts";
import { DEFAULT_PERP_RISK_PARAMETERS } from "../risk/config.ts";
import type { ChainConfig } from "../settlement/chain.ts";
import type { SigningConfig } from "../signing/domain.ts";
import type { EngineConfig } from "../engine/types.ts";
import type { RateLimits } from "./gateway/rate-limiter.ts";
import { DEFAULT_RATE_LIMITS_BY_TIER } from "./gateway/rate-limiter.ts";
import { IOC_PRICE_BAND_BPS_DEFAULT } from "../spec/limits.ts";

/** Open-order caps of one tier (spec 8.2); `undefined` = no cap (tier 3). */
export interface OpenOrderCaps {
  countMax?: number;
  /** USD (rUSD) notional, a decimal string. */
  notionalMax?: string;
}

export interface GatewayConfig {
  /** The exchangeId requests must carry (spec: 1 on the test deployment). */
  exchangeId: number;
  rateLimitsByTier: Readonly<Record<number, RateLimits>>;
  openOrderCapsByTier: Readonly<Record<number, OpenOrderCaps>>;
  /**
   * The on-chain price-limit check of a perp IOC (spec 7.3): its limit price
   * may be at most this far from the mark price, in basis points, or the
   * order is CREATE_ORDER_OTHER_ERROR. Default IOC_PRICE_BAND_BPS_DEFAULT
   * (1,000 bps = 10 %; not published, the simulator's choice: spec/limits.ts).
   */
  iocPriceBandBps: number;
  /**
   * Signed mode verifies every signature, as live; trusted mode skips only
   * the signature check (for fast simulations), everything else unchanged.
   */
  verifySignatures: boolean;
}

export interface ExchangeConfig {
  /** Markets, assets, fee tiers, global fees, the pool account, whitelisting. */
  risk: RiskConfigInput;
  engine: Partial<EngineConfig>;
  chain: Partial<ChainConfig>;
  gateway: GatewayConfig;
  signing: SigningConfig;
  /** Orders per account kept in orderHistory (spec 4.1: "bounded per account"). */
  orderHistoryPerAccount: number;
  /** Executions and busts kept per market and per account for the REST reads. */
  recordsRetained: number;
}

/** Tier 1 is the specification's (100 orders, 5,000 USD); tier 2 is a configurable guess; tier 3 has none. */
export const DEFAULT_OPEN_ORDER_CAPS_BY_TIER: Readonly<Record<number, OpenOrderCaps>> = {
  1: { countMax: 100, notionalMax: "5000" },
  2: { countMax: 1_000, notionalMax: "250000" },
  3: {},
};

export const DEFAULT_GATEWAY_CONFIG: GatewayConfig = {
  exchangeId: 1,
  rateLimitsByTier: DEFAULT_RATE_LIMITS_BY_TIER,
  openOrderCapsByTier: DEFAULT_OPEN_ORDER_CAPS_BY_TIER,
  iocPriceBandBps: IOC_PRICE_BAND_BPS_DEFAULT,
  verifySignatures: true,
};

/** The settlement and collateral currency. */
export const SETTLEMENT_ASSET = "rUSD";

/** The backstop liquidity pool's account id in the default set. */
export const DEFAULT_POOL_ACCOUNT_ID = 1;

export const DEFAULT_MARKETS: RiskConfigInput = {
  exchangeId: 1,
  settlementAsset: SETTLEMENT_ASSET,
  assets: [
    { asset: "rUSD", priceHaircut: "0", liquidationDiscount: "0", status: "ENABLED", decimals: 6, displayDecimals: 2 },
    { asset: "WETH", spotMarketSymbol: "WETHRUSD", priceHaircut: "0.1", liquidationDiscount: "0.05", status: "ENABLED", decimals: 18, displayDecimals: 4 },
    { asset: "WBTC", priceHaircut: "0.1", liquidationDiscount: "0.05", status: "ENABLED", decimals: 8, displayDecimals: 5 },
  ],
  perpMarkets: [
    {
      symbol: "ETHRUSDPERP",
      marketId: 1,
      minOrderQty: "0.001",
      qtyStepSize: "0.001",
      tickSize: "0.01",
      liquidationMarginParameter: "0.025",
      initialMarginParameter: "0.05",
      maxLeverage: 20,
      oiCap: "100000",
      indexAsset: "WETH",
      ...DEFAULT_PERP_RISK_PARAMETERS,
    },
    {
      symbol: "BTCRUSDPERP",
      marketId: 2,
      minOrderQty: "0.0001",
      qtyStepSize: "0.0001",
      tickSize: "0.1",
      liquidationMarginParameter: "0.025",
      initialMarginParameter: "0.05",
      maxLeverage: 20,
      oiCap: "5000",
      indexAsset: "WBTC",
      ...DEFAULT_PERP_RISK_PARAMETERS,
    },
  ],
  spotMarkets: [
    { symbol: "WETHRUSD", marketId: 5, baseAsset: "WETH", quoteAsset: "rUSD", minOrderQty: "0.001", qtyStepSize: "0.001", tickSize: "0.01" },
  ],
  feeTiers: [
    { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
    { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
    { tierId: 3, takerFee: "0.0003", makerFee: "0", volume30d: "10000000", tierType: "REGULAR" },
    { tierId: 10, takerFee: "0.0002", makerFee: "0", volume30d: "0", tierType: "VIP" },
  ],
  globalFees: {
    ogDiscount: "0.1",
    refereeDiscount: "0.05",
    referrerRebate: "0.1",
    affiliateReferrerRebate: "0.2",
    poolFeeShare: "0.2",
  },
  whitelistEnabled: false,
  poolAccountId: DEFAULT_POOL_ACCOUNT_ID,
};

export function defaultExchangeConfig(signing: SigningConfig, overrides: Partial<ExchangeConfig> = {}): ExchangeConfig {
  return {
    risk: DEFAULT_MARKETS,
    engine: {},
    chain: {},
    gateway: DEFAULT_GATEWAY_CONFIG,
    signing,
    orderHistoryPerAccount: 1_000,
    recordsRetained: 10_000,
    ...overrides,
  };
}
