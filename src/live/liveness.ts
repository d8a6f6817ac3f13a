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
 *
 * Any pong counts, unsolicited ones included: RFC 6455 5.5.3 allows a pong
 * sent as a unidirectional heartbeat, so a peer may keep itself alive that
 * way without reading the server's pings. That is kept on purpose. A peer
 * that does not read is bounded by the other half of this module: every
 * answer either surface sends is followed by `isSlowConsumer`, and a peer
 * whose unread data passes the surface's bound is closed with 1013, pongs or
 * not. What a peer that sends only pongs and reads nothing holds is the
 * server's pings (a few bytes per interval), like any idle connection.
 */
import type { WebSocket } from "ws";

/** The close code and reason of a slow consumer (spec 6.3), on /ws and /exec alike. */
export const CLOSE_SLOW_CONSUMER = 1013;
export const SLOW_CONSUMER_REASON = "slow consumer";

/**
 * Whether `socket` is a slow consumer: its unsent data (ws `bufferedAmount`:
 * what the socket has not yet handed to the kernel, corked writes included)
 * exceeds `limitBytes`. Checked after every send, so that what the server
 * holds for one connection is bounded by `limitBytes` plus one frame; the
 * caller closes the connection with CLOSE_SLOW_CONSUMER and sends it nothing
 * more.
 */
export function isSlowConsumer(socket: WebSocket, limitBytes: number): boolean {
  return socket.bufferedAmount > limitBytes;
}

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
