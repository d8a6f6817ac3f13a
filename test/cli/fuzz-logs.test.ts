/**
 * `shadowbook fuzz` writes an input log for every failing seed: the seed is
 * rerun serially with the recorder after the pool, fails the same way, and
 * its log replays (every fingerprint matching) to the failure: the time and
 * the fingerprint of the outputs up to it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fuzzCommand, writeFailureLog, type FailureLog } from "../../src/cli/fuzz.ts";
import { microsToMillis } from "../../src/core/time.ts";
import { readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { fuzzedScenario, type FuzzReport } from "../../src/sim/fuzz.ts";
import { scenarioPath } from "../../src/sim/scenario-loader.ts";
import failingScenario, { BUST_LIMIT } from "../sim/fixtures/failing-scenario.ts";

const FAILING = "test/sim/fixtures/failing-scenario.ts";
const SEEDS = [1, 2, 3, 4, 5, 6];

let out: string;
let report: FuzzReport & { logs: readonly FailureLog[] };
let printed: string;

beforeAll(async () => {
  // A space in the path: the printed replay command must quote it to paste into a shell.
  out = mkdtempSync(join(tmpdir(), "shadowbook fuzz logs-"));
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    report = await fuzzCommand(FAILING, { seeds: SEEDS.join(","), workers: "2", duration: "8", progress: false, out });
    printed = log.mock.calls.map((call) => call.join(" ")).join("\n");
  } finally {
    log.mockRestore();
    process.exitCode = undefined;
  }
}, 180_000);

afterAll(() => {
  process.exitCode = undefined;
});

describe("fuzz input logs", () => {
  it("writes one log per failing seed, under --out, and prints its path and replay command, quoted for a shell", () => {
    const expectedFailing = SEEDS.filter((seed) => Number(fuzzedScenario(failingScenario, seed).parameters["bustProbability"]) > BUST_LIMIT);
    expect(expectedFailing.length).toBeGreaterThan(0);
    expect(report.failures.map((failure) => failure.seed)).toEqual(expectedFailing);
    expect(report.logs.map((log) => log.seed)).toEqual(expectedFailing);
    for (const log of report.logs) {
      const failure = report.failures.find((candidate) => candidate.seed === log.seed)!;
      expect(log.path).toBe(join(out, `seed-${log.seed}`, "inputs.arrow"));
      expect(log.sameFailure).toBe(true);
      expect(printed).toContain(`  input log: ${log.path}`);
      expect(printed).toContain(`  replay: npx shadowbook replay '${log.path}' --until ${microsToMillis(failure.atMicros!)}`);
    }
  });

  it("each log replays, every fingerprint matching, to the failure's time and fingerprint", () => {
    for (const written of report.logs) {
      const failure = report.failures.find((candidate) => candidate.seed === written.seed)!;
      const log = readInputLog(written.path);
      expect(log.seed).toBe(written.seed);
      expect(log.scenario).toBe(failingScenario.name);
      const result = replayInputLog(log, { untilMicros: failure.atMicros! });
      expect(result.divergence).toBeUndefined();
      expect(result.steps).toBe(log.steps.length);
      expect(log.steps.at(-1)!.timeMicros).toBeLessThanOrEqual(failure.atMicros!);
      expect(result.fingerprint).toBe(failure.fingerprint);
      expect(result.exchange.now()).toBe(log.steps.at(-1)!.timeMicros);
    }
  });

  it("reports a rerun that does not fail the same way", async () => {
    const failure = report.failures[0]!;
    const altered = { ...failure, fingerprint: "0".repeat(64) };
    const log = await writeFailureLog(altered, { scenarioPath: scenarioPath(FAILING), durationSeconds: 8 }, join(out, "altered"));
    expect(log?.sameFailure).toBe(false);
    expect(log?.difference).toBe(`fingerprint ${JSON.stringify("0".repeat(64))} then ${JSON.stringify(failure.fingerprint)}`);
  }, 60_000);
});
