/**
 * `--set <path>=<value>` on `shadowbook run` and `shadowbook fuzz`, run as
 * a user runs them:
 *
 * - determinism: a real override changes the fingerprint, the same one
 *   twice gives the same, and an override to the value the scenario
 *   already has (a default, or the scenario's own) gives the fingerprint of
 *   the run without it; with `--fuzz` the override applies after the draw
 *   (setting a drawn value to another changes the run, to the drawn value
 *   does not);
 * - provenance: the header line names the overrides, summary.json records
 *   them (`overrides`, absent without);
 * - refusals: nothing runs, nothing is written, exit status 1;
 * - fuzz: the overrides reach the worker threads (after the draw), the
 *   failing seed's parameters line shows them and its reproduce command
 *   carries the flags, quoted for a POSIX shell; run through `sh`, it fails
 *   the same way.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fuzzCommand } from "../../src/cli/fuzz.ts";
import { runCommand } from "../../src/cli/run.ts";
import { fuzzedScenario, fuzzScenario, type FuzzReport } from "../../src/sim/fuzz.ts";
import { parseSetFlags } from "../../src/sim/overrides.ts";
import type { RunFigures } from "../../src/sim/runner.ts";
import { scenarioPath } from "../../src/sim/scenario-loader.ts";
import defaultScenario from "../../scenarios/default.ts";
import failingScenario from "../sim/fixtures/failing-scenario.ts";
import { BIN, ROOT, shadowbook } from "./shadowbook-process.ts";

const FAILING = "test/sim/fixtures/failing-scenario.ts";
const DURATION = "20";

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "shadowbook-set-"));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  process.exitCode = undefined;
});

/** `shadowbook run` in this process, quietly: its figures and every line it printed. */
async function run(argument: string, options: Parameters<typeof runCommand>[1]): Promise<{ figures: RunFigures; printed: string[] }> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    const figures = (await runCommand(argument, { progress: false, ...options })) as RunFigures;
    return { figures, printed: log.mock.calls.map((call) => call.join(" ")) };
  } finally {
    log.mockRestore();
  }
}

/** That `promise` rejects with exactly `message` (or a message matching it). */
async function expectRefusal(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  if (typeof message === "string") expect((error as Error).message).toBe(message);
  else expect((error as Error).message).toMatch(message);
}

const summaryOf = (out: string) => JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, unknown>;

describe("run --set: fingerprint and provenance", () => {
  let base: Awaited<ReturnType<typeof run>>;
  let real: Awaited<ReturnType<typeof run>>;
  const baseOut = () => join(scratch, "base");
  const realOut = () => join(scratch, "real");

  beforeAll(async () => {
    base = await run("default", { duration: DURATION, out: baseOut() });
    real = await run("default", { duration: DURATION, out: realOut(), set: ["mm-eth.spreadBps=5", "noise-eth-1.ratePerSecond=0.8"] });
  }, 120_000);

  it("a real override changes the fingerprint, and gives the same one every time", async () => {
    expect(real.figures.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(real.figures.fingerprint).not.toBe(base.figures.fingerprint);
    const again = await run("default", { duration: DURATION, set: ["mm-eth.spreadBps=5", "noise-eth-1.ratePerSecond=0.8"] });
    expect(again.figures.fingerprint).toBe(real.figures.fingerprint);
    // One of the two alone is another run again.
    const one = await run("default", { duration: DURATION, set: ["mm-eth.spreadBps=5"] });
    expect(one.figures.fingerprint).not.toBe(real.figures.fingerprint);
    expect(one.figures.fingerprint).not.toBe(base.figures.fingerprint);
  }, 120_000);

  it("an override to the value the run already has gives the fingerprint of the run without it", async () => {
    // spreadBps: mm-eth takes the program's default (8); ratePerSecond: the scenario's own 0.35; rateTier: the scenario's 3.
    expect(defaultScenario.agents[0]!.params).not.toHaveProperty("spreadBps");
    const same = await run("default", { duration: DURATION, set: ["mm-eth.spreadBps=8", "noise-eth-1.ratePerSecond=0.35", "mm-eth.account.rateTier=3", "settlement.bustProbability=0.005"] });
    expect(same.figures.fingerprint).toBe(base.figures.fingerprint);
  }, 120_000);

  it("the header line names the overrides; without, it is as it was", () => {
    expect(real.printed[0]).toBe('shadowbook run default (seed 1, trusted mode: signatures not checked; --set mm-eth.spreadBps=5 noise-eth-1.ratePerSecond=0.8)');
    expect(base.printed[0]).toBe("shadowbook run default (seed 1, trusted mode: signatures not checked)");
  });

  it("summary.json records the overrides, after the seed; without any it has no overrides key", () => {
    const summary = summaryOf(realOut());
    expect(summary["overrides"]).toEqual({ "mm-eth.spreadBps": 5, "noise-eth-1.ratePerSecond": 0.8 });
    expect(Object.keys(summary).slice(0, 5)).toEqual(["scenario", "description", "seed", "overrides", "signatures"]);
    expect(summary["fingerprint"]).toBe(real.figures.fingerprint);
    expect(summaryOf(baseOut())).not.toHaveProperty("overrides");
    expect(readFileSync(join(realOut(), "report.html"), "utf8")).toContain("<dt>overrides (--set)</dt><dd>mm-eth.spreadBps=5 noise-eth-1.ratePerSecond=0.8</dd>");
  });
});

describe("run --fuzz --set: after the draw", () => {
  const SEED = 1;
  const drawn = Number(fuzzedScenario(defaultScenario, SEED).parameters["refreshSeconds"]);

  it("the user's value wins over the drawn one; the drawn value itself changes nothing", async () => {
    const options = { seed: String(SEED), fuzz: true, duration: "10" };
    const fuzzed = await run("default", options);
    const same = await run("default", { ...options, set: [`mm-eth.refreshSeconds=${drawn}`] });
    const other = await run("default", { ...options, set: [`mm-eth.refreshSeconds=${drawn === 2 ? 3 : 2}`] });
    expect(same.figures.fingerprint).toBe(fuzzed.figures.fingerprint);
    // Were the override laid under the draw, the draw's refreshSeconds would win and this would be the fuzzed run.
    expect(other.figures.fingerprint).not.toBe(fuzzed.figures.fingerprint);
    expect(other.printed[0]).toMatch(new RegExp(`^fuzz draw of seed ${SEED}: bustProbability=\\S+ .* then --set mm-eth.refreshSeconds=${drawn === 2 ? 3 : 2}$`));
    expect(fuzzed.printed[0]).not.toContain("--set");
  }, 120_000);
});

describe("refusals: nothing runs", () => {
  it.each([
    [["mm-eth.spreadBps"], '--set "mm-eth.spreadBps" must be <path>=<value>, e.g. --set mm-eth.spreadBps=5'],
    [["=5"], '--set "=5" has an empty path before "=": give <agent>.<param>, <agent>.account.rateTier or one of startMs, oracleBasisSd, oracleBasisMean, signatures, settlement.bustProbability'],
    [["mm-eth.spreadBps="], '--set "mm-eth.spreadBps=" has no value after "=" (for an empty string write mm-eth.spreadBps="")'],
    [["mm-xyz.spreadBps=5"], '--set "mm-xyz.spreadBps=5": scenario "default" has no agent "mm-xyz" (its agents: mm-eth, mm-btc, mm-weth-spot, noise-eth-1, noise-eth-2, noise-btc, noise-mixed, momentum, over-leveraged, arbitrageur, chaos)'],
    [["mm-eth.spredBps=5"], '--set "mm-eth.spredBps=5": scenario "default": agents[0].params of "mm-eth": spredBps is not a parameter of market-maker (its parameters: symbol, levels, spreadBps, levelSpacingBps, levelNotional, maxInventoryNotional, skewBps, refreshSeconds, requoteBps, deadManMs, stopRefreshingAfterSeconds)'],
    [["noise-eth-1.ratePerSecond=0"], '--set "noise-eth-1.ratePerSecond=0": scenario "default": agents[3].params of "noise-eth-1": ratePerSecond "0" must be a finite number in (0, 1000]'],
    [["seed=2"], '--set "seed=2": seed has its own flag: use --seed (--seeds in fuzz and sweep)'],
  ])("run default --set %j", async (set, message) => {
    const out = join(scratch, `refused-${set[0]!.replace(/\W/g, "_")}`);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await expectRefusal(runCommand("default", { set, out, duration: DURATION, progress: false }), message);
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
    expect(existsSync(out)).toBe(false);
  });

  it("the command exits 1 with the message alone, and writes nothing", async () => {
    const out = join(scratch, "refused-cli");
    const ran = await shadowbook(["run", "default", "--duration", "5", "--no-progress", "--out", out, "--set", "mm-eth.spreadBps=5", "--set", "mm-eth.spreadBps=-1"], 60_000);
    expect(ran.status).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toBe('--set "mm-eth.spreadBps=-1" sets mm-eth.spreadBps again (--set "mm-eth.spreadBps=5" set it): give each path once\n');
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("fuzz refuses before any seed runs", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const onlyAgents = "mm, taker-1, taker-2, taker-3, auditor";
      await expectRefusal(
        fuzzCommand(FAILING, { seeds: "1", workers: "1", duration: "8", progress: false, set: ["auditor.limt=0.04"] }),
        '--set "auditor.limt=0.04": scenario "fuzz-failing-fixture": agents[4].params of "auditor": limt is not a parameter of fixture-auditor (its parameters: atSeconds, observed, limit, what)',
      );
      await expectRefusal(fuzzCommand(FAILING, { seeds: "1", workers: "2", progress: false, set: ["nobody.limit=1"] }), `--set "nobody.limit=1": scenario "fuzz-failing-fixture" has no agent "nobody" (its agents: ${onlyAgents})`);
      await expectRefusal(fuzzCommand(FAILING, { seeds: "1", workers: "1", progress: false, set: ["durationSeconds=8"] }), '--set "durationSeconds=8": durationSeconds has its own flag: use --duration');
      await expectRefusal(fuzzCommand(FAILING, { seeds: "1", workers: "1", progress: false, set: ["seed=4"] }), '--set "seed=4": seed has its own flag: use --seed (--seeds in fuzz and sweep)');
      await expectRefusal(fuzzCommand(FAILING, { seeds: "1", workers: "1", progress: false, set: ["auditor.limit"] }), '--set "auditor.limit" must be <path>=<value>, e.g. --set mm-eth.spreadBps=5');
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });

  it("a replay backtest of recorded market data refuses --set by name", async () => {
    await expectRefusal(runCommand("replay-market-maker", { set: ["a.b=1"], progress: false }), /^--set does not apply to replay-market-maker: a replay backtest of recorded market data/);
  });
});

describe("fuzz --set: the failing seed and its reproduce command", () => {
  /** Drawn bust probabilities of seeds 1 and 3: 0.0458 and 0.0349; the fixture's auditor fails above its limit (0.03). */
  const SEEDS = [1, 3];
  const SET = ["auditor.limit=0.04", 'auditor.what="bust probability"'];
  let report: FuzzReport;
  let printed: string;

  beforeAll(async () => {
    expect(SEEDS.map((seed) => fuzzedScenario(failingScenario, seed).parameters["bustProbability"])).toEqual([0.0458, 0.0349]);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      report = await fuzzCommand(FAILING, { seeds: SEEDS.join(","), workers: "2", duration: "8", progress: false, out: join(scratch, "fuzz"), set: SET });
      printed = log.mock.calls.map((call) => call.join(" ")).join("\n");
    } finally {
      log.mockRestore();
      process.exitCode = undefined;
    }
  }, 180_000);

  it("the workers ran the seeds with the overrides, after the draw", () => {
    // Without them both seeds fail (above 0.03); with the limit at 0.04 only seed 1 does, and the message is the overridden one.
    expect(report.results.map((result) => [result.seed, result.ok])).toEqual([
      [1, false],
      [3, true],
    ]);
    expect(report.failures[0]!.error?.message).toBe('agent "auditor" failed in a timer at virtual time 1767225605000000: InvariantError: bust probability 0.0458 is above its limit 0.04');
    for (const result of report.results) expect(result.overrides).toEqual({ "auditor.limit": 0.04, "auditor.what": "bust probability" });
  });

  it("a value the draw also sets is the user's in the workers: the auditor's observed value, drawn as the bust probability", async () => {
    // The fixture's fuzz apply sets the auditor's `observed` to the drawn 0.0458: laid under the draw, this --set would change nothing and seed 1 would fail.
    const overridden = await fuzzScenario({ scenarioPath: FAILING, seeds: [1], workers: 2, durationSeconds: 8, overrides: parseSetFlags(["auditor.observed=0.01"]) });
    expect(overridden.results.map((result) => result.ok)).toEqual([true]);
    expect(overridden.results[0]!.overrides).toEqual({ "auditor.observed": 0.01 });
  }, 120_000);

  it("prints the overrides in the header and after the draw in the parameters line", () => {
    expect(printed.split("\n")[0]).toBe('shadowbook fuzz fuzz-failing-fixture (--set auditor.limit=0.04 auditor.what="bust probability"): 2 seeds on 2 workers, 1 failed');
    expect(printed).toMatch(/^ {2}parameters: bustProbability=0\.0458 .* then --set auditor\.limit=0\.04 auditor\.what="bust probability"$/m);
    expect(printed).not.toContain("NONDETERMINISTIC");
  });

  it("the reproduce command carries the flags, quoted, and run by a POSIX shell it fails the same way", () => {
    const reproduce = report.failures[0]!.reproduce!;
    expect(reproduce).toBe(`npx shadowbook run ${scenarioPath(FAILING)} --seed 1 --fuzz --duration 8 --set auditor.limit=0.04 --set 'auditor.what="bust probability"'`);
    expect(printed).toContain(`  reproduce: ${reproduce}`);
    const command = reproduce.replace(/^npx shadowbook /, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `);
    const ran = spawnSync("sh", ["-c", `${command} --no-progress`], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(ran.status).toBe(1);
    expect(ran.stderr.trim()).toBe(report.failures[0]!.error!.message);
    expect(ran.stdout).toContain('then --set auditor.limit=0.04 auditor.what="bust probability"');
  }, 120_000);
});
