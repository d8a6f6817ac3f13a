/**
 * The progress of `shadowbook replay` (src/cli/progress.ts replayProgress):
 * silent while a replay is short, then the check of the log (steps read so
 * far), then the steps replayed of the log's,
 * the virtual time reached and steps per second, on stderr; driven by
 * replayInputLog's onProgress every PROGRESS_EVERY steps; `--no-progress`
 * turns it off. (Whether a real replay passes the quiet time depends on the
 * machine: the units below drive the clock themselves.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { CHECK_LINE_SECONDS, REPLAY_QUIET_SECONDS, replayProgress } from "../../src/cli/progress.ts";
import { replayCommand } from "../../src/cli/replay.ts";
import { formatMicros } from "../../src/core/time.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { openInputLog, PROGRESS_EVERY, readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fakeStream, terminalScreen } from "../helpers/fake-stream.ts";


const T0 = 1_767_225_600_000_000;

describe("replayProgress", () => {
  it("is silent for its first seconds, then prints a line per tenth of the steps replayed off a terminal", () => {
    let seconds = 100;
    const { stream, writes } = fakeStream(false);
    const bar = replayProgress(stream, () => seconds);
    bar.checked(1_024, T0);
    bar.replaying(10_000);
    bar.replayed(500, T0);
    seconds += REPLAY_QUIET_SECONDS - 0.5;
    bar.replayed(1_500, T0 + 1);
    expect(writes, "a replay shorter than the quiet time prints nothing").toEqual([]);
    seconds = 100 + 4;
    bar.replayed(2_000, T0 + 2_000_000);
    bar.replayed(2_500, T0 + 2_500_000);
    bar.replayed(3_000, T0 + 3_000_000);
    bar.replayed(10_000, T0 + 9_000_000);
    bar.done();
    expect(writes).toEqual([
      `step 2,000 of 10,000   20%  ${formatMicros(T0 + 2_000_000)}  500 steps/s\n`,
      `step 3,000 of 10,000   30%  ${formatMicros(T0 + 3_000_000)}  750 steps/s\n`,
      `step 10,000 of 10,000  100%  ${formatMicros(T0 + 9_000_000)}  2,500 steps/s\n`,
    ]);
  });

  it("says how the check of a long log goes, a line every CHECK_LINE_SECONDS off a terminal; the replay's rate counts from its own start", () => {
    let seconds = 0;
    const { stream, writes } = fakeStream(false);
    const bar = replayProgress(stream, () => seconds);
    seconds = 1;
    bar.checked(1_000, T0);
    seconds = REPLAY_QUIET_SECONDS;
    bar.checked(2_000, T0 + 1_000_000);
    seconds += CHECK_LINE_SECONDS - 1;
    bar.checked(3_000, T0 + 2_000_000);
    seconds += 1;
    bar.checked(4_000, T0 + 3_000_000);
    bar.replaying(4_000);
    seconds += 4;
    bar.replayed(1_000, T0);
    bar.done();
    expect(writes).toEqual([
      `checking the log: step 2,000  ${formatMicros(T0 + 1_000_000)}  1,000 steps/s\n`,
      `checking the log: step 4,000  ${formatMicros(T0 + 3_000_000)}  333 steps/s\n`,
      `step 1,000 of 4,000   25%  ${formatMicros(T0)}  250 steps/s\n`,
    ]);
  });

  it("redraws a line on a terminal: the check's, kept when the replay's bar starts below it, which done ends", () => {
    let seconds = 0;
    const { stream, writes } = fakeStream(true);
    const bar = replayProgress(stream, () => seconds);
    seconds = 10;
    bar.checked(2, T0);
    bar.replaying(4);
    bar.replayed(1, T0);
    bar.replayed(4, T0);
    bar.done();
    expect(writes).toEqual([
      `\rchecking the log: step 2  ${formatMicros(T0)}  0 steps/s`,
      "\n",
      `\r[${"#".repeat(8)}${".".repeat(22)}] step 1 of 4   25%  ${formatMicros(T0)}  0 steps/s`,
      `\r[${"#".repeat(30)}] step 4 of 4  100%  ${formatMicros(T0)}  0 steps/s`,
      "\n",
    ]);
    // A check that ends in a refusal: done ends its line.
    const refused = fakeStream(true);
    const checking = replayProgress(refused.stream, () => seconds++ * 10);
    checking.checked(1_024, T0);
    checking.done();
    expect(refused.writes).toEqual([`\rchecking the log: step 1,024  ${formatMicros(T0)}  102 steps/s`, "\n"]);
    // A replay that stayed quiet writes nothing.
    const quiet = fakeStream(true);
    const short = replayProgress(quiet.stream, () => 0);
    short.checked(4, T0);
    short.replaying(4);
    short.replayed(4, T0);
    short.done();
    expect(quiet.writes).toEqual([]);
  });

  it("leaves nothing of a longer line before it on screen, in the check and in the replay", () => {
    let seconds = 0;
    const { stream, writes } = fakeStream(true);
    const bar = replayProgress(stream, () => seconds);
    seconds = 3;
    bar.checked(3_000_000, T0);
    seconds = 3_000;
    bar.checked(3_000_001, T0);
    expect(terminalScreen(writes)).toEqual([`checking the log: step 3,000,001  ${formatMicros(T0)}  1,000 steps/s`]);
    bar.replaying(3_000_001);
    seconds = 3_001;
    bar.replayed(2_000_000, T0);
    seconds = 203_000;
    bar.replayed(2_000_001, T0);
    bar.done();
    expect(terminalScreen(writes)[1]).toBe(`[${"#".repeat(20)}${".".repeat(10)}] step 2,000,001 of 3,000,001   67%  ${formatMicros(T0)}  10 steps/s`);
  });
});

describe("replay's progress", () => {
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-progress-"));
    const recorder = new InputLogRecorder();
    await runScenario(scenario, { durationSeconds: 180, observers: [recorder] });
    path = join(dir, "inputs.arrow");
    recorder.write(path);
  }, 120_000);

  afterAll(() => {
    vi.restoreAllMocks();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("replayInputLog and openInputLog report every PROGRESS_EVERY steps, with the step reached", () => {
    const log = readInputLog(path);
    expect(log.stepCount).toBeGreaterThan(2 * PROGRESS_EVERY);
    const reports: [number, number][] = [];
    const result = replayInputLog(log, { onProgress: (replayed, last) => reports.push([replayed, last.index]) });
    expect(result.divergence).toBeUndefined();
    const expected = Array.from({ length: Math.floor(log.stepCount / PROGRESS_EVERY) }, (_, i): [number, number] => [(i + 1) * PROGRESS_EVERY, (i + 1) * PROGRESS_EVERY - 1]);
    expect(reports).toEqual(expected);
    const checks: [number, number][] = [];
    expect(openInputLog(path, { onProgress: (checked, last) => checks.push([checked, last.index]) }).stepCount).toBe(log.stepCount);
    expect(checks, "openInputLog's check reports the same way").toEqual(expected);
  });

  it("the command writes nothing on stderr with --no-progress, and replays the same", async () => {
    const errors: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    let shown: Awaited<ReturnType<typeof replayCommand>>;
    let hidden: Awaited<ReturnType<typeof replayCommand>>;
    try {
      shown = await replayCommand(path, {});
      const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
        errors.push(String(chunk));
        return true;
      });
      try {
        hidden = await replayCommand(path, { progress: false });
      } finally {
        write.mockRestore();
      }
    } finally {
      log.mockRestore();
    }
    expect(errors).toEqual([]);
    expect(hidden.steps).toBe(shown.steps);
    expect(hidden.fingerprint).toBe(shown.fingerprint);
  });
});
