/**
 * WebSocket order entry at `/exec` (spec 4.3): `{type, id, payload}`
 * requests answered by `{type, id, ok, payload | error}`, bodies identical
 * to REST; `ping` answered by `pong` with the id echoed; framing errors in
 * the top-level `{type: "error", id?, error}` envelope. The connection always
 * stays open, and one connection may carry many signers.
 *
 * A request is in flight from its frame until its answer is sent; answers
 * are produced on the next turn of the event loop, as a real service answers
 * asynchronously, so a client that reuses an id before its answer arrives
 * gets DUPLICATE_REQUEST_ID (and the original request is unaffected). A
 * response dropped by the dropResponses fault is never sent, but the request
 * happened.
 */
import { WebSocketServer, type WebSocket } from "ws";
import { parseExecFrame } from "./exec-framing.ts";
import type { LiveContext, SocketSurface } from "./server.ts";

/** Protocol-level ping interval that keeps idle connections alive through proxies. */
export const PROTOCOL_PING_MS = 30_000;

interface Connection {
  readonly socket: WebSocket;
  readonly inFlight: Set<string>;
}

export function createExecSurface(context: LiveContext): SocketSurface {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const connections = new Set<Connection>();

  wss.on("connection", (socket: WebSocket) => {
    const connection: Connection = { socket, inFlight: new Set() };
    connections.add(connection);
    const ping = setInterval(() => socket.ping(), PROTOCOL_PING_MS);
    ping.unref();
    socket.on("close", () => {
      clearInterval(ping);
      connections.delete(connection);
    });
    socket.on("error", () => socket.terminate());
    socket.on("message", (data, isBinary) => onFrame(context, connection, isBinary ? "" : data.toString()));
  });

  return {
    wss,
    get connectionCount() {
      return connections.size;
    },
    closeIdle(code, reason) {
      for (const connection of connections) if (connection.inFlight.size === 0) connection.socket.close(code, reason);
    },
    closeAll(code, reason) {
      for (const connection of connections) {
        connection.socket.close(code, reason);
        // A peer that never answers the close must not hold the shutdown: cut it after 1 s.
        setTimeout(() => connection.socket.terminate(), 1_000).unref();
      }
    },
  };
}

function send(socket: WebSocket, frame: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

function onFrame(context: LiveContext, connection: Connection, text: string): void {
  const frame = parseExecFrame(text, connection.inFlight);
  switch (frame.kind) {
    case "ping":
      send(connection.socket, frame.id === undefined ? { type: "pong" } : { type: "pong", id: frame.id });
      return;
    case "error":
      send(connection.socket, {
        type: "error",
        ...(frame.id === undefined ? {} : { id: frame.id }),
        error: { error: frame.code, message: frame.message },
      });
      return;
    case "request": {
      const { type, id, payload } = frame;
      connection.inFlight.add(id);
      setImmediate(() => {
        try {
          const answer = context.driver.handle({ kind: "request", op: type, body: payload });
          if (answer.responseDropped === true) return;
          send(connection.socket, answer.ok ? { type, id, ok: true, payload: answer.payload } : { type, id, ok: false, error: answer.error });
        } catch (error) {
          if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
          send(connection.socket, { type: "error", id, error: { error: "INTERNAL", message: "internal failure handling the frame" } });
        } finally {
          connection.inFlight.delete(id);
        }
      });
      return;
    }
  }
}
