/**
 * The determinism check (DESIGN.md, "Determinism rules"): the deterministic
 * core reads no clock, no unseeded randomness, no timers and does no I/O.
 * This is the one list of what is inside the core and what is a driver.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

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
  "src/sim/risk-invariants.ts",
  "src/client",
  "src/backtest/recording.ts",
  "src/backtest/tape.ts",
  "src/backtest/book.ts",
  "src/backtest/queue.ts",
  "src/backtest/strategy.ts",
  "src/backtest/account.ts",
  "src/backtest/replay.ts",
  "agents",
];

/** Paths inside the folders above that are drivers all the same (socket transports of the client SDK). */
export const DRIVER_EXCEPTIONS = ["src/client/transports"];

/** Drivers and I/O may read clocks and do I/O; listed so the boundary is explicit. */
export const DRIVERS = ["src/sim/runner.ts", "src/sim/fuzz.ts", "src/sim/fuzz-worker.ts", "src/backtest/run.ts", "src/live", "src/client/transports", "src/record", "src/report", "src/cli"];

const FORBIDDEN: { name: string; pattern: RegExp }[] = [
  { name: "Date", pattern: /\bDate\b/ },
  { name: "Math.random", pattern: /\bMath\.random\b/ },
  { name: "setTimeout", pattern: /\bsetTimeout\b/ },
  { name: "setInterval", pattern: /\bsetInterval\b/ },
  { name: "setImmediate", pattern: /\bsetImmediate\b/ },
  { name: "performance.now", pattern: /\bperformance\s*\.\s*now\b/ },
  { name: "process.hrtime", pattern: /\bprocess\s*\.\s*hrtime\b/ },
  { name: "crypto.randomUUID", pattern: /\brandomUUID\b/ },
  { name: "import of fs", pattern: /from\s+["'](node:)?fs(\/promises)?["']|require\(\s*["'](node:)?fs/ },
  { name: "import of net", pattern: /from\s+["'](node:)?net["']|require\(\s*["'](node:)?net["']/ },
  { name: "import of http", pattern: /from\s+["'](node:)?https?["']|require\(\s*["'](node:)?https?["']/ },
  { name: "import of worker_threads", pattern: /from\s+["'](node:)?worker_threads["']|require\(\s*["'](node:)?worker_threads/ },
];

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

/** Source text without comments, so a doc comment may name what it avoids. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

export function findViolations(files: string[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const lines = code(readFileSync(file, "utf8")).split("\n");
    lines.forEach((line, index) => {
      for (const { name, pattern } of FORBIDDEN) {
        if (pattern.test(line)) violations.push(`${relative(ROOT, file)}:${index + 1} uses ${name}: ${line.trim()}`);
      }
    });
  }
  return violations;
}

describe("determinism check", () => {
  it("finds no clock, randomness, timer or I/O use in the deterministic core", () => {
    const files = DETERMINISTIC_CORE.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(0);
    expect(findViolations(files)).toEqual([]);
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
      'import { readFileSync } from "node:fs";',
      'import net from "net";',
      'import { createServer } from "node:http";',
      'import { Worker } from "node:worker_threads";',
    ];
    for (const sample of samples) {
      const caught = FORBIDDEN.some(({ pattern }) => pattern.test(code(sample)));
      expect(caught, sample).toBe(true);
    }
    expect(FORBIDDEN.some(({ pattern }) => pattern.test(code("// Date.now() is banned here")))).toBe(false);
  });
});
