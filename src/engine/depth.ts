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
 *   comparison with the published boundary, and its price kept when it may
 *   reach into the view); `update()` then looks only at the noted prices and
 *   at the levels crossing the boundary, so it costs O(changes), not O(100).
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

/**
 * Changed prices a side remembers between two publications before it gives
 * up and walks its whole top instead (the walk is then the cheaper way).
 */
export const DEPTH_DIRTY_LIMIT = 32;

/**
 * What subscribers hold of one side, and the prices changed since.
 *
 * A publication compares the book with `levels` at the changed prices only,
 * plus the levels crossing the boundary: with B the old boundary and N the
 * new view's count (its boundary is the level N - 1 places below the best),
 *
 * - a level the view held but no longer holds, untouched, was pushed out by
 *   better levels: it now lies at depth >= N and at or above B, found by
 *   walking down from depth N while the price is at or above B;
 * - a level the view holds but did not hold, untouched, entered from below:
 *   the old view was full, and it lies at depth < N and strictly below B,
 *   found by walking up from depth N - 1 while the price is below B;
 * - any other level whose quantity differs was touched, hence noted (a
 *   touched level strictly below a full view's boundary is not noted: it was
 *   not held, so it differs only if it entered, which the walk up finds).
 *
 * A price may come up more than once (noted twice, or noted and walked);
 * `levels` is updated as each difference is found, so the repeat finds none.
 * Each walk passes only levels that were held or were created since (and so
 * noted), plus the one that stops it: a publication costs O(noted prices +
 * levels crossing the boundary), not O(size). Past `dirtyLimit` noted prices
 * the side walks its whole top instead, as it does for its first publication.
 */
class PublishedSide {
  /** priceTicks -> qtyLots of the published levels. */
  readonly levels = new Map<number, number>();
  /** The worst published price (the boundary); 0 when nothing is published. */
  boundaryTicks = 0;
  /** Changed prices that may reach into the view, in order of change (repeats possible). */
  private readonly dirtyTicks: number[] = [];
  /** Too many changes were noted: the next publication walks the whole top. */
  private overflow = true;

  constructor(
    readonly side: BookSide,
    private readonly size: number,
    private readonly dirtyLimit: number,
  ) {}

  /** A level changed at `priceTicks`: remember it if it may reach into the published view. */
  note(priceTicks: number): void {
    if (this.overflow) return;
    if (this.levels.size < this.size || !this.side.isBetter(this.boundaryTicks, priceTicks)) {
      const dirty = this.dirtyTicks;
      if (dirty.length > 0 && dirty[dirty.length - 1] === priceTicks) return;
      if (dirty.length < this.dirtyLimit) {
        dirty.push(priceTicks);
      } else {
        this.overflow = true;
        dirty.length = 0;
      }
    }
  }

  /** The changed levels since the last publication (best first), and publishes them. */
  publish(): DepthLevel[] {
    if (this.overflow) {
      this.overflow = false;
      this.dirtyTicks.length = 0;
      return this.publishAll();
    }
    if (this.dirtyTicks.length === 0) return [];
    return sortBestFirst(this.publishDirty(), this.side);
  }

  /** publish() from the noted prices and the levels crossing the boundary. */
  private publishDirty(): DepthLevel[] {
    const { side, levels } = this;
    const oldCount = levels.size;
    const oldBoundaryTicks = this.boundaryTicks;
    const newCount = Math.min(this.size, side.levelCount);
    const newBoundaryTicks = newCount > 0 ? side.levelFromBest(newCount - 1)!.priceTicks : 0;
    const changes: DepthLevel[] = [];
    for (const priceTicks of this.dirtyTicks) {
      const level = side.levelAt(priceTicks);
      const inView = level !== undefined && newCount > 0 && !side.isBetter(newBoundaryTicks, priceTicks);
      this.settle(priceTicks, inView ? level.totalLots : 0, changes);
    }
    this.dirtyTicks.length = 0;
    if (oldCount > 0) {
      // Pushed out: below the new boundary, at or above the old one.
      for (let depth = newCount; ; depth++) {
        const level = side.levelFromBest(depth);
        if (level === undefined || side.isBetter(oldBoundaryTicks, level.priceTicks)) break;
        this.settle(level.priceTicks, 0, changes);
      }
    }
    if (oldCount === this.size) {
      // Entered from below: in the new view, strictly below the old boundary.
      for (let depth = newCount - 1; depth >= 0; depth--) {
        const level = side.levelFromBest(depth)!;
        if (!side.isBetter(oldBoundaryTicks, level.priceTicks)) break;
        this.settle(level.priceTicks, level.totalLots, changes);
      }
    }
    assert(levels.size === newCount, "the published view holds the top levels of its side");
    this.boundaryTicks = newBoundaryTicks;
    return changes;
  }

  /** Publishes `qtyLots` (0: out of the view) at `priceTicks`, recording it in `changes` if it differs. */
  private settle(priceTicks: number, qtyLots: number, changes: DepthLevel[]): void {
    if ((this.levels.get(priceTicks) ?? 0) === qtyLots) return;
    if (qtyLots === 0) this.levels.delete(priceTicks);
    else this.levels.set(priceTicks, qtyLots);
    changes.push({ priceTicks, qtyLots });
  }

  /** publish() by walking the whole top of the side. */
  private publishAll(): DepthLevel[] {
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
    return sortBestFirst(changes, this.side);
  }

  snapshot(): DepthLevel[] {
    const levels: DepthLevel[] = [];
    for (const [priceTicks, qtyLots] of this.levels) levels.push({ priceTicks, qtyLots });
    return sortBestFirst(levels, this.side);
  }
}

/** Below this many levels sortBestFirst sorts by insertion; above, with the builtin sort. */
const INSERTION_SORT_MAX = 16;

/**
 * Sorts `levels` (distinct prices) best first for `side`, in place, and
 * returns them. A publication after each command has a level or three: an
 * insertion sort in place costs a few comparisons, where the builtin sort
 * with a comparator closure allocated its work state and the closure on
 * every call (the largest `sort` allocation of the exchange benchmark).
 */
function sortBestFirst(levels: DepthLevel[], side: BookSide): DepthLevel[] {
  const count = levels.length;
  if (count > INSERTION_SORT_MAX) return levels.sort((a, b) => (side.isBetter(a.priceTicks, b.priceTicks) ? -1 : 1));
  for (let i = 1; i < count; i++) {
    const level = levels[i]!;
    let j = i - 1;
    while (j >= 0 && side.isBetter(level.priceTicks, levels[j]!.priceTicks)) {
      levels[j + 1] = levels[j]!;
      j--;
    }
    levels[j + 1] = level;
  }
  return levels;
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

  /** `dirtyLimit`: changed prices noted per side before an update walks the whole top (tests lower it). */
  constructor(book: Book, readonly size: number = DEPTH_STREAM_LEVELS, dirtyLimit: number = DEPTH_DIRTY_LIMIT) {
    assert(book.bids.watcher === null && book.asks.watcher === null, "one depth stream per book");
    this.bids = new PublishedSide(book.bids, size, dirtyLimit);
    this.asks = new PublishedSide(book.asks, size, dirtyLimit);
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
