/**
 * The replayed L2 book of one market: the recording's depth, level by level
 * (spec 2.17, 6.2: a SNAPSHOT replaces the book, an UPDATE sets absolute
 * quantities, "0" removes a level).
 *
 * Flat arrays keyed by tick offset from the lowest price the tape holds
 * (`MarketTape.minTicks`), one per side, with the best bid and ask kept
 * incrementally, a count of live levels per side (so an emptied side
 * needs no scan), and a bitmap of live levels, so finding the next best
 * after the best is removed skips 32 empty ticks per step (recorded books
 * can be sparse: a stray order far from the touch). Quantities are whole lots. A price outside the tape's
 * range holds nothing (own orders may quote anywhere; they never live in
 * this book).
 *
 * Market impact (off by default): `consume` removes quantity an own taker
 * order took from a level, and the removal persists as an offset on that
 * level (later updates show `recorded - offset`, never below 0) until the
 * level is recorded empty or the next SNAPSHOT of the market.
 */

/** Most levels a side may span (16 Mi ticks = 128 MiB per side). */
export const BOOK_SPAN_TICKS_MAX = 1 << 24;

export class BookSpanError extends Error {
  override readonly name = "BookSpanError";
}

export class ReplayBook {
  readonly minTicks: number;
  readonly size: number;
  readonly bids: Float64Array;
  readonly asks: Float64Array;
  /** Bit i of word i >> 5: level i holds something. */
  private readonly bidBits: Uint32Array;
  private readonly askBits: Uint32Array;
  /** Index of the best bid (-1: none) and best ask (`size`: none). */
  bestBidIndex = -1;
  bestAskIndex: number;
  bidLevels = 0;
  askLevels = 0;
  /** Impact offsets by index (market-impact mode); empty in the default mode. */
  private readonly bidImpact = new Map<number, number>();
  private readonly askImpact = new Map<number, number>();
  private impacted = false;

  constructor(
    readonly symbol: string,
    minTicks: number,
    maxTicks: number,
  ) {
    const size = maxTicks - minTicks + 1;
    if (!(size >= 1)) throw new BookSpanError(`${symbol} book maxTicks "${maxTicks}" must be >= minTicks "${minTicks}"`);
    if (size > BOOK_SPAN_TICKS_MAX) throw new BookSpanError(`${symbol} book spans ${size} ticks (${minTicks}..${maxTicks}): more than the ${BOOK_SPAN_TICKS_MAX} a replayed book holds`);
    this.minTicks = minTicks;
    this.size = size;
    this.bids = new Float64Array(size);
    this.asks = new Float64Array(size);
    this.bidBits = new Uint32Array((size + 31) >> 5);
    this.askBits = new Uint32Array((size + 31) >> 5);
    this.bestAskIndex = size;
  }

  /** Best bid in ticks, NaN when the side is empty. */
  get bestBidTicks(): number {
    return this.bestBidIndex < 0 ? NaN : this.bestBidIndex + this.minTicks;
  }

  /** Best ask in ticks, NaN when the side is empty. */
  get bestAskTicks(): number {
    return this.bestAskIndex >= this.size ? NaN : this.bestAskIndex + this.minTicks;
  }

  /** Mid price in ticks (may be a half tick), NaN unless both sides have a level. */
  get midTicks(): number {
    return (this.bestBidTicks + this.bestAskTicks) / 2;
  }

  /** Quantity at a price on a side (bid: true), in lots. */
  qtyAt(bid: boolean, ticks: number): number {
    const index = ticks - this.minTicks;
    if (index < 0 || index >= this.size) return 0;
    return bid ? this.bids[index]! : this.asks[index]!;
  }

  /** Sets a bid level from the recording; returns the quantity it held. */
  setBid(ticks: number, recordedLots: number): number {
    const index = ticks - this.minTicks;
    const bids = this.bids;
    const previous = bids[index]!;
    let qty = recordedLots;
    if (this.impacted) qty = this.applyImpact(this.bidImpact, index, recordedLots);
    bids[index] = qty;
    if (previous === 0) {
      if (qty !== 0) {
        this.bidLevels++;
        this.bidBits[index >> 5]! |= 1 << (index & 31);
        if (index > this.bestBidIndex) this.bestBidIndex = index;
      }
    } else if (qty === 0) {
      this.bidLevels--;
      this.bidBits[index >> 5]! &= ~(1 << (index & 31));
      if (index === this.bestBidIndex) this.bestBidIndex = this.bidLevels === 0 ? -1 : this.scanBidDown(index - 1);
    }
    return previous;
  }

  /** Sets an ask level from the recording; returns the quantity it held. */
  setAsk(ticks: number, recordedLots: number): number {
    const index = ticks - this.minTicks;
    const asks = this.asks;
    const previous = asks[index]!;
    let qty = recordedLots;
    if (this.impacted) qty = this.applyImpact(this.askImpact, index, recordedLots);
    asks[index] = qty;
    if (previous === 0) {
      if (qty !== 0) {
        this.askLevels++;
        this.askBits[index >> 5]! |= 1 << (index & 31);
        if (index < this.bestAskIndex) this.bestAskIndex = index;
      }
    } else if (qty === 0) {
      this.askLevels--;
      this.askBits[index >> 5]! &= ~(1 << (index & 31));
      if (index === this.bestAskIndex) this.bestAskIndex = this.askLevels === 0 ? this.size : this.scanAskUp(index + 1);
    }
    return previous;
  }

  /** The highest live bid at or below `from` (-1: none). */
  private scanBidDown(from: number): number {
    return highestAtOrBelow(this.bidBits, from);
  }

  /** The lowest live ask at or above `from` (`size`: none). */
  private scanAskUp(from: number): number {
    return lowestAtOrAbove(this.askBits, from, this.size);
  }

  /**
   * Whether a price lies beyond the recorded depth window of a side: the
   * side holds `windowLevels` levels (the most the feed carries) and the
   * price is worse than the worst of them, so the feed would not show the
   * price whatever rests there (queue.ts, "Depth window"). Levels own takers
   * emptied under market impact still count as held (they are recorded).
   * For many prices of one side in an unchanged book, take windowEdge once
   * and ask beyondEdge for each.
   */
  beyondWindow(bid: boolean, ticks: number, windowLevels: number): boolean {
    return this.beyondEdge(bid, ticks, this.windowEdge(bid, windowLevels));
  }

  /**
   * The index of the worst level a side holds (the depth window's edge), or
   * NaN while it holds fewer than `windowLevels` (nothing lies beyond). Valid
   * until the book next changes. It walks the side's levels: ask once per
   * side for many prices (replay.ts settleWindow).
   */
  windowEdge(bid: boolean, windowLevels: number): number {
    const shownLevels = bid ? this.bidLevels : this.askLevels;
    let levels = shownLevels;
    // The worst held level: the worst shown one, or a worse one that impact shows empty.
    let worst = -1;
    if (this.impacted) {
      const shown = bid ? this.bids : this.asks;
      for (const held of (bid ? this.bidImpact : this.askImpact).keys()) {
        if (shown[held] !== 0) continue;
        levels++;
        if (worst < 0 || (bid ? held < worst : held > worst)) worst = held;
      }
    }
    if (levels < windowLevels) return NaN;
    // Walked from the best: a full side spans its window, however far the book's array reaches. Not kept
    // incrementally: the setters are the replay's hot path (measured: keeping the worst level there cost about a
    // fifth of the book's row rate), and the edge is asked for only while an own order is out of the window.
    if (shownLevels > 0) {
      let index = bid ? this.bestBidIndex : this.bestAskIndex;
      for (let left = shownLevels; left > 1; left--) index = bid ? this.scanBidDown(index - 1) : this.scanAskUp(index + 1);
      if (worst < 0 || (bid ? index < worst : index > worst)) worst = index;
    }
    return worst;
  }

  /** beyondWindow against an edge from windowEdge (the book unchanged since). */
  beyondEdge(bid: boolean, ticks: number, edge: number): boolean {
    if (Number.isNaN(edge)) return false;
    const at = ticks - this.minTicks;
    if (bid ? at >= this.bestBidIndex : at <= this.bestAskIndex) return false;
    return bid ? at < edge : at > edge;
  }

  private applyImpact(offsets: Map<number, number>, index: number, recordedLots: number): number {
    const offset = offsets.get(index);
    if (offset === undefined) return recordedLots;
    if (recordedLots === 0) {
      offsets.delete(index);
      this.impacted = this.bidImpact.size + this.askImpact.size > 0;
      return 0;
    }
    return recordedLots > offset ? recordedLots - offset : 0;
  }

  /**
   * Market impact: an own taker order took `lots` from a level; the level
   * shows that much less until it is recorded empty or the next snapshot.
   */
  consume(bid: boolean, ticks: number, lots: number): void {
    const index = ticks - this.minTicks;
    if (index < 0 || index >= this.size || lots <= 0) return;
    const offsets = bid ? this.bidImpact : this.askImpact;
    const shown = bid ? this.bids[index]! : this.asks[index]!;
    const taken = Math.min(lots, shown);
    if (taken <= 0) return;
    offsets.set(index, (offsets.get(index) ?? 0) + taken);
    // Show the smaller level through the setters (bests and counts), the offset not applied twice.
    this.impacted = false;
    if (bid) this.setBid(ticks, shown - taken);
    else this.setAsk(ticks, shown - taken);
    this.impacted = true;
  }

  /** Lots removed by own takers at a level that the recording still shows (market-impact mode). */
  impactAt(bid: boolean, ticks: number): number {
    return (bid ? this.bidImpact : this.askImpact).get(ticks - this.minTicks) ?? 0;
  }

  /** A SNAPSHOT starts: every level goes, and with them the impact offsets. */
  clear(): void {
    for (let index = this.bestBidIndex; index >= 0; index = this.scanBidDown(index - 1)) this.bids[index] = 0;
    for (let index = this.bestAskIndex; index < this.size; index = this.scanAskUp(index + 1)) this.asks[index] = 0;
    this.bidBits.fill(0);
    this.askBits.fill(0);
    this.bidLevels = 0;
    this.askLevels = 0;
    this.bestBidIndex = -1;
    this.bestAskIndex = this.size;
    this.bidImpact.clear();
    this.askImpact.clear();
    this.impacted = false;
  }

  /** The best `count` levels of a side as [ticks, lots] pairs, best first. */
  levels(bid: boolean, count = Infinity): [number, number][] {
    const out: [number, number][] = [];
    if (bid) {
      for (let index = this.bestBidIndex; index >= 0 && out.length < count; index = this.scanBidDown(index - 1)) out.push([index + this.minTicks, this.bids[index]!]);
    } else {
      for (let index = this.bestAskIndex; index < this.size && out.length < count; index = this.scanAskUp(index + 1)) out.push([index + this.minTicks, this.asks[index]!]);
    }
    return out;
  }
}

/** The highest set bit's index at or below `from` in a level bitmap (-1: none). */
function highestAtOrBelow(bits: Uint32Array, from: number): number {
  if (from < 0) return -1;
  let word = from >> 5;
  const bit = from & 31;
  let live = bits[word]! & (bit === 31 ? -1 : (1 << (bit + 1)) - 1);
  while (live === 0) {
    if (--word < 0) return -1;
    live = bits[word]!;
  }
  return (word << 5) + 31 - Math.clz32(live);
}

/** The lowest set bit's index at or above `from` in a level bitmap of `size` levels (`size`: none). */
function lowestAtOrAbove(bits: Uint32Array, from: number, size: number): number {
  if (from >= size) return size;
  let word = from >> 5;
  let live = bits[word]! & ~((1 << (from & 31)) - 1);
  while (live === 0) {
    if (++word >= bits.length) return size;
    live = bits[word]!;
  }
  return (word << 5) + 31 - Math.clz32(live & -live);
}
