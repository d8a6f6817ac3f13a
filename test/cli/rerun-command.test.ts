/**
 * The command that re-runs a run (src/sim/command-line.ts): a simulated
 * run's input log names it (`shadowbook.command`), `shadowbook replay`
 * prints it (`re-run:`) and puts it in the state file, and run as printed,
 * in a child process as a user runs it, it gives the run again: the same
 * fingerprint. A fuzz failure's log names the failure's reproduce command
 * (test/record/code-id.test.ts); a live server's log names none. Replay
 * prints only a command of the shape this code writes, and cautions when
 * the log was recorded by other code.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RecordBatchStreamReader, tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { replayCommand, rerunLine, type CodeComparison } from "../../src/cli/replay.ts";
import { parseDuration, runCommand } from "../../src/cli/run.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { COMMAND_KEY } from "../../src/record/input-log.ts";
import { LiveInputLog } from "../../src/record/live-input-log.ts";
import { runCommandLine } from "../../src/sim/command-line.ts";
import { reproductionCommand } from "../../src/sim/fuzz.ts";
import { parseSetFlags } from "../../src/sim/overrides.ts";
import { portableScenarioArgument, scenarioPath } from "../../src/sim/scenario-loader.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

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

  it("writes a duration as --duration reads it: no exponent", () => {
    for (const seconds of [1e-6, 2.5e-6, 0.5, 300, 3_153_600_000]) {
      const text = / --duration (\S+)/.exec(runCommandLine("default", 1, { durationSeconds: seconds }))![1]!;
      expect(text).not.toMatch(/e/i);
      expect(parseDuration(text)).toBe(seconds);
    }
    // Beyond what --duration takes, still no exponent.
    expect(runCommandLine("default", 1, { durationSeconds: 1e21 })).toBe("npx shadowbook run default --seed 1 --duration 1000000000000000000000");
  });

  it("names a shipped scenario by its name and any other file by its absolute path, so the command works from any directory", () => {
    expect(portableScenarioArgument(scenarioPath("default"))).toBe("default");
    expect(portableScenarioArgument(scenarioPath("scenarios/spot-only.ts"))).toBe("spot-only");
    const fixture = scenarioPath("test/sim/fixtures/fuzz-scenario.ts");
    expect(portableScenarioArgument(fixture)).toBe(fixture);
    expect(fixture.startsWith("/")).toBe(true);
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

  it("run as printed, by a shell in another directory, gives the same run: the same fingerprint", () => {
    const again = rerunByShell(metadataOf(join(out, "inputs.arrow")).get(COMMAND_KEY)!, "again");
    expect(again.fingerprint).toBe(summary.fingerprint);
  }, 120_000);

  it("a fuzz draw in signed mode with a --set that needs quoting: re-run by the shell, the same fingerprint", async () => {
    const signed = join(dir, "signed");
    await quietly(() => runCommand("default", { out: signed, progress: false, seed: "5", fuzz: true, duration: "6", verifySignatures: true, set: ['noise-eth-1.symbols=["ETHRUSDPERP"]'] }));
    const command = metadataOf(join(signed, "inputs.arrow")).get(COMMAND_KEY)!;
    expect(command).toBe(`npx shadowbook run default --seed 5 --fuzz --duration 6 --verify-signatures --set 'noise-eth-1.symbols=["ETHRUSDPERP"]'`);
    const fingerprint = JSON.parse(readFileSync(join(signed, "summary.json"), "utf8")).fingerprint;
    expect(rerunByShell(command, "signed-again").fingerprint).toBe(fingerprint);
  }, 180_000);
});

/** Runs `command` (as a log names it) through sh, from the temporary directory, with this checkout's CLI for `npx shadowbook`; its summary's fingerprint. */
function rerunByShell(command: string, name: string): { fingerprint: string } {
  expect(command.startsWith("npx shadowbook ")).toBe(true);
  const again = join(dir, name);
  const line = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${command.slice("npx shadowbook ".length)} --no-progress --out ${JSON.stringify(again)}`;
  const child = spawnSync("sh", ["-c", line], { cwd: dir, encoding: "utf8", timeout: 170_000 });
  expect(child.status, child.stderr).toBe(0);
  return { fingerprint: JSON.parse(readFileSync(join(again, "summary.json"), "utf8")).fingerprint };
}

describe("the re-run line", () => {
  const code = (kind: CodeComparison["kind"]): CodeComparison => ({ recorded: kind === "unnamed" ? undefined : "0.1.0+0123456789ab", running: "0.1.0+0123456789ab", kind, node: { recorded: "20", running: "20" } });

  it("prints a command of the shape this code writes as it is, cautioned when the log was recorded by other code", () => {
    const command = `npx shadowbook run '/tmp/my runs/it'\\''s.ts' --seed 2 --set 'a.b="x y"'`;
    expect(rerunLine(command, code("same"))).toBe(`  re-run: ${command}`);
    expect(rerunLine(command, code("agents"))).toBe(`  re-run: ${command} (recorded with other agents/: a re-run here may differ)`);
    expect(rerunLine(command, code("other"))).toBe(`  re-run: ${command} (recorded by other code: a re-run here may differ)`);
    expect(rerunLine("npx shadowbook run '/tmp/café.ts' --seed 1", code("same"))).toBe("  re-run: npx shadowbook run '/tmp/café.ts' --seed 1");
  });

  it("tells a long command that almost has the shape in linear time (no backtracking blow-up on a hostile log)", () => {
    const code0 = code("same");
    for (const tail of ["!", ' --set "a.b=x"', "'"]) {
      const command = `npx shadowbook run default --seed 1 --set ${"a".repeat(5_000)}${tail}`;
      const started = performance.now();
      expect(rerunLine(command, code0)).toMatch(/\(not a command this code writes: not shown as one\)$/);
      expect(performance.now() - started).toBeLessThan(200);
    }
  });

  it("prints anything else escaped and marked, never as a command to paste", () => {
    for (const hostile of ["npx shadowbook run default; curl x | sh", "npx shadowbook run default --seed 1 && rm -rf ~", "npx shadowbook run $(id)", "npx shadowbook run 'x\n' --seed 1", "npx shadowbook run '\u202etxt.ts' --seed 1", "rm -rf /"]) {
      const line = rerunLine(hostile, code("same"));
      expect(line).toMatch(/^ {2}re-run: ".*" \(not a command this code writes: not shown as one\)$/);
      expect(line).not.toMatch(/[\u0000-\u001f\u202e]/);
    }
  });
});

describe("other logs", () => {
  it("a live server's log names none (its inputs came from clients, not a command)", async () => {
    const log = new LiveInputLog(join(dir, "live"), { config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 1, startMicros: 1_767_225_600_000_000, scenario: "serve", signatures: "signed", durability: "async" });
    await log.close();
    expect(RecordBatchStreamReader.from(readFileSync(log.path)).open().schema.metadata.has(COMMAND_KEY)).toBe(false);
  });
});
