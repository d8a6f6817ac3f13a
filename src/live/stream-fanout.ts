/**
 * Fan-out of channel_data frames to WebSocket subscribers. Which outputs go
 * to which channels is the routing table of src/exchange/stream-routes.ts.
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
import type { ChannelSink } from "../exchange/stream-routes.ts";
import type { ChannelKind } from "../spec/channels.ts";
import type { Channel, ChannelRegistry } from "../exchange/stream-channels.ts";

export type Deliver<S> = (subscriber: S, frame: Buffer) => void;

export class StreamFanout<S> implements ChannelSink {
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

export function debug(error: unknown): void {
  if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
}
