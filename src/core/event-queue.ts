/**
 * The event queue of the simulation: a binary min-heap keyed by
 * (time, insertion sequence), so events at equal times pop in the order they
 * were pushed (FIFO), which is what makes same-time runs deterministic.
 *
 * Layout: struct of arrays (times in a Float64Array, sequences and item slot
 * numbers in 32-bit arrays), sifted with the "hole" technique. Items sit
 * still in a slot store with a free list, so a sift moves only numbers: no
 * pointer stores, hence no GC write barriers, on the hot path.
 *
 * Cancellation is lazy and O(1): a cancelled entry stays in the heap, marked
 * in a bitmap indexed by its sequence number, and is dropped when it reaches
 * the top. The bitmap also marks entries already popped, so `cancel` can say
 * truthfully whether it stopped anything. It costs one bit per event ever
 * pushed (about 125 MB per billion events). When cancelled entries make up
 * more than half the heap, it is compacted so that it never grows without
 * bound under heavy cancellation.
 */
export type EventHandle = number;

const INITIAL_CAPACITY = 1024;
/** Sequence numbers index the bitmap with 32-bit arithmetic. */
const MAX_EVENTS = 0xffff_ffff;

export class EventQueue<T> {
  private times = new Float64Array(INITIAL_CAPACITY);
  private seqs = new Uint32Array(INITIAL_CAPACITY);
  /** Heap slot -> item slot. Items never move: the heap moves only numbers (no GC write barriers). */
  private itemSlots = new Int32Array(INITIAL_CAPACITY);
  private readonly itemStore: (T | undefined)[] = [];
  private readonly freeItemSlots: number[] = [];
  private heapLength = 0;
  private nextSeq = 0;
  /** Bit per sequence number: 1 = popped or cancelled (no longer pending). */
  private finished = new Uint32Array(INITIAL_CAPACITY / 32);
  private cancelledInHeap = 0;
  /** The time of the entry most recently returned by `pop`. */
  poppedTime = 0;

  /** Pending (not cancelled) events. */
  get size(): number {
    return this.heapLength - this.cancelledInHeap;
  }

  /** Schedules `item` at `time`; returns a handle for `cancel`. */
  push(time: number, item: T): EventHandle {
    if (Number.isNaN(time)) throw new RangeError("event time is NaN");
    const seq = this.nextSeq++;
    if (seq > MAX_EVENTS) throw new RangeError(`more than ${MAX_EVENTS} events pushed into one queue`);
    if ((seq >>> 5) >= this.finished.length) this.growFinished();
    if (this.heapLength === this.times.length) this.growHeap();
    const slot = this.freeItemSlots.length > 0 ? this.freeItemSlots.pop()! : this.itemStore.length;
    this.itemStore[slot] = item;
    this.siftUp(this.heapLength++, time, seq, slot);
    return seq;
  }

  /** Cancels a pending event; false when it was already popped or cancelled, or never existed. */
  cancel(handle: EventHandle): boolean {
    if (!Number.isInteger(handle) || handle < 0 || handle >= this.nextSeq) return false;
    const word = handle >>> 5;
    const bit = 1 << (handle & 31);
    if ((this.finished[word]! & bit) !== 0) return false;
    this.finished[word]! |= bit;
    this.cancelledInHeap++;
    if (this.cancelledInHeap > 1024 && this.cancelledInHeap * 2 > this.heapLength) this.compact();
    return true;
  }

  /** The time of the next pending event, or Infinity when there is none. */
  peekTime(): number {
    this.dropCancelledTop();
    return this.heapLength === 0 ? Infinity : this.times[0]!;
  }

  /** Removes and returns the next pending event (its time is in `poppedTime`), or undefined. */
  pop(): T | undefined {
    return this.popUntil(Infinity);
  }

  /**
   * Removes and returns the next pending event if it is due at or before
   * `limit` (its time is then in `poppedTime`); undefined otherwise. One call
   * instead of peekTime + pop on the simulation's hot loop.
   */
  popUntil(limit: number): T | undefined {
    this.dropCancelledTop();
    if (this.heapLength === 0 || this.times[0]! > limit) return undefined;
    const seq = this.seqs[0]!;
    this.poppedTime = this.times[0]!;
    const slot = this.itemSlots[0]!;
    const item = this.itemStore[slot];
    this.releaseItemSlot(slot);
    this.finished[seq >>> 5]! |= 1 << (seq & 31);
    this.removeTop();
    return item;
  }

  private releaseItemSlot(slot: number): void {
    this.itemStore[slot] = undefined;
    this.freeItemSlots.push(slot);
  }

  private dropCancelledTop(): void {
    while (this.heapLength > 0 && this.cancelledInHeap > 0) {
      const seq = this.seqs[0]!;
      if ((this.finished[seq >>> 5]! & (1 << (seq & 31))) === 0) return;
      this.cancelledInHeap--;
      this.releaseItemSlot(this.itemSlots[0]!);
      this.removeTop();
    }
  }

  /**
   * Removes the root with Floyd's bottom-up method: the hole at the root
   * walks down to a leaf along the smaller children (one comparison per
   * level instead of two), then the last element sifts up from there, which
   * is usually only a level or two since it came from the bottom.
   */
  private removeTop(): void {
    const last = --this.heapLength;
    const time = this.times[last]!;
    const seq = this.seqs[last]!;
    const slot = this.itemSlots[last]!;
    if (last === 0) return;
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.itemSlots;
    let hole = 0;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= last) break;
      const right = child + 1;
      if (right < last) {
        const childTime = times[child]!;
        const rightTime = times[right]!;
        if (rightTime < childTime || (rightTime === childTime && seqs[right]! < seqs[child]!)) child = right;
      }
      times[hole] = times[child]!;
      seqs[hole] = seqs[child]!;
      slots[hole] = slots[child]!;
      hole = child;
    }
    this.siftUp(hole, time, seq, slot);
  }

  private siftUp(start: number, time: number, seq: number, slot: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.itemSlots;
    let hole = start;
    while (hole > 0) {
      const parent = (hole - 1) >> 1;
      const parentTime = times[parent]!;
      if (parentTime < time || (parentTime === time && seqs[parent]! < seq)) break;
      times[hole] = parentTime;
      seqs[hole] = seqs[parent]!;
      slots[hole] = slots[parent]!;
      hole = parent;
    }
    times[hole] = time;
    seqs[hole] = seq;
    slots[hole] = slot;
  }

  private siftDown(start: number, time: number, seq: number, slot: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.itemSlots;
    const length = this.heapLength;
    let hole = start;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= length) break;
      let childTime = times[child]!;
      let childSeq = seqs[child]!;
      const right = child + 1;
      if (right < length) {
        const rightTime = times[right]!;
        const rightSeq = seqs[right]!;
        if (rightTime < childTime || (rightTime === childTime && rightSeq < childSeq)) {
          child = right;
          childTime = rightTime;
          childSeq = rightSeq;
        }
      }
      if (time < childTime || (time === childTime && seq < childSeq)) break;
      times[hole] = childTime;
      seqs[hole] = childSeq;
      slots[hole] = slots[child]!;
      hole = child;
    }
    times[hole] = time;
    seqs[hole] = seq;
    slots[hole] = slot;
  }

  /** Rebuilds the heap without its cancelled entries (Floyd's bottom-up heapify, O(n)). */
  private compact(): void {
    let kept = 0;
    for (let i = 0; i < this.heapLength; i++) {
      const seq = this.seqs[i]!;
      if ((this.finished[seq >>> 5]! & (1 << (seq & 31))) !== 0) {
        this.releaseItemSlot(this.itemSlots[i]!);
        continue;
      }
      this.times[kept] = this.times[i]!;
      this.seqs[kept] = seq;
      this.itemSlots[kept] = this.itemSlots[i]!;
      kept++;
    }
    this.heapLength = kept;
    this.cancelledInHeap = 0;
    for (let i = (kept >> 1) - 1; i >= 0; i--) {
      this.siftDown(i, this.times[i]!, this.seqs[i]!, this.itemSlots[i]!);
    }
  }

  private growHeap(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    times.set(this.times);
    const seqs = new Uint32Array(capacity);
    seqs.set(this.seqs);
    const itemSlots = new Int32Array(capacity);
    itemSlots.set(this.itemSlots);
    this.times = times;
    this.seqs = seqs;
    this.itemSlots = itemSlots;
  }

  private growFinished(): void {
    const finished = new Uint32Array(this.finished.length * 2);
    finished.set(this.finished);
    this.finished = finished;
  }
}
