/**
 * Scenarios: everything one simulated run needs, as typed data.
 *
 * A scenario file (`scenarios/*.ts`) default-exports `defineScenario({...})`:
 *
 * - markets and assets (the risk layer's definitions, marketIds included;
 *   default: the built-in set of the live server), fee tiers among them;
 * - price feeds: per asset, a seeded geometric Brownian motion with jumps,
 *   or a path file from data/; perps follow their index asset with a small
 *   seeded basis on their exchange-mark oracle;
 * - agents: each a program from agents/ with its parameters, its account
 *   (deposits, rate tier, fee tier) and its latency models;
 * - settlement (block interval, settlement latency, bust probability) and
 *   a timeline of faults and admin actions at given seconds;
 * - duration, start time, seed, and the signature mode;
 * - for fuzzing, `fuzz`: how a seed draws the free parameters (swarm
 *   testing), applied over the scenario.
 *
 * Signature mode: "trusted" (the default of the shipped scenarios: the
 * gateway skips only the signature check, and clients attach a fixed dummy
 * signature instead of signing) or "signed" (agents sign with their keys and
 * the gateway verifies every signature, as live).
 */
import type { RiskConfigInput } from "../risk/config.ts";
import type { ChainConfig } from "../settlement/chain.ts";
import type { EngineConfig } from "../engine/types.ts";
import type { GatewayConfig } from "../exchange/config.ts";
import type { AdminAction, FaultAction } from "../exchange/inputs.ts";
import type { Rng } from "../core/rng.ts";
import type { AgentDefinition } from "./agent.ts";
import type { AgentLatency } from "./latency.ts";

export type SignatureMode = "trusted" | "signed";

/** A seeded geometric Brownian motion with Poisson jumps, stepped every `stepMs`. */
export interface GbmFeed {
  readonly asset: string;
  readonly model: "gbm";
  /** Starting price. */
  readonly start: number;
  /** Volatility per sqrt(hour), e.g. 0.01 = 1 % per hour. */
  readonly hourlyVolatility: number;
  /** Drift per hour (log return), default 0. */
  readonly hourlyDrift?: number;
  /** Jumps: Poisson arrivals per hour, each a normal log return (mean, sd). Default none. */
  readonly jumps?: { readonly perHour: number; readonly mean: number; readonly sd: number };
  /** Time between steps, default 1000 ms. */
  readonly stepMs?: number;
  /** Decimal places published (default: 2). */
  readonly decimals?: number;
}

/** A recorded or hand-made path: `data/<file>` as CSV lines `offsetMs,price` (first line may be a header). */
export interface PathFeed {
  readonly asset: string;
  readonly model: "path";
  readonly file: string;
  readonly decimals?: number;
}

export type PriceFeed = GbmFeed | PathFeed;

export interface AgentAccount {
  /** Deposits by asset at the start, decimal strings. Default { rUSD: "100000" }. */
  readonly deposits?: Readonly<Record<string, string>>;
  /** Rate-limit tier 1..3 (spec 8.2); agents that trade at volume run as tier 3. Default 1. */
  readonly rateTier?: 1 | 2 | 3;
  /** Fee tier id (a VIP tier from the fee tiers), default: none (volume-based). */
  readonly feeTierId?: number;
}

export interface ScenarioAgent {
  /** Unique in the scenario; names the agent's RNG stream, key and summary line. */
  readonly name: string;
  // The program's parameter type is erased here: each entry pairs a program with its own params.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly agent: AgentDefinition<any>;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly account?: AgentAccount;
  readonly latency?: Partial<AgentLatency>;
}

/** One entry of the timeline: an admin action or a fault at a second of the run. */
export type TimelineEntry =
  | { readonly atSeconds: number; readonly admin: AdminAction }
  | { readonly atSeconds: number; readonly fault: FaultAction };

export interface SettlementSettings {
  readonly blockIntervalMs?: number;
  readonly blockJitterMs?: number;
  readonly settlementLatencyMinMs?: number;
  readonly settlementLatencyMaxMs?: number;
  /** Probability that a valid match is busted anyway (0.005 = 0.5 %). */
  readonly bustProbability?: number;
}

/** Parameter values a fuzz seed drew, shown with a failing seed. */
export type FuzzParameters = Readonly<Record<string, number | string | boolean>>;

export interface FuzzSettings {
  /** Draws the free parameters of one seed. */
  draw(rng: Rng): FuzzParameters;
  /** The scenario with those parameters applied. */
  apply(scenario: Scenario, parameters: FuzzParameters): Scenario;
}

/**
 * How a replay backtest splits a level's decrease that no trade explains
 * (a cancel) between the queue ahead of an own order and behind it: as
 * hftbacktest's PowerProbQueueFunc (f(x) = x^n) and LogProbQueueFunc
 * (f(x) = ln(1 + x)), the share ahead being f(ahead) / (f(ahead) + f(behind)),
 * or a function of the lots ahead and behind giving the probability that
 * the cancel was ahead.
 */
export type QueueSplit =
  | { readonly fn: "power"; readonly n: number }
  | { readonly fn: "log" }
  | { readonly fn: "custom"; readonly probabilityAhead: (aheadLots: number, behindLots: number) => number };

/** The queue-position model of a replay backtest (src/backtest/queue.ts). */
export type QueueSettings = { readonly model: "riskAverse" } | { readonly model: "probabilistic"; readonly split: QueueSplit };

/** A replay strategy program (src/backtest/strategy.ts, defineReplayStrategy); its type is erased here. */
export interface ReplayStrategyRef {
  readonly kind: "replay-strategy";
  readonly name: string;
}

/**
 * A recorded market instead of simulated agents: `shadowbook run` replays
 * the recording's depth and executions (src/backtest) and runs one
 * strategy against it, its orders waiting in the replayed queues.
 */
export interface MarketDataSettings {
  /** An md-recording/1 file: a path relative to data/, or absolute. */
  readonly recording: string;
  /** Symbols to replay (default: every market the recording holds depth or executions of). */
  readonly markets?: readonly string[];
  /** Default: riskAverse. */
  readonly queue?: QueueSettings;
  /** Own taker fills remove the liquidity they took until the next snapshot (default false: the replayed book follows the recording). */
  readonly impact?: boolean;
  /** Where a trade moves the queues: at its match time (default) or when its execution frame was received. */
  readonly tradeTiming?: "match" | "publication";
  readonly strategy: ReplayStrategyRef;
  readonly params?: Readonly<Record<string, unknown>>;
  /** The strategy's latencies (default: DEFAULT_AGENT_LATENCY). */
  readonly latency?: Partial<AgentLatency>;
  /** Fee rates on notional, decimal strings, negative for a rebate (default: maker "0", taker "0.0004", fee tier 1). */
  readonly fees?: { readonly makerRate: string; readonly takerRate: string };
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly seed: number;
  readonly durationSeconds: number;
  /** Start of the virtual clock, Unix ms. Default 2026-01-01T00:00:00Z. */
  readonly startMs?: number;
  readonly markets?: RiskConfigInput;
  readonly prices: readonly PriceFeed[];
  /** Std-dev of each perp's exchange-mark oracle around its index (a fraction), default 0.0002. */
  readonly oracleBasisSd?: number;
  /**
   * Mean of that basis (a fraction, default 0): a perp whose mark oracle
   * sits above its index pays funding from longs to shorts (rate =
   * (mark - index) / index per hour, capped by the market's fundingRateCap).
   */
  readonly oracleBasisMean?: number;
  readonly agents: readonly ScenarioAgent[];
  readonly settlement?: SettlementSettings;
  readonly timeline?: readonly TimelineEntry[];
  readonly signatures?: SignatureMode;
  readonly engine?: Partial<EngineConfig>;
  readonly chain?: Partial<ChainConfig>;
  readonly gateway?: Partial<Omit<GatewayConfig, "verifySignatures">>;
  readonly fuzz?: FuzzSettings;
  /** A recorded market instead of simulated agents (then `agents` and `prices` are empty). */
  readonly marketData?: MarketDataSettings;
}

export const DEFAULT_START_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z

export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
}

/** Declares a scenario; checks what can be checked without running it. */
export function defineScenario(scenario: Scenario): Scenario {
  checkScenario(scenario);
  return Object.freeze(scenario);
}

/**
 * The longest run: 100 years of virtual time. Virtual time is an integer
 * count of microseconds, so a run must end below 2^53 µs (year 2255); with
 * this bound and MAX_START_MS, every run does. (A run asked for 1e20 s
 * used to overflow and never end.)
 */
export const MAX_RUN_SECONDS = 100 * 365 * 86_400;

/** The latest start (Unix ms, in 2155) from which the longest run still ends at a safe integer of microseconds. */
export const MAX_START_MS = Math.floor((Number.MAX_SAFE_INTEGER - MAX_RUN_SECONDS * 1_000_000) / 1_000);

/** Why `seconds` cannot be a run's duration, or null: positive, finite, at most MAX_RUN_SECONDS. */
export function durationProblem(seconds: number): string | null {
  if (typeof seconds !== "number" || !(seconds > 0) || !Number.isFinite(seconds)) return "must be a positive number of seconds";
  if (seconds > MAX_RUN_SECONDS) return `must be at most ${MAX_RUN_SECONDS} seconds (100 years of virtual time)`;
  return null;
}

/** Throws a ScenarioError naming the field and the rule. */
export function checkScenario(scenario: Scenario): void {
  const fail = (message: string): never => {
    throw new ScenarioError(`scenario "${scenario.name}": ${message}`);
  };
  if (typeof scenario.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(scenario.name)) fail(`name must be lowercase letters, digits and dashes`);
  if (!Number.isSafeInteger(scenario.seed) || scenario.seed < 0) fail(`seed "${scenario.seed}" must be a non-negative integer`);
  const duration = durationProblem(scenario.durationSeconds);
  if (duration !== null) fail(`durationSeconds "${scenario.durationSeconds}" ${duration}`);
  if (scenario.startMs !== undefined && (!Number.isSafeInteger(scenario.startMs) || scenario.startMs < 0 || scenario.startMs > MAX_START_MS)) {
    fail(`startMs "${scenario.startMs}" must be an integer of Unix ms within [0, ${MAX_START_MS}]`);
  }
  const names = new Set<string>();
  scenario.agents.forEach((agent, index) => {
    if (typeof agent.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(agent.name)) fail(`agents[${index}].name "${agent.name}" must be letters, digits and _.:-`);
    if (names.has(agent.name)) fail(`agents[${index}].name "${agent.name}" is used twice`);
    names.add(agent.name);
    const tier = agent.account?.rateTier;
    if (tier !== undefined && ![1, 2, 3].includes(tier)) fail(`agents[${index}].account.rateTier "${tier}" must be 1, 2 or 3`);
  });
  const assets = new Set<string>();
  scenario.prices.forEach((feed, index) => {
    if (assets.has(feed.asset)) fail(`prices[${index}].asset "${feed.asset}" has two feeds`);
    assets.add(feed.asset);
    if (feed.model === "gbm") {
      if (!(feed.start > 0)) fail(`prices[${index}].start "${feed.start}" must be greater than 0`);
      if (!(feed.hourlyVolatility >= 0)) fail(`prices[${index}].hourlyVolatility "${feed.hourlyVolatility}" must be >= 0`);
      if (feed.stepMs !== undefined && !(Number.isSafeInteger(feed.stepMs) && feed.stepMs > 0)) fail(`prices[${index}].stepMs "${feed.stepMs}" must be a positive integer`);
    }
  });
  const bust = scenario.settlement?.bustProbability;
  if (bust !== undefined && !(bust >= 0 && bust <= 1)) fail(`settlement.bustProbability "${bust}" must be between 0 and 1`);
  scenario.timeline?.forEach((entry, index) => {
    if (!(entry.atSeconds >= 0)) fail(`timeline[${index}].atSeconds "${entry.atSeconds}" must be >= 0`);
  });
  if (scenario.marketData !== undefined) checkMarketData(scenario, fail);
}

const RATE_PATTERN = /^-?\d+(\.\d+)?$/;

function checkMarketData(scenario: Scenario, fail: (message: string) => never): void {
  const data = scenario.marketData!;
  if (typeof data.recording !== "string" || data.recording.length === 0) fail(`marketData.recording must name a recording file`);
  if (scenario.agents.length > 0) fail(`marketData and agents exclude each other: agents must be empty when the market is a recording`);
  if (scenario.prices.length > 0) fail(`marketData and prices exclude each other: prices must be empty when the market is a recording`);
  data.markets?.forEach((symbol, index) => {
    if (typeof symbol !== "string" || !/^[A-Za-z0-9]+$/.test(symbol)) fail(`marketData.markets[${index}] "${symbol}" must be a symbol (letters and digits)`);
    if (data.markets!.indexOf(symbol) !== index) fail(`marketData.markets[${index}] "${symbol}" is listed twice`);
  });
  const queue = data.queue;
  if (queue !== undefined) {
    if (queue.model !== "riskAverse" && queue.model !== "probabilistic") fail(`marketData.queue.model "${(queue as { model: unknown }).model}" must be riskAverse or probabilistic`);
    if (queue.model === "probabilistic") {
      const split = queue.split as { fn?: unknown; n?: unknown; probabilityAhead?: unknown } | undefined;
      if (split === undefined || (split.fn !== "power" && split.fn !== "log" && split.fn !== "custom")) fail(`marketData.queue.split.fn "${split?.fn}" must be power, log or custom`);
      if (split!.fn === "power" && !(typeof split!.n === "number" && Number.isFinite(split!.n) && split!.n > 0)) fail(`marketData.queue.split.n "${split!.n}" must be a number greater than 0`);
      if (split!.fn === "custom" && typeof split!.probabilityAhead !== "function") fail(`marketData.queue.split.probabilityAhead must be a function (aheadLots, behindLots) => probability`);
    }
  }
  if (data.impact !== undefined && typeof data.impact !== "boolean") fail(`marketData.impact "${data.impact}" must be true or false`);
  if (data.tradeTiming !== undefined && data.tradeTiming !== "match" && data.tradeTiming !== "publication") fail(`marketData.tradeTiming "${data.tradeTiming}" must be match or publication`);
  if (data.strategy?.kind !== "replay-strategy") fail(`marketData.strategy must be a replay strategy (defineReplayStrategy)`);
  for (const name of ["makerRate", "takerRate"] as const) {
    const rate = data.fees?.[name];
    if (data.fees !== undefined && (typeof rate !== "string" || !RATE_PATTERN.test(rate) || !(Math.abs(Number(rate)) < 1))) fail(`marketData.fees.${name} "${rate}" must be a decimal string between -1 and 1 (negative: a rebate)`);
  }
}
