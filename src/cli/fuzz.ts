/**
 * `shadowbook fuzz <scenario> --seeds 1..1000 --workers 2`: swarm testing.
 * Each seed draws the scenario's free parameters (its `fuzz` section) and
 * runs with the exchange invariants checked; every failing seed is printed
 * with its parameters and the one command that reproduces it. Results are
 * the same with any number of workers. Exit status 1 when a seed failed.
 */
import { fuzzScenario, formatFailure, parseSeeds, type FuzzReport } from "../sim/fuzz.ts";
import { scenarioPath } from "../sim/scenario-loader.ts";

export interface FuzzCommandOptions {
  seeds: string;
  workers: string;
  duration?: string;
  invariantEvery?: string;
  progress?: boolean;
}

function positiveInteger(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new Error(`${flag} "${value}" must be a positive integer`);
  return Number(value);
}

export async function fuzzCommand(argument: string, options: FuzzCommandOptions): Promise<FuzzReport> {
  const seeds = parseSeeds(options.seeds);
  const workers = positiveInteger(options.workers, "--workers");
  const durationSeconds = options.duration === undefined ? undefined : Number(options.duration);
  if (durationSeconds !== undefined && !(durationSeconds > 0)) throw new Error(`--duration "${options.duration}" must be a positive number of seconds`);
  let done = 0;
  let failed = 0;
  const report = await fuzzScenario({
    scenarioPath: scenarioPath(argument),
    seeds,
    workers,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(options.invariantEvery === undefined ? {} : { invariantEveryBlocks: positiveInteger(options.invariantEvery, "--invariant-every") }),
    onResult: (result) => {
      done++;
      if (!result.ok) failed++;
      if (options.progress !== false && process.stderr.isTTY) process.stderr.write(`\r${done}/${seeds.length} seeds, ${failed} failed`);
    },
  });
  if (options.progress !== false && process.stderr.isTTY) process.stderr.write("\n");
  console.log(`shadowbook fuzz ${report.scenario}: ${report.results.length} seeds on ${report.workers} worker${report.workers === 1 ? "" : "s"}, ${report.failures.length} failed`);
  for (const failure of report.failures) console.log(formatFailure(failure));
  console.log(
    `  ${report.events.toLocaleString("en-US")} events in ${report.wallSeconds.toFixed(1)} s wall: ${report.seedsPerSecond.toFixed(2)} seeds/s, ${Math.round(report.events / report.wallSeconds).toLocaleString("en-US")} events/s`,
  );
  if (report.failures.length > 0) process.exitCode = 1;
  return report;
}
