/**
 * The incremental depth stream (src/engine/depth.ts) against the algorithm
 * it replaced, kept here as the oracle: after every update the levels sent
 * (and their order) are those the full walk of the top would send, and the
 * snapshot is the REST view of the top `size` levels. Small views make
 * boundary crossings frequent; batches of changes between updates cover
 * sweeps, levels emptied and re-created within one update, and the fallback
 * to the full walk when too many prices were noted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Book } from "../../src/engine/book.ts";
import type { BookSide, LevelWatcher } from "../../src/engine/book-side.ts";
import { DEPTH_DIRTY_LIMIT, DepthStream, depthView, type DepthLevel, type DepthLevels } from "../../src/engine/depth.ts";
import { Market } from "../../src/engine/market.ts";
import { Order } from "../../src/engine/order.ts";
import { PERP, T0 } from "./helpers.ts";

/** The previous PublishedSide, verbatim but for its name: the full walk of the top on every touched update. */
class OracleSide {
  readonly levels = new Map<number, number>();
  boundaryTicks = 0;
  dirty = false;

  constructor(readonly side: BookSide, private readonly size: number) {}

  note(priceTicks: number): void {
    if (this.dirty) return;
    if (this.levels.size < this.size || !this.side.isBetter(this.boundaryTicks, priceTicks)) this.dirty = true;
  }

  publish(): DepthLevel[] {
    if (!this.dirty) return [];
    this.dirty = false;
    const top = topLevels(this.side, this.size);
    const changes: DepthLevel[] = [];
    const seen = new Set<number>();
    for (const level of top) {
      seen.add(level.priceTicks);
      if (this.levels.get(level.priceTicks) !== level.qtyLots) changes.push(level);
    }
    for (const priceTicks of this.levels.keys()) {
      if (!seen.has(priceTicks)) changes.push({ priceTicks, qtyLots: 0 });
    }
    this.levels.clear();
    for (const level of top) this.levels.set(level.priceTicks, level.qtyLots);
    this.boundaryTicks = top.length > 0 ? top[top.length - 1]!.priceTicks : 0;
    return changes.sort((a, b) => (this.side.isBetter(a.priceTicks, b.priceTicks) ? -1 : 1));
  }
}

function topLevels(side: BookSide, limit: number): DepthLevel[] {
  const levels: DepthLevel[] = [];
  for (let depth = 0; depth < limit; depth++) {
    const level = side.levelFromBest(depth);
    if (level === undefined) break;
    levels.push({ priceTicks: level.priceTicks, qtyLots: level.totalLots });
  }
  return levels;
}

/** The old DepthStream.update(), fed the same level changes as the stream under test. */
class Oracle {
  private readonly bids: OracleSide;
  private readonly asks: OracleSide;

  constructor(book: Book, size: number) {
    this.bids = new OracleSide(book.bids, size);
    this.asks = new OracleSide(book.asks, size);
    this.bids.dirty = true;
    this.asks.dirty = true;
    this.bids.publish();
    this.asks.publish();
  }

  levelChanged(side: BookSide, priceTicks: number): void {
    (side.isBid ? this.bids : this.asks).note(priceTicks);
  }

  update(): DepthLevels | null {
    const bids = this.bids.publish();
    const asks = this.asks.publish();
    return bids.length === 0 && asks.length === 0 ? null : { bids, asks };
  }
}

const market = new Market(PERP, 0);
let nextIndex = 0;
function order(isBuy: boolean, priceTicks: number, qtyLots: number): Order {
  const index = nextIndex++;
  return new Order(
    { atMicros: T0, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, isBuy, orderType: "LIMIT", timeInForce: "GTC", priceTicks, qtyLots },
    String(index),
    index,
    market,
    qtyLots,
    T0,
  );
}

type Op =
  | { kind: "add"; isBuy: boolean; offset: number; qtyLots: number }
  | { kind: "remove"; pick: number }
  | { kind: "reduce"; pick: number; lots: number }
  /** Takes out every order of the best `count` levels of a side. */
  | { kind: "sweep"; isBuy: boolean; count: number }
  /** Empties the level `depth` below the best and re-creates it with `qtyLots`. */
  | { kind: "recreate"; isBuy: boolean; depth: number; qtyLots: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("add" as const), isBuy: fc.boolean(), offset: fc.integer({ min: 0, max: 14 }), qtyLots: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("reduce" as const), pick: fc.nat(), lots: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("sweep" as const), isBuy: fc.boolean(), count: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("recreate" as const), isBuy: fc.boolean(), depth: fc.integer({ min: 0, max: 6 }), qtyLots: fc.integer({ min: 1, max: 5 }) }) },
);

/** A book driven through its sides directly, tracking its resting orders. */
class Driver {
  readonly book = new Book();
  readonly resting: Order[] = [];

  add(isBuy: boolean, priceTicks: number, qtyLots: number): void {
    const o = order(isBuy, priceTicks, qtyLots);
    this.book.sideOf(isBuy).add(o);
    this.resting.push(o);
  }

  remove(o: Order): void {
    this.book.sideOf(o.isBuy).remove(o);
    this.resting.splice(this.resting.indexOf(o), 1);
  }

  /** Empties the level at `depth` below the best of a side; its price, or undefined. */
  empty(isBuy: boolean, depth: number): number | undefined {
    const level = this.book.sideOf(isBuy).levelFromBest(depth);
    if (level === undefined) return undefined;
    while (level.head !== null) this.remove(level.head);
    return level.priceTicks;
  }

  apply(step: Op): void {
    switch (step.kind) {
      case "add":
        // Bids at 100 and below, asks at 101 and above: the book never crosses.
        this.add(step.isBuy, step.isBuy ? 100 - step.offset : 101 + step.offset, step.qtyLots);
        return;
      case "remove": {
        const o = this.resting[step.pick % Math.max(1, this.resting.length)];
        if (o !== undefined) this.remove(o);
        return;
      }
      case "reduce": {
        const o = this.resting[step.pick % Math.max(1, this.resting.length)];
        if (o === undefined) return;
        const lots = Math.min(step.lots, o.qtyLots - o.cumLots);
        o.cumLots += lots; // as a fill does
        this.book.sideOf(o.isBuy).reduce(o, lots);
        if (o.cumLots === o.qtyLots) this.remove(o);
        return;
      }
      case "sweep":
        for (let i = 0; i < step.count; i++) this.empty(step.isBuy, 0);
        return;
      case "recreate": {
        const priceTicks = this.empty(step.isBuy, step.depth);
        if (priceTicks !== undefined) this.add(step.isBuy, priceTicks, step.qtyLots);
        return;
      }
    }
  }
}

/** Several changes per update, now and then many (a long batch, a sweep). */
const batches = fc.array(fc.array(op, { minLength: 0, maxLength: 6 }).chain((short) => fc.oneof({ weight: 6, arbitrary: fc.constant(short) }, { weight: 1, arbitrary: fc.array(op, { minLength: 10, maxLength: 60 }) })), {
  minLength: 5,
  maxLength: 60,
});

describe("incremental depth stream", () => {
  it("sends, update after update, exactly what the full walk of the top sent, and its snapshot is the REST view", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0, 1, 3, DEPTH_DIRTY_LIMIT, Number.MAX_SAFE_INTEGER),
        fc.array(op, { maxLength: 30 }),
        batches,
        (size, dirtyLimit, prefill, script) => {
          const driver = new Driver();
          for (const step of prefill) driver.apply(step);
          const { book } = driver;
          const stream = new DepthStream(book, size, dirtyLimit);
          const oracle = new Oracle(book, size);
          const tee: LevelWatcher = {
            levelChanged(side, priceTicks) {
              stream.levelChanged(side, priceTicks);
              oracle.levelChanged(side, priceTicks);
            },
          };
          book.bids.watcher = tee;
          book.asks.watcher = tee;
          expect(stream.snapshot()).toEqual(depthView(book, size));
          for (const batch of script) {
            for (const step of batch) driver.apply(step);
            expect(stream.update()).toEqual(oracle.update());
            expect(stream.snapshot()).toEqual(depthView(book, size));
          }
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it("sends the levels pushed out and those entering in one update, best first", () => {
    const driver = new Driver();
    for (let i = 0; i < 8; i++) driver.add(true, 100 - i, i + 1); // 100:1 .. 93:8
    const stream = new DepthStream(driver.book, 4);
    expect(stream.snapshot().bids.map((l) => l.priceTicks)).toEqual([100, 99, 98, 97]);
    driver.add(true, 102, 5); // pushes 97 out
    driver.add(true, 101, 1); // pushes 98 out
    driver.empty(true, 2); // 100 leaves: 98 is back, with its full qty
    driver.add(true, 96, 9); // below the boundary
    expect(stream.update()).toEqual({
      bids: [
        { priceTicks: 102, qtyLots: 5 },
        { priceTicks: 101, qtyLots: 1 },
        { priceTicks: 100, qtyLots: 0 },
        { priceTicks: 97, qtyLots: 0 },
      ],
      asks: [],
    });
    driver.empty(true, 0);
    driver.empty(true, 0);
    driver.empty(true, 0); // 102, 101, 99 leave: 97, 96 and 95 enter
    expect(stream.update()).toEqual({
      bids: [
        { priceTicks: 102, qtyLots: 0 },
        { priceTicks: 101, qtyLots: 0 },
        { priceTicks: 99, qtyLots: 0 },
        { priceTicks: 97, qtyLots: 4 },
        { priceTicks: 96, qtyLots: 14 },
        { priceTicks: 95, qtyLots: 6 },
      ],
      asks: [],
    });
    for (let i = 0; i < 6; i++) driver.empty(true, 0); // the side empties
    expect(stream.update()?.bids).toEqual([98, 97, 96, 95].map((priceTicks) => ({ priceTicks, qtyLots: 0 })));
    expect(stream.snapshot()).toEqual({ bids: [], asks: [] });
    expect(stream.update()).toBeNull();
  });
});
