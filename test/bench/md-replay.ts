/**
 * Market-data replay throughput (src/backtest): recorded events replayed
 * per second of wall time, decode excluded (reported apart).
 *
 * - eventsPerSec: a simple strategy active under both queue models: every
 *   10 s it reads each market's book (mid and best bid, ctx.book) and
 *   replaces one postOnly bid at the best bid of each market (which fills
 *   from the recorded trades); it takes no per-frame callback, so its view
 *   applies the frames when it reads it;
 * - perFrameCallbacks: the same trading, but every depth frame and trade
 *   print is delivered to it (onDepth keeps a mid, onTrade a traded volume):
 *   one callback per frame, as a strategy reacting to every update pays;
 * - marketMaker: agents/replay-market-maker.ts as the scenario runs it,
 *   which requotes on every fill and best move: on the sparse sample it
 *   sends about one order per six recorded events, so order handling
 *   (latency draws, responses, accounting), not the replay, sets its rate;
 * - idleStrategyEventsPerSec: the replay loop with a strategy that does nothing.
 * `loadAverage1m` shows how busy the machine was (the 2 cores are shared),
 * and eventsPerCpuSec divides by the process's CPU time instead of wall time.
 *
 * The recording: data/default-sample.arrow when it exists (else a
 * synthetic three-market recording made here, named in "source"). It is
 * small (tens of thousands of events), so its decoded tapes are repeated
 * back to back ("repeats"), each copy shifted in time after the previous
 * one and starting with its snapshot, for at least 2 million events per
 * measured run.
 *
 * Prints one JSON line; never fails. No replay backtester on npm to compare
 * with ("peer": null).
 *
 *   npx tsx test/bench/md-replay.ts [recording.arrow]
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { replayMarketMaker } from "../../agents/replay-market-maker.ts";
import { memoryRecording, type MdRecordingLike, type MemoryRow } from "../../src/backtest/recording.ts";
import { runReplay, type ReplayResult } from "../../src/backtest/replay.ts";
import { probabilisticQueue, powerSplit, riskAverseQueue, type QueueModel } from "../../src/backtest/queue.ts";
import { DATA_DIR, gridsOf } from "../../src/backtest/run.ts";
import { defineReplayStrategy } from "../../src/backtest/strategy.ts";
import { decodeRecording, type DecodedRecording, type MarketTape } from "../../src/backtest/tape.ts";
import { readMdRecording } from "../../src/record/md-recording.ts";

const TARGET_EVENTS_PER_SECOND = 3_000_000;
const MIN_EVENTS = 2_000_000;

/** A synthetic recording of the three built-in markets: books walking a tick per frame, trades every other frame. */
function syntheticRecording(frames: number): MdRecordingLike {
  const markets = [
    { symbol: "ETHRUSDPERP", bid: 300_000, tick: 0.01, step: 0.001, executions: "perpExecutions" },
    { symbol: "BTCRUSDPERP", bid: 600_000, tick: 0.1, step: 0.0001, executions: "perpExecutions" },
    { symbol: "WETHRUSD", bid: 300_000, tick: 0.01, step: 0.001, executions: "spotExecutions" },
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const px = (market: (typeof markets)[number], ticks: number) => (ticks * market.tick).toFixed(market.tick === 0.1 ? 1 : 2);
  const qty = (market: (typeof markets)[number]) => ((1 + Math.floor(next() * 50)) * market.step).toFixed(market.step === 0.0001 ? 4 : 3);
  const rows: MemoryRow[] = [];
  const start = 1_767_225_600_000_000;
  for (const market of markets) {
    const levels = (side: number) => Array.from({ length: 20 }, (_, i) => ({ px: px(market, market.bid + side * (i + (side > 0 ? 1 : 0))), qty: qty(market) }));
    rows.push({ recvMicros: start, frame: { type: "subscribed", channel: `/v2/market/${market.symbol}/depth`, contents: { symbol: market.symbol, type: "SNAPSHOT", bids: levels(-1), asks: levels(1), updatedAt: start / 1000 } } });
  }
  for (let i = 1; i <= frames; i++) {
    const market = markets[i % 3]!;
    const time = start + i * 1_000;
    const ms = Math.floor(time / 1000);
    const move = next() < 0.5 ? -1 : 1;
    market.bid += move;
    const bid = market.bid;
    const bids = [bid, bid - 1, bid - 2].map((ticks) => ({ px: px(market, ticks), qty: qty(market) }));
    const asks = [bid + 1, bid + 2, bid + 3].map((ticks) => ({ px: px(market, ticks), qty: qty(market) }));
    bids.push({ px: px(market, move > 0 ? bid - 20 : bid + 1), qty: "0" });
    asks.push({ px: px(market, move > 0 ? bid : bid + 21), qty: "0" });
    rows.push({ recvMicros: time, frame: { type: "channel_data", timestamp: ms, channel: `/v2/market/${market.symbol}/depth`, data: { symbol: market.symbol, type: "UPDATE", bids, asks, updatedAt: ms } } });
    if (i % 2 === 0) {
      const sell = next() < 0.5;
      const execution = { symbol: market.symbol, side: sell ? "A" : "B", price: px(market, sell ? bid : bid + 1), qty: qty(market), timestamp: ms, type: "ORDER_MATCH" };
      rows.push({ recvMicros: time + 400, frame: { type: "channel_data", timestamp: ms, channel: `/v2/market/${market.symbol}/${market.executions}`, data: [execution] } });
    }
  }
  return memoryRecording(rows, `synthetic ${frames} frames`);
}

/** The decoded tapes `times` over, each copy after the previous one (1 s apart), each starting with its snapshot. */
function repeated(decoded: DecodedRecording, times: number): DecodedRecording {
  const spanMicros = decoded.endMicros - decoded.startMicros + 1_000_000;
  const tapes = decoded.tapes.map((tape): MarketTape => {
    const length = tape.length * times;
    const timeMicros = new Float64Array(length);
    const exchMs = new Float64Array(length);
    const kind = new Uint8Array(length);
    const priceTicks = new Float64Array(length);
    const qtyLots = new Float64Array(length);
    for (let copy = 0; copy < times; copy++) {
      const at = copy * tape.length;
      kind.set(tape.kind, at);
      priceTicks.set(tape.priceTicks, at);
      qtyLots.set(tape.qtyLots, at);
      for (let row = 0; row < tape.length; row++) {
        timeMicros[at + row] = tape.timeMicros[row]! + copy * spanMicros;
        exchMs[at + row] = tape.exchMs[row]! + Math.floor((copy * spanMicros) / 1000);
      }
    }
    return { ...tape, length, timeMicros, exchMs, kind, priceTicks, qtyLots, levels: tape.levels * times, trades: tape.trades * times, snapshots: tape.snapshots * times };
  });
  return { ...decoded, tapes, events: decoded.events * times, frames: decoded.frames * times, endMicros: decoded.startMicros + spanMicros * times - 1_000_000 };
}

const idle = defineReplayStrategy({ name: "idle", defaults: {}, init: () => ({}) });

/** Every 10 s reads each market's book and replaces its one postOnly bid of one lot at the best bid. */
const simple = defineReplayStrategy({
  name: "bench-simple",
  defaults: { readMicros: 10_000_000, quoteEveryReads: 1 },
  init: (params) => ({ params, mid: new Map<string, number>(), bids: new Map<string, number>(), reads: 0 }),
  onStart(ctx) {
    ctx.setTimer(ctx.now + 1, "read");
  },
  onTimer(ctx, state) {
    const quote = state.reads++ % state.params.quoteEveryReads === 0;
    for (const market of ctx.markets) {
      const book = ctx.book(market.symbol);
      const mid = book.midTicks;
      if (Number.isFinite(mid)) state.mid.set(market.symbol, mid);
      if (!quote) continue;
      const previous = state.bids.get(market.symbol);
      if (previous !== undefined) ctx.cancel(previous);
      const best = book.bestBidTicks;
      if (Number.isFinite(best)) state.bids.set(market.symbol, ctx.submit({ symbol: market.symbol, side: "B", priceTicks: best, qtyLots: 1, postOnly: true }));
    }
    ctx.setTimer(ctx.now + state.params.readMicros, "read");
  },
});

/** Sees every frame and print; every 10 s replaces one postOnly bid of one lot at each market's best bid. */
const perFrame = defineReplayStrategy({
  name: "bench-per-frame",
  defaults: { refreshMicros: 10_000_000 },
  init: () => ({ mid: new Map<string, number>(), tradedLots: 0, bids: new Map<string, number>() }),
  onStart(ctx, state) {
    ctx.setTimer(ctx.now + 1, "quote");
  },
  onDepth(_ctx, state, book) {
    const mid = book.midTicks;
    if (Number.isFinite(mid)) state.mid.set(book.symbol, mid);
  },
  onTrade(_ctx, state, trade) {
    state.tradedLots += trade.qtyLots;
  },
  onTimer(ctx, state) {
    for (const market of ctx.markets) {
      const previous = state.bids.get(market.symbol);
      if (previous !== undefined) ctx.cancel(previous);
      const best = ctx.book(market.symbol).bestBidTicks;
      if (Number.isFinite(best)) state.bids.set(market.symbol, ctx.submit({ symbol: market.symbol, side: "B", priceTicks: best, qtyLots: 1, postOnly: true }));
    }
    ctx.setTimer(ctx.now + 10_000_000, "quote");
  },
});

const MARKET_MAKER_PARAMS = { quoteNotional: 3_000, maxPositionNotional: 30_000, refreshMicros: 2_000_000, requoteTicks: 1 };

function replaySeconds(decoded: DecodedRecording, queue: QueueModel, strategy: "simple" | "perFrame" | "marketMaker" | "idle"): { seconds: number; cpuSeconds: number; result: ReplayResult } {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = runReplay(
    decoded,
    strategy === "marketMaker" ? { seed: 1, queue, strategy: replayMarketMaker, params: MARKET_MAKER_PARAMS } : { seed: 1, queue, strategy: strategy === "simple" ? simple : strategy === "perFrame" ? perFrame : idle },
  );
  const used = process.cpuUsage(cpu);
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, cpuSeconds: (used.user + used.system) / 1e6, result };
}

function main(): void {
  const samplePath = process.argv[2] ?? join(DATA_DIR, "default-sample.arrow");
  const fromFile = existsSync(samplePath);
  const readStart = process.hrtime.bigint();
  const recording = fromFile ? readMdRecording(samplePath) : syntheticRecording(60_000);
  const readSeconds = Number(process.hrtime.bigint() - readStart) / 1e9;
  const decodeStart = process.hrtime.bigint();
  const decoded = decodeRecording(recording, { grids: gridsOf() });
  const decodeSeconds = Number(process.hrtime.bigint() - decodeStart) / 1e9;
  const repeats = Math.max(1, Math.ceil(MIN_EVENTS / Math.max(1, decoded.events)));
  const tiled = repeated(decoded, repeats);
  // Warm-up (the JIT reaches steady state: the order paths run a few hundred times per copy), then one measured run per configuration.
  const warm = repeated(decoded, Math.min(repeats, 20));
  replaySeconds(warm, riskAverseQueue, "simple");
  replaySeconds(warm, probabilisticQueue(powerSplit(2)), "simple");
  replaySeconds(warm, riskAverseQueue, "perFrame");
  replaySeconds(warm, probabilisticQueue(powerSplit(2)), "marketMaker");
  const riskAverse = replaySeconds(tiled, riskAverseQueue, "simple");
  const probabilistic = replaySeconds(tiled, probabilisticQueue(powerSplit(2)), "simple");
  const perFrameRun = replaySeconds(tiled, riskAverseQueue, "perFrame");
  const marketMaker = replaySeconds(tiled, probabilisticQueue(powerSplit(2)), "marketMaker");
  const alone = replaySeconds(tiled, riskAverseQueue, "idle");
  const active = riskAverse.seconds + probabilistic.seconds;
  const round = (value: number) => Math.round(value);
  console.log(
    JSON.stringify({
      bench: "md-replay",
      source: fromFile ? samplePath.replace(`${DATA_DIR}/`, "data/") : recording.source,
      recordedEvents: decoded.events,
      recordingRows: recording.length,
      readSeconds: Number(readSeconds.toFixed(3)),
      decodeSeconds: Number(decodeSeconds.toFixed(3)),
      decodeEventsPerSec: round(decoded.events / decodeSeconds),
      repeats,
      note: `the sample's tapes replayed ${repeats} times back to back in one run (decode of one copy)`,
      replayedEvents: tiled.events,
      replaySeconds: Number(active.toFixed(3)),
      eventsPerSec: round((2 * tiled.events) / active),
      eventsPerCpuSec: round((2 * tiled.events) / (riskAverse.cpuSeconds + probabilistic.cpuSeconds)),
      targetEventsPerSec: TARGET_EVENTS_PER_SECOND,
      strategy: "bench-simple (every 10 s, on a timer, reads each market's book (mid, best bid) and replaces its one postOnly 1-lot bid at the best bid; no per-frame callbacks: its view applies the frames when read)",
      riskAverse: { eventsPerSec: round(tiled.events / riskAverse.seconds), eventsPerCpuSec: round(tiled.events / riskAverse.cpuSeconds), fills: riskAverse.result.total.fills, orders: riskAverse.result.counts.orders },
      probabilisticPower2: { eventsPerSec: round(tiled.events / probabilistic.seconds), eventsPerCpuSec: round(tiled.events / probabilistic.cpuSeconds), fills: probabilistic.result.total.fills, orders: probabilistic.result.counts.orders },
      perFrameCallbacks: {
        strategy: "bench-per-frame (the same bids; every depth frame and trade print delivered: onDepth, onTrade)",
        queue: "riskAverse",
        eventsPerSec: round(tiled.events / perFrameRun.seconds),
        eventsPerCpuSec: round(tiled.events / perFrameRun.cpuSeconds),
        fills: perFrameRun.result.total.fills,
        depthCallbacks: perFrameRun.result.counts.depthCallbacks,
        tradeCallbacks: perFrameRun.result.counts.tradeCallbacks,
      },
      marketMaker: { eventsPerSec: round(tiled.events / marketMaker.seconds), queue: "probabilistic power n=2", fills: marketMaker.result.total.fills, orders: marketMaker.result.counts.orders, cancels: marketMaker.result.counts.cancels },
      idleStrategyEventsPerSec: round(tiled.events / alone.seconds),
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
      peer: null,
    }),
  );
}

main();
