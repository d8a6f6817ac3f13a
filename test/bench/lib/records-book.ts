/**
 * A third floor for the engine benchmark: the bookkeeping an exchange's
 * engine does on the benchmark's stream, done on order records in typed
 * arrays (no object per resting order), to say what src/engine could reach
 * with that layout. Where the bare floors (bare-book.ts, typed-bare-book.ts)
 * leave every bookkeeping step out, this one keeps the steps the benchmark's
 * stream exercises, as src/engine does them:
 *
 * - a command object per operation, as the engine's driver hands it, checked
 *   (market, integer price and quantity in range, LIMIT GTC only: the floor
 *   knows only the stream's commands and refuses the rest);
 * - order and fill ids from the engine's own IdCounter; a cancel finds its
 *   order by parsing the id's text (IdCounter.indexOf), then the order's
 *   slot by its index; a cancel of an order that is no longer live is
 *   answered from the final status kept per order (one byte);
 * - a self-trade check against every maker's account;
 * - per owner, the count and notional (lots x ticks) of its resting orders;
 * - a row object for every order event (a strictly increasing sequence
 *   number, the order's identity and state, as OrderUpdate copies them),
 *   a fill object for every match, and a depth notice per command that
 *   changed the book, all to one sink.
 *
 * It leaves out what the stream never exercises (other order types and
 * times in force, client order ids, stops, modifies, market states, timers,
 * depth views, indexed accounts, pinning) and the engine's generality (any
 * number of markets, 64-bit order indices and times: this floor keeps an
 * order's index and its times in int32 fields, good for 2^31 orders and
 * until 2038).
 *
 * Orders are records of 16 int32 (64 bytes: one cache line) in one
 * Int32Array, in slots recycled through a free list; price levels are typed
 * arrays indexed by the price's offset from a base that the window moves
 * (growing by copy when a price falls outside it), with the best bid and
 * ask stepping to the next non-empty level when theirs empties.
 *
 * `objectPerOrder` "pooled" adds back one object per resting order (16
 * fields, the size of an engine's order), taken from the objects of orders
 * that left the book, written when the order rests and read when it
 * leaves, as src/engine keeps its orders: the difference between the two
 * figures is what that object costs with all the bookkeeping around it.
 */
import { IdCounter } from "../../../src/engine/order-table.ts";
import type { CancelOrderCommand, CreateOrderCommand } from "../../../src/engine/types.ts";
import type { BareStream } from "./bare-book.ts";

/** The stream with each cancel's order id as text, in the order the cancels come (engine.ts Workload). */
export interface RecordsStream extends BareStream {
  readonly cancelIds: readonly string[];
  readonly firstOrderId: bigint;
}

export interface RecordsRun {
  readonly seconds: number;
  readonly restingLots: number;
  readonly fills: number;
  /** Folded from the events, so that the sink's reads are not dead code. */
  readonly checksum: number;
}

export type RecordsObjects = "none" | "pooled";

const STRIDE = 16;
const PRICE = 0;
const QTY = 1;
const CUM = 2;
const PREV = 3;
const NEXT = 4;
const FLAGS = 5;
const OWNER = 6;
const ACCOUNT = 7;
const INDEX = 8;
const CREATED_SEC = 9;
const CREATED_MICROS = 10;
const UPDATED_SEC = 11;
const UPDATED_MICROS = 12;
const EXCHANGE = 13;

const IS_BUY = 1;
const STATUS_SHIFT = 1;
const FILLED = 1;
const CANCELLED = 2;
/** Final statuses by order index: 0 unknown (or live), else the status code + 1. */
const FINAL_FILLED = FILLED + 1;
const MICROS_PER_SECOND = 1_000_000;
const MAX_LOTS = 1_000_000_000;
/** Price levels the window starts with, and adds around a price that falls outside it. */
const LEVEL_WINDOW = 4_096;

/** One order event, as OrderUpdate copies it. */
export class RecordRow {
  constructor(
    readonly orderIndex: number,
    readonly accountId: number,
    readonly exchangeId: number,
    readonly createdSec: number,
    readonly createdMicros: number,
    readonly sequenceNumber: number,
    readonly priceTicks: number,
    readonly qtyLots: number,
    readonly cumLots: number,
    readonly flags: number,
    readonly updatedSec: number,
    readonly updatedMicros: number,
    readonly execLots: number,
    readonly firstFillIndex: number,
    readonly fillCount: number,
  ) {}
}

/** One match, as FillRecord copies it. */
export class RecordFill {
  constructor(
    readonly fillIndex: number,
    readonly takerIndex: number,
    readonly makerIndex: number,
    readonly takerAccountId: number,
    readonly makerAccountId: number,
    readonly takerOwnerId: number,
    readonly makerOwnerId: number,
    readonly priceTicks: number,
    readonly qtyLots: number,
    readonly atSec: number,
    readonly atMicros: number,
    readonly takerFilled: boolean,
    readonly makerFilled: boolean,
  ) {}
}

export interface RecordsSink {
  row(row: RecordRow): void;
  fill(fill: RecordFill): void;
  depthChanged(marketId: number, atMicros: number): void;
}

/** Stands for an engine's order object: 16 fields, the size of src/engine's Order. */
class OrderObject {
  constructor(
    public index: number,
    public accountId: number,
    public exchangeId: number,
    public ownerId: number,
    public priceTicks: number,
    public qtyLots: number,
    public cumLots: number,
    public flags: number,
    public createdSec: number,
    public createdMicros: number,
    public updatedSec: number,
    public updatedMicros: number,
    public level: object | null,
    public prev: OrderObject | null,
    public next: OrderObject | null,
    public extra: object | null,
  ) {}
}

export class RecordsBook {
  private readonly records: Int32Array;
  private readonly free: Int32Array;
  private freeCount = 0;
  /** Order index -> slot (0: not live). */
  private slotOfIndex = new Int32Array(1 << 16);
  private finalStatus = new Uint8Array(1 << 16);
  private base = 0;
  private span = 0;
  private head = new Int32Array(0);
  private tail = new Int32Array(0);
  private levelLots = new Float64Array(0);
  private levelCount = new Int32Array(0);
  private bestBid = -1;
  private bestAsk = 0;
  /** Per owner id: [2 id] resting count, [2 id + 1] resting notional in lots x ticks. */
  private owners = new Float64Array(1 << 16);
  private readonly orderIds: IdCounter;
  private readonly fillIds = new IdCounter(1n);
  private sequence = 1;
  private now = -1;
  private nowSec = 0;
  private nowMicros = 0;
  private readonly objects: (OrderObject | undefined)[];
  private readonly spareObjects: OrderObject[] = [];
  private spareCount = 0;
  /** Read from the objects as they leave, so that those reads are not dead code. */
  objectReads = 0;

  constructor(
    private readonly sink: RecordsSink,
    private readonly marketId: number,
    firstOrderId: bigint,
    /** The most orders that rest at once (the slab's size). */
    maxResting: number,
    private readonly objectPerOrder: RecordsObjects,
  ) {
    this.orderIds = new IdCounter(firstOrderId);
    this.records = new Int32Array((maxResting + 1) * STRIDE);
    this.free = new Int32Array(maxResting);
    for (let slot = maxResting; slot >= 1; slot--) this.free[this.freeCount++] = slot;
    this.objects = objectPerOrder === "none" ? [] : new Array<OrderObject | undefined>(maxResting + 1).fill(undefined);
  }

  /** The row of the taker's final state, or the rule it breaks. */
  createOrder(cmd: CreateOrderCommand): RecordRow | string {
    if (cmd.marketId !== this.marketId) return "marketId: no such market";
    const qty = cmd.qtyLots;
    if (qty === undefined || !Number.isSafeInteger(qty) || qty <= 0 || qty > MAX_LOTS) return "qty: a whole number of lots in range";
    if (!Number.isSafeInteger(cmd.priceTicks) || cmd.priceTicks <= 0) return "limitPx: a positive whole number of ticks";
    if (cmd.orderType !== "LIMIT" || cmd.timeInForce !== "GTC" || cmd.clientOrderId !== undefined || cmd.postOnly === true || cmd.reduceOnly === true) {
      return "orderType: this floor has plain LIMIT GTC only";
    }
    if (this.freeCount === 0) return "capacity: the slab is full";
    this.setNow(cmd.atMicros);
    const index = this.orderIds.take();
    const slot = this.free[--this.freeCount]!;
    const records = this.records;
    const at = slot * STRIDE;
    const isBuy = cmd.isBuy;
    const price = cmd.priceTicks;
    records[at + PRICE] = price;
    records[at + QTY] = qty;
    records[at + CUM] = 0;
    records[at + PREV] = 0;
    records[at + NEXT] = 0;
    records[at + FLAGS] = isBuy ? IS_BUY : 0;
    records[at + OWNER] = cmd.ownerId;
    records[at + ACCOUNT] = cmd.accountId;
    records[at + INDEX] = index;
    records[at + CREATED_SEC] = this.nowSec;
    records[at + CREATED_MICROS] = this.nowMicros;
    records[at + UPDATED_SEC] = this.nowSec;
    records[at + UPDATED_MICROS] = this.nowMicros;
    records[at + EXCHANGE] = cmd.exchangeId;
    const offset = this.offsetOf(price);
    let cum = 0;
    let firstFill = -1;
    let fillCount = 0;
    let selfTrade = false;
    let changed = false;
    while (cum < qty) {
      const level = isBuy ? this.bestAsk : this.bestBid;
      if (isBuy ? level >= this.span || level > offset : level < 0 || level < offset) break;
      const maker = this.head[level]!;
      const makerAt = maker * STRIDE;
      if (records[makerAt + ACCOUNT] === cmd.accountId) {
        selfTrade = true;
        break;
      }
      const makerLeft = records[makerAt + QTY]! - records[makerAt + CUM]!;
      const lots = Math.min(qty - cum, makerLeft);
      const makerFilled = lots === makerLeft;
      const fillIndex = this.fillIds.take();
      const makerPrice = records[makerAt + PRICE]!;
      const makerOwner = records[makerAt + OWNER]!;
      this.sink.fill(
        new RecordFill(fillIndex, index, records[makerAt + INDEX]!, cmd.accountId, records[makerAt + ACCOUNT]!, cmd.ownerId, makerOwner, makerPrice, lots, this.nowSec, this.nowMicros, lots === qty - cum, makerFilled),
      );
      cum += lots;
      records[makerAt + CUM] = records[makerAt + CUM]! + lots;
      records[makerAt + UPDATED_SEC] = this.nowSec;
      records[makerAt + UPDATED_MICROS] = this.nowMicros;
      this.levelLots[level] = this.levelLots[level]! - lots;
      this.owners[2 * makerOwner + 1] = this.owners[2 * makerOwner + 1]! - lots * makerPrice;
      changed = true;
      if (fillCount === 0) firstFill = fillIndex;
      fillCount++;
      if (makerFilled) {
        this.unrest(maker, level);
        this.end(maker, FILLED);
        this.emit(maker, lots, fillIndex, 1);
        this.release(maker);
      } else {
        this.emit(maker, lots, fillIndex, 1);
      }
    }
    records[at + CUM] = cum;
    let row: RecordRow;
    if (cum === qty || selfTrade) {
      this.end(slot, cum === qty ? FILLED : CANCELLED);
      row = this.emit(slot, cum, firstFill, fillCount);
      this.release(slot);
    } else {
      this.rest(slot, offset, qty - cum);
      changed = true;
      row = this.emit(slot, cum, firstFill, fillCount);
    }
    if (changed) this.sink.depthChanged(this.marketId, this.now);
    return row;
  }

  /** The row of the cancelled order, or why it cannot be cancelled. */
  cancelOrder(cmd: CancelOrderCommand): RecordRow | string {
    if (cmd.marketId !== this.marketId) return "marketId: no such market";
    if (cmd.orderId === undefined) return "orderId: this floor cancels by orderId only";
    const index = this.orderIds.indexOf(cmd.orderId);
    if (index < 0) return "orderId: no such order";
    const slot = index < this.slotOfIndex.length ? this.slotOfIndex[index]! : 0;
    if (slot === 0) return this.finalStatus[index] === FINAL_FILLED ? "orderId: the order has filled" : "orderId: the order is cancelled";
    const records = this.records;
    const at = slot * STRIDE;
    if (records[at + ACCOUNT] !== cmd.accountId) return "orderId: the order is another account's";
    this.setNow(cmd.atMicros);
    this.unrest(slot, records[at + PRICE]! - this.base);
    this.end(slot, CANCELLED);
    const row = this.emit(slot, 0, -1, 0);
    this.release(slot);
    this.sink.depthChanged(this.marketId, this.now);
    return row;
  }

  restingLots(): number {
    let lots = 0;
    for (let level = 0; level < this.span; level++) lots += this.levelLots[level]!;
    return lots;
  }

  private setNow(atMicros: number): void {
    if (atMicros === this.now) return;
    this.now = atMicros;
    const seconds = Math.floor(atMicros / MICROS_PER_SECOND);
    this.nowSec = seconds;
    this.nowMicros = (atMicros - seconds * MICROS_PER_SECOND) | 0;
  }

  /** The level offset of a price, moving the window to hold it. */
  private offsetOf(price: number): number {
    if (this.span === 0) this.openWindow(price);
    else if (price < this.base || price >= this.base + this.span) this.widenWindow(price);
    return price - this.base;
  }

  private openWindow(price: number): void {
    this.base = price - LEVEL_WINDOW / 2;
    this.span = LEVEL_WINDOW;
    this.head = new Int32Array(LEVEL_WINDOW);
    this.tail = new Int32Array(LEVEL_WINDOW);
    this.levelLots = new Float64Array(LEVEL_WINDOW);
    this.levelCount = new Int32Array(LEVEL_WINDOW);
    this.bestBid = -1;
    this.bestAsk = LEVEL_WINDOW;
  }

  private widenWindow(price: number): void {
    const low = Math.min(this.base, price - LEVEL_WINDOW / 4);
    const high = Math.max(this.base + this.span, price + LEVEL_WINDOW / 4);
    const span = high - low;
    const shift = this.base - low;
    const widen = <T extends Int32Array | Float64Array>(old: T, made: T): T => {
      made.set(old, shift);
      return made;
    };
    this.head = widen(this.head, new Int32Array(span));
    this.tail = widen(this.tail, new Int32Array(span));
    this.levelLots = widen(this.levelLots, new Float64Array(span));
    this.levelCount = widen(this.levelCount, new Int32Array(span));
    this.bestBid = this.bestBid < 0 ? -1 : this.bestBid + shift;
    this.bestAsk = this.bestAsk >= this.span ? span : this.bestAsk + shift;
    this.base = low;
    this.span = span;
  }

  private rest(slot: number, offset: number, lots: number): void {
    const records = this.records;
    const at = slot * STRIDE;
    const last = this.tail[offset]!;
    records[at + PREV] = last;
    if (last === 0) this.head[offset] = slot;
    else records[last * STRIDE + NEXT] = slot;
    this.tail[offset] = slot;
    this.levelLots[offset] = this.levelLots[offset]! + lots;
    this.levelCount[offset] = this.levelCount[offset]! + 1;
    if ((records[at + FLAGS]! & IS_BUY) !== 0) {
      if (offset > this.bestBid) this.bestBid = offset;
    } else if (offset < this.bestAsk) this.bestAsk = offset;
    const owner = records[at + OWNER]!;
    if (2 * owner + 1 >= this.owners.length) this.owners = grown(this.owners, 2 * owner + 2);
    this.owners[2 * owner] = this.owners[2 * owner]! + 1;
    this.owners[2 * owner + 1] = this.owners[2 * owner + 1]! + lots * records[at + PRICE]!;
    const index = records[at + INDEX]!;
    if (index >= this.slotOfIndex.length) this.slotOfIndex = grown(this.slotOfIndex, index + 1);
    this.slotOfIndex[index] = slot;
    if (this.objectPerOrder !== "none") this.attachObject(slot);
  }

  /** Takes a resting order out of its level and its owner's figures. */
  private unrest(slot: number, offset: number): void {
    const records = this.records;
    const at = slot * STRIDE;
    const prev = records[at + PREV]!;
    const next = records[at + NEXT]!;
    if (prev === 0) this.head[offset] = next;
    else records[prev * STRIDE + NEXT] = next;
    if (next === 0) this.tail[offset] = prev;
    else records[next * STRIDE + PREV] = prev;
    const left = records[at + QTY]! - records[at + CUM]!;
    this.levelLots[offset] = this.levelLots[offset]! - left;
    const owner = records[at + OWNER]!;
    this.owners[2 * owner] = this.owners[2 * owner]! - 1;
    this.owners[2 * owner + 1] = this.owners[2 * owner + 1]! - left * records[at + PRICE]!;
    this.slotOfIndex[records[at + INDEX]!] = 0;
    if (this.objectPerOrder !== "none") this.detachObject(slot);
    if (--this.levelCount[offset]! > 0) return;
    if ((records[at + FLAGS]! & IS_BUY) !== 0) {
      if (offset === this.bestBid) while (--this.bestBid >= 0 && this.levelCount[this.bestBid] === 0);
    } else if (offset === this.bestAsk) while (++this.bestAsk < this.span && this.levelCount[this.bestAsk] === 0);
  }

  /** Records an order's final status (FILLED or CANCELLED). */
  private end(slot: number, status: number): void {
    const at = slot * STRIDE;
    this.records[at + FLAGS] = this.records[at + FLAGS]! | (status << STATUS_SHIFT);
    this.records[at + UPDATED_SEC] = this.nowSec;
    this.records[at + UPDATED_MICROS] = this.nowMicros;
    const index = this.records[at + INDEX]!;
    if (index >= this.finalStatus.length) this.finalStatus = grown(this.finalStatus, index + 1);
    this.finalStatus[index] = status + 1;
  }

  private release(slot: number): void {
    this.free[this.freeCount++] = slot;
  }

  private emit(slot: number, execLots: number, firstFill: number, fillCount: number): RecordRow {
    const records = this.records;
    const at = slot * STRIDE;
    const row = new RecordRow(
      records[at + INDEX]!,
      records[at + ACCOUNT]!,
      records[at + EXCHANGE]!,
      records[at + CREATED_SEC]!,
      records[at + CREATED_MICROS]!,
      this.sequence++,
      records[at + PRICE]!,
      records[at + QTY]!,
      records[at + CUM]!,
      records[at + FLAGS]!,
      records[at + UPDATED_SEC]!,
      records[at + UPDATED_MICROS]!,
      execLots,
      firstFill,
      fillCount,
    );
    this.sink.row(row);
    return row;
  }

  private attachObject(slot: number): void {
    const records = this.records;
    const at = slot * STRIDE;
    let object: OrderObject;
    if (this.spareCount > 0) {
      object = this.spareObjects[--this.spareCount]!;
      object.index = records[at + INDEX]!;
      object.accountId = records[at + ACCOUNT]!;
      object.exchangeId = records[at + EXCHANGE]!;
      object.ownerId = records[at + OWNER]!;
      object.priceTicks = records[at + PRICE]!;
      object.qtyLots = records[at + QTY]!;
      object.cumLots = records[at + CUM]!;
      object.flags = records[at + FLAGS]!;
      object.createdSec = records[at + CREATED_SEC]!;
      object.createdMicros = records[at + CREATED_MICROS]!;
      object.updatedSec = records[at + UPDATED_SEC]!;
      object.updatedMicros = records[at + UPDATED_MICROS]!;
    } else {
      object = new OrderObject(
        records[at + INDEX]!,
        records[at + ACCOUNT]!,
        records[at + EXCHANGE]!,
        records[at + OWNER]!,
        records[at + PRICE]!,
        records[at + QTY]!,
        records[at + CUM]!,
        records[at + FLAGS]!,
        records[at + CREATED_SEC]!,
        records[at + CREATED_MICROS]!,
        records[at + UPDATED_SEC]!,
        records[at + UPDATED_MICROS]!,
        null,
        null,
        null,
        null,
      );
    }
    this.objects[slot] = object;
  }

  private detachObject(slot: number): void {
    const object = this.objects[slot]!;
    this.objects[slot] = undefined;
    this.objectReads = (this.objectReads + object.accountId + object.cumLots) | 0;
    this.spareObjects[this.spareCount++] = object;
  }
}

/** A copy of `array`, at least `length` long (doubling). */
function grown<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const made = new (array.constructor as new (length: number) => T)(Math.max(length, 2 * array.length));
  made.set(array);
  return made;
}
