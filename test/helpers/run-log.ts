/**
 * The input log of a short simulated run, written to `path` for the replay
 * tests: the default scenario (or `scenario`) for `durationSeconds`.
 */
import defaultScenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { runScenario } from "../../src/sim/runner.ts";
import type { Scenario } from "../../src/sim/scenario.ts";

export async function writeRunLog(path: string, durationSeconds: number, scenario: Scenario = defaultScenario): Promise<void> {
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds, observers: [recorder] });
  recorder.write(path);
}
