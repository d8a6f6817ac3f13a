/**
 * Assembles a live mock server: an Exchange from a configuration, a driver
 * on the chosen clock, the four surfaces on one port, and (optionally) the
 * input log. `shadowbook serve` and the conformance tests both start servers
 * through `startLiveServer`.
 */
import type { Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import { Exchange } from "../exchange/exchange.ts";
import { createAdminHandler } from "./admin.ts";
import { LiveDriver, type ClockMode, type InputLog } from "./driver.ts";
import { createExecSurface, type ExecSurface } from "./exec.ts";
import { tuneHeapForServing } from "./heap-tuning.ts";
import { createRestHandler } from "./rest.ts";
import { contextFor, LiveServer, type LiveContext } from "./server.ts";
import { createStreamSurface } from "./stream.ts";
import type { EdgeLimitConfig } from "./edge-limiter.ts";

export interface StartOptions {
  config: ExchangeConfig;
  seed: number | string;
  host?: string;
  /** 0 = an ephemeral port. */
  port?: number;
  clock?: ClockMode;
  startMicros: Micros;
  speed?: number;
  /** Where every step goes (`serve --record`: src/record/live-input-log.ts); made durable and closed by `close()`. */
  log?: InputLog;
  edgeLimit?: EdgeLimitConfig;
  /** Unsent bytes on a stream connection before it is closed with 1013 (default 1 MB). */
  slowConsumerBytes?: number;
  /** Unsent answer bytes on an order-entry (/exec) connection before it is closed with 1013 (default EXEC_SLOW_CONSUMER_BYTES_DEFAULT, exec.ts). */
  execSlowConsumerBytes?: number;
  /** Channels one stream connection may hold at once (default SUBSCRIPTIONS_PER_CONNECTION_MAX, stream.ts). */
  subscriptionsPerConnection?: number;
  drainMs?: number;
  /** Open WebSocket connections per source IP (default WEBSOCKETS_PER_IP_MAX, server.ts); when given, at most connectionsPerIp (checkPerIpLimits). */
  websocketsPerIp?: number;
  /** Open TCP connections per source IP, plain HTTP and WebSocket alike (default CONNECTIONS_PER_IP_MAX, server.ts). */
  connectionsPerIp?: number;
  /** HTTP timeouts (defaults HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS, server.ts). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Worker threads recovering WebSocket order-entry signatures behind a backlog in signed mode (default 0: none; exec.ts says when they pay). */
  signerThreads?: number;
  /** Signed mode: check WebSocket order-entry signatures on the add-on's confirmer thread when it can (default true; exec.ts, early-confirm.ts). */
  earlyConfirm?: boolean;
  /** Runs once the server is assembled, before it listens (seed accounts, prices, agents). */
  setup?: (context: LiveContext) => void;
  /** Called whenever virtual time moved (inputs, wake-ups, the manual clock): in-process agents act here. */
  onAdvance?: (nowMicros: Micros) => void;
  /**
   * Serve this Exchange instead of a fresh one (`shadowbook replay --serve`:
   * one replayed to a time); `config` and `seed` must be the ones it was
   * made with, and `startMicros` must not be before its clock.
   */
  exchange?: Exchange;
}

export interface RunningServer {
  readonly server: LiveServer;
  /** The order-entry surface (its bounds: exec.ts). */
  readonly exec: ExecSurface;
  readonly context: LiveContext;
  readonly port: number;
  readonly urls: { rest: string; stream: string; exec: string };
  close(): Promise<void>;
}

export async function startLiveServer(options: StartOptions): Promise<RunningServer> {
  tuneHeapForServing();
  const exchange = options.exchange ?? new Exchange({ config: options.config, startMicros: options.startMicros, seed: options.seed });
  if (options.startMicros < exchange.now()) throw new RangeError(`startMicros ${options.startMicros} is before the Exchange's time ${exchange.now()}`);
  // A log replays from the configuration and seed alone: it must start with the Exchange.
  if (options.log !== undefined && options.exchange !== undefined) throw new Error("an input log records a fresh Exchange: log and exchange cannot both be given");
  let resync = () => 0;
  const driver = new LiveDriver(exchange, {
    clock: options.clock ?? "wall",
    startMicros: options.startMicros,
    speed: options.speed ?? 1,
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.onAdvance === undefined ? {} : { onAdvance: options.onAdvance }),
  });
  const context = contextFor(exchange, driver, () => resync());
  const stream = createStreamSurface(context, {
    slowConsumerBytes: options.slowConsumerBytes ?? 1024 * 1024,
    ...(options.subscriptionsPerConnection === undefined ? {} : { subscriptionsPerConnection: options.subscriptionsPerConnection }),
  });
  resync = () => stream.resync();
  const exec = createExecSurface(context, {
    ...(options.signerThreads === undefined ? {} : { signerThreads: options.signerThreads }),
    ...(options.earlyConfirm === undefined ? {} : { earlyConfirm: options.earlyConfirm }),
    ...(options.execSlowConsumerBytes === undefined ? {} : { slowConsumerBytes: options.execSlowConsumerBytes }),
  });
  const server = new LiveServer(
    context,
    { rest: createRestHandler(context), admin: createAdminHandler(context), stream, exec },
    {
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 0,
      ...(options.edgeLimit === undefined ? {} : { edgeLimit: options.edgeLimit }),
      ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
      ...(options.websocketsPerIp === undefined ? {} : { websocketsPerIp: options.websocketsPerIp }),
      ...(options.connectionsPerIp === undefined ? {} : { connectionsPerIp: options.connectionsPerIp }),
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      ...(options.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeoutMs: options.keepAliveTimeoutMs }),
    },
  );
  options.setup?.(context);
  const port = await server.listen();
  driver.start();
  return { server, exec, context, port, urls: server.urls(port), close: () => server.shutdown() };
}
