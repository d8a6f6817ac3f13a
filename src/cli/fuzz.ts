/**
 * `shadowbook fuzz <scenario> --seeds 1..1000 --workers 2`: swarm testing.
 * Each seed draws the scenario's free parameters (its `fuzz` section) and
 * runs with the exchange invariants checked; every failing seed is printed
 * with its parameters and the one command that reproduces it. Results are
 * the same with any number of workers. Exit status 1 when a seed failed.
 *
 * Input logs of failures: once the pool is done, each failed seed runs
 * again here, serially, with the input-log recorder, and its log is written
 * to `<out>/seed-<n>/inputs.arrow` (default out: `runs/fuzz-<scenario>`);
 * `shadowbook replay <log> --until <failure ms>` replays it to the failure.
 * A run is deterministic, so the rerun fails the same way (same error, same
 * time, same fingerprint); that is checked, and a rerun that does not is
 * reported as nondeterminism (itself a bug). A seed whose worker died
 * (WorkerCrash, Timeout) is not rerun in this process.
 *
 * `--seed-timeout <seconds>` (2 or more workers): a seed still running after
 * that much wall time fails as Timeout and its worker is replaced, so one
 * seed that never ends (an agent's endless loop) cannot hang the command.
 *
 * `--set <path>=<value>` (repeatable, src/sim/overrides.ts) changes a
 * scenario value for every seed, after the seed's fuzz draw (the given value
 * wins over the drawn one). A malformed --set, or one the scenario does not
 * have or refuses, stops the command before any seed runs; a failing seed's
 * parameters line shows the overrides after the draw, and its reproduce
 * command carries the same --set flags.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { formatMicros, microsToMillis } from "../core/time.ts";
import { InputLogRecorder } from "../record/input-log.ts";
import { FUZZ_WORKERS_MAX, fuzzScenario, formatFailure, parseSeeds, reproductionCommand, runFuzzSeed, type FuzzReport, type FuzzResult, type SeedOptions } from "../sim/fuzz.ts";
import { formatOverrides, parseSetFlags, shellWord } from "../sim/overrides.ts";
import { loadScenario, scenarioPath } from "../sim/scenario-loader.ts";
import { countProgress } from "./progress.ts";
import { parseDuration } from "./run.ts";

export interface FuzzCommandOptions {
  seeds: string;
  workers: string;
  duration?: string;
  invariantEvery?: string;
  progress?: boolean;
  /** Directory of the failed seeds' input logs (default runs/fuzz-<scenario>). */
  out?: string;
  /** `--set <path>=<value>` flags, in order (src/sim/overrides.ts). */
  set?: string[];
  /** `--seed-timeout <seconds>`: wall seconds a seed may run on a worker (parseTimeout). */
  seedTimeout?: string;
}

/** The input log written for a failed seed, and whether its rerun failed the same way. */
export interface FailureLog {
  readonly seed: number;
  readonly path: string;
  readonly sameFailure: boolean;
  /** What differed, when the rerun did not fail the same way. */
  readonly difference?: string;
}

/** Failures whose worker died are not rerun in this process (the rerun could take it down too). */
const NOT_RERUN = new Set(["WorkerCrash", "Timeout"]);

/**
 * A wall-clock timeout flag in seconds (a positive decimal, at most a day).
 * Only a worker can be stopped (a run in this thread cannot be interrupted),
 * so it is refused with --workers 1.
 */
export function parseTimeout(value: string, flag: string, workers: number): number {
  if (!/^\d+(\.\d+)?$/.test(value) || !(Number(value) > 0) || Number(value) > 86_400) throw new Error(`${flag} "${value}" must be a positive number of seconds, at most 86400`);
  if (workers < 2) throw new Error(`${flag} needs --workers 2 or more: a run in this thread cannot be stopped`);
  return Number(value);
}

function positiveInteger(value: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const limit = max === Number.MAX_SAFE_INTEGER ? "" : ` at most ${max}`;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !(Number(value) <= max)) throw new Error(`${flag} "${value}" must be a positive integer${limit}`);
  return Number(value);
}

export async function fuzzCommand(argument: string, options: FuzzCommandOptions): Promise<FuzzReport & { logs: readonly FailureLog[] }> {
  const seeds = parseSeeds(options.seeds);
  const workers = positiveInteger(options.workers, "--workers", FUZZ_WORKERS_MAX);
  const durationSeconds = options.duration === undefined ? undefined : parseDuration(options.duration);
  const overrides = parseSetFlags(options.set);
  let done = 0;
  let failed = 0;
  const progress = options.progress === false ? undefined : countProgress(seeds.length, "seeds");
  const seedOptions: SeedOptions = {
    scenarioPath: scenarioPath(argument),
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(options.invariantEvery === undefined ? {} : { invariantEveryBlocks: positiveInteger(options.invariantEvery, "--invariant-every") }),
    ...(overrides.length === 0 ? {} : { overrides }),
  };
  const seedTimeoutSeconds = options.seedTimeout === undefined ? undefined : parseTimeout(options.seedTimeout, "--seed-timeout", workers);
  const report = await fuzzScenario({
    ...seedOptions,
    seeds,
    workers,
    ...(seedTimeoutSeconds === undefined ? {} : { seedTimeoutSeconds }),
    onResult: (result) => {
      done++;
      if (!result.ok) failed++;
      progress?.update(done, `${failed} failed`);
    },
  });
  progress?.done();
  const set = overrides.length === 0 ? "" : ` (--set ${formatOverrides(overrides)})`;
  console.log(`shadowbook fuzz ${report.scenario}${set}: ${report.results.length} seed${report.results.length === 1 ? "" : "s"} on ${report.workers} worker${report.workers === 1 ? "" : "s"}, ${report.failures.length} failed`);
  const stats = `  ${report.events.toLocaleString("en-US")} events in ${report.wallSeconds.toFixed(1)} s wall: ${report.seedsPerSecond.toFixed(2)} seeds/s, ${Math.round(report.events / report.wallSeconds).toLocaleString("en-US")} events/s`;
  const logs: FailureLog[] = [];
  const outDir = options.out ?? join("runs", `fuzz-${report.scenario}`);
  for (const failure of report.failures) {
    console.log(formatFailure(failure));
    if (NOT_RERUN.has(failure.error?.kind ?? "")) {
      console.log(`  no input log: a seed whose worker died is not rerun in this process (reproduce it with the command above)`);
      continue;
    }
    const log = await writeFailureLog(failure, seedOptions, join(outDir, `seed-${failure.seed}`));
    if (log === undefined) {
      console.log("  no input log: the run failed before it began");
      continue;
    }
    logs.push(log);
    if (!log.sameFailure) {
      console.log(`  NONDETERMINISTIC: the serial rerun did not fail the same way (${log.difference}); its log is ${log.path}`);
      continue;
    }
    const until = failure.atMicros === undefined ? "" : ` --until ${microsToMillis(failure.atMicros)}`;
    console.log(`  input log: ${log.path}`);
    console.log(`  replay: npx shadowbook replay ${shellWord(log.path)}${until}${failure.atMicros === undefined ? "" : `   (the state at the failure, ${formatMicros(failure.atMicros)}: as of the last step logged by then)`}`);
  }
  console.log(stats);
  if (report.failures.length > 0) process.exitCode = 1;
  return { ...report, logs };
}

/**
 * Reruns a failed seed in this thread with the input-log recorder and writes
 * the log to `<dir>/inputs.arrow`; undefined when the run never began.
 */
export async function writeFailureLog(failure: FuzzResult, seedOptions: SeedOptions, dir: string): Promise<FailureLog | undefined> {
  const loaded = await loadScenario(seedOptions.scenarioPath);
  const recorder = new InputLogRecorder({ command: failure.reproduce ?? reproductionCommand(seedOptions.scenarioPath, failure.seed, seedOptions) });
  let began = false;
  const rerun = await runFuzzSeed(loaded, failure.seed, seedOptions, [recorder, { begin: () => (began = true) }]);
  if (!began) return undefined;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "inputs.arrow");
  // A failure can stop its step part way: the log says how many outputs its last fingerprint covers (replay matches it).
  recorder.write(path, { failed: !rerun.ok });
  const difference = failureDifference(failure, rerun);
  return { seed: failure.seed, path, sameFailure: difference === undefined, ...(difference === undefined ? {} : { difference }) };
}

/** What differs between a seed's failure and its rerun (undefined when they are the same failure). */
function failureDifference(first: FuzzResult, rerun: FuzzResult): string | undefined {
  if (rerun.ok) return "the rerun passed";
  const pairs: [string, unknown, unknown][] = [
    ["error", `${first.error?.kind}: ${first.error?.message}`, `${rerun.error?.kind}: ${rerun.error?.message}`],
    ["virtual time", first.atMicros, rerun.atMicros],
    ["events", first.events, rerun.events],
    ["fingerprint", first.fingerprint, rerun.fingerprint],
  ];
  const differ = pairs.filter(([, a, b]) => a !== b).map(([what, a, b]) => `${what} ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
  return differ.length === 0 ? undefined : differ.join("; ");
}
