/**
 * Agents' parameters are checked with the scenario (checkScenario), before
 * the run starts (issue 8): every shipped agent's checkParams hook refuses a
 * bad value of each parameter it reads, naming the agent entry and the
 * field; a key that is none of the program's defaults is refused, naming it
 * and the known ones; a hook that throws is refused cleanly; the hook sees
 * the params exactly as the agent host merges them; the shipped scenarios,
 * and every seed's fuzz draw of them, still pass; and the fuzz path refuses
 * a draw that breaks an agent's rule. An agent's start refuses the same
 * params with the same words when a run is built without checkScenario.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { arbitrageur } from "../../agents/arbitrageur.ts";
import { CHAOS_PROBES, chaos } from "../../agents/chaos.ts";
import { marketMaker } from "../../agents/market-maker.ts";
import { momentum } from "../../agents/momentum.ts";
import { noiseTaker } from "../../agents/noise-taker.ts";
import { overLeveraged } from "../../agents/over-leveraged.ts";
import defaultScenario from "../../scenarios/default.ts";
import { AgentDefinitionError, defineAgent, type AgentDefinition } from "../../src/sim/agent.ts";
import { AgentFailedError } from "../../src/sim/agent-host.ts";
import { fuzzedScenario } from "../../src/sim/fuzz.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { checkScenario, ScenarioError, type Scenario, type ScenarioAgent } from "../../src/sim/scenario.ts";

const ROOT = join(import.meta.dirname, "../..");

/** A valid agent at agents[0], so that the entry under test is agents[1]. */
const FIRST: ScenarioAgent = { name: "noise-first", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"] } };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAgent = AgentDefinition<any>;

/** The default scenario's markets and feeds, with `FIRST` and `program` as "subject" (params over its defaults). */
function withSubject(program: AnyAgent, params?: Record<string, unknown>): Scenario {
  const { fuzz: _fuzz, ...rest } = defaultScenario;
  return { ...rest, name: "params", durationSeconds: 2, agents: [FIRST, { name: "subject", agent: program, ...(params === undefined ? {} : { params }) }] };
}

/** What checkScenario throws for the scenario, or undefined. */
function refusal(scenario: Scenario): string | undefined {
  try {
    checkScenario(scenario);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
}

const POSITIVE = "must be a finite number greater than 0";
const NON_NEGATIVE = "must be a finite number >= 0";
const POSITIVE_INTEGER = "must be a positive integer";
const SYMBOL = "must be a market symbol";
const SYMBOLS = "must be a non-empty list of market symbols";

/** A bad value of a field, how the message quotes it, and the rule it states. */
type Bad = readonly [field: string, value: unknown, quoted: string, rule: string];

interface Shipped {
  readonly program: AnyAgent;
  /** At least one bad value of every parameter (a test below checks that every default is covered). */
  readonly bad: readonly Bad[];
  /** Values at the edge of a rule that must pass. */
  readonly good: readonly Record<string, unknown>[];
  /** Rules over two parameters: the params and the whole problem. */
  readonly relations: readonly (readonly [Record<string, unknown>, string])[];
}

const SHIPPED: readonly Shipped[] = [
  {
    program: noiseTaker,
    bad: [
      ["symbols", [], "[]", SYMBOLS],
      ["symbols", "ETHRUSDPERP", "ETHRUSDPERP", SYMBOLS],
      ["symbols", ["ETHRUSDPERP", ""], '["ETHRUSDPERP",""]', SYMBOLS],
      ["symbols", [7], "[7]", SYMBOLS],
      ["ratePerSecond", 0, "0", POSITIVE],
      ["ratePerSecond", -1, "-1", POSITIVE],
      ["ratePerSecond", "fast", "fast", POSITIVE],
      ["ratePerSecond", Infinity, "Infinity", POSITIVE],
      ["ratePerSecond", NaN, "NaN", POSITIVE],
      ["ratePerSecond", undefined, "undefined", POSITIVE],
      ["medianNotional", 0, "0", POSITIVE],
      ["notionalSigma", -0.1, "-0.1", NON_NEGATIVE],
      ["crossBps", -5, "-5", NON_NEGATIVE],
      ["maxPositionNotional", -1, "-1", NON_NEGATIVE],
      ["startDelaySeconds", -1, "-1", NON_NEGATIVE],
      ["buyShare", 1.5, "1.5", "must be a finite number in [0, 1]"],
      ["buyShare", "half", "half", "must be a finite number in [0, 1]"],
    ],
    good: [{ buyShare: 0 }, { buyShare: 1 }, { notionalSigma: 0, crossBps: 0, maxPositionNotional: 0, startDelaySeconds: 0 }, { ratePerSecond: 1e-9 }],
    relations: [],
  },
  {
    program: marketMaker,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["symbol", 7, "7", SYMBOL],
      ["levels", 0, "0", POSITIVE_INTEGER],
      ["levels", 1.5, "1.5", POSITIVE_INTEGER],
      ["spreadBps", -1, "-1", NON_NEGATIVE],
      ["levelSpacingBps", -1, "-1", NON_NEGATIVE],
      ["levelNotional", 0, "0", POSITIVE],
      ["maxInventoryNotional", 0, "0", POSITIVE],
      ["skewBps", -1, "-1", NON_NEGATIVE],
      ["refreshSeconds", 0, "0", POSITIVE],
      ["requoteBps", -1, "-1", NON_NEGATIVE],
      ["deadManMs", 4_999, "4999", "must be an integer >= 5000 at most 60000"],
      ["deadManMs", 60_001, "60001", "must be an integer >= 5000 at most 60000"],
      ["deadManMs", 15_000.5, "15000.5", "must be an integer >= 5000 at most 60000"],
      ["stopRefreshingAfterSeconds", -1, "-1", `${NON_NEGATIVE}, or null`],
      ["stopRefreshingAfterSeconds", "never", "never", `${NON_NEGATIVE}, or null`],
    ],
    good: [{ deadManMs: 5_000, refreshSeconds: 4.999 }, { deadManMs: 60_000 }, { stopRefreshingAfterSeconds: 0 }, { stopRefreshingAfterSeconds: null }, { spreadBps: 0, skewBps: 0 }],
    relations: [
      [{ refreshSeconds: 15 }, 'deadManMs "15000" must be longer than refreshSeconds "15" s'],
      [{ refreshSeconds: 6, deadManMs: 5_000 }, 'deadManMs "5000" must be longer than refreshSeconds "6" s'],
    ],
  },
  {
    program: momentum,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["sampleSeconds", 0, "0", POSITIVE],
      ["fastSamples", 0, "0", POSITIVE_INTEGER],
      ["fastSamples", 2.5, "2.5", POSITIVE_INTEGER],
      ["slowSamples", 0, "0", POSITIVE_INTEGER],
      ["slowSamples", "many", "many", POSITIVE_INTEGER],
      ["entryThresholdBps", -1, "-1", NON_NEGATIVE],
      ["notional", 0, "0", POSITIVE],
      ["crossBps", -1, "-1", NON_NEGATIVE],
      ["stopLossBps", 0, "0", POSITIVE],
      ["takeProfitBps", 0, "0", POSITIVE],
      ["stopSlippageBps", -1, "-1", NON_NEGATIVE],
      ["maxHoldSeconds", -1, "-1", NON_NEGATIVE],
      ["cooldownSeconds", -1, "-1", NON_NEGATIVE],
    ],
    good: [{ fastSamples: 1, slowSamples: 2 }, { entryThresholdBps: 0, cooldownSeconds: 0 }],
    relations: [
      [{ fastSamples: 120, slowSamples: 120 }, 'slowSamples "120" must be greater than fastSamples "120"'],
      [{ fastSamples: 30, slowSamples: 10 }, 'slowSamples "10" must be greater than fastSamples "30"'],
    ],
  },
  {
    program: overLeveraged,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["side", "up", "up", "must be long or short"],
      ["alternate", "yes", "yes", "must be true or false"],
      ["leverage", 0, "0", POSITIVE],
      ["leverage", -19, "-19", POSITIVE],
      ["chunkNotional", 0, "0", POSITIVE],
      ["chunkSeconds", 0, "0", POSITIVE],
      ["topUpSeconds", 0, "0", `${POSITIVE}, or null`],
      ["crossBps", -1, "-1", NON_NEGATIVE],
      ["startDelaySeconds", -1, "-1", NON_NEGATIVE],
      ["reenterAfterSeconds", -1, "-1", `${NON_NEGATIVE}, or null`],
      ["minEquity", -1, "-1", NON_NEGATIVE],
      ["collateralAsset", "", "", "must be an asset name"],
    ],
    good: [{ side: "short", alternate: false }, { topUpSeconds: null, reenterAfterSeconds: null }, { reenterAfterSeconds: 0, minEquity: 0 }],
    relations: [],
  },
  {
    program: arbitrageur,
    bad: [
      ["symbols", [], "[]", SYMBOLS],
      ["thresholdBps", -1, "-1", NON_NEGATIVE],
      ["exitBps", NaN, "NaN", "must be a finite number"],
      ["maxOrderNotional", 0, "0", POSITIVE],
      ["maxPositionNotional", -1, "-1", NON_NEGATIVE],
      ["checkDelayMs", -1, "-1", NON_NEGATIVE],
    ],
    good: [{ thresholdBps: 0, exitBps: -5 }, { checkDelayMs: 0, maxPositionNotional: 0 }],
    relations: [
      [{ thresholdBps: 10, exitBps: 10 }, 'thresholdBps "10" must be greater than exitBps "10"'],
      [{ thresholdBps: 5 }, 'thresholdBps "5" must be greater than exitBps "10"'],
    ],
  },
  {
    program: chaos,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["probes", ["offTick", "bogus"], '["offTick","bogus"]', `must be a list of probes: "bogus" is not one (${CHAOS_PROBES.join(", ")})`],
      ["probes", "offTick", "offTick", `must be a list of probes (${CHAOS_PROBES.join(", ")})`],
      ["everySeconds", 0, "0", POSITIVE],
      ["burstEverySeconds", 0, "0", `${POSITIVE}, or null`],
      ["burstSize", 2.5, "2.5", "must be a non-negative integer"],
      ["startDelaySeconds", -1, "-1", NON_NEGATIVE],
    ],
    good: [{ probes: [] }, { probes: ["race"], burstEverySeconds: null, burstSize: 0 }],
    relations: [],
  },
];

describe.each(SHIPPED.map((shipped) => [shipped.program.kind, shipped] as const))("%s's params are checked by checkScenario", (kind, shipped) => {
  const { program } = shipped;

  it("has a checkParams hook that passes its defaults", () => {
    expect(typeof program.checkParams).toBe("function");
    expect(program.checkParams!(program.defaults)).toBeNull();
    expect(refusal(withSubject(program))).toBeUndefined();
    expect(refusal(withSubject(program, {}))).toBeUndefined();
  });

  it("checks every parameter it has (each default has a refused value below)", () => {
    expect([...new Set(shipped.bad.map(([field]) => field))].sort()).toEqual(Object.keys(program.defaults as object).sort());
  });

  it.each(shipped.bad.map((bad) => [`${bad[0]} ${bad[2]}`, bad] as const))("refuses %s, naming agents[1], the agent and the field", (_what, [field, value, quoted, rule]) => {
    expect(refusal(withSubject(program, { [field]: value }))).toBe(`scenario "params": agents[1].params of "subject": ${field} "${quoted}" ${rule}`);
  });

  it("accepts the values at the edges of its rules", () => {
    for (const params of shipped.good) expect(refusal(withSubject(program, params)), JSON.stringify(params)).toBeUndefined();
  });

  it("refuses params that break a rule over two of them", () => {
    for (const [params, problem] of shipped.relations) {
      expect(refusal(withSubject(program, params))).toBe(`scenario "params": agents[1].params of "subject": ${problem}`);
    }
  });

  it("refuses a key that is none of its parameters, naming it and listing the known ones", () => {
    const known = Object.keys(program.defaults as object).join(", ");
    expect(refusal(withSubject(program, { typo: 1 }))).toBe(`scenario "params": agents[1].params of "subject": typo is not a parameter of ${kind} (its parameters: ${known})`);
  });
});

describe("the params a user gets wrong most", () => {
  it("a misspelt parameter of a noise taker is refused, not ignored", () => {
    expect(refusal(withSubject(noiseTaker, { symbols: ["ETHRUSDPERP"], ratePerSec: 2 }))).toBe(
      'scenario "params": agents[1].params of "subject": ratePerSec is not a parameter of noise-taker (its parameters: symbols, ratePerSecond, medianNotional, notionalSigma, crossBps, maxPositionNotional, startDelaySeconds, buyShare)',
    );
  });

  it("a known key is checked even when another entry of the same program is fine", () => {
    const scenario = withSubject(noiseTaker, { ratePerSecond: 1 });
    const third: ScenarioAgent = { name: "noise-third", agent: noiseTaker, params: { ratePerSecond: -2 } };
    expect(refusal({ ...scenario, agents: [...scenario.agents, third] })).toBe('scenario "params": agents[2].params of "noise-third": ratePerSecond "-2" must be a finite number greater than 0');
  });
});

describe("the checkParams hook of any agent", () => {
  type ProbeParams = { size: number; label: string; limit: number | null };
  const DEFAULTS: ProbeParams = { size: 1, label: "default", limit: null };

  it("sees the params as the agent host merges them (the entry's over the defaults, frozen), the params start gets", async () => {
    const checked: ProbeParams[] = [];
    const started: ProbeParams[] = [];
    const probe = defineAgent<ProbeParams>({
      kind: "probe",
      description: "records its params",
      defaults: DEFAULTS,
      checkParams(params) {
        checked.push(params);
        return null;
      },
      start(ctx) {
        started.push(ctx.params);
      },
    });
    const scenario = withSubject(probe, { label: "mine" });
    checkScenario(scenario);
    expect(checked).toEqual([{ size: 1, label: "mine", limit: null }]);
    expect(Object.isFrozen(checked[0])).toBe(true);
    await runScenario(scenario, { durationSeconds: 1 });
    expect(started).toEqual(checked);
  });

  it("refuses with its problem, after the entry", () => {
    const sized = defineAgent<ProbeParams>({ kind: "sized", description: "", defaults: DEFAULTS, checkParams: (p) => (p.size > 0 ? null : `size "${p.size}" must be greater than 0`), start() {} });
    expect(refusal(withSubject(sized, { size: 0 }))).toBe('scenario "params": agents[1].params of "subject": size "0" must be greater than 0');
    expect(refusal(withSubject(sized, { size: 2 }))).toBeUndefined();
  });

  it("that throws is refused naming the agent and the program, with what it threw", () => {
    const throwing = defineAgent<ProbeParams>({
      kind: "throwing",
      description: "",
      defaults: DEFAULTS,
      checkParams() {
        throw new TypeError("cannot read the markets here");
      },
      start() {},
    });
    expect(refusal(withSubject(throwing))).toBe('scenario "params": agents[1].params of "subject" were refused by the checkParams of throwing, which threw: cannot read the markets here');
    const throwingText = defineAgent<ProbeParams>({
      kind: "throwing-text",
      description: "",
      defaults: DEFAULTS,
      checkParams() {
        throw "no";
      },
      start() {},
    });
    expect(refusal(withSubject(throwingText))).toBe('scenario "params": agents[1].params of "subject" were refused by the checkParams of throwing-text, which threw: no');
  });

  it("must be a function: defineAgent refuses another value, and checkScenario a program made without it", () => {
    const program = { kind: "loose", description: "", defaults: DEFAULTS, checkParams: "size > 0", start() {} };
    expect(() => defineAgent(program as never)).toThrow(new AgentDefinitionError('agent "loose" checkParams must be a function (params) => problem or null'));
    expect(refusal(withSubject(program as never))).toBe('scenario "params": agents[1].agent of "subject": checkParams of loose must be a function (params) => problem or null');
  });

  it("is optional: a program without it takes any value of its parameters, but not a key it does not have", () => {
    const open = defineAgent<ProbeParams>({ kind: "open", description: "", defaults: DEFAULTS, start() {} });
    expect(refusal(withSubject(open, { size: -1, label: 3 }))).toBeUndefined();
    expect(refusal(withSubject(open, { sise: 1 }))).toBe('scenario "params": agents[1].params of "subject": sise is not a parameter of open (its parameters: size, label, limit)');
    const none = defineAgent({ kind: "none", description: "", defaults: {}, start() {} });
    expect(refusal(withSubject(none, {}))).toBeUndefined();
    expect(refusal(withSubject(none, { size: 1 }))).toBe('scenario "params": agents[1].params of "subject": size is not a parameter of none (it has none)');
  });
});

describe("an agent's start refuses the same params when the run skips checkScenario", () => {
  const cases: readonly (readonly [AnyAgent, Record<string, unknown>, string])[] = [
    [noiseTaker, { ratePerSecond: 0 }, 'noise-taker params.ratePerSecond "0" must be a finite number greater than 0'],
    [marketMaker, { refreshSeconds: 20 }, 'market-maker params.deadManMs "15000" must be longer than refreshSeconds "20" s'],
    [momentum, { fastSamples: 0 }, 'momentum params.fastSamples "0" must be a positive integer'],
    [overLeveraged, { leverage: -1 }, 'over-leveraged params.leverage "-1" must be a finite number greater than 0'],
    [arbitrageur, { thresholdBps: 5 }, 'arbitrageur params.thresholdBps "5" must be greater than exitBps "10"'],
    [chaos, { everySeconds: 0 }, 'chaos params.everySeconds "0" must be a finite number greater than 0'],
  ];
  it.each(cases.map(([program, params, message]) => [program.kind, program, params, message] as const))("%s", async (_kind, program, params, message) => {
    const failed = await runScenario(withSubject(program, params), { durationSeconds: 1 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(AgentFailedError);
    expect((failed as AgentFailedError).failure.agent).toBe("subject");
    expect((failed as AgentFailedError).failure.what).toBe("start");
    expect((failed as AgentFailedError).failure.error).toEqual(new RangeError(message));
  });
});

describe("the shipped scenarios", () => {
  const files = readdirSync(join(ROOT, "scenarios")).filter((name) => name.endsWith(".ts") && name !== "fuzz-helpers.ts");
  const scenarios = new Map<string, Scenario>();

  beforeAll(async () => {
    for (const file of files) scenarios.set(file, ((await import(pathToFileURL(join(ROOT, "scenarios", file)).href)) as { default: Scenario }).default);
  });

  it("are all found (the default among them)", () => {
    expect(files).toContain("default.ts");
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  it("pass checkScenario, their agents' params included", () => {
    for (const [file, scenario] of scenarios) expect(() => checkScenario(scenario), file).not.toThrow();
    expect(scenarios.get("default.ts")!.agents.map((agent) => agent.agent.kind)).toEqual(expect.arrayContaining(SHIPPED.map((shipped) => shipped.program.kind)));
  });

  it("pass it with every seed's fuzz draw applied (the fuzz path checks each draw)", () => {
    for (const [file, scenario] of scenarios) {
      if (scenario.fuzz === undefined) continue;
      for (let seed = 0; seed < 200; seed++) expect(() => fuzzedScenario(scenario, seed), `${file} seed ${seed}`).not.toThrow();
    }
  });

  it("a fuzz draw that breaks an agent's rule is refused by the fuzz path, naming the agent and the field", () => {
    const scenario: Scenario = {
      ...defaultScenario,
      fuzz: {
        draw: (rng) => ({ ratePerSecond: rng.int(0, 0) }),
        apply: (base, parameters) => ({
          ...base,
          agents: base.agents.map((agent) => (agent.agent === noiseTaker ? { ...agent, params: { ...agent.params, ratePerSecond: parameters["ratePerSecond"]! } } : agent)),
        }),
      },
    };
    const index = scenario.agents.findIndex((agent) => agent.agent === noiseTaker);
    const name = scenario.agents[index]!.name;
    expect(() => fuzzedScenario(scenario, 7)).toThrow(new ScenarioError(`scenario "default": agents[${index}].params of "${name}": ratePerSecond "0" must be a finite number greater than 0`));
  });
});
