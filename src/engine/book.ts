/**
 * The central limit order book of one market: bids and asks, each a
 * BookSide of price levels. It holds resting orders only; armed stops live
 * in the market's TriggerBook. The book never holds a crossed state
 * (checked by `assertNotCrossed` and the property tests).
 */
import { assert } from "../core/assert.ts";
import { MICROS_PER_SECOND } from "../core/time.ts";
import { BookSide } from "./book-side.ts";

export class Book {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  /**
   * Virtual time of the latest change of the aggregated depth (spec 2.17
   * updatedAt), as whole seconds and microseconds: two small integers, as
   * orders keep their times, since a time in microseconds is beyond V8's
   * small integers and storing it on every command that moves the book cost
   * about 90 instructions a command (measured with cachegrind).
   */
  private depthUpdatedSec = 0;
  private depthUpdatedMicros = 0;

  get depthUpdatedAtMicros(): number {
    return this.depthUpdatedSec * MICROS_PER_SECOND + this.depthUpdatedMicros;
  }

  /** The depth changed at `seconds` + `micros` (the two halves of the command's time). */
  depthUpdatedAt(seconds: number, micros: number): void {
    this.depthUpdatedSec = seconds;
    this.depthUpdatedMicros = micros;
  }

  get restingCount(): number {
    return this.bids.orderCount + this.asks.orderCount;
  }

  sideOf(isBuy: boolean): BookSide {
    return isBuy ? this.bids : this.asks;
  }

  oppositeOf(isBuy: boolean): BookSide {
    return isBuy ? this.asks : this.bids;
  }

  /** Lots resting on both sides: a walk over every level (for checks and benchmarks, not the command path). */
  restingLots(): number {
    let lots = 0;
    for (const side of [this.bids, this.asks]) for (let depth = 0; depth < side.levelCount; depth++) lots += side.levelFromBest(depth)!.totalLots;
    return lots;
  }

  /** True when an order (isBuy, limitTicks) would cross or touch the best opposite price. */
  wouldCross(isBuy: boolean, limitTicks: number): boolean {
    return this.oppositeOf(isBuy).isCrossedBy(limitTicks);
  }

  /**
   * Lots resting at prices an order (isBuy, limitTicks) crosses, counted up
   * to `capLots` (so the walk stops early). Self-trade and risk checks are
   * not applied: it is an upper bound of what the order can fill.
   */
  crossableLots(isBuy: boolean, limitTicks: number, capLots: number): number {
    const makers = this.oppositeOf(isBuy);
    let lots = 0;
    for (let depth = 0; lots < capLots; depth++) {
      const level = makers.levelFromBest(depth);
      if (level === undefined) break;
      if (isBuy ? level.priceTicks > limitTicks : level.priceTicks < limitTicks) break;
      lots += level.totalLots;
    }
    return lots;
  }

  /** True once since the last call when either side's aggregates changed. */
  takeChanged(): boolean {
    const changed = this.bids.changed || this.asks.changed;
    this.bids.changed = false;
    this.asks.changed = false;
    return changed;
  }

  assertNotCrossed(): void {
    const bid = this.bids.best();
    const ask = this.asks.best();
    if (bid === undefined || ask === undefined) return;
    if (bid.priceTicks >= ask.priceTicks) assert(false, `book crossed: best bid ${bid.priceTicks} >= best ask ${ask.priceTicks}`);
  }
}
