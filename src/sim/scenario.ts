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
import { chainConfigProblem, DEFAULT_CHAIN_CONFIG, type ChainConfig } from "../settlement/chain.ts";
import { MICROS_PER_MILLI } from "../core/time.ts";
import type { EngineConfig } from "../engine/types.ts";
import { DEFAULT_MARKETS, type GatewayConfig } from "../exchange/config.ts";
import type { AdminAction, FaultAction } from "../exchange/inputs.ts";
import type { Rng } from "../core/rng.ts";
import type { AgentDefinition, AgentParamsContext, ParamsMarket } from "./agent.ts";
import { checkLatencySpec, DEFAULT_AGENT_LATENCY, LatencySpecError, type AgentLatency } from "./latency.ts";

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
  /**
   * Scheduled moves: the first step at or after `atSeconds` from the start
   * adds `logReturn` (0.04 is about +4 %) to its random one. A shock draws
   * nothing from the feed's stream, so the path before it is the one without
   * it, and after it the same path scaled. Default none.
   */
  readonly shocks?: readonly { readonly atSeconds: number; readonly logReturn: number }[];
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
  /** Over the program's defaults; each key must be one of theirs, and the program's checkParams hook, if any, must accept them (checkScenario). */
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

/** What a fuzz draw may know of the run it draws for. */
export interface FuzzRun {
  /** The run's duration: the scenario's, or the `--duration` it is fuzzed or reproduced with (a fault can be drawn within it). */
  readonly durationSeconds: number;
}

export interface FuzzSettings {
  /** Draws the free parameters of one seed (of a run of `run.durationSeconds`). */
  draw(rng: Rng, run: FuzzRun): FuzzParameters;
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

/**
 * A replay strategy program (src/backtest/strategy.ts, defineReplayStrategy); its type is erased here.
 * checkScenario also calls its `checkParams` hook, if it has one (replayParamsProblem).
 */
export interface ReplayStrategyRef {
  readonly kind: "replay-strategy";
  readonly name: string;
}

/** The fields of a replay strategy that replayParamsProblem reads (their types are erased in ReplayStrategyRef). */
interface ParamsCheckedStrategy {
  readonly defaults?: unknown;
  readonly checkParams?: unknown;
}

/**
 * Why a replay strategy cannot run with `params` (a scenario's
 * marketData.params, laid over the strategy's defaults), or null: what its
 * `checkParams` hook returns (`<field> "<value>" <rule>`, the field within
 * the params), as `params.<field> "<value>" <rule>`. A strategy without the
 * hook takes any params here (its init may still refuse them). A hook that
 * throws refuses the params with its message. checkScenario calls this (so
 * `shadowbook run` refuses bad params before it reads the recording), and so
 * do runReplayScenario and runReplay (src/backtest), for callers that skip
 * checkScenario.
 */
export function replayParamsProblem(strategy: ReplayStrategyRef, params?: Readonly<Record<string, unknown>>): string | null {
  const { defaults, checkParams } = strategy as ReplayStrategyRef & ParamsCheckedStrategy;
  if (checkParams === undefined) return null;
  if (typeof checkParams !== "function") return `strategy.checkParams of "${strategy.name}" must be a function (params) => problem or null`;
  const answer = askCheckParams(checkParams as (...args: unknown[]) => unknown, strategy, [{ ...(defaults as object | undefined), ...params }]);
  if (answer === null) return null;
  return "threw" in answer ? `params were refused by the checkParams of "${strategy.name}", which threw: ${answer.threw}` : `params.${answer.problem}`;
}

/**
 * What a checkParams hook (of a replay strategy or an agent) says of its
 * arguments (the params, and an agent's params context): null when they can
 * run, else its problem, or the message of what it threw.
 */
function askCheckParams(hook: (...args: unknown[]) => unknown, owner: unknown, args: readonly unknown[]): { readonly problem: string } | { readonly threw: string } | null {
  let problem: unknown;
  try {
    problem = hook.call(owner, ...args);
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
  return problem === null || problem === undefined ? null : { problem: String(problem) };
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
  /** The strategy's parameters over its defaults; checked by its checkParams hook, if any, before the recording is read. */
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
  // The virtual clock counts microseconds: a shorter run would end where it starts.
  if (seconds < 0.000001) return "must be at least 0.000001 seconds (a microsecond of virtual time)";
  if (seconds > MAX_RUN_SECONDS) return `must be at most ${MAX_RUN_SECONDS} seconds (100 years of virtual time)`;
  return null;
}

/** A number's allowed range: at least `min` (greater, when `minExclusive`), at most `max`, a safe integer when `integer`. */
export interface NumberRange {
  readonly min: number;
  readonly minExclusive?: true;
  readonly max?: number;
  readonly integer?: true;
}

/** Any finite number. */
const FINITE: NumberRange = { min: -Infinity };
const NON_NEGATIVE: NumberRange = { min: 0 };
const NON_NEGATIVE_INTEGER: NumberRange = { min: 0, integer: true };
const POSITIVE_INTEGER: NumberRange = { min: 1, integer: true };
/** Decimal places of a published price: the Exchange parses prices with at most 18. */
const PRICE_DECIMALS: NumberRange = { min: 0, max: 18, integer: true };

/** Why `value` is not a number within `range`, or null: the rule, to follow the field's name and its quoted value. */
export function numberProblem(value: unknown, range: NumberRange): string | null {
  const integer = range.integer === true;
  const exclusive = range.minExclusive === true;
  const number = typeof value === "number" && (integer ? Number.isSafeInteger(value) : Number.isFinite(value));
  if (number && (exclusive ? value > range.min : value >= range.min) && (range.max === undefined || value <= range.max)) return null;
  if (integer) {
    const named = range.min === 0 && !exclusive ? "a non-negative integer" : range.min === 1 && !exclusive ? "a positive integer" : undefined;
    if (named !== undefined) return `must be ${named}${range.max === undefined ? "" : ` at most ${range.max}`}`;
    if (range.max !== undefined) return `must be an integer in ${exclusive ? "(" : "["}${range.min}, ${range.max}]`;
    return `must be an integer ${exclusive ? ">" : ">="} ${range.min}`;
  }
  if (range.max !== undefined) return `must be a finite number in ${exclusive ? "(" : "["}${range.min}, ${range.max}]`;
  if (range.min === -Infinity) return "must be a finite number";
  return `must be a finite number ${exclusive ? "greater than" : ">="} ${range.min}`;
}

type Fail = (message: string) => never;

/** Fails with `field "value" <rule>` when `value` is not within `range`. */
function checkNumber(fail: Fail, field: string, value: unknown, range: NumberRange): void {
  const problem = numberProblem(value, range);
  if (problem !== null) fail(`${field} "${String(value)}" ${problem}`);
}

/** A plain object, not null or an array (a check that does not narrow: the fields stay typed as declared). */
const isObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);

/** Throws a ScenarioError naming the field and the rule. */
export function checkScenario(scenario: Scenario): void {
  if (!isObject(scenario)) {
    const got = scenario === null ? "null" : Array.isArray(scenario) ? "an array" : typeof scenario;
    throw new ScenarioError(`the scenario must be an object, not ${got}: defineScenario({ name, description, seed, durationSeconds, prices, agents })`);
  }
  const fail: Fail = (message) => {
    throw new ScenarioError(`scenario "${scenario.name}": ${message}`);
  };
  if (typeof scenario.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(scenario.name)) fail(`name must be lowercase letters, digits and dashes`);
  if (!Number.isSafeInteger(scenario.seed) || scenario.seed < 0) fail(`seed "${scenario.seed}" must be a non-negative integer`);
  const duration = durationProblem(scenario.durationSeconds);
  if (duration !== null) fail(`durationSeconds "${scenario.durationSeconds}" ${duration}`);
  if (scenario.startMs !== undefined) {
    checkNumber(fail, "startMs", scenario.startMs, NON_NEGATIVE_INTEGER);
    if (scenario.startMs > MAX_START_MS) fail(`startMs "${scenario.startMs}" must be at most ${MAX_START_MS} (in 2155): the longest run from it must end at a safe integer of microseconds`);
  }
  if (scenario.signatures !== undefined && scenario.signatures !== "trusted" && scenario.signatures !== "signed") fail(`signatures "${String(scenario.signatures)}" must be trusted or signed`);
  if (scenario.oracleBasisSd !== undefined) checkNumber(fail, "oracleBasisSd", scenario.oracleBasisSd, NON_NEGATIVE);
  if (scenario.oracleBasisMean !== undefined) checkNumber(fail, "oracleBasisMean", scenario.oracleBasisMean, { min: -1, minExclusive: true, max: 1 });
  if (!Array.isArray(scenario.agents)) fail(`agents must be an array of agents (empty when the market is a recording)`);
  if (!Array.isArray(scenario.prices)) fail(`prices must be an array of price feeds (empty when the market is a recording)`);
  // Before the agents and feeds: a recording excludes them (whatever they hold).
  if (scenario.marketData !== undefined) checkMarketData(scenario, fail);
  // Before the agents: their params are checked against the run's markets.
  checkMarketLists(scenario, fail);
  checkAgents(scenario, fail);
  checkFeeTierTypes(scenario, fail);
  checkFeeds(scenario, fail);
  const bust = scenario.settlement?.bustProbability;
  if (bust !== undefined && !(bust >= 0 && bust <= 1)) fail(`settlement.bustProbability "${bust}" must be between 0 and 1`);
  checkChain(scenario, fail);
  checkTimeline(scenario, fail);
  if (scenario.gateway?.iocPriceBandBps !== undefined) checkNumber(fail, "gateway.iocPriceBandBps", scenario.gateway.iocPriceBandBps, NON_NEGATIVE_INTEGER);
  if (scenario.gateway?.exchangeId !== undefined) checkNumber(fail, "gateway.exchangeId", scenario.gateway.exchangeId, NON_NEGATIVE_INTEGER);
}

/**
 * The chain's settings of a scenario: `settlement` (in ms) under `chain`
 * (ChainConfig, in µs), which wins. What exchangeConfigOf gives the
 * exchange; the rest of ChainConfig is DEFAULT_CHAIN_CONFIG's.
 */
export function chainSettingsOf(scenario: Scenario): Partial<ChainConfig> {
  const settlement = scenario.settlement ?? {};
  const ms = (value: number | undefined) => (value === undefined ? undefined : Math.round(value * MICROS_PER_MILLI));
  return {
    ...(ms(settlement.blockIntervalMs) === undefined ? {} : { blockIntervalMicros: ms(settlement.blockIntervalMs)! }),
    ...(ms(settlement.blockJitterMs) === undefined ? {} : { blockJitterMicros: ms(settlement.blockJitterMs)! }),
    ...(ms(settlement.settlementLatencyMinMs) === undefined ? {} : { settlementLatencyMinMicros: ms(settlement.settlementLatencyMinMs)! }),
    ...(ms(settlement.settlementLatencyMaxMs) === undefined ? {} : { settlementLatencyMaxMicros: ms(settlement.settlementLatencyMaxMs)! }),
    ...(settlement.bustProbability === undefined ? {} : { bustProbability: settlement.bustProbability }),
    ...scenario.chain,
  };
}

/** The scenario's field that sets a ChainConfig key, when `settlement` does and `chain` does not override it. */
const SETTLEMENT_FIELD_OF: Partial<Record<keyof ChainConfig, keyof SettlementSettings>> = {
  blockIntervalMicros: "blockIntervalMs",
  blockJitterMicros: "blockJitterMs",
  settlementLatencyMinMicros: "settlementLatencyMinMs",
  settlementLatencyMaxMicros: "settlementLatencyMaxMs",
};

/**
 * The chain the run would build, checked by its own rules
 * (settlement/chain.ts chainConfigProblem) before anything runs: a block
 * jitter not below the block interval, say, used to fail only when the
 * exchange was built, as an invariant error with no input log. The message
 * names the scenario's fields the rule reads.
 */
function checkChain(scenario: Scenario, fail: Fail): void {
  if (scenario.settlement !== undefined && !isObject(scenario.settlement)) fail(`settlement must be an object: { blockIntervalMs, blockJitterMs, settlementLatencyMinMs, settlementLatencyMaxMs, bustProbability }`);
  if (scenario.chain !== undefined && !isObject(scenario.chain)) fail(`chain must be an object of ChainConfig fields (microseconds)`);
  const problem = chainConfigProblem({ ...DEFAULT_CHAIN_CONFIG, ...chainSettingsOf(scenario) });
  if (problem === null) return;
  const chain = (scenario.chain ?? {}) as Partial<Record<string, unknown>>;
  const settlement = (scenario.settlement ?? {}) as Partial<Record<string, unknown>>;
  const named = problem.replace(/\b(blockIntervalMicros|blockJitterMicros|settlementLatencyMinMicros|settlementLatencyMaxMicros)\b/g, (key) => {
    const field = SETTLEMENT_FIELD_OF[key as keyof ChainConfig]!;
    if (chain[key] === undefined && settlement[field] !== undefined) return `settlement.${field} (${String(settlement[field])} ms = ${key})`;
    return chain[key] === undefined ? `${key} (default)` : `chain.${key}`;
  });
  fail(`the chain's settings: ${named}`);
}

function checkAgents(scenario: Scenario, fail: Fail): void {
  const names = new Set<string>();
  // One context for every hook (frozen: a hook cannot change what the next one sees).
  const context: AgentParamsContext = Object.freeze({ markets: scenarioMarkets(scenario) });
  scenario.agents.forEach((agent, index) => {
    if (!isObject(agent)) fail(`agents[${index}] must be an object: { name, agent, params, account, latency }`);
    if (typeof agent.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(agent.name)) fail(`agents[${index}].name "${agent.name}" must be letters, digits and _.:-`);
    if (names.has(agent.name)) fail(`agents[${index}].name "${agent.name}" is used twice`);
    names.add(agent.name);
    const program = agent.agent as Partial<AgentDefinition> | undefined;
    if (!isObject(program) || typeof program?.kind !== "string" || typeof program.start !== "function") fail(`agents[${index}].agent of "${agent.name}" must be an agent program (defineAgent({ kind, description, defaults, start }))`);
    if (agent.params !== undefined && !isObject(agent.params)) fail(`agents[${index}].params of "${agent.name}" must be an object of parameters`);
    checkAgentParams(agent, program as AgentDefinition, context, `agents[${index}]`, fail);
    const tier = agent.account?.rateTier;
    if (tier !== undefined && ![1, 2, 3].includes(tier)) fail(`agents[${index}].account.rateTier "${tier}" must be 1, 2 or 3`);
    checkLatency(agent.latency, `agents[${index}].latency`, fail);
  });
}

/** An agent's latency overrides: known paths, each a valid model (latency.ts), checked before the run. */
function checkLatency(latency: unknown, where: string, fail: Fail): void {
  if (latency === undefined) return;
  if (!isObject(latency)) fail(`${where} must be an object of latency models: { orderEntry, responses, marketData }`);
  for (const [path, spec] of Object.entries(latency as Record<string, unknown>)) {
    if (!(path in DEFAULT_AGENT_LATENCY)) fail(`${where}.${path} is not one of ${Object.keys(DEFAULT_AGENT_LATENCY).join(", ")}`);
    try {
      checkLatencySpec(spec, `${where}.${path}`);
    } catch (error) {
      if (!(error instanceof LatencySpecError)) throw error;
      fail(error.message);
    }
  }
}

/** The market definitions a run of `scenario` has: its own `markets`, else the built-in DEFAULT_MARKETS (one source for the run's exchange and the agents' check). */
export function marketDefinitionsOf(scenario: Scenario): NonNullable<Scenario["markets"]> {
  return scenario.markets ?? DEFAULT_MARKETS;
}

/**
 * The run's markets as its agents will have them (`ctx.markets`, see
 * AgentHost): the perps, then the spot markets, of the scenario's `markets`,
 * else of the built-in DEFAULT_MARKETS (as exchangeConfigOf builds the
 * run's exchange), each as its symbol and kind. Frozen. The scenario's
 * market lists must have passed checkScenario's shape check (arrays of
 * objects with a symbol).
 */
export function scenarioMarkets(scenario: Scenario): readonly ParamsMarket[] {
  const markets = marketDefinitionsOf(scenario);
  return Object.freeze([
    ...markets.perpMarkets.map((market) => Object.freeze({ symbol: market.symbol, kind: "perp" as const })),
    ...markets.spotMarkets.map((market) => Object.freeze({ symbol: market.symbol, kind: "spot" as const })),
  ]);
}

/**
 * The shape of the scenario's market lists that scenarioMarkets reads: the
 * perp and spot lists are arrays of objects, each with a symbol (the risk
 * layer checks the rest when the run builds its exchange).
 */
function checkMarketLists(scenario: Scenario, fail: Fail): void {
  const markets: unknown = scenario.markets;
  if (markets === undefined) return;
  if (!isObject(markets)) fail(`markets must be an object of market definitions: { assets, perpMarkets, spotMarkets, feeTiers, ... } (default: the built-in set)`);
  for (const list of ["perpMarkets", "spotMarkets"] as const) {
    const entries: unknown = (markets as Record<string, unknown>)[list];
    if (!Array.isArray(entries)) fail(`markets.${list} must be an array of markets (empty for none)`);
    (entries as readonly unknown[]).forEach((market, index) => {
      const symbol = isObject(market) ? (market as { symbol?: unknown }).symbol : undefined;
      if (typeof symbol !== "string" || symbol === "") fail(`markets.${list}[${index}].symbol "${String(symbol)}" must be a market symbol`);
    });
  }
}

/**
 * An agent entry's params against its program (see AgentDefinition): every
 * key must be one of the program's defaults, and its checkParams hook, if
 * any, must accept the params as the agent host merges them (the entry's
 * over the defaults), told the run's markets (`context`). Refusals read
 * `<at>.params of "<name>": <field> "<value>" <rule>`, the field's part as
 * the hook gives it.
 */
function checkAgentParams(agent: ScenarioAgent, program: AgentDefinition, context: AgentParamsContext, at: string, fail: Fail): void {
  const defaults: unknown = program.defaults;
  const known = isObject(defaults) ? Object.keys(defaults as object) : [];
  const of = `${at}.params of "${agent.name}"`;
  for (const key of Object.keys(agent.params ?? {})) {
    if (!known.includes(key)) {
      fail(`${of}: ${key} is not a parameter of ${program.kind} (${known.length === 0 ? "it has none" : `its parameters: ${known.join(", ")}`})`);
    }
  }
  const hook: unknown = program.checkParams;
  if (hook === undefined) return;
  if (typeof hook !== "function") fail(`${at}.agent of "${agent.name}": checkParams of ${program.kind} must be a function (params, context) => problem or null`);
  // As AgentHost.add merges them, frozen: a hook cannot change what the agent will see.
  const params = Object.freeze({ ...(defaults as object | undefined), ...agent.params });
  const answer = askCheckParams(hook as (...args: unknown[]) => unknown, program, [params, context]);
  if (answer === null) return;
  if ("threw" in answer) fail(`${of} were refused by the checkParams of ${program.kind}, which threw: ${answer.threw}`);
  else fail(`${of}: ${answer.problem}`);
}

/** The tier types of the fee tiers (the risk layer checks the rest of the markets when the run builds its exchange). */
function checkFeeTierTypes(scenario: Scenario, fail: Fail): void {
  const tiers: unknown = scenario.markets?.feeTiers;
  if (!Array.isArray(tiers)) return;
  tiers.forEach((tier: unknown, index) => {
    const type = isObject(tier) ? (tier as { tierType?: unknown }).tierType : undefined;
    if (type !== "REGULAR" && type !== "VIP") fail(`markets.feeTiers[${index}].tierType "${String(type)}" must be REGULAR or VIP`);
  });
}

function checkFeeds(scenario: Scenario, fail: Fail): void {
  const assets = new Set<string>();
  scenario.prices.forEach((feed, index) => {
    if (!isObject(feed)) fail(`prices[${index}] must be an object: { asset, model, ... }`);
    if (typeof feed.asset !== "string" || feed.asset === "") fail(`prices[${index}].asset "${String(feed.asset)}" must be an asset name`);
    if (assets.has(feed.asset)) fail(`prices[${index}].asset "${feed.asset}" has two feeds`);
    assets.add(feed.asset);
    const model: unknown = feed.model;
    if (model !== "gbm" && model !== "path") fail(`prices[${index}].model "${String(model)}" must be gbm or path`);
    if (feed.decimals !== undefined) checkNumber(fail, `prices[${index}].decimals`, feed.decimals, PRICE_DECIMALS);
    if (feed.model === "path") {
      if (typeof feed.file !== "string" || feed.file === "") fail(`prices[${index}].file "${String(feed.file)}" must name a price path file in data/`);
      return;
    }
    if (!(Number.isFinite(feed.start) && feed.start > 0)) fail(`prices[${index}].start "${feed.start}" must be greater than 0`);
    checkNumber(fail, `prices[${index}].hourlyVolatility`, feed.hourlyVolatility, NON_NEGATIVE);
    if (feed.hourlyDrift !== undefined) checkNumber(fail, `prices[${index}].hourlyDrift`, feed.hourlyDrift, FINITE);
    if (feed.stepMs !== undefined) checkNumber(fail, `prices[${index}].stepMs`, feed.stepMs, POSITIVE_INTEGER);
    if (feed.jumps !== undefined) {
      if (!isObject(feed.jumps)) fail(`prices[${index}].jumps must be an object: { perHour, mean, sd }`);
      checkNumber(fail, `prices[${index}].jumps.perHour`, feed.jumps.perHour, NON_NEGATIVE);
      checkNumber(fail, `prices[${index}].jumps.mean`, feed.jumps.mean, FINITE);
      checkNumber(fail, `prices[${index}].jumps.sd`, feed.jumps.sd, NON_NEGATIVE);
    }
    if (feed.shocks !== undefined) {
      if (!Array.isArray(feed.shocks)) fail(`prices[${index}].shocks must be an array of { atSeconds, logReturn }`);
      feed.shocks.forEach((shock, at) => {
        if (!isObject(shock)) fail(`prices[${index}].shocks[${at}] must be an object: { atSeconds, logReturn }`);
        checkNumber(fail, `prices[${index}].shocks[${at}].atSeconds`, shock.atSeconds, NON_NEGATIVE);
        checkNumber(fail, `prices[${index}].shocks[${at}].logReturn`, shock.logReturn, FINITE);
      });
    }
  });
}

/** Each fault's numeric fields and their ranges; a mapped type over FaultAction, so a new fault must be listed here. */
const FAULT_FIELDS: { readonly [F in FaultAction["fault"]]: readonly (readonly [string, NumberRange])[] } = {
  bustNext: [["count", NON_NEGATIVE_INTEGER]],
  bustProbability: [["probability", { min: 0, max: 1 }]],
  delayBlocks: [["durationMs", NON_NEGATIVE]],
  engineUnavailable: [["durationMs", NON_NEGATIVE]],
  accountOwnerUnavailable: [["durationMs", NON_NEGATIVE]],
  serviceDisabled: [["durationMs", NON_NEGATIVE]],
  oracleStale: [["durationMs", NON_NEGATIVE]],
  dropResponses: [["count", NON_NEGATIVE_INTEGER]],
};
const FAULTS = Object.keys(FAULT_FIELDS);

/** The admin actions (a mapped type over AdminAction: a new action must be listed here). The Exchange checks their fields when they run. */
const ADMIN_ACTIONS = Object.keys({
  createAccount: true,
  deposit: true,
  withdraw: true,
  transfer: true,
  addSigner: true,
  assetStatus: true,
  market: true,
  wallet: true,
} satisfies { readonly [A in AdminAction["action"]]: true });

function checkTimeline(scenario: Scenario, fail: Fail): void {
  const timeline: unknown = scenario.timeline;
  if (timeline === undefined) return;
  if (!Array.isArray(timeline)) fail(`timeline must be an array of { atSeconds, admin } or { atSeconds, fault } entries`);
  (timeline as readonly unknown[]).forEach((entry, index) => {
    if (!isObject(entry)) fail(`timeline[${index}] must be an object: { atSeconds, admin } or { atSeconds, fault }`);
    const { atSeconds: at, admin, fault } = entry as { atSeconds?: unknown; admin?: unknown; fault?: unknown };
    if (!(typeof at === "number" && at >= 0)) fail(`timeline[${index}].atSeconds "${String(at)}" must be >= 0`);
    if ((admin === undefined) === (fault === undefined)) fail(`timeline[${index}] must have either admin or fault (one of them)`);
    if (admin !== undefined) {
      const action = isObject(admin) ? (admin as { action?: unknown }).action : undefined;
      if (typeof action !== "string" || !ADMIN_ACTIONS.includes(action)) fail(`timeline[${index}].admin.action "${String(action)}" is not one of ${ADMIN_ACTIONS.join(", ")}`);
      return;
    }
    const name = isObject(fault) ? (fault as { fault?: unknown }).fault : undefined;
    if (typeof name !== "string" || !FAULTS.includes(name)) fail(`timeline[${index}].fault.fault "${String(name)}" is not one of ${FAULTS.join(", ")}`);
    for (const [field, range] of FAULT_FIELDS[name as FaultAction["fault"]]) {
      const value = (fault as Record<string, unknown>)[field];
      const problem = numberProblem(value, range);
      if (problem !== null) fail(`timeline[${index}].fault.${field} "${String(value)}" ${problem} for a ${name} fault`);
    }
    if (name === "bustNext" && typeof (fault as Record<string, unknown>)["reasonName"] !== "string") fail(`timeline[${index}].fault.reasonName of bustNext must be the name of a bust reason`);
  });
}

const RATE_PATTERN = /^-?\d+(\.\d+)?$/;

function checkMarketData(scenario: Scenario, fail: Fail): void {
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
  if (data.params !== undefined && !isObject(data.params)) fail(`marketData.params must be an object of the strategy's parameters`);
  const params = replayParamsProblem(data.strategy, data.params);
  if (params !== null) fail(`marketData.${params}`);
  for (const name of ["makerRate", "takerRate"] as const) {
    const rate = data.fees?.[name];
    if (data.fees !== undefined && (typeof rate !== "string" || !RATE_PATTERN.test(rate) || !(Math.abs(Number(rate)) < 1))) fail(`marketData.fees.${name} "${rate}" must be a decimal string between -1 and 1 (negative: a rebate)`);
  }
}
