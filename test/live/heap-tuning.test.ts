/**
 * The live server turns off V8's allocation-site pretenuring for its
 * process (src/live/heap-tuning.ts says why). Observed through V8's own
 * trace of its pretenuring decisions, in a child process: a literal site
 * whose objects all survive is tenured ("=> tenure") unless the tuning, or
 * a live server, came first. The child's new space is held to 1 MB: V8
 * decides only on scavenges of a full-sized new space, which a larger
 * default reaches in some runs and not others.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "shadowbook-heap-tuning-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `prelude`, then keeps 3 million objects of one literal site, under V8's pretenuring trace; returns the tenure decisions made after the prelude. */
function tenureDecisions(prelude: string): number {
  const script = join(dir, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `${prelude}
console.log("PRELUDE DONE");
const kept = [];
for (let i = 0; i < 3_000_000; i++) kept.push({ index: i, half: i / 2 });
console.log("kept", kept.length);
process.exit(0);
`,
  );
  const run = spawnSync(process.execPath, ["--import", "tsx", "--max-semi-space-size=1", "--trace-pretenuring-statistics", script], { cwd: root, encoding: "utf8", timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain("kept 3000000");
  const afterPrelude = run.stdout.slice(run.stdout.indexOf("PRELUDE DONE"));
  return afterPrelude.split("\n").filter((line) => line.includes("=> tenure")).length;
}

const module = (path: string) => JSON.stringify(pathToFileURL(join(root, path)).href);

describe("heap tuning for serving", () => {
  it("V8 tenures a literal site whose objects all survive (the probe is sound)", () => {
    expect(tenureDecisions("")).toBeGreaterThan(0);
  });

  it("tuneHeapForServing stops every tenure decision", () => {
    expect(tenureDecisions(`(await import(${module("src/live/heap-tuning.ts")})).tuneHeapForServing();`)).toBe(0);
  });

  it("startLiveServer applies it", () => {
    const prelude = `
const { startLiveServer } = await import(${module("src/live/serve.ts")});
const { defaultExchangeConfig } = await import(${module("src/exchange/config.ts")});
const { DEFAULT_SIGNING_CONFIG } = await import(${module("src/signing/domain.ts")});
const running = await startLiveServer({ config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 1, port: 0, host: "127.0.0.1", clock: "manual", startMicros: 1_700_000_000_000_000 });
await running.close();`;
    expect(tenureDecisions(prelude)).toBe(0);
  });
});
