/**
 * Aggregated (L2) depth views of a book (spec 2.17, 6.2).
 *
 * - `depthView`: the REST view, the best `limit` levels per side.
 * - `DepthStream`: the streaming view of the top 100 levels per side. It
 *   keeps what subscribers hold ("published") and, on `update()`, emits
 *   only the levels whose absolute quantity differs from it: a level that
 *   leaves the top 100 is sent with qty 0 even if orders still rest there,
 *   a level that enters is sent with its full quantity, and a change below
 *   the boundary sends nothing. A level change is noted as it happens (one
 *   comparison with the published boundary), and the top 100 of a side is
 *   walked only when a change touched it.
 *
 * Bids are listed best (highest) first, asks best (lowest) first.
 */
import { assert } from "../core/assert.ts";
import type { Book } from "./book.ts";
import type { BookSide, LevelWatcher } from "./book-side.ts";
import { DEPTH_STREAM_LEVELS } from "./types.ts";

export interface DepthLevel {
  readonly priceTicks: number;
  /** 0 in a stream update: the level left the view. */
  readonly qtyLots: number;
}

export interface DepthLevels {
  readonly bids: readonly DepthLevel[];
  readonly asks: readonly DepthLevel[];
}

/** The best `limit` levels of each side. */
export function depthView(book: Book, limit: number): DepthLevels {
  return { bids: topLevels(book.bids, limit), asks: topLevels(book.asks, limit) };
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

/** What subscribers hold of one side. */
class PublishedSide {
  /** priceTicks -> qtyLots of the published levels. */
  readonly levels = new Map<number, number>();
  /** The worst published price (the boundary), meaningful when the view is full. */
  boundaryTicks = 0;
  dirty = false;

  constructor(readonly side: BookSide, private readonly size: number) {}

  /** A level changed at `priceTicks`: does it reach into the published view? */
  note(priceTicks: number): void {
    if (this.dirty) return;
    if (this.levels.size < this.size || !this.side.isBetter(this.boundaryTicks, priceTicks)) this.dirty = true;
  }

  /** The changed levels since the last publication (best first, then the removed), and publishes them. */
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

  snapshot(): DepthLevel[] {
    const levels: DepthLevel[] = [];
    for (const [priceTicks, qtyLots] of this.levels) levels.push({ priceTicks, qtyLots });
    return levels.sort((a, b) => (this.side.isBetter(a.priceTicks, b.priceTicks) ? -1 : 1));
  }
}

/**
 * The depth stream of one market. One instance per market, owned by the
 * stream publisher: `update()` returns the UPDATE to broadcast (or null when
 * the top 100 did not change) and `snapshot()` the state subscribers hold
 * after the latest update, which is the SNAPSHOT a new subscriber must get
 * for later updates to apply to it.
 */
export class DepthStream implements LevelWatcher {
  private readonly bids: PublishedSide;
  private readonly asks: PublishedSide;

  constructor(book: Book, readonly size: number = DEPTH_STREAM_LEVELS) {
    assert(book.bids.watcher === null && book.asks.watcher === null, "one depth stream per book");
    this.bids = new PublishedSide(book.bids, size);
    this.asks = new PublishedSide(book.asks, size);
    this.bids.dirty = true;
    this.asks.dirty = true;
    this.bids.publish();
    this.asks.publish();
    book.bids.watcher = this;
    book.asks.watcher = this;
  }

  levelChanged(side: BookSide, priceTicks: number): void {
    (side.isBid ? this.bids : this.asks).note(priceTicks);
  }

  update(): DepthLevels | null {
    const bids = this.bids.publish();
    const asks = this.asks.publish();
    return bids.length === 0 && asks.length === 0 ? null : { bids, asks };
  }

  snapshot(): DepthLevels {
    return { bids: this.bids.snapshot(), asks: this.asks.snapshot() };
  }
}
