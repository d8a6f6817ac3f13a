/**
 * Bounded, newest-first stores of the records the REST reads serve:
 * executions and busts by market and by account. Each list keeps the most
 * recent `retained` records; older ones are dropped (a real service pages
 * them from a database; a simulator keeps what a client can still ask for).
 */
export class RecentList<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(private readonly retained: number) {}

  push(item: T): void {
    this.items.push(item);
    // Compact rarely: drop the oldest half-window at once instead of shifting per push.
    if (this.items.length - this.start > this.retained) this.start++;
    if (this.start > this.retained) {
      this.items.splice(0, this.start);
      this.start = 0;
    }
  }

  /** Newest first, at most `limit`, optionally only those passing `keep`. */
  newest(limit: number, keep?: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (let i = this.items.length - 1; i >= this.start && out.length < limit; i--) {
      const item = this.items[i]!;
      if (keep === undefined || keep(item)) out.push(item);
    }
    return out;
  }

  get size(): number {
    return this.items.length - this.start;
  }
}

/** Records indexed by market symbol and by account id. */
export class RecordIndex<T> {
  private readonly bySymbol = new Map<string, RecentList<T>>();
  private readonly byAccount = new Map<number, RecentList<T>>();

  constructor(private readonly retained: number) {}

  add(symbol: string, accountIds: readonly number[], record: T): void {
    listIn(this.bySymbol, symbol, this.retained).push(record);
    for (let i = 0; i < accountIds.length; i++) {
      const accountId = accountIds[i]!;
      if (accountIds.indexOf(accountId) === i) listIn(this.byAccount, accountId, this.retained).push(record);
    }
  }

  ofMarket(symbol: string, limit: number): T[] {
    return this.bySymbol.get(symbol)?.newest(limit) ?? [];
  }

  /** Newest first across several accounts (a wallet's), each record once. */
  ofAccounts(accountIds: readonly number[], limit: number, order: (a: T, b: T) => number): T[] {
    const seen = new Set<T>();
    const merged: T[] = [];
    for (const accountId of accountIds) {
      for (const record of this.byAccount.get(accountId)?.newest(limit) ?? []) {
        if (!seen.has(record)) {
          seen.add(record);
          merged.push(record);
        }
      }
    }
    return merged.sort(order).slice(0, limit);
  }
}

function listIn<K, T>(map: Map<K, RecentList<T>>, key: K, retained: number): RecentList<T> {
  let list = map.get(key);
  if (list === undefined) {
    list = new RecentList<T>(retained);
    map.set(key, list);
  }
  return list;
}
