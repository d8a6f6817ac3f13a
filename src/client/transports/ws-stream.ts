/**
 * Streaming transport for the client SDK: the agents' stream interface
 * (AgentStream, src/sim/agent.ts) over one connection to the live streaming
 * WebSocket `/ws` (spec 4.4, 6; src/live/stream.ts).
 *
 * As the simulator's in-process stream delivers them:
 * - `subscribe(channel, onMessage)` sends `{type: "subscribe", channel}` and
 *   resolves with the `subscribed` frame (its `contents` is the snapshot of
 *   depth, orderChanges and transfers); every later `channel_data` of the
 *   channel goes to `onMessage`, in order, after it. Before handing over the
 *   next frame the transport lets the caller's continuation of that
 *   `await subscribe(...)` run (one macrotask turn), so a program applies
 *   the snapshot before the first update, as in the simulator.
 * - It rejects with SubscribeFailedError (errors.ts; `message` is the
 *   server's text, as the in-process stream's rejection carries it) for an
 *   error envelope: "Invalid channel name", a failed snapshot (which also
 *   drops a subscription held before, as the server does), the
 *   subscription limit.
 * - `unsubscribe(channel)` stops deliveries to the handler at once and
 *   tells the server; its answer is not reported (the interface returns
 *   void).
 * - A handler's throw or rejected promise goes to `onHandlerError`
 *   (default: rethrown as an uncaught exception, so the program stops, as a
 *   simulated run stops on a failing agent).
 *
 * The server answers every client frame exactly once, in order, so answers
 * are matched to requests first in, first out (the `id` of a frame is not
 * echoed by the server).
 *
 * Closes (spec 6.3: 1013 slow consumer, 1012 resync, 1001 shutdown; or the
 * connection lost): the stream does not reconnect. Updates from the
 * disconnected window are not replayed by the server, so only the program
 * can rebuild its state (fresh snapshots, REST for positions and balances),
 * and it must know that it has to. What a program sees:
 * - subscribes and unsubscribes waiting for an answer reject with
 *   ConnectionError (`closeCode`, `closeReason`), and so does every later
 *   `subscribe`: the only way the AgentStream interface itself has to tell;
 * - `closed` (a promise) and `onClose(listener)` give the close code and
 *   reason to a program that asks; `connectLiveAgent`'s `onStreamClose`
 *   option is the same hook.
 * Not surfaced through AgentStream: a handler just stops being called, so
 * an agent that only listens (and never subscribes again) does not learn of
 * the close from the interface alone; it needs `closed`/`onClose`. In the
 * simulator a stream never closes.
 */
import WebSocket from "ws";
import type { AgentStream, StreamHandler } from "../../sim/agent.ts";
import type { ChannelSubscribed, StreamChannelData, StreamSubscribed } from "../../spec/stream-envelopes.ts";
import { ConnectionError, SubscribeFailedError } from "../errors.ts";
import { openWebSocket } from "../internal/open-socket.ts";

/** How a stream connection ended. */
export interface StreamClose {
  /** The WebSocket close code: 1013 slow consumer, 1012 resync, 1001 shutdown, 1000 closed by `close()`, 1006 lost without a close frame. */
  readonly code: number;
  readonly reason: string;
  /** True when this side closed it (`close()`). */
  readonly byClient: boolean;
}

export interface WsStream extends AgentStream {
  /** Resolves when the server has answered a ping sent now: every frame it sent before has been handed over. */
  ping(): Promise<void>;
  /** Resolves once the connection has closed, with how. */
  readonly closed: Promise<StreamClose>;
  /** Calls `listener` once when the connection closes (at once if it already has). */
  onClose(listener: (close: StreamClose) => void): void;
  /** Closes the connection (code 1000); resolves once closed. */
  close(): Promise<void>;
}

export interface WsStreamOptions {
  /** Where a handler's throw or rejection goes (default: rethrown as an uncaught exception). */
  readonly onHandlerError?: (error: unknown, channel: string) => void;
}

type Pending =
  | { readonly kind: "subscribe"; readonly channel: string; readonly seq: number; readonly handler: StreamHandler; resolve(frame: StreamSubscribed): void; reject(error: Error): void }
  | { readonly kind: "unsubscribe"; readonly channel: string; readonly seq: number }
  | { readonly kind: "ping"; resolve(): void; reject(error: Error): void };

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function closeError(close: StreamClose): ConnectionError {
  const what = close.byClient ? "the stream was closed by the client" : `the stream connection closed with ${close.code}${close.reason === "" ? "" : ` (${close.reason})`}`;
  return new ConnectionError(what, { closeCode: close.code, closeReason: close.reason });
}

/**
 * Opens a stream connection to `url` (`ws://host:port/ws`). Rejects with
 * ConnectionError when it cannot connect, with `status` when the server
 * answered the upgrade with one (429, 503: internal/open-socket.ts).
 */
export async function connectWsStream(url: string, options: WsStreamOptions = {}): Promise<WsStream> {
  return new LiveStream(await openWebSocket(url, "stream"), options);
}

class LiveStream implements WsStream {
  private readonly handlers = new Map<string, StreamHandler>();
  private readonly pending: Pending[] = [];
  /** The sequence number of the latest unsubscribe of each channel: a subscribed answer older than it installs no handler. */
  private readonly unsubscribedAt = new Map<string, number>();
  private seq = 0;
  private readonly inbox: Buffer[] = [];
  private draining = false;
  private ended: StreamClose | undefined;
  private closing = false;
  private readonly closeListeners: ((close: StreamClose) => void)[] = [];
  readonly closed: Promise<StreamClose>;
  private resolveClosed!: (close: StreamClose) => void;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: WsStreamOptions,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    socket.on("message", (data: WebSocket.RawData) => {
      this.inbox.push(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer));
      void this.drain();
    });
    // An error is followed by a close; the close is what the program is told.
    socket.on("error", () => undefined);
    socket.on("close", (code: number, reason: Buffer) => {
      this.ended = { code, reason: reason.toString(), byClient: this.closing };
      void this.drain();
    });
  }

  /** Hands frames over one at a time, a macrotask turn apart, then reports a close once every frame before it is out. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.inbox.length > 0) {
        this.onFrame(this.inbox.shift()!);
        await turn();
      }
      if (this.ended !== undefined) this.finish(this.ended);
    } finally {
      this.draining = false;
    }
  }

  private finished = false;

  private finish(close: StreamClose): void {
    if (this.finished) return;
    this.finished = true;
    this.handlers.clear();
    const error = closeError(close);
    for (const waiter of this.pending.splice(0)) if (waiter.kind !== "unsubscribe") waiter.reject(error);
    this.resolveClosed(close);
    for (const listener of this.closeListeners.splice(0)) listener(close);
  }

  private onFrame(data: Buffer): void {
    let frame: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(data.toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return;
      frame = parsed as Record<string, unknown>;
    } catch {
      return;
    }
    const type = frame["type"];
    if (type === "channel_data") {
      const channel = frame["channel"];
      const handler = typeof channel === "string" ? this.handlers.get(channel) : undefined;
      if (handler !== undefined) this.invoke(handler, frame as unknown as StreamChannelData);
      return;
    }
    if (type !== "subscribed" && type !== "unsubscribed" && type !== "error" && type !== "pong") return;
    const waiter = this.pending.shift();
    if (waiter === undefined) return;
    switch (waiter.kind) {
      case "subscribe":
        if (type === "subscribed") {
          if ((this.unsubscribedAt.get(waiter.channel) ?? 0) < waiter.seq) this.handlers.set(waiter.channel, waiter.handler);
          waiter.resolve(frame as unknown as StreamSubscribed);
        } else {
          // A failed subscribe rolls back the server's subscription, also one held before.
          this.handlers.delete(waiter.channel);
          const message = typeof frame["message"] === "string" ? frame["message"] : `unexpected ${String(type)} frame`;
          waiter.reject(new SubscribeFailedError(waiter.channel, message));
        }
        return;
      case "unsubscribe":
        return;
      case "ping":
        waiter.resolve();
        return;
    }
  }

  private invoke(handler: StreamHandler, message: StreamChannelData): void {
    const report = (error: unknown) => {
      if (this.options.onHandlerError !== undefined) this.options.onHandlerError(error, message.channel);
      else
        process.nextTick(() => {
          throw error;
        });
    };
    try {
      const result = handler(message);
      if (result !== undefined && result !== null && typeof (result as PromiseLike<void>).then === "function") (result as Promise<void>).then(undefined, report);
    } catch (error) {
      report(error);
    }
  }

  private send(frame: unknown): Error | undefined {
    if (this.ended !== undefined || this.socket.readyState !== WebSocket.OPEN) return closeError(this.ended ?? { code: 1006, reason: "not open", byClient: this.closing });
    this.socket.send(JSON.stringify(frame));
    return undefined;
  }

  subscribe<Name extends string>(channel: Name, onMessage: StreamHandler<Name>): Promise<ChannelSubscribed<Name>> {
    return new Promise((resolve, reject) => {
      const failed = this.send({ type: "subscribe", channel });
      if (failed !== undefined) return reject(failed);
      // Kept with every channel's handlers; the server's frames of this channel have the spec's shapes its types declare (not validated: see ChannelDataOf).
      const resolveFrame = resolve as (frame: StreamSubscribed) => void;
      this.pending.push({ kind: "subscribe", channel, seq: ++this.seq, handler: onMessage as unknown as StreamHandler, resolve: resolveFrame, reject });
    });
  }

  unsubscribe(channel: string): void {
    this.handlers.delete(channel);
    const seq = ++this.seq;
    this.unsubscribedAt.set(channel, seq);
    if (this.send({ type: "unsubscribe", channel }) === undefined) this.pending.push({ kind: "unsubscribe", channel, seq });
  }

  ping(): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = this.send({ type: "ping" });
      if (failed !== undefined) return reject(failed);
      this.pending.push({ kind: "ping", resolve, reject });
    });
  }

  onClose(listener: (close: StreamClose) => void): void {
    if (this.finished) listener(this.ended!);
    else this.closeListeners.push(listener);
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) {
      this.closing = true;
      const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
      this.socket.close(1000);
      await closed;
    }
    await this.closed;
  }
}
