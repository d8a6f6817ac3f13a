/**
 * Order ids, fill ids and sequence numbers.
 *
 * Ids are uint64 decimal strings (the wire never carries them as numbers:
 * a float cannot hold 2^64). They come from counters, so a run's ids depend
 * only on its inputs. Comparison is by length then text, never numeric.
 */
import { UINT64_MAX } from "./decimal.ts";

const UINT64_MAX_TEXT = UINT64_MAX.toString();
const UINT64_PATTERN = /^(0|[1-9]\d*)$/;

/** Hands out consecutive uint64 ids as decimal strings, from `first`. */
export class IdGenerator {
  private nextValue: bigint;

  constructor(first: bigint = 1n) {
    if (first < 0n || first > UINT64_MAX) throw new RangeError(`first id ${first} is outside uint64`);
    this.nextValue = first;
  }

  next(): string {
    if (this.nextValue > UINT64_MAX) throw new RangeError("uint64 id space exhausted");
    const id = this.nextValue.toString();
    this.nextValue += 1n;
    return id;
  }

  /** The id that `next()` will return, without taking it. */
  peek(): string {
    return this.nextValue.toString();
  }
}

/** A gap-free counter of integer sequence numbers (order events, executions, busts). */
export class SequenceCounter {
  private last: number;

  constructor(start = 0) {
    if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`sequence start ${start} must be a non-negative safe integer`);
    this.last = start;
  }

  next(): number {
    this.last += 1;
    return this.last;
  }

  get current(): number {
    return this.last;
  }
}

/** True when `text` is a canonical decimal uint64 (no sign, no leading zeros). */
export function isUint64(text: string): boolean {
  if (!UINT64_PATTERN.test(text)) return false;
  return text.length < UINT64_MAX_TEXT.length || (text.length === UINT64_MAX_TEXT.length && text <= UINT64_MAX_TEXT);
}

/** Orders canonical decimal id strings numerically without converting them. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The id `offset` places after `id` (for fill ranges: firstFillId + fillCount - 1). */
export function addToId(id: string, offset: number): string {
  return (BigInt(id) + BigInt(offset)).toString();
}
