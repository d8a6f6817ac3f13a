/**
 * A live log (an Arrow IPC stream) is replayed without reading it whole: the
 * walk reads each message's lengths and metadata through a window, and the
 * steps are decoded a chunk at a time, once to check them and count them,
 * once to replay them (src/record/replay.ts openInputLog). So a log past
 * the 2 GiB one read can hold replays, and a replay of a log of more than
 * KEPT_STEPS_MAX steps holds one batch of steps, not the log (the tests
 * here set `keptStepsMax: 0` and `wholeReadMax: 0` to read their small logs so).
 */
import { closeSync, ftruncateSync, openSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { replayCommand } from "../../src/cli/replay.ts";
import { CHUNK_BYTES } from "../../src/record/file-bytes.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { openInputLog, readInputLog, replayInputLog, type LoggedStep } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { runReplay } from "../helpers/replay-command.ts";
import { openFileCount, scratchDirectory, type ScratchDirectory } from "../helpers/scratch-files.ts";

let scratch: ScratchDirectory;
/** A simulated run's log (an Arrow IPC file). */
let filePath: string;
/** The same steps as a live log: an Arrow IPC stream of several batches, closed. */
let stream: Buffer;
let rows: number;

beforeAll(async () => {
  scratch = scratchDirectory("shadowbook-replay-large-");
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 20, observers: [recorder] });
  filePath = join(scratch.path, "run.arrow");
  recorder.write(filePath);
  const table = tableFromIPC(readFileSync(filePath));
  rows = table.numRows;
  // Batches of 97 rows, as a live server's group commits cut them (the stream is larger than one decode chunk).
  const parts: Table[] = [];
  for (let from = 0; from < rows; from += 97) parts.push(table.slice(from, Math.min(rows, from + 97)));
  stream = Buffer.from(tableToIPC(new Table(parts.flatMap((part) => part.batches)), "stream"));
}, 120_000);

afterAll(() => {
  vi.restoreAllMocks();
  scratch?.remove();
});

describe("a live log read a batch at a time", () => {
  it("gives the steps a whole read gives, on every iteration, and replays to the same fingerprint", () => {
    const path = scratch.file("live.arrow", stream);
    const whole = readInputLog(path);
    // Chunks of 1,000 bytes: messages straddle them, and chunk boundaries fall inside lengths, metadata and bodies.
    const streamed = openInputLog(path, { chunkBytes: 1_000, keptStepsMax: 0, wholeReadMax: 0 });
    expect(stream.length).toBeGreaterThan(20 * 1_000);
    expect(streamed.stepCount).toBe(rows);
    expect(whole.stepCount).toBe(rows);
    const first: LoggedStep[] = [...streamed.steps];
    expect(first).toEqual(whole.steps);
    expect([...streamed.steps], "a second iteration reads the file again").toEqual(first);
    expect(Array.isArray(streamed.steps)).toBe(false);
    const kept = openInputLog(path);
    expect(Array.isArray(kept.steps), "a log of few steps is kept as checked, not read twice").toBe(true);
    expect(kept.steps).toEqual(whole.steps);
    expect(openInputLog(path, { keptStepsMax: rows - 1 }).steps, "one step more than kept: read again").not.toBeInstanceOf(Array);
    expect(openInputLog(path, { keptStepsMax: rows }).steps).toBeInstanceOf(Array);
    expect(first.map((step) => step.index)).toEqual(Array.from({ length: rows }, (_, i) => i));
    const fromFile = replayInputLog(readInputLog(filePath));
    const result = replayInputLog(streamed);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(rows);
    expect(result.fingerprint).toBe(fromFile.fingerprint);
  });

  it("closes the file after a whole iteration, one broken off (replay --until), and a refusal", () => {
    const path = scratch.file("fds.arrow", stream);
    const before = openFileCount();
    const log = openInputLog(path, { keptStepsMax: 0, wholeReadMax: 0 });
    expect(openFileCount()).toBe(before);
    for (const step of log.steps) if (step.index === 5) break;
    expect(openFileCount()).toBe(before);
    const until = log.stepCount > 10 ? [...log.steps][10]!.timeMicros : 0;
    expect(replayInputLog(log, { untilMicros: until }).steps).toBeLessThan(rows);
    expect(openFileCount()).toBe(before);
    const damaged = scratch.file("fds-damaged.arrow", stream.subarray(0, 4));
    expect(() => openInputLog(damaged)).toThrow(/truncated/);
    expect(openFileCount()).toBe(before);
  });

  it("refuses a damaged value in the last batch before any step runs", async () => {
    // The last step's fingerprint is all 64 digits, the last text of the last batch: damage one of them.
    // It ends the last batch's body, before the body's zero padding and the 8-byte end-of-stream marker.
    const damaged = Buffer.from(stream);
    let end = stream.length - 8;
    while (damaged[end - 1] === 0) end--;
    expect(damaged.toString("latin1", end - 64, end)).toMatch(/^[0-9a-f]{64}$/);
    damaged[end - 54] = "g".charCodeAt(0);
    const path = scratch.file("damaged-last.arrow", damaged);
    expect(() => openInputLog(path)).toThrow(new RegExp(`is corrupt: the fingerprint of step ${rows - 1} is "[0-9a-f]{10}g`));
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    try {
      await expect(replayCommand(path, {})).rejects.toThrow(/is corrupt/);
    } finally {
      spy.mockRestore();
    }
    expect(lines, "nothing replayed, nothing printed").toEqual([]);
  });

  it("refuses a file that shrank between the check and the replay", () => {
    const path = scratch.file("shrinks.arrow", stream);
    const log = openInputLog(path, { keptStepsMax: 0, wholeReadMax: 0 });
    truncateSync(path, Math.floor(stream.length / 2));
    expect(() => replayInputLog(log)).toThrow(/changed while being read: it ended at byte [\d,]+ while being read, and was [\d,]+ bytes when opened/);
  });
});

describe("a live log past 2 GiB", () => {
  it("replays: its complete batches, the zeros a crash left after them named as a cut", async () => {
    // A server killed between commits, on a file system that had allocated the file ahead: no end-of-stream
    // marker, zeros up to 2 GiB and beyond (sparse: no disk used). Node cannot read such a file into one Buffer.
    const unclosed = stream.subarray(0, stream.length - 8);
    const path = scratch.file("past-2-gib.arrow", unclosed);
    const size = 2 * 1024 ** 3 + 3 * CHUNK_BYTES + 5;
    const fd = openSync(path, "r+");
    ftruncateSync(fd, size);
    closeSync(fd);
    const { lines, result, exitCode } = await runReplay(path);
    expect(exitCode).toBeUndefined();
    expect(result.diverged).toBe(false);
    expect(result.steps).toBe(rows);
    expect(result.fingerprint).toBe(replayInputLog(readInputLog(filePath)).fingerprint);
    expect(result.logEnd).toEqual({ kind: "cut", fileBytes: size, readBytes: unclosed.length });
    expect(lines.join("\n")).toMatch(new RegExp(`warning: the log is truncated: its last ${(size - unclosed.length).toLocaleString("en-US")} of ${size.toLocaleString("en-US")} bytes are not a complete record batch`));
  }, 60_000);
});
