/**
 * A market-data recording made inside a simulation (md-recording/1, see
 * md-recording.ts): a RunObserver that subscribes, at the run's start, to
 * market channels of the simulated world like one more stream client, and
 * writes every frame it is sent with its virtual time.
 *
 * - The frames are the bytes a WebSocket client of `shadowbook serve` would
 *   receive: `subscribed` is `JSON.stringify({type, channel, contents?})`
 *   (stream.ts), a channel_data frame `JSON.stringify` of the world's
 *   message `{type, timestamp, channel, data}`, the same key order and
 *   serialization as the live fan-out's frames (stream-fanout.ts).
 * - recvMicros is the virtual time the world sent the frame (no market-data
 *   latency): a recording of what the exchange published, and when.
 * - Latest-value feeds (summaries, oracle prices) are coalesced per step,
 *   as every simulated subscriber sees them.
 * - Deterministic: the same scenario, seed and duration give the same file,
 *   to the byte (the writer's dictionary ids are fixed).
 */
import type { Micros } from "../core/time.ts";
import { resolveChannel } from "../exchange/stream-channels.ts";
import type { StreamChannelData } from "../spec/stream-envelopes.ts";
import { runScenario } from "../sim/runner.ts";
import type { RunObserver, RunSetup } from "../sim/run.ts";
import type { Scenario } from "../sim/scenario.ts";
import type { SimWorld, StreamReceiver } from "../sim/world.ts";
import { MdRecordingWriter } from "./md-recording.ts";

/**
 * The public market-data channels of a world's markets, in config order:
 * each market's depth, each market's perpExecutions or spotExecutions,
 * then /v2/assetOraclePrices and the perp and spot market summaries.
 */
export function marketDataChannels(world: SimWorld): string[] {
  const markets = [...world.exchange.marketsBySymbol];
  const channels = markets.map(([symbol]) => `/v2/market/${symbol}/depth`);
  for (const [symbol, market] of markets) channels.push(`/v2/market/${symbol}/${market.kind === "perp" ? "perpExecutions" : "spotExecutions"}`);
  channels.push("/v2/assetOraclePrices");
  if (markets.some(([, market]) => market.kind === "perp")) channels.push("/v2/perpMarkets/summary");
  if (markets.some(([, market]) => market.kind === "spot")) channels.push("/v2/spotMarkets/summary");
  return channels;
}

export interface MdSimRecorderOptions {
  /** Channels to record (default: marketDataChannels of the run's world). */
  channels?: readonly string[];
  batchRows?: number;
}

export class MdSimRecorder implements RunObserver, StreamReceiver {
  private writer: MdRecordingWriter | undefined;
  private world: SimWorld | undefined;

  constructor(
    readonly path: string,
    private readonly options: MdSimRecorderOptions = {},
  ) {}

  /** Rows written so far. */
  get rows(): number {
    return this.writer?.rows ?? 0;
  }

  begin(setup: RunSetup): void {
    const world = setup.world;
    this.world = world;
    const channels = this.options.channels ?? marketDataChannels(world);
    const writer = new MdRecordingWriter(
      this.path,
      { source: `sim:${setup.scenario.name} seed ${setup.seed}`, channels, startMicros: setup.startMicros },
      this.options.batchRows === undefined ? {} : { batchRows: this.options.batchRows },
    );
    this.writer = writer;
    for (const channel of channels) {
      const resolved = resolveChannel(channel, world.exchange.marketsBySymbol);
      if (resolved === undefined) throw new Error(`channel "${channel}" is not a channel of this run's markets`);
      const contents = resolved.kind === "marketDepth" ? world.queries.depthStreamSnapshot(resolved.key) : undefined;
      if (resolved.kind === "walletOrderChanges" || resolved.kind === "walletTransfers") {
        throw new Error(`channel "${channel}" is a wallet channel with a snapshot: not recorded by the market-data recorder`);
      }
      world.channels.add(resolved, this, channel);
      const frame = contents === undefined ? { type: "subscribed", channel } : { type: "subscribed", channel, contents };
      writer.append(world.now(), "subscribed", channel, null, Buffer.from(JSON.stringify(frame)));
    }
  }

  receive(message: StreamChannelData): void {
    const at: Micros = this.world!.now();
    this.writer!.append(at, "data", message.channel, message.timestamp, Buffer.from(JSON.stringify(message)));
  }

  /** Writes the rest and closes the file. */
  close(): void {
    this.writer?.close();
  }
}

/**
 * The shipped sample (data/default-sample.arrow, `npm run sample-data`): the
 * default scenario's market data over this many simulated seconds, chosen
 * to keep the file a few MB. test/record/sample-data.test.ts holds the file
 * to what the current code makes.
 */
export const SAMPLE_DURATION_SECONDS = 900;
export const SAMPLE_PATH = "data/default-sample.arrow";

export interface RecordScenarioOptions extends MdSimRecorderOptions {
  seed?: number;
  durationSeconds?: number;
}

/** Runs `scenario` and records its market data to `path`; the rows written and the simulated seconds. */
export async function recordScenarioMarketData(scenario: Scenario, path: string, options: RecordScenarioOptions = {}): Promise<{ rows: number; simulatedSeconds: number; seed: number }> {
  const recorder = new MdSimRecorder(path, {
    ...(options.channels === undefined ? {} : { channels: options.channels }),
    ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
  });
  try {
    const { figures } = await runScenario(scenario, {
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.durationSeconds === undefined ? {} : { durationSeconds: options.durationSeconds }),
      observers: [recorder],
    });
    return { rows: recorder.rows, simulatedSeconds: figures.simulatedSeconds, seed: figures.seed };
  } finally {
    recorder.close();
  }
}
