/**
 * A test client of the streaming interface over a real socket: it queues
 * every frame it receives, lets a test take the first frame that matches
 * (waiting for it), and has a barrier, `sync()`: a ping answered by a pong
 * proves that every frame the server sent before it has arrived, so "no
 * such frame" can be checked without sleeping.
 */
import type { Socket } from "node:net";
import WebSocket from "ws";

export type Frame = Record<string, unknown> & { type: string };
type Predicate = (frame: Frame) => boolean;

interface Waiter {
  readonly predicate: Predicate;
  readonly resolve: (frame: Frame) => void;
}

export class StreamClient {
  /** Frames received and not yet taken, in arrival order. */
  readonly queue: Frame[] = [];
  /** Every frame ever received, in order. */
  readonly received: Frame[] = [];
  /** Bytes of frames received. */
  receivedBytes = 0;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters: Waiter[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const text = data.toString();
      this.receivedBytes += text.length;
      const frame = JSON.parse(text) as Frame;
      this.received.push(frame);
      const index = this.waiters.findIndex((waiter) => waiter.predicate(frame));
      if (index >= 0) this.waiters.splice(index, 1)[0]!.resolve(frame);
      else this.queue.push(frame);
    });
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.on("error", () => {});
  }

  static async connect(url: string): Promise<StreamClient> {
    const socket = new WebSocket(url);
    const client = new StreamClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return client;
  }

  /** The close code and reason, failing after `timeoutMs`. */
  closedWithin(timeoutMs = 5_000): Promise<{ code: number; reason: string }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the connection was not closed within ${timeoutMs} ms`)), timeoutMs);
      void this.closed.then((closed) => {
        clearTimeout(timer);
        resolve(closed);
      });
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  subscribe(channel: string, id?: string | number): void {
    this.send(id === undefined ? { type: "subscribe", channel } : { type: "subscribe", channel, id });
  }

  unsubscribe(channel: string): void {
    this.send({ type: "unsubscribe", channel });
  }

  /** Takes (removes) the first frame matching `predicate`, waiting up to `timeoutMs` for it. */
  take(predicate: Predicate, timeoutMs = 5_000, what = "a matching frame"): Promise<Frame> {
    const index = this.queue.findIndex(predicate);
    if (index >= 0) return Promise.resolve(this.queue.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; queued: ${JSON.stringify(this.queue).slice(0, 600)}`));
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Subscribes and takes the answer (subscribed or error) for `channel`. */
  async subscribeAndWait(channel: string): Promise<Frame> {
    this.subscribe(channel);
    return this.take((f) => (f.type === "subscribed" || f.type === "error") && f["channel"] === channel, 5_000, `the answer to subscribe ${channel}`);
  }

  /** The next channel_data frame of `channel`. */
  data(channel: string, timeoutMs = 5_000): Promise<Frame> {
    return this.take((f) => f.type === "channel_data" && f["channel"] === channel, timeoutMs, `channel_data on ${channel}`);
  }

  /** Takes every queued channel_data frame of `channel` (call after sync()). */
  drainData(channel: string): Frame[] {
    const taken: Frame[] = [];
    for (let i = 0; i < this.queue.length; ) {
      const frame = this.queue[i]!;
      if (frame.type === "channel_data" && frame["channel"] === channel) {
        taken.push(frame);
        this.queue.splice(i, 1);
      } else i++;
    }
    return taken;
  }

  /** Barrier: a ping answered by its pong; every frame sent before is then queued. */
  async sync(): Promise<void> {
    this.send({ type: "ping" });
    await this.take((f) => f.type === "pong", 5_000, "pong");
  }

  /** The underlying TCP socket (to stop reading, as a slow consumer would). */
  get tcp(): Socket {
    return (this.socket as unknown as { _socket: Socket })._socket;
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close();
  }
}
