/**
 * The reproduce command that `shadowbook fuzz` prints for a failing seed
 * replays it exactly, also when the fuzz run checked the state invariants
 * only every K blocks (`--invariant-every K`): the command carries
 * `--invariant-every K`, and `shadowbook run` honours it, so the rerun
 * fails at the same block with the same message.
 *
 * The failure is planted: a scenario module written to a temporary
 * directory (the fuzz fixture, plus a wrapper around the state check) makes
 * the state invariants fail from a virtual time on, the way a corrupted
 * state is seen at the first state check after the corruption. Its message
 * names the virtual time of that check, so checking at other blocks fails
 * with another message. Both commands run as a user runs them: the real
 * CLI, in a child process.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/run.ts";
import { reproductionCommand } from "../../src/sim/fuzz.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/shadowbook.mjs");
const EVERY = 4;
const SEED = 2;
/** The planted corruption: from 2.05 s of virtual time on (between blocks, and between checks every 4 blocks). */
const CORRUPT_AFTER_MICROS = 2_050_000;

let dir: string;
let scenarioFile: string;

/** The planted scenario: the fuzz fixture, whose state checks fail from CORRUPT_AFTER_MICROS on. */
function plantedScenario(): string {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);
  return `// Written by test/cli/reproduce.test.ts: a state that breaks at a virtual time, seen by the next state check.
import { InvariantError } from ${url("src/core/assert.ts")};
import { ExchangeInvariants } from ${url("src/sim/invariants.ts")};
import { DEFAULT_START_MS, defineScenario } from ${url("src/sim/scenario.ts")};
import fixture from ${url("test/sim/fixtures/fuzz-scenario.ts")};

const brokenFrom = DEFAULT_START_MS * 1_000 + ${CORRUPT_AFTER_MICROS};
const checkState = ExchangeInvariants.prototype.checkState;
ExchangeInvariants.prototype.checkState = function (this: ExchangeInvariants): void {
  const now = (this as unknown as { exchange: { now(): number } }).exchange.now();
  if (now >= brokenFrom) throw new InvariantError(\`planted corruption of \${brokenFrom}, seen by the state check at virtual time \${now}\`);
  checkState.call(this);
};

export default defineScenario({ ...fixture, name: "planted-state-corruption" });
`;
}

function shadowbook(args: readonly string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The arguments of a printed `npx shadowbook ...` command (its paths here need no quoting). */
function commandArgs(command: string): string[] {
  expect(command).toMatch(/^npx shadowbook run [^'"\s]+ /);
  return command.split(" ").slice(2);
}

let fuzz: ReturnType<typeof shadowbook>;
let failure: { seed: number; kind: string; message: string; atMicros: number; reproduce: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-reproduce-"));
  scenarioFile = join(dir, "planted-scenario.ts");
  // An ES module outside the project: without "type": "module" tsx would load it as CommonJS.
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(scenarioFile, plantedScenario());
  fuzz = shadowbook(["fuzz", scenarioFile, "--seeds", String(SEED), "--workers", "2", "--duration", "4", "--invariant-every", String(EVERY), "--no-progress", "--out", join(dir, "out")]);
  const head = new RegExp(`^seed (\\d+): (\\w+): (.*)$`, "m").exec(fuzz.stdout);
  const at = /^ {2}at virtual time (\d+) after \d+ events$/m.exec(fuzz.stdout);
  const reproduce = /^ {2}reproduce: (.*)$/m.exec(fuzz.stdout);
  failure = { seed: Number(head?.[1]), kind: head?.[2] ?? "", message: head?.[3] ?? "", atMicros: Number(at?.[1]), reproduce: reproduce?.[1] ?? "" };
}, 180_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the reproduce command of a fuzz failure", () => {
  it("fuzz finds the planted failure and prints its command, with --invariant-every", () => {
    expect(fuzz.status, fuzz.stderr).toBe(1);
    expect(failure).toMatchObject({ seed: SEED, kind: "InvariantError" });
    expect(failure.message).toMatch(/^planted corruption of \d+, seen by the state check at virtual time \d+$/);
    expect(failure.message.endsWith(` at virtual time ${failure.atMicros}`)).toBe(true);
    expect(failure.reproduce).toBe(`npx shadowbook run ${scenarioFile} --seed ${SEED} --fuzz --duration 4 --invariant-every ${EVERY}`);
    // The pool's failure and the serial rerun that wrote its input log agree.
    expect(fuzz.stdout).not.toContain("NONDETERMINISTIC");
  });

  it("run as printed, fails at the same block with the same message", () => {
    const run = shadowbook([...commandArgs(failure.reproduce), "--no-progress"]);
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(failure.message);
  }, 120_000);

  it("without --invariant-every the run checks every block and fails earlier, with another message", () => {
    const args = commandArgs(failure.reproduce);
    const everyAt = args.indexOf("--invariant-every");
    expect(everyAt).toBeGreaterThan(0);
    args.splice(everyAt, 2);
    const run = shadowbook([...args, "--no-progress"]);
    expect(run.status).toBe(1);
    const atMicros = Number(/at virtual time (\d+)$/.exec(run.stderr.trim())?.[1]);
    expect(atMicros).toBeLessThan(failure.atMicros);
    expect(run.stderr.trim()).not.toBe(failure.message);
  }, 120_000);
});

describe("reproductionCommand and run --invariant-every", () => {
  it("names --invariant-every only when it is not every block", () => {
    expect(reproductionCommand("s.ts", 3, { durationSeconds: 8 })).toBe("npx shadowbook run s.ts --seed 3 --fuzz --duration 8");
    expect(reproductionCommand("s.ts", 3, { durationSeconds: 8, invariantEveryBlocks: 1 })).toBe("npx shadowbook run s.ts --seed 3 --fuzz --duration 8");
    expect(reproductionCommand("s.ts", 3, { invariantEveryBlocks: 5 })).toBe("npx shadowbook run s.ts --seed 3 --fuzz --invariant-every 5");
  });

  it("refuses --invariant-every that is not a positive integer, or with the invariants off", async () => {
    const fixture = "test/sim/fixtures/fuzz-scenario.ts";
    await expect(runCommand(fixture, { invariantEvery: "0", fuzz: true, progress: false })).rejects.toThrow('--invariant-every "0" must be a positive integer');
    await expect(runCommand(fixture, { invariantEvery: "2.5", invariants: true, progress: false })).rejects.toThrow('--invariant-every "2.5" must be a positive integer');
    await expect(runCommand(fixture, { invariantEvery: "4", progress: false })).rejects.toThrow('--invariant-every "4" needs the invariants on (--invariants or --fuzz)');
  });
});
