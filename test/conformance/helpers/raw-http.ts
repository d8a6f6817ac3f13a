/**
 * A raw TCP client for the HTTP edge tests: it writes whatever bytes a test
 * gives it (half a request line, a header a second, a body that never ends)
 * and records what comes back and when the connection closed, so a test can
 * tell a connection that was answered from one that was dropped unanswered,
 * and check when the server closed it.
 */
import { connect, type Socket } from "node:net";

export interface Closed {
  /** Everything received, as text. */
  readonly text: string;
  /** Milliseconds from the start of the connection to its close. */
  readonly afterMs: number;
}

export class RawConnection {
  readonly socket: Socket;
  private received = "";
  private readonly startedAt = Date.now();
  private readonly listeners: (() => void)[] = [];
  readonly closed: Promise<Closed>;
  readonly connected: Promise<void>;

  constructor(port: number, options: { localAddress?: string } = {}) {
    this.socket = connect({ port, host: "127.0.0.1", ...options });
    this.socket.on("error", () => {});
    this.socket.on("data", (chunk: Buffer) => {
      this.received += chunk.toString("latin1");
      for (const listener of this.listeners.splice(0)) listener();
    });
    this.connected = new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.closed = new Promise((resolve) =>
      this.socket.once("close", () => {
        for (const listener of this.listeners.splice(0)) listener();
        resolve({ text: this.received, afterMs: Date.now() - this.startedAt });
      }),
    );
  }

  get text(): string {
    return this.received;
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  write(text: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  /** Resolves once the received text satisfies `done`, or the connection closed (then `done` may be false). */
  async until(done: (text: string) => boolean): Promise<string> {
    while (!done(this.received) && !this.socket.destroyed) await new Promise<void>((resolve) => this.listeners.push(resolve));
    return this.received;
  }

  /** The close, failing when it has not come within `timeoutMs`. */
  closedWithin(timeoutMs: number): Promise<Closed> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the connection was not closed within ${timeoutMs} ms; received ${JSON.stringify(this.received.slice(0, 200))}`)), timeoutMs);
      void this.closed.then((closed) => {
        clearTimeout(timer);
        resolve(closed);
      });
    });
  }
}

/** Whether `text` holds one complete response with a content-length (or none: an empty body). */
export function hasResponse(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  return text.length >= end + 4 + Number(length?.[1] ?? 0);
}

/** The status code of the first response in `text` (0 when there is none). */
export function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

/** A GET that keeps the connection alive. */
export function keepAliveGet(path: string): string {
  return `GET ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`;
}
