/**
 * The summary line of a market-data backtest (`shadowbook run` on a
 * scenario whose market is a recording, src/backtest/run.ts
 * formatReplaySummary) over a recording with no market channel (only
 * /v2/assetOraclePrices): it says there are no market channels, rather than
 * printing an empty market list (`r7.arrow: ; 0 events (0 frames)`). A
 * recording with markets keeps its line.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import replayScenario from "../../scenarios/replay-market-maker.ts";
import { formatReplaySummary, runReplayScenario } from "../../src/backtest/run.ts";
import { MdRecordingWriter } from "../../src/record/md-recording.ts";
import type { Scenario } from "../../src/sim/scenario.ts";

const dir = mkdtempSync(join(tmpdir(), "shadowbook-run-recording-s29-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORACLE = "/v2/assetOraclePrices";
const START = 1_767_225_600_000_000;
const withRecording = (recording: string): Scenario => ({ ...replayScenario, marketData: { ...replayScenario.marketData!, recording } });

describe("the backtest summary of a recording without market channels", () => {
  it("says there are no market channels: no empty list, no `: ;`", () => {
    const path = join(dir, "r7.arrow");
    const writer = new MdRecordingWriter(path, { source: "ws://127.0.0.1:8080/ws", channels: [ORACLE], startMicros: START });
    writer.append(START, "subscribed", ORACLE, null, Buffer.from(`{"type":"subscribed","channel":"${ORACLE}"}`));
    for (let i = 1; i <= 7; i++) writer.append(START + i * 200_000, "data", ORACLE, START / 1_000 + i * 200, Buffer.from(`{"type":"channel_data","channel":"${ORACLE}","timestamp":${START / 1_000 + i * 200},"data":[]}`));
    writer.close();
    const run = runReplayScenario(withRecording(path), { durationSeconds: 5 });
    const lines = formatReplaySummary(run).split("\n");
    expect(lines[0]).toBe(`  recording   ${path}: no market channels, nothing to trade against (8 rows of other channels skipped); 0 events, 1.4 s replayed`);
    expect(lines[0]).not.toContain(": ;");
  });

  it("a recording with markets keeps its list of markets and frames", () => {
    const run = runReplayScenario(replayScenario, { durationSeconds: 5 });
    const first = formatReplaySummary(run).split("\n")[0]!;
    expect(first).toMatch(new RegExp(`^  recording   ${replayScenario.marketData!.recording.replace(/\./g, "\\.")}: [A-Z]+(?:, [A-Z]+)*; [\\d,]+ events \\([\\d,]+ frames\\), [\\d.]+ s replayed$`));
  });
});
