/**
 * Fan-out of channel_data frames, and the routing of the Exchange's outputs
 * to channels.
 *
 * Cost: a channel with no subscriber costs one or two Map lookups and
 * nothing is built. Otherwise the payload is serialized once per channel
 * (not per subscriber), wrapped into one frame Buffer per spelling of the
 * channel name (one, unless clients spelled a wallet address differently),
 * and the same Buffer is handed to every subscriber's socket.
 *
 * Two kinds of feed (spec 6.2):
 * - event and stateful feeds (orderChanges, depth, executions, busts,
 *   transfers, accounts) go out at once, in the Exchange's order, lossless;
 * - latest-value feeds (summaries, assetOraclePrices, positions,
 *   accountBalances) are coalesced: within one turn of the event loop (one
 *   input, or one clock advance that fires many timers) only the newest value
 *   of each channel is sent, at the end of the turn. A manual clock moved by
 *   an hour sends one summary, not 7,200.
 *
 * `timestamp` is the Exchange's (virtual) time in ms when the value was
 * produced: deterministic under a manual clock, and comparable with the
 * payloads' own times.
 */
import type { ExchangeOutput } from "../exchange/outputs.ts";
import { walletKey } from "../risk/accounts.ts";
import type { ChannelKind } from "../spec/channels.ts";
import type { Channel, ChannelRegistry } from "./stream-channels.ts";

export type Deliver<S> = (subscriber: S, frame: Buffer) => void;

export class StreamFanout<S> {
  private readonly latest = new Map<Channel<S>, { data: unknown; timestampMs: number }>();
  private flushScheduled = false;

  constructor(
    private readonly registry: ChannelRegistry<S>,
    private readonly deliver: Deliver<S>,
    private readonly nowMs: () => number,
  ) {}

  /** Whether any channel of `kind` has a subscriber (check before computing keys). */
  listening(kind: ChannelKind): boolean {
    return this.registry.hasAny(kind);
  }

  /** Sends `data` as the channel's payload now. */
  publish(kind: ChannelKind, key: string, data: unknown): void {
    const channel = this.registry.find(kind, key);
    if (channel === undefined) return;
    this.send(channel, JSON.stringify(data), this.nowMs());
  }

  /** Sends `[item]` as the channel's payload now (array channels, one event). */
  publishItem(kind: ChannelKind, key: string, item: unknown): void {
    const channel = this.registry.find(kind, key);
    if (channel === undefined) return;
    this.send(channel, `[${JSON.stringify(item)}]`, this.nowMs());
  }

  /** Keeps `data` as the channel's latest value; sent at the end of this turn (coalesced). */
  publishLatest(kind: ChannelKind, key: string, data: unknown): void {
    const channel = this.registry.find(kind, key);
    if (channel === undefined) return;
    this.latest.set(channel, { data, timestampMs: this.nowMs() });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Sends the coalesced latest values (runs by itself at the end of the turn). */
  flush(): void {
    this.flushScheduled = false;
    if (this.latest.size === 0) return;
    const batch = [...this.latest];
    this.latest.clear();
    for (const [channel, { data, timestampMs }] of batch) {
      try {
        if (channel.subscribers.size > 0) this.send(channel, JSON.stringify(data), timestampMs);
      } catch (error) {
        debug(error);
      }
    }
  }

  private send(channel: Channel<S>, dataJson: string, timestampMs: number): void {
    const head = `{"type":"channel_data","timestamp":${timestampMs},"channel":`;
    const tail = `,"data":${dataJson}}`;
    let firstName: string | undefined;
    let firstFrame: Buffer | undefined;
    let others: Map<string, Buffer> | undefined;
    // A subscriber closed as a slow consumer leaves the map during this loop: Map iteration allows it.
    for (const [subscriber, name] of channel.subscribers) {
      let frame: Buffer;
      if (firstFrame === undefined) {
        firstName = name;
        firstFrame = frame = Buffer.from(head + JSON.stringify(name) + tail);
      } else if (name === firstName) {
        frame = firstFrame;
      } else {
        others ??= new Map();
        frame = others.get(name) ?? Buffer.from(head + JSON.stringify(name) + tail);
        others.set(name, frame);
      }
      this.deliver(subscriber, frame);
    }
  }
}

/**
 * The routing table: each output to the channels it belongs to.
 *
 * | output                     | channels                                                        |
 * |----------------------------|-----------------------------------------------------------------|
 * | order (onOrderChanges)     | /v2/wallet/{wallet}/orderChanges, [row]                         |
 * | order (IOC taker)          | none (spec 6.4)                                                 |
 * | perpExecution              | /v2/market/{symbol}/perpExecutions and each involved wallet's   |
 * |                            | /v2/wallet/{w}/perpExecutions, [record]                          |
 * | spotExecution              | .../spotExecutions likewise                                     |
 * | bust                       | /v2/market/{symbol}/executionBusts and wallets' executionBusts  |
 * | depth                      | /v2/market/{symbol}/depth, the UPDATE                           |
 * | positions                  | /v2/wallet/{wallet}/positions (latest value)                    |
 * | balances                   | /v2/wallet/{wallet}/accountBalances (latest value)              |
 * | transfer                   | /v2/wallet/{wallet}/transfers, [entry]                          |
 * | account                    | /v2/wallet/{wallet}/accounts, [notification]                    |
 * | perpSummaries              | /v2/perpMarkets/summary (array) and each                        |
 * |                            | /v2/perpMarket/{symbol}/summary (object), latest value          |
 * | spotSummaries              | /v2/spotMarkets/summary and /v2/spotMarket/{symbol}/summary     |
 * | oraclePrices               | /v2/assetOraclePrices (latest value)                            |
 * | block                      | none                                                            |
 *
 * Executions and busts are emitted by the Exchange when their block settles
 * or fails them, so the execution channels publish after settlement.
 */
export function routeOutput<S>(output: ExchangeOutput, fanout: StreamFanout<S>): void {
  switch (output.kind) {
    case "order":
      if (output.onOrderChanges) walletItem(fanout, "walletOrderChanges", output.wallet, output.row);
      return;
    case "perpExecution":
      fanout.publishItem("marketPerpExecutions", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletPerpExecutions", wallet, output.record);
      return;
    case "spotExecution":
      fanout.publishItem("marketSpotExecutions", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletSpotExecutions", wallet, output.record);
      return;
    case "bust":
      fanout.publishItem("marketExecutionBusts", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletExecutionBusts", wallet, output.record);
      return;
    case "depth":
      fanout.publish("marketDepth", output.symbol, output.depth);
      return;
    case "positions":
      if (fanout.listening("walletPositions")) fanout.publishLatest("walletPositions", walletKey(output.wallet), output.positions);
      return;
    case "balances":
      if (fanout.listening("walletAccountBalances")) fanout.publishLatest("walletAccountBalances", walletKey(output.wallet), output.balances);
      return;
    case "transfer":
      walletItem(fanout, "walletTransfers", output.wallet, output.entry);
      return;
    case "account":
      walletItem(fanout, "walletAccounts", output.wallet, output.notification);
      return;
    case "perpSummaries":
      fanout.publishLatest("perpMarketsSummary", "", output.summaries);
      if (fanout.listening("perpMarketSummary")) for (const summary of output.summaries) fanout.publishLatest("perpMarketSummary", summary.symbol, summary);
      return;
    case "spotSummaries":
      fanout.publishLatest("spotMarketsSummary", "", output.summaries);
      if (fanout.listening("spotMarketSummary")) for (const summary of output.summaries) fanout.publishLatest("spotMarketSummary", summary.symbol, summary);
      return;
    case "oraclePrices":
      fanout.publishLatest("assetOraclePrices", "", output.prices);
      return;
    case "block":
      return;
  }
}

/** A one-item event on a wallet channel; the wallet is keyed lowercase (only when someone listens to the kind). */
function walletItem<S>(fanout: StreamFanout<S>, kind: ChannelKind, wallet: string, item: unknown): void {
  if (fanout.listening(kind)) fanout.publishItem(kind, walletKey(wallet), item);
}

export function debug(error: unknown): void {
  if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
}
