/**
 * One market's top of book, from `/v2/market/{symbol}/depth` (spec 6.2):
 * a SNAPSHOT on subscribing, then UPDATEs holding changed levels with
 * absolute quantities (qty "0" removes the level). An UPDATE may also be an
 * in-band reset; a SNAPSHOT replaces everything.
 *
 * The best prices are found lazily (only when asked after a change), so a
 * busy book costs one map write per changed level.
 */
import type { AgentContext } from "../../src/sim/agent.ts";
import type { Depth } from "../../src/spec/depth.ts";
import type { DeepReadonly } from "../../src/spec/stream-envelopes.ts";
import { Listeners, type Listener } from "./listeners.ts";

export interface Touch {
  /** Best bid price and its quantity, or undefined on an empty side. */
  readonly bid: number | undefined;
  readonly bidQty: number;
  readonly ask: number | undefined;
  readonly askQty: number;
}

function best(levels: Map<string, number>, highest: boolean): { px: number | undefined; qty: number } {
  let px: number | undefined;
  let qty = 0;
  for (const [text, size] of levels) {
    const value = Number(text);
    if (px === undefined || (highest ? value > px : value < px)) {
      px = value;
      qty = size;
    }
  }
  return { px, qty };
}

export class BookTracker {
  private readonly bids = new Map<string, number>();
  private readonly asks = new Map<string, number>();
  private cached: Touch | undefined;
  private readonly listeners = new Listeners<BookTracker>();

  static async start(ctx: Pick<AgentContext<unknown>, "stream">, symbol: string): Promise<BookTracker> {
    const tracker = new BookTracker(symbol);
    const subscribed = await ctx.stream.subscribe(`/v2/market/${symbol}/depth`, (message) => tracker.apply(message.data));
    if (subscribed.contents !== undefined) tracker.apply(subscribed.contents);
    return tracker;
  }

  constructor(readonly symbol: string) {}

  /** Called after each applied message. */
  onChange(listener: Listener<BookTracker>): void {
    this.listeners.add(listener);
  }

  touch(): Touch {
    if (this.cached === undefined) {
      const bid = best(this.bids, true);
      const ask = best(this.asks, false);
      this.cached = { bid: bid.px, bidQty: bid.qty, ask: ask.px, askQty: ask.qty };
    }
    return this.cached;
  }

  /** The mid price, or undefined when a side is empty. */
  mid(): number | undefined {
    const { bid, ask } = this.touch();
    return bid === undefined || ask === undefined ? undefined : (bid + ask) / 2;
  }

  apply(depth: DeepReadonly<Depth>): Promise<void> | undefined {
    if (depth.type === "SNAPSHOT") {
      this.bids.clear();
      this.asks.clear();
    }
    for (const level of depth.bids) this.set(this.bids, level.px, level.qty);
    for (const level of depth.asks) this.set(this.asks, level.px, level.qty);
    this.cached = undefined;
    return this.listeners.emit(this);
  }

  private set(levels: Map<string, number>, px: string, qty: string): void {
    const size = Number(qty);
    if (size === 0) levels.delete(px);
    else levels.set(px, size);
  }
}
