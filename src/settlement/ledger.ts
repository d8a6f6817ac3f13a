/**
 * The account ledger: Transfer entries (spec 2.20), one per account side of
 * each on-chain leg, kept per account in the order they happened, listed
 * newest first with a type filter, inclusive time filters and an opaque
 * cursor. Zero-amount legs are never recorded.
 *
 * The ledger stores and lists; it computes nothing. The amounts and each
 * entry's netDepositsAfter come from the risk layer, which owns balances.
 *
 * Cursor (core/cursor.ts, kind "t"): the entry id of the last row returned;
 * the next page starts strictly after (older than) that entry. Entry ids
 * come from one counter, so they are unique and increase with time across
 * all accounts.
 */
import { CursorError, decodeCursor, encodeCursor } from "../core/cursor.ts";
import { microsToMillis, type Micros } from "../core/time.ts";

export { CursorError };

export interface LedgerLeg {
  /** ms: when the leg has its own time (the risk layer's entries do), it is the entry's timestamp. */
  timestamp?: number;
  accountId: number;
  asset: string;
  /** Transfer type (see the spec module's TransferType). */
  type: string;
  /** Canonical signed decimal; positive credits the account. */
  amount: string;
  /** Canonical signed decimal: net deposits of this account and asset after the leg. */
  netDepositsAfter: string;
  counterpartyAccountId?: number;
  fillId?: string;
}

export interface TransferEntry extends LedgerLeg {
  id: string;
  /** ms */
  timestamp: number;
}

/**
 * The members a leg brings to its entry, in the entry's order (after id and
 * timestamp). Ledger.record copies exactly these; test/settlement/ledger.test.ts
 * fails to compile when the risk layer's LedgerEntry has a member not listed.
 */
export const LEDGER_LEG_KEYS = ["accountId", "asset", "type", "amount", "netDepositsAfter", "counterpartyAccountId", "fillId"] as const satisfies readonly (keyof LedgerLeg)[];

export interface TransferQuery {
  type?: string;
  /** ms, inclusive */
  startTime?: number;
  /** ms, inclusive */
  endTime?: number;
  limit?: number;
  cursor?: string;
}

export interface TransferPage {
  data: TransferEntry[];
  meta: { nextCursor?: string; limit: number; startTime?: number; endTime?: number };
}

/** The kind of the transfers listing's cursors (core/cursor.ts). */
const TRANSFER_CURSOR = "t";

export const TRANSFER_PAGE_LIMIT_DEFAULT = 100;
export const TRANSFER_PAGE_LIMIT_MAX = 1000;

export class Ledger {
  /**
   * The last entry id given (ids start at 1). A safe integer, its text made
   * by String(): the ids an IdGenerator would give (the same decimal texts),
   * without a bigint's text and increment per entry; 2^53 entries are beyond
   * any run.
   */
  private lastId = 0;
  private readonly byAccount = new Map<number, TransferEntry[]>();
  private readonly subscribers: ((entry: TransferEntry) => void)[] = [];

  /**
   * Records a leg at `at`; returns the entry, or undefined for a zero amount (never recorded).
   *
   * The entry is `{ id, timestamp, ...leg }` (LEDGER_LEG_KEYS in order, the
   * leg's own timestamp taking the place of `at` when it has one), written
   * member by member: V8 (Node 20) fills a literal with a leading spread on a
   * slow path (~2,000 instructions an entry against ~400).
   */
  record(leg: LedgerLeg, at: Micros): TransferEntry | undefined {
    if (isZeroText(leg.amount)) return undefined;
    const entry: TransferEntry = {
      id: String(++this.lastId),
      timestamp: leg.timestamp ?? microsToMillis(at),
      accountId: leg.accountId,
      asset: leg.asset,
      type: leg.type,
      amount: leg.amount,
      netDepositsAfter: leg.netDepositsAfter,
    };
    if (leg.counterpartyAccountId !== undefined) entry.counterpartyAccountId = leg.counterpartyAccountId;
    if (leg.fillId !== undefined) entry.fillId = leg.fillId;
    let entries = this.byAccount.get(leg.accountId);
    if (entries === undefined) {
      entries = [];
      this.byAccount.set(leg.accountId, entries);
    }
    entries.push(entry);
    for (const subscriber of this.subscribers) subscriber(entry);
    return entry;
  }

  /** Called for every recorded entry, in order (the transfers channel). */
  subscribe(listener: (entry: TransferEntry) => void): void {
    this.subscribers.push(listener);
  }

  /** Entries of several accounts (a wallet's), newest first, filtered and paged. */
  list(accountIds: readonly number[], query: TransferQuery = {}): TransferPage {
    const limit = query.limit ?? TRANSFER_PAGE_LIMIT_DEFAULT;
    const before = query.cursor === undefined ? undefined : decodeCursor(TRANSFER_CURSOR, query.cursor);
    const matching: TransferEntry[] = [];
    for (const accountId of accountIds) {
      const entries = this.byAccount.get(accountId) ?? [];
      let taken = 0;
      // Each account contributes at most limit + 1 rows: enough to fill the page and know whether more follow.
      for (let i = entries.length - 1; i >= 0 && taken <= limit; i--) {
        const entry = entries[i]!;
        if (before !== undefined && BigInt(entry.id) >= before) continue;
        if (query.endTime !== undefined && entry.timestamp > query.endTime) continue;
        if (query.startTime !== undefined && entry.timestamp < query.startTime) break;
        if (query.type !== undefined && entry.type !== query.type) continue;
        matching.push(entry);
        taken++;
      }
    }
    matching.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const data = matching.slice(0, limit);
    const meta: TransferPage["meta"] = { limit };
    if (query.startTime !== undefined) meta.startTime = query.startTime;
    if (query.endTime !== undefined) meta.endTime = query.endTime;
    if (matching.length > limit) meta.nextCursor = encodeCursor(TRANSFER_CURSOR, data[data.length - 1]!.id);
    return { data, meta };
  }

  /** The newest entries of several accounts (the transfers channel's snapshot). */
  latest(accountIds: readonly number[], count: number): TransferEntry[] {
    return this.list(accountIds, { limit: count }).data;
  }
}

/** True for a zero decimal text ("0", "-0", "0.00"); a quick look at the first digits settles most amounts. */
function isZeroText(amount: string): boolean {
  const first = amount.charCodeAt(amount.charCodeAt(0) === 45 ? 1 : 0);
  if (first !== 48) return false; // a leading digit other than 0: not zero (and not a "0..." form)
  return /^-?0(\.0*)?$/.test(amount);
}

