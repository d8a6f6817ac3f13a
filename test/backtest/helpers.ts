/**
 * Hand-made recordings and a scripted strategy for the replay tests: one
 * market "TESTPERP" on a grid of whole units (tickSize "1", qtyStepSize
 * "1"), so prices are ticks and quantities are lots as written.
 */
import { memoryRecording, type MemoryRow } from "../../src/backtest/recording.ts";
import { runReplay, type ReplayOptions, type ReplayResult } from "../../src/backtest/replay.ts";
import { defineReplayStrategy, type FillView, type OrderRequest, type OrderUpdate } from "../../src/backtest/strategy.ts";
import { decodeRecording, type DecodeOptions } from "../../src/backtest/tape.ts";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import type { AgentLatency } from "../../src/sim/latency.ts";

export const SYMBOL = "TESTPERP";
export const GRID = { symbol: SYMBOL, tickSize: "1", qtyStepSize: "1" } as const;
const DEPTH = `/v2/market/${SYMBOL}/depth`;
const EXECUTIONS = `/v2/market/${SYMBOL}/perpExecutions`;

type Levels = readonly (readonly [number, number])[];

const wire = (levels: Levels) => levels.map(([px, qty]) => ({ px: String(px), qty: String(qty) }));

/** The subscription snapshot, received at `recvMicros` (exchange time: the same millisecond). */
export function snapshot(recvMicros: number, bids: Levels, asks: Levels): MemoryRow {
  const ms = Math.floor(recvMicros / 1000);
  return { recvMicros, frame: { type: "subscribed", channel: DEPTH, contents: { symbol: SYMBOL, type: "SNAPSHOT", bids: wire(bids), asks: wire(asks), updatedAt: ms } } };
}

/** A depth UPDATE (absolute quantities, 0 removes) received at `recvMicros`, changed in that millisecond. */
export function update(recvMicros: number, bids: Levels, asks: Levels, type: "UPDATE" | "SNAPSHOT" = "UPDATE"): MemoryRow {
  const ms = Math.floor(recvMicros / 1000);
  return { recvMicros, frame: { type: "channel_data", timestamp: ms, channel: DEPTH, data: { symbol: SYMBOL, type, bids: wire(bids), asks: wire(asks), updatedAt: ms } } };
}

/** Executions published at `recvMicros` (after settlement), each matched at `matchMs`. */
export function trades(recvMicros: number, executions: readonly { side: "B" | "A"; price: number; qty: number; matchMs: number }[]): MemoryRow {
  return {
    recvMicros,
    frame: {
      type: "channel_data",
      timestamp: Math.floor(recvMicros / 1000),
      channel: EXECUTIONS,
      data: executions.map((execution) => ({ symbol: SYMBOL, side: execution.side, price: String(execution.price), qty: String(execution.qty), timestamp: execution.matchMs, type: "ORDER_MATCH" })),
    },
  };
}

/** What the scripted strategy does at a time (µs on its own clock). */
export type Action = { readonly at: number } & ({ readonly submit: Omit<OrderRequest, "symbol"> } | { readonly cancel: number });

export interface ScriptLog {
  fills: (FillView & { at: number })[];
  updates: (OrderUpdate & { at: number })[];
  ids: number[];
}

/** A strategy that submits and cancels at given times and logs what it is told. */
export function scripted(actions: readonly Action[]) {
  return defineReplayStrategy<Record<string, never>, ScriptLog>({
    name: "scripted",
    defaults: {},
    init: () => ({ fills: [], updates: [], ids: [] }),
    onStart(ctx) {
      actions.forEach((action, index) => ctx.setTimer(action.at, String(index)));
    },
    onTimer(ctx, log, tag) {
      const action = actions[Number(tag)]!;
      if ("submit" in action) log.ids.push(ctx.submit({ symbol: SYMBOL, ...action.submit }));
      else ctx.cancel(action.cancel);
    },
    onFill(ctx, log, fill) {
      log.fills.push({ ...fill, at: ctx.now });
    },
    onOrder(ctx, log, update) {
      log.updates.push({ ...update, at: ctx.now });
    },
  });
}

export const constantLatency = (entryMicros: number, responseMicros = entryMicros, marketDataMicros = 0): AgentLatency => ({
  orderEntry: { model: "constant", micros: entryMicros },
  responses: { model: "constant", micros: responseMicros },
  marketData: { model: "constant", micros: marketDataMicros },
});

/** Replays rows with a scripted strategy; returns the result and what the strategy was told. */
export function replayScript(
  rows: readonly MemoryRow[],
  actions: readonly Action[],
  options: Partial<Omit<ReplayOptions, "strategy">> & { decode?: DecodeOptions } = {},
): { result: ReplayResult; log: ScriptLog } {
  const decoded = decodeRecording(memoryRecording(rows), { grids: [GRID], ...options.decode });
  const strategy = scripted(actions);
  let log: ScriptLog | undefined;
  const wrapped = defineReplayStrategy<Record<string, never>, ScriptLog>({
    ...strategy,
    init: (params, ctx) => {
      log = strategy.init(params, ctx);
      return log;
    },
  });
  const result = runReplay(decoded, {
    seed: 1,
    queue: riskAverseQueue,
    latency: constantLatency(100),
    ...options,
    strategy: wrapped,
  });
  return { result, log: log! };
}

/** Fills as [priceTicks, qtyLots, maker] triples, in order. */
export const fillTriples = (result: ReplayResult) => result.fills.map((fill) => [fill.priceTicks, fill.qtyLots, fill.maker] as const);

/**
 * A small synthetic market, deterministic from its own generator: the bid
 * walks a tick up or down per frame (three levels a side, the stale ones
 * removed), and every other frame a taker hits the best bid or lifts the
 * best ask, matched in that frame's millisecond and printed 0.5 ms later.
 */
export function syntheticRows(frames: number): MemoryRow[] {
  let state = 12345;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const size = () => 1 + Math.floor(next() * 20);
  const rows: MemoryRow[] = [snapshot(1_000, [[100, 10], [99, 10], [98, 10]], [[101, 10], [102, 10], [103, 10]])];
  let bid = 100;
  for (let i = 1; i <= frames; i++) {
    const time = 1_000 + i * 1_000;
    const move = next() < 0.5 ? -1 : 1;
    bid += move;
    const bids: [number, number][] = [[bid, size()], [bid - 1, size()], [bid - 2, size()], [bid + 1, 0], [bid - 3, 0]];
    const asks: [number, number][] = [[bid + 1, size()], [bid + 2, size()], [bid + 3, size()], [bid, 0], [bid + 4, 0]];
    rows.push(update(time, bids, asks));
    if (i % 2 === 0) {
      const sell = next() < 0.5;
      rows.push(trades(time + 500, [{ side: sell ? "A" : "B", price: sell ? bid : bid + 1, qty: 1 + Math.floor(next() * 25), matchMs: Math.floor(time / 1000) }]));
    }
  }
  return rows;
}
