/**
 * The code identity (src/record/code-id.ts): what it hashes (the source
 * files under src/ and agents/ and the installed versions of the
 * dependencies, found from the package root, not git), that it is stable
 * and changes with any of them and with nothing else, and that no link or
 * vanished file makes it throw; and that every input log written names it (`shadowbook.code`):
 * a simulated run's recorder, `run --out`, a fuzz failure's log, the live
 * server's log; summary.json too. Same code, same seed: the same log bytes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { RecordBatchStreamReader, tableFromIPC } from "apache-arrow";
import { afterAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { writeFailureLog } from "../../src/cli/fuzz.ts";
import { runCommand } from "../../src/cli/run.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { CODE_HASH_DIGITS, codeIdentity, computeCodeIdentity, PACKAGE_ROOT, runningCode } from "../../src/record/code-id.ts";
import { CODE_KEY, COMMAND_KEY, InputLogRecorder } from "../../src/record/input-log.ts";
import { LiveInputLog } from "../../src/record/live-input-log.ts";
import { readInputLog } from "../../src/record/replay.ts";
import { fuzzedScenario, runFuzzSeed } from "../../src/sim/fuzz.ts";
import { loadScenario, scenarioPath } from "../../src/sim/scenario-loader.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import failingScenario, { BUST_LIMIT } from "../sim/fixtures/failing-scenario.ts";

const scratch = mkdtempSync(join(tmpdir(), "shadowbook-code-id-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let packages = 0;

/** A package folder holding `files` (path relative to it -> text), written in the order given. */
function pkg(files: Readonly<Record<string, string>>): string {
  const root = join(scratch, `pkg-${++packages}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const BASE: Readonly<Record<string, string>> = {
  "package.json": JSON.stringify({ name: "shadowbook", version: "1.2.3", dependencies: { "decimal.js": "10.6.0", zod: "^4.0.0" } }),
  "node_modules/decimal.js/package.json": JSON.stringify({ name: "decimal.js", version: "10.6.0" }),
  "node_modules/zod/package.json": JSON.stringify({ name: "zod", version: "4.6.7" }),
  "src/engine/book.ts": "export const book = 1;\n",
  "src/engine/matcher.ts": "export const match = (a: number) => a + 1;\n",
  "src/core/time.ts": "export type Micros = number;\n",
  "agents/market-maker.ts": "export const spread = 2;\n",
};

const idOf = (files: Readonly<Record<string, string>>) => computeCodeIdentity(pkg(files)).id;

describe("computeCodeIdentity", () => {
  const base = idOf(BASE);

  it("is the package version and 12 hex digits, the same on every computation, wherever the package lies", () => {
    expect(base).toMatch(new RegExp(`^1\\.2\\.3\\+[0-9a-f]{${CODE_HASH_DIGITS}}$`));
    const root = pkg(BASE);
    expect(computeCodeIdentity(root).id).toBe(base);
    expect(computeCodeIdentity(root).id).toBe(base);
    // Written in another order, in another folder: the files are sorted, their paths relative.
    const reversed = Object.fromEntries(Object.entries(BASE).reverse());
    expect(idOf(reversed)).toBe(base);
  });

  it("hashes the source files under src/ and agents/, sorted by path, then the installed version of each dependency", () => {
    const identity = computeCodeIdentity(pkg(BASE));
    expect(identity.files).toEqual(["agents/market-maker.ts", "src/core/time.ts", "src/engine/book.ts", "src/engine/matcher.ts"]);
    // The version installed, not the range package.json asks for.
    expect(identity.dependencies).toEqual(["decimal.js@10.6.0", "zod@4.6.7"]);
    expect(identity.dependencyClosure).toEqual(["decimal.js@10.6.0", "zod@4.6.7"]);
  });

  it("hashes the dependencies' own dependencies too, as Node resolves them, and nothing that is not reached", () => {
    const dependent = (name: string, version: string, dependencies: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name, version, dependencies, ...extra });
    const withTransitive: Record<string, string> = {
      ...BASE,
      "node_modules/zod/package.json": dependent("zod", "4.6.7", { tiny: "^1.0.0" }, { optionalDependencies: { "@platform/build": "1.0.0" } }),
      "node_modules/tiny/package.json": dependent("tiny", "1.0.0", { zod: "^4.0.0" }),
    };
    const root = pkg(withTransitive);
    const identity = computeCodeIdentity(root);
    // tiny depends on zod back: the loop ends; an optional dependency (a platform build) is not followed.
    expect(identity.dependencyClosure).toEqual(["decimal.js@10.6.0", "tiny@1.0.0", "zod@4.6.7"]);
    expect(identity.dependencies).toEqual(["decimal.js@10.6.0", "zod@4.6.7"]);
    expect(identity.id).not.toBe(base);
    const changed = (edit: (files: Record<string, string>) => void) => {
      const files = { ...withTransitive };
      edit(files);
      return computeCodeIdentity(pkg(files));
    };
    // The transitive dependency at another version: another identity, replay identity included.
    const moved = changed((f) => (f["node_modules/tiny/package.json"] = dependent("tiny", "1.0.1", { zod: "^4.0.0" })));
    expect(moved.id).not.toBe(identity.id);
    expect(moved.replayId).not.toBe(identity.replayId);
    // A copy nested under its dependent is the one Node loads for it.
    const nested = changed((f) => (f["node_modules/zod/node_modules/tiny/package.json"] = dependent("tiny", "2.0.0", {})));
    expect(nested.dependencyClosure).toEqual(["decimal.js@10.6.0", "tiny@2.0.0", "zod@4.6.7"]);
    // Missing: named so. Installed but reached by nothing here, or an optional platform build: no change.
    expect(changed((f) => delete f["node_modules/tiny/package.json"]).dependencyClosure).toContain("tiny@missing");
    expect(changed((f) => (f["node_modules/unrelated/package.json"] = dependent("unrelated", "9.9.9", {}))).id).toBe(identity.id);
    expect(changed((f) => (f["node_modules/@platform/build/package.json"] = dependent("@platform/build", "1.0.0", {}))).id).toBe(identity.id);
  });

  it("finds a dependency where Node would, in a node_modules up the tree (an installed copy's dependencies are hoisted)", () => {
    const { "node_modules/decimal.js/package.json": decimal, "node_modules/zod/package.json": zod, ...own } = BASE;
    const hoisted = Object.fromEntries(Object.entries(own).map(([path, text]) => [`node_modules/shadowbook/${path}`, text]));
    const root = pkg({ ...hoisted, "node_modules/decimal.js/package.json": decimal!, "node_modules/zod/package.json": zod! });
    expect(computeCodeIdentity(join(root, "node_modules/shadowbook")).id).toBe(base);
  });

  it("never throws for a link that points nowhere, a link loop, or a link to a file elsewhere (which counts as that file)", () => {
    const root = pkg(BASE);
    symlinkSync("/nonexistent/shadowbook", join(root, "src/stale-link"));
    symlinkSync(join(root, "nowhere.ts"), join(root, "src/engine/dangling.ts"));
    symlinkSync(join(root, "src"), join(root, "src/engine/up")); // src/engine/up/engine/up/...
    expect(computeCodeIdentity(root).id).toBe(base);
    writeFileSync(join(root, "elsewhere.ts"), "export const far = 1;\n");
    symlinkSync(join(root, "elsewhere.ts"), join(root, "src/linked.ts"));
    const linked = computeCodeIdentity(root);
    expect(linked.files).toContain("src/linked.ts");
    expect(linked.id).toBe(idOf({ ...BASE, "src/linked.ts": "export const far = 1;\n" }));
  });

  it("changes when a hashed file changes: a byte of src/ or agents/, a file added, renamed or removed, a dependency installed at another version, missing or no longer declared", () => {
    const changed = (edit: (files: Record<string, string>) => void) => {
      const files = { ...BASE };
      edit(files);
      return idOf(files);
    };
    const variants = [
      changed((f) => (f["src/engine/matcher.ts"] = "export const match = (a: number) => a + 2;\n")),
      changed((f) => (f["agents/market-maker.ts"] = "export const spread = 3;\n")),
      changed((f) => (f["src/engine/stops.ts"] = "")),
      changed((f) => (f["src/exchange/config.js"] = "export default {};\n")),
      changed((f) => (f["src/spec/limits.json"] = "{}\n")),
      changed((f) => {
        f["src/engine/book2.ts"] = f["src/engine/book.ts"]!;
        delete f["src/engine/book.ts"];
      }),
      changed((f) => delete f["src/core/time.ts"]),
      changed((f) => (f["node_modules/zod/package.json"] = JSON.stringify({ name: "zod", version: "4.6.8" }))),
      changed((f) => delete f["node_modules/decimal.js/package.json"]),
      changed((f) => (f["package.json"] = JSON.stringify({ name: "shadowbook", version: "1.2.3", dependencies: { "decimal.js": "10.6.0" } }))),
    ];
    for (const [index, id] of variants.entries()) expect(id, `variant ${index}`).not.toBe(base);
    expect(new Set(variants).size).toBe(variants.length);
    // The version is the identity's prefix.
    expect(changed((f) => (f["package.json"] = f["package.json"]!.replace("1.2.3", "1.2.4")))).toBe(base.replace("1.2.3", "1.2.4"));
  });

  it("has a replay identity over src/ and the dependencies alone: an agents/ edit changes the identity but not it, any other edit both", () => {
    const identityOf = (edit: (files: Record<string, string>) => void) => {
      const files = { ...BASE };
      edit(files);
      return computeCodeIdentity(pkg(files));
    };
    const before = identityOf(() => {});
    expect(before.replayId).toMatch(new RegExp(`^1\\.2\\.3\\+[0-9a-f]{${CODE_HASH_DIGITS}}$`));
    expect(before.replayId).not.toBe(before.id);
    expect(identityOf(() => {}).replayId).toBe(before.replayId);
    for (const agentsEdit of [(f: Record<string, string>) => (f["agents/market-maker.ts"] = "export const spread = 3;\n"), (f: Record<string, string>) => (f["agents/noise.ts"] = "export {};\n"), (f: Record<string, string>) => delete f["agents/market-maker.ts"]]) {
      const after = identityOf(agentsEdit);
      expect(after.id).not.toBe(before.id);
      expect(after.replayId).toBe(before.replayId);
    }
    const others = [
      identityOf((f) => (f["src/engine/matcher.ts"] = "export const match = (a: number) => a + 2;\n")),
      identityOf((f) => (f["src/engine/stops.ts"] = "")),
      identityOf((f) => (f["node_modules/zod/package.json"] = JSON.stringify({ name: "zod", version: "4.6.8" }))),
    ];
    for (const after of others) {
      expect(after.id).not.toBe(before.id);
      expect(after.replayId).not.toBe(before.replayId);
    }
    // The same file under agents/ or src/ is not the same replay identity: the path is hashed too.
    const moved = identityOf((f) => {
      f["src/market-maker.ts"] = f["agents/market-maker.ts"]!;
      delete f["agents/market-maker.ts"];
    });
    expect(moved.replayId).not.toBe(before.replayId);
  });

  it("ignores what is not code that decides outputs: run outputs, node_modules' files, the lock file, tests, scenarios, docs, editors' files", () => {
    const files = {
      ...BASE,
      "runs/default/inputs.arrow": "ARROW1",
      "node_modules/decimal.js/decimal.mjs": "export default 1;\n",
      "package-lock.json": '{"lockfileVersion": 3}\n',
      "src/node_modules/stray/index.js": "export default 1;\n",
      "test/engine/book.test.ts": "it('works', () => {});\n",
      "scenarios/default.ts": "export default {};\n",
      "src/engine/NOTES.md": "# notes\n",
      "src/engine/.#matcher.ts": "emacs lock\n",
      "src/.cache/x.ts": "export const x = 1;\n",
      "README.md": "# shadowbook\n",
    };
    expect(idOf(files)).toBe(base);
  });

  it("reads CRLF line ends as LF: a Windows checkout of the same code has the same identity", () => {
    const crlf = Object.fromEntries(Object.entries(BASE).map(([path, text]) => [path, text.replace(/\n/g, "\r\n")]));
    expect(idOf(crlf)).toBe(base);
    // A lone carriage return is a byte like any other.
    expect(idOf({ ...BASE, "src/core/time.ts": "export type Micros = number;\r" })).not.toBe(base);
  });

  it("sees a change made after a first computation (it reads the files each call)", () => {
    const root = pkg(BASE);
    expect(computeCodeIdentity(root).id).toBe(base);
    writeFileSync(join(root, "src/engine/book.ts"), "export const book = 2;\n");
    expect(computeCodeIdentity(root).id).not.toBe(base);
    writeFileSync(join(root, "src/engine/book.ts"), BASE["src/engine/book.ts"]!);
    renameSync(join(root, "agents"), join(root, "agents-moved"));
    expect(computeCodeIdentity(root).id).not.toBe(base);
  });
});

describe("this process's code identity", () => {
  it("is this package's, computed once: the package root is found from the module's location, not the working directory", () => {
    expect(JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"))).toMatchObject({ name: "shadowbook" });
    const first = runningCode();
    expect(runningCode()).toBe(first); // the same object: not recomputed
    expect(codeIdentity()).toBe(first.id);
    expect(first.id).toBe(`${JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version}+${first.hash}`);
    expect(first.files).toContain("src/record/code-id.ts");
    expect(first.files).toContain("agents/market-maker.ts");
    const decimal = JSON.parse(readFileSync(join(PACKAGE_ROOT, "node_modules/decimal.js/package.json"), "utf8")).version;
    expect(first.dependencies).toContain(`decimal.js@${decimal}`);
  });

  it("covers every file git tracks under src/ and agents/, and none that git ignores (git is only the test's witness)", () => {
    const git = (...args: string[]) => spawnSync("git", args, { cwd: PACKAGE_ROOT, encoding: "utf8" });
    const tracked = git("ls-files", "-z", "src", "agents");
    if (tracked.status !== 0) return; // a copy without git: nothing to compare with
    const hashed = new Set(runningCode().files);
    const missing = tracked.stdout.split("\0").filter((path) => path !== "" && !hashed.has(path));
    expect(missing).toEqual([]);
    const ignored = git("check-ignore", "--no-index", ...hashed);
    expect(ignored.stdout.trim()).toBe("");
  });
});

describe("every input log names the code that recorded it", () => {
  const metadataOf = (path: string) => tableFromIPC(readFileSync(path)).schema.metadata;

  it("a simulated run's recorder: this code by default, or the identity it is given; same code and seed, same bytes", async () => {
    const paths = ["a.arrow", "b.arrow", "injected.arrow"].map((name) => join(scratch, name));
    for (const [index, path] of paths.entries()) {
      const recorder = index === 2 ? new InputLogRecorder({ code: "0.0.1+0123456789ab" }) : new InputLogRecorder();
      await runScenario(scenario, { durationSeconds: 2, observers: [recorder] });
      recorder.write(path);
    }
    expect(metadataOf(paths[0]!).get(CODE_KEY)).toBe(codeIdentity());
    expect(readInputLog(paths[0]!).code).toBe(codeIdentity());
    expect(readFileSync(paths[0]!).equals(readFileSync(paths[1]!))).toBe(true);
    expect(metadataOf(paths[2]!).get(CODE_KEY)).toBe("0.0.1+0123456789ab");
    expect(readInputLog(paths[2]!).code).toBe("0.0.1+0123456789ab");
  }, 60_000);

  it("`run --out`: inputs.arrow and summary.json (and report.html) name it", async () => {
    const out = join(scratch, "run-out");
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await runCommand("default", { out, progress: false, duration: "2" });
    } finally {
      vi.restoreAllMocks();
    }
    expect(metadataOf(join(out, "inputs.arrow")).get(CODE_KEY)).toBe(codeIdentity());
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).code).toBe(codeIdentity());
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(codeIdentity());
  }, 60_000);

  it("a fuzz failure's log", async () => {
    const seed = [1, 2, 3, 4, 5, 6, 7, 8].find((candidate) => Number(fuzzedScenario(failingScenario, candidate).parameters["bustProbability"]) > BUST_LIMIT)!;
    const seedOptions = { scenarioPath: scenarioPath("test/sim/fixtures/failing-scenario.ts"), durationSeconds: 8 };
    const failure = await runFuzzSeed(await loadScenario(seedOptions.scenarioPath), seed, seedOptions);
    expect(failure.ok).toBe(false);
    const written = await writeFailureLog(failure, seedOptions, join(scratch, `fuzz-seed-${seed}`));
    expect(written?.sameFailure).toBe(true);
    expect(metadataOf(written!.path).get(CODE_KEY)).toBe(codeIdentity());
    // And the command that re-runs it: the failure's reproduce line (test/cli/rerun-command.test.ts has the rest).
    expect(metadataOf(written!.path).get(COMMAND_KEY)).toBe(failure.reproduce);
    expect(failure.reproduce).toBe(`npx shadowbook run ${seedOptions.scenarioPath} --seed ${seed} --fuzz --duration 8`);
  }, 60_000);

  it("the live server's log (`serve --record`): this code by default, or the identity it is given", async () => {
    const options = { config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 1, startMicros: 1_767_225_600_000_000, scenario: "serve", signatures: "signed", durability: "async" } as const;
    const paths: string[] = [];
    for (const code of [undefined, "0.0.1+0123456789ab"]) {
      const log = new LiveInputLog(join(scratch, `live-${paths.length}`), { ...options, ...(code === undefined ? {} : { code }) });
      await log.close();
      paths.push(log.path);
    }
    const schema = (path: string) => RecordBatchStreamReader.from(readFileSync(path)).open().schema.metadata;
    expect(schema(paths[0]!).get(CODE_KEY)).toBe(codeIdentity());
    expect(schema(paths[1]!).get(CODE_KEY)).toBe("0.0.1+0123456789ab");
  });
});
