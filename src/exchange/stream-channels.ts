/**
 * Channels of the streaming surface (spec 6.1): resolving a subscribed name
 * to a channel, and the index of who is subscribed to what.
 *
 * A channel is identified by its kind and a key:
 * - "" for the plain channels (/v2/perpMarkets/summary, ...);
 * - the market symbol, exactly as configured, for market channels;
 * - the lowercased address for wallet channels.
 *
 * Wallet addresses match case-insensitively (spec 2.1 allows any letter
 * case; the Exchange keys wallets lowercase and emits them so): a checksummed
 * and a lowercase spelling of one address name the same channel. Each
 * subscriber keeps the spelling it subscribed with, and its frames carry that
 * spelling as `channel`, so a client can match frames on the exact string it
 * sent.
 *
 * A market channel needs a configured market of the right kind, otherwise
 * the name is "Invalid channel name", like a malformed one: the summary and
 * execution channels of perp markets take a perp symbol, those of spot
 * markets a spot symbol; depth and executionBusts take either. An unknown
 * but well-formed wallet is valid (it reads as empty, like REST, and may get
 * an account later).
 */
import type { MarketRef } from "./gateway/validate/types.ts";
import { walletKey } from "../risk/accounts.ts";
import { parseChannel } from "../spec/channel-parse.ts";
import { CHANNEL_KINDS, type ChannelKind, type SymbolChannelKind } from "../spec/channels.ts";

/** A channel name resolved to its kind and index key. */
export interface ResolvedChannel {
  readonly kind: ChannelKind;
  readonly key: string;
}

/** The market kinds each market channel accepts. */
const MARKET_KINDS: Readonly<Record<SymbolChannelKind, readonly MarketRef["kind"][]>> = {
  perpMarketSummary: ["perp"],
  spotMarketSummary: ["spot"],
  marketPerpExecutions: ["perp"],
  marketSpotExecutions: ["spot"],
  marketExecutionBusts: ["perp", "spot"],
  marketDepth: ["perp", "spot"],
};

/** Resolves a channel name, or undefined when it is "Invalid channel name" (see the module comment). */
export function resolveChannel(name: string, markets: ReadonlyMap<string, MarketRef>): ResolvedChannel | undefined {
  const parsed = parseChannel(name);
  if (parsed === undefined) return undefined;
  if ("address" in parsed) return { kind: parsed.kind, key: walletKey(parsed.address) };
  if ("symbol" in parsed) {
    const market = markets.get(parsed.symbol);
    if (market === undefined || !MARKET_KINDS[parsed.kind].includes(market.kind)) return undefined;
    return { kind: parsed.kind, key: parsed.symbol };
  }
  return { kind: parsed.kind, key: "" };
}

/** One channel with at least one subscriber; each subscriber maps to the name it subscribed with. */
export class Channel<S> {
  readonly subscribers = new Map<S, string>();

  constructor(
    readonly kind: ChannelKind,
    readonly key: string,
  ) {}
}

/**
 * Subscriptions by kind, then key. Only channels with subscribers exist, so
 * a publisher finds out with one or two Map lookups, and nothing else, that
 * nobody listens.
 */
export class ChannelRegistry<S> {
  private readonly byKind = new Map<ChannelKind, Map<string, Channel<S>>>();
  private subscriptions = 0;

  constructor() {
    for (const kind of CHANNEL_KINDS) this.byKind.set(kind, new Map());
  }

  /** Whether any channel of `kind` has a subscriber. */
  hasAny(kind: ChannelKind): boolean {
    return this.kindMap(kind).size > 0;
  }

  /** The channel of (kind, key), if it has subscribers. */
  find(kind: ChannelKind, key: string): Channel<S> | undefined {
    return this.kindMap(kind).get(key);
  }

  /** Subscribes (or re-subscribes, keeping one entry) `subscriber` under the spelling `name`. */
  add(resolved: ResolvedChannel, subscriber: S, name: string): Channel<S> {
    const channels = this.kindMap(resolved.kind);
    let channel = channels.get(resolved.key);
    if (channel === undefined) {
      channel = new Channel<S>(resolved.kind, resolved.key);
      channels.set(resolved.key, channel);
    }
    if (!channel.subscribers.has(subscriber)) this.subscriptions++;
    channel.subscribers.set(subscriber, name);
    return channel;
  }

  /** Removes `subscriber` from `channel`; drops the channel when it was the last. */
  remove(channel: Channel<S>, subscriber: S): void {
    if (!channel.subscribers.delete(subscriber)) return;
    this.subscriptions--;
    if (channel.subscribers.size === 0) this.kindMap(channel.kind).delete(channel.key);
  }

  /** Subscriptions across all channels and connections. */
  get size(): number {
    return this.subscriptions;
  }

  private kindMap(kind: ChannelKind): Map<string, Channel<S>> {
    const channels = this.byKind.get(kind);
    if (channels === undefined) throw new Error(`channel kind "${kind}" is not in the catalogue`);
    return channels;
  }
}
