/**
 * Matching-engine benchmark.
 *
 * Workload (seeded, src/core/rng.ts): 1,000,000 GTC limit orders in integer
 * lots (1-10) around a mid price that takes a random step of -1, 0 or +1
 * tick every 16 orders, each order from its own account and owner (so no
 * self-trade can occur, though every match still checks). 30% are priced
 * 0-2 ticks through the best opposite price and cross; the others rest at a
 * distance from the mid drawn per case, but never closer than one tick
 * behind the best opposite price (so that only those 30% cross, even when
 * the mid has drifted past the touch):
 *
 * - shallow: uniform 1-20 ticks; at most 200 resting orders (about 40
 *   levels of about 5 orders);
 * - deep: 1 + an exponential of mean 25 ticks, so the book thins out away
 *   from the mid as real books do; at most 60,000 resting orders. The mid
 *   drifts during an order's life, which widens the book, and orders pile
 *   up at the touch when the mid runs ahead of it: about 470 levels of about
 *   130 orders on average, about 220 at each of the 5 best levels per side
 *   and up to about 800 in the fullest (the printed `shape` gives the
 *   measured figures). A uniform spread over 2,000 ticks, as this benchmark
 *   used before, gives about 3,800 levels of 16 orders: a shape no real book
 *   has near its touch, and one that hides how an engine handles full
 *   levels. (The peer's cancel walks every order of its level, so full
 *   levels cost it more: its deep figure here is a quarter to a fifth of its
 *   figure on the uniform spread.)
 *
 * Whenever the book holds more than its target, a uniformly random resting
 * order is cancelled. The stream, cancels included, is generated once and
 * untimed (by running it through this engine to know which orders rest; the
 * shape is sampled there, every 1,000 orders once the book is full), then
 * replayed through this engine and through nodejs-order-book on identical
 * input; both must end with the same resting quantity (sameRestingQty).
 * Operations = creates + cancels. A cancel carries its order id as text
 * made apart from the create's, laid out in the order the cancels come (as
 * a request parsed off the wire would bring it); both engines read the same
 * text.
 *
 * This engine runs as it runs inside the exchange: every command object,
 * validation, order and fill ids, order events and fills to a sink (which
 * reads one field of each, as a consumer would), self-trade checks,
 * open-order accounting per owner and depth notices, with its own scheduler
 * (GTT timers). Only the exchange's own consumers of the events (history,
 * streams) are left out. Order and fill ids are counters whose decimal text
 * is built on first read (order.ts); the sink here does not read them, so
 * `opsPerSecReadingIds` repeats the run with a sink that reads every
 * orderId and fillId of every event, as the exchange does. Every engine
 * here has the one sink (SINK), as an exchange has one. The peer is driven
 * through its own fastest API for this stream: `limit({ id, side, size,
 * price })` and `cancel(id)`, journaling off; it checks no self-trade here
 * (it would only with an accountId and a mode).
 *
 * The floor (lib/bare-book.ts): the same stream through a bare price-time book
 * of the usual JavaScript layout with none of the bookkeeping (no ids,
 * events, rows, validation, accounts or accounting), in the same process:
 * `floorOpsPerSec` is a ceiling for any engine that keeps its orders as
 * objects, on this machine at this moment, and `shareOfFloor` (this
 * engine's rate over it) what the bookkeeping costs. Being measured beside
 * the engine, the share also holds up when other work slows both.
 * `pooledFloorOpsPerSec` is the same bare book taking each new order's
 * object from the orders that left the book, as this engine does: the
 * ceiling of this engine's own layout, and `shareOfPooledFloor` what its
 * bookkeeping costs against it (measured 2026-11-27, deep: the pooled
 * floor at 5.0-6.0M ops/s, within a third of the typed floor's pooled
 * figure, while the engine ran at 1.6M: on the deep book the gap is not
 * the layout; the records floor below says it is how the engine's command
 * path does its bookkeeping).
 *
 * Typed floors (lib/typed-bare-book.ts): the same bare book in typed arrays
 * (order records in one Int32Array, slots recycled, levels indexed by
 * price), with no object per order, then with one small object per resting
 * order from a pool, then made fresh: `typedFloorOpsPerSec` {noObjects,
 * pooledObjects, freshObjects}. The gap between the first and the last is
 * what an object per order costs by itself.
 *
 * The records floor (lib/records-book.ts): the bookkeeping this engine does
 * on this stream (command objects and their checks, order and fill ids, a
 * cancel's id parsed from its text, final statuses, self-trade checks,
 * open-order figures per owner, a row object per order event and a fill
 * object per match to the sink, depth notices) on order records in typed
 * arrays, with no object per resting order, then with one pooled object
 * per resting order as this engine keeps: `recordsFloorOpsPerSec`
 * {noObjects, pooledObjects}, and `shareOfRecordsFloor` (this engine's
 * rate over the first). It says what the same bookkeeping costs when done
 * in one tight pass over flat state (measured 2026-11-27, deep: 2.3-3.4M
 * ops/s without objects, 1.6-2.4M with them, beside this engine's 1.0-1.6M:
 * the objects are not what holds this engine back, its command path is;
 * docs/PERFORMANCE.md).
 *
 * Each engine runs the stream three times (after a full GC when --expose-gc
 * is on); the best run is reported (the machine is shared), with all three
 * in `opsPerSecRuns`.
 *
 * Heap: a fresh engine holding 1,000,000 resting orders (one account and one
 * owner per order, 10,000 price levels), heap used after a full GC, plus the
 * engine's typed arrays (array buffers), which heapUsed does not count;
 * measured first, before the workloads exist.
 *
 * `--engine-only [shallow|deep]` runs only this engine on one case, and also
 * prints rates per second of process CPU time (for profiling: `node
 * --cpu-prof --import tsx test/bench/engine.ts --engine-only deep`).
 * With it, `--orders N` cuts the stream to N orders, `--runs N` sets the
 * runs, and `--only engine|records` runs that one alone (no floors): for
 * instruction counts under valgrind, where the difference between a
 * process of 3 runs and one of 1 is two runs' cost (docs/PERFORMANCE.md,
 * session 21).
 *
 * Where the time goes (measured, Node 20, 2 shared cores): shallow is spread
 * over the command path (no step above a few percent); deep spends about a
 * quarter in the young-generation GC, which copies every order that rests
 * (twice: into the survivor space, then the old generation), and most of
 * the rest in cache misses on orders far apart in memory. A larger young
 * generation (`node --max-semi-space-size=64`) made deep about 30% faster
 * in one A/B; this benchmark runs with Node's defaults. Memory the process
 * has not touched before is slow on this machine (a first write to a fresh
 * page cost 3-50 µs in a micro-benchmark, a VM page fault): a structure that
 * grows with the count of owners or orders ever seen, rather than with what
 * is live, pays it in every run (the open-order figures did, 5-9% of
 * shallow, until they became chunks freed and reused as owners come and go).
 * On a shared machine, compare runs by `opsPerCpuSecRuns` and
 * `shareOfFloor` (--engine-only), alternating the two versions several
 * times.
 *
 * Prints one JSON line; never fails.
 */
import { loadavg } from "node:os";
import { OrderBook } from "nodejs-order-book";
import { RngRoot, type Rng } from "../../src/core/rng.ts";
import { Engine } from "../../src/engine/engine.ts";
import { runBareBook } from "./lib/bare-book.ts";
import { RecordsBook, type RecordsObjects, type RecordsSink, type RecordsStream } from "./lib/records-book.ts";
import { runTypedBareBook } from "./lib/typed-bare-book.ts";
import type { EngineSink } from "../../src/engine/events.ts";

/** A numeric command-line option (`--name N`), or its default. */
function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, got ${process.argv[at + 1]}`);
  return value;
}

const ORDERS = option("orders", 1_000_000);
const CROSSING_SHARE = 0.3;
const RUNS = option("runs", 3);
const SHAPE_SAMPLE_EVERY = 1_000;
const MARKET = { marketId: 1, symbol: "BTCPERP", kind: "perp" as const, tickSize: "0.1", qtyStepSize: "0.001", minOrderQty: "0.001" };
const AT_MICROS = 1_700_000_000_000_000;
const FIRST_ORDER_ID = 63_552_420_354_981_888n;
const gc = (globalThis as { gc?: () => void }).gc;

interface Case {
  readonly name: string;
  readonly restingTarget: number;
  /** How far from the mid a non-crossing order rests, in ticks (>= 1). */
  readonly distance: (rng: Rng) => number;
  readonly distanceText: string;
}

const CASES: readonly Case[] = [
  { name: "shallow", restingTarget: 200, distance: (rng) => rng.int(1, 20), distanceText: "uniform 1-20 ticks" },
  { name: "deep", restingTarget: 60_000, distance: (rng) => 1 + Math.floor(rng.exponential(1 / 25)), distanceText: "1 + exponential, mean 25 ticks" },
];

interface Shape {
  /** Mean count of price levels (bids + asks) over the samples. */
  readonly levels: number;
  /** Mean resting orders per level over the samples. */
  readonly ordersPerLevel: number;
  /** The fullest level seen at any sample. */
  readonly maxOrdersPerLevel: number;
  /** Mean resting orders at the 10 best levels (5 per side) over the samples. */
  readonly ordersPerTopLevel: number;
}

/** The stream (ops, kinds, isBuy, priceTicks, qtyLots, orderIndex: BareStream; cancelIds, firstOrderId: RecordsStream), with what this file adds. */
interface Workload extends RecordsStream {
  readonly name: string;
  readonly distanceText: string;
  readonly restingTarget: number;
  /** Orders that filled something on entry. */
  readonly crossing: number;
  readonly shape: Shape;
}

/** Tracks the resting orders of the generating run, to pick cancel targets uniformly. */
class RestingSet {
  private readonly members: number[] = [];
  private readonly slots = new Map<number, number>();

  get size(): number {
    return this.members.length;
  }

  add(index: number): void {
    this.slots.set(index, this.members.length);
    this.members.push(index);
  }

  remove(index: number): void {
    const slot = this.slots.get(index);
    if (slot === undefined) return;
    const last = this.members.pop()!;
    if (slot < this.members.length) {
      this.members[slot] = last;
      this.slots.set(last, slot);
    }
    this.slots.delete(index);
  }

  at(slot: number): number {
    return this.members[slot]!;
  }
}

function generate(c: Case): Workload {
  const rng = new RngRoot("bench:engine").stream(c.name);
  const capacity = 2 * ORDERS;
  const kinds = new Uint8Array(capacity);
  const isBuyOf = new Uint8Array(capacity);
  const priceOf = new Int32Array(capacity);
  const qtyOf = new Int32Array(capacity);
  const indexOf = new Int32Array(capacity);
  const resting = new RestingSet();
  const cancelIds: string[] = [];
  const engine = new Engine({
    markets: [MARKET],
    sink: SINK,
  });
  tally.generating = resting;
  const book = engine.market(1)!.book;
  let mid = 1_000_000;
  let ops = 0;
  let crossing = 0;
  let full = false;
  const shape = { samples: 0, levels: 0, orders: 0, maxOrdersPerLevel: 0, top: 0 };
  for (let i = 0; i < ORDERS; i++) {
    if (i % 16 === 0) mid += rng.int(-1, 1);
    const isBuy = rng.bernoulli(0.5);
    const distance = c.distance(rng);
    let priceTicks = isBuy ? mid - distance : mid + distance;
    const opposite = book.oppositeOf(isBuy).best()?.priceTicks;
    if (rng.bernoulli(CROSSING_SHARE)) {
      const through = rng.int(0, 2);
      priceTicks = opposite === undefined ? priceTicks : isBuy ? opposite + through : opposite - through;
    } else if (opposite !== undefined) {
      // A resting order stays behind the best opposite price even when the mid has drifted past it.
      priceTicks = isBuy ? Math.min(priceTicks, opposite - 1) : Math.max(priceTicks, opposite + 1);
    }
    const qtyLots = rng.int(1, 10);
    kinds[ops] = 0;
    isBuyOf[ops] = isBuy ? 1 : 0;
    priceOf[ops] = priceTicks;
    qtyOf[ops] = qtyLots;
    indexOf[ops++] = i;
    const result = engine.createOrder({ atMicros: AT_MICROS, marketId: 1, exchangeId: 1, accountId: i + 1, ownerId: 0, isBuy, orderType: "LIMIT", timeInForce: "GTC", priceTicks, qtyLots });
    if (!result.ok) throw new Error(result.error.message);
    if (result.fillCount > 0) crossing++;
    if (result.status === "OPEN") resting.add(i);
    while (resting.size > c.restingTarget) {
      full = true;
      const victim = resting.at(rng.int(0, resting.size - 1));
      kinds[ops] = 1;
      indexOf[ops++] = victim;
      const orderId = (FIRST_ORDER_ID + BigInt(victim)).toString();
      cancelIds.push(orderId);
      engine.cancelOrder({ atMicros: AT_MICROS, marketId: 1, accountId: victim + 1, orderId });
      resting.remove(victim);
    }
    if (full && i % SHAPE_SAMPLE_EVERY === 0) {
      shape.samples++;
      shape.levels += book.bids.levelCount + book.asks.levelCount;
      shape.orders += book.restingCount;
      for (const side of [book.bids, book.asks]) {
        for (let depth = 0; depth < side.levelCount; depth++) {
          const count = side.levelFromBest(depth)!.orderCount;
          if (depth < 5) shape.top += count;
          if (count > shape.maxOrdersPerLevel) shape.maxOrdersPerLevel = count;
        }
      }
    }
  }
  tally.generating = null;
  return {
    name: c.name,
    distanceText: c.distanceText,
    restingTarget: c.restingTarget,
    ops,
    kinds,
    isBuy: isBuyOf,
    priceTicks: priceOf,
    qtyLots: qtyOf,
    orderIndex: indexOf,
    cancelIds,
    firstOrderId: FIRST_ORDER_ID,
    crossing,
    shape: {
      levels: Math.round(shape.levels / shape.samples),
      ordersPerLevel: Number((shape.orders / shape.levels).toFixed(1)),
      maxOrdersPerLevel: shape.maxOrdersPerLevel,
      ordersPerTopLevel: Number((shape.top / (10 * shape.samples)).toFixed(1)),
    },
  };
}

interface EngineRun {
  readonly seconds: number;
  /** CPU time of the process during the run (steadier than wall time on a shared machine; --engine-only prints it). */
  readonly cpuSeconds: number;
  readonly restingLots: number;
  readonly fills: number;
  /** Folded from the events, so that the sink's reads are not dead code. */
  readonly checksum: number;
}

/**
 * What the sink does with the events: while `generating`, a maker that
 * fills leaves that set of resting orders (the stream's generation needs
 * nothing else); otherwise it folds them into `fills` and `checksum`
 * (reset by each run), reading every id when `readIds`. The checksum is
 * folded to an int32 (`| 0`): a sum that outgrew V8's small integers was
 * boxed as a new heap number on every event, ~95 instructions per
 * operation of the benchmark's own (cachegrind), charged to the engine.
 */
const tally = { fills: 0, checksum: 0, readIds: false, generating: null as RestingSet | null };

/**
 * The one sink of every engine this file makes (the stream's generation,
 * the timed runs, the heap measurement), made once, as an exchange makes
 * its one sink. Engines with a sink each (four, before) made the engine's
 * calls into its sink polymorphic, as they never are in an exchange: in
 * interleaved pairs the shallow case ran 20-40% slower in CPU time in three
 * of four (a noisy machine), and the full benchmark printed shallow figures
 * well below `--engine-only`'s.
 */
const SINK: EngineSink = {
  orderUpdate: (update) => {
    tally.checksum = (tally.checksum + (tally.readIds ? update.sequenceNumber + update.orderId.length + (update.firstFillId?.length ?? 0) : update.sequenceNumber)) | 0;
  },
  fill: (fill) => {
    const generating = tally.generating;
    if (generating !== null) {
      if (fill.makerFilled) generating.remove(Number(BigInt(fill.makerOrderId) - FIRST_ORDER_ID));
      return;
    }
    tally.fills++;
    tally.checksum = (tally.checksum + (tally.readIds ? fill.qtyLots + fill.fillId.length + fill.takerOrderId.length + fill.makerOrderId.length : fill.qtyLots)) | 0;
  },
  depthChanged: () => void (tally.checksum = (tally.checksum + 1) | 0),
};

function runEngine(w: Workload, readIds = false): EngineRun {
  tally.fills = 0;
  tally.checksum = 0;
  tally.readIds = readIds;
  const engine = new Engine({ markets: [MARKET], sink: SINK });
  const cpuStarted = process.cpuUsage();
  const cancelIds = w.cancelIds;
  let cancels = 0;
  const started = process.hrtime.bigint();
  for (let op = 0; op < w.ops; op++) {
    const index = w.orderIndex[op]!;
    if (w.kinds[op] === 0) {
      engine.createOrder({
        atMicros: AT_MICROS,
        marketId: 1,
        exchangeId: 1,
        accountId: index + 1,
        ownerId: index + 1,
        isBuy: w.isBuy[op] === 1,
        orderType: "LIMIT",
        timeInForce: "GTC",
        priceTicks: w.priceTicks[op]!,
        qtyLots: w.qtyLots[op]!,
      });
    } else {
      engine.cancelOrder({ atMicros: AT_MICROS, marketId: 1, accountId: index + 1, orderId: cancelIds[cancels++]! });
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { seconds, cpuSeconds, restingLots: engine.market(1)!.book.restingLots(), fills: tally.fills, checksum: tally.checksum };
}

/** The sink of the records floor: the same reads and folds as SINK's. */
const RECORDS_SINK: RecordsSink = {
  row: (row) => void (tally.checksum = (tally.checksum + row.sequenceNumber) | 0),
  fill: (fill) => {
    tally.fills++;
    tally.checksum = (tally.checksum + fill.qtyLots) | 0;
  },
  depthChanged: () => void (tally.checksum = (tally.checksum + 1) | 0),
};

/**
 * The stream through the records floor (lib/records-book.ts), driven as
 * runEngine drives the engine: a loop of its own rather than one loop
 * handed either book, whose calls would then see two classes and slow
 * down both.
 */
function runRecords(w: Workload, objects: RecordsObjects): EngineRun {
  tally.fills = 0;
  tally.checksum = 0;
  tally.readIds = false;
  // A create rests before the cancels that bring the book back to its target: one more than the target at most.
  const book = new RecordsBook(RECORDS_SINK, 1, w.firstOrderId, w.restingTarget + 1, objects);
  const cpuStarted = process.cpuUsage();
  const cancelIds = w.cancelIds;
  let cancels = 0;
  const started = process.hrtime.bigint();
  for (let op = 0; op < w.ops; op++) {
    const index = w.orderIndex[op]!;
    if (w.kinds[op] === 0) {
      book.createOrder({
        atMicros: AT_MICROS,
        marketId: 1,
        exchangeId: 1,
        accountId: index + 1,
        ownerId: index + 1,
        isBuy: w.isBuy[op] === 1,
        orderType: "LIMIT",
        timeInForce: "GTC",
        priceTicks: w.priceTicks[op]!,
        qtyLots: w.qtyLots[op]!,
      });
    } else {
      book.cancelOrder({ atMicros: AT_MICROS, marketId: 1, accountId: index + 1, orderId: cancelIds[cancels++]! });
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, restingLots: book.restingLots(), fills: tally.fills, checksum: tally.checksum + book.objectReads };
}

/** The records floor without and with an object per resting order: best ops/s of each, their resting lots and fills. */
function recordsFloors(w: Workload): { figures: { noObjects: number; pooledObjects: number }; restingLots: number[]; fills: number[] } {
  const none = runs(RUNS, () => runRecords(w, "none"));
  const pooled = runs(RUNS, () => runRecords(w, "pooled"));
  const rate = (seconds: number) => Math.round(w.ops / seconds);
  return {
    figures: { noObjects: rate(none.best.seconds), pooledObjects: rate(pooled.best.seconds) },
    restingLots: [none.best.restingLots, pooled.best.restingLots],
    fills: [none.best.fills, pooled.best.fills],
  };
}

function runPeer(w: Workload, ids: readonly string[]): { seconds: number; restingLots: number } {
  const book = new OrderBook();
  const cancelIds = w.cancelIds;
  let cancels = 0;
  const started = process.hrtime.bigint();
  for (let op = 0; op < w.ops; op++) {
    const index = w.orderIndex[op]!;
    if (w.kinds[op] === 0) {
      book.limit({ id: ids[index]!, side: (w.isBuy[op] === 1 ? "buy" : "sell") as never, size: w.qtyLots[op]!, price: w.priceTicks[op]! });
    } else {
      book.cancel(cancelIds[cancels++]!);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [asks, bids] = book.depth();
  return { seconds, restingLots: [...asks, ...bids].reduce((sum, [, size]) => sum + size, 0) };
}

function runs<T extends { seconds: number }>(count: number, run: () => T): { best: T; all: T[] } {
  const all: T[] = [];
  for (let i = 0; i < count; i++) {
    gc?.();
    all.push(run());
  }
  return { best: all.reduce((a, b) => (b.seconds < a.seconds ? b : a)), all };
}

function ids(): string[] {
  return Array.from({ length: ORDERS }, (_, i) => (FIRST_ORDER_ID + BigInt(i)).toString());
}

function measure(w: Workload, orderIds: readonly string[]) {
  const ours = runs(RUNS, () => runEngine(w));
  const readingIds = runs(RUNS, () => runEngine(w, true));
  const peer = runs(RUNS, () => runPeer(w, orderIds));
  const floor = runs(RUNS, () => runBareBook(w));
  const pooledFloor = runs(RUNS, () => runBareBook(w, "pooled"));
  const typed = typedFloors(w);
  const records = recordsFloors(w);
  const rate = (seconds: number) => Math.round(w.ops / seconds);
  const opsPerSec = rate(ours.best.seconds);
  const peerOpsPerSec = rate(peer.best.seconds);
  const floorOpsPerSec = rate(floor.best.seconds);
  const pooledFloorOpsPerSec = rate(pooledFloor.best.seconds);
  return {
    ops: w.ops,
    cancels: w.ops - ORDERS,
    crossingShare: Number((w.crossing / ORDERS).toFixed(3)),
    restingTarget: w.restingTarget,
    distance: w.distanceText,
    shape: w.shape,
    fills: ours.best.fills,
    opsPerSec,
    opsPerSecRuns: ours.all.map((run) => rate(run.seconds)),
    // Per second of the process's CPU time (all its threads, GC helpers included): other work on a shared machine inflates wall time, not this.
    opsPerCpuSecRuns: ours.all.map((run) => rate(run.cpuSeconds)),
    opsPerSecReadingIds: rate(readingIds.best.seconds),
    peerOpsPerSec,
    peerOpsPerSecRuns: peer.all.map((run) => rate(run.seconds)),
    ratio: Number((opsPerSec / peerOpsPerSec).toFixed(1)),
    floorOpsPerSec,
    floorOpsPerSecRuns: floor.all.map((run) => rate(run.seconds)),
    shareOfFloor: Number((opsPerSec / floorOpsPerSec).toFixed(2)),
    pooledFloorOpsPerSec,
    shareOfPooledFloor: Number((opsPerSec / pooledFloorOpsPerSec).toFixed(2)),
    typedFloorOpsPerSec: typed.figures,
    recordsFloorOpsPerSec: records.figures,
    shareOfRecordsFloor: Number((opsPerSec / records.figures.noObjects).toFixed(2)),
    restingLots: ours.best.restingLots,
    sameRestingQty:
      ours.best.restingLots === peer.best.restingLots &&
      readingIds.best.restingLots === peer.best.restingLots &&
      floor.best.restingLots === peer.best.restingLots &&
      pooledFloor.best.restingLots === peer.best.restingLots &&
      typed.restingLots.every((lots) => lots === peer.best.restingLots) &&
      records.restingLots.every((lots) => lots === peer.best.restingLots) &&
      records.fills.every((fills) => fills === ours.best.fills),
  };
}

/**
 * The typed-array floor (lib/typed-bare-book.ts) without an object per
 * order, and with one taken from a pool or made fresh: best ops/s of each.
 */
function typedFloors(w: Workload): { figures: { noObjects: number; pooledObjects: number; freshObjects: number }; restingLots: number[] } {
  // A create rests before the cancels that bring the book back to its target: one more than the target at most.
  const maxResting = w.restingTarget + 1;
  const none = runs(RUNS, () => runTypedBareBook(w, maxResting, "none"));
  const pooled = runs(RUNS, () => runTypedBareBook(w, maxResting, "pooled"));
  const fresh = runs(RUNS, () => runTypedBareBook(w, maxResting, "fresh"));
  const rate = (seconds: number) => Math.round(w.ops / seconds);
  return {
    figures: { noObjects: rate(none.best.seconds), pooledObjects: rate(pooled.best.seconds), freshObjects: rate(fresh.best.seconds) },
    restingLots: [none.best.restingLots, pooled.best.restingLots, fresh.best.restingLots],
  };
}

/** MB held by an engine with 1,000,000 resting orders, or null without --expose-gc. */
function heapWithMillionResting(): { heapUsedMb: number; arrayBuffersMb: number } | null {
  if (gc === undefined) return null;
  gc();
  const before = process.memoryUsage();
  const engine = new Engine({ markets: [MARKET], sink: SINK, config: { maxRestingOrdersPerMarket: 2_000_000 } });
  const rng = new RngRoot("bench:engine").stream("heap");
  for (let i = 0; i < 1_000_000; i++) {
    const isBuy = i % 2 === 0;
    const offset = rng.int(1, 5000);
    engine.createOrder({
      atMicros: AT_MICROS,
      marketId: 1,
      exchangeId: 1,
      accountId: i + 1,
      ownerId: i + 1,
      isBuy,
      orderType: "LIMIT",
      timeInForce: "GTC",
      priceTicks: isBuy ? 1_000_000 - offset : 1_000_000 + offset,
      qtyLots: rng.int(1, 10),
    });
  }
  gc();
  const after = process.memoryUsage();
  const resting = engine.market(1)!.book.restingCount; // keeps the engine alive through the measurement
  if (resting !== 1_000_000) return null;
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return { heapUsedMb: mb(after.heapUsed - before.heapUsed), arrayBuffersMb: mb(after.arrayBuffers - before.arrayBuffers) };
}

function engineOnly(name: string): void {
  const c = CASES.find((one) => one.name === name) ?? CASES[0]!;
  const w = generate(c);
  const onlyAt = process.argv.indexOf("--only");
  if (onlyAt >= 0) {
    const which = process.argv[onlyAt + 1];
    if (which !== "engine" && which !== "records") throw new RangeError(`--only must be engine or records, got ${which}`);
    const alone = which === "engine" ? runs(RUNS, () => runEngine(w)) : runs(RUNS, () => runRecords(w, "none"));
    const rates = (seconds: (run: EngineRun) => number) => alone.all.map((run) => Math.round(w.ops / seconds(run)));
    console.log(JSON.stringify({ bench: "engine", engineOnly: c.name, only: which, ops: w.ops, opsPerSecRuns: rates((run) => run.seconds), opsPerCpuSecRuns: rates((run) => run.cpuSeconds) }));
    return;
  }
  const result = runs(RUNS, () => runEngine(w));
  const floor = runs(RUNS, () => runBareBook(w));
  const pooledFloor = runs(RUNS, () => runBareBook(w, "pooled"));
  const typed = typedFloors(w);
  const records = recordsFloors(w);
  console.log(
    JSON.stringify({
      bench: "engine",
      engineOnly: c.name,
      shape: w.shape,
      opsPerSecRuns: result.all.map((run) => Math.round(w.ops / run.seconds)),
      opsPerCpuSecRuns: result.all.map((run) => Math.round(w.ops / run.cpuSeconds)),
      floorOpsPerSecRuns: floor.all.map((run) => Math.round(w.ops / run.seconds)),
      shareOfFloor: Number((result.best.seconds === 0 ? 0 : floor.best.seconds / result.best.seconds).toFixed(2)),
      pooledFloorOpsPerSecRuns: pooledFloor.all.map((run) => Math.round(w.ops / run.seconds)),
      typedFloorOpsPerSec: typed.figures,
      recordsFloorOpsPerSec: records.figures,
      shareOfRecordsFloor: Number((records.figures.noObjects === 0 ? 0 : Math.round(w.ops / result.best.seconds) / records.figures.noObjects).toFixed(2)),
      sameAsRecordsFloor: records.restingLots.every((lots) => lots === result.best.restingLots) && records.fills.every((fills) => fills === result.best.fills),
    }),
  );
}

const only = process.argv.indexOf("--engine-only");
if (only >= 0) {
  engineOnly(process.argv[only + 1] ?? "shallow");
} else {
  // The heap first, while nothing else of the benchmark is allocated (its figure is a difference of two readings).
  const heap = heapWithMillionResting();
  const orderIds = ids();
  const [shallow, deep] = CASES.map((c) => measure(generate(c), orderIds));
  console.log(
    JSON.stringify({
      bench: "engine",
      shallow,
      deep,
      heapWith1MResting: heap,
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
      targets: { shallowOpsPerSec: 3_000_000, deepOpsPerSec: 2_000_000, shallowRatio: 5, deepRatio: 100, heapMb: 400 },
    }),
  );
}
