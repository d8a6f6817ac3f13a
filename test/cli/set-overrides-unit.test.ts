/**
 * `--set <path>=<value>` (src/sim/overrides.ts), without running anything:
 * how a flag is parsed (path, JSON-or-text value), what a path may name in
 * a scenario, the exact refusals, how the overrides are laid over a
 * scenario (and only there), and how they are given back as shell words
 * for a reproduce command.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { quoter } from "../sim/fixtures/fuzz-agents.ts";
import { formatFailure, reproductionCommand, type FuzzResult } from "../../src/sim/fuzz.ts";
import { applyOverrides, formatOverrides, OverrideError, overridesRecord, parseSetFlag, parseSetFlags, parseSetValue, setFlagsText, shellWord } from "../../src/sim/overrides.ts";
import { defineScenario, type Scenario } from "../../src/sim/scenario.ts";
import defaultScenario from "../../scenarios/default.ts";

const AGENTS = "mm-eth, mm-btc, mm-weth-spot, noise-eth-1, noise-eth-2, noise-btc, noise-mixed, momentum, over-leveraged, arbitrageur, chaos";
const MM_PARAMS = "symbol, levels, spreadBps, levelSpacingBps, levelNotional, maxInventoryNotional, skewBps, refreshSeconds, requoteBps, deadManMs, stopRefreshingAfterSeconds";

/** The refusal of applying these flags to the default scenario. */
function refusal(...flags: string[]): string {
  try {
    applyOverrides(defaultScenario, parseSetFlags(flags));
  } catch (error) {
    expect(error).toBeInstanceOf(OverrideError);
    return (error as Error).message;
  }
  throw new Error(`${flags.join(" ")} was not refused`);
}

const agentNamed = (scenario: Scenario, name: string) => scenario.agents.find((agent) => agent.name === name)!;

describe("parsing a --set", () => {
  it("reads the value as JSON when it parses, else as text", () => {
    expect(parseSetValue("5")).toBe(5);
    expect(parseSetValue("0.8")).toBe(0.8);
    expect(parseSetValue("-1e3")).toBe(-1000);
    expect(parseSetValue("true")).toBe(true);
    expect(parseSetValue("false")).toBe(false);
    expect(parseSetValue("null")).toBe(null);
    expect(parseSetValue('["ETHRUSDPERP"]')).toEqual(["ETHRUSDPERP"]);
    expect(parseSetValue('"5"')).toBe("5");
    expect(parseSetValue('"bust probability"')).toBe("bust probability");
    expect(parseSetValue("ETHRUSDPERP")).toBe("ETHRUSDPERP");
    expect(parseSetValue("[ETHRUSDPERP]")).toBe("[ETHRUSDPERP]");
    expect(parseSetValue("5bps")).toBe("5bps");
  });

  it("splits at the first =: the path before it, the value after it", () => {
    expect(parseSetFlag("mm-eth.spreadBps=5")).toEqual({ raw: "mm-eth.spreadBps=5", path: "mm-eth.spreadBps", value: 5 });
    expect(parseSetFlag("a.what=x=y")).toEqual({ raw: "a.what=x=y", path: "a.what", value: "x=y" });
    expect(parseSetFlags(undefined)).toEqual([]);
    expect(parseSetFlags(["a.b=1", "c.d=[1,2]"]).map((override) => override.value)).toEqual([1, [1, 2]]);
  });

  it("refuses a flag without =, with an empty path or value, and a path given twice", () => {
    expect(() => parseSetFlags(["mm-eth.spreadBps"])).toThrow(new OverrideError('--set "mm-eth.spreadBps" must be <path>=<value>, e.g. --set mm-eth.spreadBps=5'));
    expect(() => parseSetFlags(["=5"])).toThrow(
      new OverrideError('--set "=5" has an empty path before "=": give <agent>.<param>, <agent>.account.rateTier or one of startMs, oracleBasisSd, oracleBasisMean, signatures, settlement.bustProbability'),
    );
    expect(() => parseSetFlags(["mm-eth.spreadBps="])).toThrow(new OverrideError('--set "mm-eth.spreadBps=" has no value after "=" (for an empty string write mm-eth.spreadBps="")'));
    expect(() => parseSetFlags(["mm-eth.spreadBps=5", "mm-eth.spreadBps=6"])).toThrow(
      new OverrideError('--set "mm-eth.spreadBps=6" sets mm-eth.spreadBps again (--set "mm-eth.spreadBps=5" set it): give each path once'),
    );
    // The empty string itself is a value.
    expect(parseSetFlag('a.b=""').value).toBe("");
  });
});

describe("applying overrides to a scenario", () => {
  it("sets an agent's params entry, its rate tier and the scenario fields, leaving the scenario given as it was", () => {
    const applied = applyOverrides(
      defaultScenario,
      parseSetFlags(["mm-eth.spreadBps=5", "noise-eth-1.ratePerSecond=0.8", 'noise-mixed.symbols=["WETHRUSD"]', "chaos.account.rateTier=2", "settlement.bustProbability=0.01", "oracleBasisSd=0.0005", "mm-eth.stopRefreshingAfterSeconds=null"]),
    );
    expect(agentNamed(applied, "mm-eth").params).toEqual({ ...agentNamed(defaultScenario, "mm-eth").params, spreadBps: 5, stopRefreshingAfterSeconds: null });
    expect(agentNamed(applied, "noise-eth-1").params).toEqual({ symbols: ["ETHRUSDPERP"], ratePerSecond: 0.8 });
    expect(agentNamed(applied, "noise-mixed").params?.["symbols"]).toEqual(["WETHRUSD"]);
    expect(agentNamed(applied, "chaos").account).toEqual({ deposits: { rUSD: "10000" }, rateTier: 2 });
    expect(applied.settlement).toEqual({ bustProbability: 0.01 });
    expect(applied.oracleBasisSd).toBe(0.0005);
    // Every other agent is the very same entry.
    for (const name of ["mm-btc", "noise-btc", "momentum", "arbitrageur"]) expect(agentNamed(applied, name)).toBe(agentNamed(defaultScenario, name));
    expect(agentNamed(defaultScenario, "mm-eth").params).not.toHaveProperty("spreadBps");
    expect(defaultScenario.settlement).toEqual({ bustProbability: 0.005 });
    expect(applyOverrides(defaultScenario, [])).toBe(defaultScenario);
  });

  it("finds the agent by the longest name the path starts with (names may hold dots)", () => {
    const scenario = defineScenario({
      name: "dotted",
      description: "two quoters, one named as a prefix of the other",
      seed: 1,
      durationSeconds: 10,
      prices: [{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.02 }],
      agents: [
        { name: "q", agent: quoter },
        { name: "q.eth", agent: quoter },
      ],
    });
    const applied = applyOverrides(scenario, parseSetFlags(["q.eth.spreadBps=7", "q.levels=1"]));
    expect(agentNamed(applied, "q.eth").params).toEqual({ spreadBps: 7 });
    expect(agentNamed(applied, "q").params).toEqual({ levels: 1 });
  });

  it("refuses an unknown agent, naming the scenario's agents", () => {
    expect(refusal("mm-xyz.spreadBps=5")).toBe(`--set "mm-xyz.spreadBps=5": scenario "default" has no agent "mm-xyz" (its agents: ${AGENTS})`);
    expect(refusal("mm-xyz.account.rateTier=1")).toBe(`--set "mm-xyz.account.rateTier=1": scenario "default" has no agent "mm-xyz" (its agents: ${AGENTS})`);
  });

  it("refuses a key that is not one of the agent's defaults, naming the agent, the key and the known ones (checkScenario's message)", () => {
    expect(refusal("mm-eth.spredBps=5")).toBe(`--set "mm-eth.spredBps=5": scenario "default": agents[0].params of "mm-eth": spredBps is not a parameter of market-maker (its parameters: ${MM_PARAMS})`);
    expect(refusal("mm-eth.=5")).toBe('--set "mm-eth.=5": the path names agent "mm-eth" but no parameter after it');
  });

  it("refuses a value the agent's checkParams refuses", () => {
    expect(refusal("mm-eth.spreadBps=-1")).toBe('--set "mm-eth.spreadBps=-1": scenario "default": agents[0].params of "mm-eth": spreadBps "-1" must be a finite number in [0, 10000]');
    expect(refusal("noise-eth-1.ratePerSecond=fast")).toBe('--set "noise-eth-1.ratePerSecond=fast": scenario "default": agents[3].params of "noise-eth-1": ratePerSecond "fast" must be a finite number in (0, 1000]');
    expect(refusal('noise-eth-1.symbols=["NOPE"]')).toBe(
      '--set "noise-eth-1.symbols=[\\"NOPE\\"]": scenario "default": agents[3].params of "noise-eth-1": symbols "["NOPE"]" names "NOPE", no market of this run (its markets: ETHRUSDPERP, BTCRUSDPERP, WETHRUSD)',
    );
  });

  it("names the --set after which the scenario is refused, among several", () => {
    expect(refusal("mm-eth.spreadBps=5", "noise-eth-1.ratePerSecond=0", "mm-btc.spreadBps=6")).toBe(
      '--set "noise-eth-1.ratePerSecond=0": scenario "default": agents[3].params of "noise-eth-1": ratePerSecond "0" must be a finite number in (0, 1000]',
    );
  });

  it("refuses the account fields other than rateTier, and a rate tier out of range", () => {
    expect(refusal("mm-eth.account.deposits=1")).toBe('--set "mm-eth.account.deposits=1": account.deposits of agent "mm-eth" is not an account field --set can change (rateTier)');
    expect(refusal("mm-eth.account.rateTier=4")).toBe('--set "mm-eth.account.rateTier=4": scenario "default": agents[0].account.rateTier "4" must be 1, 2 or 3');
  });

  it("points seed and durationSeconds to their flags, and refuses other scenario fields", () => {
    expect(refusal("seed=3")).toBe('--set "seed=3": seed has its own flag: use --seed (--seeds in fuzz and sweep)');
    expect(refusal("durationSeconds=60")).toBe('--set "durationSeconds=60": durationSeconds has its own flag: use --duration');
    const notSettable = (path: string) => `--set "${path}=1": ${path} is not a scenario field --set can change (startMs, oracleBasisSd, oracleBasisMean, signatures, settlement.bustProbability) nor <agent>.<param> (its agents: ${AGENTS})`;
    expect(refusal("name=1")).toBe(notSettable("name"));
    expect(refusal("foo=1")).toBe(notSettable("foo"));
    // A path with a dot that names no agent is read as <agent>.<param>.
    expect(refusal("settlement.blockIntervalMs=1")).toBe(`--set "settlement.blockIntervalMs=1": scenario "default" has no agent "settlement" (its agents: ${AGENTS})`);
  });

  it("refuses scenario field values that checkScenario refuses", () => {
    expect(refusal("settlement.bustProbability=2")).toBe('--set "settlement.bustProbability=2": scenario "default": settlement.bustProbability "2" must be between 0 and 1');
    expect(refusal("signatures=maybe")).toBe('--set "signatures=maybe": scenario "default": signatures "maybe" must be trusted or signed');
    expect(refusal("oracleBasisSd=-0.1")).toBe('--set "oracleBasisSd=-0.1": scenario "default": oracleBasisSd "-0.1" must be a finite number >= 0');
  });
});

describe("overrides given back", () => {
  const overrides = parseSetFlags(["mm-eth.spreadBps=5", 'auditor.what="bust probability"', "chaos.note=it's", 'noise.symbols=["ETHRUSDPERP"]']);

  it("as summary.json's record and as the printed line", () => {
    expect(overridesRecord(overrides)).toEqual({ "mm-eth.spreadBps": 5, "auditor.what": "bust probability", "chaos.note": "it's", "noise.symbols": ["ETHRUSDPERP"] });
    expect(Object.keys(overridesRecord(overrides))).toEqual(["mm-eth.spreadBps", "auditor.what", "chaos.note", "noise.symbols"]);
    expect(formatOverrides(overrides)).toBe('mm-eth.spreadBps=5 auditor.what="bust probability" chaos.note="it\'s" noise.symbols=["ETHRUSDPERP"]');
  });

  it("as --set flags quoted for a POSIX shell, which give the same texts back", () => {
    expect(shellWord("mm-eth.spreadBps=5")).toBe("mm-eth.spreadBps=5");
    expect(setFlagsText(overrides)).toBe(` --set mm-eth.spreadBps=5 --set 'auditor.what="bust probability"' --set 'chaos.note=it'\\''s' --set 'noise.symbols=["ETHRUSDPERP"]'`);
    const echoed = spawnSync("sh", ["-c", `printf '%s\\n'${setFlagsText(overrides)}`], { encoding: "utf8" });
    expect(echoed.stdout.split("\n").slice(0, -1)).toEqual(overrides.flatMap((override) => ["--set", override.raw]));
    expect(setFlagsText([])).toBe("");
  });

  it("in a failing seed's reproduce command and parameters line", () => {
    const set = parseSetFlags(["auditor.limit=0.04", 'auditor.what="bust probability"']);
    expect(reproductionCommand("s.ts", 3, { durationSeconds: 8, overrides: set })).toBe(`npx shadowbook run s.ts --seed 3 --fuzz --duration 8 --set auditor.limit=0.04 --set 'auditor.what="bust probability"'`);
    expect(reproductionCommand("s.ts", 3, { durationSeconds: 8, overrides: [] })).toBe("npx shadowbook run s.ts --seed 3 --fuzz --duration 8");
    const result: FuzzResult = { seed: 3, parameters: { bustProbability: 0.0458 }, overrides: overridesRecord(set), ok: false, events: 1, error: { kind: "X", message: "m", stack: "" }, wallSeconds: 0 };
    expect(formatFailure(result).split("\n")[1]).toBe('  parameters: bustProbability=0.0458 then --set auditor.limit=0.04 auditor.what="bust probability"');
    const { overrides: _none, ...plain } = result;
    expect(formatFailure(plain).split("\n")[1]).toBe("  parameters: bustProbability=0.0458");
  });
});
