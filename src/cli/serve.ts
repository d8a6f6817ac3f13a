/**
 * `shadowbook serve [scenario]`: the live mock server on real sockets.
 *
 * With a scenario, the scenario's markets, accounts, feeds and agents
 * (serve-scenario.ts).
 * Without a scenario it serves the built-in default: ETHRUSDPERP (marketId
 * 1), BTCRUSDPERP (2) and WETHRUSD (spot, 5; signs as 10000000005), rUSD,
 * WETH and WBTC, a moving seeded oracle, and house market makers so books
 * are never empty. `--clock manual` moves time only through
 * POST /admin/clock, and the house acts only then.
 *
 * `--record <dir>` logs every input and every clock step to
 * `<dir>/inputs.arrow` (src/record/live-input-log.ts), which `shadowbook
 * replay` re-executes; with `--durability sync` (the default) an
 * order-entry answer leaves only once its request is on disk.
 *
 * `--edge-limit` and `--slow-consumer-bytes` set the network-edge limit
 * (spec 8.4) and the unsent data that makes a stream client a slow
 * consumer (1013), startLiveServer's edgeLimit and slowConsumerBytes;
 * `--exec-slow-consumer-bytes` the unsent answers that make an order-entry
 * (/exec) client one (execSlowConsumerBytes; at least the largest frame);
 * `--websockets-per-ip`, `--connections-per-ip` and
 * `--subscriptions-per-connection` its websocketsPerIp, connectionsPerIp
 * and subscriptionsPerConnection (defaults: the constants of
 * src/live/server.ts and src/live/stream.ts).
 */
import { createServer } from "node:net";
import { join } from "node:path";
import { millisToMicros, type Micros } from "../core/time.ts";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig, type ExchangeConfig } from "../exchange/config.ts";
import { DEFAULT_EDGE_LIMIT, type EdgeLimitConfig } from "../live/edge-limiter.ts";
import { EXEC_FRAME_BYTES_MAX, EXEC_SLOW_CONSUMER_BYTES_DEFAULT } from "../live/exec.ts";
import { House } from "../live/house.ts";
import { startLiveServer } from "../live/serve.ts";
import { checkPerIpLimits, CONNECTIONS_PER_IP_MAX, WEBSOCKETS_PER_IP_MAX } from "../live/server.ts";
import { SUBSCRIPTIONS_PER_CONNECTION_MAX } from "../live/stream.ts";
import { defaultSignerThreads } from "../live/signer-pool.ts";
import type { ClockMode } from "../live/driver.ts";
import { LIVE_INPUT_LOG_FILE, LiveInputLog, type Durability } from "../record/live-input-log.ts";
import { signingConfig, type SigningConfig } from "../signing/domain.ts";
import { loadScenario } from "../sim/scenario-loader.ts";
import { MAX_START_MS } from "../sim/scenario.ts";
import { LIVE_AGENT_TICK_MS, liveScenario } from "./serve-scenario.ts";
import { stopOnSignals } from "./shutdown.ts";

export interface ServeOptions {
  port: string;
  host: string;
  seed: string;
  clock: string;
  start?: string;
  /** Virtual seconds per real second of the wall clock (default 1); refused with the manual clock. */
  speed?: string;
  chainId?: string;
  verifyingContract?: string;
  exchangeId: string;
  record?: string;
  /** With --record: sync (default) or async; refused without it. */
  durability?: string;
  signerThreads: string;
  edgeLimit: string;
  slowConsumerBytes: string;
  /** Default EXEC_SLOW_CONSUMER_BYTES_DEFAULT (main.ts gives it). */
  execSlowConsumerBytes?: string;
  /** Commander always gives these three (its defaults); absent, the server's default. */
  websocketsPerIp?: string;
  connectionsPerIp?: string;
  subscriptionsPerConnection?: string;
}

/** The fastest wall clock: a virtual day in under a tenth of a second. */
const MAX_SPEED = 1_000_000;

/** More recovery threads than this only take memory and cores from the server (`auto` takes at most 4). */
const MAX_SIGNER_THREADS = 64;

function integerWithin(value: string, flag: string, min: number, max: number): number {
  const number = integer(value, flag, min);
  if (number > max) throw new Error(`${flag} "${value}" is out of range: it must be an integer within [${min}, ${max}]`);
  return number;
}

/**
 * Binds and releases host:port once, before anything is created, so that a
 * host that does not resolve or a port in use is refused with the flag's
 * name, and never after `--record` has opened (and so replaced) a log.
 */
export function checkListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      const why =
        error.code === "EADDRINUSE"
          ? `--port ${port} is in use on ${host}`
          : error.code === "ENOTFOUND" || error.code === "EAI_AGAIN" || error.code === "EADDRNOTAVAIL"
            ? `--host "${host}" is not an address of this machine`
            : error.code === "EACCES"
              ? `port ${port} needs privileges (use one above 1023, or 0 for any free port)`
              : `cannot listen on ${host}:${port}: ${error.message}`;
      reject(new Error(why));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function integer(value: string, flag: string, min = 0): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new Error(`${flag} "${value}" must be an integer of at least ${min}`);
  }
  return Number(value);
}

/**
 * `--edge-limit <n>`: /v2 requests per source IP per fixed window (the
 * default window, 60 s), then HTTP 429; 0 turns the limit off (a window
 * nothing can fill).
 */
function edgeLimit(value: string): EdgeLimitConfig {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new Error(`--edge-limit "${value}" must be a whole number of requests per ${DEFAULT_EDGE_LIMIT.windowMs / 1000} s window (0: no limit)`);
  }
  const requests = Number(value);
  return { ...DEFAULT_EDGE_LIMIT, requestsPerWindow: requests === 0 ? Number.POSITIVE_INFINITY : requests };
}

/**
 * The input log of `--record <dir>`: `<dir>/inputs.arrow`, replayable with
 * `shadowbook replay`. A failure to write it ends the server: answers wait
 * for it (sync durability), and a log with a hole could not replay.
 */
function inputLog(directory: string, durabilityFlag: string, run: { config: ExchangeConfig; seed: string; startMicros: Micros; scenario: string }): LiveInputLog {
  if (durabilityFlag !== "sync" && durabilityFlag !== "async") throw new Error(`--durability "${durabilityFlag}" must be sync or async`);
  const seed = Number(run.seed);
  // Tests widen the group-commit window with this, to tell an answer that waited for the log from one that did not.
  const windowMs = process.env["SHADOWBOOK_GROUP_COMMIT_MS"];
  try {
    return liveInputLog(directory, run, seed, durabilityFlag as Durability, windowMs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const path = join(directory, LIVE_INPUT_LOG_FILE);
    throw new Error(`--record "${directory}": ${path} already holds a recorded session's log, which --record never overwrites: replay it or move it away, or record into another directory`, { cause: error });
  }
}

function liveInputLog(directory: string, run: { config: ExchangeConfig; startMicros: Micros; scenario: string }, seed: number, durability: Durability, windowMs: string | undefined): LiveInputLog {
  return new LiveInputLog(directory, {
    ...run,
    seed,
    ...(windowMs === undefined ? {} : { groupCommitMs: integer(windowMs, "SHADOWBOOK_GROUP_COMMIT_MS") }),
    signatures: run.config.gateway.verifySignatures ? "signed" : "trusted",
    durability,
    onError: (error) => {
      console.error(`${error.message}: stopping the server (answers wait for the log)`);
      process.exit(1);
    },
  });
}

function durabilityNote(log: LiveInputLog): string {
  return log.durability === "sync"
    ? `durability: sync, group commit every ≤${log.groupCommitMs} ms`
    : "durability: async: answers do not wait for the log; a crash may lose the last few ms of answered requests";
}

/** The signing config fields the flags set, by field name: signingConfig's refusals are reworded to name the flag. */
const SIGNING_FLAGS = { verifyingChainId: "--chain-id", verifyingContract: "--verifying-contract" } as const;

/** The signing domain of --chain-id and --verifying-contract, checked by signingConfig (one source of the rules), refused naming the flag. */
function signingFromFlags(options: ServeOptions): SigningConfig {
  const overrides = {
    ...(options.chainId === undefined ? {} : { verifyingChainId: BigInt(integer(options.chainId, "--chain-id")) }),
    ...(options.verifyingContract === undefined ? {} : { verifyingContract: options.verifyingContract as `0x${string}` }),
  };
  try {
    return signingConfig(overrides);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const field = Object.keys(SIGNING_FLAGS).find((name) => message.startsWith(`${name} `)) as keyof typeof SIGNING_FLAGS | undefined;
    throw new Error(field === undefined ? message : SIGNING_FLAGS[field] + message.slice(field.length));
  }
}

/**
 * `--seed`: a non-negative integer in plain digits, as `run` and `fuzz` take
 * it (and as an input log keeps it, a number); returned as its text, which
 * seeds the house agents' streams.
 */
function serveSeed(value: string): string {
  if (!/^(0|[1-9]\d*)$/.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`--seed "${value}" must be a non-negative integer without leading zeros`);
  return value;
}

export async function serve(options: ServeOptions, scenarioArgument?: string): Promise<void> {
  if (options.clock !== "wall" && options.clock !== "manual") throw new Error(`--clock "${options.clock}" must be wall or manual`);
  const clock = options.clock as ClockMode;
  const speed = Number(options.speed ?? "1");
  if (!(speed > 0) || speed > MAX_SPEED) throw new Error(`--speed "${options.speed}" must be a positive number of at most ${MAX_SPEED}`);
  // A flag that would do nothing is refused rather than ignored (as replay refuses --clock without --serve).
  if (options.speed !== undefined && clock === "manual") throw new Error(`--speed "${options.speed}" applies to the wall clock only: the manual clock moves by POST /admin/clock`);
  if (options.durability !== undefined && options.record === undefined) throw new Error(`--durability "${options.durability}" applies to --record only: without it nothing is logged`);
  const seed = serveSeed(options.seed);
  const edge = edgeLimit(options.edgeLimit);
  const slowConsumerBytes = integer(options.slowConsumerBytes, "--slow-consumer-bytes");
  // An answer echoes its request's id, so one answer can be as large as the largest frame: a smaller bound would close a client that reads.
  const execSlowConsumerBytes = integerWithin(options.execSlowConsumerBytes ?? String(EXEC_SLOW_CONSUMER_BYTES_DEFAULT), "--exec-slow-consumer-bytes", EXEC_FRAME_BYTES_MAX, Number.MAX_SAFE_INTEGER);
  const websocketsPerIp = integer(options.websocketsPerIp ?? String(WEBSOCKETS_PER_IP_MAX), "--websockets-per-ip", 1);
  const connectionsPerIp = integer(options.connectionsPerIp ?? String(CONNECTIONS_PER_IP_MAX), "--connections-per-ip", 1);
  const subscriptionsPerConnection = integer(options.subscriptionsPerConnection ?? String(SUBSCRIPTIONS_PER_CONNECTION_MAX), "--subscriptions-per-connection", 1);
  // As startLiveServer does: only a WebSocket limit the user gave must fit under the connection limit (a lower
  // connection limit alone simply caps WebSockets too).
  if (options.websocketsPerIp !== undefined) checkPerIpLimits(websocketsPerIp, connectionsPerIp, { websocketsPerIp: "--websockets-per-ip", connectionsPerIp: "--connections-per-ip" });
  const startMicros = millisToMicros(options.start === undefined ? Date.now() : integerWithin(options.start, "--start", 0, MAX_START_MS));
  const signing = signingFromFlags(options);
  const exchangeId = integer(options.exchangeId, "--exchange-id");
  // Every flag is checked before anything is created (a bad --port must not leave a --record log behind).
  const port = integerWithin(options.port, "--port", 0, 65_535);
  const signerThreads = options.signerThreads === "auto" ? defaultSignerThreads() : integerWithin(options.signerThreads, "--signer-threads", 0, MAX_SIGNER_THREADS);
  await checkListen(options.host, port);
  const loaded = scenarioArgument === undefined ? undefined : await loadScenario(scenarioArgument);
  const scenario = loaded === undefined ? undefined : liveScenario(loaded.scenario, loaded.paths, { signing }, exchangeId, integer(seed, "--seed"));
  const base = defaultExchangeConfig(signing);
  const config = scenario?.config ?? { ...base, risk: { ...base.risk, exchangeId }, gateway: { ...DEFAULT_GATEWAY_CONFIG, exchangeId } };
  const log = options.record === undefined ? undefined : inputLog(options.record, options.durability ?? "sync", { config, seed, startMicros, scenario: loaded?.scenario.name ?? "serve" });
  let house: House | undefined;
  const running = await startLiveServer({
    config,
    seed,
    host: options.host,
    port,
    clock,
    startMicros,
    speed,
    edgeLimit: edge,
    slowConsumerBytes,
    execSlowConsumerBytes,
    websocketsPerIp,
    connectionsPerIp,
    subscriptionsPerConnection,
    ...(log === undefined ? {} : { log }),
    signerThreads,
    onAdvance: (now) => (scenario === undefined ? house?.tick(now) : scenario.advance(now)),
    setup: (context) => {
      if (scenario !== undefined) {
        scenario.setup(context);
        return;
      }
      house = new House(context.driver, config, { seed });
      house.open();
    },
  });
  if (clock === "wall" && scenario === undefined) setInterval(() => house?.tick(running.context.driver.now()), 250).unref();
  if (clock === "wall" && scenario !== undefined) setInterval(() => scenario.advance(running.context.driver.now()), LIVE_AGENT_TICK_MS).unref();
  const { rest, stream, exec } = running.urls;
  const world = loaded === undefined ? "built-in markets and house market makers" : `scenario ${loaded.scenario.name} (${scenario!.agentCount} agents)`;
  console.log(`shadowbook serve: ${world}, ${clock} clock${clock === "wall" ? ` x${speed}` : ""}, seed ${seed}, exchangeId ${exchangeId}`);
  console.log(`  REST          ${rest}`);
  console.log(`  streaming     ${stream}`);
  console.log(`  order entry   ${exec}`);
  if (log !== undefined) console.log(`  recording to  ${log.path} (${durabilityNote(log)})`);
  stopOnSignals(running);
}
