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
 * So, by default (`tradeTiming: "match"`), each trade is placed at its own match
 * time: the MATCH row goes just before the first depth frame of its market whose
 * exchange time (Depth.updatedAt, else the envelope timestamp) is at or after the
 * execution's `timestamp`, and never later than its print. The queue then sees
 * "trade, then the decrease it caused", the order hftbacktest's ProbQueueModel
 * expects (it nets the trades since the last depth change out of the next
 * decrease: nkaz001/hftbacktest, hftbacktest/src/backtest/models/queue.rs), and the
 * risk-averse cap finds the queue already below the new level. The strategy still
 * learns of the trade only when it was published (the PRINT row, plus its
 * market-data latency): the re-timing gives the queue no look-ahead the strategy
 * could use. A known limit: timestamps are milliseconds, so a trade goes before
 * every frame of its millisecond, including one that changed its level in the
 * same millisecond before the match.
 *
 * A known defect, open: shadowbook stamps an execution with its settlement
 * time (the block's, a block or more after the match: src/risk/executions.ts),
 * not its match time. On shadowbook's own recordings (data/default-sample.arrow,
 * `shadowbook record` of a served exchange) every depth frame a trade caused
 * is therefore older than the trade's `timestamp`, "match" timing places no
 * trade before its frame (it is the same as "publication"), and the queue
 * models count the trade's decrease as a cancel and then the trade again:
 * resting quotes fill more than they should. Placing a trade before the
 * frame that removed its quantity at its price (the frame is in the
 * recording; the match time is not) is the fix to make.
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

/** A market's grid: prices are whole ticks of tickSize, quantities whole lots of qtyStepSize. */
export interface MarketGrid {
  readonly symbol: string;
  readonly tickSize: string;
  readonly qtyStepSize: string;
}

export interface MarketTape extends MarketGrid {
  /** tickSize and qtyStepSize as numbers (for the decode's conversions and the float views). */
  readonly tick: number;
  readonly step: number;
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

function buildTape(market: PendingMarket, grid: MarketGrid | undefined, timing: TradeTiming): MarketTape {
  const tickSize = grid?.tickSize ?? (market.pxDigits === 0 ? "1" : `0.${"0".repeat(market.pxDigits - 1)}1`);
  const qtyStepSize = grid?.qtyStepSize ?? (market.qtyDigits === 0 ? "1" : `0.${"0".repeat(market.qtyDigits - 1)}1`);
  const tick = Number(tickSize);
  const step = Number(qtyStepSize);
  if (!(tick > 0) || !(step > 0)) throw new TapeDecodeError(`${market.symbol} tickSize "${tickSize}" and qtyStepSize "${qtyStepSize}" must be positive`);
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
  // Trades by match time (stable: receive order within a millisecond).
  const byMatch = Array.from({ length: trades }, (_, j) => j).sort((a, b) => market.tradeMatchMs[a]! - market.tradeMatchMs[b]! || a - b);
  const placed = new Uint8Array(trades);
  let nextByMatch = 0;
  let frame = 0;
  let trade = 0;
  let row = 0;
  const frameCount = market.frameRecv.length;
  while (frame < frameCount || trade < trades) {
    const frameFirst = trade >= trades || (frame < frameCount && market.frameSeq[frame]! <= market.tradeSeq[trade]!);
    if (frameFirst) {
      const recv = market.frameRecv[frame]!;
      if (timing === "match") {
        const frameMs = market.frameExchMs[frame]!;
        while (nextByMatch < trades) {
          const j = byMatch[nextByMatch]!;
          if (placed[j] === 1) {
            nextByMatch++;
            continue;
          }
          if (market.tradeMatchMs[j]! > frameMs) break;
          emitTrade(j, recv, ROW_MATCH_BUY);
          placed[j] = 1;
          nextByMatch++;
        }
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
    tick,
    step,
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
