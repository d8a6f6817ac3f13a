/**
 * Matching-engine benchmark.
 *
 * Workload (seeded, src/core/rng.ts): 1,000,000 GTC limit orders in integer
 * lots around a randomly walking mid price, each from its own account and
 * owner (so no self-trade can occur). 30% are priced 0-2 ticks through the
 * best opposite price and cross; the others rest at a uniform distance from
 * the mid (up to 20 ticks in the shallow book, 2,000 in the deep one). Whenever
 * the book holds more than its target (200 resting orders shallow, 60,000
 * deep), a random resting order is cancelled. The stream, cancels included,
 * is generated once and untimed (by running it through this engine to know
 * which orders rest), then replayed through this engine (ids, order events
 * and fills to a sink, self-trade checks, open-order accounting, depth
 * notices: everything but the history read model, which the exchange feeds
 * from the events) and through nodejs-order-book, on identical input; both
 * must end with the same resting quantity. Operations = creates + cancels.
 * Each engine runs the stream three times (after a full GC when --expose-gc
 * is on); the best run is reported, as the machine is shared.
 *
 * Heap: a fresh engine holding 1,000,000 resting orders (one account and one
 * owner per order, 10,000 price levels), heap used after a full GC, plus the
 * engine's typed arrays (array buffers), which heapUsed does not count.
 *
 * Prints one JSON line; never fails.
 */
import { loadavg } from "node:os";
import { OrderBook } from "nodejs-order-book";
import { RngRoot } from "../../src/core/rng.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { EngineSink } from "../../src/engine/events.ts";

const ORDERS = 1_000_000;
const CROSSING_SHARE = 0.3;
const RUNS = 3;
const MARKET = { marketId: 1, symbol: "BTCPERP", kind: "perp" as const, tickSize: "0.1", qtyStepSize: "0.001", minOrderQty: "0.001" };
const AT_MICROS = 1_700_000_000_000_000;
const FIRST_ORDER_ID = 63_552_420_354_981_888n;
const gc = (globalThis as { gc?: () => void }).gc;

interface Workload {
  readonly name: string;
  readonly restingTarget: number;
  readonly ops: number;
  /** Per operation: 0 = create, 1 = cancel. */
  readonly kinds: Uint8Array;
  readonly isBuy: Uint8Array;
  readonly priceTicks: Int32Array;
  readonly qtyLots: Int32Array;
  /** For a create, the order's own index; for a cancel, the index of the order it cancels. */
  readonly orderIndex: Int32Array;
  /** Orders that filled something on entry. */
  readonly crossing: number;
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

function generate(name: string, restingTarget: number, spreadTicks: number): Workload {
  const rng = new RngRoot("bench:engine").stream(name);
  const capacity = 2 * ORDERS;
  const kinds = new Uint8Array(capacity);
  const isBuyOf = new Uint8Array(capacity);
  const priceOf = new Int32Array(capacity);
  const qtyOf = new Int32Array(capacity);
  const indexOf = new Int32Array(capacity);
  const resting = new RestingSet();
  const engine = new Engine({
    markets: [MARKET],
    sink: { fill: (fill) => (fill.makerFilled ? resting.remove(Number(BigInt(fill.makerOrderId) - FIRST_ORDER_ID)) : undefined) },
  });
  const book = engine.market(1)!.book;
  let mid = 1_000_000;
  let ops = 0;
  let crossing = 0;
  for (let i = 0; i < ORDERS; i++) {
    if (i % 16 === 0) mid += rng.int(-1, 1);
    const isBuy = rng.bernoulli(0.5);
    let priceTicks = isBuy ? mid - rng.int(1, spreadTicks) : mid + rng.int(1, spreadTicks);
    if (rng.bernoulli(CROSSING_SHARE)) {
      const opposite = book.oppositeOf(isBuy).best()?.priceTicks ?? mid;
      priceTicks = isBuy ? opposite + rng.int(0, 2) : opposite - rng.int(0, 2);
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
    while (resting.size > restingTarget) {
      const victim = resting.at(rng.int(0, resting.size - 1));
      kinds[ops] = 1;
      indexOf[ops++] = victim;
      engine.cancelOrder({ atMicros: AT_MICROS, marketId: 1, accountId: victim + 1, orderId: (FIRST_ORDER_ID + BigInt(victim)).toString() });
      resting.remove(victim);
    }
  }
  return { name, restingTarget, ops, kinds, isBuy: isBuyOf, priceTicks: priceOf, qtyLots: qtyOf, orderIndex: indexOf, crossing };
}

function runEngine(w: Workload, ids: readonly string[]): { seconds: number; restingLots: number; fills: number } {
  let fills = 0;
  const sink: EngineSink = { orderUpdate: () => {}, fill: () => void fills++, depthChanged: () => {} };
  const engine = new Engine({ markets: [MARKET], sink });
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
      engine.cancelOrder({ atMicros: AT_MICROS, marketId: 1, accountId: index + 1, orderId: ids[index]! });
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const book = engine.market(1)!.book;
  let restingLots = 0;
  for (const side of [book.bids, book.asks]) for (let depth = 0; depth < side.levelCount; depth++) restingLots += side.levelFromBest(depth)!.totalLots;
  return { seconds, restingLots, fills };
}

function runPeer(w: Workload, ids: readonly string[]): { seconds: number; restingLots: number } {
  const book = new OrderBook();
  const started = process.hrtime.bigint();
  for (let op = 0; op < w.ops; op++) {
    const index = w.orderIndex[op]!;
    if (w.kinds[op] === 0) {
      book.limit({ id: ids[index]!, side: (w.isBuy[op] === 1 ? "buy" : "sell") as never, size: w.qtyLots[op]!, price: w.priceTicks[op]! });
    } else {
      book.cancel(ids[index]!);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [asks, bids] = book.depth();
  return { seconds, restingLots: [...asks, ...bids].reduce((sum, [, size]) => sum + size, 0) };
}

function best<T extends { seconds: number }>(run: () => T): T {
  let fastest: T | undefined;
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const result = run();
    if (fastest === undefined || result.seconds < fastest.seconds) fastest = result;
  }
  return fastest!;
}

function measure(w: Workload) {
  const ids = Array.from({ length: ORDERS }, (_, i) => (FIRST_ORDER_ID + BigInt(i)).toString());
  const ours = best(() => runEngine(w, ids));
  const peer = best(() => runPeer(w, ids));
  const opsPerSec = Math.round(w.ops / ours.seconds);
  const peerOpsPerSec = Math.round(w.ops / peer.seconds);
  return {
    ops: w.ops,
    cancels: w.ops - ORDERS,
    crossingShare: Number((w.crossing / ORDERS).toFixed(3)),
    restingTarget: w.restingTarget,
    fills: ours.fills,
    opsPerSec,
    peerOpsPerSec,
    ratio: Number((opsPerSec / peerOpsPerSec).toFixed(1)),
    restingLots: ours.restingLots,
    sameRestingQty: ours.restingLots === peer.restingLots,
  };
}

/** MB held by an engine with 1,000,000 resting orders, or null without --expose-gc. */
function heapWithMillionResting(): { heapUsedMb: number; arrayBuffersMb: number } | null {
  if (gc === undefined) return null;
  gc();
  const before = process.memoryUsage();
  const engine = new Engine({ markets: [MARKET], config: { maxRestingOrdersPerMarket: 2_000_000 } });
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

const shallow = measure(generate("shallow", 200, 20));
const deep = measure(generate("deep", 60_000, 2_000));
const heap = heapWithMillionResting();

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
