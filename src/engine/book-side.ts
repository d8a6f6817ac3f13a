/**
 * One side of a book: its price levels in a sorted array with the best level
 * last (bids ascending, asks descending by price). The best level is the
 * array's last element (O(1)); a level is found by binary search over a
 * parallel array of plain numbers (its sort keys), so the search touches one
 * contiguous block of memory rather than every level object on its way; a
 * new or emptied level near the top moves only the few elements above it,
 * which is where nearly all activity is. Nothing is allocated per order.
 */
import { assert } from "../core/assert.ts";
import { PriceLevel } from "./level.ts";
import type { Order } from "./order.ts";

/** Told of every change of a level's aggregate (the depth stream's boundary check). */
export interface LevelWatcher {
  levelChanged(side: BookSide, priceTicks: number): void;
}

export class BookSide {
  /** Sorted by `rank` ascending: the best level is last. */
  private readonly levels: PriceLevel[] = [];
  /** rank(levels[i].priceTicks), kept in step with `levels`. */
  private readonly keys: number[] = [];
  orderCount = 0;
  /** Set on any change of the side's aggregates; cleared by whoever reports depth changes. */
  changed = false;
  watcher: LevelWatcher | null = null;

  constructor(readonly isBid: boolean) {}

  get levelCount(): number {
    return this.levels.length;
  }

  /**
   * The best level, or undefined. This and the reads below check the index
   * first: an empty side's `levels[-1]` is a named-property load, which
   * turns the load site megamorphic for good (~70 instructions a call on
   * every later read, measured with cachegrind).
   */
  best(): PriceLevel | undefined {
    const levels = this.levels;
    return levels.length === 0 ? undefined : levels[levels.length - 1];
  }

  /** The level `depth` places below the best (0 is the best), or undefined. */
  levelFromBest(depth: number): PriceLevel | undefined {
    const index = this.levels.length - 1 - depth;
    return index < 0 ? undefined : this.levels[index];
  }

  /** True when `a` is a better price than `b` on this side. */
  isBetter(a: number, b: number): boolean {
    return this.isBid ? a > b : a < b;
  }

  /** True when an opposite order limited at `limitTicks` would cross or touch this side's best. */
  isCrossedBy(limitTicks: number): boolean {
    const levels = this.levels;
    if (levels.length === 0) return false;
    const best = levels[levels.length - 1]!;
    return this.isBid ? best.priceTicks >= limitTicks : best.priceTicks <= limitTicks;
  }

  /** Queues a resting order at the back of its price level. */
  add(order: Order): void {
    const index = this.search(order.priceTicks);
    const level = index >= 0 ? this.levels[index]! : this.insertLevel(-index - 1, order.priceTicks);
    level.append(order);
    this.orderCount += 1;
    this.touch(order.priceTicks);
  }

  /** Takes a resting order out of the side, dropping its level when it empties. */
  remove(order: Order): void {
    const level = order.level;
    assert(level !== null, "only a resting order leaves a book side");
    level.unlink(order);
    this.orderCount -= 1;
    if (level.isEmpty) this.deleteLevel(level);
    this.touch(level.priceTicks);
  }

  /** Takes `lots` off a resting order's level aggregate (a fill, or a qty decrease in place). */
  reduce(order: Order, lots: number): void {
    const level = order.level;
    assert(level !== null, "only a resting order is reduced in place");
    level.reduce(lots);
    this.touch(level.priceTicks);
  }

  levelAt(priceTicks: number): PriceLevel | undefined {
    const index = this.search(priceTicks);
    return index >= 0 ? this.levels[index] : undefined;
  }

  private touch(priceTicks: number): void {
    this.changed = true;
    if (this.watcher !== null) this.watcher.levelChanged(this, priceTicks);
  }

  /** Index of the level at `priceTicks`, or -(insertion point + 1). Looks at the top first. */
  private search(priceTicks: number): number {
    const keys = this.keys;
    const key = this.isBid ? priceTicks : -priceTicks;
    let high = keys.length - 1;
    if (high < 0) return -1;
    const topKey = keys[high]!;
    if (key >= topKey) return key === topKey ? high : -(high + 2);
    let low = 0;
    high -= 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const midKey = keys[mid]!;
      if (midKey < key) low = mid + 1;
      else if (midKey > key) high = mid - 1;
      else return mid;
    }
    return -(low + 1);
  }

  private insertLevel(at: number, priceTicks: number): PriceLevel {
    const level = new PriceLevel(priceTicks);
    const key = this.isBid ? priceTicks : -priceTicks;
    if (at === this.levels.length) {
      this.levels.push(level);
      this.keys.push(key);
    } else {
      this.levels.splice(at, 0, level);
      this.keys.splice(at, 0, key);
    }
    return level;
  }

  private deleteLevel(level: PriceLevel): void {
    const levels = this.levels;
    if (levels[levels.length - 1] === level) {
      levels.pop();
      this.keys.pop();
      return;
    }
    const index = this.search(level.priceTicks);
    assert(index >= 0 && levels[index] === level, "an emptied level is in the side");
    levels.splice(index, 1);
    this.keys.splice(index, 1);
  }
}
