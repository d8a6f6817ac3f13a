/**
 * The determinism check (DESIGN.md, "Determinism rules"): the deterministic
 * core reads no clock, no unseeded randomness, no timers, no locale, no
 * environment (process.env, arguments, the machine) and does no I/O; the
 * forbidden uses are listed in test/helpers/determinism-rules.ts. This is
 * the one list of what is inside the core and what is a driver: every
 * source file of src/, agents/ and scenarios/ is in exactly one of them (a
 * new file must be classified before the suite passes).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { code, FORBIDDEN, findViolations as findViolationsUnder } from "./helpers/determinism-rules.ts";

const ROOT = join(import.meta.dirname, "..");

/** Inside the deterministic core: folders and single files. */
export const DETERMINISTIC_CORE = [
  "src/core",
  "src/spec",
  "src/signing",
  "src/engine",
  "src/risk",
  "src/settlement",
  "src/exchange",
  "src/sim/kernel.ts",
  "src/sim/world.ts",
  "src/sim/transport.ts",
  "src/sim/latency.ts",
  "src/sim/oracle.ts",
  "src/sim/agent.ts",
  "src/sim/agent-host.ts",
  "src/sim/scenario.ts",
  "src/sim/run.ts",
  "src/sim/invariants.ts",
  "src/sim/order-invariants.ts",
  "src/sim/output-invariants.ts",
  "src/sim/risk-invariants.ts",
  // Fault draws (drawFault, faultOf, withDrawnFault) decide every fuzz seed's parameters: a seed reproduces only if they are pure.
  "src/sim/swarm.ts",
  // --set overrides (parse, apply, check) are laid over every fuzz seed's scenario after its draw: pure, like the draw.
  "src/sim/overrides.ts",
  // The `shadowbook run` command a log names and a fuzz failure prints: built from the run's options alone.
  "src/sim/command-line.ts",
  "src/client",
  "src/backtest/recording.ts",
  "src/backtest/tape.ts",
  "src/backtest/book.ts",
  "src/backtest/queue.ts",
  "src/backtest/strategy.ts",
  "src/backtest/account.ts",
  "src/backtest/replay.ts",
  "agents",
  // The shipped scenarios (and fuzz-helpers.ts): their agents' setup and fuzz.draw / fuzz.apply run inside every seed.
  "scenarios",
];

/** Paths inside the folders above that are drivers all the same (socket transports of the client SDK). */
export const DRIVER_EXCEPTIONS = ["src/client/transports"];

/** Drivers and I/O may read clocks and do I/O; listed so the boundary is explicit. */
export const DRIVERS = [
  "src/sim/runner.ts",
  "src/sim/fuzz.ts",
  "src/sim/fuzz-worker.ts",
  // Worker threads and wall-clock timeouts for independent runs (fuzz seeds, sweep runs).
  "src/sim/worker-pool.ts",
  "src/sim/scenario-worker.ts",
  // A thrown value as plain data, its stack's head included (a fuzz seed's, a sweep run's, a pool worker's failure).
  "src/sim/failure.ts",
  // Reads scenario modules and the price-path files their feeds name (fs, dynamic import); what it loads is checked as core.
  "src/sim/scenario-loader.ts",
  "src/backtest/run.ts",
  "src/live",
  "src/client/transports",
  "src/record",
  "src/report",
  "src/cli",
];

/** The folders whose every source file must be classified as core or driver. */
const CLASSIFIED_ROOTS = ["src", "agents", "scenarios"];

/** `path` (relative to the root) is `entry` or inside it. */
function within(path: string, entry: string): boolean {
  return path === entry || path.startsWith(`${entry}/`);
}

/** Every source file under `path` (relative to the root), exceptions included. */
function allSourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (statSync(full).isFile()) return /\.(ts|mts|js|mjs)$/.test(full) ? [path] : [];
  return readdirSync(full).flatMap((entry) => allSourceFiles(`${path}/${entry}`));
}

/** Where a source file (relative to the root) belongs: "core", "driver", or why it is in neither or both. */
export function classify(path: string): "core" | "driver" | string {
  const core = DETERMINISTIC_CORE.some((entry) => within(path, entry)) && !DRIVER_EXCEPTIONS.some((entry) => within(path, entry));
  const driver = DRIVERS.some((entry) => within(path, entry));
  if (core && driver) return `${path} is in both DETERMINISTIC_CORE and DRIVERS`;
  if (core) return "core";
  if (driver) return "driver";
  return `${path} is in neither DETERMINISTIC_CORE nor DRIVERS: classify it`;
}

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  let stats;
  try {
    stats = statSync(full);
  } catch {
    return [];
  }
  if (DRIVER_EXCEPTIONS.some((exception) => path.startsWith(exception))) return [];
  if (stats.isFile()) return /\.(ts|mts|js|mjs)$/.test(full) ? [full] : [];
  return readdirSync(full).flatMap((entry) => sourceFiles(join(path, entry)));
}

/** Every forbidden use (test/helpers/determinism-rules.ts lists them) in `files` (absolute paths). */
export function findViolations(files: string[]): string[] {
  return findViolationsUnder(files, ROOT);
}

describe("determinism check", () => {
  it("finds no clock, randomness, timer or I/O use in the deterministic core", () => {
    const files = DETERMINISTIC_CORE.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(0);
    expect(findViolations(files)).toEqual([]);
  });

  it("classifies every source file of src/, agents/ and scenarios/ as core or driver, exactly once", () => {
    const files = CLASSIFIED_ROOTS.flatMap(allSourceFiles);
    expect(files).toContain("src/sim/swarm.ts");
    expect(files).toContain("scenarios/fuzz-helpers.ts");
    expect(files.map(classify).filter((where) => where !== "core" && where !== "driver")).toEqual([]);
    expect(classify("src/sim/swarm.ts")).toBe("core");
    expect(classify("scenarios/default.ts")).toBe("core");
    expect(classify("src/sim/scenario-loader.ts")).toBe("driver");
    expect(classify("src/client/transports/ws.ts")).toBe("driver");
    // Every entry names a file or folder that exists (a renamed file cannot leave a stale entry behind).
    const missing = [...DETERMINISTIC_CORE, ...DRIVER_EXCEPTIONS, ...DRIVERS].filter((entry) => {
      try {
        statSync(join(ROOT, entry));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });

  it("catches each forbidden use (the check itself works)", () => {
    const samples = [
      "const t = Date.now();",
      "const r = Math.random();",
      "setTimeout(f, 1);",
      "setInterval(f, 1);",
      "setImmediate(f);",
      "performance.now();",
      "process.hrtime.bigint();",
      "crypto.randomUUID();",
      "const key = randomBytes(32);",
      "crypto.randomInt(10);",
      "randomFillSync(buffer);",
      "crypto.getRandomValues(new Uint8Array(8));",
      "const text = value.toLocaleString();",
      'const day = date.toLocaleDateString("en-US");',
      "const format = new Intl.NumberFormat();",
      "names.sort((a, b) => a.localeCompare(b));",
      'import { readFileSync } from "node:fs";',
      'import net from "net";',
      'import { createServer } from "node:http";',
      'import { Worker } from "node:worker_threads";',
      'const debug = process.env["SHADOWBOOK_DEBUG"];',
      "const cores = process.argv.length;",
      'import { cpus } from "node:os";',
      'const fs = await import("node:fs");',
      "const when = performance.timeOrigin;",
      'const upper = name.toLocaleUpperCase();',
      "const ref = new WeakRef(order);",
      "const where = new Error().stack;",
    ];
    for (const sample of samples) {
      const caught = FORBIDDEN.some(({ pattern }) => pattern.test(code(sample)));
      expect(caught, sample).toBe(true);
    }
    expect(FORBIDDEN.some(({ pattern }) => pattern.test(code("// Date.now() is banned here")))).toBe(false);
  });
});
