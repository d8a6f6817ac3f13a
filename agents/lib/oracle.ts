/**
 * The oracle prices of the assets, from the `/v2/assetOraclePrices` channel
 * (spec 6.1, 2.18): the index price each market follows (a perp's index
 * asset, a spot market's base asset).
 *
 * The channel has no snapshot and is a latest-value feed: the first prices
 * arrive with the next oracle update after subscribing. `ready(asset)`
 * waits for them. Prices are floats for decisions only; what an agent sends
 * goes through MarketGrid.
 */
import type { AgentContext } from "../../src/sim/agent.ts";
import type { AssetOraclePrice } from "../../src/spec/market.ts";
import { Listeners, joinPending, type Listener } from "./listeners.ts";

export const ORACLE_CHANNEL = "/v2/assetOraclePrices";

export interface OracleUpdate {
  readonly asset: string;
  readonly price: number;
  /** Publication time of the price, ms. */
  readonly updatedAtMs: number;
}

export class OracleTracker {
  private readonly prices = new Map<string, OracleUpdate>();
  private readonly waiters = new Map<string, ((price: number) => void)[]>();
  private readonly listeners = new Listeners<OracleUpdate>();

  /** Subscribes to the channel; resolves once subscribed (prices follow with the next update). */
  static async start(ctx: Pick<AgentContext<unknown>, "stream">): Promise<OracleTracker> {
    const tracker = new OracleTracker();
    await ctx.stream.subscribe(ORACLE_CHANNEL, (message) => tracker.apply(message.data));
    return tracker;
  }

  /** The latest price of `asset`, or undefined before the first. */
  price(asset: string): number | undefined {
    return this.prices.get(asset)?.price;
  }

  /** Called on each changed price (the channel repeats unchanged ones: they are skipped). */
  onUpdate(listener: Listener<OracleUpdate>): void {
    this.listeners.add(listener);
  }

  /** The price of `asset`, as soon as there is one. */
  ready(asset: string): Promise<number> {
    const known = this.price(asset);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const list = this.waiters.get(asset) ?? [];
      list.push(resolve);
      this.waiters.set(asset, list);
    });
  }

  /** Applies one channel message; returns a promise when agent work was started (see listeners.ts). */
  apply(rows: readonly AssetOraclePrice[]): Promise<void> | undefined {
    let pending: Promise<void> | undefined;
    for (const row of rows) {
      const previous = this.prices.get(row.asset);
      if (previous !== undefined && previous.updatedAtMs === row.updatedAt) continue;
      const update: OracleUpdate = { asset: row.asset, price: Number(row.oraclePrice), updatedAtMs: row.updatedAt };
      this.prices.set(row.asset, update);
      const waiting = this.waiters.get(row.asset);
      if (waiting !== undefined) {
        this.waiters.delete(row.asset);
        for (const resolve of waiting) resolve(update.price);
        // The waiters continue in microtasks: a returned promise makes the host run them now.
        pending = joinPending(pending, Promise.resolve());
      }
      pending = joinPending(pending, this.listeners.emit(update));
    }
    return pending;
  }
}
