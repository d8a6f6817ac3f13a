/**
 * Behaviours of the simulation that no other test pins down: stream frames
 * delayed by the market-data latency, a cancel losing the race to another
 * agent's taker, swarm fault injection from a seed to the run's timeline,
 * jumps of the GBM oracle, and price-path files read by the scenario loader.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { noiseTaker } from "../../agents/noise-taker.ts";
import defaultScenario from "../../scenarios/default.ts";
import { RequestFailedError } from "../../src/client/errors.ts";
import { RngRoot } from "../../src/core/rng.ts";
import { MICROS_PER_SECOND, type Micros } from "../../src/core/time.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import type { FaultAction, PriceInput } from "../../src/exchange/inputs.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { fuzzedScenario } from "../../src/sim/fuzz.ts";
import type { LatencySpec } from "../../src/sim/latency.ts";
import { Oracle } from "../../src/sim/oracle.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { loadScenario, PROJECT_ROOT } from "../../src/sim/scenario-loader.ts";
import { DEFAULT_START_MS, defineScenario, ScenarioError, type FuzzParameters, type GbmFeed, type Scenario } from "../../src/sim/scenario.ts";
import { drawFault, faultOf, SWARM_FAULTS, withDrawnFault } from "../../src/sim/swarm.ts";
import type { StreamChannelData } from "../../src/spec/stream-envelopes.ts";
import { Tape } from "./fixtures/run-tape.ts";
import { FLAT_FEEDS } from "./fixtures/flat-feeds.ts";

const T0 = DEFAULT_START_MS * 1_000;
const constant = (micros: number): LatencySpec => ({ model: "constant", micros });

describe("market-data latency", () => {
  it("delivers each stream frame exactly the agent's market-data latency after the Exchange emitted it", async () => {
    const received = new Map<string, { atMicros: Micros; message: StreamChannelData }[]>();
    const subscribedAt = new Map<string, Micros>();
    const listener = defineAgent({
      kind: "test-oracle-listener",
      description: "subscribes to the oracle prices and keeps every frame with its arrival time",
      defaults: {},
      async start(ctx) {
        const frames: { atMicros: Micros; message: StreamChannelData }[] = [];
        received.set(ctx.name, frames);
        await ctx.stream.subscribe("/v2/assetOraclePrices", (message) => {
          frames.push({ atMicros: ctx.now(), message });
        });
        subscribedAt.set(ctx.name, ctx.now());
      },
    });
    const tape = new Tape();
    const latencies = { near: 2_345, far: 40_000 };
    const scenario = defineScenario({
      name: "stream-latency",
      description: "",
      seed: 2,
      durationSeconds: 8,
      prices: [{ asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.05 }],
      agents: Object.entries(latencies).map(([name, micros]) => ({
        name,
        agent: listener,
        latency: { orderEntry: constant(1_000), responses: constant(1_500), marketData: constant(micros) },
      })),
    });
    await runScenario(scenario, { observers: [tape] });

    const emitted = tape.of("oraclePrices");
    expect(emitted.map((entry) => entry.atMicros - T0)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((second) => second * MICROS_PER_SECOND));
    for (const [name, latency] of Object.entries(latencies)) {
      // The subscription reaches the exchange after the order-entry latency; the `subscribed` frame comes back after the market-data one.
      expect(subscribedAt.get(name), name).toBe(T0 + 1_000 + latency);
      // Registered at +1 ms: every later frame, each exactly `latency` after its emission, with what was emitted.
      const expected = emitted.filter((entry) => entry.atMicros > T0 + 1_000 && entry.atMicros + latency <= T0 + 8 * MICROS_PER_SECOND);
      const frames = received.get(name)!;
      expect(frames.length, name).toBe(expected.length);
      expect(frames.length, name).toBeGreaterThan(5);
      frames.forEach((frame, index) => {
        const sent = expected[index]!;
        expect(frame.atMicros - sent.atMicros, name).toBe(latency);
        expect(frame.message.channel).toBe("/v2/assetOraclePrices");
        expect(frame.message.timestamp).toBe(Math.floor(sent.atMicros / 1_000));
        expect(frame.message.data).toEqual(sent.value.prices);
      });
    }
  });
});

describe("a cancel racing a fill", () => {
  /** A maker rests a sell, then cancels it at 5 s over a slow link; a taker lifts it at 5 s over its own link. */
  async function race(takerEntryMicros: number) {
    const outcome: { cancel?: { code: string; details: string } | "ok"; cancelAnsweredAt?: Micros; takerStatus?: string; orderId?: string } = {};
    const maker = defineAgent({
      kind: "test-race-maker",
      description: "rests one sell, cancels it at 5 s",
      defaults: {},
      start(ctx) {
        ctx.after(1 * MICROS_PER_SECOND, async () => {
          const order = await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: false, limitPx: "3001", qty: "0.1", timeInForce: "GTC", postOnly: true });
          outcome.orderId = order.orderId;
        });
        ctx.after(5 * MICROS_PER_SECOND, async () => {
          try {
            await ctx.client.cancelOrder({ symbol: "ETHRUSDPERP", orderId: outcome.orderId! });
            outcome.cancel = "ok";
          } catch (error) {
            if (!(error instanceof RequestFailedError)) throw error;
            outcome.cancel = { code: error.code, details: error.details ?? "" };
          }
          outcome.cancelAnsweredAt = ctx.now();
        });
      },
    });
    const taker = defineAgent({
      kind: "test-race-taker",
      description: "lifts the offer at 5 s",
      defaults: {},
      start(ctx) {
        ctx.after(5 * MICROS_PER_SECOND, async () => {
          const order = await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "3002", qty: "0.1", timeInForce: "IOC" });
          outcome.takerStatus = order.status;
        });
      },
    });
    const tape = new Tape();
    const scenario = defineScenario({
      name: "cancel-race",
      description: "",
      seed: 3,
      durationSeconds: 8,
      prices: FLAT_FEEDS,
      oracleBasisSd: 0,
      settlement: { bustProbability: 0 },
      agents: [
        { name: "maker", agent: maker, latency: { orderEntry: constant(20_000), responses: constant(1_000), marketData: constant(1_000) } },
        { name: "taker", agent: taker, latency: { orderEntry: constant(takerEntryMicros), responses: constant(1_000), marketData: constant(1_000) } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [tape] });
    const [makerAgent, takerAgent] = run.host.agents as [(typeof run.host.agents)[0], (typeof run.host.agents)[0]];
    const arrivals = tape
      .requests()
      .filter((entry) => entry.atMicros > T0 + 4 * MICROS_PER_SECOND)
      .map((entry) => ({ at: entry.atMicros - T0, op: entry.value.op }));
    const makerRows = tape.of("order").filter((entry) => entry.value.wallet.toLowerCase() === makerAgent.wallet.toLowerCase() && entry.value.row.orderId === outcome.orderId);
    return { run, tape, outcome, arrivals, makerRows, makerAgent, takerAgent };
  }

  it("loses when the taker's order reaches the exchange first: the cancel fails as already filled and the fill stands", async () => {
    const { run, tape, outcome, arrivals, makerRows, makerAgent, takerAgent } = await race(1_000);
    // Sent at the same instant: the taker's order arrives after 1 ms, the maker's cancel after 20 ms.
    expect(arrivals).toEqual([
      { at: 5 * MICROS_PER_SECOND + 1_000, op: "createOrder" },
      { at: 5 * MICROS_PER_SECOND + 20_000, op: "cancelOrder" },
    ]);
    expect(outcome.takerStatus).toBe("FILLED");
    expect(outcome.cancel).toMatchObject({ code: "CANCEL_ORDER_OTHER_ERROR" });
    expect((outcome.cancel as { details: string }).details).toMatch(new RegExp(`order ${outcome.orderId} .*already filled`));
    expect(outcome.cancelAnsweredAt).toBe(T0 + 5 * MICROS_PER_SECOND + 20_000 + 1_000);
    expect(makerRows.map((entry) => entry.value.row.status)).toEqual(["OPEN", "FILLED"]);
    expect(makerRows[1]!.atMicros).toBe(T0 + 5 * MICROS_PER_SECOND + 1_000);

    // The match settles (no bust) and both positions hold it.
    expect(tape.of("bust")).toEqual([]);
    const executions = tape.of("perpExecution").map((entry) => entry.value.record);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ type: "ORDER_MATCH", takerAccountId: takerAgent.accountId, makerAccountId: makerAgent.accountId, qty: "0.1", price: "3001", side: "B" });
    expect(run.world.queries.positions(makerAgent.wallet).map((row) => [row.side, row.qty])).toEqual([["A", "0.1"]]);
    expect(run.world.queries.positions(takerAgent.wallet).map((row) => [row.side, row.qty])).toEqual([["B", "0.1"]]);
  });

  it("wins when the cancel reaches the exchange first: the order is cancelled and the taker finds nothing", async () => {
    const { run, tape, outcome, arrivals, makerRows, makerAgent, takerAgent } = await race(30_000);
    expect(arrivals).toEqual([
      { at: 5 * MICROS_PER_SECOND + 20_000, op: "cancelOrder" },
      { at: 5 * MICROS_PER_SECOND + 30_000, op: "createOrder" },
    ]);
    expect(outcome.cancel).toBe("ok");
    expect(makerRows.map((entry) => [entry.value.row.status, entry.value.row.cancelReason])).toEqual([
      ["OPEN", undefined],
      ["CANCELLED", "USER_CANCEL"],
    ]);
    expect(outcome.takerStatus).toBe("CANCELLED");
    expect(tape.of("perpExecution")).toEqual([]);
    expect(run.world.queries.positions(makerAgent.wallet)).toEqual([]);
    expect(run.world.queries.positions(takerAgent.wallet)).toEqual([]);
  });
});

describe("swarm fault injection", () => {
  it("draws every fault kind, at a second within the run and a size of 1 to 8, the same for the same stream", () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 400; seed++) {
      const drawn = drawFault(new RngRoot(seed).stream("fuzz"), 60);
      expect(drawFault(new RngRoot(seed).stream("fuzz"), 60)).toEqual(drawn);
      expect(SWARM_FAULTS).toContain(drawn.fault);
      expect(Number.isInteger(drawn.faultAtSeconds) && drawn.faultAtSeconds >= 1 && drawn.faultAtSeconds <= 59).toBe(true);
      expect(Number.isInteger(drawn.faultSize) && drawn.faultSize >= 1 && drawn.faultSize <= 8).toBe(true);
      seen.add(drawn.fault);
    }
    expect([...seen].sort()).toEqual([...SWARM_FAULTS].sort());
  });

  it("turns a drawn fault into its action (a count, or seconds) and appends it to the timeline at its second", () => {
    const size = 3;
    const expected: Record<string, FaultAction | undefined> = {
      none: undefined,
      dropResponses: { fault: "dropResponses", count: 3 },
      engineUnavailable: { fault: "engineUnavailable", durationMs: 3_000 },
      accountOwnerUnavailable: { fault: "accountOwnerUnavailable", durationMs: 3_000 },
      oracleStale: { fault: "oracleStale", durationMs: 6_000 },
      delayBlocks: { fault: "delayBlocks", durationMs: 3_000 },
      bustNext: { fault: "bustNext", count: 3, reasonName: "FUZZ" },
    };
    const existing = [{ atSeconds: 0, fault: { fault: "dropResponses", count: 1 } as FaultAction }];
    for (const fault of SWARM_FAULTS) {
      const parameters: FuzzParameters = { fault, faultAtSeconds: 17, faultSize: size };
      expect(faultOf(parameters), fault).toEqual(expected[fault]);
      const timeline = withDrawnFault(existing, parameters);
      expect(timeline, fault).toEqual(fault === "none" ? existing : [...existing, { atSeconds: 17, fault: expected[fault] }]);
      expect(existing).toHaveLength(1);
    }
    expect(withDrawnFault(undefined, { fault: "bustNext", faultAtSeconds: 4, faultSize: 2 })).toEqual([{ atSeconds: 4, fault: { fault: "bustNext", count: 2, reasonName: "FUZZ" } }]);
  });

  it("applies the default scenario's draw: the fault in the timeline, rates, refresh times, latencies and busts on the agents", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { scenario, parameters } = fuzzedScenario(defaultScenario, seed);
      expect(parameters).toEqual(defaultScenario.fuzz!.draw(new RngRoot(seed).stream("fuzz"), { durationSeconds: defaultScenario.durationSeconds }));
      const fault = faultOf(parameters);
      expect(scenario.timeline).toEqual([...defaultScenario.timeline!, ...(fault === undefined ? [] : [{ atSeconds: parameters["faultAtSeconds"], fault }])]);
      expect(scenario.settlement?.bustProbability).toBe(parameters["bustProbability"]);
      defaultScenario.agents.forEach((original, index) => {
        const drawn = scenario.agents[index]!;
        expect(drawn.name).toBe(original.name);
        if (original.agent === noiseTaker) expect(drawn.params?.["ratePerSecond"], original.name).toBeCloseTo(Number(original.params!["ratePerSecond"]) * Number(parameters["takerRateFactor"]), 12);
        if (original.agent === marketMaker) expect(drawn.params?.["refreshSeconds"], original.name).toBe(parameters["refreshSeconds"]);
        expect((drawn.latency?.orderEntry as { medianMicros: number }).medianMicros).toBe(parameters["orderEntryMedianMicros"]);
        expect((drawn.latency?.responses as { medianMicros: number }).medianMicros).toBe(parameters["orderEntryMedianMicros"]);
        expect((drawn.latency?.marketData as { medianMicros: number }).medianMicros).toBe(parameters["marketDataMedianMicros"]);
      });
    }
  });

  /** The first seed whose default-scenario draw for a one-minute fuzz run (CI's) is `fault`, early enough in the run and at least `minSize` large. */
  function seedDrawing(fault: string, latestSecond: number, minSize: number): { seed: number; scenario: Scenario; parameters: FuzzParameters } {
    const run = { durationSeconds: 60 };
    for (let seed = 1; seed < 2_000; seed++) {
      const parameters = defaultScenario.fuzz!.draw(new RngRoot(seed).stream("fuzz"), run);
      if (parameters["fault"] === fault && Number(parameters["faultAtSeconds"]) <= latestSecond && Number(parameters["faultSize"]) >= minSize) return { seed, ...fuzzedScenario(defaultScenario, seed, run.durationSeconds) };
    }
    throw new Error(`no seed draws ${fault}`);
  }

  it("a drawn bustNext reaches the run: at its second, the next faultSize matches bust with reason FUZZ and none settles in between", async () => {
    const { seed, scenario, parameters } = seedDrawing("bustNext", 20, 4);
    const at = Number(parameters["faultAtSeconds"]);
    const size = Number(parameters["faultSize"]);
    const tape = new Tape();
    await runScenario(scenario, { seed, observers: [tape], durationSeconds: at + 15 });
    const faults = tape.inputs.filter((entry) => entry.value.kind === "fault");
    expect(faults.map((entry) => [entry.atMicros, entry.value])).toEqual([[T0 + at * MICROS_PER_SECOND, { kind: "fault", fault: { fault: "bustNext", count: size, reasonName: "FUZZ" } }]]);

    const fuzzBusts = tape.of("bust").filter((entry) => entry.value.record.reason.reasonName === "FUZZ");
    expect(fuzzBusts).toHaveLength(size);
    const faultAt = T0 + at * MICROS_PER_SECOND;
    for (const bust of fuzzBusts) expect(bust.atMicros).toBeGreaterThan(faultAt);
    // Matches settle in blocks in the order they were made: until the count is used up, each one busts.
    const lastBustBlock = fuzzBusts[fuzzBusts.length - 1]!.atMicros;
    const settledBetween = tape.outputs.filter(
      (entry) => (entry.value.kind === "perpExecution" || entry.value.kind === "spotExecution") && entry.value.record.type === "ORDER_MATCH" && entry.atMicros > faultAt && entry.atMicros < lastBustBlock,
    );
    expect(settledBetween).toEqual([]);
    // And the drawn (random) busts carry the chain's usual reason, not the fault's.
    const fuzzBustsBefore = tape.of("bust").filter((entry) => entry.atMicros <= faultAt && entry.value.record.reason.reasonName === "FUZZ");
    expect(fuzzBustsBefore).toEqual([]);
  });

  it("a drawn delayBlocks reaches the run: no block for faultSize seconds after its second, then one exactly at the end", async () => {
    const { seed, scenario, parameters } = seedDrawing("delayBlocks", 20, 3);
    const at = Number(parameters["faultAtSeconds"]);
    const size = Number(parameters["faultSize"]);
    const tape = new Tape();
    await runScenario(scenario, { seed, observers: [tape], durationSeconds: at + size + 2 });
    const from = T0 + at * MICROS_PER_SECOND;
    const until = from + size * MICROS_PER_SECOND;
    const blocks = tape.of("block").map((entry) => entry.atMicros);
    expect(blocks.filter((time) => time > from - MICROS_PER_SECOND && time <= from).length).toBeGreaterThan(3);
    expect(blocks.filter((time) => time > from && time < until)).toEqual([]);
    expect(blocks.find((time) => time > from)).toBe(until);
  });

  it("draws the chain's timing last (the other parameters keep their values) and gives it to the run's settlement", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { parameters, scenario } = fuzzedScenario(defaultScenario, seed);
      const jitter = Number(parameters["blockJitterMs"]);
      const min = Number(parameters["settlementLatencyMinMs"]);
      const max = Number(parameters["settlementLatencyMaxMs"]);
      expect(jitter).toBeGreaterThanOrEqual(0);
      expect(jitter).toBeLessThanOrEqual(50);
      expect(min).toBeGreaterThanOrEqual(0);
      expect(max - min).toBeGreaterThanOrEqual(0);
      expect(max - min).toBeLessThanOrEqual(300);
      expect(scenario.settlement).toMatchObject({ blockJitterMs: jitter, settlementLatencyMinMs: min, settlementLatencyMaxMs: max });
    }
    // Parameters without them (an older draw) leave the scenario's own timing.
    const { parameters } = fuzzedScenario(defaultScenario, 1);
    const { blockJitterMs: _j, settlementLatencyMinMs: _n, settlementLatencyMaxMs: _x, ...older } = parameters;
    expect(defaultScenario.fuzz!.apply(defaultScenario, older).settlement).toEqual({ ...defaultScenario.settlement, bustProbability: parameters["bustProbability"] });
  });

  it("drawn refresh times and taker rates drive the agents of a run", async () => {
    const base: Scenario = { ...defaultScenario, agents: defaultScenario.agents.filter((agent) => agent.name === "mm-eth" || agent.name === "noise-eth-1"), timeline: [] };
    const durationSeconds = 60;
    const common = { bustProbability: 0, orderEntryMedianMicros: 1_000, marketDataMedianMicros: 1_000, fault: "none", faultAtSeconds: 1, faultSize: 1 };
    const outcomes: { refreshSeconds: number; rate: number; renewals: number; sent: number }[] = [];
    for (const drawn of [
      { refreshSeconds: 2, takerRateFactor: 4 },
      { refreshSeconds: 8, takerRateFactor: 0.5 },
    ]) {
      const scenario = defaultScenario.fuzz!.apply(base, { ...common, ...drawn });
      const { run } = await runScenario(scenario, { durationSeconds });
      const counts = (name: string) => run.host.agents.find((agent) => agent.name === name)!.counts;
      outcomes.push({
        refreshSeconds: drawn.refreshSeconds,
        rate: 0.35 * drawn.takerRateFactor,
        renewals: counts("mm-eth").get("deadManRenewals") ?? 0,
        sent: counts("noise-eth-1").get("sent") ?? 0,
      });
    }
    const startDelay = Number((noiseTaker.defaults as unknown as { startDelaySeconds: number }).startDelaySeconds);
    for (const outcome of outcomes) {
      // One renewal per refresh, from the first oracle price on.
      expect(Math.abs(outcome.renewals - durationSeconds / outcome.refreshSeconds), JSON.stringify(outcome)).toBeLessThanOrEqual(1);
      // Poisson flow: within 4 standard deviations of rate x time.
      const mean = outcome.rate * (durationSeconds - startDelay);
      expect(Math.abs(outcome.sent - mean), JSON.stringify(outcome)).toBeLessThan(4 * Math.sqrt(mean) + 1);
    }
    expect(outcomes[0]!.sent).toBeGreaterThan(3 * outcomes[1]!.sent);
  });
});

describe("GBM jumps", () => {
  /** The WETH prices the oracle publishes over `hours`, stepping it by hand (no run needed). */
  function path(feed: GbmFeed, hours: number, seed = 5): number[] {
    const oracle = new Oracle([feed], { ...DEFAULT_MARKETS, perpMarkets: [] }, new RngRoot(seed), 0, new Map(), { sd: 0 });
    const queue: { at: number; run: () => void }[] = [];
    const prices: number[] = [];
    oracle.start(
      (at, run) => queue.push({ at, run }),
      (input: PriceInput) => prices.push(Number(input.prices[0]!.price)),
    );
    const end = hours * 3_600 * MICROS_PER_SECOND;
    for (;;) {
      queue.sort((a, b) => a.at - b.at);
      const next = queue.shift();
      if (next === undefined || next.at > end) break;
      next.run();
    }
    return prices;
  }
  const logReturns = (prices: number[]) => prices.slice(1).map((price, index) => Math.log(price / prices[index]!));

  it("with volatility 0, moves only by jumps: about perHour of them an hour, each of the stated normal size", () => {
    // 10 hours, 30 jumps an hour, 1 s steps: lambda = 1/120 per step.
    const hours = 10;
    const feed: GbmFeed = { asset: "WETH", model: "gbm", start: 1_000, hourlyVolatility: 0, jumps: { perHour: 30, mean: -0.01, sd: 0.004 }, decimals: 8 };
    const returns = logReturns(path(feed, hours));
    expect(returns).toHaveLength(hours * 3_600);
    const jumps = returns.filter((value) => Math.abs(value) > 1e-7);
    // Steps with at least one jump: binomial(n, 1 - e^-lambda).
    const lambda = 30 / 3_600;
    const p = 1 - Math.exp(-lambda);
    const expected = returns.length * p;
    expect(Math.abs(jumps.length - expected)).toBeLessThan(4 * Math.sqrt(returns.length * p * (1 - p)));
    // Sizes: N(mean, sd) (steps with two jumps are rare at this lambda).
    const mean = jumps.reduce((sum, value) => sum + value, 0) / jumps.length;
    const sd = Math.sqrt(jumps.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (jumps.length - 1));
    expect(mean).toBeGreaterThan(-0.01 - 0.0008);
    expect(mean).toBeLessThan(-0.01 + 0.0008);
    expect(sd).toBeGreaterThan(0.0034);
    expect(sd).toBeLessThan(0.0048);
    // No jumps between them: the rest of the steps do not move.
    expect(returns.length - jumps.length).toBeGreaterThan(0.98 * returns.length);
  });

  it("keeps the jump rate per hour whatever the step", () => {
    const feed = (stepMs: number): GbmFeed => ({ asset: "WETH", model: "gbm", start: 1_000, hourlyVolatility: 0, jumps: { perHour: 60, mean: 0.02, sd: 0.001 }, stepMs, decimals: 8 });
    for (const stepMs of [500, 10_000]) {
      const returns = logReturns(path(feed(stepMs), 5, 9));
      // Total jump count: the return of a step over the jump mean, rounded (sizes 0.02 +- 0.001 never mix up counts below 10).
      const count = returns.reduce((sum, value) => sum + Math.round(value / 0.02), 0);
      expect(Math.abs(count - 300), `stepMs ${stepMs}`).toBeLessThan(4 * Math.sqrt(300));
    }
  });

  it("without jumps, never moves by more than a few diffusion standard deviations; with them, it does", () => {
    const volatility = 0.02;
    const stepSd = volatility * Math.sqrt(1 / 3_600);
    const plain: GbmFeed = { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: volatility, decimals: 8 };
    const jumpy: GbmFeed = { ...plain, jumps: { perHour: 20, mean: 0, sd: 0.01 } };
    const large = (feed: GbmFeed) => logReturns(path(feed, 5, 11)).filter((value) => Math.abs(value) > 6 * stepSd).length;
    expect(large(plain)).toBe(0);
    // About 100 jumps of sd 1 %: most are far beyond 6 diffusion sd (0.2 %).
    expect(large(jumpy)).toBeGreaterThan(60);
  });
});

describe("price-path files through the scenario loader", () => {
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-path-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a feed's file by absolute path or relative to data/, and the run publishes its points at their offsets", async () => {
    const wethFile = join(dir, "weth.csv");
    const wbtcFile = join(dir, "wbtc.csv");
    writeFileSync(wethFile, "offsetMs,price\n0,2000\n1500,2010.5\n# a comment\n4000,1990\n");
    writeFileSync(wbtcFile, "0,60000\n2000,60100.4\n");
    const wbtcFromData = relative(join(PROJECT_ROOT, "data"), wbtcFile);
    const scenarioFile = join(dir, "path-scenario.ts");
    writeFileSync(
      scenarioFile,
      `export default ${JSON.stringify({
        name: "path-scenario",
        description: "two path feeds",
        seed: 1,
        durationSeconds: 6,
        oracleBasisSd: 0,
        prices: [
          { asset: "WETH", model: "path", file: wethFile },
          { asset: "WBTC", model: "path", file: wbtcFromData, decimals: 1 },
        ],
        agents: [],
      })};\n`,
    );
    const loaded = await loadScenario(scenarioFile);
    expect(loaded.path).toBe(scenarioFile);
    expect(loaded.paths.get(wethFile)).toEqual({ offsetsMs: [0, 1_500, 4_000], prices: [2_000, 2_010.5, 1_990] });
    expect(loaded.paths.get(wbtcFromData)).toEqual({ offsetsMs: [0, 2_000], prices: [60_000, 60_100.4] });

    const tape = new Tape();
    await runScenario(loaded.scenario, { paths: loaded.paths, observers: [tape] });
    const published = tape.inputs
      .filter((entry) => entry.value.kind === "prices")
      .map((entry) => [entry.atMicros - T0, (entry.value as PriceInput).prices.map((price) => `${price.asset ?? price.symbol}=${price.price}`)]);
    expect(published).toEqual([
      [0, ["WETH=2000.00", "ETHRUSDPERP=2000.00", "WBTC=60000.0", "BTCRUSDPERP=60000.0"]],
      [1_500_000, ["WETH=2010.50", "ETHRUSDPERP=2010.50"]],
      [2_000_000, ["WBTC=60100.4", "BTCRUSDPERP=60100.4"]],
      [4_000_000, ["WETH=1990.00", "ETHRUSDPERP=1990.00"]],
    ]);
    const weth = tape.of("oraclePrices").map((entry) => entry.value.prices.find((price) => price.asset === "WETH")?.oraclePrice);
    expect(weth[weth.length - 1]).toBe("1990");
  });

  it("refuses a scenario whose path file is missing, naming the feed and where it looked", async () => {
    const scenarioFile = join(dir, "missing-path.ts");
    writeFileSync(
      scenarioFile,
      `export default ${JSON.stringify({ name: "missing-path", description: "", seed: 1, durationSeconds: 5, prices: [{ asset: "WETH", model: "path", file: "no-such-path.csv" }], agents: [] })};\n`,
    );
    const failure = await loadScenario(scenarioFile).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ScenarioError);
    expect((failure as Error).message).toBe(
      `scenario "missing-path": the price path "no-such-path.csv" of WETH is not in data/ (${join(PROJECT_ROOT, "data", "no-such-path.csv")})`,
    );
  });
});
