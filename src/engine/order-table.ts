/**
 * Order ids and the table of live orders.
 *
 * Order ids come from one counter (IdCounter below), so an id is
 * firstOrderId + index. The table addresses live orders directly by index
 * in chunks of 4,096 slots; a chunk is freed once no live order is left in
 * it, except the newest (where the next orders go: freeing that one made a
 * book whose orders fill at once allocate and clear 32 KB per order), and
 * one freed chunk is kept for reuse. In a micro-benchmark of the engine
 * benchmark's pattern (60,000 live orders, constant churn) this was 5-10x
 * faster than a Map keyed by id (no hashing, no rehash on churn); the cost
 * is that one long-lived order keeps its 32 KB chunk alive.
 *
 * The final status of every order ever issued is kept in one byte, so that
 * a cancel of a finished order can say whether it was filled or cancelled.
 */
import { assert } from "../core/assert.ts";
import { UINT64_MAX } from "../core/decimal.ts";
import type { Order } from "./order.ts";
import type { OrderStatus } from "./types.ts";

const CHUNK_BITS = 12;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
const STATUS_CHUNK_BITS = 16;
const STATUS_CHUNK_SIZE = 1 << STATUS_CHUNK_BITS;
const LOW_DIGITS = 1e9;
/** Indices stay safe integers, also with the low digits of the first id added. */
const MAX_INDEX = Number.MAX_SAFE_INTEGER - LOW_DIGITS;

const STATUS_CODES: readonly (OrderStatus | "unknown")[] = ["unknown", "OPEN", "FILLED", "CANCELLED"];
const CODE_OF_STATUS: Record<OrderStatus, number> = { OPEN: 1, FILLED: 2, CANCELLED: 3 };

/**
 * A counter of uint64 ids (order ids, fill ids): id = first + index. The
 * engine keeps only the index (a number); the decimal text is built when
 * someone reads it (Order.orderId, FillRecord.fillId): below 2^53 as one
 * number, above from a cached text of the id's digits above the last nine
 * and the last nine digits as a number: no bigint either way.
 */
export class IdCounter {
  private readonly firstHigh: number;
  private readonly firstLow: number;
  /** `first` as a number when it is a safe integer (ids up to 2^53 are then one number-to-text conversion), else -1. */
  private readonly firstNumber: number;
  /** Ids that fit in uint64 from `first` (capped at the safe-integer range). */
  private readonly capacity: number;
  private cachedHigh = -1;
  private cachedHighText = "";
  /** The latest text built (a fill's id is read from the fill and again from its order rows). */
  private lastIndex = -1;
  private lastText = "";
  /** Ids issued so far; the next id's index. */
  issued = 0;

  constructor(readonly first: bigint) {
    if (first < 0n || first > UINT64_MAX) throw new RangeError(`first id ${first} is outside uint64`);
    this.firstHigh = Number(first / BigInt(LOW_DIGITS));
    this.firstLow = Number(first % BigInt(LOW_DIGITS));
    this.firstNumber = first <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(first) : -1;
    const room = UINT64_MAX - first + 1n;
    this.capacity = room > BigInt(MAX_INDEX) ? MAX_INDEX : Number(room);
  }

  /** Takes the next id; returns its index. */
  take(): number {
    const index = this.issued;
    if (index >= this.capacity) exhausted();
    this.issued = index + 1;
    return index;
  }

  /** Takes the next id; returns its text. */
  next(): string {
    return this.text(this.take());
  }

  /** The decimal text of the id with this index. */
  text(index: number): string {
    if (index === this.lastIndex) return this.lastText;
    const text = this.build(index);
    this.lastIndex = index;
    this.lastText = text;
    return text;
  }

  private build(index: number): string {
    if (this.firstNumber >= 0 && this.firstNumber + index <= Number.MAX_SAFE_INTEGER) return String(this.firstNumber + index);
    const low = this.firstLow + index;
    const carry = Math.floor(low / LOW_DIGITS);
    const high = this.firstHigh + carry;
    const lowDigits = low - carry * LOW_DIGITS;
    if (high === 0) return String(lowDigits);
    if (high !== this.cachedHigh) {
      this.cachedHigh = high;
      this.cachedHighText = String(high);
    }
    return lowDigits >= 100_000_000 ? this.cachedHighText + lowDigits : this.cachedHighText + String(lowDigits).padStart(9, "0");
  }

  /**
   * The index of an issued id, or -1 for any text that is not one. Parses
   * the digits in two safe-integer halves (the last 9 digits and the rest),
   * without a bigint: this runs on every cancel and modify.
   */
  indexOf(id: string): number {
    if (typeof id !== "string") return -1;
    const length = id.length;
    if (length === 0 || length > 20 || (length > 1 && id.charCodeAt(0) === 48)) return -1;
    const split = length > 9 ? length - 9 : 0;
    let high = 0;
    let low = 0;
    let i = 0;
    for (; i < split; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit >>> 0 > 9) return -1;
      high = high * 10 + digit;
    }
    for (; i < length; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit >>> 0 > 9) return -1;
      low = low * 10 + digit;
    }
    const index = (high - this.firstHigh) * LOW_DIGITS + (low - this.firstLow);
    return Number.isSafeInteger(index) && index >= 0 && index < this.issued ? index : -1;
  }
}

/** Throws for an id counter at its end (a function of its own: it keeps `take` small enough for V8 to inline everywhere). */
function exhausted(): never {
  throw new RangeError("uint64 id space exhausted");
}

/** Order ids: an IdCounter (the name the rest of the engine knows it by). */
export class OrderIds extends IdCounter {}

/** The engine's two id counters, reachable from every market (for the ids' text). */
export class EngineIds {
  constructor(
    readonly orders: OrderIds,
    readonly fills: IdCounter,
  ) {}
}

export class OrderTable {
  private readonly chunks: ((Order | undefined)[] | undefined)[] = [];
  private readonly liveInChunk: number[] = [];
  /**
   * Per chunk, slots [low, high) hold every live order of it (all() scans
   * only those): add widens the range, all() narrows it to the live orders
   * it finds. Without it each walk read all 4,096 slots of every chunk that
   * one long-lived order keeps open, and the invariant checks walk the table
   * at every block (~8% of the one-hour exchange scenario's checks).
   */
  private readonly low: number[] = [];
  private readonly high: number[] = [];
  private readonly statuses: Uint8Array[] = [];
  /** The chunk of the newest order added: kept while empty, since the next orders go there. */
  private newest = -1;
  /** A freed chunk (every slot empty), kept for the next chunk to open. */
  private spare: (Order | undefined)[] | null = null;
  size = 0;

  get(index: number): Order | undefined {
    if (index < 0) return undefined;
    return this.chunks[index >>> CHUNK_BITS]?.[index & CHUNK_MASK];
  }

  add(order: Order): void {
    const chunkIndex = order.index >>> CHUNK_BITS;
    const chunk = this.chunks[chunkIndex] ?? this.openChunk(chunkIndex);
    assert(chunk[order.index & CHUNK_MASK] === undefined, "an order id is live once");
    const slot = order.index & CHUNK_MASK;
    chunk[slot] = order;
    this.liveInChunk[chunkIndex]! += 1;
    if (slot < this.low[chunkIndex]!) this.low[chunkIndex] = slot;
    if (slot >= this.high[chunkIndex]!) this.high[chunkIndex] = slot + 1;
    this.size += 1;
  }

  delete(order: Order): void {
    const chunkIndex = order.index >>> CHUNK_BITS;
    const chunk = this.chunks[chunkIndex];
    assert(chunk !== undefined && chunk[order.index & CHUNK_MASK] === order, "a deleted order is live");
    chunk[order.index & CHUNK_MASK] = undefined;
    this.size -= 1;
    if (--this.liveInChunk[chunkIndex]! === 0 && chunkIndex !== this.newest) this.closeChunk(chunkIndex);
  }

  private openChunk(chunkIndex: number): (Order | undefined)[] {
    const chunk = this.spare ?? new Array<Order | undefined>(CHUNK_SIZE).fill(undefined);
    this.spare = null;
    this.chunks[chunkIndex] = chunk;
    this.liveInChunk[chunkIndex] = 0;
    this.low[chunkIndex] = CHUNK_SIZE;
    this.high[chunkIndex] = 0;
    if (chunkIndex > this.newest) {
      const previous = this.newest;
      this.newest = chunkIndex;
      if (previous >= 0 && this.chunks[previous] !== undefined && this.liveInChunk[previous] === 0) this.closeChunk(previous);
    }
    return chunk;
  }

  /** Frees an empty chunk, keeping it as the spare. */
  private closeChunk(chunkIndex: number): void {
    this.spare = this.chunks[chunkIndex]!;
    this.chunks[chunkIndex] = undefined;
  }

  /** Records the final status of the order with this index (a live order is in the table instead). */
  setStatus(index: number, status: OrderStatus): void {
    this.setStatusCode(index, CODE_OF_STATUS[status] - 1);
  }

  /** setStatus by the Order status code (order.ts STATUS_FILLED, STATUS_CANCELLED). */
  setStatusCode(index: number, statusCode: number): void {
    const chunkIndex = index >>> STATUS_CHUNK_BITS;
    let chunk = this.statuses[chunkIndex];
    if (chunk === undefined) {
      while (this.statuses.length <= chunkIndex) this.statuses.push(new Uint8Array(STATUS_CHUNK_SIZE));
      chunk = this.statuses[chunkIndex]!;
    }
    chunk[index & (STATUS_CHUNK_SIZE - 1)] = statusCode + 1;
  }

  /** The final status of a finished order, "OPEN" for a live one, "unknown" for an index never issued or never recorded. */
  statusOf(index: number): OrderStatus | "unknown" {
    if (index < 0) return "unknown";
    if (this.get(index) !== undefined) return "OPEN";
    const code = this.statuses[index >>> STATUS_CHUNK_BITS]?.[index & (STATUS_CHUNK_SIZE - 1)] ?? 0;
    return STATUS_CODES[code]!;
  }

  /** Every live order, by index (for state dumps and checks): a new array. */
  all(): Order[] {
    const live: Order[] = [];
    const chunks = this.chunks;
    for (let chunkIndex = 0; chunkIndex < chunks.length; chunkIndex++) {
      const chunk = chunks[chunkIndex];
      if (chunk === undefined) continue;
      const high = this.high[chunkIndex]!;
      let first = CHUNK_SIZE;
      let last = -1;
      for (let slot = this.low[chunkIndex]!; slot < high; slot++) {
        const order = chunk[slot];
        if (order === undefined) continue;
        live.push(order);
        if (first === CHUNK_SIZE) first = slot;
        last = slot;
      }
      this.low[chunkIndex] = first;
      this.high[chunkIndex] = last + 1;
    }
    return live;
  }
}
