/**
 * The agent's perp positions, from `/v2/wallet/{address}/positions`
 * (spec 6.1, 2.11): a latest-value feed that carries the wallet's whole
 * position list after each settled execution. A market missing from the
 * list has no position. The channel has no snapshot, so the starting state
 * is read from REST (`ctx.reads.positions`) unless a message came first.
 *
 * Positions change on settlement (an execution), not on a match: between
 * an order's fill and its block, the position here is the settled one.
 */
import type { AgentContext } from "../../src/sim/agent.ts";
import type { Position } from "../../src/spec/account.ts";
import { Listeners, type Listener } from "./listeners.ts";

export interface PositionState {
  readonly symbol: string;
  /** Signed quantity: positive long, negative short, 0 flat. */
  readonly qty: number;
  readonly avgEntryPrice: number;
}

export interface PositionChange {
  readonly symbol: string;
  readonly before: number;
  readonly after: PositionState;
}

const FLAT = (symbol: string): PositionState => ({ symbol, qty: 0, avgEntryPrice: 0 });

export class PositionTracker {
  private readonly positions = new Map<string, PositionState>();
  private readonly listeners = new Listeners<PositionChange>();
  private received = false;

  static async start(ctx: Pick<AgentContext<unknown>, "stream" | "reads" | "wallet" | "accountId">): Promise<PositionTracker> {
    const tracker = new PositionTracker(ctx.accountId);
    await ctx.stream.subscribe(`/v2/wallet/${ctx.wallet}/positions`, (message) => tracker.apply(message.data));
    const initial = await ctx.reads.positions(ctx.wallet);
    if (!tracker.received) tracker.apply(initial);
    return tracker;
  }

  constructor(private readonly accountId: number) {}

  /** The signed position in `symbol` (0 when flat). */
  qty(symbol: string): number {
    return this.positions.get(symbol)?.qty ?? 0;
  }

  get(symbol: string): PositionState {
    return this.positions.get(symbol) ?? FLAT(symbol);
  }

  /** Called for each market whose quantity changed. */
  onChange(listener: Listener<PositionChange>): void {
    this.listeners.add(listener);
  }

  apply(rows: readonly Position[]): Promise<void> | undefined {
    this.received = true;
    const seen = new Set<string>();
    const changes: PositionChange[] = [];
    for (const row of rows) {
      if (row.accountId !== this.accountId) continue;
      const size = Number(row.qty);
      const state: PositionState = { symbol: row.symbol, qty: row.side === "A" ? -size : size, avgEntryPrice: Number(row.avgEntryPrice) };
      seen.add(row.symbol);
      const before = this.qty(row.symbol);
      this.positions.set(row.symbol, state);
      if (before !== state.qty) changes.push({ symbol: row.symbol, before, after: state });
    }
    for (const [symbol, state] of [...this.positions]) {
      if (seen.has(symbol) || state.qty === 0) continue;
      this.positions.set(symbol, FLAT(symbol));
      changes.push({ symbol, before: state.qty, after: FLAT(symbol) });
    }
    let pending: Promise<void>[] | undefined;
    for (const change of changes) {
      const result = this.listeners.emit(change);
      if (result !== undefined) (pending ??= []).push(result);
    }
    return pending === undefined ? undefined : Promise.all(pending).then(() => undefined);
  }
}
