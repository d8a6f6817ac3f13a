/**
 * The command that re-runs a run (src/sim/command-line.ts): a simulated
 * run's input log names it (`shadowbook.command`), `shadowbook replay`
 * prints it (`re-run:`) and puts it in the state file, and run as printed,
 * in a child process as a user runs it, it gives the run again: the same
 * fingerprint. A fuzz failure's log names the failure's reproduce command;
 * a live server's log names none.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RecordBatchStreamReader, tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeFailureLog } from "../../src/cli/fuzz.ts";
import { replayCommand } from "../../src/cli/replay.ts";
import { runCommand } from "../../src/cli/run.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { COMMAND_KEY } from "../../src/record/input-log.ts";
import { LiveInputLog } from "../../src/record/live-input-log.ts";
import { runCommandLine } from "../../src/sim/command-line.ts";
import { fuzzedScenario, reproductionCommand, runFuzzSeed } from "../../src/sim/fuzz.ts";
import { parseSetFlags } from "../../src/sim/overrides.ts";
import { loadScenario, scenarioPath } from "../../src/sim/scenario-loader.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import failingScenario, { BUST_LIMIT } from "../sim/fixtures/failing-scenario.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/shadowbook.mjs");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-rerun-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const metadataOf = (path: string) => tableFromIPC(readFileSync(path)).schema.metadata;

/** Runs `fn` with console.log collected; its lines and result. */
async function quietly<T>(fn: () => Promise<T>): Promise<{ lines: string[]; result: T }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  try {
    return { lines, result: await fn() };
  } finally {
    spy.mockRestore();
  }
}

describe("runCommandLine", () => {
  it("names the seed always, then only the flags that change the run, in a fixed order", () => {
    expect(runCommandLine("default", 1)).toBe("npx shadowbook run default --seed 1");
    const overrides = parseSetFlags(["mm-eth.spreadBps=5", "noise-eth-1.symbols=[\"ETHRUSDPERP\"]"]);
    expect(runCommandLine("default", 7, { durationSeconds: 300, invariants: true, invariantEveryBlocks: 4, verifySignatures: true, overrides })).toBe(
      `npx shadowbook run default --seed 7 --duration 300 --invariants --invariant-every 4 --verify-signatures --set mm-eth.spreadBps=5 --set 'noise-eth-1.symbols=["ETHRUSDPERP"]'`,
    );
    // --fuzz checks the invariants itself: --invariants is not repeated; every block (1) is the default.
    expect(runCommandLine("s.ts", 3, { fuzz: true, invariants: true, invariantEveryBlocks: 1 })).toBe("npx shadowbook run s.ts --seed 3 --fuzz");
    expect(runCommandLine("s.ts", 3, { fuzz: false, invariants: false, verifySignatures: false, overrides: [] })).toBe("npx shadowbook run s.ts --seed 3");
    // The fuzz reproduce line is the same builder with --fuzz.
    expect(reproductionCommand("s.ts", 3, { durationSeconds: 8, overrides })).toBe(runCommandLine("s.ts", 3, { fuzz: true, durationSeconds: 8, overrides }));
  });

  it("quotes a scenario path for a POSIX shell: the shell reads back the words given", () => {
    const path = "/tmp/my runs/it's.ts";
    const command = runCommandLine(path, 2);
    const words = spawnSync("sh", ["-c", `printf '%s\\n' ${command.slice("npx ".length)}`], { encoding: "utf8" }).stdout.split("\n").slice(0, -1);
    expect(words).toEqual(["shadowbook", "run", path, "--seed", "2"]);
  });
});

describe("a run's input log names the command that re-runs it", () => {
  const args = ["--seed", "3", "--duration", "20", "--invariants", "--set", "mm-eth.spreadBps=5"];
  let out: string;
  let summary: { fingerprint: string };

  beforeAll(async () => {
    out = join(dir, "run");
    await quietly(() => runCommand("default", { out, progress: false, seed: "3", duration: "20", invariants: true, set: ["mm-eth.spreadBps=5"] }));
    summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  }, 120_000);

  it("in `shadowbook.command`, flags as given", () => {
    expect(metadataOf(join(out, "inputs.arrow")).get(COMMAND_KEY)).toBe(`npx shadowbook run default ${args.join(" ")}`);
  });

  it("replay prints it after the first line, and the state file carries it", async () => {
    const { lines } = await quietly(() => replayCommand(join(out, "inputs.arrow"), { until: String(1_767_225_610_000) }));
    expect(lines[1]).toBe(`  re-run: npx shadowbook run default ${args.join(" ")}`);
    const statePath = lines.find((line) => line.startsWith("  wrote "))!.slice("  wrote ".length);
    expect(JSON.parse(readFileSync(statePath, "utf8")).command).toBe(`npx shadowbook run default ${args.join(" ")}`);
  }, 60_000);

  it("run as printed, in a child process, gives the same run: the same fingerprint", () => {
    const command = metadataOf(join(out, "inputs.arrow")).get(COMMAND_KEY)!;
    const again = join(dir, "again");
    const child = spawnSync(process.execPath, [BIN, ...command.split(" ").slice(2), "--no-progress", "--out", again], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(again, "summary.json"), "utf8")).fingerprint).toBe(summary.fingerprint);
    expect(child.stdout).toContain(`fingerprint ${summary.fingerprint}`);
  }, 120_000);
});

describe("other logs", () => {
  it("a fuzz failure's log names the failure's reproduce command", async () => {
    const seed = [1, 2, 3, 4, 5, 6, 7, 8].find((candidate) => Number(fuzzedScenario(failingScenario, candidate).parameters["bustProbability"]) > BUST_LIMIT)!;
    const seedOptions = { scenarioPath: scenarioPath("test/sim/fixtures/failing-scenario.ts"), durationSeconds: 8 };
    const failure = await runFuzzSeed(await loadScenario(seedOptions.scenarioPath), seed, seedOptions);
    expect(failure.ok).toBe(false);
    const written = await writeFailureLog(failure, seedOptions, join(dir, `fuzz-seed-${seed}`));
    expect(metadataOf(written!.path).get(COMMAND_KEY)).toBe(failure.reproduce);
    expect(failure.reproduce).toBe(`npx shadowbook run ${seedOptions.scenarioPath} --seed ${seed} --fuzz --duration 8`);
  }, 60_000);

  it("a live server's log names none (its inputs came from clients, not a command)", async () => {
    const log = new LiveInputLog(join(dir, "live"), { config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 1, startMicros: 1_767_225_600_000_000, scenario: "serve", signatures: "signed", durability: "async" });
    await log.close();
    expect(RecordBatchStreamReader.from(readFileSync(log.path)).open().schema.metadata.has(COMMAND_KEY)).toBe(false);
  });
});
