/**
 * The run summary: a RunObserver that totals the run per agent, per market
 * and overall, keeps the sampled series the report draws, and formats the
 * result as summary.json and as a plain-text table for the terminal.
 *
 * Per agent (its one account):
 * - trades: settled executions it took part in (either side, every type);
 *   takerTrades, makerTrades split them;
 * - volume: sum of price x qty over those executions, in the settlement
 *   asset (exact decimal string; spot markets quoted in another asset are
 *   converted at the quote's index at the time, and `exact` turns false);
 * - fees: what it paid, exact: as perp taker takerFee - takerRebateCredit,
 *   as maker makerFee when present (negative = rebate), as spot taker
 *   takerFee (quote asset). Referral and pool fee credits it may receive
 *   are not netted;
 * - fundingPaid / fundingReceived: realized funding (takerFundingPnl or
 *   makerFundingPnl of its executions, booked when a position shrinks),
 *   paid as a positive amount, exact; funding still accruing on open
 *   positions is part of unrealizedPnl;
 * - realizedPnl: sum of its takerRealizedPnl / makerRealizedPnl (price
 *   variation + funding realized on perp closes), exact;
 * - penalties: LIQUIDATION_PENALTY and SOCIALIZED_LOSS ledger entries
 *   charged to it (positive = paid), exact;
 * - unrealizedPnl: at the last sample, sum over perp positions of
 *   qty x (mark - entry) + unrealized funding (float, see record/sampler.ts);
 *   unrealizedFunding: that funding alone, accrued on the open positions
 *   and not yet realized (negative = owed), which fundingPaid and
 *   fundingReceived leave out (a long held through a funding squeeze pays
 *   it all there);
 * - equityStart, equityEnd: mark-to-market equity (record/sampler.ts) at
 *   the first and last samples; netPnl = equityEnd - equityStart - flows,
 *   where flows are deposits, withdrawals and transfers during the run
 *   (valued at the asset's index);
 * - otherPnl = netPnl - (realizedPnl - fees - penalties + unrealizedPnl
 *   - unrealizedPnl at the first sample): what the perp identity leaves out,
 *   i.e. spot inventory revaluation and spot trading, referral and pool
 *   fee credits received, plus float rounding. For an agent trading only
 *   perps, holding only the settlement asset and credited no referral fee,
 *   it is ~0 (pending, unsettled matches aside);
 * - maxDrawdown: largest fall of sampled equity (net of flows) from a
 *   previous peak, rUSD, and as a fraction of that peak;
 * - fillRatio: settled filled over ordered quantity of its orders, each
 *   weighted by its limit price (so markets of different units add up as
 *   notional); an order's ordered qty is the largest qty it showed, its
 *   filled qty its last cumQty less the qty of its busted matches (cumQty
 *   counts every match, and a bust never lowers it: spec 3.4); matches
 *   still pending settlement when the run ends count as filled (an
 *   execution may not name its orders, so settled quantity cannot be
 *   followed per order; at most a block's worth); armed stops that never
 *   fired count nothing;
 * - liquidationFills, adlFills, busts: executions of type LIQUIDATION or
 *   ADL it was part of, busted matches it was part of.
 *
 * Per market: trades, volume (quote units, exact), fees (taker fees in the
 * fee asset, exact), liquidations, adl and marketCloses (executions of
 * those types), busts. An ADL close counts as one trade of its market (its
 * volume once), though it is two one-sided executions (adl counts both).
 * Totals add the markets quoted in the settlement asset (volume and fees;
 * a market quoted in another asset counts in the totals' trades only, and
 * the summary is then marked `exact: false`) and carry the run's figures
 * (events, events per second, ...).
 *
 * Cost: per execution a few bigint parses and additions; per order update
 * a Map lookup and up to three Number parses (agents' accounts only),
 * and each agent order that filled stays in a Map for the rest of the run
 * (a bust of its match may come a block later, or after an outage: tens of
 * bytes per order); per bust two Map lookups; other outputs are a switch
 * miss. Per sample, one shared snapshot
 * (record/sampler.ts) and a push per series.
 */
import { writeFileSync } from "node:fs";
import type { Micros } from "../core/time.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import { codeIdentity } from "../record/code-id.ts";
import { RunSampler, type RunSample } from "../record/sampler.ts";
import type { HostedAgent } from "../sim/agent-host.ts";
import type { RunObserver, RunSetup } from "../sim/run.ts";
import type { RunFigures } from "../sim/runner.ts";
import type { Transfer } from "../spec/account.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";
import { e18, e18Optional, formatScaled, SCALE_18, SCALE_36, toNumber } from "./money.ts";
import { FloatSeries, type RunSeries } from "./series.ts";

/** An order update row, as the "order" output carries it. */
type WireOrder = Extract<ExchangeOutput, { kind: "order" }>["row"];

export interface AgentSummary {
  readonly name: string;
  readonly kind: string;
  readonly accountId: number;
  readonly wallet: string;
  readonly trades: number;
  readonly takerTrades: number;
  readonly makerTrades: number;
  readonly volume: string;
  readonly fees: string;
  readonly fundingPaid: string;
  readonly fundingReceived: string;
  readonly realizedPnl: string;
  readonly penalties: string;
  readonly unrealizedPnl: number | null;
  /** The funding part of unrealizedPnl: accrued on open positions at the last sample, not yet realized (negative = owed). */
  readonly unrealizedFunding: number | null;
  readonly equityStart: number | null;
  readonly equityEnd: number | null;
  readonly flows: number;
  readonly netPnl: number | null;
  readonly otherPnl: number | null;
  readonly maxDrawdown: number | null;
  readonly maxDrawdownFraction: number | null;
  readonly orders: number;
  readonly fillRatio: number | null;
  readonly liquidationFills: number;
  readonly adlFills: number;
  readonly busts: number;
  /** The agent's own counters (ctx.count). */
  readonly counts: Readonly<Record<string, number>>;
}

export interface MarketRunSummary {
  readonly symbol: string;
  readonly kind: "perp" | "spot";
  readonly quoteAsset: string;
  readonly trades: number;
  readonly volume: string;
  readonly fees: string;
  readonly liquidations: number;
  readonly adl: number;
  readonly marketCloses: number;
  readonly busts: number;
}

export interface RunTotals {
  readonly trades: number;
  readonly volume: string;
  readonly fees: string;
  readonly liquidations: number;
  readonly adl: number;
  readonly busts: number;
  readonly blocks: number;
  readonly settledMatches: number;
  readonly bustedMatches: number;
}

export interface RunSummary {
  readonly scenario: string;
  readonly description: string;
  readonly seed: number;
  /**
   * The scenario values changed for this run by `--set` (src/sim/overrides.ts),
   * path to value, e.g. { "mm-eth.spreadBps": 5 }; absent when none were.
   * With scenario and seed, what the run is a function of.
   */
  readonly overrides?: Readonly<Record<string, unknown>>;
  readonly signatures: "trusted" | "signed";
  readonly fingerprint: string;
  /**
   * The code that ran (src/record/code-id.ts, "0.1.0+3f2a9c1b7e40"): with
   * scenario and seed, what the fingerprint is a function of. Optional for
   * summaries made by hand; RunSummaryObserver always sets it.
   */
  readonly code?: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly events: number;
  readonly inputs: number;
  readonly outputs: number;
  readonly eventsPerSecond: number;
  readonly speedup: number;
  readonly settlementAsset: string;
  readonly samples: number;
  /** True when every money string is an exact sum (no conversion at an index). */
  readonly exact: boolean;
  readonly agents: readonly AgentSummary[];
  readonly markets: readonly MarketRunSummary[];
  readonly totals: RunTotals;
}

/** Largest fall of a series from a previous peak: absolute, and as a fraction of that peak. NaN points are skipped. */
export function maxDrawdown(values: ArrayLike<number>): { drawdown: number; fraction: number; peakIndex: number; troughIndex: number } {
  let peak = NaN;
  let peakAt = -1;
  let best = { drawdown: 0, fraction: 0, peakIndex: -1, troughIndex: -1 };
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    if (Number.isNaN(peak) || v > peak) {
      peak = v;
      peakAt = i;
      continue;
    }
    const drawdown = peak - v;
    if (drawdown > best.drawdown) best = { drawdown, fraction: peak > 0 ? drawdown / peak : NaN, peakIndex: peakAt, troughIndex: i };
  }
  return best;
}

interface AgentTotals {
  readonly agent: HostedAgent;
  trades: number;
  takerTrades: number;
  makerTrades: number;
  volume: bigint;
  volumeConverted: number;
  fees: bigint;
  feesConverted: number;
  fundingPaid: bigint;
  fundingReceived: bigint;
  realized: bigint;
  penalties: bigint;
  /** Deposits, withdrawals, transfers during the run, valued at the index (rUSD). */
  flows: number;
  /** Cumulative flows at each sample, for the drawdown net of flows. */
  readonly flowsAt: FloatSeries;
  readonly equity: FloatSeries;
  readonly positions: Map<string, FloatSeries>;
  unrealizedStart: number;
  orders: number;
  orderedNotional: number;
  filledNotional: number;
  liquidationFills: number;
  adlFills: number;
  busts: number;
}

interface MarketTotals {
  readonly symbol: string;
  readonly kind: "perp" | "spot";
  readonly quoteAsset: string;
  trades: number;
  volume: bigint;
  fees: bigint;
  liquidations: number;
  adl: number;
  marketCloses: number;
  busts: number;
  readonly series: Map<string, FloatSeries>;
}

/** An order being followed for the fill ratio, until it is filled or cancelled (and after, while a match of it may still bust). */
interface TrackedOrder {
  readonly agent: AgentTotals;
  qty: number;
  cum: number;
  price: number;
  /** Qty of its matches that busted (cumQty still counts them). */
  busted: number;
}

/** An order's ordered and settled filled notional, for the fill ratio. */
function orderedNotional(tracked: TrackedOrder): number {
  return tracked.qty * (tracked.price > 0 ? tracked.price : 1);
}

function filledNotional(tracked: TrackedOrder): number {
  const settled = Math.min(tracked.cum, tracked.qty) - tracked.busted;
  return settled > 0 ? settled * (tracked.price > 0 ? tracked.price : 1) : 0;
}

const MARKET_SERIES = ["index", "oracle", "mark", "fundingRate", "openInterest", "bestBid", "bestAsk", "bidDepth", "askDepth"] as const;

export interface RunSummaryOptions {
  /** A sampler shared with the recorder, so each sample is read once. */
  readonly sampler?: RunSampler;
  /** The code identity the summary names (`code`); default: this process's (src/record/code-id.ts). */
  readonly code?: string;
  /** The run's `--set` overrides, recorded as `overrides` (omitted when empty or absent). */
  readonly overrides?: Readonly<Record<string, unknown>>;
}

export class RunSummaryObserver implements RunObserver {
  readonly sampler: RunSampler;
  private setup: RunSetup | undefined;
  private readonly agents: AgentTotals[] = [];
  private readonly byAccount = new Map<number, AgentTotals>();
  private readonly markets = new Map<string, MarketTotals>();
  private readonly open = new Map<string, TrackedOrder>();
  /** Folded orders with fills: a bust of one of their matches can still come (a block later, or after an outage). */
  private readonly closedWithFills = new Map<string, TrackedOrder>();
  private readonly times = new FloatSeries();
  private readonly lastPrice = new Map<string, number>();
  private settlementAsset = "rUSD";
  private lastSampleMicros = -1;
  private blocks = 0;
  private settledMatches = 0;
  private bustedMatches = 0;
  private exact = true;

  /** The code identity the summary names: the one given, else this process's, taken when the run begins (not after it). */
  private code: string | undefined;
  private readonly overrides: Readonly<Record<string, unknown>> | undefined;

  constructor(options: RunSummaryOptions = {}) {
    this.sampler = options.sampler ?? new RunSampler();
    this.code = options.code;
    this.overrides = options.overrides === undefined || Object.keys(options.overrides).length === 0 ? undefined : options.overrides;
  }

  begin(setup: RunSetup): void {
    this.code ??= codeIdentity();
    this.setup = setup;
    this.sampler.begin(setup);
    const risk = setup.config.risk;
    this.settlementAsset = risk.settlementAsset;
    for (const agent of setup.agents) {
      const totals: AgentTotals = {
        agent,
        trades: 0,
        takerTrades: 0,
        makerTrades: 0,
        volume: 0n,
        volumeConverted: 0,
        fees: 0n,
        feesConverted: 0,
        fundingPaid: 0n,
        fundingReceived: 0n,
        realized: 0n,
        penalties: 0n,
        flows: 0,
        flowsAt: new FloatSeries(),
        equity: new FloatSeries(),
        positions: new Map(risk.perpMarkets.map((m) => [m.symbol, new FloatSeries()])),
        unrealizedStart: NaN,
        orders: 0,
        orderedNotional: 0,
        filledNotional: 0,
        liquidationFills: 0,
        adlFills: 0,
        busts: 0,
      };
      this.agents.push(totals);
      this.byAccount.set(agent.accountId, totals);
    }
    const market = (symbol: string, kind: "perp" | "spot", quoteAsset: string): MarketTotals => ({
      symbol,
      kind,
      quoteAsset,
      trades: 0,
      volume: 0n,
      fees: 0n,
      liquidations: 0,
      adl: 0,
      marketCloses: 0,
      busts: 0,
      series: new Map(MARKET_SERIES.map((name) => [name, new FloatSeries()])),
    });
    for (const m of risk.perpMarkets) this.markets.set(m.symbol, market(m.symbol, "perp", risk.settlementAsset));
    for (const m of risk.spotMarkets) this.markets.set(m.symbol, market(m.symbol, "spot", m.quoteAsset));
  }

  output(output: ExchangeOutput, _atMicros: Micros): void {
    this.sampler.note(output);
    switch (output.kind) {
      case "perpExecution":
        this.perpExecution(output.record);
        break;
      case "spotExecution":
        this.spotExecution(output.record);
        break;
      case "bust":
        this.bust(output.record);
        break;
      case "order":
        this.order(output.row);
        break;
      case "transfer":
        this.transfer(output.entry);
        break;
      case "block":
        this.blocks++;
        this.settledMatches += output.settled;
        this.bustedMatches += output.busted;
        break;
      default:
        break;
    }
  }

  sample(atMicros: Micros): void {
    if (atMicros === this.lastSampleMicros) return;
    this.lastSampleMicros = atMicros;
    this.takeSample(this.sampler.sample(atMicros));
  }

  private takeSample(snapshot: RunSample): void {
    this.times.push(snapshot.timeMs);
    for (const market of snapshot.markets) {
      if (!Number.isNaN(market.indexPrice)) this.lastPrice.set(market.symbol, market.indexPrice);
      const series = this.markets.get(market.symbol)?.series;
      if (series === undefined) continue;
      let bidDepth = 0;
      let askDepth = 0;
      for (const qty of market.bidQtys) bidDepth += qty;
      for (const qty of market.askQtys) askDepth += qty;
      series.get("index")!.push(market.indexPrice);
      series.get("oracle")!.push(market.oraclePrice);
      series.get("mark")!.push(market.markPrice);
      series.get("fundingRate")!.push(market.fundingRate);
      series.get("openInterest")!.push(market.openInterest);
      series.get("bestBid")!.push(market.bestBid);
      series.get("bestAsk")!.push(market.bestAsk);
      series.get("bidDepth")!.push(bidDepth);
      series.get("askDepth")!.push(askDepth);
    }
    for (const account of snapshot.accounts) {
      const totals = this.byAccount.get(account.agent.accountId);
      if (totals === undefined) continue;
      if (totals.equity.length === 0) {
        totals.unrealizedStart = account.unrealizedPnl + account.unrealizedFunding;
        totals.flows = 0; // flows count from the first sample on
      }
      totals.equity.push(account.equity);
      totals.flowsAt.push(totals.flows);
      for (const position of account.positions) totals.positions.get(position.symbol)?.push(position.qty);
    }
  }

  private perpExecution(record: PerpExecution): void {
    const market = this.markets.get(record.symbol);
    const notional = e18(record.price) * e18(record.qty);
    const takerFee = e18(record.takerFee);
    if (market !== undefined) {
      // An ADL close is two one-sided executions (risk/adl.ts: the liquidated leg, then its counterparty's): one trade of the market.
      const secondAdlLeg = record.type === "ADL" && market.adl % 2 === 1;
      if (!secondAdlLeg) {
        market.trades++;
        market.volume += notional;
      }
      market.fees += takerFee;
      if (record.type === "LIQUIDATION") market.liquidations++;
      else if (record.type === "ADL") market.adl++;
      else if (record.type === "MARKET_CLOSE") market.marketCloses++;
    }
    const taker = this.byAccount.get(record.takerAccountId);
    if (taker !== undefined) {
      this.trade(taker, record.type, true, notional, 0);
      taker.fees += takerFee - e18Optional(record.takerRebateCredit);
      this.realize(taker, record.takerRealizedPnl, record.takerFundingPnl);
    }
    const maker = record.makerAccountId === undefined ? undefined : this.byAccount.get(record.makerAccountId);
    if (maker !== undefined) {
      this.trade(maker, record.type, false, notional, 0);
      maker.fees += e18Optional(record.makerFee);
      this.realize(maker, record.makerRealizedPnl, record.makerFundingPnl);
    }
  }

  private spotExecution(record: SpotExecution): void {
    const market = this.markets.get(record.symbol);
    const notional = e18(record.price) * e18(record.qty);
    const fee = e18(record.takerFee);
    let rate = 1;
    if (market !== undefined) {
      market.trades++;
      market.volume += notional;
      market.fees += fee;
      if (record.type === "LIQUIDATION") market.liquidations++;
      if (market.quoteAsset !== this.settlementAsset) rate = this.indexOf(market.quoteAsset);
    }
    const converted = rate !== 1;
    if (converted) this.exact = false;
    const taker = this.byAccount.get(record.takerAccountId);
    if (taker !== undefined) {
      this.trade(taker, record.type, true, converted ? 0n : notional, converted ? toNumber(notional, SCALE_36) * rate : 0);
      if (converted) taker.feesConverted += toNumber(fee, SCALE_18) * rate;
      else taker.fees += fee;
    }
    const maker = this.byAccount.get(record.makerAccountId);
    if (maker !== undefined) this.trade(maker, record.type, false, converted ? 0n : notional, converted ? toNumber(notional, SCALE_36) * rate : 0);
  }

  private trade(totals: AgentTotals, type: string, isTaker: boolean, notional: bigint, converted: number): void {
    totals.trades++;
    if (isTaker) totals.takerTrades++;
    else totals.makerTrades++;
    totals.volume += notional;
    totals.volumeConverted += converted;
    if (type === "LIQUIDATION") totals.liquidationFills++;
    else if (type === "ADL") totals.adlFills++;
  }

  private realize(totals: AgentTotals, realized: string | undefined, funding: string | undefined): void {
    if (realized !== undefined) totals.realized += e18(realized);
    if (funding !== undefined) {
      const amount = e18(funding);
      if (amount < 0n) totals.fundingPaid -= amount;
      else totals.fundingReceived += amount;
    }
  }

  private bust(record: ExecutionBust): void {
    const market = this.markets.get(record.symbol);
    if (market !== undefined) market.busts++;
    const taker = this.byAccount.get(record.takerAccountId);
    if (taker !== undefined) taker.busts++;
    const maker = this.byAccount.get(record.makerAccountId);
    if (maker !== undefined && maker !== taker) maker.busts++;
    const qty = Number(record.qty);
    this.bustOrder(record.takerOrderId, qty);
    this.bustOrder(record.makerOrderId, qty);
  }

  /** A match of an agent's order busted: its qty no longer counts as filled. */
  private bustOrder(orderId: string, qty: number): void {
    const open = this.open.get(orderId);
    if (open !== undefined) {
      open.busted += qty;
      return;
    }
    const closed = this.closedWithFills.get(orderId);
    if (closed === undefined) return;
    const before = filledNotional(closed);
    closed.busted += qty;
    closed.agent.filledNotional += filledNotional(closed) - before;
  }

  private order(row: WireOrder): void {
    const totals = this.byAccount.get(row.accountId);
    if (totals === undefined) return;
    let tracked = this.open.get(row.orderId);
    if (tracked === undefined) {
      tracked = { agent: totals, qty: 0, cum: 0, price: Number(row.limitPx), busted: 0 };
      totals.orders++;
      this.open.set(row.orderId, tracked);
    }
    if (row.qty !== undefined) {
      const qty = Number(row.qty);
      if (qty > tracked.qty) tracked.qty = qty;
    }
    if (row.cumQty !== undefined) tracked.cum = Number(row.cumQty);
    if (row.status !== "OPEN") {
      tracked.agent.orderedNotional += orderedNotional(tracked);
      tracked.agent.filledNotional += filledNotional(tracked);
      this.open.delete(row.orderId);
      if (tracked.cum > 0) this.closedWithFills.set(row.orderId, tracked);
    }
  }

  private transfer(entry: Transfer): void {
    const totals = this.byAccount.get(entry.accountId);
    if (totals === undefined) return;
    switch (entry.type) {
      case "LIQUIDATION_PENALTY":
      case "SOCIALIZED_LOSS":
        // Charged in the settlement asset; any other asset would show in otherPnl.
        if (entry.asset === this.settlementAsset) totals.penalties -= e18(entry.amount);
        break;
      case "DEPOSIT":
      case "WITHDRAWAL":
      case "TRANSFER_IN":
      case "TRANSFER_OUT":
        totals.flows += Number(entry.amount) * (entry.asset === this.settlementAsset ? 1 : this.indexOf(entry.asset));
        break;
      default:
        break;
    }
  }

  /** The index of an asset at the latest sample (via a market that has it as index or base asset). */
  private indexOf(asset: string): number {
    const risk = this.setup?.config.risk;
    const perp = risk?.perpMarkets.find((m) => m.indexAsset === asset);
    const spot = risk?.spotMarkets.find((m) => m.baseAsset === asset);
    const symbol = perp?.symbol ?? spot?.symbol;
    return symbol === undefined ? NaN : (this.lastPrice.get(symbol) ?? NaN);
  }

  /** Takes a last sample at the world's time when the run ended after the last scheduled sample. */
  finalSample(): void {
    const setup = this.setup;
    if (setup === undefined) return;
    const now = setup.world.now();
    if (now > this.lastSampleMicros) this.sample(now);
  }

  /** The summary, given the run's figures (call after the run; takes a final sample if one is due). */
  summarize(figures: RunFigures): RunSummary {
    const setup = this.setup;
    if (setup === undefined) throw new Error("RunSummaryObserver.summarize was called before begin");
    this.finalSample();
    const agents = this.agents.map((totals) => this.agentSummary(totals));
    const markets = [...this.markets.values()].map(
      (m): MarketRunSummary => ({
        symbol: m.symbol,
        kind: m.kind,
        quoteAsset: m.quoteAsset,
        trades: m.trades,
        volume: formatScaled(m.volume, SCALE_36),
        fees: formatScaled(m.fees, SCALE_18),
        liquidations: m.liquidations,
        adl: m.adl,
        marketCloses: m.marketCloses,
        busts: m.busts,
      }),
    );
    let volume = 0n;
    let fees = 0n;
    for (const m of this.markets.values()) {
      if (m.quoteAsset !== this.settlementAsset) continue;
      volume += m.volume;
      fees += m.fees;
    }
    const settledMarkets = [...this.markets.values()].filter((m) => m.quoteAsset === this.settlementAsset);
    if (settledMarkets.length !== this.markets.size) this.exact = false;
    const sum = (pick: (m: MarketRunSummary) => number) => markets.reduce((total, m) => total + pick(m), 0);
    return {
      scenario: figures.scenario,
      description: setup.scenario.description,
      seed: figures.seed,
      ...(this.overrides === undefined ? {} : { overrides: this.overrides }),
      signatures: figures.signatures,
      fingerprint: figures.fingerprint,
      code: this.code ?? codeIdentity(),
      startMs: Math.floor(setup.startMicros / 1_000),
      endMs: Math.floor(setup.endMicros / 1_000),
      simulatedSeconds: figures.simulatedSeconds,
      wallSeconds: figures.wallSeconds,
      events: figures.events,
      inputs: figures.inputs,
      outputs: figures.outputs,
      eventsPerSecond: figures.eventsPerSecond,
      speedup: figures.speedup,
      settlementAsset: this.settlementAsset,
      samples: this.times.length,
      exact: this.exact,
      agents,
      markets,
      totals: {
        trades: sum((m) => m.trades),
        volume: formatScaled(volume, SCALE_36),
        fees: formatScaled(fees, SCALE_18),
        liquidations: sum((m) => m.liquidations),
        adl: sum((m) => m.adl),
        busts: sum((m) => m.busts),
        blocks: this.blocks,
        settledMatches: this.settledMatches,
        bustedMatches: this.bustedMatches,
      },
    };
  }

  private agentSummary(totals: AgentTotals): AgentSummary {
    const equity = totals.equity.toArray();
    const adjusted = netOfFlows(totals);
    const drawdown = maxDrawdown(adjusted);
    const equityStart = equity.length === 0 ? NaN : equity[0]!;
    const equityEnd = equity.length === 0 ? NaN : equity[equity.length - 1]!;
    const last = this.sampler.latest()?.accounts.find((a) => a.agent.accountId === totals.agent.accountId);
    const unrealized = last === undefined ? NaN : last.unrealizedPnl + last.unrealizedFunding;
    const netPnl = equityEnd - equityStart - totals.flows;
    const fees = toNumber(totals.fees, SCALE_18) + totals.feesConverted;
    const identity = toNumber(totals.realized, SCALE_18) - fees - toNumber(totals.penalties, SCALE_18) + unrealized - totals.unrealizedStart;
    let ordered = totals.orderedNotional;
    let filled = totals.filledNotional;
    for (const tracked of this.open.values()) {
      if (tracked.agent !== totals) continue;
      ordered += orderedNotional(tracked);
      filled += filledNotional(tracked);
    }
    const agent = totals.agent;
    return {
      name: agent.name,
      kind: agent.kind,
      accountId: agent.accountId,
      wallet: agent.wallet,
      trades: totals.trades,
      takerTrades: totals.takerTrades,
      makerTrades: totals.makerTrades,
      volume: totals.volumeConverted === 0 ? formatScaled(totals.volume, SCALE_36) : String(toNumber(totals.volume, SCALE_36) + totals.volumeConverted),
      fees: totals.feesConverted === 0 ? formatScaled(totals.fees, SCALE_18) : String(fees),
      fundingPaid: formatScaled(totals.fundingPaid, SCALE_18),
      fundingReceived: formatScaled(totals.fundingReceived, SCALE_18),
      realizedPnl: formatScaled(totals.realized, SCALE_18),
      penalties: formatScaled(totals.penalties, SCALE_18),
      unrealizedPnl: finite(unrealized),
      unrealizedFunding: last === undefined ? null : finite(last.unrealizedFunding),
      equityStart: finite(equityStart),
      equityEnd: finite(equityEnd),
      flows: totals.flows,
      netPnl: finite(netPnl),
      otherPnl: finite(netPnl - identity),
      maxDrawdown: equity.length === 0 ? null : drawdown.drawdown,
      maxDrawdownFraction: equity.length === 0 ? null : finite(drawdown.fraction),
      orders: totals.orders,
      fillRatio: ordered > 0 ? filled / ordered : null,
      liquidationFills: totals.liquidationFills,
      adlFills: totals.adlFills,
      busts: totals.busts,
      counts: Object.fromEntries([...agent.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    };
  }

  /** The sampled series for the report's charts. */
  series(): RunSeries {
    const setup = this.setup;
    return {
      startMs: setup === undefined ? 0 : Math.floor(setup.startMicros / 1_000),
      timesMs: this.times.toArray(),
      equity: new Map(this.agents.map((a) => [a.agent.name, netOfFlows(a)])),
      positions: new Map(this.agents.map((a) => [a.agent.name, new Map([...a.positions].map(([symbol, s]) => [symbol, s.toArray()]))])),
      markets: new Map([...this.markets.values()].map((m) => [m.symbol, new Map([...m.series].map(([name, s]) => [name, s.toArray()]))])),
    };
  }
}

/** An agent's sampled equity less its flows up to each sample (what its max drawdown and the report's equity chart read). */
function netOfFlows(totals: AgentTotals): Float64Array {
  const equity = totals.equity.toArray();
  const flowsAt = totals.flowsAt.toArray();
  return equity.map((value, i) => value - flowsAt[i]!);
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** summary.json text: the summary, two-space indented. */
export function summaryJson(summary: RunSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

export function writeSummaryJson(path: string, summary: RunSummary): void {
  writeFileSync(path, summaryJson(summary));
}

// -- plain-text table ---------------------------------------------------------------------

/** Aligns rows of cells into columns: text left, numbers right. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d,.]+%?$|^-$/.test(r[i] ?? "-")));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** A number for the table: grouped thousands, fixed decimals, "-" for none. */
export function formatNumber(value: number | string | null, decimals = 2): string {
  if (value === null) return "-";
  const n = typeof value === "string" ? Number(value) : value;
  if (!Number.isFinite(n)) return "-";
  const fixed = Math.abs(n).toFixed(decimals);
  const [whole, fraction] = fixed.split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const sign = n < 0 && Number(fixed) !== 0 ? "-" : "";
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`;
}

function percent(value: number | null): string {
  return value === null ? "-" : `${(value * 100).toFixed(1)}%`;
}

export const AGENT_COLUMNS = ["agent", "kind", "trades", "volume", "fees", "funding paid", "funding recv", "realized PnL", "unrealized PnL", "net PnL", "max DD", "fill ratio"];

export function agentRows(summary: RunSummary): string[][] {
  return summary.agents.map((a) => [
    a.name,
    a.kind,
    formatNumber(a.trades, 0),
    formatNumber(a.volume),
    formatNumber(a.fees),
    formatNumber(a.fundingPaid),
    formatNumber(a.fundingReceived),
    formatNumber(a.realizedPnl),
    formatNumber(a.unrealizedPnl),
    formatNumber(a.netPnl),
    formatNumber(a.maxDrawdown),
    percent(a.fillRatio),
  ]);
}

export const MARKET_COLUMNS = ["market", "kind", "trades", "volume", "fees", "liquidations", "ADL", "busts"];

export function marketRows(summary: RunSummary): string[][] {
  return summary.markets.map((m) => [
    m.symbol,
    m.kind,
    formatNumber(m.trades, 0),
    formatNumber(m.volume),
    formatNumber(m.fees),
    formatNumber(m.liquidations, 0),
    formatNumber(m.adl, 0),
    formatNumber(m.busts, 0),
  ]);
}

/** Simulated seconds as the run line shows them: whole seconds grouped (3,600), a fraction to the microsecond without trailing zeros (0.5). */
function formatSimulatedSeconds(seconds: number): string {
  return formatNumber(seconds, 6).replace(/\.?0+$/, "");
}

/** The terminal summary: run line, agents table, markets table, totals, fingerprint. No colours. */
export function formatSummaryTable(summary: RunSummary): string {
  const t = summary.totals;
  const head = [
    `scenario ${summary.scenario}  seed ${summary.seed}  signatures ${summary.signatures}  simulated ${formatSimulatedSeconds(summary.simulatedSeconds)} s in ${summary.wallSeconds.toFixed(2)} s wall (x${formatNumber(summary.speedup, summary.speedup < 10 ? 2 : 0)})`,
    `events ${formatNumber(summary.events, 0)} (${formatNumber(summary.eventsPerSecond, 0)}/s)  inputs ${formatNumber(summary.inputs, 0)}  outputs ${formatNumber(summary.outputs, 0)}  samples ${formatNumber(summary.samples, 0)}`,
  ];
  const totals = `totals: trades ${formatNumber(t.trades, 0)}  volume ${formatNumber(t.volume)} ${summary.settlementAsset}  fees ${formatNumber(t.fees)}  liquidations ${t.liquidations}  ADL ${t.adl}  busts ${t.busts}  blocks ${formatNumber(t.blocks, 0)}`;
  return [
    ...head,
    "",
    formatTable(AGENT_COLUMNS, agentRows(summary)),
    "",
    formatTable(MARKET_COLUMNS, marketRows(summary)),
    "",
    totals,
    `fingerprint ${summary.fingerprint}`,
  ].join("\n");
}
