import { describe, expect, it } from "vitest";
import { CHAOS_PROBES, chaos, offTick } from "../../agents/chaos.ts";
import { marketMaker } from "../../agents/market-maker.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { agentOf, CALM_FEEDS, countOf, RunLog } from "./helpers.ts";

/** The answer each probe must get (agents/chaos.ts). */
const EXPECTED: Readonly<Record<(typeof CHAOS_PROBES)[number], string>> = {
  offTick: "PRICE_QTY_BOUNDS_ERROR",
  belowMinQty: "PRICE_QTY_BOUNDS_ERROR",
  unknownSymbol: "client:MarketNotFoundError",
  unknownSymbolWire: "SYMBOL_NOT_FOUND_ERROR",
  malformedDecimal: "INPUT_VALIDATION_ERROR",
  overflow: "NUMERIC_OVERFLOW_ERROR",
  replay: "INVALID_NONCE_ERROR",
  pastDeadline: "ORDER_DEADLINE_PASSED_ERROR",
  farDeadline: "ORDER_DEADLINE_TOO_HIGH_ERROR",
  outsideBand: "CREATE_ORDER_OTHER_ERROR",
  reduceOnlyFlat: "REDUCE_ONLY_CONDITION_NOT_MET_ERROR",
  stopOutsideBand: "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR",
  badTimeout: "client:InvalidParameterError",
  cancelUnknown: "CANCEL_ORDER_OTHER_ERROR",
  modifyUnknown: "ORDER_NOT_FOUND_ERROR",
  emptyModify: "EMPTY_MODIFY_ERROR",
  race: "ORDER_NOT_FOUND_ERROR",
};

describe("chaos agent's off-tick price", () => {
  it("is a hair above the price whether or not it has decimals, never a different whole number", () => {
    expect(offTick("2400")).toBe("2400.000000005");
    expect(offTick("2400.5")).toBe("2400.500000005");
    expect(offTick("60000.1")).toBe("60000.100000005");
    for (const price of ["2400", "2400.5", "2400.01", "1"]) {
      const off = Number(offTick(price));
      expect(off).toBeGreaterThan(Number(price));
      expect(off - Number(price)).toBeLessThan(1e-7);
    }
  });
});

describe("chaos agent", () => {
  it("gets the expected error code for each probe one at a time", async () => {
    for (const probe of ["offTick", "unknownSymbolWire", "modifyUnknown"] as const) {
      const scenario = defineScenario({
        name: "chaos-one",
        description: "",
        seed: 1,
        durationSeconds: 9,
        prices: CALM_FEEDS,
        agents: [{ name: "chaos", agent: chaos, params: { probes: [probe], everySeconds: 2, burstEverySeconds: null, startDelaySeconds: 1 } }],
      });
      const { run } = await runScenario(scenario);
      const counts = agentOf(run, "chaos").counts;
      const errors = [...counts.keys()].filter((key) => key.startsWith("error:"));
      expect(errors, probe).toEqual([`error:${EXPECTED[probe]}`]);
      expect(counts.get(`error:${EXPECTED[probe]}`), probe).toBe(counts.get(`probe:${probe}`));
    }
  });

  it("sends every kind of bad and racing request, counts each code, and the run survives with invariants on", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "chaos",
      description: "",
      seed: 12,
      durationSeconds: 40,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        { name: "chaos", agent: chaos, params: { everySeconds: 1, startDelaySeconds: 2, burstEverySeconds: null } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log], invariants: true });
    expect(run.host.failure).toBeUndefined();
    const chaosAgent = agentOf(run, "chaos");
    const count = (key: string) => countOf(run, "chaos", key);

    // Two whole cycles of probes: each probe twice, each answered as expected.
    for (const probe of CHAOS_PROBES) expect(count(`probe:${probe}`), probe).toBeGreaterThanOrEqual(2);
    const expectedCounts = new Map<string, number>();
    for (const probe of CHAOS_PROBES) expectedCounts.set(EXPECTED[probe], (expectedCounts.get(EXPECTED[probe]) ?? 0) + count(`probe:${probe}`));
    // Every race has one losing cancel (CANCEL_ORDER_OTHER_ERROR) besides the cancelUnknown probes.
    expectedCounts.set("CANCEL_ORDER_OTHER_ERROR", count("probe:cancelUnknown") + count("probe:race"));
    // A race whose modify came first has no losing modify: the ORDER_NOT_FOUND_ERRORs are the modifyUnknowns and the races the modify lost.
    expectedCounts.set("ORDER_NOT_FOUND_ERROR", count("probe:modifyUnknown") + count("probe:race") - count("raceWon:modifyOrder"));
    const errors = [...chaosAgent.counts].filter(([key]) => key.startsWith("error:"));
    expect(new Map(errors.map(([key, n]) => [key.slice("error:".length), n]))).toEqual(expectedCounts);

    // Each race: exactly one of its two cancels won.
    expect(count("raceWon:cancelOrder")).toBe(count("probe:race"));

    // Every answer was counted, and nothing was left resting after the cleanups.
    const sent = log.requests.filter((entry) => entry.body["accountId"] === chaosAgent.accountId).length;
    const answered = [...chaosAgent.counts].filter(([key]) => key.startsWith("ok:") || (key.startsWith("error:") && !key.startsWith("error:client:"))).reduce((sum, [, n]) => sum + n, 0);
    expect(answered).toBe(sent);
    expect(run.world.queries.openOrders(chaosAgent.wallet)).toHaveLength(0);
    // The maker went on quoting through it all.
    expect(run.world.queries.openOrders(agentOf(run, "mm").wallet)).toHaveLength(6);
  });

  it("runs into the per-wallet rate limit with a burst: the requests beyond 30 per 60 s get RATE_LIMITED_ERROR", async () => {
    const scenario = defineScenario({
      name: "chaos-burst",
      description: "",
      seed: 13,
      durationSeconds: 9,
      prices: CALM_FEEDS,
      agents: [{ name: "chaos", agent: chaos, params: { probes: [], burstEverySeconds: 5, burstSize: 40 } }],
    });
    const { run } = await runScenario(scenario);
    expect(countOf(run, "chaos", "bursts")).toBe(1);
    expect(countOf(run, "chaos", "ok:createOrder")).toBe(30);
    expect(countOf(run, "chaos", "error:RATE_LIMITED_ERROR")).toBe(10);
  });
});
