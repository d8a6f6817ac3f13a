/**
 * Running a replay scenario (`shadowbook run` of a scenario with
 * `marketData`): reads the recording (src/record/md-recording.ts), decodes
 * it into tapes once, runs the replay, and reports the decode and replay
 * wall times apart (the replay rate excludes JSON decoding). A driver: it
 * reads files and clocks; the replay itself (replay.ts) does neither.
 *
 * Market grids (tickSize, qtyStepSize, minOrderQty) come from the scenario's `markets`,
 * else the built-in markets (DEFAULT_MARKETS); a symbol in neither gets its
 * grid inferred from the recording's decimals.
 *
 * The strategy's params are checked (its checkParams hook) before the
 * recording is read. A recording that is not one is refused with a message naming
 * `marketData.recording` (readMdRecording's checks). A recording cut short
 * (no end-of-stream marker: a recorder killed mid-way) replays its complete
 * batches, and the summary and summary.json say so (`truncated`); one with
 * no complete batch is refused, as there is nothing to replay. Bytes after
 * a recording's end-of-stream marker are not part of it: its rows replay,
 * and the summary and summary.json say the bytes were not read
 * (`trailing`), as `shadowbook replay` warns of them in an input log.
 *
 * `--out DIR` writes fills.arrow (one row per own fill) and summary.json
 * (through a staging directory: src/cli/run-out.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { Dec, fromUnits } from "../core/decimal.ts";
import { microsToMillis } from "../core/time.ts";
import { DEFAULT_MARKETS } from "../exchange/config.ts";
import type { RiskConfigInput } from "../risk/config.ts";
import { ColumnTable, DictColumn, F64Column, I64Column, TimeColumn } from "../record/columns.ts";
import { describeTrailing, describeTruncation, MdRecordingError, readMdRecording } from "../record/md-recording.ts";
import { replayParamsProblem, ScenarioError, type Scenario } from "../sim/scenario.ts";
import type { FillRecord } from "./account.ts";
import { queueModel } from "./queue.ts";
import type { MdRecordingLike } from "./recording.ts";
import { runReplay, type ReplayResult } from "./replay.ts";
import { asReplayStrategy } from "./strategy.ts";
import { decodeRecording, type DecodedRecording, type MarketGrid } from "./tape.ts";

/** Where recordings named by a scenario are looked for. */
export const DATA_DIR = resolve(import.meta.dirname, "..", "..", "data");

export interface ReplayRunOptions {
  /** Root seed of the latency draws and the strategy's stream (default: the scenario's). */
  readonly seed?: number;
  /** Replayed seconds from the recording's first row (default: the scenario's durationSeconds). */
  readonly durationSeconds?: number;
  /** A recording already read (tests, benchmarks); default: the scenario's file. */
  readonly recording?: MdRecordingLike;
}

export interface ReplayRun {
  readonly scenario: string;
  readonly recording: string;
  readonly result: ReplayResult;
  readonly decoded: DecodedRecording;
  readonly decodeSeconds: number;
  readonly replaySeconds: number;
  /** Recorded events replayed per second of replay wall time. */
  readonly eventsPerSecond: number;
  readonly tradeTiming: "match" | "publication";
  /** Set when the recording was cut short (no end-of-stream marker): what it lost, naming it. */
  readonly truncated?: string;
  /** Set when bytes follow the recording's end-of-stream marker: how many, naming it (they were not read). */
  readonly trailing?: string;
}

/** The grids of a market configuration (perp and spot). */
export function gridsOf(markets: RiskConfigInput = DEFAULT_MARKETS): MarketGrid[] {
  return [...markets.perpMarkets, ...markets.spotMarkets].map((market) => ({ symbol: market.symbol, tickSize: market.tickSize, qtyStepSize: market.qtyStepSize, minOrderQty: market.minOrderQty }));
}

export function recordingPath(file: string): string {
  return isAbsolute(file) ? file : join(DATA_DIR, file);
}

/** How messages name a scenario's recording: `marketData.recording "eth.arrow" (/repo/data/eth.arrow)`. */
export function recordingName(file: string): string {
  const path = recordingPath(file);
  return path === file ? `marketData.recording "${file}"` : `marketData.recording "${file}" (${path})`;
}

const seconds = (startNs: bigint): number => Number(process.hrtime.bigint() - startNs) / 1e9;

/** Decodes and replays a scenario's recording with its strategy and models. */
export function runReplayScenario(scenario: Scenario, options: ReplayRunOptions = {}): ReplayRun {
  const data = scenario.marketData;
  if (data === undefined) throw new Error(`scenario "${scenario.name}" has no marketData: it runs simulated agents, not a replay`);
  const strategy = asReplayStrategy(data.strategy);
  // Before the recording is read, as checkScenario does (a caller may skip it): bad params waste no decoding.
  const params = replayParamsProblem(strategy, data.params);
  if (params !== null) throw new ScenarioError(`scenario "${scenario.name}": marketData.${params}`);
  const name = recordingName(data.recording);
  const recording = options.recording ?? readMdRecording(recordingPath(data.recording), { name });
  // A recording cut short replays its complete batches, and says so; with none, there is nothing to replay.
  const truncated = recording.truncated === undefined ? undefined : `${name} ${describeTruncation(recording.truncated, recording.length)}`;
  if (truncated !== undefined && recording.length === 0) throw new MdRecordingError(`${truncated}, so there is nothing to replay`);
  const trailing = recording.trailing === undefined ? undefined : `${name} ${describeTrailing(recording.trailing, recording.length)}`;
  const tradeTiming = data.tradeTiming ?? "match";
  const decodeStart = process.hrtime.bigint();
  const decoded = decodeRecording(recording, {
    grids: gridsOf(scenario.markets),
    tradeTiming,
    ...(data.markets === undefined ? {} : { markets: data.markets }),
  });
  const decodeSeconds = seconds(decodeStart);
  const durationSeconds = options.durationSeconds ?? scenario.durationSeconds;
  const replayStart = process.hrtime.bigint();
  const result = runReplay(decoded, {
    seed: options.seed ?? scenario.seed,
    queue: queueModel(data.queue),
    strategy,
    ...(data.params === undefined ? {} : { params: data.params }),
    ...(data.latency === undefined ? {} : { latency: data.latency }),
    ...(data.fees === undefined ? {} : { fees: data.fees }),
    impact: data.impact ?? false,
    untilMicros: decoded.startMicros + Math.round(durationSeconds * 1e6),
  });
  const replaySeconds = seconds(replayStart);
  return {
    scenario: scenario.name,
    recording: data.recording,
    result,
    decoded,
    decodeSeconds,
    replaySeconds,
    eventsPerSecond: replaySeconds > 0 ? result.events / replaySeconds : 0,
    tradeTiming,
    ...(truncated === undefined ? {} : { truncated }),
    ...(trailing === undefined ? {} : { trailing }),
  };
}

const money = (text: string, digits = 2): string => {
  const value = Number(text);
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
};
const count = (value: number): string => value.toLocaleString("en-US");

/** The terminal summary of a replay run. */
export function formatReplaySummary(run: ReplayRun): string {
  const { result, decoded } = run;
  const spanSeconds = (result.endMicros - result.startMicros) / 1e6;
  // A recording of no market channel (only /v2/assetOraclePrices, say) has no market to list: said so, not an empty list.
  const recorded =
    decoded.tapes.length === 0
      ? `no market channels, nothing to trade against (${count(decoded.skipped)} row${decoded.skipped === 1 ? "" : "s"} of other channels skipped); ${count(result.events)} events`
      : `${decoded.tapes.map((tape) => tape.symbol).join(", ")}; ${count(result.events)} events (${count(decoded.frames)} frames)`;
  const lines = [
    `  recording   ${run.recording}: ${recorded}, ${spanSeconds.toFixed(1)} s replayed`,
    `  queue       ${result.queueModel}, impact ${result.impact ? "on" : "off"}, trades at ${run.tradeTiming === "match" ? "match time" : "publication"}`,
    ...(run.truncated === undefined ? [] : [`  warning     ${run.truncated}; only those are replayed`]),
    ...(run.trailing === undefined ? [] : [`  warning     ${run.trailing}`]),
    `  strategy    ${result.strategy}: ${count(result.counts.orders)} orders, ${count(result.counts.cancels)} cancels (${count(result.counts.cancelsTooLate)} too late), ${count(result.counts.rejected)} rejected`,
    "",
    `  ${"market".padEnd(13)} ${"fills".padStart(6)} ${"maker".padStart(6)} ${"taker".padStart(6)} ${"volume".padStart(14)} ${"fees".padStart(10)} ${"position".padStart(10)} ${"realized".padStart(11)} ${"unrealized".padStart(11)} ${"pnl".padStart(11)}`,
  ];
  for (const market of result.markets) {
    lines.push(
      `  ${market.symbol.padEnd(13)} ${count(market.fills).padStart(6)} ${count(market.makerFills).padStart(6)} ${count(market.takerFills).padStart(6)} ${money(market.volume).padStart(14)} ${money(market.fees).padStart(10)} ${market.position.padStart(10)} ${money(market.realizedPnl).padStart(11)} ${money(market.unrealizedPnl).padStart(11)} ${money(market.pnl).padStart(11)}`,
    );
  }
  const total = result.total;
  lines.push(
    `  ${"total".padEnd(13)} ${count(total.fills).padStart(6)} ${"".padStart(6)} ${"".padStart(6)} ${money(total.volume).padStart(14)} ${money(total.fees).padStart(10)} ${"".padStart(10)} ${money(total.realizedPnl).padStart(11)} ${money(total.unrealizedPnl).padStart(11)} ${money(total.pnl).padStart(11)}`,
    "",
    `  decode ${run.decodeSeconds.toFixed(2)} s; replay ${run.replaySeconds.toFixed(3)} s: ${count(Math.round(run.eventsPerSecond))} events/s`,
  );
  return lines.join("\n");
}

/** The summary.json object of a replay run (the fills go to fills.arrow). */
export function replaySummaryJson(run: ReplayRun): Record<string, unknown> {
  const { fills: _fills, ...result } = run.result;
  return {
    kind: "replay",
    scenario: run.scenario,
    recording: run.recording,
    tradeTiming: run.tradeTiming,
    ...(run.truncated === undefined ? {} : { truncated: run.truncated }),
    ...(run.trailing === undefined ? {} : { trailing: run.trailing }),
    ...result,
    decodeSeconds: run.decodeSeconds,
    replaySeconds: run.replaySeconds,
    eventsPerSecond: Math.round(run.eventsPerSecond),
    frames: run.decoded.frames,
    skippedRows: run.decoded.skipped,
    gaps: run.decoded.gaps,
    grids: run.decoded.tapes.map((tape) => ({ symbol: tape.symbol, tickSize: tape.tickSize, qtyStepSize: tape.qtyStepSize, inferred: tape.inferredGrid })),
  };
}

/** The fills as an Arrow IPC file: one row per own fill, in exchange-time order. */
export function fillsTable(fills: readonly FillRecord[], markets: readonly MarketGrid[]): ColumnTable {
  const grids = new Map(markets.map((market) => [market.symbol, { tick: new Dec(market.tickSize), step: new Dec(market.qtyStepSize) }]));
  const symbols = markets.map((market) => market.symbol);
  const time = new TimeColumn("time");
  const atMicros = new I64Column("atMicros");
  const fillId = new I64Column("fillId");
  const orderId = new I64Column("orderId");
  const symbol = new DictColumn("symbol", symbols);
  const side = new DictColumn("side", ["B", "A"]);
  const liquidity = new DictColumn("liquidity", ["maker", "taker"]);
  const price = new F64Column("price");
  const qty = new F64Column("qty");
  const priceTicks = new I64Column("priceTicks");
  const qtyLots = new I64Column("qtyLots");
  const fee = new F64Column("fee");
  const positionLots = new I64Column("positionLots");
  const table = new ColumnTable("fills", [time, atMicros, fillId, orderId, symbol, side, liquidity, price, qty, priceTicks, qtyLots, fee, positionLots], undefined, new Map([["shadowbook.table", "replay-fills"]]));
  for (const fill of fills) {
    time.push(microsToMillis(fill.atMicros));
    atMicros.push(fill.atMicros);
    fillId.push(fill.fillId);
    orderId.push(fill.orderId);
    symbol.push(fill.symbol);
    side.push(fill.side);
    liquidity.push(fill.maker ? "maker" : "taker");
    const grid = grids.get(fill.symbol)!;
    price.push(fromUnits(fill.priceTicks, grid.tick).toNumber());
    qty.push(fromUnits(fill.qtyLots, grid.step).toNumber());
    priceTicks.push(fill.priceTicks);
    qtyLots.push(fill.qtyLots);
    fee.push(fill.fee);
    positionLots.push(fill.positionLots);
    table.endRow();
  }
  return table;
}

/** The files writeReplayOutputs writes, in that order. */
export const REPLAY_OUTPUT_FILES: readonly string[] = ["fills.arrow", "summary.json"];

/**
 * Writes fills.arrow and summary.json into `dir`; returns the paths. As it
 * is, a failure can leave some of them: `shadowbook run --out` writes them
 * into a staging directory and moves them into place (src/cli/run-out.ts).
 */
export function writeReplayOutputs(dir: string, run: ReplayRun): string[] {
  mkdirSync(dir, { recursive: true });
  const [fillsPath, summaryPath] = REPLAY_OUTPUT_FILES.map((name) => join(dir, name)) as [string, string];
  writeFileSync(fillsPath, fillsTable(run.result.fills, run.decoded.tapes).toIPC());
  writeFileSync(summaryPath, `${JSON.stringify(replaySummaryJson(run), null, 2)}\n`);
  return [fillsPath, summaryPath];
}
