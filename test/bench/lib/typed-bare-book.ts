/**
 * A second floor for the engine benchmark: the same bare book as
 * bare-book.ts (price-time priority, matching at the makers' prices, no
 * bookkeeping at all), laid out as a fast native engine lays it out rather
 * than as JavaScript usually does:
 *
 * - orders are records of eight int32 in one Int32Array (32 bytes: price
 *   offset, remaining lots, previous and next order, the order's index in
 *   the stream, side), in slots recycled through a free list, so a resting
 *   order is no object at all: nothing to allocate, promote or copy;
 * - price levels are arrays indexed by the price's offset from the lowest
 *   price of the stream (head, tail, lots, count), and the best bid and ask
 *   are offsets that step to the next non-empty level when theirs empties
 *   (levels near the touch are dense, so the step is short);
 * - a cancel finds its order's slot by the order's index in the stream.
 *
 * `objectPerOrder` adds back the one thing every object-based engine has and
 * this layout does not: one small JavaScript object per resting order (here
 * ten fields: about what an order's identity and state take), made when the
 * order rests and read when it leaves, either made fresh each time
 * ("fresh", as an engine whose orders are objects does) or taken from a pool
 * of retired ones ("pooled"). The three figures side by side say what the
 * per-order object costs by itself, apart from any bookkeeping: on a deep
 * book it is most of the time (measured 2026-11-22, deep: ~14M ops/s with
 * no object, ~6-7M pooled, ~3-4.5M fresh, as the object floor of
 * bare-book.ts).
 */
import type { BareRun, BareStream } from "./bare-book.ts";

/** Int32 fields per order record; slot 0 is never used, so 0 means "no order". */
const STRIDE = 8;
const PRICE = 0;
const LOTS = 1;
const PREV = 2;
const NEXT = 3;
const INDEX = 4;
const IS_BUY = 5;

export type ObjectPerOrder = "none" | "fresh" | "pooled";

/** Stands for an order object of an object-based engine: its identity and state, about ten fields. */
class OrderObject {
  constructor(
    public index: number,
    public accountId: number,
    public ownerId: number,
    public priceTicks: number,
    public qtyLots: number,
    public cumLots: number,
    public flags: number,
    public createdAt: number,
    public updatedAt: number,
    public extra: object | null,
  ) {}
}

/**
 * Runs the stream through a fresh typed book; times only the stream.
 * `maxResting`: the most orders that ever rest at once (the slab's size).
 */
export function runTypedBareBook(stream: BareStream, maxResting: number, objectPerOrder: ObjectPerOrder = "none"): BareRun {
  let lowest = Number.POSITIVE_INFINITY;
  let highest = Number.NEGATIVE_INFINITY;
  for (let op = 0; op < stream.ops; op++) {
    if (stream.kinds[op] !== 0) continue;
    const price = stream.priceTicks[op]!;
    if (price < lowest) lowest = price;
    if (price > highest) highest = price;
  }
  const base = lowest;
  const span = highest - lowest + 1;
  const slots = maxResting;
  const records = new Int32Array((slots + 1) * STRIDE);
  const free = new Int32Array(slots);
  let freeCount = 0;
  for (let slot = slots; slot >= 1; slot--) free[freeCount++] = slot;
  const head = new Int32Array(span);
  const tail = new Int32Array(span);
  const levelLots = new Int32Array(span);
  const levelCount = new Int32Array(span);
  /** Stream index -> slot + 0 (0: not resting). */
  const slotOf = new Int32Array(stream.ops + 1);
  const objects: (OrderObject | undefined)[] = objectPerOrder === "none" ? [] : new Array<OrderObject | undefined>(slots + 1).fill(undefined);
  const pool: OrderObject[] = [];
  let objectReads = 0;
  let bestBid = -1;
  let bestAsk = span;
  let fills = 0;

  /** Frees a slot whose order has left the book (its links already undone). */
  const release = (slot: number): void => {
    slotOf[records[slot * STRIDE + INDEX]!] = 0;
    if (objectPerOrder !== "none") {
      const object = objects[slot]!;
      objectReads += object.accountId;
      objects[slot] = undefined;
      if (objectPerOrder === "pooled") pool.push(object);
    }
    free[freeCount++] = slot;
  };

  const started = process.hrtime.bigint();
  for (let op = 0; op < stream.ops; op++) {
    const index = stream.orderIndex[op]!;
    if (stream.kinds[op] === 0) {
      const isBuy = stream.isBuy[op] === 1;
      const price = stream.priceTicks[op]! - base;
      let lots = stream.qtyLots[op]!;
      // Match against the opposite side's best levels while they cross.
      while (lots > 0 && (isBuy ? bestAsk <= price : bestBid >= price)) {
        const level = isBuy ? bestAsk : bestBid;
        const maker = head[level]!;
        const makerLots = records[maker * STRIDE + LOTS]!;
        const taken = lots < makerLots ? lots : makerLots;
        lots -= taken;
        fills++;
        levelLots[level] = levelLots[level]! - taken;
        if (taken < makerLots) {
          records[maker * STRIDE + LOTS] = makerLots - taken;
          continue;
        }
        const next = records[maker * STRIDE + NEXT]!;
        head[level] = next;
        if (next === 0) tail[level] = 0;
        else records[next * STRIDE + PREV] = 0;
        release(maker);
        if (--levelCount[level]! > 0) continue;
        if (isBuy) while (++bestAsk < span && levelCount[bestAsk] === 0);
        else while (--bestBid >= 0 && levelCount[bestBid] === 0);
      }
      if (lots === 0) continue;
      if (freeCount === 0) throw new RangeError(`more than ${maxResting} orders rest at once`);
      const slot = free[--freeCount]!;
      const record = slot * STRIDE;
      const last = tail[price]!;
      records[record + PRICE] = price;
      records[record + LOTS] = lots;
      records[record + PREV] = last;
      records[record + NEXT] = 0;
      records[record + INDEX] = index;
      records[record + IS_BUY] = isBuy ? 1 : 0;
      if (last === 0) head[price] = slot;
      else records[last * STRIDE + NEXT] = slot;
      tail[price] = slot;
      levelLots[price] = levelLots[price]! + lots;
      levelCount[price] = levelCount[price]! + 1;
      slotOf[index] = slot;
      if (isBuy ? price > bestBid : price < bestAsk) {
        if (isBuy) bestBid = price;
        else bestAsk = price;
      }
      if (objectPerOrder !== "none") {
        const object = pool.pop();
        if (object === undefined) {
          objects[slot] = new OrderObject(index, index + 1, index + 1, price, lots, 0, 0, op, op, null);
        } else {
          object.index = index;
          object.accountId = index + 1;
          object.ownerId = index + 1;
          object.priceTicks = price;
          object.qtyLots = lots;
          object.cumLots = 0;
          object.flags = 0;
          object.createdAt = op;
          object.updatedAt = op;
          objects[slot] = object;
        }
      }
    } else {
      const slot = slotOf[index]!;
      if (slot === 0) continue;
      const record = slot * STRIDE;
      const price = records[record + PRICE]!;
      const prev = records[record + PREV]!;
      const next = records[record + NEXT]!;
      if (prev === 0) head[price] = next;
      else records[prev * STRIDE + NEXT] = next;
      if (next === 0) tail[price] = prev;
      else records[next * STRIDE + PREV] = prev;
      levelLots[price] = levelLots[price]! - records[record + LOTS]!;
      const isBuy = records[record + IS_BUY] === 1;
      release(slot);
      if (--levelCount[price]! > 0) continue;
      if (isBuy && price === bestBid) while (--bestBid >= 0 && levelCount[bestBid] === 0);
      else if (!isBuy && price === bestAsk) while (++bestAsk < span && levelCount[bestAsk] === 0);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  let restingLots = 0;
  for (let level = 0; level < span; level++) restingLots += levelLots[level]!;
  // objectReads keeps the object reads from being dead code; it never changes the figures.
  return { seconds, restingLots, fills: fills + (objectReads < 0 ? 1 : 0) };
}
