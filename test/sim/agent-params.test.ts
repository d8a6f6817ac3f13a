/**
 * Agents' parameters are checked with the scenario (checkScenario), before
 * the run starts (issue 8): every shipped agent's checkParams hook refuses a
 * bad value of each parameter it reads, naming the agent entry and the
 * field; a key that is none of the program's defaults is refused, naming it
 * and the known ones; a hook that throws is refused cleanly; the hook sees
 * the params exactly as the agent host merges them, and the run's markets
 * exactly as the agents will have them; the shipped scenarios, and every
 * seed's fuzz draw of them, still pass; and the fuzz path refuses a draw
 * that breaks an agent's rule. An agent's start refuses the same params
 * with the same words when a run is built without checkScenario.
 *
 * Markets: a symbol the run has no market for, and a spot market given to
 * an agent that trades perps only, are refused by the hook (they used to be
 * a RangeError from the agent's start, during the run), naming the field and
 * listing the run's markets. Bounds: the counts and rates that would exhaust
 * memory or never let a run end when huge (momentum's samples, the maker's
 * levels, chaos's burst, the noise taker's rate), and the periods of
 * repeating timers that would re-arm at the same instant when tiny, are
 * refused beyond their limits and accepted at them, and a run at each
 * maximum still ends.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { arbitrageur } from "../../agents/arbitrageur.ts";
import { CHAOS_BURST_SIZE_MAX, CHAOS_PROBES, chaos } from "../../agents/chaos.ts";
import { PERIOD_SECONDS_MIN } from "../../agents/lib/params.ts";
import { MARKET_MAKER_LEVELS_MAX, marketMaker } from "../../agents/market-maker.ts";
import { MOMENTUM_SAMPLES_MAX, momentum } from "../../agents/momentum.ts";
import { NOISE_TAKER_RATE_PER_SECOND_MAX, noiseTaker } from "../../agents/noise-taker.ts";
import { overLeveraged } from "../../agents/over-leveraged.ts";
import defaultScenario from "../../scenarios/default.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import { AgentDefinitionError, defineAgent, type AgentDefinition, type AgentParamsContext, type ParamsMarket } from "../../src/sim/agent.ts";
import { AgentFailedError } from "../../src/sim/agent-host.ts";
import { fuzzedScenario } from "../../src/sim/fuzz.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { checkScenario, scenarioMarkets, ScenarioError, type Scenario, type ScenarioAgent } from "../../src/sim/scenario.ts";

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
const SYMBOL = "must be a market symbol";
const SYMBOLS = "must be a non-empty list of market symbols";
/** A repeating timer's period (PERIOD_SECONDS_MIN to MAX_RUN_SECONDS). */
const PERIOD = "must be a finite number in [0.001, 3153600000]";
/** A delay or span of virtual time (0 to MAX_RUN_SECONDS, 100 years). */
const DELAY = "must be a finite number in [0, 3153600000]";
/** The default scenario's markets, as the unknown-symbol refusals list them. */
const MARKETS = "ETHRUSDPERP, BTCRUSDPERP, WETHRUSD";
const NOT_A_MARKET = `no market of this run (its markets: ${MARKETS})`;
const NO_MARKET = `names ${NOT_A_MARKET}`;
const PERPS = "(the run's perp markets: ETHRUSDPERP, BTCRUSDPERP)";
/** The bounded counts and rates, the maxima written out (a changed maximum must change these). */
const RATE = "must be a finite number in (0, 1000]";
const LEVELS = "must be a positive integer at most 1000";
const SAMPLES = "must be a positive integer at most 1000000";
const BURST = "must be a non-negative integer at most 10000";

/** Price distances (BPS_MAX), USD amounts (NOTIONAL_MAX), the size spread and leverage, the maxima written out. */
const BPS = "must be a finite number in [0, 10000]";
const POSITIVE_BPS = "must be a finite number in (0, 10000]";
const SIGNED_BPS = "must be a finite number in [-10000, 10000]";
const NOTIONAL = "must be a finite number in (0, 1000000000000]";
const NOTIONAL_LIMIT = "must be a finite number in [0, 1000000000000]";
const SIGMA = "must be a finite number in [0, 10]";
const LEVERAGE = "must be a finite number in (0, 1000]";

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
      ["symbols", ["DOGE"], '["DOGE"]', `names "DOGE", ${NOT_A_MARKET}`],
      ["symbols", ["ETHRUSDPERP", "WETHRUSD", "ethrusdperp"], '["ETHRUSDPERP","WETHRUSD","ethrusdperp"]', `names "ethrusdperp", ${NOT_A_MARKET}`],
      ["ratePerSecond", 0, "0", RATE],
      ["ratePerSecond", -1, "-1", RATE],
      ["ratePerSecond", "fast", "fast", RATE],
      ["ratePerSecond", Infinity, "Infinity", RATE],
      ["ratePerSecond", NaN, "NaN", RATE],
      ["ratePerSecond", undefined, "undefined", RATE],
      ["ratePerSecond", NOISE_TAKER_RATE_PER_SECOND_MAX + 0.001, "1000.001", RATE],
      ["ratePerSecond", 1e12, "1000000000000", RATE],
      ["medianNotional", 0, "0", NOTIONAL],
      ["medianNotional", 1e308, "1e+308", NOTIONAL],
      ["notionalSigma", -0.1, "-0.1", SIGMA],
      ["notionalSigma", 800, "800", SIGMA],
      ["crossBps", -5, "-5", BPS],
      ["crossBps", 1e308, "1e+308", BPS],
      ["maxPositionNotional", -1, "-1", NOTIONAL_LIMIT],
      ["startDelaySeconds", -1, "-1", DELAY],
      ["startDelaySeconds", 1e300, "1e+300", DELAY],
      ["buyShare", 1.5, "1.5", "must be a finite number in [0, 1]"],
      ["buyShare", "half", "half", "must be a finite number in [0, 1]"],
    ],
    good: [
      { buyShare: 0 },
      { buyShare: 1 },
      { notionalSigma: 0, crossBps: 0, maxPositionNotional: 0, startDelaySeconds: 0 },
      { ratePerSecond: 1e-9 },
      { ratePerSecond: NOISE_TAKER_RATE_PER_SECOND_MAX },
      // Any kind of market.
      { symbols: ["WETHRUSD"] },
      { symbols: ["BTCRUSDPERP", "WETHRUSD", "ETHRUSDPERP"] },
    ],
    relations: [],
  },
  {
    program: marketMaker,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["symbol", 7, "7", SYMBOL],
      ["symbol", "NOPEPERP", "NOPEPERP", NO_MARKET],
      ["levels", 0, "0", LEVELS],
      ["levels", 1.5, "1.5", LEVELS],
      ["levels", MARKET_MAKER_LEVELS_MAX + 1, "1001", LEVELS],
      ["levels", 1e9, "1000000000", LEVELS],
      ["spreadBps", -1, "-1", BPS],
      ["levelSpacingBps", -1, "-1", BPS],
      ["levelNotional", 0, "0", NOTIONAL],
      ["levelNotional", 1e13, "10000000000000", NOTIONAL],
      ["maxInventoryNotional", 0, "0", NOTIONAL],
      ["skewBps", -1, "-1", BPS],
      ["refreshSeconds", 0, "0", PERIOD],
      ["refreshSeconds", 1e-9, "1e-9", PERIOD],
      ["refreshSeconds", 0.0009, "0.0009", PERIOD],
      ["refreshSeconds", 1e300, "1e+300", PERIOD],
      ["requoteBps", -1, "-1", BPS],
      ["deadManMs", 4_999, "4999", "must be an integer in [5000, 60000]"],
      ["deadManMs", 60_001, "60001", "must be an integer in [5000, 60000]"],
      ["deadManMs", 15_000.5, "15000.5", "must be an integer in [5000, 60000]"],
      ["stopRefreshingAfterSeconds", -1, "-1", `${DELAY}, or null`],
      ["stopRefreshingAfterSeconds", "never", "never", `${DELAY}, or null`],
      ["stopRefreshingAfterSeconds", 1e300, "1e+300", `${DELAY}, or null`],
    ],
    good: [
      { deadManMs: 5_000, refreshSeconds: 4.999 },
      { deadManMs: 60_000 },
      { stopRefreshingAfterSeconds: 0 },
      { stopRefreshingAfterSeconds: null },
      { spreadBps: 0, skewBps: 0 },
      { levels: MARKET_MAKER_LEVELS_MAX },
      { refreshSeconds: PERIOD_SECONDS_MIN },
      // A spot market too.
      { symbol: "WETHRUSD" },
    ],
    relations: [
      [{ refreshSeconds: 15 }, 'deadManMs "15000" must be longer than refreshSeconds "15" s'],
      [{ refreshSeconds: 6, deadManMs: 5_000 }, 'deadManMs "5000" must be longer than refreshSeconds "6" s'],
    ],
  },
  {
    program: momentum,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["symbol", "NOPEPERP", "NOPEPERP", NO_MARKET],
      ["symbol", "WETHRUSD", "WETHRUSD", `must name a perp market, not a spot one: stops are perp only ${PERPS}`],
      ["sampleSeconds", 0, "0", PERIOD],
      ["sampleSeconds", 1e-7, "1e-7", PERIOD],
      ["fastSamples", 0, "0", SAMPLES],
      ["fastSamples", 2.5, "2.5", SAMPLES],
      ["fastSamples", MOMENTUM_SAMPLES_MAX + 1, "1000001", SAMPLES],
      ["slowSamples", 0, "0", SAMPLES],
      ["slowSamples", "many", "many", SAMPLES],
      ["slowSamples", MOMENTUM_SAMPLES_MAX + 1, "1000001", SAMPLES],
      // Was: accepted, then `new Array` failed in the agent's start ("Invalid array length").
      ["slowSamples", 2 ** 32, "4294967296", SAMPLES],
      ["entryThresholdBps", -1, "-1", BPS],
      ["notional", 0, "0", POSITIVE],
      ["crossBps", -1, "-1", BPS],
      ["stopLossBps", 0, "0", POSITIVE_BPS],
      ["takeProfitBps", 0, "0", POSITIVE_BPS],
      ["stopSlippageBps", -1, "-1", BPS],
      ["maxHoldSeconds", -1, "-1", DELAY],
      ["maxHoldSeconds", 3153600001, "3153600001", DELAY],
      ["cooldownSeconds", -1, "-1", DELAY],
      ["cooldownSeconds", 1e300, "1e+300", DELAY],
    ],
    good: [{ fastSamples: 1, slowSamples: 2 }, { entryThresholdBps: 0, cooldownSeconds: 0 }, { fastSamples: MOMENTUM_SAMPLES_MAX - 1, slowSamples: MOMENTUM_SAMPLES_MAX }, { sampleSeconds: PERIOD_SECONDS_MIN }, { symbol: "BTCRUSDPERP" }],
    relations: [
      [{ fastSamples: 120, slowSamples: 120 }, 'slowSamples "120" must be greater than fastSamples "120"'],
      [{ fastSamples: 30, slowSamples: 10 }, 'slowSamples "10" must be greater than fastSamples "30"'],
    ],
  },
  {
    program: overLeveraged,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["symbol", "BTCRUSD", "BTCRUSD", NO_MARKET],
      ["symbol", "WETHRUSD", "WETHRUSD", `must name a perp market, not a spot one ${PERPS}`],
      ["side", "up", "up", "must be long or short"],
      ["alternate", "yes", "yes", "must be true or false"],
      ["leverage", 0, "0", LEVERAGE],
      ["leverage", 1e6, "1000000", LEVERAGE],
      ["leverage", -19, "-19", LEVERAGE],
      ["chunkNotional", 0, "0", NOTIONAL],
      ["chunkSeconds", 0, "0", PERIOD],
      ["chunkSeconds", 0.0001, "0.0001", PERIOD],
      ["topUpSeconds", 0, "0", `${PERIOD}, or null`],
      ["topUpSeconds", 1e-9, "1e-9", `${PERIOD}, or null`],
      ["crossBps", -1, "-1", BPS],
      ["startDelaySeconds", -1, "-1", DELAY],
      ["startDelaySeconds", 1e300, "1e+300", DELAY],
      ["reenterAfterSeconds", -1, "-1", `${DELAY}, or null`],
      ["reenterAfterSeconds", 1e300, "1e+300", `${DELAY}, or null`],
      ["minEquity", -1, "-1", NON_NEGATIVE],
      ["collateralAsset", "", "", "must be an asset name"],
    ],
    good: [{ side: "short", alternate: false }, { topUpSeconds: null, reenterAfterSeconds: null }, { reenterAfterSeconds: 0, minEquity: 0 }, { chunkSeconds: PERIOD_SECONDS_MIN, topUpSeconds: PERIOD_SECONDS_MIN }],
    relations: [],
  },
  {
    program: arbitrageur,
    bad: [
      ["symbols", [], "[]", SYMBOLS],
      ["symbols", ["DOGE"], '["DOGE"]', `names "DOGE", ${NOT_A_MARKET}`],
      ["symbols", ["ETHRUSDPERP", "WETHRUSD"], '["ETHRUSDPERP","WETHRUSD"]', `names "WETHRUSD", a spot market, and must name perp markets only ${PERPS}`],
      ["thresholdBps", -1, "-1", BPS],
      ["exitBps", NaN, "NaN", SIGNED_BPS],
      ["exitBps", -20000, "-20000", SIGNED_BPS],
      ["maxOrderNotional", 0, "0", NOTIONAL],
      ["maxPositionNotional", -1, "-1", NOTIONAL_LIMIT],
      ["checkDelayMs", -1, "-1", "must be a finite number in [0, 3153600000000]"],
      ["checkDelayMs", 1e300, "1e+300", "must be a finite number in [0, 3153600000000]"],
    ],
    good: [{ thresholdBps: 0, exitBps: -5 }, { checkDelayMs: 0, maxPositionNotional: 0 }, { symbols: ["BTCRUSDPERP"] }],
    relations: [
      [{ thresholdBps: 10, exitBps: 10 }, 'thresholdBps "10" must be greater than exitBps "10"'],
      [{ thresholdBps: 5 }, 'thresholdBps "5" must be greater than exitBps "10"'],
    ],
  },
  {
    program: chaos,
    bad: [
      ["symbol", "", "", SYMBOL],
      ["symbol", "NOSUCHPERP", "NOSUCHPERP", NO_MARKET],
      ["symbol", "WETHRUSD", "WETHRUSD", `must name a perp market, not a spot one: some probes use stops ${PERPS}`],
      ["probes", ["offTick", "bogus"], '["offTick","bogus"]', `must be a list of probes: "bogus" is not one (${CHAOS_PROBES.join(", ")})`],
      ["probes", "offTick", "offTick", `must be a list of probes (${CHAOS_PROBES.join(", ")})`],
      ["everySeconds", 0, "0", PERIOD],
      ["everySeconds", 1e-9, "1e-9", PERIOD],
      ["burstEverySeconds", 0, "0", `${PERIOD}, or null`],
      ["burstEverySeconds", 0.0005, "0.0005", `${PERIOD}, or null`],
      ["burstSize", 2.5, "2.5", BURST],
      ["burstSize", -1, "-1", BURST],
      ["burstSize", CHAOS_BURST_SIZE_MAX + 1, "10001", BURST],
      ["burstSize", 1e9, "1000000000", BURST],
      ["startDelaySeconds", -1, "-1", DELAY],
      ["startDelaySeconds", 1e300, "1e+300", DELAY],
    ],
    good: [{ probes: [] }, { probes: ["race"], burstEverySeconds: null, burstSize: 0 }, { burstSize: CHAOS_BURST_SIZE_MAX, everySeconds: PERIOD_SECONDS_MIN, burstEverySeconds: PERIOD_SECONDS_MIN }],
    relations: [],
  },
];

describe.each(SHIPPED.map((shipped) => [shipped.program.kind, shipped] as const))("%s's params are checked by checkScenario", (kind, shipped) => {
  const { program } = shipped;

  it("has a checkParams hook that passes its defaults", () => {
    expect(typeof program.checkParams).toBe("function");
    expect(program.checkParams!(program.defaults, { markets: scenarioMarkets(defaultScenario) })).toBeNull();
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
    expect(refusal({ ...scenario, agents: [...scenario.agents, third] })).toBe('scenario "params": agents[2].params of "noise-third": ratePerSecond "-2" must be a finite number in (0, 1000]');
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
    expect(() => defineAgent(program as never)).toThrow(new AgentDefinitionError('agent "loose" checkParams must be a function (params, context) => problem or null'));
    expect(refusal(withSubject(program as never))).toBe('scenario "params": agents[1].agent of "subject": checkParams of loose must be a function (params, context) => problem or null');
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

describe("the run's markets, as the checkParams hooks are told them", () => {
  /** A scenario on `markets` whose only agent is `program` (no first agent: the default one may trade a market these lack). */
  function onMarkets(markets: RiskConfigInput | undefined, program: AnyAgent, params: Record<string, unknown>): Scenario {
    const { fuzz: _fuzz, markets: _markets, ...rest } = defaultScenario;
    return { ...rest, ...(markets === undefined ? {} : { markets }), name: "params", durationSeconds: 1, agents: [{ name: "subject", agent: program, params }] };
  }
  const SPOT_ONLY: RiskConfigInput = { ...DEFAULT_MARKETS, perpMarkets: [] };
  const [ETH_PERP] = DEFAULT_MARKETS.perpMarkets;
  const WITH_SOL: RiskConfigInput = {
    ...DEFAULT_MARKETS,
    perpMarkets: [...DEFAULT_MARKETS.perpMarkets, { ...ETH_PERP!, symbol: "SOLRUSDPERP", marketId: 9 }],
  };

  type ProbeParams = { symbol: string };
  /** Records what its hook was told and what its start saw. */
  function recorder(): { program: AnyAgent; told: AgentParamsContext[]; seen: ParamsMarket[][] } {
    const told: AgentParamsContext[] = [];
    const seen: ParamsMarket[][] = [];
    const program = defineAgent<ProbeParams>({
      kind: "recorder",
      description: "records the markets it is told",
      defaults: { symbol: "ETHRUSDPERP" },
      checkParams(_params, context) {
        told.push(context);
        return null;
      },
      start(ctx) {
        seen.push(ctx.markets.map((market) => ({ symbol: market.symbol, kind: market.kind })));
      },
    });
    return { program, told, seen };
  }

  it.each([
    ["the built-in markets (a scenario that names none)", undefined, [["ETHRUSDPERP", "perp"], ["BTCRUSDPERP", "perp"], ["WETHRUSD", "spot"]]],
    ["a scenario's own markets (spot only)", SPOT_ONLY, [["WETHRUSD", "spot"]]],
    ["a scenario's own markets (a perp added)", WITH_SOL, [["ETHRUSDPERP", "perp"], ["BTCRUSDPERP", "perp"], ["SOLRUSDPERP", "perp"], ["WETHRUSD", "spot"]]],
  ] as const)("%s: the hook is told exactly the markets the agent's start then has, frozen", async (_what, markets, expected) => {
    const { program, told, seen } = recorder();
    const scenario = onMarkets(markets, program, {});
    checkScenario(scenario);
    expect(told).toHaveLength(1);
    expect(told[0]!.markets.map((market) => [market.symbol, market.kind])).toEqual(expected);
    expect(Object.isFrozen(told[0])).toBe(true);
    expect(Object.isFrozen(told[0]!.markets)).toBe(true);
    expect(told[0]!.markets.every((market) => Object.isFrozen(market))).toBe(true);
    await runScenario(scenario, { durationSeconds: 1 });
    expect(seen).toEqual([told[0]!.markets.map((market) => ({ ...market }))]);
  });

  it("a symbol is checked against the scenario's markets, not the built-in ones", () => {
    expect(refusal(onMarkets(SPOT_ONLY, noiseTaker, { symbols: ["ETHRUSDPERP"] }))).toBe(
      'scenario "params": agents[0].params of "subject": symbols "["ETHRUSDPERP"]" names "ETHRUSDPERP", no market of this run (its markets: WETHRUSD)',
    );
    expect(refusal(onMarkets(SPOT_ONLY, noiseTaker, { symbols: ["WETHRUSD"] }))).toBeUndefined();
    expect(refusal(onMarkets(WITH_SOL, momentum, { symbol: "SOLRUSDPERP" }))).toBeUndefined();
    expect(refusal(onMarkets(undefined, momentum, { symbol: "SOLRUSDPERP" }))).toBe(`scenario "params": agents[0].params of "subject": symbol "SOLRUSDPERP" ${NO_MARKET}`);
    expect(refusal(onMarkets(WITH_SOL, momentum, { symbol: "DOGERUSDPERP" }))).toBe(
      'scenario "params": agents[0].params of "subject": symbol "DOGERUSDPERP" names no market of this run (its markets: ETHRUSDPERP, BTCRUSDPERP, SOLRUSDPERP, WETHRUSD)',
    );
  });

  it("a perp-only agent in a run without perps is told so", () => {
    expect(refusal(onMarkets(SPOT_ONLY, overLeveraged, { symbol: "WETHRUSD" }))).toBe(
      'scenario "params": agents[0].params of "subject": symbol "WETHRUSD" must name a perp market, not a spot one (the run has no perp market)',
    );
    expect(refusal(onMarkets(SPOT_ONLY, arbitrageur, { symbols: ["WETHRUSD"] }))).toBe(
      'scenario "params": agents[0].params of "subject": symbols "["WETHRUSD"]" names "WETHRUSD", a spot market, and must name perp markets only (the run has no perp market)',
    );
  });

  it("a run without markets says it has none", () => {
    expect(refusal(onMarkets({ ...DEFAULT_MARKETS, perpMarkets: [], spotMarkets: [] }, marketMaker, {}))).toBe(
      'scenario "params": agents[0].params of "subject": symbol "ETHRUSDPERP" names no market of this run (it has none)',
    );
  });

  it("market lists that cannot be read are refused, naming the list, before any agent", () => {
    const broken = (patch: object) => refusal(onMarkets({ ...DEFAULT_MARKETS, ...patch } as RiskConfigInput, marketMaker, {}));
    expect(broken({ perpMarkets: undefined })).toBe('scenario "params": markets.perpMarkets must be an array of markets (empty for none)');
    expect(broken({ spotMarkets: "WETHRUSD" })).toBe('scenario "params": markets.spotMarkets must be an array of markets (empty for none)');
    expect(broken({ spotMarkets: [{ ...DEFAULT_MARKETS.spotMarkets[0]!, symbol: 5 }] })).toBe('scenario "params": markets.spotMarkets[0].symbol "5" must be a market symbol');
    expect(broken({ perpMarkets: [DEFAULT_MARKETS.perpMarkets[0]!, null] })).toBe('scenario "params": markets.perpMarkets[1].symbol "undefined" must be a market symbol');
    expect(refusal({ ...onMarkets(undefined, marketMaker, {}), markets: "default" as never })).toBe(
      'scenario "params": markets must be an object of market definitions: { assets, perpMarkets, spotMarkets, feeTiers, ... } (default: the built-in set)',
    );
  });

  it("the fuzz path checks each draw against the markets that draw gives the run", () => {
    const base = onMarkets(undefined, momentum, { symbol: "ETHRUSDPERP" });
    const scenario: Scenario = {
      ...base,
      fuzz: {
        draw: (rng) => ({ perps: rng.int(0, 0) }),
        apply: (applied, parameters) => (parameters["perps"] === 0 ? { ...applied, markets: SPOT_ONLY } : applied),
      },
    };
    expect(refusal(base)).toBeUndefined();
    expect(() => fuzzedScenario(scenario, 3)).toThrow(
      new ScenarioError('scenario "params": agents[0].params of "subject": symbol "ETHRUSDPERP" names no market of this run (its markets: WETHRUSD)'),
    );
  });
});

describe("a run at each maximum still ends", () => {
  /** Virtual seconds of each run: the agents need about 2 s to subscribe and see their first prices. */
  const SECONDS = 5;

  /** Runs `program` alone with `params` (which checkScenario accepts) for SECONDS; its counts, and the wall time it took. */
  async function runAt(program: AnyAgent, params: Record<string, unknown>, account: ScenarioAgent["account"]): Promise<{ counts: Map<string, number>; wallMs: number }> {
    const { fuzz: _fuzz, ...rest } = defaultScenario;
    const scenario: Scenario = { ...rest, name: "params", durationSeconds: SECONDS, agents: [{ name: "subject", agent: program, params, ...(account === undefined ? {} : { account }) }] };
    expect(refusal(scenario)).toBeUndefined();
    const started = performance.now();
    const { run } = await runScenario(scenario);
    return { counts: run.host.agents[0]!.counts, wallMs: performance.now() - started };
  }

  it("momentum averaging MOMENTUM_SAMPLES_MAX samples, sampled every PERIOD_SECONDS_MIN", async () => {
    const { wallMs } = await runAt(momentum, { fastSamples: MOMENTUM_SAMPLES_MAX - 1, slowSamples: MOMENTUM_SAMPLES_MAX, sampleSeconds: PERIOD_SECONDS_MIN }, {});
    expect(wallMs).toBeLessThan(20_000);
  }, 30_000);

  it("a noise taker at NOISE_TAKER_RATE_PER_SECOND_MAX orders a second", async () => {
    const { counts, wallMs } = await runAt(noiseTaker, { ratePerSecond: NOISE_TAKER_RATE_PER_SECOND_MAX, startDelaySeconds: 0 }, { rateTier: 3 });
    expect(counts.get("sent")).toBeGreaterThan(1_000);
    expect(wallMs).toBeLessThan(20_000);
  }, 30_000);

  it("chaos bursting CHAOS_BURST_SIZE_MAX requests at once", async () => {
    const { counts, wallMs } = await runAt(chaos, { burstSize: CHAOS_BURST_SIZE_MAX, burstEverySeconds: 1, probes: [] }, { rateTier: 3 });
    const bursts = counts.get("bursts") ?? 0;
    expect(bursts).toBeGreaterThan(0);
    // Every request of every burst answered: the tier-3 bucket's 6,000, the rest refused by the rate limit.
    expect((counts.get("ok:createOrder") ?? 0) + (counts.get("error:RATE_LIMITED_ERROR") ?? 0)).toBe(bursts * CHAOS_BURST_SIZE_MAX);
    expect(counts.get("error:RATE_LIMITED_ERROR")).toBeGreaterThan(0);
    expect(wallMs).toBeLessThan(20_000);
  }, 30_000);

  it("a maker quoting MARKET_MAKER_LEVELS_MAX levels a side, refreshed every PERIOD_SECONDS_MIN", async () => {
    const { counts, wallMs } = await runAt(marketMaker, { levels: MARKET_MAKER_LEVELS_MAX, levelNotional: 100, refreshSeconds: PERIOD_SECONDS_MIN }, { rateTier: 3, deposits: { rUSD: "10000000" } });
    expect(counts.get("quotesCreated")).toBeGreaterThanOrEqual(2 * MARKET_MAKER_LEVELS_MAX);
    expect(wallMs).toBeLessThan(20_000);
  }, 30_000);
});

describe("an agent's start refuses the same params when the run skips checkScenario", () => {
  const cases: readonly (readonly [string, AnyAgent, Record<string, unknown>, string])[] = [
    ["noise-taker", noiseTaker, { ratePerSecond: 0 }, 'noise-taker params.ratePerSecond "0" must be a finite number in (0, 1000]'],
    ["market-maker", marketMaker, { refreshSeconds: 20 }, 'market-maker params.deadManMs "15000" must be longer than refreshSeconds "20" s'],
    ["momentum", momentum, { fastSamples: 0 }, 'momentum params.fastSamples "0" must be a positive integer at most 1000000'],
    ["over-leveraged", overLeveraged, { leverage: -1 }, `over-leveraged params.leverage "-1" ${LEVERAGE}`],
    ["arbitrageur", arbitrageur, { thresholdBps: 5 }, 'arbitrageur params.thresholdBps "5" must be greater than exitBps "10"'],
    ["chaos", chaos, { everySeconds: 0 }, `chaos params.everySeconds "0" ${PERIOD}`],
    // The run's markets: the same rule, told them by the agent's own context.
    ["noise-taker, a symbol the run has no market for", noiseTaker, { symbols: ["DOGE"] }, `noise-taker params.symbols "[\"DOGE\"]" names "DOGE", ${NOT_A_MARKET}`],
    ["market-maker, a symbol the run has no market for", marketMaker, { symbol: "NOPEPERP" }, `market-maker params.symbol "NOPEPERP" ${NO_MARKET}`],
    ["momentum, a spot market", momentum, { symbol: "WETHRUSD" }, `momentum params.symbol "WETHRUSD" must name a perp market, not a spot one: stops are perp only ${PERPS}`],
    ["over-leveraged, a spot market", overLeveraged, { symbol: "WETHRUSD" }, `over-leveraged params.symbol "WETHRUSD" must name a perp market, not a spot one ${PERPS}`],
    ["arbitrageur, a spot market among perps", arbitrageur, { symbols: ["BTCRUSDPERP", "WETHRUSD"] }, `arbitrageur params.symbols "[\"BTCRUSDPERP\",\"WETHRUSD\"]" names "WETHRUSD", a spot market, and must name perp markets only ${PERPS}`],
    ["chaos, a symbol the run has no market for", chaos, { symbol: "NOSUCHPERP" }, `chaos params.symbol "NOSUCHPERP" ${NO_MARKET}`],
    // Bounds: refused before anything is allocated or scheduled.
    ["momentum, more samples than MOMENTUM_SAMPLES_MAX", momentum, { slowSamples: 2 ** 32 }, `momentum params.slowSamples "4294967296" ${SAMPLES}`],
    ["noise-taker, a rate beyond NOISE_TAKER_RATE_PER_SECOND_MAX", noiseTaker, { ratePerSecond: 1e9 }, `noise-taker params.ratePerSecond "1000000000" ${RATE}`],
  ];
  it.each(cases)("%s", async (_what, program, params, message) => {
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
    expect(() => fuzzedScenario(scenario, 7)).toThrow(new ScenarioError(`scenario "default": agents[${index}].params of "${name}": ratePerSecond "0" must be a finite number in (0, 1000]`));
  });
});
