/**
 * The progress bar of `shadowbook run` (src/cli/progress.ts): "a progress
 * bar on the virtual clock", on stderr.
 *
 *  - As a unit, over a fake stream: the share shown is the share of
 *    simulated time done (atMicros between startMicros and endMicros),
 *    whatever the wall time; it is capped at 100 %; the line shows the
 *    virtual time reached and events per second of wall time. Off a
 *    terminal it prints one line at each new tenth of the run; on a
 *    terminal it redraws one line (`\r`, a 30-character bar) and `done`
 *    ends it with a newline.
 *  - Driven by the runner (runScenario's onProgress), on a short run: the
 *    shares never go back, and the last report is 100 % at the end time.
 *  - The real CLI (`node bin/shadowbook.mjs run`, stderr a pipe): the
 *    lines reach stderr and end at 100 % at the run's end time; with
 *    `--no-progress` stderr gets none, and the run is the same.
 */
import { describe, expect, it } from "vitest";
import { fakeStream, terminalScreen } from "../helpers/fake-stream.ts";
import { shadowbook } from "./shadowbook-process.ts";
import { countProgress, progressBar } from "../../src/cli/progress.ts";
import { formatMicros, MICROS_PER_SECOND } from "../../src/core/time.ts";
import { runScenario, type Progress } from "../../src/sim/runner.ts";
import { DEFAULT_START_MS, defineScenario } from "../../src/sim/scenario.ts";
import { BASE } from "../sim/fixtures/fuzz-scenario.ts";

const START = DEFAULT_START_MS * 1_000;
const HOUR = 3_600 * MICROS_PER_SECOND;


/** Progress of a one-hour run at `share` of its virtual time. */
function at(share: number, wallSeconds: number, events = 1_000): Progress {
  return { atMicros: START + Math.round(share * HOUR), startMicros: START, endMicros: START + HOUR, events, wallSeconds };
}

/** The percentage of a progress line (`...  42%  ...`). */
function percentOf(line: string): number {
  const match = /\s(\d{1,3})%\s/.exec(line);
  if (match === null) throw new Error(`no percentage in ${JSON.stringify(line)}`);
  return Number(match[1]);
}

describe("progressBar off a terminal", () => {
  it("prints one line at each new tenth of virtual time, showing the virtual share and time", () => {
    const { stream, writes } = fakeStream(false);
    const bar = progressBar(stream);
    const shares = [0, 0.04, 0.09, 0.1, 0.13, 0.25, 0.26, 0.5, 0.55, 0.99, 1];
    for (const share of shares) bar.update(at(share, 5));
    bar.done();
    // New tenths at 0, 0.1, 0.25 (2), 0.5 (5), 0.99 (9), 1 (10).
    expect(writes).toHaveLength(6);
    expect(writes.every((line) => line.endsWith("\n") && !line.includes("\r"))).toBe(true);
    expect(writes.map(percentOf)).toEqual([0, 10, 25, 50, 99, 100]);
    expect(writes.map((line) => line.slice(0, 24))).toEqual([0, 0.1, 0.25, 0.5, 0.99, 1].map((share) => formatMicros(at(share, 5).atMicros)));
    expect(writes[5]).toContain("2026-01-01T01:00:00.000Z");
  });

  it("follows virtual time, not wall time", () => {
    // Wall time runs ahead of virtual time in one run and behind it in the other: the shares shown are the virtual ones.
    const fast = fakeStream(false);
    const slow = fakeStream(false);
    const fastBar = progressBar(fast.stream);
    const slowBar = progressBar(slow.stream);
    const shares = [0.05, 0.3, 0.3, 0.72, 1];
    shares.forEach((share, index) => {
      fastBar.update(at(share, 0.1 * (index + 1)));
      slowBar.update(at(share, 1_000 * (index + 1)));
    });
    expect(fast.writes.map(percentOf)).toEqual([5, 30, 72, 100]);
    expect(slow.writes.map(percentOf)).toEqual([5, 30, 72, 100]);
    // A run whose wall clock is nearly done but whose virtual clock is at a tenth shows 10 %.
    const { stream, writes } = fakeStream(false);
    progressBar(stream).update({ ...at(0.1, 3_600), wallSeconds: 3_600 });
    expect(writes.map(percentOf)).toEqual([10]);
  });

  it("shows events per second of wall time", () => {
    const { stream, writes } = fakeStream(false);
    const bar = progressBar(stream);
    bar.update(at(0.2, 2, 1_234_567));
    bar.update(at(0.4, 0, 10));
    expect(writes[0]).toContain("1,234,567 events  617,284 events/s");
    expect(writes[1]).toContain("10 events  0 events/s");
  });

  it("caps the share at 100 % and counts an empty run as done", () => {
    const past = fakeStream(false);
    progressBar(past.stream).update({ ...at(1, 1), atMicros: START + 2 * HOUR });
    expect(past.writes.map(percentOf)).toEqual([100]);
    const empty = fakeStream(false);
    progressBar(empty.stream).update({ atMicros: START, startMicros: START, endMicros: START, events: 0, wallSeconds: 0 });
    expect(empty.writes.map(percentOf)).toEqual([100]);
  });

  it("prints nothing at done", () => {
    const { stream, writes } = fakeStream(false);
    const bar = progressBar(stream);
    bar.update(at(0.5, 1));
    bar.done();
    expect(writes).toHaveLength(1);
  });
});

describe("progressBar on a terminal", () => {
  it("redraws one line with a bar filled to the virtual share, and ends it at done", () => {
    const { stream, writes } = fakeStream(true);
    const bar = progressBar(stream);
    const shares = [0, 0.02, 0.5, 0.51, 0.9, 1];
    for (const share of shares) bar.update(at(share, 7 - share));
    bar.done();
    expect(writes).toHaveLength(shares.length + 1);
    shares.forEach((share, index) => {
      const line = writes[index]!;
      const match = /^\r\[(#*)(\.*)\] (\S+)  +(\d+)%  /.exec(line);
      expect(match, line).not.toBeNull();
      expect(match![1]!.length + match![2]!.length).toBe(30);
      expect(match![1]!.length).toBe(Math.round(share * 30));
      expect(match![3]).toBe(formatMicros(at(share, 0).atMicros));
      expect(Number(match![4])).toBe(Math.round(share * 100));
      expect(line.includes("\n")).toBe(false);
    });
    expect(writes[shares.length - 1]).toMatch(/^\r\[#{30}\] 2026-01-01T01:00:00\.000Z  100%  /);
    expect(writes[shares.length]).toBe("\n");
  });

  it("leaves nothing of a longer line before it on screen when its line gets shorter", () => {
    const { stream, writes } = fakeStream(true);
    const bar = progressBar(stream);
    bar.update(at(0.5, 1, 1_234_567_890));
    const long = terminalScreen(writes)[0]!;
    // Fewer events in more wall time: the count and the rate lose digits.
    bar.update(at(0.6, 1_000, 12));
    const screen = terminalScreen(writes);
    expect(screen).toHaveLength(1);
    expect(screen[0]!.length).toBeLessThan(long.length);
    expect(screen[0]).toMatch(/  12 events  0 events\/s$/);
  });

  it("writes nothing at done when nothing was drawn", () => {
    const { stream, writes } = fakeStream(true);
    progressBar(stream).done();
    expect(writes).toEqual([]);
  });
});

describe("progressBar driven by the runner", () => {
  it("never goes back and finishes at 100 % at the end of virtual time", async () => {
    const { stream, writes } = fakeStream(true);
    const bar = progressBar(stream);
    const reports: Progress[] = [];
    const scenario = defineScenario({ ...BASE, durationSeconds: 3 });
    await runScenario(scenario, {
      progressEveryMs: 0,
      onProgress: (progress) => {
        reports.push(progress);
        bar.update(progress);
      },
    });
    bar.done();
    expect(reports.length).toBeGreaterThan(2);
    const percents = writes.slice(0, -1).map(percentOf);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    for (let index = 1; index < reports.length; index++) expect(reports[index]!.atMicros).toBeGreaterThanOrEqual(reports[index - 1]!.atMicros);
    const last = reports.at(-1)!;
    expect(last.atMicros).toBe(last.endMicros);
    expect(last.endMicros - last.startMicros).toBe(3 * MICROS_PER_SECOND);
    expect(writes.at(-2)).toMatch(/^\r\[#{30}\] 2026-01-01T00:00:03\.000Z  100%  \d+ events/);
    expect(writes.at(-1)).toBe("\n");
  });
});


const PROGRESS_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z +\d{1,3}% +[\d,]+ events +[\d,]+ events\/s$/;

describe("shadowbook run's progress output", () => {
  it("prints progress lines on stderr ending at 100 %, and none with --no-progress", async () => {
    const [shown, hidden] = await Promise.all([
      shadowbook(["run", "default", "--duration", "3"]),
      shadowbook(["run", "default", "--duration", "3", "--no-progress"]),
    ]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(hidden.status, hidden.stderr).toBe(0);
    const lines = shown.stderr.split("\n").filter((line) => line.length > 0);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(PROGRESS_LINE);
    expect(lines.at(-1)).toMatch(/^2026-01-01T00:00:03\.000Z +100% /);
    // The bar is on stderr only: stdout has the summary and no progress line.
    expect(shown.stdout.split("\n").some((line) => PROGRESS_LINE.test(line))).toBe(false);
    expect(hidden.stderr).not.toMatch(/%|events\/s/);
    expect(hidden.stderr.trim()).toBe("");
    // The same run either way.
    const fingerprint = (stdout: string) => /^fingerprint ([0-9a-f]{64})$/m.exec(stdout)?.[1];
    expect(fingerprint(hidden.stdout)).toBeDefined();
    expect(fingerprint(hidden.stdout)).toBe(fingerprint(shown.stdout));
  });
});

describe("countProgress (fuzz's seeds, sweep's runs)", () => {
  it("prints a line at each new tenth off a terminal, with the count and the detail", () => {
    const { stream, writes } = fakeStream(false);
    const progress = countProgress(20, "seeds", stream);
    for (let done = 1; done <= 20; done++) progress.update(done, `${done > 15 ? 1 : 0} failed`);
    progress.done();
    expect(writes).toEqual([1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20].map((done) => `${done}/20 seeds, ${done > 15 ? 1 : 0} failed\n`));
  });

  it("redraws one bar on a terminal and ends it at done", () => {
    const { stream, writes } = fakeStream(true);
    const progress = countProgress(4, "runs", stream);
    progress.update(1);
    progress.update(4);
    progress.done();
    expect(terminalScreen(writes)).toEqual([`[${"#".repeat(30)}] 4/4 runs`, ""]);
  });
});
