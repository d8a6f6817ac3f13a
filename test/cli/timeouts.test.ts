/**
 * `shadowbook fuzz --seed-timeout` and `shadowbook sweep --run-timeout`: a
 * run still going after that much wall time fails as Timeout (its worker is
 * replaced and the command goes on), so one run that never ends cannot hang
 * either command. Refused with one worker (a run in this thread cannot be
 * stopped) and for a value that is not a positive number of seconds.
 * A timeout far below a run's length stands in for a run that never ends.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { fuzzCommand, parseTimeout } from "../../src/cli/fuzz.ts";
import { sweepCommand } from "../../src/cli/sweep.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `fn` with console.log collected and the exit status saved; its lines, result and exit status. */
async function captured<T>(fn: () => Promise<T>): Promise<{ lines: string[]; result: T; exitCode: number | string | undefined }> {
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    const result = await fn();
    return { lines, result, exitCode: process.exitCode };
  } finally {
    process.exitCode = before;
  }
}

describe("parseTimeout", () => {
  it("takes a positive number of seconds up to a day, with two or more workers", () => {
    expect(parseTimeout("0.05", "--seed-timeout", 2)).toBe(0.05);
    expect(parseTimeout("600", "--run-timeout", 4)).toBe(600);
    for (const bad of ["0", "-1", "1e3", "abc", "", "86401"]) expect(() => parseTimeout(bad, "--seed-timeout", 2)).toThrow(`--seed-timeout "${bad}" must be a positive number of seconds, at most 86400`);
    expect(() => parseTimeout("5", "--run-timeout", 1)).toThrow("--run-timeout needs --workers 2 or more: a run in this thread cannot be stopped");
  });
});

describe("fuzz --seed-timeout", () => {
  it("fails a seed that runs too long as Timeout, and the command goes on to the others", async () => {
    const { lines, result, exitCode } = await captured(() => fuzzCommand("test/sim/fixtures/fuzz-scenario.ts", { seeds: "1..2", workers: "2", duration: "4", seedTimeout: "0.05", progress: false }));
    expect(exitCode).toBe(1);
    expect(result.results.map((seed) => [seed.seed, seed.error?.kind])).toEqual([[1, "Timeout"], [2, "Timeout"]]);
    expect(lines.join("\n").split("\n")).toContain("seed 1: Timeout: seed 1 ran longer than 0.05 s of wall time");
  }, 60_000);
});

describe("sweep --run-timeout", () => {
  it("fails a run that takes too long as Timeout, lists it with its command, and exits 1", async () => {
    const { lines, result, exitCode } = await captured(() => sweepCommand("default", { vary: ["mm-eth.spreadBps=4,6"], seeds: "1", workers: "2", duration: "30", runTimeout: "0.05", progress: false }));
    expect(exitCode).toBe(1);
    expect(result.runs.map((run) => run.error?.kind)).toEqual(["Timeout", "Timeout"]);
    expect(lines).toContain("combination 1, seed 1 failed: Timeout: combination 1, seed 1 ran longer than 0.05 s of wall time");
    expect(lines).toContain("  reproduce: npx shadowbook run default --seed 1 --duration 30 --set mm-eth.spreadBps=4");
  }, 60_000);

  it("is refused with --workers 1, before any run", async () => {
    await expect(sweepCommand("default", { vary: ["mm-eth.spreadBps=4,6"], seeds: "1", workers: "1", runTimeout: "5", progress: false })).rejects.toThrow("--run-timeout needs --workers 2 or more");
  });
});
