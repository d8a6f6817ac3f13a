/**
 * `invariantEveryBlocks` at the API (fuzzScenario, runScenario): a positive
 * integer, or a RangeError naming the option and the rule. 0 used to run
 * with every `blocksChecked % 0` NaN, so no state check ever ran and every
 * seed passed.
 */
import { describe, expect, it } from "vitest";
import { fuzzScenario } from "../../src/sim/fuzz.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { BASE } from "./fixtures/fuzz-scenario.ts";

const FUZZ = "test/sim/fixtures/fuzz-scenario.ts";
const REFUSED = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];

describe("invariantEveryBlocks", () => {
  it("fuzzScenario refuses what is not a positive integer, before running a seed", async () => {
    for (const invariantEveryBlocks of REFUSED) {
      const ran: number[] = [];
      const refused = await fuzzScenario({ scenarioPath: FUZZ, seeds: [1], durationSeconds: 2, invariantEveryBlocks, onResult: (result) => ran.push(result.seed) }).catch((error: unknown) => error);
      expect(refused, String(invariantEveryBlocks)).toBeInstanceOf(RangeError);
      expect((refused as RangeError).message).toBe(`invariantEveryBlocks "${invariantEveryBlocks}" must be a positive integer`);
      expect(ran).toEqual([]);
    }
  });

  it("runScenario refuses what is not a positive integer", async () => {
    for (const invariantEveryBlocks of REFUSED) {
      const refused = await runScenario(BASE, { seed: 1, invariants: true, durationSeconds: 2, invariantEveryBlocks }).catch((error: unknown) => error);
      expect(refused, String(invariantEveryBlocks)).toBeInstanceOf(RangeError);
      expect((refused as RangeError).message).toBe(`invariantEveryBlocks "${invariantEveryBlocks}" must be a positive integer`);
    }
  });

  it("takes a positive integer: the state checks run every that many blocks", async () => {
    const every = await runScenario(BASE, { seed: 1, invariants: true, durationSeconds: 4 });
    const third = await runScenario(BASE, { seed: 1, invariants: true, durationSeconds: 4, invariantEveryBlocks: 3 });
    const blocks = every.run.invariants!.stats.blocksChecked;
    expect(blocks).toBeGreaterThan(6);
    expect(third.run.invariants!.stats.blocksChecked).toBe(blocks);
    expect(every.run.invariants!.stats.stateChecks).toBeGreaterThanOrEqual(blocks);
    const thirdChecks = third.run.invariants!.stats.stateChecks;
    expect(thirdChecks).toBeGreaterThanOrEqual(Math.floor(blocks / 3));
    expect(thirdChecks).toBeLessThan(every.run.invariants!.stats.stateChecks);
    expect(third.figures.fingerprint).toBe(every.figures.fingerprint); // checking changes nothing
    // With checks every K blocks, one more at the end covers the last blocks (up to K - 1) and what came after them.
    const rare = await runScenario(BASE, { seed: 1, invariants: true, durationSeconds: 4, invariantEveryBlocks: 1_000 });
    expect(rare.run.invariants!.stats.blocksChecked).toBe(blocks);
    expect(rare.run.invariants!.stats.stateChecks).toBe(1);
    const report = await fuzzScenario({ scenarioPath: FUZZ, seeds: [1], durationSeconds: 2, invariantEveryBlocks: 2 });
    expect(report.results.map((result) => result.ok)).toEqual([true]);
  });
});
