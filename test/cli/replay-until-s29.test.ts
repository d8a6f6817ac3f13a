/**
 * `shadowbook replay LOG --until T` with T before the log's first step
 * (Unix seconds taken for ms, or a date before the run) is refused once the
 * log is read, before the replay: it would replay nothing, say "every
 * fingerprint matched" and write the log's start as the state. The refusal
 * names --until, the value, the time it reads as and the first step's time,
 * and says when the value looks like Unix seconds. `--state-out` in a
 * directory that does not exist, under a file, or naming a directory is
 * refused before the log is read (it used to fail with a raw ENOENT after
 * the whole replay).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMicros } from "../../src/core/time.ts";
import { readInputLog } from "../../src/record/replay.ts";
import { runReplay } from "../helpers/replay-command.ts";
import { writeRunLog } from "../helpers/run-log.ts";

let dir: string;
let path: string;
/** The first step's time, as the CLI prints it. */
let first: string;
let firstMicros: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-until-s29-"));
  path = join(dir, "inputs.arrow");
  await writeRunLog(path, 2);
  firstMicros = readInputLog(path).steps[0]!.timeMicros;
  first = formatMicros(firstMicros);
}, 120_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Runs the command, expecting a refusal: its message; nothing printed, no exit status set. */
async function refusal(options: Parameters<typeof runReplay>[1]): Promise<string> {
  const lines: string[] = [];
  try {
    const ran = await runReplay(path, options);
    lines.push(...ran.lines);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`replayed, not refused: ${lines.join("\n")}`);
}

describe("replay --until before the log's first step", () => {
  it("Unix seconds mistaken for ms: refused, naming the value, both times, and that it looks like seconds; no state written", async () => {
    expect(await refusal({ until: "1767225650" })).toBe(
      `--until "1767225650" (1970-01-21T10:53:45.650Z) is before the log's first step (${first}): no step would be replayed; it looks like Unix seconds (as seconds, 2026-01-01T00:00:50.000Z), but --until takes Unix ms: 1767225650000`,
    );
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("an ISO-8601 time before the run: refused without the seconds note", async () => {
    expect(await refusal({ until: "2025-01-01T00:00:00Z" })).toBe(`--until "2025-01-01T00:00:00Z" (2025-01-01T00:00:00.000Z) is before the log's first step (${first}): no step would be replayed`);
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("small digits (before 2000 as seconds too) are not said to look like seconds", async () => {
    expect(await refusal({ until: "5000" })).toBe(`--until "5000" (1970-01-01T00:00:05.000Z) is before the log's first step (${first}): no step would be replayed`);
  });

  it("with --serve too: refused before anything is served or written", async () => {
    expect(await refusal({ until: "1767225650", serve: true, port: "0" })).toMatch(/^--until "1767225650" \(1970-01-21T10:53:45\.650Z\) is before the log's first step/);
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("the first step's own time replays it (the control)", async () => {
    const out = join(dir, "first.json");
    const { result, exitCode } = await runReplay(path, { until: String(firstMicros / 1_000), stateOut: out });
    expect(result.steps).toBeGreaterThanOrEqual(1);
    expect(existsSync(out)).toBe(true);
    expect(exitCode).toBeUndefined();
    rmSync(out);
  });
});

describe("replay --state-out is checked before the log is read", () => {
  it("in a directory that does not exist: refused naming --state-out and the directory", async () => {
    const out = join(dir, "that", "does", "not", "exist", "st.json");
    expect(await refusal({ until: String(firstMicros / 1_000 + 1_000), stateOut: out })).toBe(`--state-out "${out}": its directory "${join(dir, "that", "does", "not", "exist")}" does not exist`);
    expect(await refusal({ stateOut: out })).toBe(`--state-out "${out}": its directory "${join(dir, "that", "does", "not", "exist")}" does not exist`);
  });

  it("a directory: refused", async () => {
    const folder = join(dir, "a-directory");
    mkdirSync(folder);
    try {
      expect(await refusal({ until: String(firstMicros / 1_000 + 1_000), stateOut: folder })).toBe(`--state-out "${folder}" is a directory, not a file to write the state to`);
    } finally {
      rmSync(folder, { recursive: true });
    }
  });

  it("under a file: refused", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    try {
      expect(await refusal({ stateOut: join(file, "st.json") })).toBe(`--state-out "${join(file, "st.json")}": "${file}" is a file, not a directory`);
    } finally {
      rmSync(file);
    }
  });

  it("empty: refused", async () => {
    expect(await refusal({ stateOut: "" })).toBe(`--state-out "" is empty: give the file to write the state to`);
  });
});
