/**
 * An agent's whole connection to a live server (`shadowbook serve`, or a
 * service with the same API), and an agent program run over it: what
 * src/sim/agent-host.ts gives an agent in a simulated run, built from the
 * network transports instead of the in-process connection.
 *
 *   const connection = await connectLiveAgent({ url: "http://127.0.0.1:8080", signer: privateKey, accountId: 2 });
 *   const agent = startLiveAgent(marketMaker, { connection, name: "mm", params: { symbol: "ETHRUSDPERP" } });
 *   await agent.started;
 *   ...
 *   agent.stop(); await connection.close();
 *
 * | AgentContext | simulated run (agent-host.ts)  | live (here)                                                  |
 * |--------------|--------------------------------|--------------------------------------------------------------|
 * | client       | client SDK, in-process         | client SDK over httpTransport (POST /v2) or /exec (`orderEntry: "ws"`) |
 * | reads        | in-process reads               | httpReadTransport (GET /v2)                                  |
 * | stream       | in-process stream              | connectWsStream (/ws), one connection per agent             |
 * | markets      | the run's configuration        | GET /v2/perpMarketDefinitions and /v2/spotMarketDefinitions |
 * | now, after   | the kernel's virtual clock     | `timers` (default: the wall clock and setTimeout)           |
 * | rng          | seeded stream `agent:<name>`   | the same stream of `seed` (default 1)                       |
 *
 * The account must exist (on `shadowbook serve`: POST /admin/accounts) and
 * the signer must be its owner or a registered signer. A server on a manual
 * clock (`--clock manual`) keeps virtual time: pass `clock` (and `timers`)
 * reading that time, or the client's deadlines and nonces follow the wall
 * clock and the agent's timers fire in real time.
 *
 * What differs from a simulated run: nothing is latency-modelled (the
 * network is what it is); a stream closed by the server (slow consumer,
 * resync, shutdown) is reported (`onStreamClose`, ws-stream.ts) and not
 * reconnected; an agent's failure (a throw in start, a timer or a handler)
 * goes to `onError` instead of stopping a run (default: rethrown as an
 * uncaught exception).
 *
 * Reconnecting (spec 6.3: after 1013, 1012 or 1001) is a new connection,
 * and so a new client: pass the old one's nonce manager
 * (`nonceManager: old.client.nonces`), and so for every connection of the
 * same signer (several accounts, one wallet). The service keeps one nonce
 * counter per signer and refuses a nonce not above the highest it accepted
 * (INVALID_NONCE_ERROR), while a fresh manager starts again from the clock:
 * on a manual clock that has not moved past the nonces already used, every
 * request of the new connection would be refused (nonce.ts).
 */
import type { Hex } from "viem";
import { createClient, type Client } from "../client.ts";
import { ClientConfigError } from "../errors.ts";
import { createMarketDirectory, type MarketDirectory } from "../markets.ts";
import type { Clock, NonceManager } from "../nonce.ts";
import type { RandomSource, RetryPolicy, Sleep } from "../retry.ts";
import type { ClientSigner } from "../signer.ts";
import type { ReadTransport } from "../transport.ts";
import { RngRoot } from "../../core/rng.ts";
import type { TimerId } from "../../core/scheduler.ts";
import { microsToMillis, type Micros } from "../../core/time.ts";
import type { SigningConfig } from "../../signing/domain.ts";
import type { AgentContext, AgentDefinition, AgentMarket } from "../../sim/agent.ts";
import { httpTransport } from "./http.ts";
import { httpReadTransport } from "./http-reads.ts";
import { connectWsStream, type StreamClose, type WsStream } from "./ws-stream.ts";
import { connectWsTransport, type WsTransport } from "./ws.ts";

export interface ConnectLiveAgentOptions {
  /** The server's base URL (`http://127.0.0.1:8080`): REST at /v2, the stream at /ws, order entry at /exec. */
  readonly url: string;
  /** A private key (0x and 64 hex digits) or a signer, as createClient takes it. */
  readonly signer: Hex | ClientSigner;
  readonly accountId: number;
  /** Order entry over REST (POST /v2/<operation>, default) or the /exec WebSocket. */
  readonly orderEntry?: "rest" | "ws";
  /** The signing domain the server checks (default: the devnet deployment, as `shadowbook serve` without --chain-id/--verifying-contract). */
  readonly signing?: SigningConfig;
  /** Default 1 (`shadowbook serve --exchange-id`). */
  readonly exchangeId?: number;
  /** The client's clock (deadlines, nonces): default the wall clock. A manual-clock server needs its own time here. */
  readonly clock?: Clock;
  /**
   * The signer's nonce manager (createClient's `nonceManager`): give the
   * previous connection's `client.nonces` when reconnecting, and one
   * manager to every connection of one signer (see above). Default: a new
   * one on `clock`.
   */
  readonly nonceManager?: NonceManager;
  /** Retry overrides, or false (createClient). */
  readonly retry?: Partial<RetryPolicy> | false;
  /** Waits between retries (default setTimeout). */
  readonly sleep?: Sleep;
  /** Retry jitter (default Math.random). */
  readonly random?: RandomSource;
  /** The index asset of each perp market (its oracle asset, AgentMarket.asset), which the REST definitions do not carry; by default `<BASE>...PERP` follows asset `<BASE>` or `W<BASE>` (ETHRUSDPERP: WETH). */
  readonly indexAssets?: Readonly<Record<string, string>>;
  /** Called once when the stream connection closes (ws-stream.ts: 1013, 1012, 1001, or lost). */
  readonly onStreamClose?: (close: StreamClose) => void;
  /** Where a stream handler's throw or rejection goes (default: rethrown as an uncaught exception). */
  readonly onHandlerError?: (error: unknown, channel: string) => void;
}

export interface LiveAgentConnection {
  readonly client: Client;
  readonly reads: ReadTransport;
  readonly stream: WsStream;
  /** The signer's address, lowercase (the wallet whose channels and reads the agent uses). */
  readonly wallet: string;
  readonly accountId: number;
  /** The server's markets: perps, then spot markets, in the server's order. */
  readonly markets: readonly AgentMarket[];
  readonly directory: MarketDirectory;
  /** Closes the stream and the order-entry socket (if any). */
  close(): Promise<void>;
}

/** `url` without a trailing slash and with `scheme` for `http`/`https` mapped to ws/wss when `ws`. */
function endpoint(url: string, path: string, ws: boolean): string {
  const base = new URL(url);
  if (ws) base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  base.pathname = `${base.pathname.replace(/\/+$/, "")}${path}`;
  return base.toString().replace(/\/+$/, "");
}

function indexAssetOf(symbol: string, assets: readonly string[], given: Readonly<Record<string, string>> | undefined): string {
  const named = given?.[symbol];
  if (named !== undefined) return named;
  for (const suffix of ["RUSDPERP", "USDPERP", "PERP"]) {
    if (!symbol.endsWith(suffix)) continue;
    const base = symbol.slice(0, -suffix.length);
    for (const candidate of [base, `W${base}`]) if (assets.includes(candidate)) return candidate;
  }
  throw new ClientConfigError(`the index asset of perp market "${symbol}" is not known: give it in indexAssets`);
}

/**
 * The server's markets as agents see them, from the REST definitions (read
 * and decoded by httpReadTransport: a refusal is a RequestFailedError, an
 * answer its schema refuses an InvalidResponseError, a network failure a
 * ConnectionError).
 */
export async function fetchAgentMarkets(restBase: string, indexAssets?: Readonly<Record<string, string>>): Promise<AgentMarket[]> {
  const reads = httpReadTransport(restBase);
  const [perps, spots, assets] = await Promise.all([reads.perpMarketDefinitions(), reads.spotMarketDefinitions(), reads.assetDefinitions()]);
  const assetNames = assets.map((a) => a.asset);
  const pick = (m: Pick<AgentMarket, "symbol" | "marketId" | "tickSize" | "qtyStepSize" | "minOrderQty">) => ({ symbol: m.symbol, marketId: m.marketId, tickSize: m.tickSize, qtyStepSize: m.qtyStepSize, minOrderQty: m.minOrderQty });
  return [
    ...perps.map((m) => Object.freeze({ ...pick(m), kind: "perp" as const, asset: indexAssetOf(m.symbol, assetNames, indexAssets) })),
    ...spots.map((m) => Object.freeze({ ...pick(m), kind: "spot" as const, asset: m.baseAsset })),
  ];
}

/** Connects an agent's client, reads and stream to a live server. */
export async function connectLiveAgent(options: ConnectLiveAgentOptions): Promise<LiveAgentConnection> {
  const rest = endpoint(options.url, "/v2", false);
  const markets = Object.freeze(await fetchAgentMarkets(rest, options.indexAssets));
  const directory = createMarketDirectory({
    perp: markets.filter((m) => m.kind === "perp").map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
    spot: markets.filter((m) => m.kind === "spot").map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  });
  let exec: WsTransport | undefined;
  if (options.orderEntry === "ws") exec = await connectWsTransport(endpoint(options.url, "/exec", true));
  let stream: WsStream;
  try {
    stream = await connectWsStream(endpoint(options.url, "/ws", true), options.onHandlerError === undefined ? {} : { onHandlerError: options.onHandlerError });
  } catch (error) {
    await exec?.close();
    throw error;
  }
  let client: Client;
  try {
    client = createClient({
      transport: exec ?? httpTransport(rest),
      signer: options.signer,
      accountId: options.accountId,
      markets: directory,
      clock: options.clock ?? { now: () => Date.now() * 1_000 },
      ...(options.signing === undefined ? {} : { signing: options.signing }),
      ...(options.exchangeId === undefined ? {} : { exchangeId: options.exchangeId }),
      ...(options.nonceManager === undefined ? {} : { nonceManager: options.nonceManager }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      sleep: options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
      random: options.random ?? Math.random,
    });
  } catch (error) {
    // A refused configuration (a malformed key, a bad accountId or signing config): the sockets opened above would
    // otherwise stay open, unreachable by the caller, and keep the process alive.
    await stream.close();
    await exec?.close();
    throw error;
  }
  if (options.onStreamClose !== undefined) stream.onClose(options.onStreamClose);
  return Object.freeze({
    client,
    reads: httpReadTransport(rest),
    stream,
    wallet: client.signer.address.toLowerCase(),
    accountId: options.accountId,
    markets,
    directory,
    async close() {
      await stream.close();
      await exec?.close();
    },
  });
}

/** The clock and timers an agent runs on live. */
export interface LiveTimers {
  /** Microseconds since the epoch. */
  now(): Micros;
  after(delayMicros: Micros, handler: () => void): TimerId;
  cancel(timer: TimerId): void;
}

/** The wall clock and setTimeout. */
export function wallTimers(): LiveTimers {
  const timers = new Map<TimerId, NodeJS.Timeout>();
  let next = 0;
  return {
    now: () => Date.now() * 1_000,
    after(delayMicros, handler) {
      const id = ++next;
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          handler();
        }, Math.max(0, delayMicros / 1_000)),
      );
      return id;
    },
    cancel(timer) {
      clearTimeout(timers.get(timer));
      timers.delete(timer);
    },
  };
}

export interface StartLiveAgentOptions<P> {
  readonly connection: LiveAgentConnection;
  /** The agent's name (its rng stream is `agent:<name>`, as in a simulated run). */
  readonly name: string;
  /** Laid over the definition's defaults, as a scenario entry's params are. */
  readonly params?: Partial<P>;
  /** Seed of the agent's rng (default 1). */
  readonly seed?: number | string;
  /** Default: wallTimers(). */
  readonly timers?: LiveTimers;
  /** Where a throw in start or a timer goes (default: rethrown as an uncaught exception). */
  readonly onError?: (error: unknown, what: string) => void;
}

export interface LiveAgent<P> {
  readonly context: AgentContext<P>;
  /** The agent's counts (ctx.count). */
  readonly counts: Map<string, number>;
  /** Settles when the agent's start has returned (rejects with its error, which also goes to onError). */
  readonly started: Promise<void>;
  /** Cancels the agent's pending timers (its stream and client stay open: close the connection). */
  stop(): void;
}

/**
 * Runs an agent program against a live server through `connection`:
 * checks its params (checkParams, with the server's markets), builds its
 * context and calls start.
 */
export function startLiveAgent<P>(definition: AgentDefinition<P>, options: StartLiveAgentOptions<P>): LiveAgent<P> {
  const { connection, name } = options;
  const timers = options.timers ?? wallTimers();
  const report =
    options.onError ??
    ((error: unknown) => {
      process.nextTick(() => {
        throw error;
      });
    });
  const params = Object.freeze({ ...definition.defaults, ...options.params }) as P;
  const problem = definition.checkParams?.(params, { markets: connection.markets });
  if (problem !== undefined && problem !== null) throw new ClientConfigError(`agent "${name}" (${definition.kind}): ${problem}`);
  const counts = new Map<string, number>();
  const pending = new Set<TimerId>();
  let stopped = false;
  const run = (what: string, body: () => void | Promise<void>) => {
    try {
      const result = body();
      if (result !== undefined && result !== null && typeof (result as PromiseLike<void>).then === "function") (result as Promise<void>).then(undefined, (error: unknown) => report(error, what));
    } catch (error) {
      report(error, what);
    }
  };
  const context: AgentContext<P> = Object.freeze({
    name,
    params,
    wallet: connection.wallet,
    accountId: connection.accountId,
    client: connection.client,
    reads: connection.reads,
    stream: connection.stream,
    markets: connection.markets,
    rng: new RngRoot(options.seed ?? 1).stream(`agent:${name}`),
    now: () => timers.now(),
    nowMs: () => microsToMillis(timers.now()),
    // A live agent runs until it is stopped.
    endMicros: undefined,
    after(delayMicros: Micros, handler: () => void | Promise<void>): TimerId {
      const id: TimerId = timers.after(Math.max(0, Math.round(delayMicros)), () => {
        pending.delete(id);
        if (!stopped) run("a timer", handler);
      });
      pending.add(id);
      return id;
    },
    cancel(timer: TimerId) {
      pending.delete(timer);
      timers.cancel(timer);
    },
    count(counter: string, by = 1) {
      counts.set(counter, (counts.get(counter) ?? 0) + by);
    },
  });
  const started = (async () => definition.start(context))();
  started.then(undefined, (error: unknown) => report(error, "start"));
  return {
    context,
    counts,
    started,
    stop() {
      stopped = true;
      for (const timer of pending) timers.cancel(timer);
      pending.clear();
    },
  };
}
