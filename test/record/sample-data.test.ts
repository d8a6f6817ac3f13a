/**
 * The market data of the default scenario recorded inside a simulation
 * (src/record/md-sim-recorder.ts): deterministic to the byte, frames in the
 * live server's serialization and valid against the spec's schemas, and the
 * shipped sample data/default-sample.arrow reads with the expected channels.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { readMdRecording, type MdRecording } from "../../src/record/md-recording.ts";
import { recordScenarioMarketData, SAMPLE_DURATION_SECONDS, SAMPLE_PATH } from "../../src/record/md-sim-recorder.ts";
import { parseChannel } from "../../src/spec/channel-parse.ts";
import { CHANNELS } from "../../src/spec/channels.ts";
import { StreamChannelData, StreamSubscribed } from "../../src/spec/stream-envelopes.ts";

const dir = mkdtempSync(join(tmpdir(), "sample-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHORT_SECONDS = 30;
const EXPECTED_CHANNELS = [
  "/v2/market/ETHRUSDPERP/depth",
  "/v2/market/BTCRUSDPERP/depth",
  "/v2/market/WETHRUSD/depth",
  "/v2/market/ETHRUSDPERP/perpExecutions",
  "/v2/market/BTCRUSDPERP/perpExecutions",
  "/v2/market/WETHRUSD/spotExecutions",
  "/v2/assetOraclePrices",
  "/v2/perpMarkets/summary",
  "/v2/spotMarkets/summary",
];

/** Rows per channel and kind, and checks that hold for any recording of a run. */
function survey(recording: MdRecording): Map<string, { subscribed: number; data: number; firstKind: string }> {
  const byChannel = new Map<string, { subscribed: number; data: number; firstKind: string }>();
  for (let i = 0; i < recording.length; i++) {
    const kind = recording.kind(i);
    const channel = recording.channel(i)!;
    expect(kind === "subscribed" || kind === "data").toBe(true);
    expect(recording.channels).toContain(channel);
    if (i > 0) expect(recording.recvMicros(i)).toBeGreaterThanOrEqual(recording.recvMicros(i - 1));
    const entry = byChannel.get(channel) ?? { subscribed: 0, data: 0, firstKind: kind };
    entry[kind as "subscribed" | "data"]++;
    byChannel.set(channel, entry);
  }
  return byChannel;
}

describe("a market-data recording of the default scenario", () => {
  let first: Uint8Array;
  let recording: MdRecording;
  beforeAll(async () => {
    const a = join(dir, "a.arrow");
    const b = join(dir, "b.arrow");
    const result = await recordScenarioMarketData(scenario, a, { durationSeconds: SHORT_SECONDS });
    await recordScenarioMarketData(scenario, b, { durationSeconds: SHORT_SECONDS });
    expect(result).toMatchObject({ simulatedSeconds: SHORT_SECONDS, seed: scenario.seed });
    first = readFileSync(a);
    expect(Buffer.compare(first, readFileSync(b))).toBe(0);
    recording = readMdRecording(a);
    expect(recording.length).toBe(result.rows);
  });

  it("is the same file, byte for byte, when made again (same seed); another seed differs", async () => {
    expect(first.length).toBeGreaterThan(10_000);
    const other = join(dir, "seed-2.arrow");
    await recordScenarioMarketData(scenario, other, { durationSeconds: SHORT_SECONDS, seed: 2 });
    expect(Buffer.compare(first, readFileSync(other))).not.toBe(0);
    expect(readMdRecording(other).source).toBe("sim:default seed 2");
  });

  it("subscribes to every market's depth and executions, the oracle prices and the summaries, then records their data", () => {
    expect(recording.source).toBe(`sim:default seed ${scenario.seed}`);
    expect(recording.channels).toEqual(EXPECTED_CHANNELS);
    // The subscribed answers come first, in the channels' order, at the start time.
    for (const [index, channel] of EXPECTED_CHANNELS.entries()) {
      expect([recording.kind(index), recording.channel(index), recording.recvMicros(index)]).toEqual(["subscribed", channel, recording.startMicros]);
    }
    const byChannel = survey(recording);
    for (const channel of EXPECTED_CHANNELS) expect(byChannel.get(channel)).toMatchObject({ subscribed: 1, firstKind: "subscribed" });
    // Depth, oracle and summaries flow within 30 s; executions settle on blocks.
    for (const channel of EXPECTED_CHANNELS.filter((name) => !name.endsWith("spotExecutions"))) expect(byChannel.get(channel)!.data, channel).toBeGreaterThan(0);
    expect(recording.recvMicros(recording.length - 1) - recording.startMicros).toBeLessThanOrEqual(SHORT_SECONDS * 1_000_000);
  });

  it("holds frames as a WebSocket client of the live server receives them, valid against the spec", () => {
    for (let i = 0; i < recording.length; i++) {
      const text = recording.frameText(i)!;
      const frame = JSON.parse(text) as Record<string, unknown>;
      const channel = recording.channel(i)!;
      const kind = parseChannel(channel)!.kind;
      if (recording.kind(i) === "subscribed") {
        StreamSubscribed.parse(frame);
        expect(text).toBe(JSON.stringify(frame));
        const snapshot = CHANNELS[kind].snapshot;
        if (snapshot === null) expect(frame).not.toHaveProperty("contents");
        else snapshot.parse(frame["contents"]);
        continue;
      }
      StreamChannelData.parse(frame);
      CHANNELS[kind].data.parse(frame["data"]);
      // The live fan-out's serialization (src/live/stream-fanout.ts), and the columns agree with the frame.
      expect(text).toBe(`{"type":"channel_data","timestamp":${String(frame["timestamp"])},"channel":${JSON.stringify(channel)},"data":${JSON.stringify(frame["data"])}}`);
      expect(recording.timestampMs(i)).toBe(frame["timestamp"]);
      expect(recording.timestampMs(i)).toBe(Math.floor(recording.recvMicros(i) / 1_000));
    }
  });
});

describe("data/default-sample.arrow", () => {
  const path = join(import.meta.dirname, "../..", SAMPLE_PATH);

  it("is what `npm run sample-data` makes with this code, byte for byte", async () => {
    const made = join(dir, "sample.arrow");
    await recordScenarioMarketData(scenario, made, { durationSeconds: SAMPLE_DURATION_SECONDS });
    const same = Buffer.compare(readFileSync(made), readFileSync(path)) === 0;
    // A change to the default scenario's behaviour changes the sample: regenerate it, and paste the README's
    // replay backtest output (scenarios/replay-market-maker.ts) and md-replay bench line again.
    expect(same, "data/default-sample.arrow is stale: run `npm run sample-data`, then update the README's replay backtest output").toBe(true);
  }, 60_000);

  it("reads with the expected channels, covers its simulated span, and stays a few MB", () => {
    expect(statSync(path).size).toBeLessThanOrEqual(5_000_000);
    const sample = readMdRecording(path);
    expect(sample.source).toBe("sim:default seed 1");
    expect(sample.channels).toEqual(EXPECTED_CHANNELS);
    const byChannel = survey(sample);
    expect([...byChannel.keys()].sort()).toEqual([...EXPECTED_CHANNELS].sort());
    for (const channel of EXPECTED_CHANNELS) expect(byChannel.get(channel)).toMatchObject({ subscribed: 1, firstKind: "subscribed" });
    for (const channel of EXPECTED_CHANNELS) expect(byChannel.get(channel)!.data, channel).toBeGreaterThan(50);
    const spanSeconds = (sample.recvMicros(sample.length - 1) - sample.startMicros) / 1_000_000;
    expect(spanSeconds).toBeGreaterThan(600);
  });
});
