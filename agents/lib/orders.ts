/**
 * The agent's live orders, from `/v2/wallet/{address}/orderChanges`
 * (spec 6.1, 6.2, 2.12): the subscription's snapshot (open orders and a
 * cursor) and then every order update with a sequenceNumber above the
 * cursor, in order. An order leaves the table when it is FILLED or
 * CANCELLED; listeners see every update first (to count fills, cancel
 * reasons, fired stops).
 *
 * IOC takers are not published on orderChanges (spec 6.4): their outcome is
 * in the create response only.
 */
import type { AgentContext } from "../../src/sim/agent.ts";
import type { Order } from "../../src/spec/order.ts";
import { Listeners, type Listener } from "./listeners.ts";

export interface LiveOrder {
  readonly orderId: string;
  readonly symbol: string;
  readonly isBuy: boolean;
  readonly orderType: string;
  readonly limitPx: string;
  readonly qty: string | undefined;
  /** Filled over the order's life, as a number (decisions only). */
  readonly cumQty: number;
  readonly triggered: boolean;
  /**
   * The stream position this state is as of: the row's sequenceNumber (the
   * snapshot's cursor for a snapshot row). A request sent when the tracker's
   * `cursor` was c is reflected only by rows above c, so a caller that
   * remembers `cursor` at sending can tell a row that predates its request.
   */
  readonly sequenceNumber: number;
}

function liveOrder(row: Order, sequenceNumber: number): LiveOrder {
  return {
    orderId: row.orderId,
    symbol: row.symbol,
    isBuy: row.side === "B",
    orderType: row.orderType,
    limitPx: row.limitPx,
    qty: row.qty,
    cumQty: row.cumQty === undefined ? 0 : Number(row.cumQty),
    triggered: row.triggered === true,
    sequenceNumber,
  };
}

export class OrderTracker {
  private readonly open = new Map<string, LiveOrder>();
  private readonly listeners = new Listeners<Order>();
  private lastSequence = 0;

  static async start(ctx: Pick<AgentContext<unknown>, "stream" | "wallet">): Promise<OrderTracker> {
    const tracker = new OrderTracker();
    const subscribed = await ctx.stream.subscribe(`/v2/wallet/${ctx.wallet}/orderChanges`, (message) => tracker.apply(message.data));
    const snapshot = subscribed.contents;
    if (snapshot !== undefined) tracker.restore(snapshot.data, snapshot.snapshotSequenceNumber);
    return tracker;
  }

  /** The order if it is still open (as far as the stream has told). */
  get(orderId: string): LiveOrder | undefined {
    return this.open.get(orderId);
  }

  isOpen(orderId: string): boolean {
    return this.open.has(orderId);
  }

  /** Open orders, oldest first. */
  all(): LiveOrder[] {
    return [...this.open.values()];
  }

  /** The highest sequenceNumber the stream has delivered (or the snapshot's cursor): every later change of an order is numbered above it. */
  get cursor(): number {
    return this.lastSequence;
  }

  get size(): number {
    return this.open.size;
  }

  /** Called with every update row, before the table changes. */
  onUpdate(listener: Listener<Order>): void {
    this.listeners.add(listener);
  }

  private restore(rows: readonly Order[], cursor: number): void {
    // Rows that arrived before the snapshot was handed over are newer than it: keep them.
    for (const row of rows) if (!this.open.has(row.orderId) && this.lastSequence <= cursor) this.open.set(row.orderId, liveOrder(row, cursor));
    this.lastSequence = Math.max(this.lastSequence, cursor);
  }

  apply(rows: readonly Order[]): Promise<void> | undefined {
    let pending: Promise<void>[] | undefined;
    for (const row of rows) {
      if (row.sequenceNumber !== undefined) {
        if (row.sequenceNumber <= this.lastSequence) continue;
        this.lastSequence = row.sequenceNumber;
      }
      const result = this.listeners.emit(row);
      if (result !== undefined) (pending ??= []).push(result);
      // A row without a sequenceNumber is as new as anything seen.
      if (row.status === "OPEN") this.open.set(row.orderId, liveOrder(row, this.lastSequence));
      else this.open.delete(row.orderId);
    }
    return pending === undefined ? undefined : Promise.all(pending).then(() => undefined);
  }
}
