/**
 * Arrays used as FIFO queues, read from a `head` index (shift() is O(n)):
 * the consumed prefix is dropped once everything is consumed, or once it is
 * over 1,024 entries and over half the array, so each item costs O(1)
 * amortised and the array does not grow without bound.
 */

/** Compacts `items` read up to `head` (exclusive); returns the new head. */
export function compactConsumed<T>(items: T[], head: number): number {
  if (head === items.length) {
    items.length = 0;
    return 0;
  }
  if (head > 1024 && head * 2 > items.length) {
    items.splice(0, head);
    return 0;
  }
  return head;
}
