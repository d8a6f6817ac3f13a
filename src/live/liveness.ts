/**
 * Dead-peer detection for the server's WebSockets (/ws and /exec).
 *
 * Every `pingIntervalMs` the server sends a protocol-level ping (RFC 6455
 * 5.5.2), which also keeps an idle connection alive through proxies. A peer
 * that has not answered the previous ping by the next tick, a whole interval
 * later, is gone and is terminated (no close handshake: it would not answer
 * that either). So a silent peer is cut between one and two intervals after
 * its last pong, about two intervals after it stops answering.
 *
 * Only the peer can fail this. Pongs are read by `ws` on the event loop,
 * ahead of anything the server does with a connection's requests, so a
 * connection whose requests are queued or whose answers are held (the input
 * log's group commit) is judged on its pongs alone. The one way the server's
 * own slowness could look like a silent peer is a turn blocked for longer
 * than an interval: the overdue tick would then run in the timers phase,
 * before the poll phase reads the pong that arrived meanwhile. The verdict
 * is therefore given in the check phase (setImmediate), after the poll phase
 * of the same turn has read what is waiting on the socket.
 *
 * Timers are unref'd (they never hold the process open) and stop when the
 * socket closes.
 */
import type { WebSocket } from "ws";

/** Pings `socket` every `pingIntervalMs` and terminates it when a ping goes unanswered for a whole interval. */
export function watchLiveness(socket: WebSocket, pingIntervalMs: number): void {
  if (!(pingIntervalMs > 0)) throw new RangeError(`pingIntervalMs "${pingIntervalMs}" must be positive`);
  let awaitingPong = false;
  let closed = false;
  const tick = () => {
    if (closed) return;
    if (awaitingPong) return void socket.terminate();
    awaitingPong = true;
    socket.ping();
  };
  const timer = setInterval(() => setImmediate(tick), pingIntervalMs);
  timer.unref();
  socket.on("pong", () => (awaitingPong = false));
  socket.once("close", () => {
    closed = true;
    clearInterval(timer);
  });
}
