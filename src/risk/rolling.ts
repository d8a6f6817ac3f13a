/**
 * Rolling sums over virtual time, in fixed buckets.
 *
 * An amount added at time t falls in bucket floor(t / bucketMicros). At time
 * `now` the window holds the buckets whose index is greater than
 * floor((now - windowMicros) / bucketMicros): the last windowMicros, to the
 * bucket's resolution. Buckets are kept in a queue, so adding and reading are
 * O(1) amortized, and times must not go backwards.
 */
import { assert } from "../core/assert.ts";

export class RollingSum {
  private readonly bucketIndices: number[] = [];
  private readonly bucketSums: bigint[] = [];
  private head = 0;
  private total = 0n;
  private lastMicros = Number.MIN_SAFE_INTEGER;

  constructor(
    readonly bucketMicros: number,
    readonly windowMicros: number,
  ) {
    assert(Number.isSafeInteger(bucketMicros) && bucketMicros > 0, `bucketMicros ${bucketMicros} must be a positive integer`);
    assert(windowMicros % bucketMicros === 0 && windowMicros > 0, `windowMicros ${windowMicros} must be a positive multiple of bucketMicros`);
  }

  add(atMicros: number, amount: bigint): void {
    this.advance(atMicros);
    const index = Math.floor(atMicros / this.bucketMicros);
    const last = this.bucketIndices.length - 1;
    if (last >= this.head && this.bucketIndices[last] === index) {
      this.bucketSums[last] = this.bucketSums[last]! + amount;
    } else {
      this.bucketIndices.push(index);
      this.bucketSums.push(amount);
    }
    this.total += amount;
  }

  sum(atMicros: number): bigint {
    this.advance(atMicros);
    return this.total;
  }

  private advance(atMicros: number): void {
    if (!(atMicros >= this.lastMicros)) assert(false, `rolling window time went backwards: ${atMicros} < ${this.lastMicros}`);
    this.lastMicros = atMicros;
    const oldestKept = Math.floor((atMicros - this.windowMicros) / this.bucketMicros) + 1;
    while (this.head < this.bucketIndices.length && this.bucketIndices[this.head]! < oldestKept) {
      this.total -= this.bucketSums[this.head]!;
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.bucketIndices.length) {
      this.bucketIndices.splice(0, this.head);
      this.bucketSums.splice(0, this.head);
      this.head = 0;
    }
  }
}

/**
 * Last-trade prices over a rolling window, for pxChange24h: the change is
 * the last price minus the reference price, the last price at or before
 * `now - windowMicros` (or, when the window holds every trade seen, the
 * first trade's price).
 *
 * The window keeps one price per time, the last trade's at that time (the
 * trades of one block share its time), which is what "the last price at or
 * before" reads; the very first trade's price is kept apart, since the
 * first time's entry holds the last trade of that time, not the first.
 */
export class PriceWindow {
  private readonly times: number[] = [];
  private readonly prices: bigint[] = [];
  private head = 0;
  private reference: bigint | undefined;
  /** The first trade's price ever seen: the reference until a trade leaves the window. */
  private first: bigint | undefined;
  private lastMicros = Number.MIN_SAFE_INTEGER;

  constructor(readonly windowMicros: number) {}

  add(atMicros: number, price: bigint): void {
    this.advance(atMicros);
    if (this.first === undefined) this.first = price;
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === atMicros) {
      this.prices[last] = price;
    } else {
      this.times.push(atMicros);
      this.prices.push(price);
    }
  }

  /** last - reference, or undefined when no trade was ever seen. */
  change(atMicros: number): bigint | undefined {
    this.advance(atMicros);
    const last = this.prices.length - 1;
    const lastPrice = last >= this.head ? this.prices[last]! : this.reference;
    if (lastPrice === undefined) return undefined;
    return lastPrice - (this.reference ?? this.first!);
  }

  private advance(atMicros: number): void {
    if (!(atMicros >= this.lastMicros)) assert(false, `price window time went backwards: ${atMicros} < ${this.lastMicros}`);
    this.lastMicros = atMicros;
    const horizon = atMicros - this.windowMicros;
    while (this.head < this.times.length && this.times[this.head]! <= horizon) {
      this.reference = this.prices[this.head]!;
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.prices.splice(0, this.head);
      this.head = 0;
    }
  }
}
