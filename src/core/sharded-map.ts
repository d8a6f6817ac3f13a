/**
 * A Map from string keys, split over SHARD_COUNT (32) small Maps by the key's
 * last three characters: for maps that hold thousands of ids under
 * constant churn (orders that come and go) on a latency path.
 *
 * Why not one Map: V8's Map is an ordered hash table that never reuses a
 * deleted entry's slot. Under churn the holes fill the table, and the
 * insert that finds it full rebuilds it whole: O(live entries) on whichever
 * request happens to insert. A table over 128 KB is also a large object,
 * placed in freshly mapped pages (each first touch a page fault on these
 * VMs) and freed only by a mark-compact. Measured 2026-11-27 in the live
 * benchmark's paced phase (perf at 5 kHz on the server's main thread): the
 * 10,000 ended client ids an account remembers stalled it 2.4-5.2 ms per
 * rebuild, the maps of live orders by id 1.2-1.8 ms. Split 32 ways, a
 * rebuild moves ~1/32 of the entries and stays in regular pages (a table
 * stays under 128 KB up to ~60,000 entries in all): no rebuild stall over
 * 0.7 ms was left in the same measurement. Split 128 ways, the shards'
 * rebuilds were so many that their fixed cost (a runtime call each) took
 * ~2.5x the plain Map's rebuild time in total; 32 ways ~2x, about 0.2-0.4
 * us per request of that benchmark. test/bench/maps.ts prints the figures
 * beside a plain Map's.
 *
 * Shards: ids here are decimal strings (order ids, fill ids, client order
 * ids), whose last three digits spread a run of consecutive ids evenly
 * (1,000 values over 32 shards); any other key works too, only less
 * evenly. A shard's Map is made when its first key arrives, so a small
 * map costs one array of 32 slots.
 *
 * Not a drop-in Map: iteration visits shard by shard (each in insertion
 * order), not in the order of insertion overall, so use it where the order
 * of visits does not matter, or sort what it yields; a key added during an
 * iteration is missed if its shard was already visited; it is not an
 * instance of Map, and JSON.stringify, canonicalJson or structuredClone
 * would see its shards, not its entries. Memory: an array of 32 slots plus
 * a Map per shard in use, ~2.5x a Map's at a few dozen keys; the gain is
 * for maps of thousands.
 */

const SHARD_BITS = 5;
export const SHARD_COUNT = 1 << SHARD_BITS;
const SHARD_MASK = SHARD_COUNT - 1;

/** The shard of `key`: its last three character codes as the digits of a decimal number, mod SHARD_COUNT. */
export function shardOf(key: string): number {
  const n = key.length;
  let h = n > 0 ? key.charCodeAt(n - 1) : 0;
  if (n > 1) h += 10 * key.charCodeAt(n - 2);
  if (n > 2) h += 100 * key.charCodeAt(n - 3);
  return h & SHARD_MASK;
}

export class ShardedMap<V> {
  private readonly shards: (Map<string, V> | undefined)[] = new Array<Map<string, V> | undefined>(SHARD_COUNT).fill(undefined);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.shards[shardOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.shards[shardOf(key)]?.has(key) ?? false;
  }

  set(key: string, value: V): this {
    const index = shardOf(key);
    let shard = this.shards[index];
    if (shard === undefined) {
      shard = new Map<string, V>();
      this.shards[index] = shard;
    }
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  delete(key: string): boolean {
    const shard = this.shards[shardOf(key)];
    if (shard === undefined || !shard.delete(key)) return false;
    this.count -= 1;
    return true;
  }

  /** Every key, shard by shard (see the note above on order). */
  *keys(): IterableIterator<string> {
    for (const shard of this.shards) if (shard !== undefined) yield* shard.keys();
  }

  /** Every value, shard by shard (see the note above on order). */
  *values(): IterableIterator<V> {
    for (const shard of this.shards) if (shard !== undefined) yield* shard.values();
  }
}
