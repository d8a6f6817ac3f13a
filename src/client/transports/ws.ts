/**
 * WebSocket order-entry transport (spec 4.3) for the client SDK: one
 * connection, requests correlated by id, answers resolved in any order.
 * A top-level error frame with an id fails that request; a connection lost
 * with requests in flight rejects them, and so does a request left
 * unanswered for `requestTimeoutMs` (default 30 s: a silent server or a
 * dead path): their outcome is unknown, so the client reports
 * TransportFailedError and does not resend. A frame that is not a JSON
 * object with a string id (null, an array, a number, junk) answers nothing
 * and is ignored.
 */
import WebSocket from "ws";
import { ConnectionError } from "../errors.ts";
import { openWebSocket } from "../internal/open-socket.ts";
import type { OrderEntryOperation, OrderEntryTransport, OrderEntryResponse } from "../transport.ts";

export interface WsTransport extends OrderEntryTransport {
  close(): Promise<void>;
}

export interface WsTransportOptions {
  /** How long a request may wait for its answer before it is rejected (ms; default 30,000). */
  readonly requestTimeoutMs?: number;
}

/** A request waits this long for its answer by default. */
export const WS_REQUEST_TIMEOUT_MS_DEFAULT = 30_000;

export async function connectWsTransport(url: string, options: WsTransportOptions = {}): Promise<WsTransport> {
  const timeoutMs = options.requestTimeoutMs ?? WS_REQUEST_TIMEOUT_MS_DEFAULT;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`requestTimeoutMs ${timeoutMs} must be a positive number of milliseconds`);
  // A failed connect is a ConnectionError (with the upgrade's HTTP status, 429 or 503, when there was one), as for the stream.
  const socket = await openWebSocket(url, "order-entry");
  // An error is followed by a close, which rejects what is in flight (below).
  socket.on("error", () => undefined);
  const pending = new Map<string, { resolve: (result: OrderEntryResponse) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let nextId = 0;
  socket.on("message", (data) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return;
    const frame = parsed as { type?: unknown; id?: unknown; ok?: unknown; payload?: unknown; error?: unknown };
    if (typeof frame.id !== "string") return;
    const waiter = pending.get(frame.id);
    if (waiter === undefined) return;
    pending.delete(frame.id);
    clearTimeout(waiter.timer);
    if (frame.type === "error") waiter.reject(new Error(`order entry refused the frame: ${JSON.stringify(frame.error)}`));
    else waiter.resolve(frame.ok === true ? { ok: true, payload: frame.payload } : { ok: false, error: frame.error });
  });
  /** How the connection closed (spec 6.3: 1013, 1012, 1001; 1006 lost), once it has: in-flight and later requests name it. */
  let closed: { code: number; reason: string } | undefined;
  const closedError = (what: string): ConnectionError => {
    const { code, reason } = closed!;
    return new ConnectionError(`the order-entry connection closed with ${code}${reason === "" ? "" : ` (${reason})`} ${what}`, { closeCode: code, closeReason: reason });
  };
  socket.on("close", (code, reason) => {
    closed = { code, reason: reason.toString() };
    for (const waiter of pending.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(closedError("with the request in flight: its outcome is unknown"));
    }
    pending.clear();
  });
  return {
    request(operation: OrderEntryOperation, body: unknown): Promise<OrderEntryResponse> {
      // Not sent at all (the client still reports the transport's failure; the cause says it never left).
      if (closed !== undefined) return Promise.reject(closedError("before the request: it was not sent"));
      const id = String(++nextId);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          if (!pending.delete(id)) return;
          reject(new Error(`no answer within ${timeoutMs} ms: the request's outcome is unknown`));
        }, timeoutMs);
        timer.unref();
        pending.set(id, { resolve, reject, timer });
        socket.send(JSON.stringify({ type: operation, id, payload: body }), (error) => {
          if (error !== undefined && error !== null && pending.delete(id)) {
            clearTimeout(timer);
            reject(error);
          }
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once("close", () => resolve());
        socket.close(1000);
      });
    },
  };
}
