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

/** Throws a ScenarioError naming the field and the rule. */
export function checkScenario(scenario: Scenario): void {
  const fail = (message: string): never => {
    throw new ScenarioError(`scenario "${scenario.name}": ${message}`);
  };
  if (typeof scenario.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(scenario.name)) fail(`name must be lowercase letters, digits and dashes`);
  if (!Number.isSafeInteger(scenario.seed) || scenario.seed < 0) fail(`seed "${scenario.seed}" must be a non-negative integer`);
  if (!(scenario.durationSeconds > 0) || !Number.isFinite(scenario.durationSeconds)) fail(`durationSeconds "${scenario.durationSeconds}" must be a positive number`);
  if (scenario.startMs !== undefined && (!Number.isSafeInteger(scenario.startMs) || scenario.startMs < 0)) fail(`startMs "${scenario.startMs}" must be a non-negative integer of Unix ms`);
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
}
