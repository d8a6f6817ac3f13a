/**
 * Determinism across machines and runs: the same scenario, seed
 * and code give the same fingerprint and the same output bytes on any
 * machine (README, "Determinism").
 *
 * - report.html's charts must not depend on what else is installed: vega
 *   measures text with the optional `canvas` package when it resolves (from
 *   node_modules or any parent folder's), so a machine that has it laid the
 *   charts out with its own fonts. A child process is given a stand-in
 *   `canvas` (a module-resolution hook, nothing installed) and must render
 *   the same SVG as one without it.
 * - The determinism check must catch reads of the environment and the
 *   machine (process.env, node:os, dynamic imports of fs, performance.*,
 *   toLocaleUpperCase, WeakRef, error stacks), not only clocks.
 * - A run under another time zone and locale writes the same files (wall
 *   time aside), and a fuzz seed's result does not depend on which seeds ran
 *   before it in the same thread (what a worker of the pool does).
 * - The floating point that seeded runs rest on (seedrandom's Alea, and
 *   Math.exp, log, log1p, sin and cos in the GBM paths, latencies and order
 *   sizes) gives the reference bits: a machine whose Node computes them
 *   differently fails here, by name, instead of with a fingerprint that
 *   silently differs. (Reference: Node 20, x64 Linux.)
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { RngRoot } from "../src/core/rng.ts";
import { runFuzzSeed, type FuzzResult } from "../src/sim/fuzz.ts";
import { loadScenario } from "../src/sim/scenario-loader.ts";
import { rulesBroken } from "./helpers/determinism-rules.ts";

const ROOT = join(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "determinism-machines-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("report.html and the optional canvas package", () => {
  /** A stand-in for `canvas`: text measured at half an em per character, as "this machine's fonts". */
  const FAKE_CANVAS = `
class Context2d {
  font = "10px sans-serif";
  measureText(text) {
    const size = Number(/(\\d+(?:\\.\\d+)?)px/.exec(this.font)?.[1] ?? 10);
    return { width: text.length * size * 0.5 };
  }
}
export class Canvas {
  constructor(width, height) { this.width = width; this.height = height; }
  getContext() { return new Context2d(); }
}
export const createCanvas = (width, height) => new Canvas(width, height);
export class Image {}
`;
  const HOOKS = `
export async function resolve(specifier, context, next) {
  if (specifier === "canvas") return { url: new URL("./fake-canvas.mjs", import.meta.url).href, shortCircuit: true };
  return next(specifier, context);
}
`;
  const REGISTER = `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`;
  // A chart with a title, axis titles and a legend: every one of them is laid out by its text's width.
  const CHILD = `
import { renderSvg } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/report/html.ts")).href)};
const spec = {
  title: "equity change per agent", width: 300, height: 120,
  data: { values: [{ t: 0, v: 1, s: "market-maker-eth" }, { t: 1, v: 12345, s: "market-maker-eth" }, { t: 0, v: 3, s: "noise" }, { t: 1, v: -2, s: "noise" }] },
  mark: "line",
  encoding: { x: { field: "t", type: "quantitative", title: "minutes" }, y: { field: "v", type: "quantitative", title: "rUSD" }, color: { field: "s", type: "nominal" } },
};
process.stdout.write(await renderSvg(spec));
`;

  function render(withCanvas: boolean): string {
    writeFileSync(join(scratch, "fake-canvas.mjs"), FAKE_CANVAS);
    writeFileSync(join(scratch, "hooks.mjs"), HOOKS);
    writeFileSync(join(scratch, "register.mjs"), REGISTER);
    writeFileSync(join(scratch, "child.mts"), CHILD);
    const args = ["--import", "tsx", ...(withCanvas ? ["--import", pathToFileURL(join(scratch, "register.mjs")).href] : []), join(scratch, "child.mts")];
    const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(child.stderr, "child stderr").toBe("");
    expect(child.status).toBe(0);
    return child.stdout;
  }

  it("renders the same SVG whether or not `canvas` resolves", () => {
    const without = render(false);
    const withCanvas = render(true);
    expect(without).toMatch(/^<svg /);
    const width = (svg: string) => /width="(\d+)"/.exec(svg)?.[1];
    expect(width(withCanvas), "the chart's width").toBe(width(without));
    expect(withCanvas === without, "the same SVG bytes").toBe(true);
  });
});

describe("the determinism check catches reads of the environment and the machine", () => {
  const samples = [
    'const debug = process.env["SHADOWBOOK_DEBUG"];',
    "const level = process.env.LOG_LEVEL;",
    "const args = process.argv.slice(2);",
    "const where = process.cwd();",
    "const windows = process.platform === 'win32';",
    'import { cpus } from "node:os";',
    'import os from "os";',
    'const { readFileSync } = await import("node:fs");',
    'import "node:fs";',
    'import { execSync } from "node:child_process";',
    "const origin = performance.timeOrigin;",
    "const upper = symbol.toLocaleUpperCase();",
    "const lower = symbol.toLocaleLowerCase();",
    "const held = new WeakRef(order);",
    "const registry = new FinalizationRegistry(() => count--);",
    "const trace = new Error().stack;",
    "const cores = navigator.hardwareConcurrency;",
    "const key = await crypto.subtle.generateKey(spec, true, ['sign']);",
  ];
  for (const sample of samples) {
    it(`catches: ${sample}`, () => {
      expect(rulesBroken(sample)).not.toEqual([]);
    });
  }

  it("still lets comments name what the core avoids, and ordinary names through", () => {
    expect(rulesBroken("// process.env and new Date() are not read here")).toEqual([]);
    expect(rulesBroken("/* toLocaleUpperCase depends on the locale and ICU */ const x = 1;")).toEqual([]);
    expect(rulesBroken("const processed = queue.process(item); const stacked = levels.stacks;")).toEqual([]);
  });
});

describe("a run under another time zone and locale", () => {
  /** Fields of summary.json that measure the machine (README, Determinism), not the run. */
  const WALL_FIELDS = new Set(["wallSeconds", "eventsPerSecond", "speedup"]);

  function run(out: string, env: Record<string, string>): string {
    const child = spawnSync(process.execPath, ["bin/shadowbook.mjs", "run", "default", "--duration", "20", "--out", out], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, ...env },
    });
    expect(child.status, child.stderr).toBe(0);
    return /fingerprint ([0-9a-f]{64})/.exec(child.stdout)?.[1] ?? "";
  }

  it("gives the same fingerprint and the same files, byte for byte (the wall-time figures aside)", () => {
    const far = join(scratch, "far");
    const utc = join(scratch, "utc");
    const a = run(far, { TZ: "Pacific/Kiritimati", LANG: "de_DE.UTF-8", LC_ALL: "de_DE.UTF-8" });
    const b = run(utc, { TZ: "UTC", LANG: "C", LC_ALL: "C" });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(b);
    const files = readdirSync(far).sort();
    expect(readdirSync(utc).sort()).toEqual(files);
    for (const file of files) {
      const left = readFileSync(join(far, file));
      const right = readFileSync(join(utc, file));
      if (file === "summary.json") {
        const strip = (bytes: Buffer) => JSON.stringify(JSON.parse(bytes.toString("utf8")), (key, value: unknown) => (WALL_FIELDS.has(key) ? undefined : value));
        expect(strip(left), file).toBe(strip(right));
      } else if (file === "report.html") {
        // The "wall time" and "events" rows hold wall-clock figures; everything else is the run's.
        const strip = (bytes: Buffer) => bytes.toString("utf8").replace(/<dt>wall time<\/dt><dd>[^<]*<\/dd>/, "").replace(/<dt>events<\/dt><dd>[^<]*<\/dd>/, "");
        expect(strip(left) === strip(right), file).toBe(true);
      } else {
        expect(left.equals(right), file).toBe(true);
      }
    }
  });
});

describe("a fuzz seed in a thread that ran other seeds before", () => {
  it("gives the same result whatever ran before it (what a worker of the pool sees)", async () => {
    const loaded = await loadScenario(join(ROOT, "scenarios/default.ts"));
    const options = { scenarioPath: "scenarios/default.ts", durationSeconds: 10 };
    const key = (result: FuzzResult) => JSON.stringify({ ...result, wallSeconds: 0, error: result.error === undefined ? undefined : { ...result.error, stack: "" } });
    const forward: string[] = [];
    for (const seed of [1, 2, 3]) forward.push(key(await runFuzzSeed(loaded, seed, options)));
    const backward: string[] = [];
    for (const seed of [3, 2, 1]) backward.push(key(await runFuzzSeed(loaded, seed, options)));
    expect(backward.reverse()).toEqual(forward);
  });
});

/** The first draws of stream "review-s25:first" of seed 1 (uniform, uniform, normal, normal, exponential(0.3), lognormal(log 1000, 0.4)). */
const REFERENCE_FIRST_DRAWS = [0.5395569114480168, 0.5940274498425424, -0.3681626511664189, 1.9848070189595082, 13.286277185195935, 699.5042418051721];

describe("the floating point seeded runs rest on", () => {
  it("gives the reference draws and Math results, bit for bit", () => {
    const first = new RngRoot(1).stream("review-s25:first");
    expect([first.uniform(), first.uniform(), first.normal(), first.normal(), first.exponential(0.3), first.lognormal(Math.log(1_000), 0.4)]).toEqual(REFERENCE_FIRST_DRAWS);
    expect([Math.exp(-0.000123), Math.log(0.73), Math.sin(2 * Math.PI * 0.377), Math.cos(2 * Math.PI * 0.377), Math.log1p(7), Math.exp(0.04)]).toEqual([
      0.9998770075641898, -0.31471074483970024, 0.6981654189934727, -0.7159364830218312, 2.0794415416798357, 1.0408107741923882,
    ]);
    // 10,000 rows of draws and Math results over a range of arguments, as little-endian doubles.
    const rng = new RngRoot(1).stream("review-s25:pin");
    const rows = 10_000;
    const columns = 9;
    const bytes = new DataView(new ArrayBuffer(rows * columns * 8));
    for (let i = 0; i < rows; i++) {
      const x = (i - rows / 2) / 997;
      const row = [rng.normal(), rng.lognormal(Math.log(2_000), 0.4), rng.exponential(0.3), rng.poisson(3), Math.exp(x), Math.log(1 + Math.abs(x)), Math.sin(7 * x), Math.cos(7 * x), Math.log1p(Math.abs(x))];
      row.forEach((value, k) => bytes.setFloat64((i * columns + k) * 8, value, true));
    }
    expect(createHash("sha256").update(new Uint8Array(bytes.buffer)).digest("hex"), "this Node's seeded draws or Math functions differ from the reference: seeded runs will not reproduce here").toBe(
      "740a4c79613dd976e54b536843583432a99f31998f2832ba9557ad9dfcb46625",
    );
  });
});
