/**
 * `shadowbook replay` of a live log (an Arrow IPC stream) that does not end as
 * a closed log does: cut inside a batch (a crash, or a copy cut short),
 * without its end-of-stream marker (a server killed between commits), or with
 * bytes after the marker. Each replays the steps of its complete batches, as
 * a killed server's log must, and says how the log ends, how many steps were
 * read and that the rest is missing; the exit status stays 0 (every step read
 * matched), and the result carries `logEnd`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { readInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { runReplay } from "../helpers/replay-command.ts";

let dir: string;
/** A live-format log of three batches, closed (with its end-of-stream marker). */
let whole: Buffer;
/** Rows of the first two batches. */
let firstTwo: number;
let rows: number;
/** Where the third batch's message starts. */
let thirdAt: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-log-end-"));
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 5, observers: [recorder] });
  const path = join(dir, "run.arrow");
  recorder.write(path);
  const table = tableFromIPC(readFileSync(path));
  rows = table.numRows;
  const third = Math.floor(rows / 3);
  const parts = [table.slice(0, third), table.slice(third, 2 * third), table.slice(2 * third)];
  whole = Buffer.from(tableToIPC(new Table(parts.flatMap((part) => part.batches)), "stream"));
  firstTwo = 2 * third;
  // A stream of the first two parts ends (before its marker) where the third batch starts in the whole one.
  thirdAt = tableToIPC(new Table(parts.slice(0, 2).flatMap((part) => part.batches)), "stream").length - 8;
  expect(whole.readInt32LE(thirdAt)).toBe(-1);
}, 120_000);

afterAll(() => {
  vi.restoreAllMocks();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Runs `shadowbook replay <path>`; returns its lines, its result and the exit status it set. */
const replay = runReplay;

describe("replay of a live log that does not end as a closed one", () => {
  it("a closed log: every step, no warning", async () => {
    const path = file("closed.arrow", whole);
    expect(readInputLog(path).end).toBeUndefined();
    const { lines, result, exitCode } = await replay(path);
    expect(result.steps).toBe(rows);
    expect(result.logEnd).toBeUndefined();
    expect(lines.join("\n")).not.toMatch(/warning/);
    expect(lines[1]).toMatch(/steps replayed in [\d.]+ s, every fingerprint matched$/);
    expect(exitCode).toBeUndefined();
  });

  it("cut inside its last batch: the complete batches replay, and the command says the log is truncated and the rest is missing", async () => {
    const path = file("cut.arrow", whole.subarray(0, thirdAt + 100));
    const log = readInputLog(path);
    expect(log.steps.length).toBe(firstTwo);
    expect(log.end).toEqual({ kind: "cut", fileBytes: thirdAt + 100, readBytes: thirdAt });
    const { lines, result, exitCode } = await replay(path);
    expect(result.steps).toBe(firstTwo);
    expect(result.diverged).toBe(false);
    expect(result.logEnd?.kind).toBe("cut");
    expect(lines[1]).toBe(
      `  warning: the log is truncated: its last 100 of ${(thirdAt + 100).toLocaleString("en-US")} bytes are not a complete record batch (a write cut short by a crash, or a copy cut short); the ${firstTwo} steps before them were read, the steps after them are missing`,
    );
    expect(lines[2]).toMatch(new RegExp(`^  ${firstTwo} steps replayed in [\\d.]+ s, every fingerprint matched \\(of a log cut short: see the warning above\\)$`));
    expect(exitCode).toBeUndefined();
  });

  it("cut right after a batch, without the end-of-stream marker (a server killed between commits): says the marker is missing", async () => {
    const path = file("unclosed.arrow", whole.subarray(0, thirdAt));
    expect(readInputLog(path).end).toEqual({ kind: "unclosed", fileBytes: thirdAt, readBytes: thirdAt });
    const { lines, result, exitCode } = await replay(path);
    expect(result.steps).toBe(firstTwo);
    expect(lines[1]).toBe(`  warning: the log has no end-of-stream marker: its server did not close it (killed, or still writing it); the ${firstTwo} steps of its complete batches were read, any logged after them are missing`);
    expect(lines[2]).toMatch(/every fingerprint matched \(of a log cut short: see the warning above\)$/);
    expect(exitCode).toBeUndefined();
    // The whole log without its marker: every step, still said.
    expect(readInputLog(file("unclosed-whole.arrow", whole.subarray(0, whole.length - 8))).end?.kind).toBe("unclosed");
  });

  it("zeros after a continuation marker (what a crash leaves of a message whose first bytes alone were written): a cut, not a closed log", () => {
    const crashed = Buffer.concat([whole.subarray(0, thirdAt + 4), Buffer.alloc(4096)]);
    const log = readInputLog(file("zero-tail.arrow", crashed));
    expect(log.steps.length).toBe(firstTwo);
    expect(log.end).toEqual({ kind: "cut", fileBytes: crashed.length, readBytes: thirdAt });
  });

  it("the state file says how the log ends: null for a closed log; kind, bytes, steps read and the warning's text for one cut short", async () => {
    const closedOut = join(dir, "state-closed.json");
    await replay(file("closed-state.arrow", whole), { stateOut: closedOut });
    const closed = JSON.parse(readFileSync(closedOut, "utf8")) as Record<string, unknown>;
    expect(closed["logEnd"]).toBeNull();
    expect(Object.keys(closed)).toEqual(["log", "scenario", "seed", "steps", "fingerprint", "logEnd", "state"]);

    const cutOut = join(dir, "state-cut.json");
    const cutPath = file("cut-state.arrow", whole.subarray(0, thirdAt + 100));
    const { lines } = await replay(cutPath, { until: "2030-01-01T00:00:00Z", stateOut: cutOut });
    const cut = JSON.parse(readFileSync(cutOut, "utf8")) as Record<string, unknown>;
    expect(cut["steps"]).toBe(firstTwo);
    expect(cut["logEnd"]).toEqual({ kind: "cut", fileBytes: thirdAt + 100, readBytes: thirdAt, stepsRead: firstTwo, message: lines[1]!.replace(/^  warning: /, "") });
    expect(cut["logEnd"]).toMatchObject({ message: expect.stringMatching(/^the log is truncated: its last 100 of [\d,]+ bytes are not a complete record batch/) });

    const unclosedOut = join(dir, "state-unclosed.json");
    await replay(file("unclosed-state.arrow", whole.subarray(0, thirdAt)), { stateOut: unclosedOut });
    expect(JSON.parse(readFileSync(unclosedOut, "utf8"))["logEnd"]).toMatchObject({ kind: "unclosed", stepsRead: firstTwo, message: expect.stringMatching(/^the log has no end-of-stream marker/) });
  });

  it("bytes after the end-of-stream marker: every step replays, and the command says the extra bytes were not read", async () => {
    const path = file("trailing.arrow", Buffer.concat([whole, Buffer.from("garbage!")]));
    expect(readInputLog(path).end).toEqual({ kind: "trailing", fileBytes: whole.length + 8, readBytes: whole.length });
    const { lines, result, exitCode } = await replay(path);
    expect(result.steps).toBe(rows);
    expect(lines[1]).toBe(`  warning: the log has 8 bytes after its end-of-stream marker (of ${(whole.length + 8).toLocaleString("en-US")}): not part of the log, they were not read; its ${rows.toLocaleString("en-US")} steps were read`);
    expect(lines[2]).toMatch(/steps replayed in [\d.]+ s, every fingerprint matched$/);
    expect(exitCode).toBeUndefined();
  });
});
