/**
 * orderHistory: a bounded history of order rows per account, newest first.
 *
 * The engine does not keep it itself: it emits every OrderUpdate (the rows
 * of IOC takers included, marked onOrderChanges=false), and the exchange
 * feeds them here (`sink.orderUpdate = (u) => history.record(u)`), so a
 * benchmark or a simulation without readers pays nothing for it. Each
 * account keeps its latest `limitPerAccount` rows (spec 4.1: history is
 * bounded per account); older rows drop off.
 */
import { microsToMillis } from "../core/time.ts";
import type { OrderUpdate } from "./events.ts";

export const HISTORY_LIMIT_PER_ACCOUNT_DEFAULT = 1000;

/** A ring buffer of one account's rows. */
class AccountRows {
  private readonly rows: OrderUpdate[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  push(row: OrderUpdate): void {
    if (this.rows.length < this.capacity) {
      this.rows.push(row);
      return;
    }
    this.rows[this.start] = row;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Newest first. */
  newestFirst(): OrderUpdate[] {
    const out: OrderUpdate[] = [];
    const length = this.rows.length;
    for (let i = 1; i <= length; i++) out.push(this.rows[(this.start - i + length) % length]!);
    return out;
  }
}

export interface HistoryQuery {
  /** Inclusive bounds on lastUpdateAt, in ms. */
  readonly startTimeMs?: number;
  readonly endTimeMs?: number;
  /** Only rows older than this sequence number (a page cursor's row). */
  readonly beforeSequence?: number;
  readonly limit?: number;
}

export class OrderHistory {
  private readonly accounts = new Map<number, AccountRows>();

  constructor(readonly limitPerAccount: number = HISTORY_LIMIT_PER_ACCOUNT_DEFAULT) {
    if (!Number.isSafeInteger(limitPerAccount) || limitPerAccount < 1) throw new RangeError(`history limit ${limitPerAccount} must be a positive integer`);
  }

  record(update: OrderUpdate): void {
    let rows = this.accounts.get(update.accountId);
    if (rows === undefined) {
      rows = new AccountRows(this.limitPerAccount);
      this.accounts.set(update.accountId, rows);
    }
    rows.push(update);
  }

  /** The account's rows, newest first, filtered by lastUpdateAt (ms, inclusive) and below `beforeSequence`. */
  rows(accountId: number, query: HistoryQuery = {}): OrderUpdate[] {
    const all = this.accounts.get(accountId)?.newestFirst() ?? [];
    const start = query.startTimeMs ?? -Infinity;
    const end = query.endTimeMs ?? Infinity;
    const before = query.beforeSequence ?? Infinity;
    const selected = all.filter((row) => {
      const ms = microsToMillis(row.lastUpdateAtMicros);
      return ms >= start && ms <= end && row.sequenceNumber < before;
    });
    return query.limit === undefined ? selected : selected.slice(0, query.limit);
  }
}
