/**
 * Socket helpers for the connection-limit tests: which loopback source
 * addresses this machine has, and a WebSocket open that reports a refused
 * upgrade (its HTTP status and body) instead of failing.
 */
import { createServer } from "node:net";
import WebSocket from "ws";

/** Whether this machine lets a socket bind `host` (Linux answers all of 127/8, so 127.0.0.2 works there). */
export function canBind(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

/** Opens a WebSocket (from `localAddress`, if given): the socket once open, or the HTTP status and body its upgrade was refused with. */
export function openWebSocket(url: string, localAddress?: string): Promise<{ socket: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, localAddress === undefined ? {} : { localAddress });
    socket.once("open", () => resolve({ socket }));
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once("error", reject);
  });
}

/** Closes a WebSocket and waits for the close (at once if it is closed already). */
export function closeWebSocket(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve();
    socket.once("close", () => resolve());
    socket.close();
  });
}
