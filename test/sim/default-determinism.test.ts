/**
 * The determinism guarantee (issue 8, DESIGN.md): the same scenario, seed
 * and code give the same fingerprint. CI runs the default scenario, a full
 * simulated hour, twice, each in its own process (so no module state can
 * carry over), and compares the fingerprints; a different seed must differ.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

async function fingerprintOf(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/main.ts"), "run", "default", "--no-progress", ...args], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const match = /fingerprint ([0-9a-f]{64})/.exec(stdout);
  if (match === null) throw new Error(`no fingerprint in the output of shadowbook run:\n${stdout}`);
  return match[1]!;
}

describe("the default scenario", () => {
  it("gives the same fingerprint for one simulated hour in two processes", { timeout: 480_000 }, async () => {
    const [first, second] = await Promise.all([fingerprintOf(), fingerprintOf()]);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
  });

  it("gives a different fingerprint for a different seed (the seed reaches the run)", { timeout: 120_000 }, async () => {
    const [one, two] = await Promise.all([fingerprintOf("--seed", "1", "--duration", "60"), fingerprintOf("--seed", "2", "--duration", "60")]);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(two).not.toBe(one);
  });
});
