/**
 * A reader that goes away before the output ends (`shadowbook ... | head -1`)
 * is no error (bin/shadowbook.mjs): the command finishes its work, here the
 * files of `run --out`, exits 0 and prints no EPIPE stack trace; an error
 * written to a closed stderr keeps its exit status. Run as a user runs it:
 * the real CLI in bash, piped into head.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/shadowbook.mjs");
const dir = mkdtempSync(join(tmpdir(), "shadowbook-closed-pipe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("run --out piped into head -1: the first line, exit status 0, no stack trace, every file written", () => {
  const out = join(dir, "run");
  // The summary table comes after the run, long after head has gone: every line of it is written to a closed pipe.
  const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run default --duration 20 --no-progress --out ${JSON.stringify(out)} | head -1; echo "status \${PIPESTATUS[0]}"`;
  const child = spawnSync("bash", ["-c", script], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  expect(child.stderr).toBe("");
  expect(child.stdout).toBe("shadowbook run default (seed 1, trusted mode: signatures not checked)\nstatus 0\n");
  expect(existsSync(join(out, "report.html"))).toBe(true);
  expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).fingerprint).toMatch(/^[0-9a-f]{64}$/);
}, 120_000);

it("an error written to a closed stderr (2>&1 | head -0): still exit status 1, no stack trace", () => {
  const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run no-such-scenario 2>&1 | head -0; echo "status \${PIPESTATUS[0]}"`;
  const child = spawnSync("bash", ["-c", script], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  expect(child.stderr).toBe("");
  expect(child.stdout).toBe("status 1\n");
}, 60_000);
