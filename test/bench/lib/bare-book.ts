/**
 * The floor of the engine benchmark: the least any order book must do on the
 * benchmark's stream, and nothing more. Price-time priority with the usual
 * JavaScript layout (an object per order, a FIFO doubly linked list per
 * price level, a Map from price to level and a sorted array of levels, best
 * last), matching at the makers' prices, resting the remainder, cancelling
 * by the order's index in the stream.
 *
 * It has none of an engine's bookkeeping: no command objects, validation,
 * order or fill ids, events, result rows, timestamps, accounts, self-trade
 * checks, open-order accounting or depth notices. Its rate is therefore a
 * ceiling for an engine of this layout on this machine, as the echo server
 * is the floor of the live benchmark's round trip: the engine's figure over
 * it says what the bookkeeping costs, and a target above it cannot be met
 * by any engine that keeps its orders as objects.
 *
 * `orders`: "fresh" makes an object per resting order, as most engines
 * (and the peer) do; "pooled" takes it from the objects of orders that left
 * the book, as src/engine does (lifecycle.ts newOrder), so that resting
 * orders are not promoted by the garbage collector. The pooled figure is
 * the ceiling for this engine's own layout.
 */

/** The stream, as test/bench/engine.ts lays it out (one entry per operation). */
export interface BareStream {
  readonly ops: number;
  /** 0 = create, 1 = cancel. */
  readonly kinds: Uint8Array;
  readonly isBuy: Uint8Array;
  readonly priceTicks: Int32Array;
  readonly qtyLots: Int32Array;
  /** A create's own index; a cancel's target index. */
  readonly orderIndex: Int32Array;
}

class BareOrder {
  prev: BareOrder | null = null;
  next: BareOrder | null = null;
  level: BareLevel | null = null;
  constructor(
    public index: number,
    public isBuy: boolean,
    public priceTicks: number,
    public lots: number,
  ) {}
}

export type BareOrders = "fresh" | "pooled";

class BareLevel {
  head: BareOrder | null = null;
  tail: BareOrder | null = null;
  totalLots = 0;
  count = 0;
  constructor(readonly priceTicks: number) {}
}

class BareSide {
  /** Worst first, best last: the best level is popped in O(1). */
  readonly levels: BareLevel[] = [];
  private readonly byPrice = new Map<number, BareLevel>();

  constructor(private readonly isBuy: boolean) {}

  best(): BareLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  add(order: BareOrder): void {
    let level = this.byPrice.get(order.priceTicks);
    if (level === undefined) {
      level = new BareLevel(order.priceTicks);
      this.byPrice.set(order.priceTicks, level);
      const levels = this.levels;
      let lo = 0;
      let hi = levels.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const better = this.isBuy ? levels[mid]!.priceTicks > order.priceTicks : levels[mid]!.priceTicks < order.priceTicks;
        if (better) hi = mid;
        else lo = mid + 1;
      }
      levels.splice(lo, 0, level);
    }
    order.level = level;
    order.prev = level.tail;
    if (level.tail !== null) level.tail.next = order;
    else level.head = order;
    level.tail = order;
    level.totalLots += order.lots;
    level.count++;
  }

  remove(order: BareOrder): void {
    const level = order.level!;
    if (order.prev !== null) order.prev.next = order.next;
    else level.head = order.next;
    if (order.next !== null) order.next.prev = order.prev;
    else level.tail = order.prev;
    level.totalLots -= order.lots;
    level.count--;
    order.level = null;
    if (level.count > 0) return;
    this.byPrice.delete(level.priceTicks);
    const levels = this.levels;
    if (levels[levels.length - 1] === level) levels.pop();
    else levels.splice(levels.lastIndexOf(level), 1);
  }
}

export interface BareRun {
  readonly seconds: number;
  readonly restingLots: number;
  readonly fills: number;
}

/** Runs the stream through a fresh bare book; times only the stream. */
export function runBareBook(stream: BareStream, objects: BareOrders = "fresh"): BareRun {
  const bids = new BareSide(true);
  const asks = new BareSide(false);
  const orders: (BareOrder | undefined)[] = [];
  const pooled = objects === "pooled";
  /** Orders that left the book, for the next ones ("pooled" only). */
  const spare: BareOrder[] = [];
  let fills = 0;
  const started = process.hrtime.bigint();
  for (let op = 0; op < stream.ops; op++) {
    const index = stream.orderIndex[op]!;
    if (stream.kinds[op] === 0) {
      const isBuy = stream.isBuy[op] === 1;
      const priceTicks = stream.priceTicks[op]!;
      let lots = stream.qtyLots[op]!;
      const makers = isBuy ? asks : bids;
      let best = makers.best();
      while (lots > 0 && best !== undefined && (isBuy ? best.priceTicks <= priceTicks : best.priceTicks >= priceTicks)) {
        const maker = best.head!;
        const taken = Math.min(lots, maker.lots);
        lots -= taken;
        fills++;
        if (taken === maker.lots) {
          makers.remove(maker);
          orders[maker.index] = undefined;
          if (pooled) spare.push(maker);
        } else {
          maker.lots -= taken;
          best.totalLots -= taken;
        }
        best = makers.best();
      }
      if (lots > 0) {
        let order = pooled ? spare.pop() : undefined;
        if (order === undefined) {
          order = new BareOrder(index, isBuy, priceTicks, lots);
        } else {
          order.index = index;
          order.isBuy = isBuy;
          order.priceTicks = priceTicks;
          order.lots = lots;
          order.prev = null;
          order.next = null;
        }
        (isBuy ? bids : asks).add(order);
        orders[index] = order;
      }
    } else {
      const order = orders[index];
      if (order !== undefined && order.level !== null) {
        (order.isBuy ? bids : asks).remove(order);
        if (pooled) spare.push(order);
      }
      orders[index] = undefined;
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  let restingLots = 0;
  for (const side of [bids, asks]) for (const level of side.levels) restingLots += level.totalLots;
  return { seconds, restingLots, fills };
}
