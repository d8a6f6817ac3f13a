/**
 * runReplayScenario's handling of the scenario's recording file: refusals
 * that name `marketData.recording`, and a recording cut short (no
 * end-of-stream marker), which replays its complete batches and says so, or
 * is refused when it holds no complete batch.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA_DIR, formatReplaySummary, recordingName, replaySummaryJson, runReplayScenario } from "../../src/backtest/run.ts";
import { MdRecordingError, MdRecordingWriter, readMdRecording } from "../../src/record/md-recording.ts";
import type { Scenario } from "../../src/sim/scenario.ts";
import replayScenario from "../../scenarios/replay-market-maker.ts";

const dir = mkdtempSync(join(tmpdir(), "replay-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLE = join(DATA_DIR, "default-sample.arrow");
const withRecording = (recording: string): Scenario => ({ ...replayScenario, marketData: { ...replayScenario.marketData!, recording } });
const SHORT = { durationSeconds: 5 };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MdRecordingError);
    return (error as Error).message;
  }
  throw new Error("ran, not refused");
}

/** The sample rewritten in batches of `batchRows` rows, left unclosed (a killed recorder): the path and each batch's end. */
function unclosedSample(name: string, batchRows: number): { path: string; ends: number[] } {
  const sample = readMdRecording(SAMPLE);
  const path = join(dir, name);
  const writer = new MdRecordingWriter(path, sample, { batchRows });
  const ends: number[] = [];
  for (let i = 0; i < sample.length; i++) {
    writer.append(sample.recvMicros(i), sample.kind(i), sample.channel(i), sample.timestampMs(i), sample.frame(i));
    if (writer.rows % batchRows === 0) ends.push(writer.bytesWritten);
  }
  writer.flush();
  ends.push(writer.bytesWritten);
  return { path, ends };
}

describe("runReplayScenario and its recording file", () => {
  it("names the recording as the scenario does, with the path it was looked for at", () => {
    expect(recordingName("/abs/eth.arrow")).toBe(`marketData.recording "/abs/eth.arrow"`);
    expect(recordingName("eth.arrow")).toBe(`marketData.recording "eth.arrow" (${join(DATA_DIR, "eth.arrow")})`);
    expect(refusal(() => runReplayScenario(withRecording("no-such-recording.arrow"), SHORT))).toBe(
      `marketData.recording "no-such-recording.arrow" (${join(DATA_DIR, "no-such-recording.arrow")}) does not exist`,
    );
    const folder = join(dir, "a-directory");
    mkdirSync(folder);
    expect(refusal(() => runReplayScenario(withRecording(folder), SHORT))).toBe(`marketData.recording "${folder}" is a directory, not a file`);
    const empty = join(dir, "empty.arrow");
    writeFileSync(empty, "");
    expect(refusal(() => runReplayScenario(withRecording(empty), SHORT))).toBe(`marketData.recording "${empty}" is not a market-data recording: the file is empty`);
  });

  it("refuses a recording cut before its first complete batch: there is nothing to replay", () => {
    const bytes = readFileSync(SAMPLE);
    const cut = join(dir, "md-cut.arrow");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(refusal(() => runReplayScenario(withRecording(cut), SHORT))).toMatch(
      new RegExp(`^marketData\\.recording "${cut}" is truncated: it ends inside a record batch \\(its last [\\d,]+ bytes are incomplete\\), leaving no complete row, so there is nothing to replay$`),
    );
  });

  it("replays the complete batches of a recording cut mid-batch, and says it was truncated", () => {
    const { path, ends } = unclosedSample("cut-mid-batch.arrow", 1_000);
    expect(ends.length).toBeGreaterThan(3);
    const bytes = readFileSync(path);
    // Cut in the middle of the third batch: the first two (2,000 rows) are read.
    writeFileSync(path, bytes.subarray(0, (ends[1]! + ends[2]!) >> 1));
    const run = runReplayScenario(withRecording(path), SHORT);
    expect(run.decoded.frames).toBeGreaterThan(0);
    expect(run.truncated).toMatch(new RegExp(`^marketData\\.recording "${path}" is truncated: it ends inside a record batch \\(its last [\\d,]+ bytes are incomplete\\), leaving 2,000 complete rows$`));
    expect(formatReplaySummary(run)).toContain(`  warning     ${run.truncated}; only those are replayed`);
    expect(replaySummaryJson(run)["truncated"]).toBe(run.truncated);
  });

  it("says a recording without its end-of-stream marker is incomplete; a closed one runs with no warning", () => {
    const bytes = readFileSync(SAMPLE);
    const unclosed = join(dir, "no-end-marker.arrow");
    writeFileSync(unclosed, bytes.subarray(0, bytes.length - 8));
    const run = runReplayScenario(withRecording(unclosed), SHORT);
    expect(run.truncated).toMatch(/is incomplete: it has no end-of-stream marker \(its recorder was not closed\), leaving [\d,]+ complete rows$/);
    const closed = runReplayScenario(replayScenario, SHORT);
    expect(closed.truncated).toBeUndefined();
    expect(formatReplaySummary(closed)).not.toContain("warning");
    expect("truncated" in replaySummaryJson(closed)).toBe(false);
    // Same rows, same replay.
    expect(run.result.total).toEqual(closed.result.total);
  });

  it("says bytes after a recording's end-of-stream marker were not read, and replays all its rows", () => {
    const bytes = readFileSync(SAMPLE);
    const path = join(dir, "trailing-bytes.arrow");
    writeFileSync(path, Buffer.concat([bytes, Buffer.from("appended by mistake\n")]));
    const run = runReplayScenario(withRecording(path), SHORT);
    expect(run.truncated).toBeUndefined();
    expect(run.trailing).toBe(
      `marketData.recording "${path}" has 20 bytes after its end-of-stream marker (of ${(bytes.length + 20).toLocaleString("en-US")}): not part of the recording, they were not read; its ${readMdRecording(SAMPLE).length.toLocaleString("en-US")} rows were read`,
    );
    expect(formatReplaySummary(run)).toContain(`  warning     ${run.trailing}\n`);
    expect(replaySummaryJson(run)["trailing"]).toBe(run.trailing);
    const closed = runReplayScenario(replayScenario, SHORT);
    expect("trailing" in replaySummaryJson(closed)).toBe(false);
    expect(run.result.total).toEqual(closed.result.total);
  });
});
