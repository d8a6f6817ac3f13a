import { describe, expect, it } from "vitest";
import { defineAgent } from "../../src/sim/agent.ts";
import { defineScenario, MAX_RUN_SECONDS, MAX_START_MS, ScenarioError, type Scenario } from "../../src/sim/scenario.ts";
import { exchangeConfigOf, SimRun } from "../../src/sim/run.ts";

const idle = defineAgent({ kind: "idle", description: "does nothing", defaults: {}, start() {} });
const base: Scenario = {
  name: "ok",
  description: "",
  seed: 1,
  durationSeconds: 60,
  prices: [{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01 }],
  agents: [{ name: "a", agent: idle }],
};

describe("defineScenario", () => {
  it("accepts a well-formed scenario", () => {
    expect(defineScenario(base).name).toBe("ok");
  });

  it.each([
    [{ name: "Bad Name" }, "name must be lowercase letters, digits and dashes"],
    [{ seed: -1 }, 'seed "-1" must be a non-negative integer'],
    [{ durationSeconds: 0 }, 'durationSeconds "0" must be a positive number of seconds'],
    [{ durationSeconds: Number.POSITIVE_INFINITY }, 'durationSeconds "Infinity" must be a positive number of seconds'],
    [{ durationSeconds: 1e20 }, `durationSeconds "100000000000000000000" must be at most ${MAX_RUN_SECONDS} seconds (100 years of virtual time)`],
    [{ startMs: 9_007_199_254_740 }, `startMs "9007199254740" must be an integer of Unix ms within [0, ${MAX_START_MS}]`],
    [{ agents: [{ name: "a", agent: idle }, { name: "a", agent: idle }] }, 'agents[1].name "a" is used twice'],
    [{ agents: [{ name: "a", agent: idle, account: { rateTier: 4 as never } }] }, 'agents[0].account.rateTier "4" must be 1, 2 or 3'],
    [{ prices: [{ asset: "WETH", model: "gbm" as const, start: 0, hourlyVolatility: 0.01 }] }, 'prices[0].start "0" must be greater than 0'],
    [{ settlement: { bustProbability: 1.5 } }, 'settlement.bustProbability "1.5" must be between 0 and 1'],
    [{ timeline: [{ atSeconds: -1, fault: { fault: "dropResponses" as const, count: 1 } }] }, 'timeline[0].atSeconds "-1" must be >= 0'],
  ])("refuses %j naming the field and the rule", (change: Partial<Scenario>, message) => {
    expect(() => defineScenario({ ...base, ...change })).toThrow(new ScenarioError(`scenario "${change.name ?? "ok"}": ${message}`));
  });
});

describe("the run's length", () => {
  it("keeps the end of the longest run from the latest start a safe integer of microseconds", () => {
    expect(Number.isSafeInteger(MAX_START_MS * 1_000 + MAX_RUN_SECONDS * 1_000_000)).toBe(true);
  });

  it("refuses a duration given to the run itself beyond the longest run (it used to overflow and never end)", () => {
    expect(() => new SimRun(defineScenario(base), { durationSeconds: 1e20 })).toThrow(`run duration 100000000000000000000 must be at most ${MAX_RUN_SECONDS} seconds`);
  });
});

describe("exchangeConfigOf", () => {
  it("maps settlement settings to the chain in microseconds and the signature mode to the gateway", () => {
    const config = exchangeConfigOf({ ...base, settlement: { blockIntervalMs: 250, bustProbability: 0.02 } }, "trusted");
    expect(config.chain).toMatchObject({ blockIntervalMicros: 250_000, bustProbability: 0.02 });
    expect(config.gateway.verifySignatures).toBe(false);
    expect(exchangeConfigOf(base, "signed").gateway.verifySignatures).toBe(true);
  });
});
