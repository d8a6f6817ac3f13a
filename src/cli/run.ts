/**
 * `shadowbook run <scenario>`: one backtest on the virtual clock.
 *
 * Prints a progress bar, then the summary table (per agent and per market),
 * the run's figures and fingerprint; `--out DIR` also writes the Arrow
 * outputs, summary.json and report.html there (src/report/write-run.ts),
 * and the run's input log, inputs.arrow (src/record/input-log.ts), which
 * `shadowbook replay` re-executes. `--out` is checked before the run, and
 * a run whose files cannot all be written leaves no report of a finished
 * run (src/cli/run-out.ts).
 *
 * `--seed` replaces the scenario's seed; `--fuzz` also applies that seed's
 * fuzz draw (what `shadowbook fuzz` ran for the seed) and checks the
 * invariants, as the fuzzer does, so any fuzz failure reproduces with
 * `shadowbook run <scenario> --seed N --fuzz` (plus the fuzz run's
 * `--duration`, and its `--invariant-every K` when K is not 1: the state
 * invariants are checked after every K blocks, as the fuzzer checked them,
 * so a violation is seen at the same block).
 *
 * `--set <path>=<value>` (repeatable) changes one of the scenario's values
 * for this run (src/sim/overrides.ts: `<agent>.<param>`,
 * `<agent>.account.rateTier`, a few scenario fields); with `--fuzz`, after
 * the seed's draw, so the user's value wins. A malformed or refused --set
 * stops the command before the run. The header line names the overrides and
 * summary.json records them (`overrides`).
 *
 * A scenario with `marketData` has a recorded market instead of agents: it
 * runs the replay backtest (src/backtest/run.ts), `--seed` seeding its
 * latencies, `--duration` bounding the replayed seconds, and `--out`
 * writing fills.arrow and summary.json (checked before the run and staged
 * the same way). Its strategy's params are refused, if bad, when the
 * scenario is checked: before the recording is read.
 */
import { basename } from "node:path";
import { formatReplaySummary, REPLAY_OUTPUT_FILES, runReplayScenario, writeReplayOutputs, type ReplayRun } from "../backtest/run.ts";
import { InputLogRecorder } from "../record/input-log.ts";
import { formatSummaryTable, RunSummaryObserver } from "../report/summary.ts";
import { createRunOutputs } from "../report/write-run.ts";
import { fuzzedScenario } from "../sim/fuzz.ts";
import { runCommandLine } from "../sim/command-line.ts";
import { applyOverrides, formatOverrides, overridesRecord, parseSetFlags } from "../sim/overrides.ts";
import { runScenario, type RunFigures } from "../sim/runner.ts";
import { durationProblem, type Scenario, type SignatureMode } from "../sim/scenario.ts";
import { loadScenario, portableScenarioArgument } from "../sim/scenario-loader.ts";
import { progressBar } from "./progress.ts";
import { abandonStaging, checkOutDir, outFailure, prepareStaging, stagedInputLogPath, writeRunOutputs, writeStaged, type Staging } from "./run-out.ts";

export interface RunCommandOptions {
  seed?: string;
  out?: string;
  verifySignatures?: boolean;
  duration?: string;
  invariants?: boolean;
  /** With the invariants on (--invariants or --fuzz): check the state invariants every this many blocks (default 1). */
  invariantEvery?: string;
  fuzz?: boolean;
  /** `--set <path>=<value>` flags, in order (src/sim/overrides.ts). */
  set?: string[];
  progress?: boolean;
  verbose?: boolean;
}

export function parseSeed(value: string, flag = "--seed"): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`${flag} "${value}" must be a non-negative integer`);
  return Number(value);
}

/** `--duration`: seconds of virtual time in decimal digits (`3600`, `0.5`), at least a microsecond (durationProblem). */
export function parseDuration(value: string): number {
  const seconds = Number(value);
  const problem = /^\d+(\.\d+)?$/.test(value) ? durationProblem(seconds) : "must be a positive number of seconds in decimal digits, e.g. 3600 or 0.5";
  if (problem !== null) throw new Error(`--duration "${value}" ${problem}`);
  return seconds;
}

function parseInvariantEvery(value: string, invariants: boolean): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new Error(`--invariant-every "${value}" must be a positive integer`);
  if (!invariants) throw new Error(`--invariant-every "${value}" needs the invariants on (--invariants or --fuzz)`);
  return Number(value);
}

export async function runCommand(argument: string, options: RunCommandOptions): Promise<RunFigures | ReplayRun> {
  // A malformed --set is refused before the scenario is even loaded.
  const overrides = parseSetFlags(options.set);
  const trusted = overrides.find((override) => override.path === "signatures" && override.value === "trusted");
  if (options.verifySignatures === true && trusted !== undefined) {
    throw new Error(`--verify-signatures and --set ${JSON.stringify(trusted.raw)} disagree: signed mode, or trusted, not both`);
  }
  const loaded = await loadScenario(argument);
  if (loaded.scenario.marketData !== undefined) {
    refuseSimulationFlags(loaded.scenario.name, options);
    return replayRunCommand(loaded.scenario, options);
  }
  let scenario = loaded.scenario;
  const seed = options.seed === undefined ? scenario.seed : parseSeed(options.seed);
  // A fuzz seed is reproduced as the fuzzer ran it: with the invariants checked.
  const invariants = options.invariants === true || options.fuzz === true;
  const invariantEveryBlocks = options.invariantEvery === undefined ? undefined : parseInvariantEvery(options.invariantEvery, invariants);
  const durationSeconds = options.duration === undefined ? undefined : parseDuration(options.duration);
  if (options.fuzz === true) {
    const fuzzed = fuzzedScenario(scenario, seed, durationSeconds);
    scenario = fuzzed.scenario;
    const drawn = Object.entries(fuzzed.parameters).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    // As the fuzzer prints a failing seed's parameters: the draw, then the overrides that win over it.
    if (overrides.length > 0 && drawn.length > 0) drawn.push(`then --set ${formatOverrides(overrides)}`);
    if (drawn.length > 0) console.log(`fuzz draw of seed ${seed}: ${drawn.join(" ")}`);
  }
  // After the fuzz draw, if any: the user's value wins.
  scenario = applyOverrides(scenario, overrides);
  const signatures: SignatureMode = options.verifySignatures === true ? "signed" : scenario.signatures ?? "trusted";
  if (options.out !== undefined) checkOutDir(options.out);
  const bar = options.progress === false ? undefined : progressBar();
  const command = runCommandLine(portableScenarioArgument(loaded.path), seed, {
    fuzz: options.fuzz === true,
    invariants,
    verifySignatures: options.verifySignatures === true,
    overrides,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(invariantEveryBlocks === undefined ? {} : { invariantEveryBlocks }),
  });
  // The files are written into a staging directory inside --out (the Arrow outputs and the input log while the run runs), then moved (writeRunOutputs).
  const staging = options.out === undefined ? undefined : prepareStaging(options.out);
  const outputs = staging === undefined ? undefined : createRunOutputs(staging.dir, { overrides: overridesRecord(overrides), stream: true });
  const summary = outputs?.summary ?? new RunSummaryObserver({ overrides: overridesRecord(overrides) });
  const inputLog = staging === undefined ? undefined : new InputLogRecorder({ command, streamTo: stagedInputLogPath(staging) });
  const { run, figures } = await whileStaging(staging, [outputs, inputLog], () =>
    runScenario(scenario, {
      observers: [...(outputs?.observers ?? [summary]), ...(inputLog === undefined ? [] : [inputLog])],
      seed,
      signatures,
      paths: loaded.paths,
      invariants,
      ...(invariantEveryBlocks === undefined ? {} : { invariantEveryBlocks }),
      ...(durationSeconds === undefined ? {} : { durationSeconds }),
      ...(bar === undefined ? {} : { onProgress: (progress) => bar.update(progress) }),
    }),
  );
  bar?.done();
  const set = overrides.length === 0 ? "" : `; --set ${formatOverrides(overrides)}`;
  console.log(`shadowbook run ${scenario.name} (seed ${figures.seed}, ${signatures === "signed" ? "signed mode: every signature verified" : "trusted mode: signatures not checked"}${set})`);
  const written = staging === undefined ? undefined : await writeRunOutputs(options.out!, staging, outputs!, inputLog!, figures);
  console.log(written?.table ?? formatSummaryTable(summary.summarize(figures)));
  if (options.verbose === true) {
    for (const agent of run.host.agents) {
      const counts = [...agent.counts].map(([name, count]) => `${name} ${count}`).join(", ");
      console.log(`  ${agent.name.padEnd(20)} ${counts}`);
    }
  }
  if (written !== undefined) console.log(`wrote ${written.files.length} files to ${options.out}: ${written.files.map((file) => basename(file)).join(", ")}`);
  return figures;
}

/**
 * Runs `run` while the run's Arrow outputs and input log (`writers`)
 * stream into `staging`: if it
 * fails, or SIGINT or SIGTERM ends the process meanwhile, the files
 * streamed so far and the staging directory are removed (and --out, when
 * the run made it), so that an unfinished run leaves nothing behind; a
 * failure to write them is reworded naming --out. The signal is raised
 * again once they are gone, so the process ends as the signal ends it.
 */
async function whileStaging<T>(staging: Staging | undefined, writers: readonly ({ abandon(): void } | undefined)[], run: () => Promise<T>): Promise<T> {
  if (staging === undefined) return run();
  const abandon = () => {
    for (const writer of writers) writer?.abandon();
    abandonStaging(staging);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    abandon();
    process.kill(process.pid, signal);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await run();
  } catch (error) {
    abandon();
    throw outFailure(staging.out, error);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * A replay backtest has no simulated exchange to sign for, check or fuzz:
 * the flags that set those are refused by name rather than ignored.
 */
function refuseSimulationFlags(name: string, options: RunCommandOptions): void {
  const flags: [string, boolean][] = [
    ["--verify-signatures", options.verifySignatures === true],
    ["--invariants", options.invariants === true],
    ["--invariant-every", options.invariantEvery !== undefined],
    ["--fuzz", options.fuzz === true],
    ["--set", (options.set?.length ?? 0) > 0],
  ];
  const given = flags.find(([, set]) => set);
  if (given !== undefined) {
    throw new Error(`${given[0]} does not apply to ${name}: a replay backtest of recorded market data (it takes --seed, --duration and --out)`);
  }
}

/**
 * A scenario whose market is a recording: the replay backtest
 * (src/backtest/run.ts). Its --out is checked before the run, and its files
 * are written through a staging directory, summary.json last, as a run
 * with agents writes its own (src/cli/run-out.ts).
 */
async function replayRunCommand(scenario: Scenario, options: RunCommandOptions): Promise<ReplayRun> {
  if (options.out !== undefined) checkOutDir(options.out, REPLAY_OUTPUT_FILES);
  const run = runReplayScenario(scenario, {
    ...(options.seed === undefined ? {} : { seed: parseSeed(options.seed) }),
    ...(options.duration === undefined ? {} : { durationSeconds: parseDuration(options.duration) }),
  });
  console.log(`shadowbook run ${scenario.name} (seed ${run.result.seed}, replay of recorded market data)`);
  console.log(formatReplaySummary(run));
  const files = options.out === undefined ? undefined : await writeStaged(options.out, (staging) => writeReplayOutputs(staging, run), { files: REPLAY_OUTPUT_FILES });
  if (files !== undefined) console.log(`wrote ${files.length} files to ${options.out}: ${files.map((file) => basename(file)).join(", ")}`);
  return run;
}
