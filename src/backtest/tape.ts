/**
 * Decoding a recording into one columnar tape per market: the replay loop
 * reads typed arrays only (no JSON, no strings, no objects per event).
 *
 * A tape row is one of:
 * - CLEAR: a depth SNAPSHOT starts (the book side levels that follow replace the book);
 * - BID / ASK: a level at `priceTicks` now holds `qtyLots` (absolute, 0 removes), spec 2.17 / 6.2;
 * - MATCH_BUY / MATCH_SELL: a recorded trade (taker side) at the time it matched: this row
 *   moves queues and fills own orders, and nobody is told;
 * - PRINT_BUY / PRINT_SELL: the same trade when its execution frame was received: this row
 *   only tells the strategy (onTrade), it moves nothing.
 * `ROW_FRAME_END` is or-ed into the kind of the last row of a depth frame (the strategy's
 * onDepth fires per frame, not per level).
 *
 * ## Trade timing (why a trade has two rows)
 *
 * Depth changes at match time, but executions are published on the execution
 * channels after on-chain settlement, a block later (spec 6.4). A trade's depth
 * decrease therefore reaches the recording before its print. Replayed in receive
 * order, a queue model would first take the decrease for a cancel (risk-averse:
 * cap the queue ahead at the smaller level; probabilistic: split it ahead and
 * behind) and then advance the queue again by the print: the traded volume would
 * count twice.
 *
 * So, by default (`tradeTiming: "match"`), each trade is placed at its match:
 * the MATCH row goes just before the depth frame that carried its decrease,
 * found in the recording (matchFrames below): the latest frame received
 * before the print, at or before the execution's `timestamp` and within a
 * settlement window of it, in which the maker side's level at the trade's
 * price fell; the trade takes its quantity from that decrease (and earlier
 * ones in the window). An execution's `timestamp` is its settlement time on
 * shadowbook's own recordings (the block's, a block or more after the match:
 * src/risk/executions.ts), which is why the frame, not the timestamp, places
 * the trade. With no such decrease in the recording, the MATCH row goes just
 * before the first depth frame of its market whose exchange time
 * (Depth.updatedAt, else the envelope timestamp) is at or after the
 * execution's `timestamp`, and never later than its print. The queue then
 * sees "trade, then the decrease it caused", the order hftbacktest's
 * ProbQueueModel expects (nkaz001/hftbacktest,
 * hftbacktest/src/backtest/models/queue.rs), and the risk-averse cap finds
 * the queue already below the new level. The probabilistic model nets a
 * trade's lots out of its level's change in the frame the trade goes
 * before, and in no later frame (queue.ts, "Trades and depth changes"): if
 * that frame does not change the level (joiners at the price made up for
 * the trade, or its decrease was received earlier), they are dropped, and a
 * later decrease of the level is still a cancel. The strategy still learns
 * of the trade only when it was published (the PRINT row, plus its
 * market-data latency): the re-timing gives the queue no look-ahead the
 * strategy could use.
 *
 * Known limits: a cancel at the trade's price between the match and the
 * settlement can be taken for the trade's decrease (the trade then goes
 * before the cancel's frame: the probabilistic model splits the trade's own
 * decrease, received earlier, as a cancel, and nets the trade's lots out of
 * the cancel's decrease instead). Telling the two
 * decreases apart needs the trade's match time, which shadowbook's
 * executions do not carry (their `timestamp` is the settlement's), and the
 * depth feed does not say which orders left a level. On the shipped sample
 * 5 of 1,450 trades still find their level below their quantity at their
 * MATCH row (788 when placed at publication).
 *
 * `tradeTiming: "publication"` keeps receive order (the MATCH row right before its
 * PRINT), for comparison.
 *
 * Executions of a type other than ORDER_MATCH (liquidations against the pool,
 * ADL, market close) did not trade against the book and are skipped.
 */
import type { MdRecordingLike } from "./recording.ts";

export const ROW_CLEAR = 0;
export const ROW_BID = 1;
export const ROW_ASK = 2;
export const ROW_MATCH_BUY = 3;
export const ROW_MATCH_SELL = 4;
export const ROW_PRINT_BUY = 5;
export const ROW_PRINT_SELL = 6;
export const ROW_TYPE_MASK = 7;
export const ROW_FRAME_END = 8;

export type TradeTiming = "match" | "publication";

/** A market's grid: prices are whole ticks of tickSize, quantities whole lots of qtyStepSize (an order at least minOrderQty). */
export interface MarketGrid {
  readonly symbol: string;
  readonly tickSize: string;
  readonly qtyStepSize: string;
  /** The smallest order (a multiple of qtyStepSize); default: one lot. */
  readonly minOrderQty?: string;
}

export interface MarketTape extends MarketGrid {
  /** tickSize and qtyStepSize as numbers (for the decode's conversions and the float views). */
  readonly tick: number;
  readonly step: number;
  /** minOrderQty in lots (1 when the grid gives none). */
  readonly minOrderLots: number;
  readonly length: number;
  /** Receive time of the row's frame (a MATCH row: of the depth frame it precedes), µs. */
  readonly timeMicros: Float64Array;
  readonly kind: Uint8Array;
  readonly priceTicks: Float64Array;
  readonly qtyLots: Float64Array;
  /** Exchange time, ms: Depth.updatedAt of a depth row, the execution's timestamp of a trade row. */
  readonly exchMs: Float64Array;
  /** Lowest and highest price in ticks of any row (a book sized from them holds every level). */
  readonly minTicks: number;
  readonly maxTicks: number;
  readonly levels: number;
  readonly trades: number;
  readonly snapshots: number;
  /** Whether the grid was inferred from the decimals of the recording (no market definition given). */
  readonly inferredGrid: boolean;
}

export interface DecodeOptions {
  /** Symbols to replay (default: every market with a depth channel in the recording). */
  readonly markets?: readonly string[];
  /** Grids of known markets; a market without one gets its grid inferred from the recording's decimals. */
  readonly grids?: readonly MarketGrid[];
  readonly tradeTiming?: TradeTiming;
}

export interface DecodedRecording {
  readonly source: string;
  readonly tapes: readonly MarketTape[];
  /** Recorded events: depth level changes plus trades (each trade once). */
  readonly events: number;
  readonly frames: number;
  /** Rows not replayed: other channels, errors, executions that did not trade against the book. */
  readonly skipped: number;
  readonly gaps: number;
  readonly startMicros: number;
  readonly endMicros: number;
}

export class TapeDecodeError extends Error {
  override readonly name = "TapeDecodeError";
}

interface DepthWire {
  type?: unknown;
  bids?: unknown;
  asks?: unknown;
  updatedAt?: unknown;
}

interface ExecutionWire {
  side?: unknown;
  price?: unknown;
  qty?: unknown;
  timestamp?: unknown;
  type?: unknown;
}

/** The rows of one market as received, before trades are placed and prices put on the grid. */
class PendingMarket {
  // Depth rows, in receive order; frames index into them.
  readonly rowKind: number[] = [];
  readonly rowPx: number[] = [];
  readonly rowQty: number[] = [];
  readonly frameRecv: number[] = [];
  readonly frameExchMs: number[] = [];
  readonly frameSeq: number[] = [];
  readonly frameEnd: number[] = [];
  // Trades, in receive order.
  readonly tradeRecv: number[] = [];
  readonly tradeSeq: number[] = [];
  readonly tradeMatchMs: number[] = [];
  readonly tradeSell: number[] = [];
  readonly tradePx: number[] = [];
  readonly tradeQty: number[] = [];
  pxDigits = 0;
  qtyDigits = 0;
  snapshots = 0;

  constructor(
    readonly symbol: string,
    readonly inferGrid: boolean,
  ) {}

  price(text: unknown, field: string): number {
    if (typeof text !== "string") throw new TapeDecodeError(`${this.symbol} ${field} "${String(text)}" must be a decimal string`);
    if (this.inferGrid) this.pxDigits = Math.max(this.pxDigits, fractionDigits(text));
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new TapeDecodeError(`${this.symbol} ${field} "${text}" must be a decimal >= 0`);
    return value;
  }

  qty(text: unknown, field: string): number {
    if (typeof text !== "string") throw new TapeDecodeError(`${this.symbol} ${field} "${String(text)}" must be a decimal string`);
    if (this.inferGrid) this.qtyDigits = Math.max(this.qtyDigits, fractionDigits(text));
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new TapeDecodeError(`${this.symbol} ${field} "${text}" must be a decimal >= 0`);
    return value;
  }

  depth(depth: DepthWire, snapshot: boolean, recvMicros: number, exchMs: number, seq: number): void {
    if (snapshot) {
      this.rowKind.push(ROW_CLEAR);
      this.rowPx.push(0);
      this.rowQty.push(0);
      this.snapshots++;
    }
    this.levels(depth.bids, ROW_BID, "bids");
    this.levels(depth.asks, ROW_ASK, "asks");
    if (this.rowKind.length === (this.frameEnd.at(-1) ?? 0)) return; // an UPDATE with no level
    this.frameRecv.push(recvMicros);
    this.frameExchMs.push(exchMs);
    this.frameSeq.push(seq);
    this.frameEnd.push(this.rowKind.length);
  }

  private levels(levels: unknown, kind: number, field: string): void {
    if (levels === undefined) return;
    if (!Array.isArray(levels)) throw new TapeDecodeError(`${this.symbol} depth ${field} must be an array of {px, qty}`);
    for (const level of levels as { px?: unknown; qty?: unknown }[]) {
      this.rowKind.push(kind);
      this.rowPx.push(this.price(level.px, `depth ${field} px`));
      this.rowQty.push(this.qty(level.qty, `depth ${field} qty`));
    }
  }

  trade(execution: ExecutionWire, recvMicros: number, seq: number): boolean {
    if (execution.type !== undefined && execution.type !== "ORDER_MATCH") return false;
    if (execution.side !== "B" && execution.side !== "A") throw new TapeDecodeError(`${this.symbol} execution side "${String(execution.side)}" must be B or A`);
    this.tradeRecv.push(recvMicros);
    this.tradeSeq.push(seq);
    this.tradeMatchMs.push(typeof execution.timestamp === "number" ? execution.timestamp : Math.floor(recvMicros / 1000));
    this.tradeSell.push(execution.side === "A" ? 1 : 0);
    this.tradePx.push(this.price(execution.price, "execution price"));
    this.tradeQty.push(this.qty(execution.qty, "execution qty"));
    return true;
  }
}

/** Fraction digits of a plain decimal string ("0.010" -> 3); exponent forms count their shift. */
function fractionDigits(text: string): number {
  const exponentAt = text.search(/[eE]/);
  const mantissa = exponentAt < 0 ? text : text.slice(0, exponentAt);
  const exponent = exponentAt < 0 ? 0 : Number(text.slice(exponentAt + 1));
  const dot = mantissa.indexOf(".");
  const digits = dot < 0 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, digits - exponent);
}

const CHANNEL = /^\/v2\/market\/([A-Za-z0-9]+)\/(depth|perpExecutions|spotExecutions)$/;

interface ChannelRoute {
  readonly symbol: string;
  readonly depth: boolean;
}

/** Decodes a recording into per-market tapes (see the module comment for the row kinds and trade timing). */
export function decodeRecording(recording: MdRecordingLike, options: DecodeOptions = {}): DecodedRecording {
  const timing = options.tradeTiming ?? "match";
  const wanted = options.markets === undefined ? undefined : new Set(options.markets);
  const grids = new Map((options.grids ?? []).map((grid) => [grid.symbol, grid]));
  const routes = new Map<string, ChannelRoute | null>();
  const pending = new Map<string, PendingMarket>();
  const market = (symbol: string): PendingMarket => {
    let found = pending.get(symbol);
    if (found === undefined) {
      found = new PendingMarket(symbol, !grids.has(symbol));
      pending.set(symbol, found);
    }
    return found;
  };
  let skipped = 0;
  let gaps = 0;
  let frames = 0;
  let lastRecv = -Infinity;
  for (let i = 0; i < recording.length; i++) {
    const recvMicros = recording.recvMicros(i);
    if (recvMicros < lastRecv) throw new TapeDecodeError(`row ${i} recvMicros "${recvMicros}" is before the previous row's "${lastRecv}": a recording is in receive order`);
    lastRecv = recvMicros;
    const kind = recording.kind(i);
    if (kind === "gap") {
      gaps++;
      continue;
    }
    const channel = recording.channel(i);
    if ((kind !== "subscribed" && kind !== "data") || channel === null) {
      skipped++;
      continue;
    }
    let route = routes.get(channel);
    if (route === undefined) {
      const match = CHANNEL.exec(channel);
      route = match === null || (wanted !== undefined && !wanted.has(match[1]!)) ? null : { symbol: match[1]!, depth: match[2] === "depth" };
      routes.set(channel, route);
    }
    const text = route === null ? null : recording.frameText(i);
    if (route === null || text === null) {
      skipped++;
      continue;
    }
    frames++;
    const frame = JSON.parse(text) as { contents?: DepthWire; data?: unknown; timestamp?: unknown };
    const book = market(route.symbol);
    if (route.depth) {
      const depth = (kind === "subscribed" ? frame.contents : frame.data) as DepthWire | undefined;
      if (depth === undefined || depth === null) {
        skipped++;
        continue;
      }
      const exchMs = typeof depth.updatedAt === "number" ? depth.updatedAt : typeof frame.timestamp === "number" ? frame.timestamp : recording.timestampMs(i) ?? Math.floor(recvMicros / 1000);
      book.depth(depth, kind === "subscribed" || depth.type === "SNAPSHOT", recvMicros, exchMs, i);
    } else if (kind === "data") {
      if (!Array.isArray(frame.data)) throw new TapeDecodeError(`row ${i} ${channel} data must be an array of executions`);
      for (const execution of frame.data as ExecutionWire[]) {
        if (!book.trade(execution, recvMicros, i)) skipped++;
      }
    }
  }
  const symbols = wanted === undefined ? [...pending.keys()] : options.markets!.filter((symbol) => pending.has(symbol));
  if (wanted !== undefined) {
    for (const symbol of wanted) {
      if (!pending.has(symbol)) throw new TapeDecodeError(`market "${symbol}" has no depth or executions in the recording ${recording.source}`);
    }
  }
  const tapes = symbols.map((symbol) => buildTape(pending.get(symbol)!, grids.get(symbol), timing));
  let events = 0;
  for (const tape of tapes) events += tape.levels + tape.trades;
  const startMicros = recording.length === 0 ? 0 : recording.recvMicros(0);
  const endMicros = recording.length === 0 ? 0 : recording.recvMicros(recording.length - 1);
  return { source: recording.source, tapes, events, frames, skipped, gaps, startMicros, endMicros };
}

function onGrid(value: number, step: number, what: string, stepName: string, stepText: string): number {
  const units = Math.round(value / step);
  if (Math.abs(units * step - value) > step * 1e-6) throw new TapeDecodeError(`${what} "${value}" is not a multiple of ${stepName} "${stepText}"`);
  if (!Number.isSafeInteger(units)) throw new TapeDecodeError(`${what} "${value}" is too many ${stepName}s for a book`);
  return units;
}

/** The settlement lag a trade's depth change may precede its execution's timestamp by, at most (ms), when the recording gives no finer bound. */
const SETTLEMENT_WINDOW_MAX_MS = 1_000;
/**
 * How long a recorded decrease is kept for a trade to claim (ms): a window
 * back from the trade's timestamp, which is at most about a window before a
 * frame received ahead of its print.
 */
const DECREASE_HORIZON_MS = 2 * SETTLEMENT_WINDOW_MAX_MS;

/**
 * For each trade, the frame its MATCH row goes before ("match" timing), or
 * -1 for "right before its print". The frame that carried the trade's
 * depth decrease when one is found: the depth at the trade's price on the
 * maker side (bids for a sell, asks for a buy) fell in a frame received
 * before the print, no later than the execution's `timestamp` and at most a
 * settlement window before it; the latest such decrease is the trade's
 * (a cancel at that price is likelier long before the match than in the
 * moment between it and the settlement), and the trade takes its quantity
 * from it and the ones before (one taker's fills at one price share a
 * frame, and a frame's decrease is taken once). The window is twice the
 * smallest gap between two execution timestamps of the market (its block
 * interval, when executions carry their block's time, as shadowbook's do),
 * at most SETTLEMENT_WINDOW_MAX_MS. Otherwise (no such decrease: a
 * recording without it, or a trade whose timestamp is its match time and
 * whose frame comes at or after it) the first frame at or after the
 * execution's `timestamp`, if it comes before the print.
 */
function matchFrames(market: PendingMarket, step: number): Int32Array {
  const trades = market.tradeRecv.length;
  const before = new Int32Array(trades).fill(-1);
  const frameCount = market.frameRecv.length;
  const windowMs = settlementWindowMs(market);
  // Per side (0 bids, 1 asks): the recorded lots per price, and the decreases not yet taken by a trade.
  const books = [new Map<number, number>(), new Map<number, number>()];
  const decreases = [new Map<number, { frame: number; lots: number; exchMs: number }[]>(), new Map<number, { frame: number; lots: number; exchMs: number }[]>()];
  let frame = 0;
  let row = 0;
  for (let trade = 0; trade < trades; trade++) {
    for (; frame < frameCount && market.frameSeq[frame]! <= market.tradeSeq[trade]!; frame++) {
      const end = market.frameEnd[frame]!;
      for (; row < end; row++) {
        const rowKind = market.rowKind[row]!;
        if (rowKind === ROW_CLEAR) {
          for (const side of [0, 1]) {
            books[side]!.clear();
            decreases[side]!.clear();
          }
          continue;
        }
        const side = rowKind === ROW_BID ? 0 : 1;
        const price = market.rowPx[row]!;
        const lots = Math.round(market.rowQty[row]! / step);
        const had = books[side]!.get(price) ?? 0;
        if (lots < had) {
          const list = decreases[side]!.get(price);
          const entry = { frame, lots: had - lots, exchMs: market.frameExchMs[frame]! };
          if (list === undefined) decreases[side]!.set(price, [entry]);
          else {
            // A price no trade reaches would keep every cancel at it: drop what no later trade's window can reach.
            while (list.length > 0 && list[0]!.exchMs < entry.exchMs - DECREASE_HORIZON_MS) list.shift();
            list.push(entry);
          }
        }
        if (lots === 0) books[side]!.delete(price);
        else books[side]!.set(price, lots);
      }
    }
    const timestampMs = market.tradeMatchMs[trade]!;
    const list = decreases[market.tradeSell[trade] === 1 ? 0 : 1]!.get(market.tradePx[trade]!);
    if (list !== undefined) {
      while (list.length > 0 && list[0]!.exchMs < timestampMs - windowMs) list.shift();
      // The latest decrease at or before the timestamp (a cancel is likelier long before the match than just after it).
      let last = list.length - 1;
      while (last >= 0 && list[last]!.exchMs > timestampMs) last--;
      if (last >= 0) {
        before[trade] = list[last]!.frame;
        let need = Math.round(market.tradeQty[trade]! / step);
        for (let i = last; i >= 0 && need > 0; i--) {
          const entry = list[i]!;
          const taken = Math.min(need, entry.lots);
          entry.lots -= taken;
          need -= taken;
          if (entry.lots === 0) list.splice(i, 1);
        }
        continue;
      }
    }
    // No decrease found: the first frame at or after the timestamp, if it was received before the print.
    let low = 0;
    let high = frameCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (market.frameExchMs[mid]! < timestampMs) low = mid + 1;
      else high = mid;
    }
    if (low < frameCount && market.frameSeq[low]! <= market.tradeSeq[trade]!) before[trade] = low;
  }
  return before;
}

/** Twice the smallest gap between two distinct execution timestamps of the market, within [1, SETTLEMENT_WINDOW_MAX_MS] ms. */
function settlementWindowMs(market: PendingMarket): number {
  const times = [...new Set(market.tradeMatchMs)].sort((a, b) => a - b);
  let gap = Infinity;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i]! - times[i - 1]!);
  return Number.isFinite(gap) ? Math.min(SETTLEMENT_WINDOW_MAX_MS, Math.max(1, 2 * gap)) : SETTLEMENT_WINDOW_MAX_MS;
}

function buildTape(market: PendingMarket, grid: MarketGrid | undefined, timing: TradeTiming): MarketTape {
  const tickSize = grid?.tickSize ?? (market.pxDigits === 0 ? "1" : `0.${"0".repeat(market.pxDigits - 1)}1`);
  const qtyStepSize = grid?.qtyStepSize ?? (market.qtyDigits === 0 ? "1" : `0.${"0".repeat(market.qtyDigits - 1)}1`);
  const tick = Number(tickSize);
  const step = Number(qtyStepSize);
  if (!(tick > 0) || !(step > 0)) throw new TapeDecodeError(`${market.symbol} tickSize "${tickSize}" and qtyStepSize "${qtyStepSize}" must be positive`);
  const minOrderQty = grid?.minOrderQty;
  const minOrderLots = minOrderQty === undefined ? 1 : Math.max(1, onGrid(Number(minOrderQty), step, `${market.symbol} minOrderQty`, "qtyStepSize", qtyStepSize));
  const trades = market.tradeRecv.length;
  const length = market.rowKind.length + 2 * trades;
  const timeMicros = new Float64Array(length);
  const kind = new Uint8Array(length);
  const priceTicks = new Float64Array(length);
  const qtyLots = new Float64Array(length);
  const exchMs = new Float64Array(length);
  let minTicks = Infinity;
  let maxTicks = -Infinity;
  let at = 0;
  const symbol = market.symbol;
  const emitTrade = (j: number, time: number, base: number): void => {
    const ticks = onGrid(market.tradePx[j]!, tick, `${symbol} execution price`, "tickSize", tickSize);
    timeMicros[at] = time;
    kind[at] = base + market.tradeSell[j]!;
    priceTicks[at] = ticks;
    qtyLots[at] = onGrid(market.tradeQty[j]!, step, `${symbol} execution qty`, "qtyStepSize", qtyStepSize);
    exchMs[at] = market.tradeMatchMs[j]!;
    if (ticks < minTicks) minTicks = ticks;
    if (ticks > maxTicks) maxTicks = ticks;
    at++;
  };
  // Where each trade's MATCH row goes ("match" timing): before the frame that carried its depth decrease.
  const beforeFrame = timing === "match" ? matchFrames(market, step) : new Int32Array(trades).fill(-1);
  const buckets = new Map<number, number[]>();
  for (let j = 0; j < trades; j++) {
    const frameIndex = beforeFrame[j]!;
    if (frameIndex < 0) continue;
    const bucket = buckets.get(frameIndex);
    if (bucket === undefined) buckets.set(frameIndex, [j]);
    else bucket.push(j);
  }
  const placed = new Uint8Array(trades);
  let frame = 0;
  let trade = 0;
  let row = 0;
  const frameCount = market.frameRecv.length;
  while (frame < frameCount || trade < trades) {
    const frameFirst = trade >= trades || (frame < frameCount && market.frameSeq[frame]! <= market.tradeSeq[trade]!);
    if (frameFirst) {
      const recv = market.frameRecv[frame]!;
      for (const j of buckets.get(frame) ?? []) {
        emitTrade(j, recv, ROW_MATCH_BUY);
        placed[j] = 1;
      }
      const end = market.frameEnd[frame]!;
      for (; row < end; row++) {
        const rowKind = market.rowKind[row]!;
        timeMicros[at] = recv;
        kind[at] = rowKind | (row === end - 1 ? ROW_FRAME_END : 0);
        exchMs[at] = market.frameExchMs[frame]!;
        if (rowKind !== ROW_CLEAR) {
          const ticks = onGrid(market.rowPx[row]!, tick, `${symbol} depth px`, "tickSize", tickSize);
          priceTicks[at] = ticks;
          qtyLots[at] = onGrid(market.rowQty[row]!, step, `${symbol} depth qty`, "qtyStepSize", qtyStepSize);
          if (ticks < minTicks) minTicks = ticks;
          if (ticks > maxTicks) maxTicks = ticks;
        }
        at++;
      }
      frame++;
    } else {
      const recv = market.tradeRecv[trade]!;
      if (placed[trade] === 0) {
        emitTrade(trade, recv, ROW_MATCH_BUY);
        placed[trade] = 1;
      }
      emitTrade(trade, recv, ROW_PRINT_BUY);
      trade++;
    }
  }
  if (at !== length) throw new TapeDecodeError(`${symbol} tape has ${at} rows for ${length} expected`);
  return {
    symbol,
    tickSize,
    qtyStepSize,
    ...(minOrderQty === undefined ? {} : { minOrderQty }),
    tick,
    step,
    minOrderLots,
    length,
    timeMicros,
    kind,
    priceTicks,
    qtyLots,
    exchMs,
    minTicks: minTicks === Infinity ? 0 : minTicks,
    maxTicks: maxTicks === -Infinity ? 0 : maxTicks,
    levels: market.rowKind.length - market.snapshots,
    trades,
    snapshots: market.snapshots,
    inferredGrid: grid === undefined,
  };
}
