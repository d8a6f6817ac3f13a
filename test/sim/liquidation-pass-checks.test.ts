/**
 * The liquidation-pass checks (checkLiquidationJudgement, checkAdlClose)
 * are wired into ExchangeInvariants and run on a real cascade: fuzz seed 1
 * of liquidation-cascade, to just past its first liquidations and ADL
 * closes (at about 600 s), with every invariant on. Each liquidated account
 * and each ADL close is checked, the ADL queues hold more than one
 * position (so a ranking is checked), and the run passes.
 */
import { describe, expect, it } from "vitest";
import { fuzzedScenario } from "../../src/sim/fuzz.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { loadScenario } from "../../src/sim/scenario-loader.ts";

describe("liquidation-cascade fuzz seed 1, 660 s", () => {
  it("checks every liquidated account's judgement and every ADL close, and passes", async () => {
    const loaded = await loadScenario("liquidation-cascade");
    const { scenario } = fuzzedScenario(loaded.scenario, 1);
    const { run } = await runScenario(scenario, { seed: 1, invariants: true, paths: loaded.paths, durationSeconds: 660 });
    const stats = run.invariants!.stats;
    expect(stats.liquidationJudgements).toBeGreaterThan(0);
    expect(stats.adlCloses).toBeGreaterThan(0);
    expect(stats.adlQueueEntries).toBeGreaterThan(stats.adlCloses);
  }, 120_000);
});
