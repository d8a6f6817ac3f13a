import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { replayMarketMaker } from "../../agents/replay-market-maker.ts";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { runReplayScenario } from "../../src/backtest/run.ts";
import { defineReplayStrategy } from "../../src/backtest/strategy.ts";
import { decodeRecording } from "../../src/backtest/tape.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { checkScenario, defineScenario, MAX_RUN_SECONDS, MAX_START_MS, numberProblem, replayParamsProblem, ScenarioError, type Scenario } from "../../src/sim/scenario.ts";
import { loadScenario, PROJECT_ROOT } from "../../src/sim/scenario-loader.ts";
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
    [{ startMs: -1 }, 'startMs "-1" must be a non-negative integer'],
    [{ startMs: 9_007_199_254_740 }, `startMs "9007199254740" must be at most ${MAX_START_MS} (in 2155): the longest run from it must end at a safe integer of microseconds`],
    [{ agents: [{ name: "a", agent: idle }, { name: "a", agent: idle }] }, 'agents[1].name "a" is used twice'],
    [{ agents: [{ name: "a", agent: idle, account: { rateTier: 4 as never } }] }, 'agents[0].account.rateTier "4" must be 1, 2 or 3'],
    [{ prices: [{ asset: "WETH", model: "gbm" as const, start: 0, hourlyVolatility: 0.01 }] }, 'prices[0].start "0" must be greater than 0'],
    [{ settlement: { bustProbability: 1.5 } }, 'settlement.bustProbability "1.5" must be between 0 and 1'],
    // The chain's own rules (settlement/chain.ts), checked before the run instead of when the exchange is built.
    [
      { settlement: { blockJitterMs: 100 } },
      "the chain's settings: settlement.blockJitterMs (100 ms = blockJitterMicros) must be in [0, blockIntervalMicros (default)) = [0, 100000), got 100000",
    ],
    [
      { settlement: { blockIntervalMs: 50, blockJitterMs: 60 } },
      "the chain's settings: settlement.blockJitterMs (60 ms = blockJitterMicros) must be in [0, settlement.blockIntervalMs (50 ms = blockIntervalMicros)) = [0, 50000), got 60000",
    ],
    [
      { settlement: { settlementLatencyMinMs: 300, settlementLatencyMaxMs: 200 } },
      "the chain's settings: settlement.settlementLatencyMaxMs (200 ms = settlementLatencyMaxMicros) must be at least the minimum (300000), got 200000",
    ],
    [{ chain: { blockJitterMicros: 200_000 } }, "the chain's settings: chain.blockJitterMicros must be in [0, blockIntervalMicros (default)) = [0, 100000), got 200000"],
    [{ chain: { blockIntervalMicros: 1.5 } }, "the chain's settings: chain.blockIntervalMicros must be a whole number of microseconds (a safe integer), got 1.5"],
    [{ timeline: [{ atSeconds: -1, fault: { fault: "dropResponses" as const, count: 1 } }] }, 'timeline[0].atSeconds "-1" must be >= 0'],
  ])("refuses %j naming the field and the rule", (change: Partial<Scenario>, message) => {
    expect(() => defineScenario({ ...base, ...change })).toThrow(new ScenarioError(`scenario "${change.name ?? "ok"}": ${message}`));
  });
});

/** A scenario as a file may write it: any value in any field (what the types forbid included). */
const hostile = (change: Record<string, unknown>) => ({ ...base, ...change }) as unknown as Scenario;
const feed = (change: Record<string, unknown>) => hostile({ prices: [{ ...base.prices[0], ...change }] });
const agent = (change: Record<string, unknown>) => hostile({ agents: [{ ...base.agents[0], ...change }] });
const timeline = (entry: Record<string, unknown>) => hostile({ timeline: [{ atSeconds: 1, ...entry }] });

describe("checkScenario refuses what would crash or mislead the run", () => {
  it.each<[string, Scenario, string]>([
    ["an unknown signature mode", hostile({ signatures: "maybe" }), 'signatures "maybe" must be trusted or signed'],
    ["a negative basis sd", hostile({ oracleBasisSd: -1 }), 'oracleBasisSd "-1" must be a finite number >= 0'],
    ["a basis mean of -100 %", hostile({ oracleBasisMean: -1 }), 'oracleBasisMean "-1" must be a finite number in (-1, 1]'],
    ["agents that are no array", hostile({ agents: "mm" }), "agents must be an array of agents (empty when the market is a recording)"],
    ["an agent entry without a program", agent({ agent: undefined }), 'agents[0].agent of "a" must be an agent program (defineAgent({ kind, description, defaults, start }))'],
    ["an agent entry whose program has no start", agent({ agent: { kind: "nope" } }), 'agents[0].agent of "a" must be an agent program (defineAgent({ kind, description, defaults, start }))'],
    ["agent params that are no object", agent({ params: "fast" }), 'agents[0].params of "a" must be an object of parameters'],
    [
      "a lognormal latency with a zero median (it failed every fuzz seed before it began)",
      agent({ latency: { orderEntry: { model: "lognormal", medianMicros: 0, sigma: 0.3 } } }),
      'agents[0].latency.orderEntry.medianMicros "0" must be greater than 0',
    ],
    ["a uniform latency upside down", agent({ latency: { marketData: { model: "uniform", minMicros: 5, maxMicros: 1 } } }), 'agents[0].latency.marketData.maxMicros "1" must be >= minMicros "5"'],
    ["an unknown latency path", agent({ latency: { orderentry: { model: "constant", micros: 1 } } }), "agents[0].latency.orderentry is not one of orderEntry, responses, marketData"],
    ["a latency that is no model", agent({ latency: { responses: 5 } }), 'agents[0].latency.responses must be a latency model: { model: "constant" | "uniform" | "lognormal" | "recorded", ... }'],
    [
      "an unknown fee tier type",
      hostile({ markets: { ...DEFAULT_MARKETS, feeTiers: DEFAULT_MARKETS.feeTiers.map((tier, index) => (index === 0 ? { ...tier, tierType: "GOLD" } : tier)) } }),
      'markets.feeTiers[0].tierType "GOLD" must be REGULAR or VIP',
    ],
    ["prices that are missing", hostile({ prices: undefined }), "prices must be an array of price feeds (empty when the market is a recording)"],
    ["an unknown feed model", feed({ model: "brownian" }), 'prices[0].model "brownian" must be gbm or path'],
    ["negative feed decimals", feed({ decimals: -2 }), 'prices[0].decimals "-2" must be a non-negative integer at most 18'],
    ["more feed decimals than a price carries", feed({ decimals: 19 }), 'prices[0].decimals "19" must be a non-negative integer at most 18'],
    ["an infinite volatility", feed({ hourlyVolatility: Number.POSITIVE_INFINITY }), 'prices[0].hourlyVolatility "Infinity" must be a finite number >= 0'],
    ["a negative jump rate", feed({ jumps: { perHour: -3, mean: 0, sd: 0.01 } }), 'prices[0].jumps.perHour "-3" must be a finite number >= 0'],
    ["a negative jump sd", feed({ jumps: { perHour: 3, mean: 0, sd: -1 } }), 'prices[0].jumps.sd "-1" must be a finite number >= 0'],
    ["shocks that are not an array", feed({ shocks: { atSeconds: 5, logReturn: 0.1 } }), "prices[0].shocks must be an array of { atSeconds, logReturn }"],
    ["a shock before the start", feed({ shocks: [{ atSeconds: -1, logReturn: 0.1 }] }), 'prices[0].shocks[0].atSeconds "-1" must be a finite number >= 0'],
    ["a shock without a log return", feed({ shocks: [{ atSeconds: 5, logReturn: 0.1 }, { atSeconds: 9 }] }), 'prices[0].shocks[1].logReturn "undefined" must be a finite number'],
    ["a path feed without a file", feed({ model: "path", file: "" }), 'prices[0].file "" must name a price path file in data/'],
    ["a timeline entry with neither admin nor fault", timeline({}), "timeline[0] must have either admin or fault (one of them)"],
    [
      "a timeline entry with both",
      timeline({ admin: { action: "deposit" }, fault: { fault: "dropResponses", count: 1 } }),
      "timeline[0] must have either admin or fault (one of them)",
    ],
    [
      "an unknown admin action",
      timeline({ admin: { action: "nuke" } }),
      'timeline[0].admin.action "nuke" is not one of createAccount, deposit, withdraw, transfer, addSigner, assetStatus, market, wallet',
    ],
    [
      "an unknown fault",
      timeline({ fault: { fault: "meteor" } }),
      'timeline[0].fault.fault "meteor" is not one of bustNext, bustProbability, delayBlocks, engineUnavailable, accountOwnerUnavailable, serviceDisabled, oracleStale, dropResponses',
    ],
    ["a negative fault duration", timeline({ fault: { fault: "delayBlocks", durationMs: -5 } }), 'timeline[0].fault.durationMs "-5" must be a finite number >= 0 for a delayBlocks fault'],
    ["a bust probability above 1", timeline({ fault: { fault: "bustProbability", probability: 7 } }), 'timeline[0].fault.probability "7" must be a finite number in [0, 1] for a bustProbability fault'],
    ["a fractional drop count", timeline({ fault: { fault: "dropResponses", count: 1.5 } }), 'timeline[0].fault.count "1.5" must be a non-negative integer for a dropResponses fault'],
    ["a bustNext without a reason", timeline({ fault: { fault: "bustNext", count: 1 } }), "timeline[0].fault.reasonName of bustNext must be the name of a bust reason"],
    ["a negative IOC price band", hostile({ gateway: { iocPriceBandBps: -5 } }), 'gateway.iocPriceBandBps "-5" must be a non-negative integer'],
  ])("%s", (_what, scenario, message) => {
    expect(() => checkScenario(scenario)).toThrow(new ScenarioError(`scenario "ok": ${message}`));
  });

  it.each<[unknown]>([[undefined], [null], [42], [[]]])("refuses %j as the scenario itself", (value) => {
    expect(() => defineScenario(value as unknown as Scenario)).toThrow(/^the scenario must be an object, not (undefined|null|number|an array): defineScenario\(\{/);
  });

  it("accepts the fields it checks at their limits", () => {
    const edges = hostile({
      startMs: MAX_START_MS,
      signatures: "signed",
      oracleBasisSd: 0,
      prices: [{ ...base.prices[0], decimals: 18, jumps: { perHour: 0, mean: -0.5, sd: 0 } }],
      timeline: [
        { atSeconds: 0, fault: { fault: "delayBlocks", durationMs: 0 } },
        { atSeconds: 0, fault: { fault: "bustProbability", probability: 1 } },
        { atSeconds: 0, fault: { fault: "bustNext", count: 0, reasonName: "MarketPaused" } },
        { atSeconds: 0, admin: { action: "market", symbol: "ETHRUSDPERP", halted: false } },
      ],
      gateway: { iocPriceBandBps: 0 },
    });
    expect(() => checkScenario(edges)).not.toThrow();
  });
});

describe("numberProblem", () => {
  it.each<[unknown, Parameters<typeof numberProblem>[1], string | null]>([
    [0, { min: 0 }, null],
    [-0.5, { min: 0 }, "must be a finite number >= 0"],
    [Number.NaN, { min: 0 }, "must be a finite number >= 0"],
    ["1", { min: 0 }, "must be a finite number >= 0"],
    [0, { min: 0, minExclusive: true }, "must be a finite number greater than 0"],
    [Number.NEGATIVE_INFINITY, { min: Number.NEGATIVE_INFINITY }, "must be a finite number"],
    [1.5, { min: 0, max: 1 }, "must be a finite number in [0, 1]"],
    [1.5, { min: 0, integer: true }, "must be a non-negative integer"],
    [0, { min: 1, integer: true }, "must be a positive integer"],
    [19, { min: 0, max: 18, integer: true }, "must be a non-negative integer at most 18"],
    [18, { min: 0, max: 18, integer: true }, null],
  ])("%j in %j: %s", (value, range, problem) => {
    expect(numberProblem(value, range)).toBe(problem);
  });
});

describe("loadScenario", () => {
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-scenario-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("says that a .ts path is not there, and that another argument names no scenario", async () => {
    const missing = join(dir, "nosuch.ts");
    await expect(loadScenario(missing)).rejects.toThrow(new ScenarioError(`scenario "${missing}": there is no file ${missing}`));
    await expect(loadScenario("scenarios/nosuch.ts")).rejects.toThrow(
      new ScenarioError(`scenario "scenarios/nosuch.ts": there is no file ${join(process.cwd(), "scenarios/nosuch.ts")} (nor ${join(PROJECT_ROOT, "scenarios", "scenarios/nosuch.ts")})`),
    );
    await expect(loadScenario("nosuch")).rejects.toThrow(new ScenarioError(`scenario "nosuch" is neither a .ts file nor the name of a scenario in ${join(PROJECT_ROOT, "scenarios")}`));
  });

  it("refuses a module that throws at import, naming the file and the module's message", async () => {
    const file = join(dir, "throws.ts");
    writeFileSync(file, 'throw new Error("the module failed at import");\nexport default {};\n');
    await expect(loadScenario(file)).rejects.toThrow(new ScenarioError(`scenario file "${file}" failed at import: the module failed at import`));
  });

  it("refuses a price path that is a directory, naming it", async () => {
    const directory = join(dir, "a-directory");
    mkdirSync(directory);
    const file = join(dir, "path-directory.ts");
    const scenario = { ...base, agents: [], prices: [{ asset: "WETH", model: "path", file: directory }] };
    writeFileSync(file, `export default ${JSON.stringify(scenario)};\n`);
    await expect(loadScenario(file)).rejects.toThrow(
      new ScenarioError(`scenario "ok": the price path "${directory}" of WETH is a directory, not a file of offsetMs,price lines (${directory})`),
    );
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

/** A replay strategy whose checkParams requires a positive `size` (default 1) and records what it was given. */
const seen: unknown[] = [];
const sized = defineReplayStrategy<{ size: number; label: string }, null>({
  name: "sized",
  defaults: { size: 1, label: "default" },
  checkParams(params) {
    seen.push(params);
    return params.size > 0 ? null : `size "${params.size}" must be greater than 0`;
  },
  init: () => null,
});
const unchecked = defineReplayStrategy<{ size: number }, null>({ name: "unchecked", defaults: { size: 1 }, init: () => null });
const replay = (marketData: Record<string, unknown>) =>
  ({ ...base, prices: [], agents: [], marketData: { recording: "no-such-recording.arrow", strategy: replayMarketMaker, ...marketData } }) as unknown as Scenario;

describe("checkScenario: a replay strategy's params (its checkParams hook)", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["a negative quote notional", { params: { quoteNotional: -5 } }, 'marketData.params.quoteNotional "-5" must be a finite number > 0'],
    ["a fractional refresh interval", { params: { refreshMicros: 0.5 } }, 'marketData.params.refreshMicros "0.5" must be a positive integer'],
    ["a text edge", { params: { edgeTicks: "wide" } }, 'marketData.params.edgeTicks "wide" must be an integer'],
    ["symbols as one string", { params: { symbols: "ETHRUSDPERP" } }, 'marketData.params.symbols "ETHRUSDPERP" must be a list of market symbols'],
    ["params that are no object", { params: "fast" }, "marketData.params must be an object of the strategy's parameters"],
    ["params that are an array", { params: [1] }, "marketData.params must be an object of the strategy's parameters"],
  ])("refuses %s, naming the field under marketData.params", (_what, marketData, message) => {
    expect(() => checkScenario(replay(marketData))).toThrow(new ScenarioError(`scenario "ok": ${message}`));
  });

  it("lays the params over the strategy's defaults before checking them", () => {
    seen.length = 0;
    expect(() => checkScenario(replay({ strategy: sized, params: { label: "mine" } }))).not.toThrow();
    expect(seen).toEqual([{ size: 1, label: "mine" }]);
    expect(() => checkScenario(replay({ strategy: sized, params: { size: 0 } }))).toThrow(new ScenarioError('scenario "ok": marketData.params.size "0" must be greater than 0'));
  });

  it("accepts the shipped scenario's params, and any params of a strategy without the hook", () => {
    expect(() => checkScenario(replay({ params: { quoteNotional: 3_000, maxPositionNotional: 30_000, refreshMicros: 2_000_000, requoteTicks: 1 } }))).not.toThrow();
    expect(() => checkScenario(replay({ strategy: unchecked, params: { size: -1 } }))).not.toThrow();
  });

  it("refuses params a hook throws at, with its message, and a hook that is no function", () => {
    const throwing = { ...unchecked, checkParams: () => { throw new Error("size is out of range"); } };
    expect(() => checkScenario(replay({ strategy: throwing }))).toThrow(
      new ScenarioError('scenario "ok": marketData.params were refused by the checkParams of "unchecked", which threw: size is out of range'),
    );
    const broken = { ...unchecked, checkParams: "size > 0" };
    expect(() => checkScenario(replay({ strategy: broken }))).toThrow(new ScenarioError('scenario "ok": marketData.strategy.checkParams of "unchecked" must be a function (params) => problem or null'));
    expect(() => defineReplayStrategy({ ...unchecked, checkParams: "size > 0" as never })).toThrow('replay strategy "unchecked" checkParams must be a function (params) => problem or null');
  });

  it("names the field within params (replayParamsProblem), or null", () => {
    expect(replayParamsProblem(sized, { size: -2 })).toBe('params.size "-2" must be greater than 0');
    expect(replayParamsProblem(sized, undefined)).toBeNull();
    expect(replayParamsProblem(unchecked, { size: -2 })).toBeNull();
  });
});

/**
 * The order of the refusals: a replay scenario's params are checked with
 * the scenario, before its recording is read, so bad params are refused
 * even when the recording does not exist (and no recording is decoded for
 * a run that cannot start).
 */
describe("a replay strategy's params are refused before the recording is read", () => {
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-params-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const url = (path: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, "..", "..", path)).href);
  const scenarioFile = (name: string, params: string) => {
    const file = join(dir, `${name}.ts`);
    writeFileSync(
      file,
      `import { replayMarketMaker } from ${url("agents/replay-market-maker.ts")};
import { defineScenario } from ${url("src/sim/scenario.ts")};
export default defineScenario({ name: "${name}", description: "", seed: 1, durationSeconds: 5, prices: [], agents: [],
  marketData: { recording: "no-such-recording.arrow", strategy: replayMarketMaker, params: ${params} } });
`,
    );
    return file;
  };

  it("loadScenario refuses the params of a scenario whose recording does not exist", async () => {
    await expect(loadScenario(scenarioFile("bad-params", "{ quoteNotional: -5 }"))).rejects.toThrow('scenario "bad-params": marketData.params.quoteNotional "-5" must be a finite number > 0');
    // With good params, the same scenario loads: the missing recording is found only when the run reads it.
    const loaded = await loadScenario(scenarioFile("good-params", "{ quoteNotional: 5 }"));
    expect(() => runReplayScenario(loaded.scenario, { durationSeconds: 1 })).toThrow(/no-such-recording\.arrow/);
  });

  it("runReplayScenario checks them before reading, for a caller that skipped checkScenario", () => {
    expect(() => runReplayScenario(replay({ params: { quoteNotional: -5 } }))).toThrow(new ScenarioError('scenario "ok": marketData.params.quoteNotional "-5" must be a finite number > 0'));
  });

  it("runReplay checks them before init, for a caller that skipped both", () => {
    const decoded = decodeRecording(memoryRecording([]), { grids: [{ symbol: "TESTPERP", tickSize: "1", qtyStepSize: "1" }] });
    seen.length = 0;
    expect(() => runReplay(decoded, { seed: 1, queue: riskAverseQueue, strategy: sized, params: { size: -1 } })).toThrow('replay strategy "sized": params.size "-1" must be greater than 0');
    expect(seen).toEqual([{ size: -1, label: "default" }]);
    expect(() => runReplay(decoded, { seed: 1, queue: riskAverseQueue, strategy: sized, params: { size: 2 } })).not.toThrow();
  });
});
