/** The risk layer: oracle and mark prices, margin, funding, fees, liquidation, ADL (see risk.ts). */
export * from "./types.ts";
export { RiskEngine } from "./risk.ts";
export type { BalanceResult, MarginView, PriceUpdate, RiskEngineOptions, Summaries } from "./risk.ts";
export type { RiskConfigInput, AssetInput, PerpMarketInput, SpotMarketInput, FeeTierInput, GlobalFeeInput } from "./config.ts";
export { DEFAULT_PERP_RISK_PARAMETERS, DEFAULT_PRICE_FRESHNESS_MICROS, DEFAULT_SUMMARY_CADENCE_MICROS } from "./config.ts";
export type { WalletFlags } from "./accounts.ts";
export type { MarkChange } from "./feeds.ts";
export type { LiquidationOutcome } from "./liquidation.ts";
export type { ExecutionIds } from "./state.ts";
export { conservation, openInterest, openFundingClaims } from "./audit.ts";
