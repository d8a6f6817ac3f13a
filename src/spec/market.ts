/**
 * Market and fee configuration and market summaries (spec 2.3 to 2.10, 2.18).
 * Every object accepts and keeps unknown properties (spec section 1).
 */
import { z } from "zod";
import { AssetStatus, TierType } from "./enums.ts";
import { Asset, MarketSymbol, SignedDecimal, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/** Spec 2.3 perp market configuration; all fields required. */
export const MarketDefinition = z
  .looseObject({
    symbol: MarketSymbol,
    marketId: UnsignedInteger,
    minOrderQty: UnsignedDecimal,
    qtyStepSize: UnsignedDecimal,
    tickSize: UnsignedDecimal,
    liquidationMarginParameter: UnsignedDecimal,
    initialMarginParameter: UnsignedDecimal,
    maxLeverage: UnsignedInteger,
    oiCap: UnsignedDecimal,
  })
  .meta({ id: "MarketDefinition" });
export type MarketDefinition = z.infer<typeof MarketDefinition>;

/**
 * Spec 2.4 spot market configuration; all fields required. The spec types
 * baseAsset and quoteAsset as "string"; they name assets, so they take the
 * Asset pattern.
 */
export const SpotMarketDefinition = z
  .looseObject({
    symbol: MarketSymbol,
    marketId: UnsignedInteger,
    baseAsset: Asset,
    quoteAsset: Asset,
    minOrderQty: UnsignedDecimal,
    qtyStepSize: UnsignedDecimal,
    tickSize: UnsignedDecimal,
  })
  .meta({ id: "SpotMarketDefinition" });
export type SpotMarketDefinition = z.infer<typeof SpotMarketDefinition>;

/** Spec 2.5 collateral asset configuration. */
export const AssetDefinition = z
  .looseObject({
    asset: Asset,
    spotMarketSymbol: MarketSymbol.exactOptional(),
    priceHaircut: UnsignedDecimal,
    liquidationDiscount: UnsignedDecimal,
    status: AssetStatus,
    decimals: UnsignedInteger,
    displayDecimals: UnsignedInteger,
  })
  .meta({ id: "AssetDefinition" });
export type AssetDefinition = z.infer<typeof AssetDefinition>;

/** Spec 2.6 one fee tier; fee = qty x rate, rates signed. */
export const FeeTierParameters = z
  .looseObject({
    tierId: UnsignedInteger,
    takerFee: SignedDecimal,
    makerFee: SignedDecimal,
    volume30d: UnsignedDecimal,
    tierType: TierType,
  })
  .meta({ id: "FeeTierParameters" });
export type FeeTierParameters = z.infer<typeof FeeTierParameters>;

/** Spec 2.7 venue-wide discounts and rebates. */
export const GlobalFeeParameters = z
  .looseObject({
    ogDiscount: UnsignedDecimal,
    refereeDiscount: UnsignedDecimal,
    referrerRebate: UnsignedDecimal,
    affiliateReferrerRebate: UnsignedDecimal,
  })
  .meta({ id: "GlobalFeeParameters" });
export type GlobalFeeParameters = z.infer<typeof GlobalFeeParameters>;

/** Spec 2.8 per-wallet fee configuration. */
export const WalletConfiguration = z
  .looseObject({
    feeTierId: UnsignedInteger,
    ogStatus: z.boolean(),
    affiliateStatus: z.boolean(),
    refereeStatus: z.boolean(),
  })
  .meta({ id: "WalletConfiguration" });
export type WalletConfiguration = z.infer<typeof WalletConfiguration>;

/**
 * Spec 2.9 perp market summary. oraclePrice is omitted when no fresh value
 * exists (absent means "no fresh value", not zero); throttledMidPrice is
 * omitted on an empty or one-sided book.
 */
export const MarketSummary = z
  .looseObject({
    symbol: MarketSymbol,
    updatedAt: UnsignedInteger,
    oiQty: UnsignedDecimal,
    fundingRate: SignedDecimal,
    longFundingValue: SignedDecimal,
    shortFundingValue: SignedDecimal,
    volume24h: UnsignedDecimal,
    pxChange24h: SignedDecimal.exactOptional(),
    markPrice: SignedDecimal.exactOptional(),
    oraclePrice: SignedDecimal.exactOptional(),
    throttledMidPrice: SignedDecimal.exactOptional(),
    pricesUpdatedAt: UnsignedInteger.exactOptional(),
  })
  .meta({ id: "MarketSummary" });
export type MarketSummary = z.infer<typeof MarketSummary>;

/** Spec 2.10 spot market summary; volume24h in USD. */
export const SpotMarketSummary = z
  .looseObject({
    symbol: MarketSymbol,
    updatedAt: UnsignedInteger,
    volume24h: UnsignedDecimal,
    pxChange24h: SignedDecimal.exactOptional(),
    oraclePrice: SignedDecimal.exactOptional(),
    throttledMidPrice: SignedDecimal.exactOptional(),
  })
  .meta({ id: "SpotMarketSummary" });
export type SpotMarketSummary = z.infer<typeof SpotMarketSummary>;

/**
 * Spec 2.18 oracle price of an asset. The spec types asset and oraclePrice
 * as "string"; they take the Asset and SignedDecimal patterns (prices are
 * SignedDecimal elsewhere, e.g. MarketSummary.oraclePrice).
 */
export const AssetOraclePrice = z
  .looseObject({
    asset: Asset,
    oraclePrice: SignedDecimal,
    updatedAt: UnsignedInteger,
  })
  .meta({ id: "AssetOraclePrice" });
export type AssetOraclePrice = z.infer<typeof AssetOraclePrice>;
