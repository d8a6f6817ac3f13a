/**
 * Opens a client WebSocket (the /ws stream, /exec order entry), resolving
 * once it is open, rejecting with ConnectionError when it cannot be.
 *
 * An upgrade the server answers with an HTTP status instead of 101 keeps
 * that status in ConnectionError's `status`: 429 when the server holds its
 * WebSocket connections per source IP (the mock answers as the network edge
 * does, spec 7.6: no body), 503 while it drains for a shutdown (spec 6.3:
 * reconnect elsewhere or later), 404 for a wrong path. Without it a caller
 * could not tell rate limiting from a server that is down: `ws` alone only
 * says "Unexpected server response: 429".
 */
import WebSocket from "ws";
import { ConnectionError } from "../errors.ts";

export function openWebSocket(url: string, what: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  return new Promise<WebSocket>((resolve, reject) => {
    let status: number | undefined;
    socket.once("unexpected-response", (_request, response) => {
      status = response.statusCode;
      response.resume();
      // Ends the handshake; `ws` then emits the error handled below, and the close.
      socket.terminate();
    });
    socket.once("open", () => resolve(socket));
    socket.once("error", (error) => {
      const details = status === undefined ? error.message : `the server answered the upgrade with HTTP ${status}`;
      reject(new ConnectionError(`cannot open the ${what} connection to ${url}`, { cause: error, details, ...(status === undefined ? {} : { status }) }));
    });
  });
}
