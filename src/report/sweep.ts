/**
 * Parameter sweeps: one scenario backtested over a grid of values and seeds,
 * to see how a strategy's results move with its parameters (and how much of
 * that is the seed).
 *
 * - Axes: each `--vary <path>=<v1>,<v2>,...` names a path as `--set` does
 *   (src/sim/overrides.ts: an agent's param, its rate tier, a scenario field)
 *   and its values, each read as a --set value (JSON when it parses, else
 *   text). Values are split at the commas outside brackets, braces and
 *   double quotes, so `--vary 'noise-eth-1.symbols=["ETHRUSDPERP"],["BTCRUSDPERP"]'`
 *   has two values.
 * - The grid is every combination of the axes' values, the first axis
 *   varying slowest, and every combination runs once per seed. A run is
 *   exactly `shadowbook run <scenario> --seed N --set ...` with the fixed
 *   `--set` overrides and then the combination's (a path in both is
 *   refused): a backtest, invariants off, no fuzz draw. Every run's result
 *   carries that command, and its fingerprint.
 * - Every combination is applied to the scenario and checked before any run
 *   starts: a path the scenario does not have, or a value it or the agent's
 *   checkParams refuses, stops the sweep, naming the --vary and the value.
 * - Runs are independent, so results are the same on any number of workers
 *   (src/sim/worker-pool.ts; the workers run sweep-worker.ts) and come back sorted by combination, then seed.
 * - Each combination's summary, per agent: the mean, sample standard
 *   deviation, minimum and maximum of its net PnL over the seeds (report
 *   figures: doubles, src/report/summary.ts), and the means of its trades,
 *   volume, fees, maximum drawdown and fill ratio. A run that failed (an
 *   agent threw, say) is counted apart and left out of the figures.
 *
 * In src/report because each run's figures are its run summary
 * (summary.ts). A driver (worker threads and the wall clock, to time the
 * sweep), never inside a run.
 */
import { RunSummaryObserver, type AgentSummary } from "./summary.ts";
import { runCommandLine } from "../sim/command-line.ts";
import { describeFailure, type FuzzFailure } from "../sim/failure.ts";
import { FUZZ_WORKERS_MAX } from "../sim/fuzz.ts";
import { applyOverrides, OverrideError, parseSetFlag, type SetOverride } from "../sim/overrides.ts";
import type { RunObserver, RunSetup } from "../sim/run.ts";
import { runScenario } from "../sim/runner.ts";
import { loadScenario, portableScenarioArgument, type LoadedScenario } from "../sim/scenario-loader.ts";
import { runWorkerPool, WorkerPoolError, type WorkerDeath } from "../sim/worker-pool.ts";

/** The most runs one sweep may have (combinations x seeds): a typo must not queue a million backtests. */
export const SWEEP_RUNS_MAX = 100_000;

export class SweepError extends Error {
  override readonly name = "SweepError";
}

/** One `--vary`: its text as given, its path, and one override per value, in order. Plain data (it crosses to worker threads). */
export interface VaryAxis {
  readonly raw: string;
  readonly path: string;
  readonly values: readonly SetOverride[];
}

const flag = (raw: string): string => `--vary ${JSON.stringify(raw)}`;

/**
 * `text` split at the commas that are outside brackets, braces and
 * double-quoted strings (JSON's nesting), each part trimmed. A double quote
 * opens a string at the start of a value or inside brackets or braces (a
 * quote inside a plain word is just a character). Refuses (Error) text
 * whose brackets or quotes do not close: splitting it would merge values.
 */
export function splitValues(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"' && (depth > 0 || text.slice(start, i).trim() === "")) quoted = true;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") {
      if (--depth < 0) throw new Error(`a "${char}" at character ${i + 1} closes nothing`);
    } else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted) throw new Error("a string is not closed");
  if (depth > 0) throw new Error(`${depth} bracket${depth === 1 ? " is" : "s are"} not closed`);
  parts.push(text.slice(start).trim());
  return parts;
}

/** One --vary's text as an axis; refuses one without "=", an empty path or value, and a value listed twice. */
export function parseVaryFlag(raw: string): VaryAxis {
  const at = raw.indexOf("=");
  if (at < 0) throw new SweepError(`${flag(raw)} must be <path>=<value>,<value>,..., e.g. --vary mm-eth.spreadBps=4,6,8`);
  const path = raw.slice(0, at).trim();
  if (path === "") throw new SweepError(`${flag(raw)} has an empty path before "="`);
  let texts: string[];
  try {
    texts = splitValues(raw.slice(at + 1));
  } catch (error) {
    throw new SweepError(`${flag(raw)}: ${(error as Error).message}, so its values cannot be told apart`);
  }
  const values: SetOverride[] = [];
  for (const text of texts) {
    if (text === "") throw new SweepError(`${flag(raw)} has an empty value (values are separated by commas; for an empty string write "")`);
    const override = parseSetFlag(`${path}=${text}`);
    const earlier = values.find((other) => JSON.stringify(other.value) === JSON.stringify(override.value));
    if (earlier !== undefined) throw new SweepError(`${flag(raw)} lists the value ${text} twice`);
    values.push(override);
  }
  return Object.freeze({ raw, path, values: Object.freeze(values) });
}

/** Every --vary (at least one), in order; refuses a malformed one, a path given twice, and a path also given to --set. */
export function parseVaryFlags(raws: readonly string[] | undefined, fixed: readonly SetOverride[] = []): VaryAxis[] {
  if (raws === undefined || raws.length === 0) throw new SweepError("give at least one --vary <path>=<value>,<value>,... (e.g. --vary mm-eth.spreadBps=4,6,8)");
  const axes: VaryAxis[] = [];
  for (const raw of raws) {
    const axis = parseVaryFlag(raw);
    const earlier = axes.find((other) => other.path === axis.path);
    if (earlier !== undefined) throw new SweepError(`${flag(raw)} varies ${axis.path} again (${flag(earlier.raw)} does): give each path once`);
    const set = fixed.find((override) => override.path === axis.path);
    if (set !== undefined) throw new SweepError(`${flag(raw)} varies ${axis.path}, which --set ${JSON.stringify(set.raw)} fixes: give it to one of them`);
    axes.push(axis);
  }
  return axes;
}

/** The grid: every combination of the axes' values (one override per axis, in axis order), the first axis varying slowest. */
export function gridOf(axes: readonly VaryAxis[]): SetOverride[][] {
  let grid: SetOverride[][] = [[]];
  for (const axis of axes) grid = grid.flatMap((combination) => axis.values.map((value) => [...combination, value]));
  return grid;
}

/** What a sweep keeps of an agent's summary, as numbers (report figures: doubles). */
export interface AgentFigures {
  readonly netPnl: number | null;
  readonly realizedPnl: number;
  readonly trades: number;
  readonly volume: number;
  readonly fees: number;
  readonly maxDrawdown: number | null;
  readonly fillRatio: number | null;
}

function figuresOf(agent: AgentSummary): AgentFigures {
  return {
    netPnl: agent.netPnl,
    realizedPnl: Number(agent.realizedPnl),
    trades: agent.trades,
    volume: Number(agent.volume),
    fees: Number(agent.fees),
    maxDrawdown: agent.maxDrawdown,
    fillRatio: agent.fillRatio,
  };
}

/** One run of the grid: a combination (its index) and a seed. */
export interface SweepJob {
  readonly combination: number;
  readonly seed: number;
}

export interface SweepRunResult {
  readonly combination: number;
  readonly seed: number;
  readonly ok: boolean;
  /** The run's fingerprint; for a failed run, that of its outputs up to the failure (absent when it failed before it began, or its worker died). */
  readonly fingerprint?: string;
  readonly events: number;
  /** Per agent, by name (absent for a failed run). */
  readonly agents?: Readonly<Record<string, AgentFigures>>;
  readonly error?: FuzzFailure;
  /** The `shadowbook run` command that runs exactly this run. */
  readonly command: string;
  readonly wallSeconds: number;
}

/** What every run of a sweep shares (and a sweep worker is started with). */
export interface SweepRunOptions {
  /** The scenario module, absolute. */
  readonly modulePath: string;
  readonly axes: readonly VaryAxis[];
  /** The --set overrides every run has, applied before the combination's. */
  readonly overrides: readonly SetOverride[];
  readonly durationSeconds?: number;
}

/** The command that runs one job of the sweep alone. */
function commandOf(options: SweepRunOptions, combination: readonly SetOverride[], seed: number): string {
  return runCommandLine(portableScenarioArgument(options.modulePath), seed, {
    overrides: [...options.overrides, ...combination],
    ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
  });
}

/** Runs one job in this thread; never throws for a failure of the run. */
export async function runSweepJob(loaded: LoadedScenario, job: SweepJob, options: SweepRunOptions): Promise<SweepRunResult> {
  const started = performance.now();
  const combination = gridOf(options.axes)[job.combination]!;
  const command = commandOf(options, combination, job.seed);
  const wallSeconds = () => (performance.now() - started) / 1_000;
  const summary = new RunSummaryObserver();
  // The run's world, so that a failed run still reports its events and the fingerprint of its outputs up to the failure.
  let world: RunSetup["world"] | undefined;
  const watcher: RunObserver = {
    begin(setup) {
      world = setup.world;
    },
  };
  let events = 0;
  try {
    const scenario = applyOverrides(loaded.scenario, [...options.overrides, ...combination]);
    const { figures } = await runScenario(scenario, {
      seed: job.seed,
      observers: [watcher, summary],
      paths: loaded.paths,
      ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
    });
    events = figures.events;
    const agents = Object.fromEntries(summary.summarize(figures).agents.map((agent) => [agent.name, figuresOf(agent)]));
    return Object.freeze({ combination: job.combination, seed: job.seed, ok: true, fingerprint: figures.fingerprint, events, agents, command, wallSeconds: wallSeconds() });
  } catch (error) {
    const reached = world === undefined ? { events } : { events: world.kernel.eventsProcessed, fingerprint: world.fingerprint.digest() };
    return Object.freeze({ combination: job.combination, seed: job.seed, ok: false, ...reached, error: describeFailure(error), command, wallSeconds: wallSeconds() });
  }
}

/** The spread of one figure over a combination's runs (null when no run had it). */
export interface Spread {
  readonly mean: number | null;
  /** Sample standard deviation; null for fewer than two values. */
  readonly sd: number | null;
  readonly min: number | null;
  readonly max: number | null;
}

/** `values`' spread, the nulls left out. */
export function spreadOf(values: readonly (number | null)[]): Spread {
  const present = values.filter((value): value is number => value !== null);
  if (present.length === 0) return { mean: null, sd: null, min: null, max: null };
  const mean = present.reduce((sum, value) => sum + value, 0) / present.length;
  const sd = present.length < 2 ? null : Math.sqrt(present.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (present.length - 1));
  return { mean, sd, min: Math.min(...present), max: Math.max(...present) };
}

/** One agent's figures over a combination's runs that passed. */
export interface AgentSpread {
  readonly netPnl: Spread;
  readonly trades: number | null;
  readonly volume: number | null;
  readonly fees: number | null;
  readonly maxDrawdown: number | null;
  readonly fillRatio: number | null;
}

export interface CombinationSummary {
  readonly index: number;
  /** The combination's values, one per axis. */
  readonly overrides: readonly SetOverride[];
  readonly runs: number;
  readonly failed: number;
  /** Per agent, by name, over the runs that passed. */
  readonly agents: Readonly<Record<string, AgentSpread>>;
}

function summarizeCombination(index: number, overrides: readonly SetOverride[], runs: readonly SweepRunResult[]): CombinationSummary {
  const passed = runs.filter((run) => run.ok);
  const names = [...new Set(passed.flatMap((run) => Object.keys(run.agents ?? {})))];
  const agents: Record<string, AgentSpread> = {};
  for (const name of names) {
    const of = (pick: (figures: AgentFigures) => number | null) => passed.map((run) => (run.agents?.[name] === undefined ? null : pick(run.agents[name])));
    agents[name] = {
      netPnl: spreadOf(of((figures) => figures.netPnl)),
      trades: spreadOf(of((figures) => figures.trades)).mean,
      volume: spreadOf(of((figures) => figures.volume)).mean,
      fees: spreadOf(of((figures) => figures.fees)).mean,
      maxDrawdown: spreadOf(of((figures) => figures.maxDrawdown)).mean,
      fillRatio: spreadOf(of((figures) => figures.fillRatio)).mean,
    };
  }
  return Object.freeze({ index, overrides, runs: runs.length, failed: runs.length - passed.length, agents });
}

export interface SweepOptions {
  /** The scenario module, relative to the working directory or absolute, or a name in scenarios/. */
  readonly scenarioPath: string;
  readonly axes: readonly VaryAxis[];
  readonly seeds: readonly number[];
  readonly overrides?: readonly SetOverride[];
  readonly durationSeconds?: number;
  /** 1 (the default) runs every job in this thread; more runs a pool of worker threads (at most FUZZ_WORKERS_MAX). */
  readonly workers?: number;
  /** Workers only: a run still going after this long fails with kind "Timeout" (its worker is replaced). */
  readonly runTimeoutSeconds?: number;
  /** Agents the caller will show: each must be an agent of the scenario (checked before any run). */
  readonly agents?: readonly string[];
  /** Called once per run as it finishes, in completion order. */
  readonly onResult?: (result: SweepRunResult) => void;
}

export interface SweepReport {
  readonly scenario: string;
  readonly modulePath: string;
  readonly axes: readonly VaryAxis[];
  readonly overrides: readonly SetOverride[];
  readonly seeds: readonly number[];
  readonly durationSeconds: number;
  /** The scenario's agents, in its order. */
  readonly agentNames: readonly string[];
  readonly workers: number;
  /** Sorted by combination, then seed. */
  readonly runs: readonly SweepRunResult[];
  readonly combinations: readonly CombinationSummary[];
  readonly events: number;
  readonly wallSeconds: number;
}

/** Checks every combination against the scenario before any run, naming the --vary and value a refusal comes from. */
function checkCombinations(loaded: LoadedScenario, axes: readonly VaryAxis[], overrides: readonly SetOverride[]): void {
  applyOverrides(loaded.scenario, overrides);
  for (const axis of axes) {
    for (const value of axis.values) {
      try {
        applyOverrides(loaded.scenario, [...overrides, value]);
      } catch (error) {
        if (!(error instanceof OverrideError)) throw error;
        const why = error.message.startsWith(`--set ${JSON.stringify(value.raw)}: `) ? error.message.slice(`--set ${JSON.stringify(value.raw)}: `.length) : error.message;
        throw new SweepError(`${flag(axis.raw)}, value ${JSON.stringify(value.value)}: ${why}`);
      }
    }
  }
  // Each value passed alone; values of different axes may still clash together (a checkParams rule over two params).
  for (const combination of gridOf(axes)) {
    try {
      applyOverrides(loaded.scenario, [...overrides, ...combination]);
    } catch (error) {
      if (!(error instanceof OverrideError)) throw error;
      throw new SweepError(`the combination ${combination.map((value) => value.raw).join(" ")} is refused: ${error.message}`);
    }
  }
}

/** Runs the sweep and reports it. Rejects, before any run, for a grid the scenario refuses or one too large. */
export async function sweepScenario(options: SweepOptions): Promise<SweepReport> {
  const workers = options.workers ?? 1;
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > FUZZ_WORKERS_MAX) throw new SweepError(`workers "${workers}" must be a positive integer at most ${FUZZ_WORKERS_MAX}`);
  const seeds = [...new Set(options.seeds)].sort((a, b) => a - b);
  if (seeds.length === 0) throw new SweepError("give at least one seed");
  const overrides = options.overrides ?? [];
  const grid = gridOf(options.axes);
  if (grid.length * seeds.length > SWEEP_RUNS_MAX) throw new SweepError(`${grid.length.toLocaleString("en-US")} combinations x ${seeds.length.toLocaleString("en-US")} seeds is above ${SWEEP_RUNS_MAX.toLocaleString("en-US")} runs`);
  const started = performance.now();
  const loaded = await loadScenario(options.scenarioPath);
  if (loaded.scenario.marketData !== undefined) throw new SweepError(`${loaded.scenario.name} is a replay backtest of recorded market data: sweep runs simulated scenarios`);
  checkCombinations(loaded, options.axes, overrides);
  const agentNames = loaded.scenario.agents.map((agent) => agent.name);
  for (const name of options.agents ?? []) {
    if (!agentNames.includes(name)) throw new SweepError(`--agent "${name}" is not an agent of ${loaded.scenario.name} (its agents: ${agentNames.join(", ")})`);
  }
  const runOptions: SweepRunOptions = {
    modulePath: loaded.path,
    axes: options.axes,
    overrides,
    ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
  };
  const jobs = grid.flatMap((_, combination) => seeds.map((seed) => ({ combination, seed })));
  const runs: SweepRunResult[] = [];
  const record = (result: SweepRunResult) => {
    runs.push(result);
    options.onResult?.(result);
  };
  const used = Math.max(1, Math.min(workers, jobs.length));
  // As fuzz: in this thread only when asked for one worker (a run that kills its thread then takes a worker, not the command).
  if (workers === 1) {
    for (const job of jobs) record(await runSweepJob(loaded, job, runOptions));
  } else {
    try {
      await runWorkerPool({
        entry: new URL("./sweep-worker.ts", import.meta.url),
        workerData: runOptions,
        jobs,
        workers: used,
        describe: (job) => `combination ${job.combination + 1}, seed ${job.seed}`,
        loading: `scenario "${options.scenarioPath}"`,
        name: "sweep",
        crashed: (job, death, wallSeconds) => crashed(runOptions, grid, job, death, wallSeconds),
        record,
        ...(options.runTimeoutSeconds === undefined ? {} : { jobTimeoutSeconds: options.runTimeoutSeconds }),
      });
    } catch (error) {
      throw error instanceof WorkerPoolError ? new SweepError(error.message) : error;
    }
  }
  runs.sort((a, b) => a.combination - b.combination || a.seed - b.seed);
  const combinations = grid.map((combination, index) => summarizeCombination(index, combination, runs.filter((run) => run.combination === index)));
  return Object.freeze({
    scenario: loaded.scenario.name,
    modulePath: loaded.path,
    axes: options.axes,
    overrides,
    seeds,
    durationSeconds: options.durationSeconds ?? loaded.scenario.durationSeconds,
    agentNames,
    workers: used,
    runs,
    combinations,
    events: runs.reduce((sum, run) => sum + run.events, 0),
    wallSeconds: (performance.now() - started) / 1_000,
  });
}

function crashed(options: SweepRunOptions, grid: readonly SetOverride[][], job: SweepJob, death: WorkerDeath, wallSeconds: number): SweepRunResult {
  return Object.freeze({
    combination: job.combination,
    seed: job.seed,
    ok: false,
    events: 0,
    error: { kind: death.kind, message: death.message, stack: death.stack },
    command: commandOf(options, grid[job.combination]!, job.seed),
    wallSeconds,
  });
}
