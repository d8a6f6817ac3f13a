/**
 * The client's socket transports at their edges, over real sockets: the
 * WebSocket order-entry transport ignores frames that answer nothing (a
 * JSON null, an array, a number: once, `null` threw in its listener and
 * ended the process) and rejects a request left unanswered once its time
 * is out (once, it waited forever); the REST transport waits a whole edge
 * window after an HTTP 429 without a Retry-After, as spec 8.4 says to.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { edgeRetryAfterMs } from "../../src/client/transports/http.ts";
import { connectWsTransport } from "../../src/client/transports/ws.ts";

let server: WebSocketServer | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** A WebSocket server on a free port that hands each request frame to `onRequest`. */
async function serve(onRequest: (socket: WebSocket, frame: { id: string }) => void): Promise<string> {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
  server.on("connection", (socket) => socket.on("message", (data) => onRequest(socket, JSON.parse(data.toString()))));
  const address = server.address() as { port: number };
  return `ws://127.0.0.1:${address.port}`;
}

describe("WebSocket order-entry transport", () => {
  it("ignores frames that are not an object with a string id, and still takes the answer", async () => {
    const url = await serve((socket, frame) => {
      for (const junk of ["null", "[]", "5", '"x"', "true", '{"id":7}', "{]"]) socket.send(junk);
      socket.send(JSON.stringify({ type: "createOrder", id: frame.id, ok: true, payload: { status: "OPEN" } }));
    });
    const transport = await connectWsTransport(url);
    try {
      await expect(transport.request("createOrder", {} as never)).resolves.toEqual({ ok: true, payload: { status: "OPEN" } });
    } finally {
      await transport.close();
    }
  });

  it("rejects a request left unanswered once its time is out, and the next request still works", async () => {
    let seen = 0;
    const url = await serve((socket, frame) => {
      seen++;
      if (seen === 1) return; // the first request is never answered
      socket.send(JSON.stringify({ type: "cancelOrder", id: frame.id, ok: false, error: { error: "CANCEL_ORDER_OTHER_ERROR", message: "unknown" } }));
    });
    const transport = await connectWsTransport(url, { requestTimeoutMs: 150 });
    try {
      await expect(transport.request("createOrder", {} as never)).rejects.toThrow(/no answer within 150 ms/);
      await expect(transport.request("cancelOrder", {} as never)).resolves.toMatchObject({ ok: false });
    } finally {
      await transport.close();
    }
    await expect(connectWsTransport(url, { requestTimeoutMs: 0 })).rejects.toThrow(/requestTimeoutMs 0/);
  });
});

describe("REST transport after an edge 429", () => {
  it("waits a whole 60 s window, or what Retry-After says", () => {
    expect(edgeRetryAfterMs(null)).toBe(60_000);
    expect(edgeRetryAfterMs("junk")).toBe(60_000);
    expect(edgeRetryAfterMs("12")).toBe(12_000);
    expect(edgeRetryAfterMs("0")).toBe(1_000);
  });
});
