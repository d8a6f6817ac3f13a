/**
 * One registered market: its spec and units, its book, its armed stops, its
 * trading state and the latest mark price the risk layer fed in.
 */
import { Book } from "./book.ts";
import { TriggerBook } from "./triggers.ts";
import { MarketUnits } from "./units.ts";
import type { MarketKind, MarketSpec } from "./types.ts";
import type { DepthStream } from "./depth.ts";
import type { Order } from "./order.ts";
import type { EngineIds } from "./order-table.ts";

export class Market {
  readonly marketId: number;
  readonly symbol: string;
  readonly kind: MarketKind;
  readonly units: MarketUnits;
  readonly book = new Book();
  readonly triggers = new TriggerBook();
  /** Live stops (armed, or fired and resting) per account: at most a few each. */
  readonly stopsByAccount = new Map<number, Order[]>();
  halted = false;
  reopening = false;
  settlementPaused = false;
  /** The latest mark price in ticks, rounded down, or null before the first one. */
  markTicks: number | null = null;
  /** The latest mark price in ticks, rounded up: markTicks, or markTicks + 1 when the mark lies between two ticks. */
  markCeilTicks = 0;
  depthStream: DepthStream | null = null;
  /** Set while a command that touched the book has not yet reported depth changes. */
  depthNoticePending = false;
  /** The engine's id counters (set by the engine): the text of order and fill ids. */
  ids: EngineIds | null = null;

  /** `index`: the market's place in the registry (open-order sums are indexed by it). */
  constructor(spec: MarketSpec, readonly index: number) {
    this.marketId = spec.marketId;
    this.symbol = spec.symbol;
    this.kind = spec.kind;
    this.units = new MarketUnits(spec);
  }

  /** Reopening after a halt, or settlement paused: crossing orders are refused. */
  get crossingUnavailable(): boolean {
    return this.reopening || this.settlementPaused;
  }

  /** The account's live stops in this market (a copy), oldest first. */
  stopsOf(accountId: number): Order[] {
    return [...(this.stopsByAccount.get(accountId) ?? [])];
  }

  addStop(order: Order): void {
    const stops = this.stopsByAccount.get(order.accountId);
    if (stops === undefined) this.stopsByAccount.set(order.accountId, [order]);
    else stops.push(order);
  }

  removeStop(order: Order): void {
    const stops = this.stopsByAccount.get(order.accountId)!;
    stops.splice(stops.indexOf(order), 1);
    if (stops.length === 0) this.stopsByAccount.delete(order.accountId);
  }
}
