/**
 * One snapshot of the run's state at an observer sample, shared by the
 * recorder (positions, balances, equity, prices, depth files) and the
 * summary (drawdown, chart series), so the two agree on every value and the
 * reads happen once per sample time.
 *
 * Sources, all reads that move no state:
 * - index prices, positions and balances: the latest `oraclePrices`,
 *   `positions` and `balances` outputs (fed through `note(output)` by the
 *   observers that share the sampler; the Exchange emits them whenever they
 *   change), parsed at a sample only when they changed; the starting
 *   positions and balances are read once at `begin`;
 * - perp market figures (oracle, mark, funding rate and values, open
 *   interest): the risk engine's own state at the sample time, read with
 *   the pure functions its summaries use (risk/summaries.ts: the mark and
 *   oracle only while fresh, funding values at the sample time), so a
 *   position is valued at the mark the Exchange holds then, as its margin
 *   is. Not the last computed summaries: they are up to the summary cadence
 *   (500 ms) old, and a summary computed at the sample's own time may
 *   precede that time's oracle tick, so valuing the sampled positions at
 *   its mark mixed two states (an account's equity off by a whole mark
 *   move); and computing fresh summaries would advance the rolling 24 h
 *   windows. Spot oracle prices likewise (index(base) / index(quote) while
 *   fresh);
 * - depth: the engine's top `depthLevels` levels per side, in ticks and
 *   lots, turned into floats with the market's tick and step;
 * - marginBalance, initialMargin, liquidationMargin: `risk.margin` per agent
 *   account (the Exchange's own figures), at every sample.
 *
 * Values are floats parsed from the wire decimals (analysis values; the
 * exact decimals stay in the Exchange's records).
 *
 * Valuation of an account (rUSD, the settlement asset):
 *   equity = sum over balances of realBalance x index price of the asset
 *            (the settlement asset at 1; no haircut)
 *          + sum over perp positions of unrealizedPnl + unrealizedFunding
 *   unrealizedPnl     = signedQty x (markPrice - avgEntryPrice)
 *   unrealizedFunding = |qty| x (fundingValue(side, t) - avgEntryFundingValue)
 * where the mark, index and funding values are the market's at the sample
 * time; a stale (omitted) mark or index falls back to the last one seen
 * (NaN before any). `marginBalance` is the Exchange's own figure (collateral
 * after haircut, pending matches counted), recorded beside it.
 */
import { formatScaled } from "../core/decimal.ts";
import type { Micros } from "../core/time.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import { longValueAt, shortValueAt } from "../risk/funding.ts";
import { isFresh, perpPricesFresh, spotOraclePrice } from "../risk/prices.ts";
import type { HostedAgent } from "../sim/agent-host.ts";
import type { RunSetup } from "../sim/run.ts";

export const DEFAULT_DEPTH_LEVELS = 10;

export interface MarketSample {
  readonly symbol: string;
  readonly kind: "perp" | "spot";
  /** Index price of the perp's index asset, or of the spot market's base asset. */
  readonly indexPrice: number;
  /** The market's oracle price (perp: the exchange-mark oracle; spot: index(base) / index(quote)); NaN when stale. */
  readonly oraclePrice: number;
  /** Perp mark price (NaN for spot, and before the first one; while stale, the last one seen: see the header). */
  readonly markPrice: number;
  /** Hourly funding rate as published: a percentage (perp; NaN for spot). */
  readonly fundingRate: number;
  /** One-sided open interest in base units (perp; NaN for spot). */
  readonly openInterest: number;
  readonly longFundingValue: number;
  readonly shortFundingValue: number;
  readonly bestBid: number;
  readonly bestAsk: number;
  /** Prices and quantities of the top levels, best first. */
  readonly bidPrices: Float64Array;
  readonly bidQtys: Float64Array;
  readonly askPrices: Float64Array;
  readonly askQtys: Float64Array;
}

export interface PositionSample {
  readonly symbol: string;
  /** Signed: long positive, short negative; 0 when flat. */
  readonly qty: number;
  readonly avgEntryPrice: number;
  readonly markPrice: number;
  readonly notional: number;
  readonly unrealizedPnl: number;
  readonly unrealizedFunding: number;
}

export interface BalanceSample {
  readonly asset: string;
  readonly realBalance: number;
  readonly netDeposits: number;
  readonly price: number;
  readonly value: number;
}

export interface AccountSample {
  readonly agent: HostedAgent;
  /** One per perp market of the run, in config order (flat ones with qty 0). */
  readonly positions: readonly PositionSample[];
  readonly balances: readonly BalanceSample[];
  readonly equity: number;
  readonly unrealizedPnl: number;
  readonly unrealizedFunding: number;
  readonly marginBalance: number;
  readonly initialMargin: number;
  readonly liquidationMargin: number;
}

export interface RunSample {
  readonly atMicros: Micros;
  readonly timeMs: number;
  readonly markets: readonly MarketSample[];
  readonly accounts: readonly AccountSample[];
}

interface PerpInfo {
  readonly symbol: string;
  readonly marketId: number;
  readonly indexAsset: string;
  readonly price: UnitScale;
  readonly qty: UnitScale;
}

interface SpotInfo {
  readonly symbol: string;
  readonly marketId: number;
  readonly baseAsset: string;
  readonly price: UnitScale;
  readonly qty: UnitScale;
}

/** A decimal step as mantissa x 10^-exponent, so that n steps convert with one rounding: n x mantissa / 10^exponent. */
interface UnitScale {
  readonly mantissa: number;
  readonly divisor: number;
}

function unitScale(step: string): UnitScale {
  const dot = step.indexOf(".");
  const digits = dot < 0 ? step : step.slice(0, dot) + step.slice(dot + 1);
  const exponent = dot < 0 ? 0 : step.length - dot - 1;
  return { mantissa: Number(digits), divisor: 10 ** exponent };
}

function scaled(units: number, scale: UnitScale): number {
  return (units * scale.mantissa) / scale.divisor;
}

interface ParsedPosition {
  readonly qty: number;
  readonly units: number;
  readonly long: boolean;
  readonly entry: number;
  readonly entryFunding: number;
}

interface ParsedBalance {
  readonly asset: string;
  readonly realBalance: number;
  readonly netDeposits: number;
}

/** What the sampler knows of one agent account between samples. */
interface AccountState {
  readonly agent: HostedAgent;
  /** Its positions and balances were read or noted at least once (accounts may open after begin). */
  primed: boolean;
  rawPositions: readonly { symbol: string; accountId: number; qty: string; side: string; avgEntryPrice: string; avgEntryFundingValue: string }[];
  rawBalances: readonly { accountId: number; asset: string; realBalance: string; balanceDEPRECATED: string }[];
  positions: Map<string, ParsedPosition>;
  balances: ParsedBalance[];
  dirtyPositions: boolean;
  dirtyBalances: boolean;
}

/** Takes (and memoizes per sample time) the run's snapshot. */
export class RunSampler {
  private setup: RunSetup | undefined;
  private last: RunSample | undefined;
  private perps: PerpInfo[] = [];
  private spots: SpotInfo[] = [];
  private settlementAsset = "rUSD";
  private accounts: AccountState[] = [];
  private readonly byWallet = new Map<string, AccountState>();
  private rawIndex: readonly { asset: string; oraclePrice: string }[] = [];
  private dirtyIndex = true;
  private lastNoted: ExchangeOutput | undefined;
  private readonly lastIndex = new Map<string, number>();
  private readonly lastMark = new Map<string, number>();

  constructor(readonly depthLevels = DEFAULT_DEPTH_LEVELS) {
    if (!Number.isSafeInteger(depthLevels) || depthLevels < 1) throw new RangeError(`depthLevels "${depthLevels}" must be a positive integer`);
  }

  /** Binds the sampler to a run (idempotent for the same setup): reads the starting positions, balances and prices. */
  begin(setup: RunSetup): void {
    if (this.setup === setup) return;
    this.setup = setup;
    this.last = undefined;
    const risk = setup.config.risk;
    this.settlementAsset = risk.settlementAsset;
    this.perps = risk.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId, indexAsset: m.indexAsset, price: unitScale(m.tickSize), qty: unitScale(m.qtyStepSize) }));
    this.spots = risk.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId, baseAsset: m.baseAsset, price: unitScale(m.tickSize), qty: unitScale(m.qtyStepSize) }));
    this.accounts = setup.agents.map((agent) => ({
      agent,
      primed: false,
      rawPositions: [],
      rawBalances: [],
      positions: new Map(),
      balances: [],
      dirtyPositions: true,
      dirtyBalances: true,
    }));
    this.byWallet.clear();
    for (const account of this.accounts) this.byWallet.set(account.agent.wallet, account);
    this.rawIndex = setup.world.exchange.risk.assetOraclePrices(setup.world.now());
    this.dirtyIndex = true;
  }

  /** Feeds the outputs that carry sampled state (oracle prices, positions, balances); cheap for every other kind. */
  note(output: ExchangeOutput): void {
    if (output === this.lastNoted) return; // two observers sharing the sampler both forward it
    this.lastNoted = output;
    switch (output.kind) {
      case "oraclePrices":
        this.rawIndex = output.prices;
        this.dirtyIndex = true;
        break;
      case "positions": {
        const account = this.byWallet.get(output.wallet);
        if (account === undefined) break;
        account.rawPositions = output.positions;
        account.dirtyPositions = true;
        account.primed = true;
        break;
      }
      case "balances": {
        const account = this.byWallet.get(output.wallet);
        if (account === undefined) break;
        account.rawBalances = output.balances;
        account.dirtyBalances = true;
        account.primed = true;
        break;
      }
      default:
        break;
    }
  }

  /** The snapshot at `atMicros` (taken once per time, whoever asks first). */
  sample(atMicros: Micros): RunSample {
    if (this.last !== undefined && this.last.atMicros === atMicros) return this.last;
    const setup = this.setup;
    if (setup === undefined) throw new Error("RunSampler.sample was called before begin");
    this.last = this.take(setup, atMicros);
    return this.last;
  }

  /** The latest snapshot taken, if any. */
  latest(): RunSample | undefined {
    return this.last;
  }

  private take(setup: RunSetup, atMicros: Micros): RunSample {
    const exchange = setup.world.exchange;
    if (this.dirtyIndex) {
      for (const price of this.rawIndex) this.lastIndex.set(price.asset, Number(price.oraclePrice));
      this.dirtyIndex = false;
    }
    const markets: MarketSample[] = [];
    const state = exchange.risk.state;
    for (const info of this.perps) {
      const market = state.perps.get(info.marketId)!;
      // As the market summary publishes them (risk/summaries.ts), at the sample time.
      let mark = perpPricesFresh(state, market, atMicros) && !market.closed ? scaledNumber(market.mark!, 18) : NaN;
      if (Number.isNaN(mark)) mark = this.lastMark.get(info.symbol) ?? NaN;
      else this.lastMark.set(info.symbol, mark);
      const fresh = isFresh(state, market.oracle, atMicros);
      markets.push({
        symbol: info.symbol,
        kind: "perp",
        indexPrice: this.lastIndex.get(info.indexAsset) ?? NaN,
        oraclePrice: fresh ? scaledNumber(market.oracle!.price, 18) : NaN,
        markPrice: mark,
        fundingRate: scaledNumber(market.funding.rate * 100n, 18),
        openInterest: scaledNumber(market.oiLong, 18),
        longFundingValue: scaledNumber(longValueAt(market.funding, atMicros), 36),
        shortFundingValue: scaledNumber(shortValueAt(market.funding, atMicros), 36),
        ...this.depthOf(exchange, info),
      });
    }
    for (const info of this.spots) {
      const oracle = spotOraclePrice(state, state.spots.get(info.marketId)!, atMicros);
      markets.push({
        symbol: info.symbol,
        kind: "spot",
        indexPrice: this.lastIndex.get(info.baseAsset) ?? NaN,
        oraclePrice: oracle === undefined ? NaN : scaledNumber(oracle, 18),
        markPrice: NaN,
        fundingRate: NaN,
        openInterest: NaN,
        longFundingValue: NaN,
        shortFundingValue: NaN,
        ...this.depthOf(exchange, info),
      });
    }
    const accounts = this.accounts.map((account) => this.account(exchange, account, markets, atMicros));
    return { atMicros, timeMs: Math.floor(atMicros / 1_000), markets, accounts };
  }

  private depthOf(exchange: RunSetup["world"]["exchange"], info: PerpInfo | SpotInfo) {
    const depth = exchange.engine.depth(info.marketId, this.depthLevels);
    const bids = depth.ok ? depth.bids : [];
    const asks = depth.ok ? depth.asks : [];
    const bidPrices = new Float64Array(bids.length);
    const bidQtys = new Float64Array(bids.length);
    const askPrices = new Float64Array(asks.length);
    const askQtys = new Float64Array(asks.length);
    for (let i = 0; i < bids.length; i++) {
      bidPrices[i] = scaled(bids[i]!.priceTicks, info.price);
      bidQtys[i] = scaled(bids[i]!.qtyLots, info.qty);
    }
    for (let i = 0; i < asks.length; i++) {
      askPrices[i] = scaled(asks[i]!.priceTicks, info.price);
      askQtys[i] = scaled(asks[i]!.qtyLots, info.qty);
    }
    return { bestBid: bidPrices[0] ?? NaN, bestAsk: askPrices[0] ?? NaN, bidPrices, bidQtys, askPrices, askQtys };
  }

  private parse(exchange: RunSetup["world"]["exchange"], account: AccountState): void {
    const accountId = account.agent.accountId;
    if (!account.primed && exchange.risk.accountsOf(account.agent.wallet).includes(accountId)) {
      // Opened without a positions or balances output seen yet: read it once.
      account.rawPositions = exchange.risk.positions(accountId);
      account.rawBalances = exchange.risk.balances(accountId);
      account.dirtyPositions = true;
      account.dirtyBalances = true;
      account.primed = true;
    }
    if (account.dirtyPositions) {
      account.positions = new Map();
      for (const view of account.rawPositions) {
        if (view.accountId !== accountId) continue;
        const units = Number(view.qty);
        const long = view.side === "B";
        account.positions.set(view.symbol, { qty: long ? units : -units, units, long, entry: Number(view.avgEntryPrice), entryFunding: Number(view.avgEntryFundingValue) });
      }
      account.dirtyPositions = false;
    }
    if (account.dirtyBalances) {
      account.balances = [];
      for (const view of account.rawBalances) {
        if (view.accountId !== accountId) continue;
        account.balances.push({ asset: view.asset, realBalance: Number(view.realBalance), netDeposits: Number(view.balanceDEPRECATED) });
      }
      account.dirtyBalances = false;
    }
  }

  private account(exchange: RunSetup["world"]["exchange"], account: AccountState, markets: readonly MarketSample[], atMicros: Micros): AccountSample {
    this.parse(exchange, account);
    const positions: PositionSample[] = [];
    let unrealizedPnl = 0;
    let unrealizedFunding = 0;
    for (let i = 0; i < this.perps.length; i++) {
      const info = this.perps[i]!;
      const market = markets[i]!;
      const held = account.positions.get(info.symbol);
      if (held === undefined) {
        positions.push({ symbol: info.symbol, qty: 0, avgEntryPrice: NaN, markPrice: market.markPrice, notional: 0, unrealizedPnl: 0, unrealizedFunding: 0 });
        continue;
      }
      const pnl = held.qty * (market.markPrice - held.entry);
      const value = held.long ? market.longFundingValue : market.shortFundingValue;
      const funding = held.units * (value - held.entryFunding);
      unrealizedPnl += pnl;
      unrealizedFunding += funding;
      positions.push({ symbol: info.symbol, qty: held.qty, avgEntryPrice: held.entry, markPrice: market.markPrice, notional: held.qty * market.markPrice, unrealizedPnl: pnl, unrealizedFunding: funding });
    }
    const balances: BalanceSample[] = [];
    let equity = unrealizedPnl + unrealizedFunding;
    for (const balance of account.balances) {
      const price = balance.asset === this.settlementAsset ? 1 : (this.lastIndex.get(balance.asset) ?? NaN);
      const value = balance.realBalance === 0 ? 0 : balance.realBalance * price;
      equity += value;
      balances.push({ asset: balance.asset, realBalance: balance.realBalance, netDeposits: balance.netDeposits, price, value });
    }
    const margin = account.primed ? exchange.risk.margin(account.agent.accountId, atMicros) : undefined;
    return {
      agent: account.agent,
      positions,
      balances,
      equity,
      unrealizedPnl,
      unrealizedFunding,
      marginBalance: num(margin?.marginBalance),
      initialMargin: num(margin?.initialMargin),
      liquidationMargin: num(margin?.liquidationMargin),
    };
  }
}

function num(text: string | undefined): number {
  return text === undefined ? NaN : Number(text);
}

/** A fixed-point bigint (value x 10^digits) as the nearest double, as Number() of its canonical text. */
function scaledNumber(value: bigint, digits: number): number {
  return Number(formatScaled(value, digits));
}
