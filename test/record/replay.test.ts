/**
 * Input logs and replay: a run's log replays to the same fingerprint after
 * every step; a log with one input changed diverges at exactly that step.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { readInputLog, replayInputLog, type InputLog } from "../../src/record/replay.ts";
import { runScenario, type RunFigures } from "../../src/sim/runner.ts";

let log: InputLog;
let figures: RunFigures;

beforeAll(async () => {
  const recorder = new InputLogRecorder();
  ({ figures } = await runScenario(scenario, { durationSeconds: 90, observers: [recorder] }));
  const path = join(mkdtempSync(join(tmpdir(), "shadowbook-replay-")), "inputs.arrow");
  recorder.write(path);
  log = readInputLog(path);
}, 120_000);

describe("input log", () => {
  it("holds every input and timer step of the run, with the run's setup", () => {
    expect(log.scenario).toBe("default");
    expect(log.seed).toBe(1);
    const inputs = log.steps.filter((step) => step.kind !== "advance");
    expect(inputs).toHaveLength(figures.inputs);
    expect(log.steps.some((step) => step.kind === "advance")).toBe(true);
    expect(log.steps.at(-1)!.fingerprint).toBe(figures.fingerprint);
    const times = log.steps.map((step) => step.timeMicros);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

describe("replay", () => {
  it("re-executes the log to the run's fingerprint, matching after every step", () => {
    const result = replayInputLog(log);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(log.steps.length);
    expect(result.fingerprint).toBe(figures.fingerprint);
  });

  it("names exactly the step whose input was changed", () => {
    const creates = log.steps.filter((step) => step.input?.kind === "request" && step.input.op === "createOrder");
    const target = creates[Math.floor(creates.length / 2)]!;
    const changed = log.steps.map((step) => {
      if (step !== target || step.input?.kind !== "request") return step;
      const body = step.input.body as Record<string, unknown>;
      return { ...step, input: { ...step.input, body: { ...body, clientOrderId: 987654321 } } };
    });
    const result = replayInputLog(log, { steps: changed });
    expect(result.divergence?.step.index).toBe(target.index);
    expect(result.steps).toBe(target.index + 1);
  });

  it("stops at --until, with the fingerprint recorded at that step", () => {
    const middle = log.steps[Math.floor(log.steps.length / 2)]!;
    const result = replayInputLog(log, { untilMicros: middle.timeMicros });
    expect(result.divergence).toBeUndefined();
    const last = log.steps[result.steps - 1]!;
    expect(last.timeMicros).toBeLessThanOrEqual(middle.timeMicros);
    expect(log.steps[result.steps]?.timeMicros ?? Infinity).toBeGreaterThan(middle.timeMicros);
    expect(result.fingerprint.startsWith(last.fingerprint)).toBe(true);
  });
});
