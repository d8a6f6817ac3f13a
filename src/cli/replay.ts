/**
 * `shadowbook replay <inputs.arrow>`: re-executes a run's input log through
 * a fresh Exchange and checks the fingerprint after every step; prints the
 * first step where the replay diverges (its index, time, kind and input),
 * or that every step matched. `--until <unix ms>` stops there. Exit status
 * 1 on a divergence.
 */
import { formatMicros } from "../core/time.ts";
import { readInputLog, replayInputLog } from "../record/replay.ts";

export interface ReplayCommandOptions {
  until?: string;
}

export function replayCommand(path: string, options: ReplayCommandOptions): void {
  const log = readInputLog(path);
  let untilMicros: number | undefined;
  if (options.until !== undefined) {
    if (!/^\d+$/.test(options.until)) throw new Error(`--until "${options.until}" must be a Unix time in ms`);
    untilMicros = Number(options.until) * 1_000;
  }
  const started = performance.now();
  const result = replayInputLog(log, untilMicros === undefined ? {} : { untilMicros });
  const seconds = (performance.now() - started) / 1_000;
  console.log(`shadowbook replay ${path}: scenario ${log.scenario}, seed ${log.seed}, ${log.steps.length.toLocaleString("en-US")} steps logged`);
  if (result.divergence !== undefined) {
    const { step, replayed } = result.divergence;
    console.log(`  DIVERGES at step ${step.index} (${formatMicros(step.timeMicros)}, ${step.kind}): recorded fingerprint ${step.fingerprint}..., replayed ${replayed}`);
    if (step.input !== undefined) console.log(`  input: ${JSON.stringify(step.input).slice(0, 400)}`);
    process.exitCode = 1;
    return;
  }
  console.log(`  ${result.steps.toLocaleString("en-US")} steps replayed in ${seconds.toFixed(2)} s, every fingerprint matched`);
  console.log(`  fingerprint ${result.fingerprint}`);
}
