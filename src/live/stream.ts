/**
 * The streaming (info) WebSocket at `/ws` (spec 4.4, 6, 7.5).
 *
 * Client frames: `{type: "subscribe" | "unsubscribe", channel, id?}` and
 * `{type: "ping"}`. Answers: `{type: "subscribed", channel, contents?}`
 * (contents for depth, orderChanges and transfers: stream-snapshots.ts),
 * `{type: "unsubscribed", channel}`, `{type: "pong"}`, and
 * `{type: "error", message, channel?}` with the messages of spec 7.5; the
 * connection stays open after an error. The `id` of a client frame is never
 * echoed, and its value is not checked. Text and binary frames are both read
 * as UTF-8 JSON.
 *
 * Subscriptions:
 * - channels resolve as src/exchange/stream-channels.ts says (wallets case-insensitive,
 *   symbols of a configured market of the right kind, otherwise
 *   "Invalid channel name" with the channel);
 * - subscribing again to a channel the connection holds answers
 *   `subscribed` again (with a fresh snapshot) and keeps one subscription:
 *   updates are never doubled; the newest spelling of the name is used;
 * - a failed snapshot rolls the subscription back (also one held before);
 * - unsubscribing from a channel not held still answers `unsubscribed`;
 * - a connection holds at most `subscriptionsPerConnection` channels
 *   (default SUBSCRIPTIONS_PER_CONNECTION_MAX; ours: the specification shows
 *   no limit).
 *
 * Updates come from one Exchange subscription per surface, routed and
 * serialized once per channel (stream-fanout.ts), with `timestamp` in ms of
 * the Exchange's time.
 *
 * Connection management (spec 6.3):
 * - slow consumer: after every send, a connection whose unsent data
 *   (ws bufferedAmount: what the socket has not yet handed to the kernel)
 *   exceeds `slowConsumerBytes` is closed with 1013 and gets nothing more;
 * - `resync()` (admin) closes every connection with 1012;
 * - shutdown: `closeIdle` closes with the given code (1001) every connection
 *   that is idle, i.e. has nothing unsent; a connection still flushing is
 *   closed by a later `closeIdle` once its backlog is out, or by `closeAll`
 *   at the end of the drain. `closeAll` also ends, after CLOSE_GRACE_MS,
 *   connections that did not complete the close handshake, so the drain is
 *   bounded;
 * - protocol-level pings every STREAM_PING_INTERVAL_MS (unref'd timers) keep
 *   idle connections alive through proxies; a connection that has not
 *   answered the previous ping by the next one is dead and is terminated
 *   (liveness.ts, shared with /exec, as is the slow-consumer test).
 */
import { WebSocketServer, type WebSocket } from "ws";
import { microsToMillis } from "../core/time.ts";
import { channelHasSnapshot } from "../spec/channels.ts";
import {
  STREAM_ERROR_INVALID_CHANNEL_NAME,
  STREAM_ERROR_INVALID_JSON,
  STREAM_ERROR_INVALID_TYPE,
  streamSnapshotErrorMessage,
} from "../spec/errors.ts";
import { positiveInteger, type LiveContext, type SocketSurface } from "./server.ts";
import { ChannelRegistry, resolveChannel, type Channel, type ResolvedChannel } from "../exchange/stream-channels.ts";
import { routeOutput } from "../exchange/stream-routes.ts";
import { CLOSE_SLOW_CONSUMER, isSlowConsumer, SLOW_CONSUMER_REASON, watchLiveness } from "./liveness.ts";
import { debug, StreamFanout } from "./stream-fanout.ts";
import { takeSnapshot } from "./stream-snapshots.ts";
import { frameText } from "./request-json.ts";

/** Unsent bytes on a connection before it is closed with 1013 (spec 6.3; the server's default). */
export const SLOW_CONSUMER_BYTES_DEFAULT = 1024 * 1024;
/** Protocol-level ping interval. */
export const STREAM_PING_INTERVAL_MS = 30_000;
/** After closeAll, how long a connection has to complete the close handshake before it is cut. */
export const CLOSE_GRACE_MS = 1_000;
/** Largest client frame accepted (a subscribe is well under 200 bytes); larger ones close with 1009. */
export const CLIENT_FRAME_BYTES_MAX = 64 * 1024;

/**
 * Channels one connection may hold at once. The specification does not show
 * its limits on subscriptions (8.5); a real service has one, and wallet
 * channels name any address, so without it one connection could register
 * channels without end. A subscribe beyond it (to a channel not already
 * held) gets an error envelope with the limit's message
 * (streamErrorSubscriptionLimit; STREAM_ERROR_SUBSCRIPTION_LIMIT at the
 * default) and the channel; the connection stays open, and unsubscribing
 * makes room. The server's default: `subscriptionsPerConnection` sets
 * another (`shadowbook serve --subscriptions-per-connection`).
 */
export const SUBSCRIPTIONS_PER_CONNECTION_MAX = 1_000;
/** The error message of a subscribe beyond a limit of `max` channels: ours, beside the published messages of spec 7.5. */
export function streamErrorSubscriptionLimit(max: number): string {
  return `Subscription limit reached: at most ${max} channels per connection`;
}
/** The error message of a subscribe beyond the default limit. */
export const STREAM_ERROR_SUBSCRIPTION_LIMIT = streamErrorSubscriptionLimit(SUBSCRIPTIONS_PER_CONNECTION_MAX);

export { CLOSE_SLOW_CONSUMER };
export const CLOSE_RESYNC = 1012;

export interface StreamSurfaceOptions {
  slowConsumerBytes: number;
  /** Protocol ping interval (default STREAM_PING_INTERVAL_MS). */
  pingIntervalMs?: number;
  /** Channels one connection may hold at once (default SUBSCRIPTIONS_PER_CONNECTION_MAX). */
  subscriptionsPerConnection?: number;
}

export interface StreamSurface extends SocketSurface {
  /** Closes every connection with 1012; returns how many were open. */
  resync(): number;
  /** Subscriptions across all connections. */
  readonly subscriptionCount: number;
  /** Unsent bytes across all connections. */
  unsentBytes(): number;
}

class Connection {
  readonly subscriptions = new Set<Channel<Connection>>();
  closing = false;
  cutTimer: NodeJS.Timeout | undefined;

  constructor(readonly socket: WebSocket) {}
}

const TEXT = { binary: false } as const;
const PONG = '{"type":"pong"}';

export function createStreamSurface(context: LiveContext, options: StreamSurfaceOptions): StreamSurface {
  return new StreamServer(context, options);
}

class StreamServer implements StreamSurface {
  readonly wss = new WebSocketServer({ noServer: true, maxPayload: CLIENT_FRAME_BYTES_MAX, clientTracking: false });
  private readonly connections = new Set<Connection>();
  private readonly registry = new ChannelRegistry<Connection>();
  private readonly slowConsumerBytes: number;
  private readonly pingIntervalMs: number;
  private readonly subscriptionsPerConnection: number;
  private readonly subscriptionLimitMessage: string;

  constructor(
    private readonly context: LiveContext,
    options: StreamSurfaceOptions,
  ) {
    if (!(Number.isSafeInteger(options.slowConsumerBytes) && options.slowConsumerBytes >= 0)) {
      throw new RangeError(`slowConsumerBytes must be a non-negative integer, got ${options.slowConsumerBytes}`);
    }
    this.slowConsumerBytes = options.slowConsumerBytes;
    this.pingIntervalMs = options.pingIntervalMs ?? STREAM_PING_INTERVAL_MS;
    if (!(this.pingIntervalMs > 0)) throw new RangeError(`pingIntervalMs must be positive, got ${this.pingIntervalMs}`);
    this.subscriptionsPerConnection = positiveInteger("subscriptionsPerConnection", options.subscriptionsPerConnection ?? SUBSCRIPTIONS_PER_CONNECTION_MAX);
    this.subscriptionLimitMessage = streamErrorSubscriptionLimit(this.subscriptionsPerConnection);
    const fanout = new StreamFanout<Connection>(this.registry, (connection, frame) => this.deliver(connection, frame), () =>
      microsToMillis(context.exchange.now()),
    );
    context.exchange.subscribe((output) => {
      // A publishing failure must never reach the Exchange's emit loop.
      try {
        routeOutput(output, fanout);
      } catch (error) {
        debug(error);
      }
    });
    this.wss.on("connection", (socket: WebSocket) => this.accept(socket));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  get subscriptionCount(): number {
    return this.registry.size;
  }

  unsentBytes(): number {
    let total = 0;
    for (const connection of this.connections) total += connection.socket.bufferedAmount;
    return total;
  }

  closeIdle(code: number, reason: string): void {
    for (const connection of this.connections) if (connection.socket.bufferedAmount === 0) this.close(connection, code, reason);
  }

  closeAll(code: number, reason: string): void {
    for (const connection of this.connections) {
      this.close(connection, code, reason);
      if (connection.cutTimer !== undefined) continue;
      connection.cutTimer = setTimeout(() => connection.socket.terminate(), CLOSE_GRACE_MS);
      connection.cutTimer.unref();
    }
  }

  resync(): number {
    let closed = 0;
    for (const connection of this.connections) if (this.close(connection, CLOSE_RESYNC, "resync")) closed++;
    return closed;
  }

  private accept(socket: WebSocket): void {
    const connection = new Connection(socket);
    this.connections.add(connection);
    watchLiveness(socket, this.pingIntervalMs);
    socket.on("close", () => {
      clearTimeout(connection.cutTimer);
      this.detach(connection);
      this.connections.delete(connection);
    });
    socket.on("error", () => socket.terminate());
    socket.on("message", (data) => {
      try {
        this.onFrame(connection, frameText(data));
      } catch (error) {
        debug(error);
      }
    });
  }

  /** Marks the connection closing, drops its subscriptions (no more frames cost anything), and closes it. */
  private close(connection: Connection, code: number, reason: string): boolean {
    if (connection.closing) return false;
    this.detach(connection);
    connection.socket.close(code, reason);
    return true;
  }

  private detach(connection: Connection): void {
    connection.closing = true;
    for (const channel of connection.subscriptions) this.registry.remove(channel, connection);
    connection.subscriptions.clear();
  }

  private deliver(connection: Connection, frame: Buffer): void {
    if (connection.closing) return;
    connection.socket.send(frame, TEXT);
    this.checkBacklog(connection);
  }

  private reply(connection: Connection, frame: unknown): void {
    if (connection.closing) return;
    connection.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
    this.checkBacklog(connection);
  }

  /** After every send: a backlog above the limit makes a slow consumer. */
  private checkBacklog(connection: Connection): void {
    if (isSlowConsumer(connection.socket, this.slowConsumerBytes)) this.close(connection, CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_REASON);
  }

  // -- the client-frame protocol ----------------------------------------------------------

  private onFrame(connection: Connection, text: string): void {
    if (connection.closing) return;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return this.error(connection, STREAM_ERROR_INVALID_JSON);
    }
    const fields = typeof frame === "object" && frame !== null && !Array.isArray(frame) ? (frame as Record<string, unknown>) : undefined;
    switch (fields?.["type"]) {
      case "ping":
        return this.reply(connection, PONG);
      case "subscribe":
        return this.subscribe(connection, fields?.["channel"]);
      case "unsubscribe":
        return this.unsubscribe(connection, fields?.["channel"]);
      default:
        return this.error(connection, STREAM_ERROR_INVALID_TYPE);
    }
  }

  private subscribe(connection: Connection, name: unknown): void {
    const resolved = typeof name === "string" ? resolveChannel(name, this.context.exchange.marketsBySymbol) : undefined;
    if (resolved === undefined) return this.error(connection, STREAM_ERROR_INVALID_CHANNEL_NAME, name);
    const channel = name as string;
    if (connection.subscriptions.size >= this.subscriptionsPerConnection && !this.holds(connection, resolved)) {
      return this.error(connection, this.subscriptionLimitMessage, channel);
    }
    let contents: unknown;
    if (channelHasSnapshot(resolved.kind)) {
      try {
        contents = takeSnapshot(this.context, resolved.kind, resolved.key);
      } catch (failure) {
        debug(failure);
        this.drop(connection, resolved);
        return this.error(connection, streamSnapshotErrorMessage(channel), channel);
      }
    }
    // Same turn as the snapshot: the next update of this channel is the first one after it.
    connection.subscriptions.add(this.registry.add(resolved, connection, channel));
    this.reply(connection, contents === undefined ? { type: "subscribed", channel } : { type: "subscribed", channel, contents });
  }

  private unsubscribe(connection: Connection, name: unknown): void {
    const resolved = typeof name === "string" ? resolveChannel(name, this.context.exchange.marketsBySymbol) : undefined;
    if (resolved === undefined) return this.error(connection, STREAM_ERROR_INVALID_CHANNEL_NAME, name);
    this.drop(connection, resolved);
    this.reply(connection, { type: "unsubscribed", channel: name });
  }

  private holds(connection: Connection, resolved: ResolvedChannel): boolean {
    const held = this.registry.find(resolved.kind, resolved.key);
    return held !== undefined && connection.subscriptions.has(held);
  }

  /** Ends the connection's subscription to the channel, if it holds one. */
  private drop(connection: Connection, resolved: ResolvedChannel): void {
    const held = this.registry.find(resolved.kind, resolved.key);
    if (held !== undefined && connection.subscriptions.delete(held)) this.registry.remove(held, connection);
  }

  private error(connection: Connection, message: string, channel?: unknown): void {
    this.reply(connection, typeof channel === "string" ? { type: "error", message, channel } : { type: "error", message });
  }
}

