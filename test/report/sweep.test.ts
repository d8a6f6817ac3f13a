/**
 * Parameter sweeps (src/report/sweep.ts, src/cli/sweep.ts): the --vary
 * grammar, the grid's order, refusals before any run, and that a sweep's
 * every run is exactly the `shadowbook run` it names (the same fingerprint
 * in-process and through its printed command in a shell), that the results
 * are the same on one worker and on two, and that a combination's figures
 * are those of its runs.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bestFor, shownAgents, sweepCommand } from "../../src/cli/sweep.ts";
import { formatNumber, RunSummaryObserver } from "../../src/report/summary.ts";
import { gridOf, parseVaryFlag, parseVaryFlags, splitValues, spreadOf, sweepScenario, SweepError, type SweepReport } from "../../src/report/sweep.ts";
import { applyOverrides, parseSetFlags } from "../../src/sim/overrides.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { loadScenario } from "../../src/sim/scenario-loader.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/shadowbook.mjs");
const DURATION = 8;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-sweep-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("--vary", () => {
  it("splits values at the commas outside JSON's brackets, braces and strings", () => {
    expect(splitValues("4,6,8")).toEqual(["4", "6", "8"]);
    expect(splitValues('["ETHRUSDPERP","BTCRUSDPERP"],["BTCRUSDPERP"]')).toEqual(['["ETHRUSDPERP","BTCRUSDPERP"]', '["BTCRUSDPERP"]']);
    expect(splitValues('{"a":1,"b":[2,3]},"x,y",plain')).toEqual(['{"a":1,"b":[2,3]}', '"x,y"', "plain"]);
    expect(splitValues('"a\\",b",c')).toEqual(['"a\\",b"', "c"]);
  });

  it("refuses brackets or strings that do not close, rather than merge values; a quote inside a word is a character", () => {
    expect(() => splitValues("4],5,6")).toThrow(/closes nothing/);
    expect(() => splitValues("[1,2")).toThrow(/1 bracket is not closed/);
    expect(() => splitValues('"a,b')).toThrow(/a string is not closed/);
    expect(splitValues('it"s,fine')).toEqual(['it"s', "fine"]);
    expect(() => parseVaryFlag("mm-eth.levels=[1,2")).toThrow(/^--vary "mm-eth.levels=\[1,2": 1 bracket is not closed, so its values cannot be told apart$/);
  });

  it("trims each value: a space after a comma is not part of the next", () => {
    expect(parseVaryFlag("momentum.symbol=ETHRUSDPERP, BTCRUSDPERP").values.map((value) => value.value)).toEqual(["ETHRUSDPERP", "BTCRUSDPERP"]);
  });

  it("reads each value as --set reads one: JSON when it parses, else text", () => {
    const axis = parseVaryFlag('noise-eth-1.symbols=["ETHRUSDPERP"],["BTCRUSDPERP"]');
    expect(axis.path).toBe("noise-eth-1.symbols");
    expect(axis.values.map((value) => value.value)).toEqual([["ETHRUSDPERP"], ["BTCRUSDPERP"]]);
    expect(parseVaryFlag("signatures=trusted,signed").values.map((value) => value.value)).toEqual(["trusted", "signed"]);
    expect(parseVaryFlag("mm-eth.spreadBps=4,6.5").values.map((value) => value.raw)).toEqual(["mm-eth.spreadBps=4", "mm-eth.spreadBps=6.5"]);
  });

  it("refuses, naming the flag: no '=', an empty path or value, a value twice, a path twice, a path also --set", () => {
    expect(() => parseVaryFlag("mm-eth.spreadBps")).toThrow(/^--vary "mm-eth.spreadBps" must be <path>=<value>,<value>,/);
    expect(() => parseVaryFlag("=4,6")).toThrow(/^--vary "=4,6" has an empty path/);
    expect(() => parseVaryFlag("mm-eth.spreadBps=4,,6")).toThrow(/^--vary "mm-eth.spreadBps=4,,6" has an empty value/);
    expect(() => parseVaryFlag("mm-eth.spreadBps=4,4.0")).toThrow(/lists the value 4.0 twice$/);
    expect(() => parseVaryFlags(["a.b=1,2", "a.b=3"])).toThrow(/^--vary "a.b=3" varies a.b again \(--vary "a.b=1,2" does\)/);
    expect(() => parseVaryFlags(["a.b=1,2"], parseSetFlags(["a.b=5"]))).toThrow(/varies a.b, which --set "a.b=5" fixes/);
    expect(() => parseVaryFlags([])).toThrow(SweepError);
  });

  it("makes every combination, the first axis varying slowest", () => {
    const grid = gridOf(parseVaryFlags(["a.x=1,2", "b.y=p,q,r"]));
    expect(grid.map((combination) => combination.map((value) => value.raw).join(" "))).toEqual(["a.x=1 b.y=p", "a.x=1 b.y=q", "a.x=1 b.y=r", "a.x=2 b.y=p", "a.x=2 b.y=q", "a.x=2 b.y=r"]);
  });
});

describe("spreadOf", () => {
  it("mean, sample standard deviation, min and max, nulls left out", () => {
    const values = [3, null, -1, 4, 2];
    const spread = spreadOf(values);
    const present = [3, -1, 4, 2];
    const mean = present.reduce((a, b) => a + b) / present.length;
    expect(spread.mean).toBe(mean);
    expect(spread.sd).toBeCloseTo(Math.sqrt(present.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (present.length - 1)), 12);
    expect([spread.min, spread.max]).toEqual([-1, 4]);
    expect(spreadOf([5])).toEqual({ mean: 5, sd: null, min: 5, max: 5 });
    expect(spreadOf([null])).toEqual({ mean: null, sd: null, min: null, max: null });
  });
});

describe("a sweep of the default scenario", () => {
  const axes = parseVaryFlags(["mm-eth.spreadBps=4,30", "noise-eth-1.ratePerSecond=0.5,3"]);
  let serial: SweepReport;
  let pooled: SweepReport;

  beforeAll(async () => {
    serial = await sweepScenario({ scenarioPath: "default", axes, seeds: [1, 2], durationSeconds: DURATION });
    pooled = await sweepScenario({ scenarioPath: "default", axes, seeds: [2, 1], durationSeconds: DURATION, workers: 2 });
  }, 180_000);

  it("runs every combination once per seed, sorted by combination then seed, every run passing", () => {
    expect(serial.runs.map((run) => [run.combination, run.seed])).toEqual([0, 1, 2, 3].flatMap((combination) => [1, 2].map((seed) => [combination, seed])));
    expect(serial.runs.every((run) => run.ok)).toBe(true);
    expect(serial.durationSeconds).toBe(DURATION);
    // The values change the runs: no two fingerprints alike.
    expect(new Set(serial.runs.map((run) => run.fingerprint)).size).toBe(serial.runs.length);
  });

  it("gives the same results on two workers as in this thread", () => {
    const strip = (report: SweepReport) => report.runs.map(({ wallSeconds: _, ...run }) => run);
    expect(strip(pooled)).toEqual(strip(serial));
    expect(pooled.combinations).toEqual(serial.combinations);
    expect(pooled.workers).toBe(2);
  });

  it("each run is the run its command names: the same fingerprint and figures as runScenario with those overrides", async () => {
    const loaded = await loadScenario("default");
    for (const run of [serial.runs[0]!, serial.runs[7]!]) {
      const combination = gridOf(axes)[run.combination]!;
      expect(run.command).toBe(`npx shadowbook run default --seed ${run.seed} --duration ${DURATION}${combination.map((value) => ` --set ${value.raw}`).join("")}`);
      const summary = new RunSummaryObserver();
      const { figures } = await runScenario(applyOverrides(loaded.scenario, combination), { seed: run.seed, durationSeconds: DURATION, observers: [summary], paths: loaded.paths });
      expect(run.fingerprint).toBe(figures.fingerprint);
      const mm = summary.summarize(figures).agents.find((agent) => agent.name === "mm-eth")!;
      expect(run.agents?.["mm-eth"]).toEqual({ netPnl: mm.netPnl, realizedPnl: Number(mm.realizedPnl), trades: mm.trades, volume: Number(mm.volume), fees: Number(mm.fees), maxDrawdown: mm.maxDrawdown, fillRatio: mm.fillRatio });
    }
  }, 60_000);

  it("a run's command, run by a shell, gives its fingerprint", () => {
    const run = serial.runs[5]!;
    const out = join(dir, "rerun");
    const line = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${run.command.slice("npx shadowbook ".length)} --no-progress --out ${JSON.stringify(out)}`;
    const child = spawnSync("sh", ["-c", line], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).fingerprint).toBe(run.fingerprint);
  }, 120_000);

  it("a combination's figures are its runs' figures, per agent", () => {
    for (const combination of serial.combinations) {
      const runs = serial.runs.filter((run) => run.combination === combination.index);
      expect(combination.runs).toBe(2);
      expect(combination.failed).toBe(0);
      for (const name of ["mm-eth", "noise-eth-1", "arbitrageur"]) {
        const figures = runs.map((run) => run.agents![name]!);
        expect(combination.agents[name]!.netPnl).toEqual(spreadOf(figures.map((f) => f.netPnl)));
        expect(combination.agents[name]!.trades).toBe((figures[0]!.trades + figures[1]!.trades) / 2);
        expect(combination.agents[name]!.volume).toBe((figures[0]!.volume + figures[1]!.volume) / 2);
      }
    }
  });

  it("shows the agents the --vary paths name, or those asked for; best is the highest mean net PnL", () => {
    expect(shownAgents(serial, undefined)).toEqual(["mm-eth", "noise-eth-1"]);
    expect(shownAgents(serial, ["arbitrageur"])).toEqual(["arbitrageur"]);
    expect(shownAgents({ ...serial, axes: parseVaryFlags(["settlement.bustProbability=0,0.01"]) }, undefined)).toEqual(serial.agentNames);
    const best = bestFor(serial, "mm-eth")!;
    expect(best.ties).toBe(0);
    for (const combination of serial.combinations) expect(combination.agents["mm-eth"]!.netPnl.mean!).toBeLessThanOrEqual(best.combination.agents["mm-eth"]!.netPnl.mean!);
  });
});

describe("refusals, before any run", () => {
  it("an --agent the scenario does not have", async () => {
    const run = vi.fn();
    await expect(sweepScenario({ scenarioPath: "default", axes: parseVaryFlags(["mm-eth.spreadBps=4,6"]), seeds: [1], durationSeconds: 2, agents: ["nobody"], onResult: run })).rejects.toThrow(
      /^--agent "nobody" is not an agent of default \(its agents: mm-eth, /,
    );
    expect(run).not.toHaveBeenCalled();
  });

  it("an --out that is a file", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    await expect(sweepCommand("default", { vary: ["mm-eth.spreadBps=4,6"], seeds: "1", workers: "1", duration: "2", out: file, progress: false })).rejects.toThrow(/is a file, not a directory$/);
  });

  it("a path the scenario does not have, or a value an agent refuses, names the --vary and the value", async () => {
    const run = vi.fn();
    await expect(sweepScenario({ scenarioPath: "default", axes: parseVaryFlags(["mm-eth.spredBps=4,6"]), seeds: [1], durationSeconds: 2, onResult: run })).rejects.toThrow(
      /^--vary "mm-eth.spredBps=4,6", value 4: .*spredBps is not a parameter of market-maker/,
    );
    await expect(sweepScenario({ scenarioPath: "default", axes: parseVaryFlags(["mm-eth.spreadBps=4,-3"]), seeds: [1], durationSeconds: 2, onResult: run })).rejects.toThrow(/^--vary "mm-eth.spreadBps=4,-3", value -3: /);
    expect(run).not.toHaveBeenCalled();
  });
});

describe("shadowbook sweep", () => {
  it("prints the header, one row per combination and agent, the best combination; --out writes the same sweep.json on 2 workers and on 1", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    const outs = [join(dir, "a"), join(dir, "b")];
    let report: SweepReport | undefined;
    try {
      // Through the pool, then in this thread: the same file either way.
      for (const [index, out] of outs.entries()) report = await sweepCommand("default", { vary: ["mm-eth.spreadBps=4,30"], seeds: "1", workers: index === 0 ? "2" : "1", duration: String(DURATION), out, progress: false });
    } finally {
      vi.restoreAllMocks();
    }
    expect(lines[0]).toBe(`shadowbook sweep default: 2 combinations x 1 seed = 2 runs of ${DURATION} simulated s on 2 workers`);
    expect(lines.filter((line) => line.startsWith("shadowbook sweep default:"))[1]).toBe(`shadowbook sweep default: 2 combinations x 1 seed = 2 runs of ${DURATION} simulated s on 1 worker`);
    expect(lines[1]).toMatch(/^mm-eth\.spreadBps {2}agent {3}runs {2}net PnL mean/);
    // One seed: no standard deviation ("-"), and min = max = mean.
    const rows = lines[1]!.split("\n").slice(2).map((row) => row.trim().split(/\s+/));
    expect(rows.map((row) => row.slice(0, 3))).toEqual([["4", "mm-eth", "1"], ["30", "mm-eth", "1"]]);
    for (const row of rows) expect([row[4], row[5], row[6]]).toEqual(["-", row[3], row[3]]);
    // A short run may give both spreads the same net PnL: the line says so.
    const best = bestFor(report!, "mm-eth")!;
    const tie = best.ties === 0 ? "" : ", tied with 1 other";
    expect(lines[2]).toBe(`best mean net PnL of mm-eth: ${best.combination.overrides[0]!.raw} (${formatNumber(best.combination.agents["mm-eth"]!.netPnl.mean)}${tie})`);
    expect(best.ties).toBe(report!.combinations[0]!.agents["mm-eth"]!.netPnl.mean === report!.combinations[1]!.agents["mm-eth"]!.netPnl.mean ? 1 : 0);
    const files = outs.map((out) => readFileSync(join(out, "sweep.json"), "utf8"));
    expect(files[1]).toBe(files[0]);
    const json = JSON.parse(files[0]!);
    expect(json.vary).toEqual([{ path: "mm-eth.spreadBps", values: [4, 30] }]);
    expect(json.runs.map((run: { values: unknown; seed: number }) => [run.values, run.seed])).toEqual([[{ "mm-eth.spreadBps": 4 }, 1], [{ "mm-eth.spreadBps": 30 }, 1]]);
    expect(json.runs[0].command).toBe(`npx shadowbook run default --seed 1 --duration ${DURATION} --set mm-eth.spreadBps=4`);
  }, 120_000);
});

describe("a sweep with failing runs", () => {
  it("counts them per combination, leaves them out of the figures and of best, lists each with its command, exits 1, and sweep.json has them", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    const before = process.exitCode;
    process.exitCode = undefined;
    const out = join(dir, "failing");
    let report: SweepReport;
    try {
      // The fixture's auditor fails at 5 s when its observed value is above its limit (0.03).
      report = await sweepCommand("test/sim/fixtures/failing-scenario.ts", { vary: ["auditor.observed=0.01,0.05"], seeds: "1..2", workers: "2", duration: "8", out, progress: false });
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = before;
      vi.restoreAllMocks();
    }
    expect(report.combinations.map((combination) => [combination.runs, combination.failed])).toEqual([[2, 0], [2, 2]]);
    expect(report.combinations[1]!.agents).toEqual({});
    expect(bestFor(report, "auditor")?.combination.index).toBe(0);
    const table = lines[1]!.split("\n").slice(2).map((row) => row.trim().split(/\s+/));
    expect(table.map((row) => row.slice(0, 3))).toEqual([["0.01", "auditor", "2"], ["0.05", "auditor", "0/2"]]);
    for (const seed of [1, 2]) {
      const at = lines.indexOf(`combination 2, seed ${seed} failed: AgentFailedError: ${report.runs.find((run) => run.combination === 1 && run.seed === seed)!.error!.message}`);
      expect(at).toBeGreaterThan(0);
      expect(lines[at + 1]).toBe(`  reproduce: npx shadowbook run ${resolve(ROOT, "test/sim/fixtures/failing-scenario.ts")} --seed ${seed} --duration 8 --set auditor.observed=0.05`);
    }
    expect(report.runs.filter((run) => !run.ok).every((run) => /observed|above its limit/.test(run.error!.message))).toBe(true);
    // A failed run still reports how far it got: its events (in the total) and the fingerprint of its outputs up to the failure.
    for (const run of report.runs.filter((failed) => !failed.ok)) {
      expect(run.events).toBeGreaterThan(100);
      expect(run.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(report.events).toBe(report.runs.reduce((sum, run) => sum + run.events, 0));
    const json = JSON.parse(readFileSync(join(out, "sweep.json"), "utf8"));
    expect(json.runs.filter((run: { ok: boolean }) => !run.ok).map((run: { error: { kind: string } }) => run.error.kind)).toEqual(["AgentFailedError", "AgentFailedError"]);
  }, 120_000);
});
