/**
 * `shadowbook run --out` streams its Arrow outputs into a staging directory
 * inside --out while the run runs (src/cli/run.ts whileStaging). A run that
 * SIGINT or SIGTERM interrupts removes them, the staging directory, and an
 * --out the run made, then ends as the signal ends a process; an --out that
 * existed keeps its files as they were. The real command, in a child process.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAGING_PREFIX } from "../../src/cli/run-out.ts";
import { BIN, ROOT } from "./shadowbook-process.ts";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sb-run-signal-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The staging directory's files in `out`, or undefined while there is none. */
function stagedFiles(out: string): string[] | undefined {
  if (!existsSync(out)) return undefined;
  const staging = readdirSync(out).find((name) => name.startsWith(STAGING_PREFIX));
  return staging === undefined ? undefined : readdirSync(join(out, staging));
}

/** Runs the default hour into `out`, sends `signal` once its outputs are being streamed, and resolves with how it ended. */
function interrupted(out: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; staged: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, "run", "default", "--out", out, "--no-progress"], { cwd: ROOT, stdio: "ignore" });
    let staged: string[] = [];
    const poll = setInterval(() => {
      const files = stagedFiles(out);
      if (files === undefined || !files.includes("executions.arrow")) return;
      clearInterval(poll);
      staged = files;
      child.kill(signal);
    }, 20);
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", fail);
    child.on("exit", (code, ended) => {
      clearInterval(poll);
      clearTimeout(timer);
      done({ code, signal: ended, staged });
    });
  });
}

describe("run --out interrupted", () => {
  it("by SIGINT: removes the files streamed so far, the staging directory and the --out it made, and ends by the signal", async () => {
    const out = join(dir, "made");
    const ended = await interrupted(out, "SIGINT");
    expect(ended.staged, "the outputs were being streamed when the signal came").toContain("orders.arrow");
    expect(ended).toMatchObject({ code: null, signal: "SIGINT" });
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it("by SIGTERM in an --out that existed: leaves its files as they were", async () => {
    const out = join(dir, "existing");
    mkdirSync(out);
    writeFileSync(join(out, "summary.json"), "a previous run's summary\n");
    const ended = await interrupted(out, "SIGTERM");
    expect(ended.staged).toContain("executions.arrow");
    expect(ended).toMatchObject({ code: null, signal: "SIGTERM" });
    expect(readdirSync(out)).toEqual(["summary.json"]);
    expect(readFileSync(join(out, "summary.json"), "utf8")).toBe("a previous run's summary\n");
  }, 120_000);
});
