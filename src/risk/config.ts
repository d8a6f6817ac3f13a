/**
 * Risk configuration: the spec's definitions (MarketDefinition,
 * SpotMarketDefinition, AssetDefinition, FeeTierParameters,
 * GlobalFeeParameters) with their wire strings, plus the parameters the spec
 * does not publish (index asset, impact notional, funding cap, liquidation
 * penalty, premium smoothing, pool fee share). Parsing checks every relation
 * between limits before anything runs.
 */
import { formatScaled, toE18 } from "../core/decimal.ts";
import { assert } from "../core/assert.ts";
import { MICROS_PER_MILLI, MICROS_PER_SECOND } from "../core/time.ts";
import { E18, type Money, type Price, type Qty, type Rate, divRound, formatE36, max, moneyUnit } from "./fixed.ts";
import type { AssetStatus, FeeTierParametersView, TierType } from "./types.ts";

export interface AssetInput {
  readonly asset: string;
  readonly priceHaircut: string;
  readonly liquidationDiscount: string;
  readonly status: AssetStatus;
  readonly decimals: number;
  readonly displayDecimals: number;
  readonly spotMarketSymbol?: string;
}

export interface PerpMarketInput {
  readonly symbol: string;
  readonly marketId: number;
  readonly minOrderQty: string;
  readonly qtyStepSize: string;
  readonly tickSize: string;
  readonly liquidationMarginParameter: string;
  readonly initialMarginParameter: string;
  readonly maxLeverage: number;
  readonly oiCap: string;
  /** The asset whose index price (AssetOraclePrice) this perp tracks. */
  readonly indexAsset: string;
  /** Notional (settlement asset) walked into each book side for the impact price. */
  readonly impactNotional: string;
  /** Bound of the hourly funding rate, as a fraction (0.0005 = 0.05 % per hour). */
  readonly fundingRateCap: string;
  /** Liquidation penalty, a fraction of the closed notional, paid to the pool. */
  readonly liquidationPenalty: string;
  /** Time constant of the premium's exponential smoothing (virtual microseconds). */
  readonly premiumSmoothingMicros: number;
}

export interface SpotMarketInput {
  readonly symbol: string;
  readonly marketId: number;
  readonly baseAsset: string;
  readonly quoteAsset: string;
  readonly minOrderQty: string;
  readonly qtyStepSize: string;
  readonly tickSize: string;
}

export interface FeeTierInput {
  readonly tierId: number;
  /** A SignedDecimal (spec 2.1); must not be negative on Fee v3. */
  readonly takerFee: string;
  /**
   * A SignedDecimal (spec 2.1) equal to 0: Fee v3 charges makers nothing
   * (fees.ts) and executions omit makerFee (spec 2.14), so a non-zero rate
   * (a fee, or a negative rebate) would be published on /v2/feeTiers and
   * never applied; parseRiskConfig refuses it, and refuses a value that is
   * not a SignedDecimal, naming the field. A zero is published as written.
   */
  readonly makerFee: string;
  readonly volume30d: string;
  readonly tierType: TierType;
}

export interface GlobalFeeInput {
  readonly ogDiscount: string;
  readonly refereeDiscount: string;
  readonly referrerRebate: string;
  readonly affiliateReferrerRebate: string;
  /** Share of the gross taker fee credited to the backstop pool (poolFeeCredit). */
  readonly poolFeeShare: string;
}

export interface RiskConfigInput {
  readonly exchangeId: number;
  /** The quote and collateral currency (rUSD): counted at par, fees and PnL are booked in it. */
  readonly settlementAsset: string;
  readonly assets: readonly AssetInput[];
  readonly perpMarkets: readonly PerpMarketInput[];
  readonly spotMarkets: readonly SpotMarketInput[];
  readonly feeTiers: readonly FeeTierInput[];
  readonly globalFees: GlobalFeeInput;
  readonly whitelistEnabled: boolean;
  /** The backstop liquidity pool: an ordinary account that takes liquidated positions. */
  readonly poolAccountId: number;
  /** A price older than this is not fresh (spec 8.5: 60 s). */
  readonly priceFreshnessMicros?: number;
  /** Cadence of MarketSummary computation (default 500 ms). */
  readonly summaryCadenceMicros?: number;
}

export const DEFAULT_PRICE_FRESHNESS_MICROS = 60 * MICROS_PER_SECOND;
export const DEFAULT_SUMMARY_CADENCE_MICROS = 500 * MICROS_PER_MILLI;

/** Defaults a scenario may spread into a PerpMarketInput for the parameters the spec does not publish. */
export const DEFAULT_PERP_RISK_PARAMETERS = {
  impactNotional: "1000",
  fundingRateCap: "0.0005",
  liquidationPenalty: "0.01",
  premiumSmoothingMicros: 150 * MICROS_PER_SECOND,
} as const;

export interface AssetConfig {
  readonly symbol: string;
  /** The status at start; the admin may change it (AssetState.status). */
  readonly status: AssetStatus;
  readonly priceHaircut: Rate;
  readonly liquidationDiscount: Rate;
  readonly decimals: number;
  readonly displayDecimals: number;
  /** 10^(36 - decimals): the booked Money unit. */
  readonly unit: Money;
  readonly isSettlement: boolean;
}

export interface PerpMarketConfig {
  readonly marketId: number;
  readonly symbol: string;
  readonly tick: Price;
  readonly step: Qty;
  /** max(initialMarginParameter, 1/maxLeverage), 1/maxLeverage rounded up at 18 digits. */
  readonly imRate: Rate;
  readonly lmRate: Rate;
  readonly oiCap: Qty;
  readonly indexAsset: string;
  readonly impactNotional: Money;
  readonly fundingRateCap: Rate;
  readonly penaltyRate: Rate;
  readonly premiumSmoothingMicros: number;
}

export interface SpotMarketConfig {
  readonly marketId: number;
  readonly symbol: string;
  readonly baseAsset: string;
  readonly quoteAsset: string;
  readonly tick: Price;
  readonly step: Qty;
}

export interface FeeTierConfig {
  readonly tierId: number;
  readonly takerRate: Rate;
  /** Always 0 (parseRiskConfig refuses any other: Fee v3 charges makers nothing). */
  readonly makerRate: Rate;
  readonly volume30d: Money;
  readonly tierType: TierType;
}

export interface GlobalFeeConfig {
  readonly ogDiscount: Rate;
  readonly refereeDiscount: Rate;
  readonly referrerRebate: Rate;
  readonly affiliateReferrerRebate: Rate;
  readonly poolFeeShare: Rate;
}

export interface RiskConfig {
  readonly exchangeId: number;
  readonly settlementAsset: string;
  readonly assets: ReadonlyMap<string, AssetConfig>;
  readonly perpMarkets: readonly PerpMarketConfig[];
  readonly spotMarkets: readonly SpotMarketConfig[];
  /** In the canonical order (compareFeeTiers): REGULAR tiers by ascending volume30d, then VIP tiers by volume30d, ties by tierId. */
  readonly feeTiers: readonly FeeTierConfig[];
  readonly globalFees: GlobalFeeConfig;
  readonly whitelistEnabled: boolean;
  readonly poolAccountId: number;
  readonly priceFreshnessMicros: number;
  readonly summaryCadenceMicros: number;
}

function fraction(value: string, field: string): Rate {
  const parsed = toE18(value, field, { signed: false });
  assert(parsed <= E18, `${field} "${value}" must be a fraction at most 1`);
  return parsed;
}

function positive(value: string, field: string): bigint {
  const parsed = toE18(value, field, { signed: false });
  assert(parsed > 0n, `${field} "${value}" must be positive`);
  return parsed;
}

/** Spec 2.1 Symbol and Asset: letters and digits only. */
const NAME_PATTERN = /^[A-Za-z0-9]+$/;

function unsignedInteger(value: number, field: string): void {
  assert(Number.isSafeInteger(value) && value >= 0, `${field} ${String(value)} must be a non-negative integer (UnsignedInteger)`);
}

function parseAsset(input: AssetInput, settlementAsset: string): AssetConfig {
  assert(typeof input.asset === "string" && NAME_PATTERN.test(input.asset), `asset "${String(input.asset)}" must be letters and digits only (spec 2.1 Asset)`);
  assert(input.status === "ENABLED" || input.status === "WITHDRAWAL_ONLY", `${input.asset}.status "${String(input.status)}" must be ENABLED or WITHDRAWAL_ONLY`);
  unsignedInteger(input.displayDecimals, `${input.asset}.displayDecimals`);
  const isSettlement = input.asset === settlementAsset;
  const priceHaircut = fraction(input.priceHaircut, `${input.asset}.priceHaircut`);
  assert(!isSettlement || priceHaircut === 0n, `settlement asset ${input.asset} counts at par, so its priceHaircut must be 0`);
  return {
    symbol: input.asset,
    status: input.status,
    priceHaircut,
    liquidationDiscount: fraction(input.liquidationDiscount, `${input.asset}.liquidationDiscount`),
    decimals: input.decimals,
    displayDecimals: input.displayDecimals,
    unit: moneyUnit(input.decimals),
    isSettlement,
  };
}

function parsePerp(input: PerpMarketInput, assets: ReadonlyMap<string, AssetConfig>): PerpMarketConfig {
  const at = (field: string) => `${input.symbol}.${field}`;
  assert(NAME_PATTERN.test(input.symbol) && input.symbol.endsWith("PERP"), `perp market symbol "${input.symbol}" must be letters and digits ending in PERP (spec 1: perp symbols end in PERP)`);
  assert(Number.isSafeInteger(input.maxLeverage) && input.maxLeverage >= 1, `${at("maxLeverage")} ${input.maxLeverage} must be a positive integer`);
  assert(assets.has(input.indexAsset), `${at("indexAsset")} "${input.indexAsset}" is not a configured asset`);
  const initialMarginParameter = fraction(input.initialMarginParameter, at("initialMarginParameter"));
  const lmRate = fraction(input.liquidationMarginParameter, at("liquidationMarginParameter"));
  const leverageFloor = divRound(E18, BigInt(input.maxLeverage), "ceil");
  const imRate = max(initialMarginParameter, leverageFloor);
  assert(lmRate > 0n, `${at("liquidationMarginParameter")} must be positive`);
  assert(lmRate <= imRate, `${at("liquidationMarginParameter")} must not exceed the initial margin rate, or an account would be liquidated on opening`);
  assert(Number.isSafeInteger(input.premiumSmoothingMicros) && input.premiumSmoothingMicros > 0, `${at("premiumSmoothingMicros")} must be a positive integer`);
  return {
    marketId: input.marketId,
    symbol: input.symbol,
    tick: positive(input.tickSize, at("tickSize")),
    step: positive(input.qtyStepSize, at("qtyStepSize")),
    imRate,
    lmRate,
    oiCap: toE18(input.oiCap, at("oiCap"), { signed: false }),
    indexAsset: input.indexAsset,
    impactNotional: positive(input.impactNotional, at("impactNotional")) * E18,
    fundingRateCap: fraction(input.fundingRateCap, at("fundingRateCap")),
    penaltyRate: fraction(input.liquidationPenalty, at("liquidationPenalty")),
    premiumSmoothingMicros: input.premiumSmoothingMicros,
  };
}

function parseSpot(input: SpotMarketInput, assets: ReadonlyMap<string, AssetConfig>): SpotMarketConfig {
  assert(NAME_PATTERN.test(input.symbol) && !input.symbol.endsWith("PERP"), `spot market symbol "${input.symbol}" must be letters and digits not ending in PERP (spec 1: spot symbols do not)`);
  const base = assets.get(input.baseAsset);
  assert(base !== undefined, `${input.symbol}.baseAsset "${input.baseAsset}" is not a configured asset`);
  assert(assets.has(input.quoteAsset), `${input.symbol}.quoteAsset "${input.quoteAsset}" is not a configured asset`);
  assert(input.baseAsset !== input.quoteAsset, `${input.symbol} must trade two different assets`);
  const step = positive(input.qtyStepSize, `${input.symbol}.qtyStepSize`);
  // A base quantity must be bookable in the base asset's decimals without rounding.
  assert((step * E18) % base.unit === 0n, `${input.symbol}.qtyStepSize "${input.qtyStepSize}" has more fraction digits than ${base.symbol} decimals ${base.decimals}`);
  return {
    marketId: input.marketId,
    symbol: input.symbol,
    baseAsset: input.baseAsset,
    quoteAsset: input.quoteAsset,
    tick: positive(input.tickSize, `${input.symbol}.tickSize`),
    step,
  };
}

const TIER_TYPE_RANK: Readonly<Record<TierType, number>> = { REGULAR: 0, VIP: 1 };

/**
 * The canonical order of fee tiers, the order the service keeps and
 * publishes them in (/v2/feeTiers, spec 2.6): REGULAR tiers before VIP
 * tiers; within a type, by ascending volume30d (the 30-day volume the tier
 * requires), ties by ascending tierId. The REGULAR tiers then read as the
 * volume ladder, the default tier (volume30d 0) first, whatever order the
 * configuration lists them in.
 */
export function compareFeeTiers(a: FeeTierConfig, b: FeeTierConfig): number {
  if (a.tierType !== b.tierType) return TIER_TYPE_RANK[a.tierType] - TIER_TYPE_RANK[b.tierType];
  if (a.volume30d !== b.volume30d) return a.volume30d < b.volume30d ? -1 : 1;
  return a.tierId - b.tierId;
}

/** Spec 2.6 FeeTierParameters of the configured tiers, in the canonical order, each decimal canonical (no exponent, no trailing zeros). */
export function feeTierParameters(config: RiskConfig): FeeTierParametersView[] {
  return config.feeTiers.map((tier) => ({
    tierId: tier.tierId,
    takerFee: formatScaled(tier.takerRate, 18),
    makerFee: formatScaled(tier.makerRate, 18),
    volume30d: formatE36(tier.volume30d),
    tierType: tier.tierType,
  }));
}

function parseFees(tiers: readonly FeeTierInput[], global: GlobalFeeInput): { feeTiers: FeeTierConfig[]; globalFees: GlobalFeeConfig } {
  const parsed = tiers.map((tier): FeeTierConfig => {
    unsignedInteger(tier.tierId, "fee tier tierId");
    assert(tier.tierType === "REGULAR" || tier.tierType === "VIP", `tier ${tier.tierId}.tierType "${String(tier.tierType)}" must be REGULAR or VIP`);
    const takerRate = toE18(tier.takerFee, `tier ${tier.tierId}.takerFee`, { signed: true });
    assert(takerRate >= 0n, `tier ${tier.tierId}.takerFee "${tier.takerFee}" must not be negative on Fee v3`);
    // Fee v3 charges no maker fee (fees.ts; executions omit makerFee, spec 2.14): a non-zero rate, fee or rebate, would be
    // published on /v2/feeTiers and never applied, so it is refused (see FeeTierInput.makerFee).
    const makerRate = toE18(tier.makerFee, `tier ${tier.tierId}.makerFee`, { signed: true });
    assert(makerRate === 0n, `tier ${tier.tierId}.makerFee "${tier.makerFee}" must be 0 on Fee v3 (maker fees are not charged)`);
    const volume30d = toE18(tier.volume30d, `tier ${tier.tierId}.volume30d`, { signed: false }) * E18;
    return { tierId: tier.tierId, takerRate, makerRate, volume30d, tierType: tier.tierType };
  });
  const ids = new Set(parsed.map((tier) => tier.tierId));
  assert(ids.size === parsed.length, "fee tier ids must be unique");
  const feeTiers = [...parsed].sort(compareFeeTiers);
  // The REGULAR tier of a 30-day volume (fees.regularTier) must be one tier: two REGULAR tiers at one volume30d would
  // leave the choice between them to their tierIds, and two at 0 would make two default tiers.
  for (let at = 1; at < feeTiers.length; at++) {
    const previous = feeTiers[at - 1]!;
    const tier = feeTiers[at]!;
    assert(
      tier.tierType !== "REGULAR" || previous.tierType !== "REGULAR" || tier.volume30d !== previous.volume30d,
      `tier ${tier.tierId}.volume30d "${formatE36(tier.volume30d)}" is also the volume30d of REGULAR tier ${previous.tierId}: each REGULAR tier must have its own volume30d${tier.volume30d === 0n ? " (there is one default tier, volume30d 0)" : ""}`,
    );
  }
  const first = feeTiers[0];
  assert(first !== undefined && first.tierType === "REGULAR" && first.volume30d === 0n, "there must be a REGULAR fee tier with volume30d 0 (the default tier)");
  const globalFees: GlobalFeeConfig = {
    ogDiscount: fraction(global.ogDiscount, "ogDiscount"),
    refereeDiscount: fraction(global.refereeDiscount, "refereeDiscount"),
    referrerRebate: fraction(global.referrerRebate, "referrerRebate"),
    affiliateReferrerRebate: fraction(global.affiliateReferrerRebate, "affiliateReferrerRebate"),
    poolFeeShare: fraction(global.poolFeeShare, "poolFeeShare"),
  };
  // The taker rebate (both discounts), the referrer share and the pool share
  // come out of the gross fee; the protocol keeps the rest, never below 0.
  const bothDiscounts = E18 - divRound((E18 - globalFees.ogDiscount) * (E18 - globalFees.refereeDiscount), E18, "floor");
  const referrerMax = max(globalFees.referrerRebate, globalFees.affiliateReferrerRebate);
  assert(bothDiscounts + referrerMax + globalFees.poolFeeShare <= E18, "ogDiscount, refereeDiscount, the referrer rebate and poolFeeShare together exceed the whole fee");
  return { feeTiers, globalFees };
}

export function parseRiskConfig(input: RiskConfigInput): RiskConfig {
  unsignedInteger(input.exchangeId, "exchangeId");
  unsignedInteger(input.poolAccountId, "poolAccountId");
  const assets = new Map<string, AssetConfig>();
  for (const asset of input.assets) {
    assert(!assets.has(asset.asset), `asset ${asset.asset} is configured twice`);
    assets.set(asset.asset, parseAsset(asset, input.settlementAsset));
  }
  assert(assets.has(input.settlementAsset), `settlement asset ${input.settlementAsset} must be a configured asset`);
  const perpMarkets = input.perpMarkets.map((market) => parsePerp(market, assets));
  const spotMarkets = input.spotMarkets.map((market) => parseSpot(market, assets));
  const ids = new Set<number>();
  const symbols = new Set<string>();
  for (const market of [...perpMarkets, ...spotMarkets]) {
    assert(Number.isSafeInteger(market.marketId) && market.marketId >= 0, `${market.symbol}.marketId must be a non-negative integer`);
    assert(!ids.has(market.marketId), `marketId ${market.marketId} is used twice (perp and spot ids share one space here)`);
    assert(!symbols.has(market.symbol), `symbol ${market.symbol} is used twice`);
    ids.add(market.marketId);
    symbols.add(market.symbol);
  }
  // Spec 2.5: spotMarketSymbol is the asset's linked spot market, one that trades it as its base.
  for (const asset of input.assets) {
    if (asset.spotMarketSymbol === undefined) continue;
    const linked = spotMarkets.find((market) => market.symbol === asset.spotMarketSymbol);
    assert(linked !== undefined, `${asset.asset}.spotMarketSymbol "${asset.spotMarketSymbol}" is not a configured spot market`);
    assert(linked.baseAsset === asset.asset, `${asset.asset}.spotMarketSymbol "${asset.spotMarketSymbol}" trades ${linked.baseAsset}, not ${asset.asset}: the linked spot market must have the asset as its baseAsset`);
  }
  const freshness = input.priceFreshnessMicros ?? DEFAULT_PRICE_FRESHNESS_MICROS;
  const cadence = input.summaryCadenceMicros ?? DEFAULT_SUMMARY_CADENCE_MICROS;
  assert(Number.isSafeInteger(freshness) && freshness > 0, "priceFreshnessMicros must be a positive integer");
  assert(Number.isSafeInteger(cadence) && cadence > 0, "summaryCadenceMicros must be a positive integer");
  return {
    exchangeId: input.exchangeId,
    settlementAsset: input.settlementAsset,
    assets,
    perpMarkets,
    spotMarkets,
    ...parseFees(input.feeTiers, input.globalFees),
    whitelistEnabled: input.whitelistEnabled,
    poolAccountId: input.poolAccountId,
    priceFreshnessMicros: freshness,
    summaryCadenceMicros: cadence,
  };
}
