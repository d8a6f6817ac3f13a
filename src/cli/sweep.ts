/**
 * `shadowbook sweep <scenario> --vary mm-eth.spreadBps=4,6,8 --seeds 1..3`:
 * the scenario backtested over every combination of the --vary values, once
 * per seed (src/report/sweep.ts), on worker threads; then one table row per
 * combination and agent shown: the agent's net PnL over the seeds (mean,
 * sample standard deviation, min, max) and the means of its trades, volume,
 * fees, maximum drawdown and fill ratio; then, per agent shown, the
 * combination with the best mean net PnL among those whose every run
 * passed (and how many tie with it).
 *
 * Agents shown: `--agent <name>` (repeatable; checked before any run), else
 * those the --vary paths name (`mm-eth.spreadBps` names mm-eth), else every
 * agent. `--out` is checked before any run too. `--run-timeout <seconds>`
 * (2 or more workers) fails a run still going after that much wall time, as
 * Timeout, so one run that never ends cannot hang the sweep. `--set` fixes a
 * value for every run (a path may not be both set and varied). `--out DIR`
 * writes `sweep.json`: the grid, every run (its seed, values, fingerprint,
 * figures per agent, and the `shadowbook run` command that runs it alone)
 * and every combination's figures. A run that failed is listed with its
 * error and command, and the exit status is 1.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatNumber, formatTable } from "../report/summary.ts";
import { parseVaryFlags, sweepScenario, type CombinationSummary, type SweepReport } from "../report/sweep.ts";
import { FUZZ_WORKERS_MAX, parseSeeds } from "../sim/fuzz.ts";
import { formatOverrides, parseSetFlags } from "../sim/overrides.ts";
import { checkOutDir } from "./run-out.ts";
import { parseTimeout } from "./fuzz.ts";
import { countProgress } from "./progress.ts";
import { parseDuration } from "./run.ts";

export interface SweepCommandOptions {
  /** `--vary <path>=<v1>,<v2>,...` flags, in order. */
  vary?: string[];
  seeds: string;
  workers: string;
  duration?: string;
  /** `--set <path>=<value>` flags, in order (src/sim/overrides.ts). */
  set?: string[];
  /** `--agent <name>` flags: the agents shown. */
  agent?: string[];
  out?: string;
  /** `--run-timeout <seconds>`: wall seconds a run may take on a worker (fuzz.ts parseTimeout). */
  runTimeout?: string;
  progress?: boolean;
}

function positiveInteger(value: string, flag: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new Error(`${flag} "${value}" must be a positive integer at most ${max}`);
  return Number(value);
}

/** The agents a sweep shows: those asked for (sweepScenario checked each is the scenario's), else those the axes name, else all. */
export function shownAgents(report: SweepReport, asked: readonly string[] | undefined): string[] {
  if (asked !== undefined && asked.length > 0) return [...asked];
  const named = report.agentNames.filter((name) => report.axes.some((axis) => axis.path.startsWith(`${name}.`)));
  return named.length > 0 ? named : [...report.agentNames];
}

/** The table: one row per combination and agent shown. */
export function sweepTable(report: SweepReport, agents: readonly string[]): string {
  const header = [...report.axes.map((axis) => axis.path), "agent", "runs", "net PnL mean", "sd", "min", "max", "trades", "volume", "fees", "max DD", "fill ratio"];
  const rows: string[][] = [];
  for (const combination of report.combinations) {
    for (const name of agents) {
      const figures = combination.agents[name];
      const runs = combination.failed === 0 ? String(combination.runs) : `${combination.runs - combination.failed}/${combination.runs}`;
      rows.push([
        ...combination.overrides.map((override) => valueText(override.value)),
        name,
        runs,
        formatNumber(figures?.netPnl.mean ?? null),
        formatNumber(figures?.netPnl.sd ?? null),
        formatNumber(figures?.netPnl.min ?? null),
        formatNumber(figures?.netPnl.max ?? null),
        formatNumber(figures?.trades ?? null, 1),
        formatNumber(figures?.volume ?? null),
        formatNumber(figures?.fees ?? null),
        formatNumber(figures?.maxDrawdown ?? null),
        figures?.fillRatio === null || figures?.fillRatio === undefined ? "-" : `${(figures.fillRatio * 100).toFixed(1)}%`,
      ]);
    }
  }
  return formatTable(header, rows);
}

/** A value as the table shows it: text as it is, anything else as JSON. */
function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The combination with the highest mean net PnL for `agent`, among those
 * whose every run passed (a mean over the survivors of a failing
 * combination is not comparable), and how many others share that mean;
 * undefined when no such combination has one.
 */
export function bestFor(report: SweepReport, agent: string): { combination: CombinationSummary; ties: number } | undefined {
  let best: CombinationSummary | undefined;
  let ties = 0;
  for (const combination of report.combinations) {
    const mean = combination.failed > 0 ? null : (combination.agents[agent]?.netPnl.mean ?? null);
    if (mean === null) continue;
    const bestMean = best?.agents[agent]!.netPnl.mean ?? null;
    if (best === undefined || bestMean === null || mean > bestMean) {
      best = combination;
      ties = 0;
    } else if (mean === bestMean) ties++;
  }
  return best === undefined ? undefined : { combination: best, ties };
}

export async function sweepCommand(argument: string, options: SweepCommandOptions): Promise<SweepReport> {
  const overrides = parseSetFlags(options.set);
  const axes = parseVaryFlags(options.vary, overrides);
  const seeds = parseSeeds(options.seeds);
  const workers = positiveInteger(options.workers, "--workers", FUZZ_WORKERS_MAX);
  const durationSeconds = options.duration === undefined ? undefined : parseDuration(options.duration);
  const runTimeoutSeconds = options.runTimeout === undefined ? undefined : parseTimeout(options.runTimeout, "--run-timeout", workers);
  if (options.out !== undefined) checkOutDir(options.out, ["sweep.json"]);
  const runCount = axes.reduce((count, axis) => count * axis.values.length, 1) * seeds.length;
  let done = 0;
  const progress = options.progress === false ? undefined : countProgress(runCount, "runs");
  const report = await sweepScenario({
    scenarioPath: argument,
    axes,
    seeds,
    overrides,
    workers,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(options.agent === undefined ? {} : { agents: options.agent }),
    ...(runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds }),
    onResult: () => {
      done++;
      progress?.update(done);
    },
  });
  progress?.done();
  const agents = shownAgents(report, options.agent);
  const set = overrides.length === 0 ? "" : ` (--set ${formatOverrides(overrides)})`;
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  console.log(
    `shadowbook sweep ${report.scenario}${set}: ${plural(report.combinations.length, "combination")} x ${plural(report.seeds.length, "seed")} = ${plural(report.runs.length, "run")} of ${report.durationSeconds.toLocaleString("en-US")} simulated s on ${plural(report.workers, "worker")}`,
  );
  console.log(sweepTable(report, agents));
  for (const name of agents) {
    const best = bestFor(report, name);
    if (best === undefined) continue;
    const tied = best.ties === 0 ? "" : `, tied with ${best.ties} other${best.ties === 1 ? "" : "s"}`;
    console.log(`best mean net PnL of ${name}: ${best.combination.overrides.map((override) => override.raw).join(" ")} (${formatNumber(best.combination.agents[name]!.netPnl.mean)}${tied})`);
  }
  const failures = report.runs.filter((run) => !run.ok);
  for (const failure of failures) {
    console.log(`combination ${failure.combination + 1}, seed ${failure.seed} failed: ${failure.error?.kind}: ${failure.error?.message}`);
    console.log(`  reproduce: ${failure.command}`);
  }
  console.log(`  ${report.events.toLocaleString("en-US")} events in ${report.wallSeconds.toFixed(1)} s wall`);
  if (options.out !== undefined) {
    mkdirSync(options.out, { recursive: true });
    const path = join(options.out, "sweep.json");
    writeFileSync(path, `${JSON.stringify(sweepJson(report), null, 2)}\n`);
    console.log(`wrote ${path}`);
  }
  if (failures.length > 0) process.exitCode = 1;
  return report;
}

/** sweep.json: the grid, every run and every combination's figures (no wall times: the same sweep gives the same file). */
export function sweepJson(report: SweepReport): Record<string, unknown> {
  const values = (combination: number) => Object.fromEntries(report.combinations[combination]!.overrides.map((override) => [override.path, override.value]));
  return {
    scenario: report.scenario,
    durationSeconds: report.durationSeconds,
    seeds: report.seeds,
    set: Object.fromEntries(report.overrides.map((override) => [override.path, override.value])),
    vary: report.axes.map((axis) => ({ path: axis.path, values: axis.values.map((value) => value.value) })),
    combinations: report.combinations.map((combination) => ({ values: values(combination.index), runs: combination.runs, failed: combination.failed, agents: combination.agents })),
    runs: report.runs.map((run) => ({
      values: values(run.combination),
      seed: run.seed,
      ok: run.ok,
      ...(run.fingerprint === undefined ? {} : { fingerprint: run.fingerprint }),
      ...(run.agents === undefined ? {} : { agents: run.agents }),
      ...(run.error === undefined ? {} : { error: { kind: run.error.kind, message: run.error.message } }),
      command: run.command,
    })),
  };
}
