import { describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import { RngRoot } from "../../src/core/rng.ts";
import { AgentFailedError } from "../../src/sim/agent-host.ts";
import { fuzzCommand } from "../../src/cli/fuzz.ts";
import { describeFailure } from "../../src/sim/failure.ts";
import { formatFailure, FUZZ_WORKERS_MAX, fuzzedScenario, fuzzScenario, parseSeeds, reproductionCommand, SEEDS_MAX, type FuzzResult } from "../../src/sim/fuzz.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { DEFAULT_START_MS } from "../../src/sim/scenario.ts";
import crashScenario from "./fixtures/crash-scenario.ts";
import failingScenario, { BUST_LIMIT } from "./fixtures/failing-scenario.ts";
import fuzzFixture, { BASE } from "./fixtures/fuzz-scenario.ts";
import defaultScenario from "../../scenarios/default.ts";

const FUZZ = "test/sim/fixtures/fuzz-scenario.ts";
const FAILING = "test/sim/fixtures/failing-scenario.ts";
const CRASH = "test/sim/fixtures/crash-scenario.ts";
const T0 = DEFAULT_START_MS * 1_000;

/** What must not depend on where a seed ran (all but wall time and stack paths). */
function comparable(result: FuzzResult) {
  const { wallSeconds: _wall, error, ...rest } = result;
  return { ...rest, error: error === undefined ? undefined : { ...error, stack: undefined } };
}

describe("parseSeeds", () => {
  it("parses ranges, lists and both, sorted and each once", () => {
    expect(parseSeeds("1..5")).toEqual([1, 2, 3, 4, 5]);
    expect(parseSeeds("1,5,9")).toEqual([1, 5, 9]);
    expect(parseSeeds("9, 3..5 ,4,0")).toEqual([0, 3, 4, 5, 9]);
    expect(parseSeeds("7..7")).toEqual([7]);
    expect(parseSeeds("1..1000")).toHaveLength(1000);
  });

  it("refuses what is not a seed, a backwards range and too many seeds", () => {
    expect(() => parseSeeds("")).toThrow(/an entry is empty/);
    expect(() => parseSeeds("1,,2")).toThrow(/an entry is empty/);
    expect(() => parseSeeds("a")).toThrow(/"a" is not a non-negative integer/);
    expect(() => parseSeeds("-1")).toThrow(/"-1" is not a non-negative integer/);
    expect(() => parseSeeds("1.5")).toThrow(/"1.5" is not a non-negative integer/);
    expect(() => parseSeeds("1..")).toThrow(/is not a non-negative integer/);
    expect(() => parseSeeds("5..1")).toThrow('--seeds "5..1": range "5..1" ends before it starts');
    expect(() => parseSeeds("99999999999999999")).toThrow(/beyond the safe integers/);
    expect(() => parseSeeds(`1..${SEEDS_MAX + 1}`)).toThrow(/more than 1000000 seeds/);
  });
});

describe("fuzzedScenario", () => {
  it("draws the default scenario's fault within the run it is fuzzed for: anywhere in a ten-minute run, within the minute of a one-minute run", () => {
    const at = (durationSeconds: number) =>
      Array.from({ length: 300 }, (_, i) => fuzzedScenario(defaultScenario, i + 1, durationSeconds).parameters)
        .filter((parameters) => parameters["fault"] !== "none")
        .map((parameters) => Number(parameters["faultAtSeconds"]));
    const minute = at(60);
    const tenMinutes = at(600);
    expect(minute.length).toBeGreaterThan(100);
    expect(Math.max(...minute)).toBeLessThanOrEqual(59);
    expect(Math.max(...tenMinutes)).toBeLessThanOrEqual(599);
    // Spread over the ten minutes, not crowded into the first (a uniform draw: about 90 % after it).
    expect(tenMinutes.filter((second) => second > 60).length).toBeGreaterThan(tenMinutes.length * 0.8);
    // The duration is part of the draw: a seed reproduces with the duration it was fuzzed with (the reproduce command carries it).
    expect(fuzzedScenario(defaultScenario, 7, 600).parameters).toEqual(fuzzedScenario(defaultScenario, 7, 600).parameters);
    // Without one, the scenario's own duration.
    expect(fuzzedScenario(defaultScenario, 7).parameters).toEqual(fuzzedScenario(defaultScenario, 7, defaultScenario.durationSeconds).parameters);
  });

  it("draws from the seed's fuzz stream, the same on every call, and sets the seed", () => {
    const first = fuzzedScenario(fuzzFixture, 12);
    expect(first.parameters).toEqual(fuzzFixture.fuzz!.draw(new RngRoot(12).stream("fuzz"), { durationSeconds: fuzzFixture.durationSeconds }));
    expect(fuzzedScenario(fuzzFixture, 12).parameters).toEqual(first.parameters);
    expect(fuzzedScenario(fuzzFixture, 13).parameters).not.toEqual(first.parameters);
    expect(first.scenario.seed).toBe(12);
    expect(first.scenario.settlement?.bustProbability).toBe(first.parameters["bustProbability"]);
  });

  it("runs a scenario without fuzz unchanged, with the seed", () => {
    const { scenario, parameters } = fuzzedScenario(BASE, 4);
    expect(parameters).toEqual({});
    expect(scenario).toEqual({ ...BASE, seed: 4 });
  });

  it("describes failures by kind, and an agent's by its agent and cause", () => {
    expect(describeFailure(new InvariantError("open interest of market 1: long 2 != short 1"))).toMatchObject({ kind: "InvariantError", message: "open interest of market 1: long 2 != short 1" });
    const failed = new AgentFailedError({ agent: "mm", what: "a timer", atMicros: 42, error: new RangeError("bad param") });
    // One line for the CLI to print: the cause as Name: message, its stack kept as `cause` (printed with SHADOWBOOK_DEBUG).
    expect(failed.message).toBe('agent "mm" failed in a timer at virtual time 42: RangeError: bad param');
    expect(failed.cause).toBeInstanceOf(RangeError);
    const agentFailure = describeFailure(new AgentFailedError({ agent: "mm", what: "a timer", atMicros: 42, error: new InvariantError("broken\nsecond line") }));
    expect(agentFailure).toMatchObject({ kind: "AgentFailedError", agent: "mm", causeKind: "InvariantError", message: 'agent "mm" failed in a timer at virtual time 42: InvariantError: broken' });
    expect(agentFailure.stack.split("\n")[0]).toBe("InvariantError: broken");
    expect(reproductionCommand("scenarios/my run.ts", 3)).toBe("npx shadowbook run 'scenarios/my run.ts' --seed 3 --fuzz");
  });
});

describe("fuzzScenario", () => {
  it("gives the same results on 2 workers as serially in this thread, failures included", async () => {
    const seeds = [1, 2, 3, 4, 5, 6];
    const seen: number[] = [];
    const serial = await fuzzScenario({ scenarioPath: FAILING, seeds, workers: 1, durationSeconds: 8 });
    const pooled = await fuzzScenario({ scenarioPath: FAILING, seeds: [6, 5, 4, 3, 2, 1], workers: 2, durationSeconds: 8, onResult: (result) => seen.push(result.seed) });
    expect(serial.results.map((result) => result.seed)).toEqual(seeds);
    expect(serial.failures.length).toBeGreaterThan(0);
    expect(serial.failures.length).toBeLessThan(seeds.length);
    expect(new Set(serial.results.map((result) => result.fingerprint)).size).toBe(seeds.length);
    expect(serial.results.every((result) => result.events > 100)).toBe(true);
    expect(pooled.results.map(comparable)).toEqual(serial.results.map(comparable));
    expect(seen.sort()).toEqual(seeds);
    expect(pooled.workers).toBe(2);
    expect(pooled.events).toBe(serial.events);
  });

  it("reports a failing seed with its parameters and a command that reproduces it", async () => {
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
    const expectedFailing = seeds.filter((seed) => Number(fuzzedScenario(failingScenario, seed).parameters["bustProbability"]) > BUST_LIMIT);
    expect(expectedFailing.length).toBeGreaterThan(0);
    expect(expectedFailing.length).toBeLessThan(seeds.length);
    const report = await fuzzScenario({ scenarioPath: FAILING, seeds, durationSeconds: 8 });
    expect(report.failures.map((result) => result.seed)).toEqual(expectedFailing);
    const failed = report.failures[0]!;
    expect(failed.parameters).toEqual(fuzzedScenario(failingScenario, failed.seed).parameters);
    expect(failed.error).toMatchObject({ kind: "AgentFailedError", agent: "auditor", causeKind: "InvariantError" });
    expect(failed.error?.message).toBe(`agent "auditor" failed in a timer at virtual time ${T0 + 5_000_000}: InvariantError: bustProbability ${failed.parameters["bustProbability"]} is above its limit ${BUST_LIMIT}`);
    expect(failed.error?.stack).toMatch(/^InvariantError: bustProbability/);
    expect(failed.atMicros).toBe(T0 + 5_000_000);
    expect(failed.reproduce).toBe(`npx shadowbook run ${FAILING} --seed ${failed.seed} --fuzz --duration 8`);
    expect(formatFailure(failed)).toContain(`reproduce: ${failed.reproduce}`);
    expect(formatFailure(failed)).toContain(`bustProbability=${failed.parameters["bustProbability"]}`);
    for (const passed of report.results.filter((result) => result.ok)) expect(passed.fingerprint).toMatch(/^[0-9a-f]{64}$/);

    // Alone: the same failure at the same output.
    const alone = await fuzzScenario({ scenarioPath: FAILING, seeds: [failed.seed], durationSeconds: 8 });
    expect(alone.results.map(comparable)).toEqual([comparable(failed)]);
    // What `shadowbook run --seed N --fuzz` does: the same scenario, the same failure.
    const fuzzed = fuzzedScenario(failingScenario, failed.seed);
    const replay = await runScenario(fuzzed.scenario, { seed: failed.seed, invariants: true, durationSeconds: 8 }).catch((error: unknown) => error);
    expect(replay).toBeInstanceOf(AgentFailedError);
    expect(describeFailure(replay).message).toBe(failed.error?.message);
  });

  it("goes on when a worker dies, and fails only the seed it was running", async () => {
    const byMode = new Map<string, number[]>();
    for (let seed = 1; seed <= 60; seed++) {
      const mode = String(fuzzedScenario(crashScenario, seed).parameters["crash"]);
      byMode.set(mode, [...(byMode.get(mode) ?? []), seed]);
    }
    const exit = byMode.get("exit")![0]!;
    const thrown = byMode.get("throw")![0]!;
    const fine = byMode.get("none")!.slice(0, 2);
    const seeds = [exit, thrown, ...fine].sort((a, b) => a - b);
    const report = await fuzzScenario({ scenarioPath: CRASH, seeds, workers: 2, durationSeconds: 4 });
    expect(report.results.map((result) => result.seed)).toEqual(seeds);
    const result = (seed: number) => report.results.find((entry) => entry.seed === seed)!;
    expect(result(exit)).toMatchObject({ ok: false, parameters: { crash: "exit" }, error: { kind: "WorkerCrash" }, reproduce: `npx shadowbook run ${CRASH} --seed ${exit} --fuzz --duration 4` });
    expect(result(exit).error?.message).toBe(`the worker running seed ${exit} died (exit code 3)`);
    expect(result(thrown)).toMatchObject({ ok: false, parameters: { crash: "throw" }, error: { kind: "WorkerCrash" } });
    expect(result(thrown).error?.message).toMatch(/died \(exit code 1\): uncaught Error: crasher: uncaught exception in the worker$/);
    const serial = await fuzzScenario({ scenarioPath: CRASH, seeds: fine, durationSeconds: 4 });
    expect(serial.failures).toEqual([]);
    expect(fine.map((seed) => comparable(result(seed)))).toEqual(serial.results.map(comparable));
  });

  it("fails a seed that runs past its timeout, in a worker", async () => {
    const report = await fuzzScenario({ scenarioPath: FUZZ, seeds: [1], workers: 2, seedTimeoutSeconds: 0.05 });
    expect(report.results).toHaveLength(1);
    // One seed takes one worker of the two asked for, and the report says so.
    expect(report.workers).toBe(1);
    expect(report.results[0]).toMatchObject({ seed: 1, ok: false, parameters: fuzzedScenario(fuzzFixture, 1).parameters, error: { kind: "Timeout", message: "seed 1 ran longer than 0.05 s of wall time" } });
  });

  it("rejects a scenario file that cannot be loaded", async () => {
    await expect(fuzzScenario({ scenarioPath: "test/sim/fixtures/missing.ts", seeds: [1] })).rejects.toThrow();
    await expect(fuzzScenario({ scenarioPath: "test/sim/fixtures/fuzz-agents.ts", seeds: [1] })).rejects.toThrow(/must default-export a scenario/);
    await expect(fuzzScenario({ scenarioPath: FUZZ, seeds: [1], workers: 0 })).rejects.toThrow(/workers "0" must be a positive integer/);
    await expect(fuzzScenario({ scenarioPath: FUZZ, seeds: [1], workers: FUZZ_WORKERS_MAX + 1 })).rejects.toThrow(`workers "${FUZZ_WORKERS_MAX + 1}" must be a positive integer at most ${FUZZ_WORKERS_MAX}`);
    await expect(fuzzCommand(FUZZ, { seeds: "1", workers: "1000000", progress: false })).rejects.toThrow(`--workers "1000000" must be a positive integer at most ${FUZZ_WORKERS_MAX}`);
  });
});
