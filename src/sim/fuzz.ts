/**
 * Seeded fuzzing (swarm testing): every seed draws the scenario's free
 * parameters, runs the scenario with them and the exchange invariants on,
 * and is reported as passed (with its fingerprint) or failed (with its
 * parameters, the error, and the one command that reproduces it).
 *
 * - A seed's draw comes from `new RngRoot(seed).stream("fuzz")`, a stream
 *   of its own: the run's other streams (agents, latency, oracle, chain)
 *   are seeded from the same seed and do not see it. `fuzzedScenario` is
 *   the one place that turns (scenario, seed) into the fuzzed scenario;
 *   `shadowbook run <scenario> --seed N --fuzz` uses it too, so a failing
 *   seed replays exactly. A scenario without `fuzz` runs unchanged with
 *   the seed.
 * - Seeds are independent runs, so where they run cannot change their
 *   outcome: results come back sorted by seed and are identical (all but
 *   wall time) whether they ran serially in this thread (`workers: 1`) or
 *   in a pool of worker threads. Each worker imports the scenario module by
 *   path, with tsx's loader, and runs one seed at a time.
 * - A worker that dies (process.exit, an uncaught exception, out of
 *   memory, a seed over `seedTimeoutSeconds`) fails the seed it was
 *   running, with kind "WorkerCrash" or "Timeout"; a fresh worker takes
 *   its place and the pool goes on.
 *
 * This is a driver: it uses worker threads and the wall clock (to measure
 * seeds per second), never inside a run.
 */
import { isAbsolute } from "node:path";
import { RngRoot } from "../core/rng.ts";
import type { Micros } from "../core/time.ts";
import type { RunObserver, RunSetup } from "./run.ts";
import { checkInvariantEveryBlocks, runScenario } from "./runner.ts";
import { runCommandLine } from "./command-line.ts";
import { describeFailure, type FuzzFailure } from "./failure.ts";
import { applyOverrides, overridesRecord, type SetOverride } from "./overrides.ts";
import { checkScenario, type FuzzParameters, type Scenario } from "./scenario.ts";
import { runWorkerPool, WorkerPoolError, type WorkerDeath } from "./worker-pool.ts";
import { loadScenario, portableScenarioArgument, type LoadedScenario } from "./scenario-loader.ts";

/** The most seeds one `parseSeeds` may produce (a typo like 1..1e12 must not allocate forever). */
export const SEEDS_MAX = 1_000_000;

export class FuzzError extends Error {
  override readonly name = "FuzzError";
}

export interface FuzzResult {
  readonly seed: number;
  /** What the seed drew ({} for a scenario without `fuzz`). */
  readonly parameters: FuzzParameters;
  /** The --set overrides applied after the draw, path to value (absent when none were given). */
  readonly overrides?: Readonly<Record<string, unknown>>;
  readonly ok: boolean;
  /**
   * The run's fingerprint; for a failed run, the fingerprint of the outputs
   * up to the failure (the same on every replay). Absent when the run never
   * started (the scenario was refused, or the worker died).
   */
  readonly fingerprint?: string;
  /** Kernel events processed (up to the failure for a failed run). */
  readonly events: number;
  /** Virtual time the run reached (the failure time for a failed run). */
  readonly atMicros?: Micros;
  readonly error?: FuzzFailure;
  /** The command that reproduces a failed seed. */
  readonly reproduce?: string;
  readonly wallSeconds: number;
}

export interface FuzzOptions {
  /** The scenario module (default export a Scenario), relative to the working directory or absolute. */
  scenarioPath: string;
  seeds: readonly number[];
  /** 1 (the default) runs every seed in this thread; more runs a pool of worker threads (at most FUZZ_WORKERS_MAX). */
  workers?: number;
  /** Overrides the scenario's duration. */
  durationSeconds?: number;
  /** State invariants after every this many blocks (default 1: every block); a positive integer, else RangeError. */
  invariantEveryBlocks?: number;
  /** `--set` overrides (src/sim/overrides.ts), applied to every seed after its fuzz draw; checked against the scenario before any seed runs. */
  overrides?: readonly SetOverride[];
  /** Workers only: a seed still running after this long fails with kind "Timeout" (its worker is replaced). */
  seedTimeoutSeconds?: number;
  /** Called once per seed as it finishes, in completion order (not seed order). */
  onResult?: (result: FuzzResult) => void;
}

export interface FuzzReport {
  readonly scenario: string;
  readonly scenarioPath: string;
  /** Workers the seeds ran on: the number asked for, or fewer when there were fewer seeds (1: serially in this thread, or one worker for one seed). */
  readonly workers: number;
  /** Sorted by seed. */
  readonly results: readonly FuzzResult[];
  readonly failures: readonly FuzzResult[];
  readonly events: number;
  readonly wallSeconds: number;
  readonly seedsPerSecond: number;
}

// -- seeds ------------------------------------------------------------------------------

/**
 * Parses seeds: a range "1..1000", a list "1,5,9", or both ("1..10,20").
 * Returns them sorted, each once. Seeds are non-negative safe integers.
 */
export function parseSeeds(text: string): number[] {
  const seeds = new Set<number>();
  const parseOne = (part: string): number => {
    if (!/^\d+$/.test(part)) throw new FuzzError(`--seeds "${text}": "${part}" is not a non-negative integer`);
    const value = Number(part);
    if (!Number.isSafeInteger(value)) throw new FuzzError(`--seeds "${text}": "${part}" is beyond the safe integers`);
    return value;
  };
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") throw new FuzzError(`--seeds "${text}": an entry is empty`);
    const range = /^(\S+?)\s*\.\.\s*(\S+)$/.exec(part);
    if (range === null) {
      seeds.add(parseOne(part));
    } else {
      const from = parseOne(range[1]!);
      const to = parseOne(range[2]!);
      if (to < from) throw new FuzzError(`--seeds "${text}": range "${part}" ends before it starts`);
      if (to - from + 1 + seeds.size > SEEDS_MAX) throw new FuzzError(`--seeds "${text}": more than ${SEEDS_MAX} seeds`);
      for (let seed = from; seed <= to; seed++) seeds.add(seed);
    }
    if (seeds.size > SEEDS_MAX) throw new FuzzError(`--seeds "${text}": more than ${SEEDS_MAX} seeds`);
  }
  return [...seeds].sort((a, b) => a - b);
}

// -- one seed ---------------------------------------------------------------------------

/**
 * The scenario that `seed` fuzzes: its draw from the "fuzz" stream applied,
 * checked, with the seed set. Without `fuzz`: the scenario with the seed.
 * The draw is told the run's duration (`durationSeconds`: the one the run
 * is given, else the scenario's), so a fault can land anywhere in it; a
 * seed reproduces with the same duration. Throws a ScenarioError when the
 * applied scenario breaks a rule.
 */
export function fuzzedScenario(scenario: Scenario, seed: number, durationSeconds: number = scenario.durationSeconds): { scenario: Scenario; parameters: FuzzParameters } {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new FuzzError(`seed "${seed}" must be a non-negative integer`);
  if (scenario.fuzz === undefined) return { scenario: { ...scenario, seed }, parameters: Object.freeze({}) };
  const parameters = Object.freeze({ ...scenario.fuzz.draw(new RngRoot(seed).stream("fuzz"), Object.freeze({ durationSeconds })) });
  const applied: Scenario = { ...scenario.fuzz.apply(scenario, parameters), seed };
  checkScenario(applied);
  return { scenario: applied, parameters };
}

/**
 * The command that replays `seed` of the scenario at `scenarioPath`, fuzz
 * draw applied, as the fuzzer ran it: with its duration, when it is not
 * every block, how often the state invariants were checked (a violation is
 * seen at the first state check after it, so checking at other blocks can
 * fail at another time, or not at all), and its `--set` overrides as they
 * were given, each quoted for a POSIX shell when it needs to be. An
 * absolute path is written as portableScenarioArgument writes it (a shipped
 * scenario by its name).
 */
export function reproductionCommand(scenarioPath: string, seed: number, options: { durationSeconds?: number; invariantEveryBlocks?: number; overrides?: readonly SetOverride[] } = {}): string {
  // An absolute path (what `shadowbook fuzz` resolves) names a shipped scenario by its name, so the command works from any directory.
  return runCommandLine(isAbsolute(scenarioPath) ? portableScenarioArgument(scenarioPath) : scenarioPath, seed, { ...options, fuzz: true });
}

export interface SeedOptions {
  scenarioPath: string;
  durationSeconds?: number;
  invariantEveryBlocks?: number;
  /** `--set` overrides, applied after the seed's fuzz draw (the user's value wins over the drawn one). */
  overrides?: readonly SetOverride[];
}

/** What a seed's result records of its overrides: nothing when there are none. */
function overridesOf(options: SeedOptions): { overrides?: Readonly<Record<string, unknown>> } {
  return options.overrides === undefined || options.overrides.length === 0 ? {} : { overrides: overridesRecord(options.overrides) };
}

/**
 * Runs one seed (in this thread) and reports it; never throws for a failure of the run.
 * `observers` watch the run too (the fuzz command's rerun of a failed seed records its input log).
 */
export async function runFuzzSeed(loaded: LoadedScenario, seed: number, options: SeedOptions, observers: readonly RunObserver[] = []): Promise<FuzzResult> {
  const scenario = loaded.scenario;
  const started = performance.now();
  let parameters: FuzzParameters = {};
  let setup: RunSetup | undefined;
  const watcher: RunObserver = {
    begin(value) {
      setup = value;
    },
  };
  const wallSeconds = () => (performance.now() - started) / 1_000;
  try {
    const fuzzed = fuzzedScenario(scenario, seed, options.durationSeconds);
    parameters = fuzzed.parameters;
    // After the draw: the user's value wins over the drawn one.
    const applied = applyOverrides(fuzzed.scenario, options.overrides ?? []);
    const { figures } = await runScenario(applied, {
      seed,
      invariants: true,
      invariantEveryBlocks: options.invariantEveryBlocks ?? 1,
      observers: [watcher, ...observers],
      paths: loaded.paths,
      ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
    });
    return Object.freeze({ seed, parameters, ...overridesOf(options), ok: true, fingerprint: figures.fingerprint, events: figures.events, atMicros: setup?.world.now() ?? 0, wallSeconds: wallSeconds() });
  } catch (error) {
    const world = setup?.world;
    return Object.freeze({
      seed,
      parameters,
      ...overridesOf(options),
      ok: false,
      ...(world === undefined ? {} : { fingerprint: world.fingerprint.digest(), atMicros: world.now() }),
      events: world?.kernel.eventsProcessed ?? 0,
      error: describeFailure(error),
      reproduce: reproductionCommand(options.scenarioPath, seed, options),
      wallSeconds: wallSeconds(),
    });
  }
}

/**
 * A failed seed as text: the seed, the error, the parameters (the draw, then
 * the --set overrides applied over it, which win) and the reproduction command.
 */
export function formatFailure(result: FuzzResult): string {
  const lines = [`seed ${result.seed}: ${result.error?.kind ?? "failed"}: ${result.error?.message ?? ""}`];
  const parameters = Object.entries(result.parameters).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  const overrides = Object.entries(result.overrides ?? {}).map(([path, value]) => `${path}=${JSON.stringify(value)}`);
  if (overrides.length > 0) parameters.push(`then --set ${overrides.join(" ")}`);
  if (parameters.length > 0) lines.push(`  parameters: ${parameters.join(" ")}`);
  if (result.atMicros !== undefined) lines.push(`  at virtual time ${result.atMicros} after ${result.events} events`);
  if (result.reproduce !== undefined) lines.push(`  reproduce: ${result.reproduce}`);
  return lines.join("\n");
}

// -- the pool ---------------------------------------------------------------------------

/** What a worker is started with. */
export interface FuzzWorkerData extends SeedOptions {
  /** Absolute path of the scenario module. */
  modulePath: string;
}

/**
 * The most worker threads a fuzz run starts. Each loads the scenario and the
 * whole exchange (tens of MB); far more threads than cores only add memory
 * (a million would exhaust it), and results do not depend on the count.
 */
export const FUZZ_WORKERS_MAX = 64;

/** Runs the seeds and reports them sorted by seed. Rejects only when the scenario cannot be loaded. */
export async function fuzzScenario(options: FuzzOptions): Promise<FuzzReport> {
  const workers = options.workers ?? 1;
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > FUZZ_WORKERS_MAX) throw new FuzzError(`workers "${workers}" must be a positive integer at most ${FUZZ_WORKERS_MAX}`);
  checkInvariantEveryBlocks(options.invariantEveryBlocks);
  const seeds = [...new Set(options.seeds)].sort((a, b) => a - b);
  for (const seed of seeds) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new FuzzError(`seed "${seed}" must be a non-negative integer`);
  }
  const started = performance.now();
  const loaded = await loadScenario(options.scenarioPath);
  const scenario = loaded.scenario;
  if (scenario.marketData !== undefined) {
    // Its market is a recording, run by the replay backtest: fuzzing would run an empty simulated exchange and pass.
    throw new FuzzError(`${scenario.name} is a replay backtest of recorded market data: fuzz runs simulated scenarios (run it with shadowbook run)`);
  }
  // A --set the scenario does not have, or whose value it refuses, is refused before any seed runs (the draw aside: each seed applies them again after its own).
  if (options.overrides !== undefined) applyOverrides(scenario, options.overrides);
  const seedOptions: SeedOptions = {
    scenarioPath: options.scenarioPath,
    ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
    ...(options.invariantEveryBlocks === undefined ? {} : { invariantEveryBlocks: options.invariantEveryBlocks }),
    ...(options.overrides === undefined || options.overrides.length === 0 ? {} : { overrides: options.overrides }),
  };
  const results: FuzzResult[] = [];
  const record = (result: FuzzResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const used = Math.max(1, Math.min(workers, seeds.length));
  if (workers === 1) {
    for (const seed of seeds) record(await runFuzzSeed(loaded, seed, seedOptions));
  } else if (seeds.length > 0) {
    const workerData: FuzzWorkerData = { ...seedOptions, modulePath: loaded.path };
    try {
      await runWorkerPool({
        entry: new URL("./fuzz-worker.ts", import.meta.url),
        workerData,
        jobs: seeds,
        workers: used,
        describe: (seed) => `seed ${seed}`,
        loading: `scenario "${seedOptions.scenarioPath}"`,
        name: "fuzz",
        crashed: (seed, death, wallSeconds) => crashResult(scenario, seed, seedOptions, death, wallSeconds),
        record,
        ...(options.seedTimeoutSeconds === undefined ? {} : { jobTimeoutSeconds: options.seedTimeoutSeconds }),
      });
    } catch (error) {
      throw error instanceof WorkerPoolError ? new FuzzError(error.message) : error;
    }
  }
  results.sort((a, b) => a.seed - b.seed);
  const wallSeconds = (performance.now() - started) / 1_000;
  return Object.freeze({
    scenario: scenario.name,
    scenarioPath: options.scenarioPath,
    workers: used,
    results,
    failures: results.filter((result) => !result.ok),
    events: results.reduce((sum, result) => sum + result.events, 0),
    wallSeconds,
    seedsPerSecond: seeds.length / wallSeconds,
  });
}

/** The result of a seed whose worker died (WorkerCrash) or ran out of time (Timeout). */
function crashResult(scenario: Scenario, seed: number, options: SeedOptions, death: WorkerDeath, wallSeconds: number): FuzzResult {
  let parameters: FuzzParameters = {};
  try {
    parameters = fuzzedScenario(scenario, seed, options.durationSeconds).parameters;
  } catch {
    // The draw itself failed: the worker would have reported that as an error, not died; keep {}.
  }
  return Object.freeze({
    seed,
    parameters,
    ...overridesOf(options),
    ok: false,
    events: 0,
    error: { kind: death.kind, message: death.message, stack: death.stack },
    reproduce: reproductionCommand(options.scenarioPath, seed, options),
    wallSeconds,
  });
}
