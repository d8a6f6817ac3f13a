import { ShardedMap } from "../core/sharded-map.ts";

/**
 * The client order ids of an account's ended orders: for each, the index of
 * the latest order that ended with it, for the `capacity` distinct ids that
 * ended last (an id that ends again becomes the latest).
 *
 * Why not a Map alone, evicting its first key: V8's ordered hash table leaves
 * a hole for each deleted entry until its next rehash, and `keys().next()`
 * walks over every hole at the front to find the first live key. At the
 * bound every end deletes the front key, so the holes pile up there and each
 * eviction walked thousands of them: ~13 us per end at 10,000 ids (measured
 * on the development machine), paid on every order end of a long-lived
 * account. Here the order of ending is a queue of (id, order index) beside
 * the Map; an entry whose id has ended again since is stale (the Map names a
 * later order) and is skipped when it reaches the front. ~0.3-0.5 us per end.
 */
export class EndedClientIds {
  /** clientOrderId -> index of the latest order that ended with it. */
  private readonly latest = new ShardedMap<number>();
  /** The ends in order, oldest first from `head`; stale entries included. */
  private queueIds: string[] = [];
  private queueIndexes: number[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.latest.size;
  }

  /** The index of the latest order that ended with `clientOrderId`, or undefined when none is remembered. */
  get(clientOrderId: string): number | undefined {
    return this.latest.get(clientOrderId);
  }

  /** Records that `clientOrderId` ended with the order at `orderIndex`, forgetting the id that ended longest ago beyond the capacity. */
  remember(clientOrderId: string, orderIndex: number): void {
    this.latest.set(clientOrderId, orderIndex);
    this.queueIds.push(clientOrderId);
    this.queueIndexes.push(orderIndex);
    if (this.latest.size > this.capacity) this.forgetOldest();
    // Bounds the arrays (the consumed front, and the stale entries that ids
    // ending again and again leave behind) to twice the ids remembered plus
    // the capacity; a compaction every `capacity` ends or more keeps each end
    // O(1) amortized.
    if (this.queueIds.length > 2 * this.latest.size + this.capacity) this.compact();
  }

  private forgetOldest(): void {
    for (;;) {
      const id = this.queueIds[this.head]!;
      const orderIndex = this.queueIndexes[this.head]!;
      this.head += 1;
      if (this.latest.get(id) === orderIndex) {
        this.latest.delete(id);
        return;
      }
    }
  }

  /** Drops the consumed front and every stale entry: one live entry per id remembered stays, in order. */
  private compact(): void {
    const ids: string[] = [];
    const indexes: number[] = [];
    for (let i = this.head; i < this.queueIds.length; i++) {
      const id = this.queueIds[i]!;
      const orderIndex = this.queueIndexes[i]!;
      if (this.latest.get(id) !== orderIndex) continue;
      ids.push(id);
      indexes.push(orderIndex);
    }
    this.queueIds = ids;
    this.queueIndexes = indexes;
    this.head = 0;
  }
}
