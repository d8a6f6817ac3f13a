/**
 * The risk state: every table the risk modules read and write, in ordered
 * collections only (Map and Set in insertion order, arrays), so iteration is
 * deterministic. Modules are free functions over this state; the RiskEngine
 * facade (risk.ts) binds them.
 *
 * Two layers: `q`, `k`, `b` and balances are SETTLED state (changed only by
 * applying an execution, a deposit, a liquidation); `pq`, `pk`, pending fees
 * and pending outflows are PENDING exposure (matched by the engine, not yet
 * settled), added by addPending and removed by releasePending.
 */
import { IdGenerator, SequenceCounter } from "../core/ids.ts";
import { ShardedMap } from "../core/sharded-map.ts";
import { MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_SECOND } from "../core/time.ts";
import type { AssetConfig, FeeTierConfig, PerpMarketConfig, RiskConfig, SpotMarketConfig } from "./config.ts";
import {
  type Claim,
  type FundingValue,
  type Money,
  type Price,
  type Qty,
  type Rate,
  type RateFraction,
  RememberedText,
  StepScale,
  formatE36,
  formatMoney,
  formatScaled,
  rateFraction,
} from "./fixed.ts";
import { PriceWindow, RollingSum } from "./rolling.ts";
import type { TakerFeeSplit } from "./fees.ts";
import type { AssetStatus, Side } from "./types.ts";

/** A price sample of a feed, with its update time. */
export interface PriceSample {
  readonly price: Price;
  readonly atMicros: number;
}

/**
 * The smoothed premium (`ema`) and the premium sample in force since
 * `atMicros` (`held`; undefined while the book is too thin for an impact price).
 */
export interface PremiumState {
  readonly ema: Price;
  readonly held: Price | undefined;
  readonly atMicros: number;
}

export interface WalletState {
  readonly address: string;
  whitelisted: boolean;
  suspended: boolean;
  /** Request-rate tier for the gateway's limiter (spec 8.3); 1 is the first (default) tier. */
  rateTier: number;
  /** A VIP tier assigned by the venue; undefined: the REGULAR tier of the 30-day volume. */
  vipTierId: number | undefined;
  og: boolean;
  referee: boolean;
  affiliate: boolean;
  /** The wallet that referred this one (receives referrerFeeCredit). */
  referrer: string | undefined;
  /** Settled traded notional of all its accounts, 1-hour buckets over 30 days. */
  readonly volume30d: RollingSum;
  /** The fee tier as of the wallet's last volume or tier change (used for fee reserves). */
  tier: FeeTierConfig;
  readonly accountIds: number[];
}

export interface BalanceState {
  readonly asset: AssetState;
  /** realBalance: net deposits plus realized PnL, fees and funding (settled). */
  balance: Money;
  /** balanceDEPRECATED: deposits minus withdrawals, transfers in minus out. */
  netDeposits: Money;
  /** Held by resting spot orders. */
  reserved: Money;
  /** Owed by pending (matched, unsettled) spot fills. */
  pendingOut: Money;
  /** This balance's contribution to the account's collateral value (non-settlement assets). */
  collateralC: Money;
  /**
   * Wire text of `balance` and `netDeposits` as last formatted, with the
   * values it was formatted from: reads and ledger entries reuse it while
   * the value is unchanged.
   */
  shownBalance: Money;
  shownBalanceText: string;
  shownNetDeposits: Money;
  shownNetDepositsText: string;
}

export interface AccountState {
  readonly id: number;
  readonly wallet: WalletState;
  readonly signers: Set<string>;
  readonly balances: Map<string, BalanceState>;
  /** Perp positions by marketId (including pending-only and resting-only entries). */
  readonly positions: Map<number, PositionState>;
  /** Running aggregates: Money at 10^36 unless noted. S suffix: settled only. */
  settlementBalance: Money;
  collateral: Money;
  upnl: Money;
  upnlS: Money;
  im: Money;
  imS: Money;
  lm: Money;
  lmS: Money;
  imOrders: Money;
  /** Funding claims of settled positions at time t: (f0 + f1 x t) / 10^18, Money. */
  f0: Claim;
  f1: Claim;
  pendingFees: Money;
  /**
   * What pending spot fills take from margin: per fill and side, the part
   * of its collateral change that is a loss (exposure.ts addPending);
   * counted by effective-state checks (margin.equityForChecks), not by the
   * published margin balance.
   */
  pendingSpotLoss: Money;
  /**
   * The account's resting spot orders (buys and sells) by spot market, each
   * order itself (its remaining qty). Admission counts, per order, the part of its hold that
   * would lower margin (exposure.restingSpotLoss).
   */
  readonly spotOrders: Map<SpotMarketState, Set<RestingState>>;
}

export interface PositionState {
  readonly account: AccountState;
  readonly market: PerpMarketState;
  /** Settled signed quantity (long > 0). */
  q: Qty;
  /** Settled signed cost basis: sum of qty x price of the open position (avgEntryPrice = k / q). */
  k: Money;
  /** Funding basis: units x funding value at entry (avgEntryFundingValue = b / units). */
  b: Claim;
  /** Fees paid on the executions that opened the current position, not yet allocated to closes. */
  openingFees: Money;
  lastSeq: number;
  /** Pending signed quantity and cost (sum of qty x price). */
  pq: Qty;
  pk: Money;
  restBuy: Qty;
  restSell: Qty;
  // Contributions to the account aggregates, kept to update them by difference.
  upnlC: Money;
  upnlSC: Money;
  imC: Money;
  imSC: Money;
  lmC: Money;
  lmSC: Money;
  imOrdersC: Money;
  f0C: Claim;
  f1C: Claim;
  /** Wire text of the settled position (spec 2.11) as last formatted, reused while q, k and b are unchanged. */
  shown: ShownPosition | undefined;
}

export interface AssetState {
  readonly config: AssetConfig;
  status: AssetStatus;
  /** Index price in the settlement asset (USD); the settlement asset has none (par). */
  index: PriceSample | undefined;
  /** Accounts with a non-zero balance of this (non-settlement) asset. */
  readonly holders: Set<AccountState>;
  /** Text of the index price (assetOraclePrices, on every price input). */
  readonly indexText: RememberedText;
  /** index x (1 - priceHaircut) at 10^36 (collateral.ts collateralValue), with the index price it was made from. */
  haircutPriceFor: Price | undefined;
  haircutPrice: bigint;
}

/**
 * Funding of one perp market. Long and short funding values are linear in
 * time between anchors: long(t) = longAnchor - slope x (t - anchorMicros),
 * short(t) = shortAnchor + slope x (t - anchorMicros), exact integers.
 */
export interface FundingState {
  /** Hourly rate as a fraction (published x100 as fundingRate). */
  rate: Rate;
  /** Value per unit per microsecond that longs pay and shorts receive (10^36). */
  slope: FundingValue;
  anchorMicros: number;
  longAnchor: FundingValue;
  shortAnchor: FundingValue;
  /**
   * Derived from the four above whenever they change (funding.ts
   * `rebaseFunding`), so that a position's funding terms cost one product
   * each (margin.ts): longBase = longAnchor + slope x anchorMicros,
   * shortBase = slope x anchorMicros - shortAnchor, negSlope = -slope.
   */
  longBase: FundingValue;
  shortBase: FundingValue;
  negSlope: FundingValue;
}

export interface MarketStats {
  readonly volume24h: RollingSum;
  readonly prices24h: PriceWindow;
}

export interface BookPrices {
  bestBid: Price | undefined;
  bestAsk: Price | undefined;
  impactBid: Price | undefined;
  impactAsk: Price | undefined;
  atMicros: number;
}

/** Formatted figures of a settled position, with the values they were formatted from. */
export interface ShownPosition {
  readonly q: Qty;
  readonly k: Money;
  readonly b: Claim;
  readonly qty: string;
  readonly avgEntryPrice: string;
  readonly avgEntryFundingValue: string;
}

export interface PerpMarketState {
  readonly kind: "perp";
  readonly config: PerpMarketConfig;
  readonly indexAsset: AssetState;
  closed: boolean;
  /** The exchange-mark oracle (MarketSummary.oraclePrice). */
  oracle: PriceSample | undefined;
  book: BookPrices;
  /** Exponentially smoothed premium of the impact price over the index. */
  premium: PremiumState | undefined;
  mark: Price | undefined;
  markAtMicros: number;
  readonly funding: FundingState;
  /** One-sided open interest, settled and effective (settled + pending). */
  oiLong: Qty;
  oiShort: Qty;
  oiLongEff: Qty;
  oiShortEff: Qty;
  /** Positions with anything that contributes to margin, by accountId. */
  readonly holders: Map<number, PositionState>;
  readonly stats: MarketStats;
  /** Lots and ticks to 10^18 values (config.step, config.tick). */
  readonly lots: StepScale;
  readonly ticks: StepScale;
  /** config.imRate and config.lmRate in lowest terms, for margin.ts's requirements (mulFractionCeil). */
  readonly imFraction: RateFraction;
  readonly lmFraction: RateFraction;
  /** The mark on the tick grid (feeds.ts markTicksOf), with the mark it was computed from. */
  markTicksFor: Price | undefined;
  markTicks: number;
  readonly texts: PerpTexts;
}

/**
 * Texts of a perp market's figures, each remembered with its value
 * (summaries.ts publishes them every 500 ms, most unchanged since the last
 * time; the mark's is also a MarkChange's markPrice).
 */
export interface PerpTexts {
  readonly oiQty: RememberedText;
  /** Of the rate (a fraction): the published fundingRate is 100 times it. */
  readonly fundingRate: RememberedText;
  readonly longFundingValue: RememberedText;
  readonly shortFundingValue: RememberedText;
  readonly volume24h: RememberedText;
  readonly pxChange24h: RememberedText;
  readonly mark: RememberedText;
  readonly oraclePrice: RememberedText;
  readonly mid: RememberedText;
}

/** Texts of a spot market's summary figures, as PerpTexts. */
export interface SpotTexts {
  readonly volume24h: RememberedText;
  readonly pxChange24h: RememberedText;
  readonly oraclePrice: RememberedText;
  readonly mid: RememberedText;
}

function price18Text(): RememberedText {
  return new RememberedText((value) => formatScaled(value, 18));
}

export function newPerpTexts(): PerpTexts {
  return {
    oiQty: price18Text(),
    fundingRate: new RememberedText((rate) => formatScaled(rate * 100n, 18)),
    longFundingValue: new RememberedText(formatE36),
    shortFundingValue: new RememberedText(formatE36),
    volume24h: new RememberedText(formatE36),
    pxChange24h: price18Text(),
    mark: price18Text(),
    oraclePrice: price18Text(),
    mid: price18Text(),
  };
}

export function newSpotTexts(): SpotTexts {
  return { volume24h: new RememberedText(formatMoney), pxChange24h: price18Text(), oraclePrice: price18Text(), mid: price18Text() };
}

export interface SpotMarketState {
  readonly kind: "spot";
  readonly config: SpotMarketConfig;
  readonly base: AssetState;
  readonly quote: AssetState;
  book: BookPrices;
  readonly stats: MarketStats;
  /** Lots and ticks to 10^18 values (config.step, config.tick). */
  readonly lots: StepScale;
  readonly ticks: StepScale;
  readonly texts: SpotTexts;
}

export interface RestingState {
  readonly orderId: string;
  readonly account: AccountState;
  readonly marketId: number;
  readonly side: Side;
  qty: Qty;
  readonly price: Price;
}

/** What addPending added, so releasePending removes exactly that. */
export interface PendingState {
  readonly fillId: string;
  readonly marketId: number;
  readonly taker: AccountState;
  readonly maker: AccountState;
  /** Signed quantity the taker gets (the maker gets the opposite). */
  readonly takerDelta: Qty;
  readonly price: Price;
  readonly takerFee: Money;
  /** Spot: outflows owed, per account and asset. */
  readonly outflows: readonly { readonly balance: BalanceState; readonly amount: Money }[];
  /** Spot: what the fill takes from each side's margin (added to pendingSpotLoss), taker and maker. */
  readonly takerSpotLoss: Money;
  readonly makerSpotLoss: Money;
}

/** Ids for the executions the risk layer makes itself (liquidation, ADL, market close). */
export interface ExecutionIds {
  nextFillId(): string;
  nextPerpSequenceNumber(): number;
}

export interface RiskState {
  readonly config: RiskConfig;
  readonly ids: ExecutionIds;
  readonly settlement: AssetState;
  readonly assets: Map<string, AssetState>;
  readonly wallets: Map<string, WalletState>;
  readonly accounts: Map<number, AccountState>;
  readonly perps: Map<number, PerpMarketState>;
  readonly spots: Map<number, SpotMarketState>;
  readonly resting: ShardedMap<RestingState>;
  readonly pending: Map<string, PendingState>;
  /** protocolFeeCredit (and spot fees) collected, per asset. */
  readonly protocolFees: Map<string, Money>;
  /** Below-the-last-decimal remainders of closed positions and socialization (10^54). */
  roundingResidual: Claim;
  /** Funding value removed from claims by socialized losses (10^54). */
  socialized: Claim;
  /** Funding realized into balances, residuals included (10^54): for the funding invariant. */
  fundingRealized: Claim;
  /** Accounts to look at in the next liquidation pass. */
  readonly candidates: Set<number>;
  /**
   * An oracleStale fault (the exchange's faults): until this time every
   * oracle and index price counts as stale, as if the feed had stopped
   * (prices.ts isFresh); 0 when none was opened.
   */
  oracleStaleUntilMicros: number;
  /**
   * Whether a liquidation pass builds its audit records (liquidation.ts
   * LiquidationJudgement, adl.ts AdlClose). They change no decision or
   * output. On unless RiskEngineOptions.recordLiquidations says otherwise:
   * a RiskEngine's own caller reads the outcome; the exchange keeps it on
   * only while a liquidation listener is attached.
   */
  recordLiquidations: boolean;
  /** The last taker fee split and what it was computed from (fees.ts takerFeeSplit). */
  lastFeeSplit: FeeSplitMemo | undefined;
}

/** A taker fee split with every input it depends on besides the (immutable) config. */
export interface FeeSplitMemo {
  readonly wallet: WalletState;
  readonly takerRate: Rate;
  readonly notional: Money;
  readonly og: boolean;
  readonly referee: boolean;
  readonly referrerAffiliate: boolean;
  /** Its referrer and pool are the accounts it was computed with. */
  readonly split: TakerFeeSplit;
}

export const WINDOW_24H_MICROS = MICROS_PER_DAY;
export const WINDOW_30D_MICROS = 30 * MICROS_PER_DAY;

export function newMarketStats(): MarketStats {
  return { volume24h: new RollingSum(MICROS_PER_SECOND, WINDOW_24H_MICROS), prices24h: new PriceWindow(WINDOW_24H_MICROS) };
}

export function newVolume30d(): RollingSum {
  return new RollingSum(MICROS_PER_HOUR, WINDOW_30D_MICROS);
}

export function emptyBook(): BookPrices {
  return { bestBid: undefined, bestAsk: undefined, impactBid: undefined, impactAsk: undefined, atMicros: 0 };
}

/** Default ids: counters from 1 (the exchange passes its own counters). */
export function defaultExecutionIds(): ExecutionIds {
  const fills = new IdGenerator(1n);
  const sequence = new SequenceCounter(0);
  return { nextFillId: () => fills.next(), nextPerpSequenceNumber: () => sequence.next() };
}

export function createRiskState(config: RiskConfig, ids: ExecutionIds): RiskState {
  const assets = new Map<string, AssetState>();
  for (const asset of config.assets.values()) {
    assets.set(asset.symbol, { config: asset, status: asset.status, index: undefined, holders: new Set(), indexText: price18Text(), haircutPriceFor: undefined, haircutPrice: 0n });
  }
  const settlement = assets.get(config.settlementAsset)!;
  const perps = new Map<number, PerpMarketState>();
  for (const market of config.perpMarkets) {
    perps.set(market.marketId, {
      kind: "perp",
      config: market,
      indexAsset: assets.get(market.indexAsset)!,
      closed: false,
      oracle: undefined,
      book: emptyBook(),
      premium: undefined,
      mark: undefined,
      markAtMicros: 0,
      funding: { rate: 0n, slope: 0n, anchorMicros: 0, longAnchor: 0n, shortAnchor: 0n, longBase: 0n, shortBase: 0n, negSlope: 0n },
      oiLong: 0n,
      oiShort: 0n,
      oiLongEff: 0n,
      oiShortEff: 0n,
      holders: new Map(),
      stats: newMarketStats(),
      lots: new StepScale(market.step),
      ticks: new StepScale(market.tick),
      imFraction: rateFraction(market.imRate),
      lmFraction: rateFraction(market.lmRate),
      markTicksFor: undefined,
      markTicks: 0,
      texts: newPerpTexts(),
    });
  }
  const spots = new Map<number, SpotMarketState>();
  for (const market of config.spotMarkets) {
    spots.set(market.marketId, {
      kind: "spot",
      config: market,
      base: assets.get(market.baseAsset)!,
      quote: assets.get(market.quoteAsset)!,
      book: emptyBook(),
      stats: newMarketStats(),
      lots: new StepScale(market.step),
      ticks: new StepScale(market.tick),
      texts: newSpotTexts(),
    });
  }
  return {
    config,
    ids,
    settlement,
    assets,
    wallets: new Map(),
    accounts: new Map(),
    perps,
    spots,
    resting: new ShardedMap(),
    pending: new Map(),
    protocolFees: new Map(),
    roundingResidual: 0n,
    oracleStaleUntilMicros: 0,
    socialized: 0n,
    fundingRealized: 0n,
    candidates: new Set(),
    recordLiquidations: true,
    lastFeeSplit: undefined,
  };
}
