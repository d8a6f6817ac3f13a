/**
 * The live mock server: one HTTP port carrying
 *  - REST `/v2/...` (reads and the five order-entry POSTs) and the admin API
 *    `/admin/...` (rest.ts, admin.ts),
 *  - health probes `/health/live` and `/health/ready`,
 *  - the streaming WebSocket at `/ws` (stream.ts),
 *  - WebSocket order entry at `/exec` (exec.ts),
 * all on the same Exchange through one LiveDriver, so every input is
 * stamped, logged and handled the same way.
 *
 * Connection limits where the specification shows none (8.5): open TCP
 * connections per source IP (CONNECTIONS_PER_IP_MAX, counted as they are
 * accepted, so plain HTTP and upgraded WebSockets alike; one beyond it is
 * destroyed at once), open WebSockets per source IP within that
 * (WEBSOCKETS_PER_IP_MAX, 429; never above the connection limit:
 * checkPerIpLimits), and explicit HTTP timeouts instead of
 * Node's implicit ones (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS), which end with the upgrade: a WebSocket
 * lives as long as its peer keeps it.
 *
 * Graceful shutdown (spec 6.3, SIGTERM): readiness answers 503 at once, and
 * so does a WebSocket upgrade to /ws or /exec; idle stream connections are
 * closed first with 1001, the rest within the 10 s drain (answers held for
 * the input log's group commit go out first), the
 * exec queue hands the requests it holds to the Exchange, the input log is
 * made durable and closed (the driver refuses any input after that:
 * driver.ts), then the process may exit 0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { Exchange } from "../exchange/exchange.ts";
import { ExchangeQueries } from "../exchange/queries.ts";
import type { LiveDriver } from "./driver.ts";
import type { ExecSurface } from "./exec.ts";
import { EdgeLimiter, type EdgeLimitConfig, DEFAULT_EDGE_LIMIT } from "./edge-limiter.ts";

/** What each surface module gets: the Exchange, its driver and the read models. */
export interface LiveContext {
  readonly exchange: Exchange;
  readonly driver: LiveDriver;
  readonly queries: ExchangeQueries;
  /** Closes every stream connection with 1012 (admin resync); returns how many. */
  resyncStreams(): number;
  /** The run fingerprint so far: SHA-256 over the Exchange's canonical output stream. */
  fingerprint(): string;
  /** Counts of outputs by kind, and of inputs handled (for GET /admin/state). */
  counts(): Record<string, number>;
}

/** A surface that serves HTTP under a path prefix. */
export type HttpHandler = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

/** A WebSocket surface: handles its connections and can be drained. */
export interface SocketSurface {
  readonly wss: WebSocketServer;
  /** Closes idle connections with `code` now; the rest when `force` (end of the drain). */
  closeIdle(code: number, reason: string): void;
  closeAll(code: number, reason: string): void;
  readonly connectionCount: number;
  /** Releases what the surface holds besides its sockets (worker threads), once closed. */
  dispose?(): void;
}

export interface LiveServerOptions {
  host: string;
  port: number;
  edgeLimit?: EdgeLimitConfig;
  drainMs?: number;
  /** Open WebSocket connections (/ws and /exec together) per source IP (default WEBSOCKETS_PER_IP_MAX); when given, at most connectionsPerIp. */
  websocketsPerIp?: number;
  /** Open TCP connections per source IP, plain HTTP and WebSocket alike (default CONNECTIONS_PER_IP_MAX). */
  connectionsPerIp?: number;
  /** Time a connection has to send a request's complete headers (default HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs?: number;
  /** Time a connection has to send a whole request, body included (default HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** Time an idle keep-alive connection is kept between requests (default HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs?: number;
}

/**
 * Open WebSocket connections per source IP, /ws and /exec together. The
 * specification does not show its limits on connections per client (8.5);
 * a real service has one, and without it one client could hold the server's
 * memory and file descriptors. An upgrade beyond it is answered 429 with no
 * body, as the network-edge limit answers (7.6), and counts again once one
 * of the IP's connections has closed.
 */
export const WEBSOCKETS_PER_IP_MAX = 256;

/**
 * Open TCP connections per source IP, counted when a connection is
 * accepted: plain HTTP, keep-alive and WebSocket alike (a WebSocket is one
 * connection from its upgrade request on). Like WEBSOCKETS_PER_IP_MAX it
 * guards memory and file descriptors against one client, here against one
 * holding thousands of idle or half-sent HTTP connections. Four times the
 * WebSocket limit: a client at that limit still has room for its REST
 * connections (a pooling client needs a few dozen). A connection beyond it
 * is destroyed at once, as a network edge drops it, with no answer (answering
 * would mean reading a request from a client already holding its share), and
 * counts again once one of the IP's connections has closed.
 */
export const CONNECTIONS_PER_IP_MAX = 1_024;

/**
 * Time a connection has to send a request's complete headers, counted from
 * the connection (or, on a kept-alive one, from the request's first byte);
 * then it is answered 408 and closed. This is the slowloris defence: Node's
 * implicit 60 s let a client hold a connection by trickling a header line a
 * minute. A request's headers are one small write (at most 16 KiB, Node's
 * limit), so 10 s is ample even over a slow network.
 */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;

/**
 * Time a connection has to send a whole request, headers and body (a body
 * is at most REST_BODY_LIMIT_BYTES, 64 KiB: at 10 KB/s it arrives in under
 * 7 s); then it is answered 408 and closed. It bounds a slowly trickled
 * body, which the body limit alone does not. Node's implicit value is
 * 300 s. It ends when the request has arrived: a slow answer (the manual
 * clock's long advance, a group commit) does not count.
 */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Time an idle keep-alive connection is kept between requests (advertised
 * in `Keep-Alive: timeout=60`; Node closes it 1 s after that, so that a
 * client reusing it at the last moment is not cut). Node's implicit 5 s
 * makes a client polling every few seconds reconnect for each request;
 * 60 s, the usual idle timeout of load balancers, keeps a polling client's
 * connection warm, and the idle connections one client can hold are bounded
 * by CONNECTIONS_PER_IP_MAX.
 */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 60_000;

/**
 * Node checks the headers and request timeouts on an interval (30 s by
 * default: a 10 s timeout could take 40 s); here a tenth of the shorter
 * timeout, at most this, so a timeout is late by at most a tenth.
 */
export const HTTP_TIMEOUT_CHECK_INTERVAL_MAX_MS = 1_000;

export interface Surfaces {
  rest: HttpHandler;
  admin: HttpHandler;
  stream: SocketSurface;
  exec: ExecSurface;
}

export const SHUTDOWN_DRAIN_MS = 10_000;

export class LiveServer {
  readonly http: Server;
  private ready = true;
  private readonly edge: EdgeLimiter;
  /** Open (or opening) WebSocket connections by source IP; an IP leaves the map with its last one. */
  private readonly websocketsByIp = new Map<string, number>();
  /** Open TCP connections by source IP; an IP leaves the map with its last one. */
  private readonly connectionsByIp = new Map<string, number>();
  private readonly websocketsPerIp: number;
  private readonly connectionsPerIp: number;

  constructor(
    readonly context: LiveContext,
    readonly surfaces: Surfaces,
    private readonly options: LiveServerOptions,
  ) {
    this.edge = new EdgeLimiter(options.edgeLimit ?? DEFAULT_EDGE_LIMIT);
    this.websocketsPerIp = positiveInteger("websocketsPerIp", options.websocketsPerIp ?? WEBSOCKETS_PER_IP_MAX);
    this.connectionsPerIp = positiveInteger("connectionsPerIp", options.connectionsPerIp ?? CONNECTIONS_PER_IP_MAX);
    const headersTimeout = positiveInteger("headersTimeoutMs", options.headersTimeoutMs ?? HTTP_HEADERS_TIMEOUT_MS);
    const requestTimeout = positiveInteger("requestTimeoutMs", options.requestTimeoutMs ?? HTTP_REQUEST_TIMEOUT_MS);
    const keepAliveTimeout = positiveInteger("keepAliveTimeoutMs", options.keepAliveTimeoutMs ?? HTTP_KEEP_ALIVE_TIMEOUT_MS);
    // Only when given: the default WebSocket limit stays above a smaller connectionsPerIp, which then caps WebSockets as well.
    if (options.websocketsPerIp !== undefined) checkPerIpLimits(this.websocketsPerIp, this.connectionsPerIp);
    // The headers are part of the request: Node refuses the other way round too.
    if (headersTimeout > requestTimeout) throw new RangeError(`headersTimeoutMs "${headersTimeout}" is above requestTimeoutMs "${requestTimeout}"`);
    const checkInterval = Math.max(1, Math.min(HTTP_TIMEOUT_CHECK_INTERVAL_MAX_MS, Math.floor(headersTimeout / 10)));
    this.http = createServer({ headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: checkInterval }, (request, response) =>
      this.onRequest(request, response),
    );
    // After Node's own listener (which sets the connection up): a refused one is torn down like any closed connection.
    this.http.on("connection", (socket: Socket) => this.onConnection(socket));
    this.http.on("upgrade", (request, socket, head) => this.onUpgrade(request, socket, head));
  }

  /** Listens; resolves with the bound port (0 = an ephemeral one). */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(this.options.port, this.options.host, () => {
        const address = this.http.address();
        resolve(typeof address === "object" && address !== null ? address.port : this.options.port);
      });
    });
  }

  urls(port: number): { rest: string; stream: string; exec: string } {
    const host = this.options.host.includes(":") ? `[${this.options.host}]` : this.options.host;
    return { rest: `http://${host}:${port}/v2`, stream: `ws://${host}:${port}/ws`, exec: `ws://${host}:${port}/exec` };
  }

  /** Counts a connection of its source IP until it closes, or destroys it when the IP holds its limit. */
  private onConnection(socket: Socket): void {
    if (!countPerIp(this.connectionsByIp, socket.remoteAddress ?? "unknown", this.connectionsPerIp, socket)) socket.destroy();
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    // Until a handler reads the body (readBody), its answer closes the connection: see closeUnlessBodyRead.
    closeUnlessBodyRead(request, response);
    const url = requestUrl(request);
    if (url === null) {
      response.writeHead(400).end();
      return;
    }
    const path = url.pathname;
    try {
      if (path === "/health/live") return void response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      if (path === "/health/ready") {
        const status = this.ready ? 200 : 503;
        return void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ status: this.ready ? "ready" : "draining" }));
      }
      if (path === "/admin" || path.startsWith("/admin/")) return this.surfaces.admin(request, response, url);
      if (path === "/v2" || path.startsWith("/v2/")) {
        // No body (spec 7.6), but the CORS header every /v2 answer carries (rest.ts): a browser client then sees the 429 to back off from.
        if (!this.edge.admit(request.socket.remoteAddress ?? "unknown", Date.now())) return void response.writeHead(429, { "access-control-allow-origin": "*" }).end();
        return this.surfaces.rest(request, response, url);
      }
      if (path === "/ws" || path === "/exec") {
        // A WebSocket endpoint reached without an upgrade (an http:// URL, a plain GET): it exists, so not 404.
        const message = `${path} is a WebSocket endpoint: connect with a WebSocket upgrade (ws:// or wss://)`;
        // A Connection header set here replaces Node's own, which honours a request's "close" (RFC 9112 9.6): keep it.
        const connection = response.shouldKeepAlive ? "Upgrade" : "Upgrade, close";
        return void response.writeHead(426, { "content-type": "application/json", upgrade: "websocket", connection }).end(JSON.stringify({ error: "UPGRADE_REQUIRED", message }));
      }
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "NOT_FOUND", message: `no route ${path}` }));
    } catch (error) {
      internalError(response, error);
    }
  }

  /**
   * A WebSocket upgrade. Node hands the socket over without its own error
   * listener, so one is attached first (a peer that resets the connection
   * must not end the process), and anything that throws here answers 400:
   * nothing in an upgrade request can take the server down. An unknown path
   * is 404; /ws and /exec during the shutdown drain are 503 Service
   * Unavailable, as readiness answers then (spec 6.3): the surface exists,
   * this instance is going away, and the client reconnects elsewhere (a 404
   * told a client reconnecting after its 1001 that the route did not exist).
   */
  private onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    try {
      const url = requestUrl(request);
      if (url === null) {
        socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
        return;
      }
      const path = url.pathname;
      const surface = path === "/ws" ? this.surfaces.stream : path === "/exec" ? this.surfaces.exec : undefined;
      if (surface === undefined) {
        socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
        return;
      }
      if (!this.ready) {
        socket.end("HTTP/1.1 503 Service Unavailable\r\n\r\n");
        return;
      }
      if (!countPerIp(this.websocketsByIp, request.socket.remoteAddress ?? "unknown", this.websocketsPerIp, socket)) {
        socket.end("HTTP/1.1 429 Too Many Requests\r\n\r\n");
        return;
      }
      surface.wss.handleUpgrade(request, socket, head, (ws) => surface.wss.emit("connection", ws, request));
    } catch (error) {
      if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      else socket.destroy();
    }
  }

  /**
   * Graceful shutdown: not ready (503) at once, idle connections closed with
   * 1001, everything closed by the end of the drain; resolves when the HTTP
   * server has closed.
   */
  async shutdown(): Promise<void> {
    this.ready = false;
    const { stream, exec } = this.surfaces;
    stream.closeIdle(1001, "server shutting down");
    exec.closeIdle(1001, "server shutting down");
    const drainMs = this.options.drainMs ?? SHUTDOWN_DRAIN_MS;
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && stream.connectionCount + exec.connectionCount > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stream.closeIdle(1001, "server shutting down");
      exec.closeIdle(1001, "server shutting down");
    }
    // Answers held for the input log's group commit go out before the connections close.
    await new Promise<void>((resolve) => this.context.driver.whenDurable(resolve));
    stream.closeAll(1001, "server shutting down");
    exec.closeAll(1001, "server shutting down");
    stream.dispose?.();
    exec.dispose?.();
    await this.context.driver.close();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}

/**
 * Counts `socket` under `ip` in `openByIp` until it closes (every socket
 * emits close once, however it ends), or returns false, counting nothing,
 * when the IP already holds `max`.
 */
function countPerIp(openByIp: Map<string, number>, ip: string, max: number, socket: Duplex): boolean {
  const open = openByIp.get(ip) ?? 0;
  if (open >= max) return false;
  openByIp.set(ip, open + 1);
  socket.once("close", () => {
    const left = openByIp.get(ip)! - 1;
    if (left === 0) openByIp.delete(ip);
    else openByIp.set(ip, left);
  });
  return true;
}

/** What the per-IP limits are called in a refusal: the options by default, the flags in `shadowbook serve`. */
export interface PerIpLimitNames {
  readonly websocketsPerIp: string;
  readonly connectionsPerIp: string;
}

const PER_IP_OPTION_NAMES: PerIpLimitNames = { websocketsPerIp: "websocketsPerIp", connectionsPerIp: "connectionsPerIp" };

/**
 * Refuses a connection limit below the WebSocket limit: every WebSocket is
 * one of its IP's connections (counted from the upgrade request on), so
 * such a WebSocket limit could never be reached (its 429 never answered:
 * the connection beyond the lower limit is dropped first).
 */
export function checkPerIpLimits(websocketsPerIp: number, connectionsPerIp: number, names: PerIpLimitNames = PER_IP_OPTION_NAMES): void {
  if (connectionsPerIp < websocketsPerIp) {
    throw new RangeError(
      `${names.connectionsPerIp} "${connectionsPerIp}" is below ${names.websocketsPerIp} "${websocketsPerIp}": every WebSocket is also a connection, so the WebSocket limit could never be reached`,
    );
  }
}

/** An option that must be a positive integer (a count or a time in ms): the value, or a RangeError naming it. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} "${value}" is not a positive integer`);
  return value;
}

/** The request target as a URL, or null when it is not one (`//[`, `/\\`: the client's error, answered 400). */
function requestUrl(request: IncomingMessage): URL | null {
  try {
    return new URL(request.url ?? "/", "http://localhost");
  } catch {
    return null;
  }
}

/** HTTP 500 with a ServerError body; never a stack trace. */
export function internalError(response: ServerResponse, error: unknown): void {
  if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", message: "internal error" }));
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

/** True when the request carries a body (a chunked one, or a content-length above 0). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * A request with a body is answered with `connection: close` unless its
 * handler reads the body (readBody takes the header back). A body nobody
 * reads would otherwise be read to its end and thrown away by Node before
 * the connection's next request, so a body streamed forever to a route
 * that takes none (a GET, /health, a 404 or a 405) held the connection
 * until the request timeout (30 s); now it closes once answered.
 */
function closeUnlessBodyRead(request: IncomingMessage, response: ServerResponse): void {
  if (hasBody(request)) response.setHeader("connection", "close");
}

/**
 * Reads a request body of at most `limitBytes`; resolves undefined when it
 * is larger, as soon as that is known: at once when its content-length says
 * so, otherwise when the bytes read pass the limit. The rest of a larger body
 * is never read, so the answer to it closes the connection (`connection:
 * close` on `response`): a body streamed forever is cut there, and not read
 * and thrown away until the request timeout.
 */
export function readBody(request: IncomingMessage, response: ServerResponse, limitBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const refuse = () => {
      response.setHeader("connection", "close");
      resolve(undefined);
    };
    if (Number(request.headers["content-length"] ?? 0) > limitBytes) return refuse();
    // Read to its end, the body no longer stands in the way of the connection's next request.
    response.removeHeader("connection");
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      request.off("data", onData);
      chunks.length = 0;
      refuse();
    };
    request.on("data", onData);
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** Builds the context: the driver's running fingerprint, and counts over the Exchange's outputs. */
export function contextFor(exchange: Exchange, driver: LiveDriver, resyncStreams: () => number): LiveContext {
  const counts: Record<string, number> = {};
  exchange.subscribe((output) => {
    counts[output.kind] = (counts[output.kind] ?? 0) + 1;
  });
  return {
    exchange,
    driver,
    queries: new ExchangeQueries(exchange),
    resyncStreams,
    fingerprint: () => driver.fingerprint(),
    counts: () => ({ ...counts, inputs: driver.inputsHandled }),
  };
}
