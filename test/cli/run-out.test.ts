/**
 * `shadowbook run --out`: an --out the run's files cannot be written to is
 * refused before the run; the files are staged inside --out and moved into
 * place once all are written, summary.json and report.html last, so a run
 * whose files cannot all be written leaves no report of a finished run.
 * Both kinds of run: with agents, and a replay of recorded market data
 * (scenarios/replay-market-maker.ts over data/default-sample.arrow).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DATA_DIR } from "../../src/backtest/run.ts";
import { checkOutDir, STAGING_PREFIX, stagedInputLogPath, writeRunOutputs, writeStaged, type Staging } from "../../src/cli/run-out.ts";
import { runCommand } from "../../src/cli/run.ts";
import type { InputLogRecorder } from "../../src/record/input-log.ts";
import { RUN_OUTPUT_FILES } from "../../src/record/run-outputs.ts";
import type { RunOutputs } from "../../src/report/write-run.ts";
import type { RunFigures } from "../../src/sim/runner.ts";

/** While `suffix` is set, a write of a file whose path ends with it writes half its bytes and fails as a full disk does. */
const failing = vi.hoisted(() => ({ suffix: undefined as string | undefined }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeFileSync = ((path: Parameters<typeof fs.writeFileSync>[0], data: string | NodeJS.ArrayBufferView, ...rest: unknown[]) => {
    if (failing.suffix !== undefined && String(path).endsWith(failing.suffix)) {
      const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      fs.writeFileSync(path, bytes.subarray(0, bytes.length >> 1));
      throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: "ENOSPC" });
    }
    return (fs.writeFileSync as (...args: unknown[]) => void)(path, data, ...rest);
  }) as typeof fs.writeFileSync;
  // The same for a file written a chunk at a time (a run's streamed Arrow outputs): its path is known from its open.
  const pathOfFd = new Map<number, string>();
  const openSync = ((path: Parameters<typeof fs.openSync>[0], ...rest: unknown[]) => {
    const fd = (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
    pathOfFd.set(fd, String(path));
    return fd;
  }) as typeof fs.openSync;
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (failing.suffix !== undefined && pathOfFd.get(fd)?.endsWith(failing.suffix) === true) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: "ENOSPC" });
    }
    return (fs.writeSync as (...args: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  const mocked = { writeFileSync, openSync, writeSync };
  return { ...fs, default: { ...fs, ...mocked }, ...mocked };
});

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-run-out-"));
  vi.spyOn(console, "log").mockImplementation(() => {});
});

afterAll(() => {
  vi.restoreAllMocks();
});

afterEach(() => {
  failing.suffix = undefined;
});

describe("checkOutDir", () => {
  it("takes a directory to be made, or one that exists", () => {
    expect(() => checkOutDir(join(dir, "new", "deeper"))).not.toThrow();
    expect(() => checkOutDir(dir)).not.toThrow();
  });

  it("refuses an empty --out, a file, and a path under a file", () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "not a directory\n");
    expect(() => checkOutDir("")).toThrow('--out "" is empty: give the directory to write the run\'s files to');
    expect(() => checkOutDir(file)).toThrow(`--out "${file}" is a file, not a directory`);
    expect(() => checkOutDir(join(file, "sub", "dir"))).toThrow(`--out "${join(file, "sub", "dir")}": "${file}" is a file, not a directory`);
  });

  it("refuses a dangling symbolic link, as --out or on its path, naming where it points", () => {
    const link = join(dir, "dangling");
    symlinkSync(join(dir, "nowhere"), link);
    expect(() => checkOutDir(link)).toThrow(`--out "${link}" is a symbolic link to "${join(dir, "nowhere")}", which does not exist`);
    expect(() => checkOutDir(join(link, "sub"))).toThrow(`--out "${join(link, "sub")}": "${link}" is a symbolic link to "${join(dir, "nowhere")}", which does not exist`);
  });

  it.runIf(existsSync("/proc/self"))("refuses an --out where no directory can be made (under /proc) at once, rather than retrying forever", async () => {
    const started = performance.now();
    await expect(runCommand("default", { out: "/proc/shadowbook-nope", progress: false, duration: "1" })).rejects.toThrow(
      '--out "/proc/shadowbook-nope" cannot be written: a directory in its path cannot be made there (ENOENT)',
    );
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it("refuses a directory where the run writes a file (inputs.arrow, summary.json, an Arrow output)", () => {
    for (const name of ["inputs.arrow", "summary.json", "report.html", `${RUN_OUTPUT_FILES[0]}.arrow`]) {
      const out = join(dir, `blocked-${name}`);
      mkdirSync(join(out, name), { recursive: true });
      expect(() => checkOutDir(out)).toThrow(`--out "${out}": ${name} there is a directory, not a file the run can write`);
      // A backtest of recorded market data writes other files: only the ones given are looked at.
      expect(() => checkOutDir(out, [])).not.toThrow();
    }
  });
});

/** A RunOutputs whose finish writes two Arrow files, summary.json and report.html into `staging` (or fails after the summary). */
function fakeOutputs(staging: string, failAfterSummary = false): RunOutputs {
  return {
    observers: [],
    summary: undefined as never,
    recorder: undefined,
    async finish() {
      mkdirSync(staging, { recursive: true });
      const files = ["executions.arrow", "busts.arrow", "summary.json", "report.html"].map((name) => join(staging, name));
      for (const file of files) {
        writeFileSync(file, `${file}\n`);
        if (failAfterSummary && file.endsWith("summary.json")) throw new Error("the report could not be rendered");
      }
      return { summary: undefined as never, table: "the table", files };
    },
    abandon() {},
  };
}

/** A staging directory `.staging` in `out`, as prepareStaging makes it ready before a run. */
function stagingIn(out: string): Staging {
  return { out, dir: join(out, ".staging"), created: !existsSync(out) };
}

/** An input log streamed into the staging directory, whose write() (at the end of the run) is `write`. */
/** What a write into --out that fails as a full disk does is refused with. */
const noSpace = (out: string) => `--out "${out}" cannot be written: no space left on the device (ENOSPC)`;

const inputLog = (write: () => void) => ({ write }) as unknown as InputLogRecorder;
const figures = {} as RunFigures;

describe("writeRunOutputs", () => {
  it("moves every file into --out, summary.json and report.html last, and removes the staging directory", async () => {
    const out = join(dir, "written");
    const staging = stagingIn(out);
    const written = await writeRunOutputs(out, staging, fakeOutputs(staging.dir), inputLog(() => writeFileSync(stagedInputLogPath(staging), "log\n")), figures);
    expect(written.files).toEqual(["executions.arrow", "busts.arrow", "inputs.arrow", "summary.json", "report.html"].map((name) => join(out, name)));
    expect(readdirSync(out).sort()).toEqual(["busts.arrow", "executions.arrow", "inputs.arrow", "report.html", "summary.json"]);
    expect(readFileSync(join(out, "inputs.arrow"), "utf8")).toBe("log\n");
  });

  it("writing inputs.arrow fails: no summary.json or report.html, no staging directory, no --out it created", async () => {
    const out = join(dir, "log-fails");
    const staging = stagingIn(out);
    const full = inputLog(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device, open"), { code: "ENOSPC" });
    });
    await expect(writeRunOutputs(out, staging, fakeOutputs(staging.dir), full, figures)).rejects.toThrow(noSpace(out));
    expect(existsSync(out)).toBe(false);
  });

  it("a failure after summary.json was staged leaves an --out that existed as it was", async () => {
    const out = join(dir, "previous");
    mkdirSync(out);
    writeFileSync(join(out, "summary.json"), "a previous run's summary\n");
    const staging = stagingIn(out);
    await expect(writeRunOutputs(out, staging, fakeOutputs(staging.dir, true), inputLog(() => {}), figures)).rejects.toThrow("the report could not be rendered");
    expect(readdirSync(out)).toEqual(["summary.json"]);
    expect(readFileSync(join(out, "summary.json"), "utf8")).toBe("a previous run's summary\n");
  });
});

describe("writeStaged", () => {
  it("moves what the writer staged into --out in its order, summary.json and report.html last, and removes the staging directory", async () => {
    const out = join(dir, "staged");
    const files = await writeStaged(out, (staging) => {
      mkdirSync(staging, { recursive: true });
      return ["summary.json", "fills.arrow", "notes.txt"].map((name) => {
        writeFileSync(join(staging, name), `${name}\n`);
        return join(staging, name);
      });
    }, { files: ["fills.arrow", "summary.json", "notes.txt"] });
    expect(files).toEqual(["fills.arrow", "notes.txt", "summary.json"].map((name) => join(out, name)));
    expect(readdirSync(out).sort()).toEqual(["fills.arrow", "notes.txt", "summary.json"]);
    expect(readFileSync(join(out, "summary.json"), "utf8")).toBe("summary.json\n");
  });

  it("checks --out again with the files given before writing", async () => {
    const out = join(dir, "staged-blocked");
    mkdirSync(join(out, "fills.arrow"), { recursive: true });
    const write = vi.fn(() => []);
    await expect(writeStaged(out, write, { files: ["fills.arrow"] })).rejects.toThrow(`--out "${out}": fills.arrow there is a directory, not a file the run can write`);
    expect(write).not.toHaveBeenCalled();
  });
});

const sample = join(DATA_DIR, "default-sample.arrow");

describe.skipIf(!existsSync(sample))("run --out of a replay of recorded market data", () => {
  const printed = (): string => vi.mocked(console.log).mock.calls.map((call) => String(call[0])).join("\n");

  it.each(["summary.json", "fills.arrow"])("refuses an --out whose %s is a directory before the run, writing nothing", async (name) => {
    const out = join(dir, `md-blocked-${name}`);
    mkdirSync(join(out, name), { recursive: true });
    vi.mocked(console.log).mockClear();
    await expect(runCommand("replay-market-maker", { out, progress: false, duration: "2" })).rejects.toThrow(`--out "${out}": ${name} there is a directory, not a file the run can write`);
    expect(readdirSync(out)).toEqual([name]);
    expect(printed()).not.toContain("shadowbook run replay-market-maker");
  });

  it("writes fills.arrow and summary.json, and nothing else", async () => {
    const out = join(dir, "md", "written");
    await runCommand("replay-market-maker", { out, progress: false, duration: "2" });
    expect(readdirSync(out).sort()).toEqual(["fills.arrow", "summary.json"]);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8"))).toMatchObject({ kind: "replay", scenario: "replay-market-maker" });
  });

  it("a write of summary.json that fails half-way leaves no summary.json, no staging directory and no --out it created", async () => {
    const out = join(dir, "md-full-disk");
    failing.suffix = "summary.json";
    await expect(runCommand("replay-market-maker", { out, progress: false, duration: "2" })).rejects.toThrow(noSpace(out));
    expect(existsSync(out)).toBe(false);
  });

  it("the same failure in an --out that existed leaves its files as they were, and no half summary.json", async () => {
    const out = join(dir, "md-full-disk-existing");
    mkdirSync(out);
    writeFileSync(join(out, "notes.txt"), "kept\n");
    failing.suffix = "summary.json";
    await expect(runCommand("replay-market-maker", { out, progress: false, duration: "2" })).rejects.toThrow(noSpace(out));
    expect(readdirSync(out)).toEqual(["notes.txt"]);
    expect(readdirSync(out).some((name) => name.startsWith(STAGING_PREFIX))).toBe(false);
  });
});

describe("run --out", () => {
  it("refuses an --out whose inputs.arrow is a directory before the run, writing nothing", async () => {
    const out = join(dir, "out-half");
    mkdirSync(join(out, "inputs.arrow"), { recursive: true });
    await expect(runCommand("default", { out, progress: false, duration: "1" })).rejects.toThrow(`--out "${out}": inputs.arrow there is a directory, not a file the run can write`);
    expect(readdirSync(out)).toEqual(["inputs.arrow"]);
  });

  it.each([
    ["an Arrow output", "executions.arrow"],
    ["the input log", "inputs.arrow"],
  ])("a write of %s streamed while the run runs that fails leaves nothing, and no --out it created", async (_, file) => {
    const out = join(dir, `run-full-disk-${file}`);
    failing.suffix = file;
    await expect(runCommand("default", { out, progress: false, duration: "1" })).rejects.toThrow(noSpace(out));
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("the same failure in an --out that existed leaves its files as they were", async () => {
    const out = join(dir, "run-full-disk-existing");
    mkdirSync(out);
    writeFileSync(join(out, "summary.json"), "a previous run's summary\n");
    failing.suffix = "depth.arrow";
    await expect(runCommand("default", { out, progress: false, duration: "1" })).rejects.toThrow(noSpace(out));
    expect(readdirSync(out)).toEqual(["summary.json"]);
    expect(readFileSync(join(out, "summary.json"), "utf8")).toBe("a previous run's summary\n");
  }, 60_000);

  it("writes every file of a run, and nothing else, and prints their list", async () => {
    const out = join(dir, "run", "default");
    vi.mocked(console.log).mockClear();
    await runCommand("default", { out, progress: false, duration: "2" });
    const expected = [...RUN_OUTPUT_FILES.map((name) => `${name}.arrow`), "inputs.arrow", "summary.json", "report.html"];
    expect(expected).toEqual(["executions.arrow", "busts.arrow", "orders.arrow", "ledger.arrow", "positions.arrow", "balances.arrow", "equity.arrow", "prices.arrow", "depth.arrow", "inputs.arrow", "summary.json", "report.html"]);
    expect(readdirSync(out).sort()).toEqual(expected.slice().sort());
    const printed = vi.mocked(console.log).mock.calls.map((call) => String(call[0]));
    expect(printed).toContain(`wrote ${expected.length} files to ${out}: ${expected.join(", ")}`);
  }, 60_000);
});
