// Temporary: replaced by the streaming surface (being written).
import { WebSocketServer } from "ws";
import type { LiveContext, SocketSurface } from "./server.ts";
export function createStreamSurface(_context: LiveContext, _options: { slowConsumerBytes: number }): SocketSurface & { resync(): number } {
  const wss = new WebSocketServer({ noServer: true });
  return { wss, connectionCount: 0, closeIdle() {}, closeAll() {}, resync: () => 0 };
}
