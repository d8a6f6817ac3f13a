/**
 * WebSocket order-entry transport (spec 4.3) for the client SDK: one
 * connection, requests correlated by id, answers resolved in any order.
 * A top-level error frame with an id fails that request; a connection lost
 * with requests in flight rejects them (their outcome is unknown: the
 * client reports TransportFailedError and does not resend).
 */
import WebSocket from "ws";
import type { OrderEntryOperation, OrderEntryTransport, OrderEntryResponse } from "../transport.ts";

export interface WsTransport extends OrderEntryTransport {
  close(): Promise<void>;
}

export async function connectWsTransport(url: string): Promise<WsTransport> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const pending = new Map<string, { resolve: (result: OrderEntryResponse) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  socket.on("message", (data) => {
    let frame: { type?: string; id?: string; ok?: boolean; payload?: unknown; error?: unknown };
    try {
      frame = JSON.parse(data.toString()) as typeof frame;
    } catch {
      return;
    }
    if (frame.id === undefined) return;
    const waiter = pending.get(frame.id);
    if (waiter === undefined) return;
    pending.delete(frame.id);
    if (frame.type === "error") waiter.reject(new Error(`order entry refused the frame: ${JSON.stringify(frame.error)}`));
    else waiter.resolve(frame.ok === true ? { ok: true, payload: frame.payload } : { ok: false, error: frame.error });
  });
  socket.on("close", () => {
    for (const waiter of pending.values()) waiter.reject(new Error("connection closed with the request in flight"));
    pending.clear();
  });
  return {
    request(operation: OrderEntryOperation, body: unknown): Promise<OrderEntryResponse> {
      const id = String(++nextId);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ type: operation, id, payload: body }), (error) => {
          if (error !== undefined && error !== null) {
            pending.delete(id);
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
