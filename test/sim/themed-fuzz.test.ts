/**
 * The themed scenarios' `fuzz` sections: for each, two seeds run through the
 * fuzzer's own per-seed path (runFuzzSeed, what `shadowbook fuzz` runs for
 * every seed, with the invariants on) with short durations, pass, draw
 * different parameters, and each run shows one drawn parameter at work. The
 * same seed draws the same parameters every time.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MARKET_MAKER_DEFAULTS } from "../../agents/market-maker.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../../src/exchange/config.ts";
import { fuzzedScenario, fuzzScenario, runFuzzSeed, type FuzzResult } from "../../src/sim/fuzz.ts";
import type { HostedAgent } from "../../src/sim/agent-host.ts";
import type { RunSetup } from "../../src/sim/run.ts";
import type { FuzzParameters } from "../../src/sim/scenario.ts";
import { faultOf, SWARM_FAULTS } from "../../src/sim/swarm.ts";
import { loadScenario, type LoadedScenario } from "../../src/sim/scenario-loader.ts";
import { Tape } from "./fixtures/run-tape.ts";

/** A tape that also keeps the run's agents (their counts). */
class SetupTape extends Tape {
  agents: readonly HostedAgent[] = [];

  override begin(setup: RunSetup): void {
    super.begin(setup);
    this.agents = setup.agents;
  }
}

interface Seeded {
  readonly result: FuzzResult;
  readonly parameters: FuzzParameters;
  readonly tape: SetupTape;
  readonly durationSeconds: number;
}

/**
 * Fuzzes `seeds` of the scenario one after the other, each for the duration
 * `durationOf` gives from its drawn parameters, with every invariant checked
 * at every block; every seed must pass and the seeds' draws must differ.
 */
async function fuzzSeeds(name: string, seeds: readonly number[], durationOf: (parameters: FuzzParameters) => number): Promise<Seeded[]> {
  const loaded: LoadedScenario = await loadScenario(name);
  const runs: Seeded[] = [];
  for (const seed of seeds) {
    // The duration from the scenario's own draw (a theme's own parameters are drawn first and do not depend on it), then the draw for that duration.
    const durationSeconds = durationOf(fuzzedScenario(loaded.scenario, seed).parameters);
    const { parameters } = fuzzedScenario(loaded.scenario, seed, durationSeconds);
    const tape = new SetupTape();
    const result = await runFuzzSeed(loaded, seed, { scenarioPath: name, durationSeconds }, [tape]);
    runs.push({ result, parameters, tape, durationSeconds });
  }
  return runs;
}

/** Every seed passed with the invariants on, ran to its end and drew what `fuzzedScenario` draws for it; the two seeds' draws and runs differ. */
function expectCleanAndDistinct(name: string, runs: readonly Seeded[]): void {
  for (const { result, parameters, tape, durationSeconds } of runs) {
    expect(result.error, `${name} seed ${result.seed}`).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.events).toBeGreaterThan(1_000);
    expect(result.atMicros! - tape.startMicros).toBe(durationSeconds * 1_000_000);
    expect(result.parameters).toEqual(parameters);
    expect(Object.keys(parameters).length).toBeGreaterThan(1);
  }
  for (const run of runs) expectDrawnFaultAtWork(run);
  const [first, second] = runs;
  for (const key of Object.keys(first!.parameters)) {
    if (key.startsWith("fault")) continue; // a draw of a few values may repeat
    expect(second!.parameters[key], `${name} ${key}`).not.toEqual(first!.parameters[key]);
  }
  expect(second!.result.fingerprint).not.toBe(first!.result.fingerprint);
}

/**
 * The seed's drawn fault (scenarios/fuzz-helpers.ts drawFaults) reached the
 * exchange at its second, as the fault it names (with its size); a drawn
 * delayBlocks also shows as no block for its length. "none" adds no fault
 * input at that second.
 */
function expectDrawnFaultAtWork({ parameters, tape }: Seeded): void {
  const drawn = faultOf(parameters);
  const at = Number(parameters["faultAtSeconds"]);
  const faultsThen = tape.inputs.filter((entry) => entry.at === at && entry.value.kind === "fault").map((entry) => (entry.value as { fault: unknown }).fault);
  if (drawn === undefined) {
    expect(faultsThen).toEqual([]);
    return;
  }
  expect(faultsThen).toContainEqual(drawn);
  if (drawn.fault !== "delayBlocks") return;
  const blocks = tape.of("block").map((entry) => entry.at);
  expect(blocks.filter((blockAt) => blockAt > at && blockAt < at + drawn.durationMs / 1_000)).toEqual([]);
  expect(blocks.some((blockAt) => blockAt >= at + drawn.durationMs / 1_000)).toBe(true);
}

const SCENARIOS = ["liquidation-cascade", "funding-squeeze", "settlement-outage", "dead-man-switch", "spot-only"] as const;

describe("themed fuzz draws", () => {
  it.each(SCENARIOS)("%s: the same seed draws the same parameters and the same scenario, another seed others", async (name) => {
    const { scenario } = await loadScenario(name);
    expect(scenario.fuzz).toBeDefined();
    for (const seed of [1, 2, 3]) {
      const first = fuzzedScenario(scenario, seed);
      const again = fuzzedScenario(scenario, seed);
      expect(again.parameters).toEqual(first.parameters);
      expect(again.scenario).toEqual(first.scenario);
      expect(first.scenario).not.toEqual({ ...scenario, seed });
    }
    expect(fuzzedScenario(scenario, 1).parameters).not.toEqual(fuzzedScenario(scenario, 2).parameters);
  });

  it.each(SCENARIOS)("%s: every seed also draws a fault within the run and the chain's timing, and the scenario carries them", async (name) => {
    const { scenario } = await loadScenario(name);
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 60; seed++) {
      const durationSeconds = 30 + seed * 7;
      const { parameters, scenario: fuzzed } = fuzzedScenario(scenario, seed, durationSeconds);
      const own = fuzzedScenario(scenario, seed, durationSeconds * 2).parameters;
      kinds.add(String(parameters["fault"]));
      expect(SWARM_FAULTS).toContain(parameters["fault"]);
      // The fault's second is within the run, and only it moves with the duration.
      expect(parameters["faultAtSeconds"]).toBeGreaterThanOrEqual(1);
      expect(parameters["faultAtSeconds"]).toBeLessThan(durationSeconds);
      expect({ ...own, faultAtSeconds: parameters["faultAtSeconds"] }).toEqual(parameters);
      const drawn = faultOf(parameters);
      if (drawn !== undefined) expect(fuzzed.timeline).toContainEqual({ atSeconds: parameters["faultAtSeconds"], fault: drawn });
      expect(fuzzed.timeline!.length).toBe((scenario.fuzz!.apply(scenario, { ...parameters, fault: "none" }).timeline ?? []).length + (drawn === undefined ? 0 : 1));
      expect(fuzzed.settlement).toMatchObject({
        blockJitterMs: parameters["blockJitterMs"],
        settlementLatencyMinMs: parameters["settlementLatencyMinMs"],
        settlementLatencyMaxMs: parameters["settlementLatencyMaxMs"],
      });
      expect(Number(parameters["blockJitterMs"])).toBeLessThan(100);
      expect(Number(parameters["settlementLatencyMaxMs"])).toBeGreaterThanOrEqual(Number(parameters["settlementLatencyMinMs"]));
    }
    expect([...kinds].sort()).toEqual([...SWARM_FAULTS].sort());
  });
});

describe("liquidation-cascade fuzz", () => {
  let runs: Seeded[];
  beforeAll(async () => {
    runs = await fuzzSeeds("liquidation-cascade", [1, 2], () => 60);
  });

  it("passes both seeds with different draws", () => expectCleanAndDistinct("liquidation-cascade", runs));

  it("funds the pool with the drawn deposit", () => {
    for (const { parameters, tape } of runs) {
      const deposits = tape.of("transfer").filter((entry) => entry.value.entry.accountId === DEFAULT_POOL_ACCOUNT_ID && entry.value.entry.asset === "rUSD");
      expect(deposits[0]!.at).toBe(0);
      expect(Number(deposits[0]!.value.entry.amount)).toBe(parameters["poolRusd"]);
    }
  });
});

describe("funding-squeeze fuzz", () => {
  let runs: Seeded[];
  beforeAll(async () => {
    runs = await fuzzSeeds("funding-squeeze", [1, 6], () => 90);
  });

  it("passes both seeds with different draws", () => expectCleanAndDistinct("funding-squeeze", runs));

  it("sets the mark oracle at the drawn premium over the index, and the rate within the drawn cap", () => {
    for (const { parameters, tape } of runs) {
      let index: number | undefined;
      const basis: number[] = [];
      const rates: number[] = [];
      for (const { value: output } of tape.outputs) {
        if (output.kind === "oraclePrices") {
          const price = output.prices.find((entry) => entry.asset === "WETH");
          if (price !== undefined) index = Number(price.oraclePrice);
        }
        if (output.kind !== "perpSummaries" || index === undefined) continue;
        const summary = output.summaries.find((entry) => entry.symbol === "ETHRUSDPERP")!;
        if (summary.oraclePrice !== undefined) basis.push(Number(summary.oraclePrice) / index - 1);
        if (summary.markPrice !== undefined) rates.push(Number(summary.fundingRate));
      }
      expect(basis.length).toBeGreaterThan(100);
      const meanBasis = basis.reduce((sum, value) => sum + value, 0) / basis.length;
      // The basis sd is 0.0002 per sample: over 100+ samples the mean is within 0.0003 of the premium.
      expect(Math.abs(meanBasis - Number(parameters["oraclePremium"]))).toBeLessThan(0.0003);
      const capPercent = Number(parameters["fundingRateCap"]) * 100;
      expect(Math.max(...rates)).toBeLessThanOrEqual(capPercent + 1e-12);
      expect(rates.filter((rate) => rate > 0.05).length).toBeGreaterThan(rates.length * 0.8);
    }
  });
});

describe("settlement-outage fuzz", () => {
  let runs: Seeded[];
  const outageEnd = (parameters: FuzzParameters) => Number(parameters["outageAtSeconds"]) + Number(parameters["outageSeconds"]);
  beforeAll(async () => {
    // Seeds whose outage ends early (56 s + 87 s and 63 s + 63 s): the runs stop 5 s after it.
    runs = await fuzzSeeds("settlement-outage", [6, 17], (parameters) => outageEnd(parameters) + 5);
  });

  it("passes both seeds with different draws", () => expectCleanAndDistinct("settlement-outage", runs));

  it("stops the blocks at the drawn outage start for the drawn length: the gap in blocks there", () => {
    for (const { parameters, tape } of runs) {
      const blocks = tape.of("block").map((entry) => entry.at);
      const start = Number(parameters["outageAtSeconds"]);
      // The gap the outage makes: a drawn delayBlocks elsewhere in the run (drawFaults) makes its own, so look at the outage's start.
      const gapAt = blocks.findIndex((at, index) => index > 0 && at - blocks[index - 1]! > 1 && blocks[index - 1]! <= start && blocks[index - 1]! > start - 1);
      expect(gapAt).toBeGreaterThan(0);
      expect(blocks[gapAt - 1]!).toBeLessThanOrEqual(start);
      expect(blocks[gapAt - 1]!).toBeGreaterThan(start - 1);
      expect(blocks[gapAt]!).toBe(outageEnd(parameters));
      // The matches of the whole stall settle (or bust) in that first block back.
      const resumed = tape.of("block").find((entry) => entry.at === outageEnd(parameters))!;
      expect(resumed.value.settled + resumed.value.busted).toBeGreaterThan(50);
      expect(resumed.value.busted).toBeGreaterThan(0);
    }
  });
});

describe("dead-man-switch fuzz", () => {
  let runs: Seeded[];
  const firesBy = (parameters: FuzzParameters) => Number(parameters["stallAfterSeconds"]) + Number(parameters["deadManMs"]) / 1_000;
  beforeAll(async () => {
    // Seeds whose maker stalls early (40 s with a 26 s switch, 45 s with 17 s): the runs stop 5 s after the switch fires.
    runs = await fuzzSeeds("dead-man-switch", [6, 17], (parameters) => Math.ceil(firesBy(parameters)) + 5);
  });

  it("passes both seeds with different draws", () => expectCleanAndDistinct("dead-man-switch", runs));

  it("stops the maker's renewals at the drawn second and fires its switch the drawn timeout after the last one", () => {
    for (const { parameters, tape } of runs) {
      const stalled = tape.agents.find((agent) => agent.name === "mm-stalls")!;
      const renewals = tape.requests("cancelAllAfter").filter((request) => (request.value.body as { accountId?: number }).accountId === stalled.accountId);
      const last = renewals[renewals.length - 1]!;
      const stallAfter = Number(parameters["stallAfterSeconds"]);
      // The last renewal was sent within one refresh of the stall (it reaches the exchange a few ms later).
      expect(last.at).toBeLessThan(stallAfter + 0.1);
      expect(last.at).toBeGreaterThan(stallAfter - MARKET_MAKER_DEFAULTS.refreshSeconds - 0.1);
      expect((last.value.body as { timeoutMs?: number }).timeoutMs).toBe(parameters["deadManMs"]);
      const switchCancels = tape.of("order").filter((entry) => entry.value.row.cancelReason === "CANCEL_ALL_AFTER");
      expect(switchCancels.length).toBeGreaterThan(0);
      // At the triggerAt the renewal reported: its receipt in whole milliseconds plus the timeout.
      const triggerAtMicros = (Math.floor(last.atMicros / 1_000) + Number(parameters["deadManMs"])) * 1_000;
      for (const entry of switchCancels) expect(entry.atMicros).toBe(triggerAtMicros);
      expect(stalled.counts.get("refreshStopped")).toBe(1);
    }
  });
});

describe("spot-only fuzz", () => {
  let runs: Seeded[];
  beforeAll(async () => {
    runs = await fuzzSeeds("spot-only", [1, 2], () => 60);
  });

  it("passes both seeds with different draws", () => expectCleanAndDistinct("spot-only", runs));

  it("sends taker orders at the drawn rate factor (1 order/s in all at factor 1)", () => {
    for (const { parameters, tape, durationSeconds } of runs) {
      const takers = tape.agents.filter((agent) => agent.name.startsWith("noise-spot-"));
      const sent = takers.reduce((sum, agent) => sum + (agent.counts.get("sent") ?? 0), 0);
      // Poisson arrivals from 5 s (the takers' start delay): within 4 sd of the mean.
      const mean = Number(parameters["takerRateFactor"]) * (durationSeconds - 5);
      expect(Math.abs(sent - mean)).toBeLessThan(4 * Math.sqrt(mean) + 2);
    }
  });

  it("gives the same results on 2 workers as in this thread", async () => {
    const pooled = await fuzzScenario({ scenarioPath: "spot-only", seeds: [1, 2], workers: 2, durationSeconds: 60 });
    expect(pooled.failures).toEqual([]);
    expect(pooled.results.map((result) => [result.seed, result.fingerprint, result.parameters])).toEqual(runs.map(({ result }) => [result.seed, result.fingerprint, result.parameters]));
  });
});
