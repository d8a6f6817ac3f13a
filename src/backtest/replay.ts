/**
 * The market-data replay backtest: the recorded books replay exactly as
 * recorded, and one strategy's orders wait in them under a queue-position
 * model, with latency both ways (hftbacktest's design: nkaz001/hftbacktest,
 * hftbacktest/src/backtest/proc/partialfillexchange.rs and
 * models/{queue,latency}.rs; here in one loop rather than two processors).
 *
 * ## Clocks and paths
 *
 * The exchange side runs on the recording's receive times (`recvMicros`):
 * the replayed book at time t is the recording's book as received at t.
 * Three paths, each an `OrderedPath` over a seeded `latencyModel`
 * (src/sim/latency.ts; streams `latency:replay:<path>`), link the strategy:
 * - order entry: an order or cancel sent at local time t reaches the book at
 *   t + entry latency (never before one sent earlier);
 * - responses: acceptances, rejections, cancels and fills reach the strategy
 *   after the response latency;
 * - market data: each depth frame and each trade print reaches the
 *   strategy after the market-data latency; its book view (`ctx.book`) is a
 *   second replayed book that applies the frames as they arrive. Messages
 *   received together (the same `recvMicros`: one read by the recorder, on
 *   any market) arrive together: one latency draw per receive time, each
 *   frame still its own onDepth callback with the book as of that frame.
 * At equal times: recorded rows first, then arrivals at the exchange, then
 * responses, market data and timers, in that order.
 *
 * ## Fill rules (the exchange side)
 *
 * An arriving order:
 * - IOC: takes the displayed depth up to its limit price, best price first,
 *   each level at its own price (taker); the rest is cancelled ("IOC remainder");
 * - GTC postOnly that would cross the opposite best: rejected;
 * - GTC: takes what crosses like an IOC, and the rest rests at its price,
 *   with the whole displayed level at that price ahead of it (queue model
 *   `start`; at a price beyond the depth window, whatever is shown there
 *   once the level enters it: queue.ts, "Depth window");
 * - an order that would meet an own resting order on the other side (own
 *   orders are not in the replayed book, so they are checked apart): a
 *   postOnly one is rejected; any other takes the displayed depth better
 *   than that own order and, at its price, the recorded lots ahead of it,
 *   then stops there and its rest is cancelled ("self-trade prevention",
 *   the exchange's cancel-taker rule, src/engine/matcher.ts): own orders
 *   never rest crossed with each other.
 * A resting order (maker, at its own price):
 * - a recorded trade at its price whose taker is on the other side advances
 *   the queue (`trade`); the part that goes beyond the queue ahead fills it
 *   (partial fills; a fractional queue rounds down to whole lots); own
 *   orders at one price queue in the order they arrived, so a trade's lots
 *   fill them once, the earliest first;
 * - a recorded trade through its price (a buyer paid more than its ask, a
 *   seller took less than its bid) fills it fully;
 * - the opposite best moving to or through its price (a depth frame whose
 *   best ask fell to its bid or below, or best bid rose to its ask or
 *   above) fills it fully;
 * - a depth change at its level moves it by the queue model (`depth`); a
 *   snapshot is taken as one change per level (before -> after); a level
 *   sent as 0 because it left the depth window (the feed's best 100 a side)
 *   is out of sight, not emptied, and the order keeps its place until the
 *   level is shown again (queue.ts, "Depth window").
 * A cancel arriving after the order filled is refused ("already filled"):
 * the cancel lost the race.
 *
 * The run ends at the last recorded row (or `untilMicros`): responses and
 * market data on their way then still reach the strategy; orders in flight
 * and later timers do not run.
 *
 * Own orders never enter the replayed book (as in hftbacktest): the
 * recorded market does not react to them. With `impact: true`, own taker
 * fills remove the liquidity they took (ReplayBook.consume) until the level
 * is recorded empty or the next snapshot, on the exchange side and, after
 * the market-data latency, in the strategy's view.
 *
 * The loop merges the per-market tapes by time directly (a linear scan of
 * the few tape heads, ties to the first market) and keeps the strategy's
 * traffic in four FIFO queues (every path is ordered, so arrivals are
 * monotone) and a short sorted timer list: no general event queue, and no
 * allocation per recorded event.
 *
 * Frames reach a strategy without onDepth lazily: they wait in the
 * market-data queue ("silent" entries, which interrupt nothing) and its
 * view applies them, in order and in one run per market, when it is read
 * (ctx.book, or a view kept from before) or when a callback after them is
 * due. A view read in a callback at time t shows what eager delivery would
 * have: every frame that arrived before t, and at t too in a timer (market
 * data before timers at equal times) but not in a response (responses
 * first). A strategy that acts on timers pays nothing per frame but the
 * latency draw and the replay of its view.
 *
 * Deterministic: no clock reads here (the runner, run.ts, measures wall time).
 */
import { Dec } from "../core/decimal.ts";
import { RngRoot } from "../core/rng.ts";
import type { Micros } from "../core/time.ts";
import { DEFAULT_AGENT_LATENCY, latencyModel, OrderedPath, type AgentLatency } from "../sim/latency.ts";
import { replayParamsProblem } from "../sim/scenario.ts";
import { DEFAULT_FEES, MarketAccount, type FeeRates, type FillRecord, type MarketAccountSummary } from "./account.ts";
import { ReplayBook } from "./book.ts";
import { DEPTH_STREAM_LEVELS } from "../spec/limits.ts";
import { IN_WINDOW, leaveWindow, reenterWindow, startOutsideWindow, type QueueModel, type WindowedPosition } from "./queue.ts";
import {
  ReplayStrategyError,
  type BookView,
  type FillView,
  type LocalOrder,
  type LocalOrderStatus,
  type MarketInfo,
  type OrderRequest,
  type OrderUpdate,
  type OrderUpdateType,
  type ReplayContext,
  type ReplayStrategy,
  type Side,
  type TradeView,
} from "./strategy.ts";
import {
  ROW_ASK,
  ROW_BID,
  ROW_CLEAR,
  ROW_FRAME_END,
  ROW_MATCH_BUY,
  ROW_MATCH_SELL,
  ROW_PRINT_BUY,
  ROW_TYPE_MASK,
  type DecodedRecording,
  type MarketTape,
} from "./tape.ts";

export interface ReplayOptions {
  readonly seed: number;
  readonly queue: QueueModel;
  // The strategy's parameter and state types are erased here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly strategy: ReplayStrategy<any, any>;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly latency?: Partial<AgentLatency>;
  readonly fees?: FeeRates;
  readonly impact?: boolean;
  /** Replay no recorded row after this time (µs). Default: the whole recording. */
  readonly untilMicros?: Micros;
  /** Levels a side of the recorded depth feed carries (queue.ts, "Depth window"). Default: DEPTH_STREAM_LEVELS (100, spec 6.2). */
  readonly depthWindowLevels?: number;
  /** Called with every own fill, at its exchange time. */
  readonly onFill?: (fill: FillRecord) => void;
}

export interface ReplayCounts {
  readonly rows: number;
  readonly orders: number;
  readonly cancels: number;
  readonly rejected: number;
  /** Cancels that arrived after their order had filled. */
  readonly cancelsTooLate: number;
  readonly depthCallbacks: number;
  readonly tradeCallbacks: number;
}

export interface ReplayResult {
  readonly strategy: string;
  readonly queueModel: string;
  readonly impact: boolean;
  readonly seed: number;
  readonly events: number;
  readonly startMicros: Micros;
  readonly endMicros: Micros;
  readonly counts: ReplayCounts;
  readonly markets: readonly MarketAccountSummary[];
  readonly total: { readonly fills: number; readonly volume: string; readonly fees: string; readonly realizedPnl: string; readonly unrealizedPnl: string; readonly pnl: string };
  readonly fills: readonly FillRecord[];
}

/** Exchange-side states of an own order. */
const IN_FLIGHT = 0;
const RESTING = 1;
const DONE = 2;
type OrderState = typeof IN_FLIGHT | typeof RESTING | typeof DONE;

interface OwnOrder extends WindowedPosition {
  readonly id: number;
  readonly market: number;
  readonly symbol: string;
  readonly side: Side;
  readonly buy: boolean;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly timeInForce: "GTC" | "IOC";
  readonly postOnly: boolean;
  /** Exchange side. */
  state: OrderState;
  leavesLots: number;
  /** Level quantity before a snapshot started (the snapshot is one depth change). */
  snapshotBefore: number;
  /** The level was sent as 0 in the current frame: its quantity before (-1: not), settled at the frame's end (settleWindow). */
  removedLots: number;
  /** The strategy's side. */
  local: MutableLocalOrder | null;
}

interface MutableLocalOrder {
  id: number;
  symbol: string;
  side: Side;
  priceTicks: number;
  qtyLots: number;
  leavesLots: number;
  status: LocalOrderStatus;
  timeInForce: "GTC" | "IOC";
}

type Entry = { atMicros: number; order: OwnOrder; cancel: boolean };
type Response = { atMicros: number; order: OwnOrder; update: OrderUpdateType | null; reason: string; fill: FillRecord | null };
type Timer = { atMicros: number; id: number; tag: string };

/** A FIFO over an array (head index, compacted when half is consumed). */
class Fifo<T extends { atMicros: number }> {
  private items: T[] = [];
  private head = 0;

  get nextMicros(): number {
    return this.head < this.items.length ? this.items[this.head]!.atMicros : Infinity;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T {
    const item = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/**
 * Market-data deliveries: (arrival, market, tape row or impact entry), in
 * typed arrays, FIFO (arrivals are monotone: one ordered path). An entry is
 * "loud" when it calls the strategy (a depth frame with onDepth, a print
 * with onTrade): only loud entries are scheduled; "silent" ones (frames
 * without onDepth, impact removals) only change the strategy's book view,
 * and are applied when the view is read (ReplayBacktest.syncView) or when
 * a loud entry after them is delivered.
 */
class MdQueue {
  atMicros = new Float64Array(1024);
  market = new Int32Array(1024);
  row = new Int32Array(1024);
  loud = new Uint8Array(1024);
  head = 0;
  tail = 0;
  /** Loud entries in [head, tail), and the index of the first one (valid when loudCount > 0). */
  loudCount = 0;
  nextLoud = 0;

  /** Arrival of the next loud entry (Infinity: none). */
  get nextLoudMicros(): number {
    return this.loudCount > 0 ? this.atMicros[this.nextLoud]! : Infinity;
  }

  push(atMicros: number, market: number, row: number, loud: boolean): void {
    if (this.tail === this.atMicros.length) this.makeRoom();
    const at = this.tail++;
    this.atMicros[at] = atMicros;
    this.market[at] = market;
    this.row[at] = row;
    this.loud[at] = loud ? 1 : 0;
    if (loud && this.loudCount++ === 0) this.nextLoud = at;
  }

  /** Takes the first loud entry off the loud schedule (the entries before it must have been taken); returns its index. */
  takeLoud(): number {
    const at = this.nextLoud;
    this.head = at + 1;
    if (--this.loudCount > 0) {
      let next = at + 1;
      while (this.loud[next] === 0) next++;
      this.nextLoud = next;
    }
    return at;
  }

  private makeRoom(): void {
    const live = this.tail - this.head;
    const shift = this.head;
    if (live * 2 <= this.atMicros.length) {
      this.atMicros.copyWithin(0, this.head, this.tail);
      this.market.copyWithin(0, this.head, this.tail);
      this.row.copyWithin(0, this.head, this.tail);
      this.loud.copyWithin(0, this.head, this.tail);
    } else {
      const grow = <A extends Float64Array | Int32Array | Uint8Array>(array: A): A => {
        const next = new (array.constructor as new (length: number) => A)(array.length * 2);
        next.set(array.subarray(this.head, this.tail) as never);
        return next;
      };
      this.atMicros = grow(this.atMicros);
      this.market = grow(this.market);
      this.row = grow(this.row);
      this.loud = grow(this.loud);
    }
    this.tail = live;
    this.head = 0;
    this.nextLoud -= shift;
  }
}

/** The strategy's view of a market: its book, brought up to date (silent frames applied) whenever it is read. */
class LocalBookView implements BookView {
  constructor(
    readonly symbol: string,
    readonly book: ReplayBook,
    private readonly replay: ReplayBacktest,
  ) {}
  get bestBidTicks(): number {
    this.replay.syncView();
    return this.book.bestBidTicks;
  }
  get bestAskTicks(): number {
    this.replay.syncView();
    return this.book.bestAskTicks;
  }
  get midTicks(): number {
    this.replay.syncView();
    return this.book.midTicks;
  }
  qtyAt(side: Side, priceTicks: number): number {
    this.replay.syncView();
    return this.book.qtyAt(side === "B", priceTicks);
  }
  levels(side: Side, count: number): [number, number][] {
    this.replay.syncView();
    return this.book.levels(side === "B", count);
  }
}

export class ReplayBacktest {
  private readonly tapes: readonly MarketTape[];
  private readonly books: ReplayBook[];
  private readonly localBooks: ReplayBook[];
  private readonly views: LocalBookView[];
  private readonly cursors: Int32Array;
  private readonly localCursors: Int32Array;
  /** Own resting orders per market and side. */
  private readonly bids: OwnOrder[][];
  private readonly asks: OwnOrder[][];
  /** Whether a market is inside a snapshot frame (own orders get one depth change at its end). */
  private readonly inSnapshot: Uint8Array;
  /** Whether a market has own orders whose level was sent as 0 this frame or is out of the depth window (settleWindow). */
  private readonly windowWatch: Uint8Array;
  /**
   * Whether a recorded trade reached an own order's queue in a market this
   * frame (tradeAtOwn, QueueModel.trade): only then can an own order's
   * tradedLots be other than 0 at the frame's end, so only then does
   * frameEnd walk the orders to reset them.
   */
  private readonly tradedAtOwn: Uint8Array;
  private readonly depthWindowLevels: number;
  private readonly lastBestBid: Float64Array;
  private readonly lastBestAsk: Float64Array;
  private readonly lastTradeTicks: Float64Array;
  private readonly accounts: MarketAccount[];
  private readonly symbols: Map<string, number>;
  private readonly queue: QueueModel;
  private readonly impact: boolean;
  private readonly entry: OrderedPath;
  private readonly responses: OrderedPath;
  private readonly marketData: OrderedPath;
  private readonly entries = new Fifo<Entry>();
  private readonly responseQueue = new Fifo<Response>();
  private readonly md = new MdQueue();
  private readonly impactLog: number[] = [];
  /** Per market: the last frame-end row of silent entries being applied (-1: none). */
  private readonly pendingLocal: Int32Array;
  private timers: Timer[] = [];
  private readonly localOrders: MutableLocalOrder[] = [];
  private readonly localPositions: Float64Array;
  private readonly fills: FillRecord[] = [];
  private readonly strategy: ReplayStrategy<unknown, unknown>;
  private readonly ctx: ReplayContext;
  private state: unknown;
  private readonly tradeView: { symbol: string; side: Side; priceTicks: number; qtyLots: number; matchMs: number } = { symbol: "", side: "B", priceTicks: 0, qtyLots: 0, matchMs: 0 };
  private readonly untilMicros: number;
  private nowMicros = 0;
  private localNow = 0;
  private nextOrderId = 1;
  private nextTimerId = 1;
  private nextFillId = 1;
  private rows = 0;
  private orders = 0;
  private cancels = 0;
  private rejected = 0;
  private cancelsTooLate = 0;
  private depthCallbacks = 0;
  private tradeCallbacks = 0;
  private readonly wantsTrades: boolean;
  /** Whether depth frames call the strategy (onDepth): loud md entries, else silent ones. */
  private readonly wantsDepth: boolean;
  /**
   * What the strategy's view may show during the current callback: md
   * entries that arrived before `viewMicros` (at it too when `viewInclusive`).
   */
  private viewMicros = -Infinity;
  private viewInclusive = false;
  /** The last market-data send time and its arrival: messages sent together arrive together (one draw). */
  private mdSentMicros = NaN;
  private mdArrivalMicros = 0;
  /** Own order price range per market and side (empty: lo > hi): rows outside it skip the queue work. */
  private readonly bidLo: Float64Array;
  private readonly bidHi: Float64Array;
  private readonly askLo: Float64Array;
  private readonly askHi: Float64Array;

  constructor(
    private readonly decoded: DecodedRecording,
    private readonly options: ReplayOptions,
  ) {
    this.tapes = decoded.tapes;
    const count = this.tapes.length;
    const fees = options.fees ?? DEFAULT_FEES;
    this.books = this.tapes.map((tape) => new ReplayBook(tape.symbol, tape.minTicks, tape.maxTicks));
    this.localBooks = this.tapes.map((tape) => new ReplayBook(tape.symbol, tape.minTicks, tape.maxTicks));
    this.views = this.tapes.map((tape, index) => new LocalBookView(tape.symbol, this.localBooks[index]!, this));
    this.cursors = new Int32Array(count);
    this.localCursors = new Int32Array(count);
    this.bids = this.tapes.map(() => []);
    this.asks = this.tapes.map(() => []);
    this.inSnapshot = new Uint8Array(count);
    this.windowWatch = new Uint8Array(count);
    this.tradedAtOwn = new Uint8Array(count);
    this.depthWindowLevels = options.depthWindowLevels ?? DEPTH_STREAM_LEVELS;
    if (!(Number.isSafeInteger(this.depthWindowLevels) && this.depthWindowLevels > 0)) {
      throw new RangeError(`depthWindowLevels "${options.depthWindowLevels}" must be a positive whole number of levels`);
    }
    this.lastBestBid = new Float64Array(count).fill(-1);
    this.lastBestAsk = new Float64Array(count).fill(Infinity);
    this.lastTradeTicks = new Float64Array(count).fill(NaN);
    this.accounts = this.tapes.map((tape) => new MarketAccount(tape.symbol, tape.tickSize, tape.qtyStepSize, fees));
    this.localPositions = new Float64Array(count);
    this.symbols = new Map(this.tapes.map((tape, index) => [tape.symbol, index]));
    this.queue = options.queue;
    this.impact = options.impact ?? false;
    const latency: AgentLatency = { ...DEFAULT_AGENT_LATENCY, ...options.latency };
    const rng = new RngRoot(options.seed);
    this.entry = new OrderedPath(latencyModel(latency.orderEntry, rng.stream("latency:replay:orderEntry"), "latency.orderEntry"));
    this.responses = new OrderedPath(latencyModel(latency.responses, rng.stream("latency:replay:responses"), "latency.responses"));
    this.marketData = new OrderedPath(latencyModel(latency.marketData, rng.stream("latency:replay:marketData"), "latency.marketData"));
    this.untilMicros = options.untilMicros ?? Infinity;
    this.strategy = options.strategy as ReplayStrategy<unknown, unknown>;
    this.wantsTrades = this.strategy.onTrade !== undefined;
    this.wantsDepth = this.strategy.onDepth !== undefined;
    this.pendingLocal = new Int32Array(count).fill(-1);
    this.bidLo = new Float64Array(count).fill(Infinity);
    this.bidHi = new Float64Array(count).fill(-Infinity);
    this.askLo = new Float64Array(count).fill(Infinity);
    this.askHi = new Float64Array(count).fill(-Infinity);
    this.ctx = this.makeContext(rng);
  }

  /** Runs the whole recording (or up to `untilMicros`); returns the summary and fills. */
  run(): ReplayResult {
    const strategy = this.strategy;
    const start = this.decoded.startMicros;
    let end = Math.min(this.decoded.endMicros, this.untilMicros);
    if (!(end >= start)) end = start;
    this.nowMicros = start;
    this.localNow = start;
    // checkScenario checked them already, unless the caller skipped it.
    const problem = replayParamsProblem(strategy, this.options.params);
    if (problem !== null) throw new ReplayStrategyError(`replay strategy "${strategy.name}": ${problem}`);
    this.state = strategy.init({ ...(strategy.defaults as object), ...this.options.params }, this.ctx);
    strategy.onStart?.(this.ctx, this.state);
    const tapes = this.tapes;
    const count = tapes.length;
    const cursors = this.cursors;
    for (;;) {
      // The earliest tape head (ties: the first market), and the one after it.
      let market = -1;
      let first = Infinity;
      let second = Infinity;
      let secondMarket = count;
      for (let m = 0; m < count; m++) {
        const tape = tapes[m]!;
        const cursor = cursors[m]!;
        if (cursor >= tape.length) continue;
        const time = tape.timeMicros[cursor]!;
        if (time < first) {
          second = first;
          secondMarket = market;
          first = time;
          market = m;
        } else if (time < second) {
          second = time;
          secondMarket = m;
        }
      }
      // Deliveries due before the next recorded row (they cannot move the tape heads).
      const other = this.deliverBefore(first < end ? first : end, first > end);
      if (market >= 0 && first <= other && first <= end) {
        // Rows of this market up to the next other market's head (ties go to the lower market index) and the next delivery.
        const limit = Math.min(second, other, end);
        const inclusive = limit === second ? market < secondMarket : true;
        this.replayRows(market, limit, inclusive);
        continue;
      }
      if (!(other <= end)) break;
    }
    this.drain();
    this.nowMicros = end;
    this.localNow = Math.max(this.localNow, end);
    strategy.onEnd?.(this.ctx, this.state);
    return this.result(start, end);
  }

  /**
   * The hot loop: applies rows of one market while their time is before
   * `limit` (or equal, when `inclusive`) and no delivery came due earlier.
   */
  private replayRows(market: number, limitMicros: number, inclusiveLimit: boolean): void {
    const tape = this.tapes[market]!;
    const times = tape.timeMicros;
    const kinds = tape.kind;
    const prices = tape.priceTicks;
    const lots = tape.qtyLots;
    const book = this.books[market]!;
    const ownBids = this.bids[market]!;
    const ownAsks = this.asks[market]!;
    const inSnapshot = this.inSnapshot;
    const wantsTrades = this.wantsTrades;
    const wantsDepth = this.wantsDepth;
    const length = tape.length;
    let limit = limitMicros;
    let inclusive = inclusiveLimit;
    let row = this.cursors[market]!;
    const first = row;
    while (row < length) {
      const time = times[row]!;
      if (time > limit || (time === limit && !inclusive)) break;
      const kind = kinds[row]!;
      const type = kind & ROW_TYPE_MASK;
      if (type === ROW_BID) {
        const priceTicks = prices[row]!;
        const previous = book.setBid(priceTicks, lots[row]!);
        // O(1) when no own bid can be at this price (the usual case).
        if (priceTicks >= this.bidLo[market]! && priceTicks <= this.bidHi[market]! && inSnapshot[market] === 0) {
          this.levelChanged(market, ownBids, priceTicks, previous, book.qtyAt(true, priceTicks));
        }
      } else if (type === ROW_ASK) {
        const priceTicks = prices[row]!;
        const previous = book.setAsk(priceTicks, lots[row]!);
        if (priceTicks >= this.askLo[market]! && priceTicks <= this.askHi[market]! && inSnapshot[market] === 0) {
          this.levelChanged(market, ownAsks, priceTicks, previous, book.qtyAt(false, priceTicks));
        }
      } else if (type === ROW_CLEAR) {
        this.nowMicros = time;
        this.startSnapshot(market);
      } else if (type <= ROW_MATCH_SELL) {
        this.lastTradeTicks[market] = prices[row]!;
        const resting = type === ROW_MATCH_BUY ? ownAsks : ownBids;
        if (resting.length > 0) {
          this.nowMicros = time;
          this.tradeAtOwn(market, type === ROW_MATCH_BUY, prices[row]!, lots[row]!);
          ({ limit, inclusive } = this.boundByResponses(limit, inclusive));
        }
      } else if (wantsTrades) {
        const due = this.sendMarketData(time, market, row, true);
        if (due < limit) {
          // Rows at the delivery's time still come first (recorded rows before deliveries at equal times).
          limit = due;
          inclusive = true;
        }
      }
      if ((kind & ROW_FRAME_END) !== 0) {
        if (ownBids.length + ownAsks.length > 0 || inSnapshot[market] === 1) {
          this.nowMicros = time;
          this.frameEnd(market);
          ({ limit, inclusive } = this.boundByResponses(limit, inclusive));
        }
        const due = this.sendMarketData(time, market, row, wantsDepth);
        if (due < limit) {
          limit = due;
          inclusive = true;
        }
      }
      row++;
    }
    this.cursors[market] = row;
    this.rows += row - first;
  }

  /**
   * A row that filled an own order queued the fill's response: the loop may
   * not replay past the time it reaches the strategy, which may answer it
   * (cancel another order, send an IOC) before later rows apply. Rows at
   * that time still come first, as before a market-data delivery.
   */
  private boundByResponses(limit: number, inclusive: boolean): { limit: number; inclusive: boolean } {
    const due = this.responseQueue.nextMicros;
    return due < limit ? { limit: due, inclusive: true } : { limit, inclusive };
  }

  /**
   * Queues a market-data message sent at `sentMicros` (a frame end, a print,
   * or an impact entry: row < 0) on its way to the strategy; returns when
   * the next loud one arrives. Messages sent at the same time (received
   * together by the recorder: one read) arrive together: one latency draw
   * per send time, not per message.
   */
  private sendMarketData(sentMicros: number, market: number, row: number, loud: boolean): number {
    const md = this.md;
    if (sentMicros !== this.mdSentMicros) {
      this.mdSentMicros = sentMicros;
      this.mdArrivalMicros = this.marketData.arrival(sentMicros);
    }
    // Silent entries pile up while the strategy does not read its book: apply the ones already due for room.
    if (md.tail === md.atMicros.length && md.head < md.tail && md.atMicros[md.head]! < sentMicros) this.applySilent(sentMicros, false, md.tail);
    md.push(this.mdArrivalMicros, market, row, loud);
    return md.nextLoudMicros;
  }

  /**
   * Brings the strategy's book views up to what it may see in the current
   * callback (silent md entries that arrived before the callback's time;
   * loud ones were delivered already). Called whenever a view is read.
   */
  syncView(): void {
    const md = this.md;
    if (md.head === md.tail) return;
    const at = md.atMicros[md.head]!;
    if (at < this.viewMicros || (at === this.viewMicros && this.viewInclusive)) this.applySilent(this.viewMicros, this.viewInclusive, md.tail);
  }

  /**
   * Applies md entries from the head, in order, while they arrived before
   * `limitMicros` (at it too when `inclusive`), stopping at index `stop`
   * and at a loud entry: frames to the views (each market's rows in one
   * run), impact removals in their place among them.
   */
  private applySilent(limitMicros: number, inclusive: boolean, stop: number): void {
    const md = this.md;
    const atMicros = md.atMicros;
    const markets = md.market;
    const rows = md.row;
    const loud = md.loud;
    const pending = this.pendingLocal;
    let head = md.head;
    for (; head < stop; head++) {
      const at = atMicros[head]!;
      if (at > limitMicros || (at === limitMicros && !inclusive) || loud[head] === 1) break;
      const market = markets[head]!;
      const row = rows[head]!;
      if (row >= 0) {
        pending[market] = row;
        continue;
      }
      if (pending[market]! >= 0) {
        this.applyLocal(market, pending[market]!);
        pending[market] = -1;
      }
      this.consumeLocal(market, row);
    }
    md.head = head;
    for (let market = 0; market < pending.length; market++) {
      if (pending[market]! >= 0) {
        this.applyLocal(market, pending[market]!);
        pending[market] = -1;
      }
    }
  }

  /**
   * A level at an own order's price changed. A 0 waits for the frame's end,
   * which tells whether the level emptied or left the depth window
   * (settleWindow); a level out of the window only matters when it is shown
   * again (queue.ts, "Depth window").
   */
  private levelChanged(market: number, orders: OwnOrder[], priceTicks: number, previous: number, lots: number): void {
    for (let i = 0; i < orders.length; i++) {
      const order = orders[i]!;
      if (order.priceTicks !== priceTicks) continue;
      if (order.hiddenLots !== IN_WINDOW) {
        if (lots > 0) reenterWindow(this.queue, order, lots);
        continue;
      }
      let before = previous;
      if (order.removedLots >= 0) {
        // Sent as 0 and again in one frame: one change.
        before = order.removedLots;
        order.removedLots = -1;
      }
      if (lots === 0 && before > 0) {
        order.removedLots = before;
        this.windowWatch[market] = 1;
      } else {
        this.queue.depth(order, before, lots);
      }
    }
  }

  /** A snapshot frame ended: the level of an own order went from `snapshotBefore` to `lots`, as in levelChanged. */
  private snapshotChanged(market: number, order: OwnOrder, lots: number): void {
    if (order.hiddenLots !== IN_WINDOW) {
      if (lots > 0) reenterWindow(this.queue, order, lots);
      return;
    }
    if (lots === 0 && order.snapshotBefore > 0) {
      order.removedLots = order.snapshotBefore;
      this.windowWatch[market] = 1;
      return;
    }
    this.queue.depth(order, order.snapshotBefore, lots);
  }

  /**
   * At a frame's end (the book whole again): a level sent as 0 left the
   * depth window if it lies beyond it (ReplayBook.beyondWindow), else it
   * emptied; a level out of the window that now lies inside it, not sent
   * again, is empty (queue.ts, "Depth window").
   */
  private settleWindow(market: number): void {
    const book = this.books[market]!;
    let watch = 0;
    for (let side = 0; side < 2; side++) {
      const orders = (side === 0 ? this.bids : this.asks)[market]!;
      const bid = side === 0;
      // At most once per side, when an order first needs it: nothing below changes the book.
      let edge: number | undefined;
      for (let i = 0; i < orders.length; i++) {
        const order = orders[i]!;
        if (order.removedLots >= 0) {
          const before = order.removedLots;
          order.removedLots = -1;
          edge ??= book.windowEdge(bid, this.depthWindowLevels);
          if (book.beyondEdge(bid, order.priceTicks, edge)) leaveWindow(order, before);
          else this.queue.depth(order, before, 0);
        } else if (order.hiddenLots !== IN_WINDOW && !book.beyondEdge(bid, order.priceTicks, (edge ??= book.windowEdge(bid, this.depthWindowLevels)))) {
          reenterWindow(this.queue, order, book.qtyAt(order.buy, order.priceTicks));
        }
        if (order.hiddenLots !== IN_WINDOW) watch = 1;
      }
    }
    this.windowWatch[market] = watch;
  }

  private startSnapshot(market: number): void {
    const book = this.books[market]!;
    for (const order of this.bids[market]!) order.snapshotBefore = book.qtyAt(true, order.priceTicks);
    for (const order of this.asks[market]!) order.snapshotBefore = book.qtyAt(false, order.priceTicks);
    this.inSnapshot[market] = 1;
    book.clear();
  }

  /**
   * A depth frame ended: a snapshot's level changes reach own orders, levels
   * sent as 0 are told emptied or out of the depth window, the trades placed
   * before the frame stop counting against later changes, and a best that
   * moved through own prices fills them.
   */
  private frameEnd(market: number): void {
    const book = this.books[market]!;
    const ownBids = this.bids[market]!;
    const ownAsks = this.asks[market]!;
    if (this.inSnapshot[market] === 1) {
      this.inSnapshot[market] = 0;
      for (const order of ownBids) this.snapshotChanged(market, order, book.qtyAt(true, order.priceTicks));
      for (const order of ownAsks) this.snapshotChanged(market, order, book.qtyAt(false, order.priceTicks));
    }
    if (this.windowWatch[market] === 1) this.settleWindow(market);
    // A trade's lots are netted out of its level's change in this frame only (queue.ts, "Trades and depth changes").
    if (this.tradedAtOwn[market] === 1) {
      this.tradedAtOwn[market] = 0;
      for (let i = 0; i < ownBids.length; i++) ownBids[i]!.tradedLots = 0;
      for (let i = 0; i < ownAsks.length; i++) ownAsks[i]!.tradedLots = 0;
    }
    const bestBid = book.bestBidTicks;
    const bestAsk = book.bestAskTicks;
    if (ownBids.length > 0 && bestAsk < this.lastBestAsk[market]!) {
      for (let i = ownBids.length - 1; i >= 0; i--) {
        const order = ownBids[i]!;
        if (order.priceTicks >= bestAsk) this.fill(order, order.leavesLots, order.priceTicks, true);
      }
    }
    if (ownAsks.length > 0 && bestBid > this.lastBestBid[market]!) {
      for (let i = ownAsks.length - 1; i >= 0; i--) {
        const order = ownAsks[i]!;
        if (order.priceTicks <= bestBid) this.fill(order, order.leavesLots, order.priceTicks, true);
      }
    }
    this.lastBestBid[market] = Number.isNaN(bestBid) ? -1 : bestBid;
    this.lastBestAsk[market] = Number.isNaN(bestAsk) ? Infinity : bestAsk;
  }

  /**
   * A recorded trade (taker buy: own asks are the maker side) at `priceTicks`.
   * Own orders at the trade's price queue among themselves in arrival order
   * (the list's order): an order stands behind the recorded lots ahead of it
   * and behind the lots left of the own orders that came before it, so the
   * trade's lots fill own orders once, the earliest first, and none while
   * an earlier one at the price is left unfilled (their queue estimates are
   * separate and may disagree).
   */
  private tradeAtOwn(market: number, takerBuy: boolean, priceTicks: number, lots: number): void {
    const orders = takerBuy ? this.asks[market]! : this.bids[market]!;
    /** Lots left, before this trade, of the own orders at the price that came earlier. */
    let ownAhead = 0;
    /** The trade's lots not yet given to an own order (0 once an earlier own order at the price kept lots). */
    let left = lots;
    for (let i = 0; i < orders.length; ) {
      const order = orders[i]!;
      const through = takerBuy ? order.priceTicks < priceTicks : order.priceTicks > priceTicks;
      if (through) {
        this.fill(order, order.leavesLots, order.priceTicks, true);
      } else if (order.priceTicks === priceTicks) {
        const leaves = order.leavesLots;
        this.queue.trade(order, lots);
        this.tradedAtOwn[market] = 1;
        if (order.ahead < 0) {
          // The trade went beyond the recorded queue ahead (now 0): what is left of it after the earlier own orders fills this one (whole lots).
          const overflow = Math.floor(-order.ahead - ownAhead + 1e-9);
          order.ahead = 0;
          const filled = Math.min(overflow, left, order.leavesLots);
          if (filled > 0) {
            left -= filled;
            this.fill(order, filled, order.priceTicks, true);
          }
        }
        ownAhead += leaves;
        if (order.leavesLots > 0) left = 0;
      }
      // A filled order left the list (fill -> unrest): the next one is at i.
      if (orders[i] === order) i++;
    }
  }

  /** Books a fill on the exchange side and sends it to the strategy. */
  private fill(order: OwnOrder, lots: number, priceTicks: number, maker: boolean): void {
    const account = this.accounts[order.market]!;
    const fee = account.fill(order.side, priceTicks, lots, maker);
    order.leavesLots -= lots;
    const record: FillRecord = {
      fillId: this.nextFillId++,
      orderId: order.id,
      symbol: order.symbol,
      side: order.side,
      priceTicks,
      qtyLots: lots,
      maker,
      fee,
      positionLots: account.positionLots,
      atMicros: this.nowMicros,
    };
    this.fills.push(record);
    this.options.onFill?.(record);
    if (order.leavesLots === 0 && order.state === RESTING) this.unrest(order);
    if (order.leavesLots === 0) order.state = DONE;
    this.respond(order, null, "", record);
  }

  private unrest(order: OwnOrder): void {
    const list = order.buy ? this.bids[order.market]! : this.asks[order.market]!;
    const at = list.indexOf(order);
    if (at >= 0) list.splice(at, 1);
    this.ownRange(order.market, order.buy);
  }

  /** Recomputes the price range of a market side's own resting orders. */
  private ownRange(market: number, buy: boolean): void {
    let lo = Infinity;
    let hi = -Infinity;
    for (const order of (buy ? this.bids : this.asks)[market]!) {
      if (order.priceTicks < lo) lo = order.priceTicks;
      if (order.priceTicks > hi) hi = order.priceTicks;
    }
    (buy ? this.bidLo : this.askLo)[market] = lo;
    (buy ? this.bidHi : this.askHi)[market] = hi;
  }

  private respond(order: OwnOrder, update: OrderUpdateType | null, reason: string, fill: FillRecord | null): void {
    this.responseQueue.push({ atMicros: this.responses.arrival(this.nowMicros), order, update, reason, fill });
  }

  /**
   * Delivers, earliest first, every queued item due before `limitMicros`
   * (at it too when `inclusive`); at equal times exchange arrivals, then
   * responses, market data, timers. Returns the time of the next item.
   */
  private deliverBefore(limitMicros: number, inclusive: boolean): number {
    for (;;) {
      const entryAt = this.entries.nextMicros;
      const responseAt = this.responseQueue.nextMicros;
      const mdAt = this.md.nextLoudMicros;
      const timerAt = this.timers.length > 0 ? this.timers[0]!.atMicros : Infinity;
      let next = entryAt < responseAt ? entryAt : responseAt;
      if (mdAt < next) next = mdAt;
      if (timerAt < next) next = timerAt;
      if (next > limitMicros || (next === limitMicros && !inclusive)) return next;
      this.deliverOne(entryAt, responseAt, mdAt, timerAt);
    }
  }

  /**
   * Delivers the earliest item given the queue heads' times. A strategy
   * callback at time t may see the silent md entries that arrived before t
   * (at t too for a timer: md before timers at equal times); a loud md
   * entry sees the entries queued before it.
   */
  private deliverOne(entryAt: number, responseAt: number, mdAt: number, timerAt: number): void {
    if (entryAt <= responseAt && entryAt <= mdAt && entryAt <= timerAt) {
      const entry = this.entries.shift();
      this.nowMicros = entry.atMicros;
      if (entry.cancel) this.arriveCancel(entry.order);
      else this.arriveOrder(entry.order);
    } else if (responseAt <= mdAt && responseAt <= timerAt) {
      const response = this.responseQueue.shift();
      this.localNow = response.atMicros;
      this.viewMicros = response.atMicros;
      this.viewInclusive = false;
      this.deliverResponse(response);
    } else if (mdAt <= timerAt) {
      const md = this.md;
      if (md.head < md.nextLoud) this.applySilent(Infinity, true, md.nextLoud);
      const at = md.takeLoud();
      this.localNow = mdAt;
      this.viewMicros = mdAt;
      this.viewInclusive = false;
      this.deliverMarketData(md.market[at]!, md.row[at]!);
    } else {
      const timer = this.timers.shift()!;
      this.localNow = timer.atMicros;
      this.viewMicros = timer.atMicros;
      this.viewInclusive = true;
      this.strategy.onTimer?.(this.ctx, this.state, timer.tag);
    }
  }

  /**
   * After the last recorded row: the responses and market data already on
   * their way still arrive; orders and cancels in flight find no more book,
   * and timers no longer fire. The strategy's views end with every frame
   * sent applied, and its clock at the last arrival.
   */
  private drain(): void {
    for (;;) {
      const responseAt = this.responseQueue.nextMicros;
      const mdAt = this.md.nextLoudMicros;
      if (responseAt === Infinity && mdAt === Infinity) break;
      this.deliverOne(Infinity, responseAt, mdAt, Infinity);
    }
    const md = this.md;
    if (md.head < md.tail) {
      this.localNow = Math.max(this.localNow, md.atMicros[md.tail - 1]!);
      this.applySilent(Infinity, true, md.tail);
    }
    this.viewMicros = Infinity;
    this.viewInclusive = true;
  }

  private arriveOrder(order: OwnOrder): void {
    const book = this.books[order.market]!;
    const oppositeBest = order.buy ? book.bestAskTicks : book.bestBidTicks;
    // Own resting orders are not in the replayed book: the one this order would meet first is found apart.
    const own = this.ownCrossed(order);
    const crosses = own !== null || (order.buy ? order.priceTicks >= oppositeBest : order.priceTicks <= oppositeBest);
    if (crosses && order.postOnly) {
      order.state = DONE;
      this.rejected++;
      this.respond(order, "rejected", "postOnly would cross", null);
      return;
    }
    if (crosses) this.take(order, book, own);
    if (order.leavesLots === 0) return;
    if (own !== null) {
      // Cancel-taker self-trade prevention (src/engine/matcher.ts): the taker stops at its own maker, which is untouched.
      order.state = DONE;
      this.respond(order, "cancelled", "self-trade prevention", null);
      return;
    }
    if (order.timeInForce === "IOC") {
      order.state = DONE;
      this.respond(order, "cancelled", "IOC remainder", null);
      return;
    }
    order.state = RESTING;
    const market = order.market;
    const levelLots = book.qtyAt(order.buy, order.priceTicks);
    if (levelLots === 0 && book.beyondWindow(order.buy, order.priceTicks, this.depthWindowLevels)) {
      // Nothing shown there because the price is beyond the depth window: unknown, not empty (queue.ts, "Depth window").
      startOutsideWindow(order);
      this.windowWatch[market] = 1;
    } else {
      this.queue.start(order, levelLots);
    }
    if (this.bids[market]!.length + this.asks[market]!.length === 0) {
      // Frame ends skip the best-crossing check while a market has no own order: start from the bests now.
      this.lastBestBid[market] = Number.isNaN(book.bestBidTicks) ? -1 : book.bestBidTicks;
      this.lastBestAsk[market] = Number.isNaN(book.bestAskTicks) ? Infinity : book.bestAskTicks;
    }
    (order.buy ? this.bids : this.asks)[market]!.push(order);
    this.ownRange(market, order.buy);
    this.respond(order, "accepted", "", null);
  }

  /** The own resting order on the other side that an arriving order would meet first (best price, then the earliest), or null. */
  private ownCrossed(order: OwnOrder): OwnOrder | null {
    let first: OwnOrder | null = null;
    for (const resting of (order.buy ? this.asks : this.bids)[order.market]!) {
      if (order.buy ? resting.priceTicks > order.priceTicks : resting.priceTicks < order.priceTicks) continue;
      if (first === null || (order.buy ? resting.priceTicks < first.priceTicks : resting.priceTicks > first.priceTicks)) first = resting;
    }
    return first;
  }

  /**
   * Takes displayed liquidity up to the order's limit, best price first
   * (taker fills at each level's price). With an own resting order `own` in
   * the way, it stops there: at its price only the recorded lots ahead of
   * it come first (whole lots), and the own orders at that price move up by
   * what was taken.
   */
  private take(order: OwnOrder, book: ReplayBook, own: OwnOrder | null): void {
    const levels = book.levels(!order.buy);
    for (const [priceTicks, shown] of levels) {
      if (order.buy ? priceTicks > order.priceTicks : priceTicks < order.priceTicks) break;
      const atOwn = own !== null && priceTicks === own.priceTicks;
      if (own !== null && !atOwn && (order.buy ? priceTicks > own.priceTicks : priceTicks < own.priceTicks)) break;
      const available = atOwn ? Math.min(shown, Math.max(0, Math.floor(own.ahead + 1e-9))) : shown;
      const lots = Math.min(available, order.leavesLots);
      if (lots > 0) {
        this.fill(order, lots, priceTicks, false);
        if (this.impact) this.consume(order.market, !order.buy, priceTicks, lots);
        if (atOwn) {
          for (const resting of (order.buy ? this.asks : this.bids)[order.market]!) {
            if (resting.priceTicks === priceTicks) resting.ahead = resting.ahead > lots ? resting.ahead - lots : 0;
          }
        }
      }
      if (order.leavesLots === 0 || atOwn) break;
    }
  }

  private consume(market: number, bid: boolean, priceTicks: number, lots: number): void {
    this.books[market]!.consume(bid, priceTicks, lots);
    // The strategy's view shows the removal after the market-data latency.
    const entry = this.impactLog.length;
    this.impactLog.push(bid ? 1 : 0, priceTicks, lots);
    this.sendMarketData(this.nowMicros, market, -1 - entry, false);
  }

  private arriveCancel(order: OwnOrder): void {
    if (order.state !== RESTING) {
      if (order.leavesLots === 0) this.cancelsTooLate++;
      this.respond(order, "cancelRejected", order.leavesLots === 0 ? "already filled" : "already closed", null);
      return;
    }
    this.unrest(order);
    order.state = DONE;
    this.respond(order, "cancelled", "user cancel", null);
  }

  private deliverResponse(response: Response): void {
    const order = response.order;
    const local = order.local;
    const strategy = this.strategy;
    if (response.fill !== null) {
      const fill = response.fill;
      this.localPositions[order.market]! += fill.side === "B" ? fill.qtyLots : -fill.qtyLots;
      if (local !== null) {
        local.leavesLots -= fill.qtyLots;
        if (local.status === "pendingNew") local.status = "open";
        if (local.leavesLots === 0) this.forget(order);
      }
      if (strategy.onFill === undefined) return;
      const view: FillView = {
        orderId: order.id,
        symbol: order.symbol,
        side: order.side,
        priceTicks: fill.priceTicks,
        qtyLots: fill.qtyLots,
        leavesLots: local?.leavesLots ?? 0,
        maker: fill.maker,
        atMicros: fill.atMicros,
      };
      strategy.onFill(this.ctx, this.state, view);
      return;
    }
    const type = response.update!;
    if (local !== null) {
      if (type === "accepted" && local.status === "pendingNew") local.status = "open";
      if (type === "rejected" || type === "cancelled") this.forget(order);
    }
    if (strategy.onOrder === undefined) return;
    const update: OrderUpdate = { orderId: order.id, symbol: order.symbol, type, reason: response.reason, leavesLots: order.local?.leavesLots ?? 0 };
    strategy.onOrder(this.ctx, this.state, update);
  }

  private forget(order: OwnOrder): void {
    const local = order.local;
    if (local === null) return;
    const at = this.localOrders.indexOf(local);
    if (at >= 0) this.localOrders.splice(at, 1);
    order.local = null;
    this.ownById.delete(order.id);
  }

  /** A loud md entry arrived: a print (onTrade) or a depth frame (its rows reach the view, then onDepth). */
  private deliverMarketData(market: number, row: number): void {
    const strategy = this.strategy;
    const tape = this.tapes[market]!;
    const type = tape.kind[row]! & ROW_TYPE_MASK;
    if (type >= ROW_PRINT_BUY) {
      const view = this.tradeView;
      view.symbol = tape.symbol;
      view.side = type === ROW_PRINT_BUY ? "B" : "A";
      view.priceTicks = tape.priceTicks[row]!;
      view.qtyLots = tape.qtyLots[row]!;
      view.matchMs = tape.exchMs[row]!;
      this.tradeCallbacks++;
      strategy.onTrade?.(this.ctx, this.state, view as TradeView);
      return;
    }
    this.applyLocal(market, row);
    this.depthCallbacks++;
    strategy.onDepth?.(this.ctx, this.state, this.views[market]!);
  }

  /** An impact entry (md row < 0) reaches the strategy's view: the removal shows. */
  private consumeLocal(market: number, row: number): void {
    const entry = -1 - row;
    this.localBooks[market]!.consume(this.impactLog[entry] === 1, this.impactLog[entry + 1]!, this.impactLog[entry + 2]!);
  }

  /** Brings the strategy's book of a market up to tape row `through` (a frame end). */
  private applyLocal(market: number, through: number): void {
    const tape = this.tapes[market]!;
    const book = this.localBooks[market]!;
    const kinds = tape.kind;
    const prices = tape.priceTicks;
    const lots = tape.qtyLots;
    let row = this.localCursors[market]!;
    for (; row <= through; row++) {
      const type = kinds[row]! & ROW_TYPE_MASK;
      if (type === ROW_BID) book.setBid(prices[row]!, lots[row]!);
      else if (type === ROW_ASK) book.setAsk(prices[row]!, lots[row]!);
      else if (type === ROW_CLEAR) book.clear();
    }
    this.localCursors[market] = row;
  }

  private makeContext(root: RngRoot): ReplayContext {
    const self = this;
    const markets: MarketInfo[] = this.tapes.map((tape) => ({ symbol: tape.symbol, tickSize: tape.tickSize, qtyStepSize: tape.qtyStepSize, minOrderLots: tape.minOrderLots }));
    const rng = root.stream(`strategy:${this.options.strategy.name}`);
    const marketIndex = (symbol: string, what: string): number => {
      const index = this.symbols.get(symbol);
      if (index === undefined) throw new ReplayStrategyError(`${what} symbol "${symbol}" is not a replayed market (${[...this.symbols.keys()].join(", ")})${what === "submit" ? " (SYMBOL_NOT_FOUND_ERROR)" : ""}`);
      return index;
    };
    return {
      get now() {
        return self.localNow;
      },
      markets,
      rng,
      book: (symbol) => this.views[marketIndex(symbol, "book")]!,
      submit: (request) => this.submit(request, marketIndex(request.symbol, "submit")),
      cancel: (orderId) => this.cancel(orderId),
      orders: (symbol) => (symbol === undefined ? this.localOrders : this.localOrders.filter((order) => order.symbol === symbol)) as readonly LocalOrder[],
      position: (symbol) => this.localPositions[marketIndex(symbol, "position")]!,
      setTimer: (atMicros, tag) => this.setTimer(atMicros, tag),
      clearTimer: (timerId) => {
        this.timers = this.timers.filter((timer) => timer.id !== timerId);
      },
    };
  }

  private submit(request: OrderRequest, market: number): number {
    const { side, priceTicks, qtyLots } = request;
    const timeInForce = request.timeInForce ?? "GTC";
    // Refusals name the spec's code of the exchange's admission check (spec 7.3); nothing is changed by one.
    if (side !== "B" && side !== "A") throw new ReplayStrategyError(`submit side "${side}" must be B or A (INPUT_VALIDATION_ERROR)`);
    if (timeInForce !== "GTC" && timeInForce !== "IOC") throw new ReplayStrategyError(`submit timeInForce "${timeInForce}" must be GTC or IOC (INPUT_VALIDATION_ERROR)`);
    if (request.postOnly === true && timeInForce === "IOC") throw new ReplayStrategyError(`submit postOnly with timeInForce "IOC": a postOnly order must be GTC (INPUT_VALIDATION_ERROR)`);
    if (!Number.isSafeInteger(priceTicks) || priceTicks <= 0) throw new ReplayStrategyError(`submit priceTicks "${priceTicks}" must be a positive whole number of ticks (PRICE_QTY_BOUNDS_ERROR)`);
    if (!Number.isSafeInteger(qtyLots) || qtyLots <= 0) throw new ReplayStrategyError(`submit qtyLots "${qtyLots}" must be a positive whole number of lots (PRICE_QTY_BOUNDS_ERROR)`);
    const tape = this.tapes[market]!;
    if (qtyLots < tape.minOrderLots) {
      throw new ReplayStrategyError(`submit qtyLots "${qtyLots}" is below minOrderQty "${tape.minOrderQty}" (${tape.minOrderLots} lots) (PRICE_QTY_BOUNDS_ERROR)`);
    }
    // The accounts count a fill's notional in ticks x lots as a safe integer (account.ts). A buy fills at its limit
    // or below; a sell at its limit or above, up to the highest price of the recording (a taker takes bids at theirs).
    if (!Number.isSafeInteger(priceTicks * qtyLots)) {
      throw new ReplayStrategyError(`submit priceTicks "${priceTicks}" x qtyLots "${qtyLots}" is beyond ${Number.MAX_SAFE_INTEGER} ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)`);
    }
    const highestTicks = tape.maxTicks;
    if (side === "A" && !Number.isSafeInteger(highestTicks * qtyLots)) {
      throw new ReplayStrategyError(
        `submit qtyLots "${qtyLots}" x priceTicks "${highestTicks}" (the recording's highest price: a sell may fill up to it) is beyond ${Number.MAX_SAFE_INTEGER} ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)`,
      );
    }
    const id = this.nextOrderId++;
    const local: MutableLocalOrder = { id, symbol: request.symbol, side, priceTicks, qtyLots, leavesLots: qtyLots, status: "pendingNew", timeInForce };
    const order: OwnOrder = {
      id,
      market,
      symbol: request.symbol,
      side,
      buy: side === "B",
      priceTicks,
      qtyLots,
      timeInForce,
      postOnly: request.postOnly === true,
      state: IN_FLIGHT,
      leavesLots: qtyLots,
      snapshotBefore: 0,
      removedLots: -1,
      ahead: 0,
      tradedLots: 0,
      hiddenLots: IN_WINDOW,
      local,
    };
    this.localOrders.push(local);
    this.ownById.set(id, order);
    this.orders++;
    this.entries.push({ atMicros: this.entry.arrival(this.localNow), order, cancel: false });
    return id;
  }

  private readonly ownById = new Map<number, OwnOrder>();

  private cancel(orderId: number): boolean {
    const order = this.ownById.get(orderId);
    const local = order?.local;
    if (order === undefined || local === null || local === undefined || local.status === "pendingCancel") return false;
    local.status = "pendingCancel";
    this.cancels++;
    this.entries.push({ atMicros: this.entry.arrival(this.localNow), order, cancel: true });
    return true;
  }

  private setTimer(atMicros: Micros, tag: string): number {
    if (!Number.isFinite(atMicros)) throw new ReplayStrategyError(`setTimer atMicros "${atMicros}" must be a finite time`);
    const at = Math.max(Math.round(atMicros), this.localNow);
    const id = this.nextTimerId++;
    const timer: Timer = { atMicros: at, id, tag };
    // Sorted by time, then by id (set order): a short list.
    let index = this.timers.length;
    while (index > 0 && this.timers[index - 1]!.atMicros > at) index--;
    this.timers.splice(index, 0, timer);
    return id;
  }

  private result(start: number, end: number): ReplayResult {
    const markets = this.accounts.map((account, index) => {
      const mid = this.books[index]!.midTicks;
      return account.summary(Number.isFinite(mid) ? mid : this.lastTradeTicks[index]!);
    });
    const sum = (pick: (summary: MarketAccountSummary) => string): string => markets.reduce((total, summary) => total.add(pick(summary)), new Dec(0)).toFixed();
    let fills = 0;
    for (const summary of markets) fills += summary.fills;
    return {
      strategy: this.strategy.name,
      queueModel: this.queue.name,
      impact: this.impact,
      seed: this.options.seed,
      events: this.decoded.events,
      startMicros: start,
      endMicros: end,
      counts: {
        rows: this.rows,
        orders: this.orders,
        cancels: this.cancels,
        rejected: this.rejected,
        cancelsTooLate: this.cancelsTooLate,
        depthCallbacks: this.depthCallbacks,
        tradeCallbacks: this.tradeCallbacks,
      },
      markets,
      total: {
        fills,
        volume: sum((summary) => summary.volume),
        fees: sum((summary) => summary.fees),
        realizedPnl: sum((summary) => summary.realizedPnl),
        unrealizedPnl: sum((summary) => summary.unrealizedPnl),
        pnl: sum((summary) => summary.pnl),
      },
      fills: this.fills,
    };
  }
}

/** Runs a replay backtest over a decoded recording. */
export function runReplay(decoded: DecodedRecording, options: ReplayOptions): ReplayResult {
  return new ReplayBacktest(decoded, options).run();
}
