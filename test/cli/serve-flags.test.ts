/**
 * The flags of `shadowbook serve`, each by its effect over real sockets on
 * the real command (`node bin/shadowbook.mjs serve --port 0 ...` in a child
 * process, as in serve-signals.test.ts):
 *  - `--host`: the three printed URLs (REST /v2, streaming /ws, order entry
 *    /exec) carry it, answer on it, and nothing listens on another address;
 *  - `--exchange-id`, `--chain-id`, `--verifying-contract`: what the server
 *    accepts (a request signed for its domain and carrying its exchangeId is
 *    accepted, over REST and over /exec; one signed for another domain is
 *    UNAUTHORIZED_SIGNATURE_ERROR, another exchangeId INPUT_VALIDATION_ERROR)
 *    and what it reports (the exchangeId of the orders it lists; the chain
 *    id and the contract are reported nowhere);
 *  - `--seed`: the same seed is the same world (fingerprint), another seed
 *    other prices; `--start`: the initial virtual time;
 *  - `--clock wall --speed 10`: virtual time runs at ten times real time and
 *    the house acts with no request;
 *  - `--edge-limit`: the /v2 limit per source IP (0: none); `--slow-consumer-bytes`:
 *    the unsent data that closes a /ws client with 1013; both validated and
 *    in `serve --help`.
 * And the edge limit keyed by source IP over real sockets (startLiveServer
 * in-process, requests from 127.0.0.1 and 127.0.0.2).
 *
 * Every server is started at once in beforeAll (most of the time is their
 * start); the tests then run in order, and the seed comparison comes first,
 * before any later test adds inputs to its servers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { EXEC_FRAME_BYTES_MAX } from "../../src/live/exec.ts";
import { canBind } from "../conformance/helpers/sockets.ts";
import { createClient, type Client } from "../../src/client/client.ts";
import { RequestFailedError } from "../../src/client/errors.ts";
import { createMarketDirectory } from "../../src/client/markets.ts";
import { httpTransport } from "../../src/client/transports/http.ts";
import { connectWsTransport, type WsTransport } from "../../src/client/transports/ws.ts";
import { serve, type ServeOptions } from "../../src/cli/serve.ts";
import { millisToMicros } from "../../src/core/time.ts";
import { DEFAULT_MARKETS, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG, signingConfig, type SigningConfig } from "../../src/signing/domain.ts";
import { StreamClient } from "../conformance/helpers/stream-client.ts";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.ts";

const BIN = fileURLToPath(new URL("../../bin/shadowbook.mjs", import.meta.url));
const START_MS = 1_767_225_600_000;
const EXCHANGE_ID = 7;
const CHAIN_ID = 5n;
const CONTRACT = "0x00000000000000000000000000000000000c0de5";
const SMALL_SLOW_CONSUMER_BYTES = 64 * 1024;

const LOOPBACK_2 = await canBind("127.0.0.2");
const OTHER_HOST = LOOPBACK_2 ? "127.0.0.2" : "127.0.0.1";

// -- the command in a child process ---------------------------------------------------------

/** The server, and when it was spawned (wall clock, for the --speed check); `banner` is its first line only. */
type Served = ServeProcess & { readonly spawnedAtMs: number };

const children: ChildProcess[] = [];

/** Runs `shadowbook <args>` to its end: exit code and output. */
function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** Starts `shadowbook serve --port 0 --signer-threads 0 <args>` and reads the three URLs it prints. */
async function startServe(args: readonly string[]): Promise<Served> {
  const spawnedAtMs = Date.now();
  const served = await spawnServe({ via: "bin", args: ["--port", "0", "--signer-threads", "0", ...args], detached: true, readyTimeoutMs: 40_000 });
  children.push(served.child);
  return { ...served, spawnedAtMs, banner: served.banner.split("\n")[0]! };
}

/** SIGTERM and the exit (the drain is immediate with no connection left). */
async function stop(served: Served | undefined): Promise<void> {
  if (served === undefined || served.child.exitCode !== null) return;
  served.child.kill("SIGTERM");
  await Promise.race([served.exited, new Promise((resolve) => setTimeout(resolve, 12_000))]);
}

// -- HTTP ------------------------------------------------------------------------------------

async function getJson(url: string): Promise<any> {
  const response = await fetch(url);
  expect(response.status, `GET ${url}`).toBe(200);
  return response.json();
}

async function postJson(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, `POST ${url}: ${text}`).toBe(200);
  return JSON.parse(text);
}

interface State {
  virtualTime: number;
  fingerprint: string;
  counts: Record<string, number>;
}

const state = (served: Served): Promise<State> => getJson(`${served.origin}/admin/state`);
const advance = (served: Served, advanceMs: number): Promise<{ virtualTime: number }> => postJson(`${served.origin}/admin/clock`, { advanceMs });

/** One plain HTTP GET from a chosen local address (no keep-alive): status and body. */
function getFrom(localAddress: string, port: number, path: string, host = "127.0.0.1"): Promise<{ status: number; body: string; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, localAddress, agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode!, body, contentType: response.headers["content-type"] }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Whether anything accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

// -- signed order entry through the client SDK --------------------------------------------------

const MARKETS = createMarketDirectory({
  perp: DEFAULT_MARKETS.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  spot: DEFAULT_MARKETS.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
});
const MANUAL_CLOCK = { now: () => millisToMicros(START_MS) };
const TARGET_DOMAIN = signingConfig({ verifyingChainId: CHAIN_ID, verifyingContract: CONTRACT });

function key(n: number): `0x${string}` {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

function client(transport: Client["transport"], keyNumber: number, accountId: number, signing: SigningConfig, exchangeId: number): Client {
  return createClient({ transport, signer: key(keyNumber), accountId, markets: MARKETS, clock: MANUAL_CLOCK, signing, exchangeId, retry: false });
}

/** A post-only bid far below the market: rests, never trades. */
const RESTING_BID = { symbol: "ETHRUSDPERP", isBuy: true, qty: "0.01", limitPx: "100", timeInForce: "GTC", postOnly: true } as const;

async function refusal(attempt: Promise<unknown>): Promise<RequestFailedError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RequestFailedError);
  return error as RequestFailedError;
}

// -- the servers ---------------------------------------------------------------------------

/** --host 127.0.0.2, the target domain and exchangeId, a small slow-consumer limit. */
let domain: Served;
/** --host 127.0.0.1 (default domain), seed 11, no edge limit, a huge slow-consumer limit. */
let twinA: Served;
/** Seed 11 again, an edge limit of 3. */
let twinB: Served;
/** Seed 12. */
let otherSeed: Served;
/** --clock wall --speed 10. */
let wall: Served;
let help: Promise<{ code: number | null; stdout: string; stderr: string }>;

const MANUAL = ["--clock", "manual", "--start", String(START_MS)];

beforeAll(async () => {
  help = run(["serve", "--help"]);
  [domain, twinA, twinB, otherSeed, wall] = await Promise.all([
    startServe([...MANUAL, "--host", OTHER_HOST, "--seed", "11", "--exchange-id", String(EXCHANGE_ID), "--chain-id", String(CHAIN_ID), "--verifying-contract", CONTRACT, "--slow-consumer-bytes", String(SMALL_SLOW_CONSUMER_BYTES)]),
    startServe([...MANUAL, "--host", "127.0.0.1", "--seed", "11", "--edge-limit", "0", "--slow-consumer-bytes", String(1 << 30)]),
    startServe([...MANUAL, "--seed", "11", "--edge-limit", "3"]),
    startServe([...MANUAL, "--seed", "12"]),
    startServe(["--clock", "wall", "--speed", "10", "--start", String(START_MS)]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([domain, twinA, twinB, otherSeed, wall].map(stop));
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // the group is gone
    }
  }
}, 20_000);

// -- the tests -------------------------------------------------------------------------------

describe("--seed and --start", () => {
  it("starts at --start; the same seed is the same world, another seed other prices", async () => {
    const initial = await Promise.all([twinA, twinB, otherSeed, domain].map(state));
    for (const s of initial) expect(s.virtualTime).toBe(START_MS);
    expect(initial[0]!.fingerprint).toBe(initial[1]!.fingerprint);

    for (const served of [twinA, twinB, otherSeed]) expect((await advance(served, 10_000)).virtualTime).toBe(START_MS + 10_000);
    const [a, b, other] = await Promise.all([twinA, twinB, otherSeed].map(state));
    expect(a!.counts.inputs).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(other!.fingerprint).not.toBe(a!.fingerprint);

    // twinB has an edge limit of 3: its prices are not read here (its fingerprint above covers them).
    const prices = async (served: Served) => new Map(((await getJson(`${served.rest}/assetOraclePrices`)) as { asset: string; oraclePrice: string }[]).map((p) => [p.asset, p.oraclePrice]));
    const [pricesA, pricesOther] = await Promise.all([prices(twinA), prices(otherSeed)]);
    expect([...pricesA.keys()].sort()).toEqual(["WBTC", "WETH"]);
    for (const [asset, price] of pricesA) expect(pricesOther.get(asset), asset).not.toBe(price);
  });
});

describe("--host and the printed URLs", () => {
  it("prints REST, streaming and order-entry URLs on the chosen host, each answering there, and listens nowhere else", async () => {
    for (const [served, host] of [
      [twinA, "127.0.0.1"],
      [domain, OTHER_HOST],
    ] as const) {
      const port = served.port;
      expect(port).toBeGreaterThan(0);
      expect(served.rest).toBe(`http://${host}:${port}/v2`);
      expect(served.stream).toBe(`ws://${host}:${port}/ws`);
      expect(served.exec).toBe(`ws://${host}:${port}/exec`);
      expect(await getJson(`${served.rest}/feeTiers`)).toEqual(expect.any(Array));

      const stream = await StreamClient.connect(served.stream);
      const subscribed = await stream.subscribeAndWait("/v2/assetOraclePrices");
      expect(subscribed.type).toBe("subscribed");
      stream.socket.close();

      const exec = new WebSocket(served.exec);
      const pong = await new Promise<any>((resolve, reject) => {
        exec.once("open", () => exec.send(JSON.stringify({ type: "ping", id: "p1" })));
        exec.once("message", (data) => resolve(JSON.parse(String(data))));
        exec.once("error", reject);
      });
      expect(pong).toEqual({ type: "pong", id: "p1" });
      exec.close();
    }
    if (LOOPBACK_2) expect(await accepts("127.0.0.1", domain.port)).toBe(false);
    expect(await accepts("127.0.0.2", twinA.port)).toBe(false);
  });
});

describe("--exchange-id, --chain-id and --verifying-contract", () => {
  it("accept what is signed for the configured domain and carries the configured exchangeId, and refuse the rest", async () => {
    expect(domain.banner).toContain(`exchangeId ${EXCHANGE_ID}`);
    const rest = httpTransport(domain.rest);
    const trader = client(rest, 11, 20, TARGET_DOMAIN, EXCHANGE_ID);
    await postJson(`${domain.origin}/admin/accounts`, { wallet: trader.address, accountId: 20, deposits: { rUSD: "10000" } });

    const accepted = await trader.createOrder(RESTING_BID);
    expect(accepted.status).toBe("OPEN");
    // Reported: the order carries the server's exchangeId.
    const open = (await getJson(`${domain.rest}/wallet/${trader.address}/openOrders`)) as { orderId: string; exchangeId: number }[];
    expect(open.map((o) => [o.orderId, o.exchangeId])).toEqual([[accepted.orderId, EXCHANGE_ID]]);

    // Signed for the default domain, or with only one of the two flags' values: the recovered signer differs.
    const wrongDomains = [DEFAULT_SIGNING_CONFIG, signingConfig({ verifyingChainId: CHAIN_ID }), signingConfig({ verifyingContract: CONTRACT })];
    for (const [i, signing] of wrongDomains.entries()) {
      const other = client(rest, 12 + i, 20, signing, EXCHANGE_ID);
      const error = await refusal(other.createOrder(RESTING_BID));
      expect(error.code, `domain ${i}`).toBe("UNAUTHORIZED_SIGNATURE_ERROR");
    }
    // The right domain and the default exchangeId (1).
    const defaultId = await refusal(client(rest, 11, 20, TARGET_DOMAIN, 1).createOrder(RESTING_BID));
    expect(defaultId.code).toBe("INPUT_VALIDATION_ERROR");
    expect(defaultId.requestError.message).toContain("exchangeId");

    // The same over the printed order-entry URL.
    const ws: WsTransport = await connectWsTransport(domain.exec);
    try {
      const viaWs = client(ws, 21, 21, TARGET_DOMAIN, EXCHANGE_ID);
      await postJson(`${domain.origin}/admin/accounts`, { wallet: viaWs.address, accountId: 21, deposits: { rUSD: "10000" } });
      expect((await viaWs.createOrder(RESTING_BID)).status).toBe("OPEN");
      const refused = await refusal(client(ws, 22, 21, DEFAULT_SIGNING_CONFIG, EXCHANGE_ID).createOrder(RESTING_BID));
      expect(refused.code).toBe("UNAUTHORIZED_SIGNATURE_ERROR");
    } finally {
      await ws.close();
    }
  });

  it("without them the server takes the default domain and exchangeId 1, and refuses the other domain", async () => {
    expect(twinA.banner).toContain("exchangeId 1");
    const rest = httpTransport(twinA.rest);
    const trader = client(rest, 31, 30, DEFAULT_SIGNING_CONFIG, 1);
    await postJson(`${twinA.origin}/admin/accounts`, { wallet: trader.address, accountId: 30, deposits: { rUSD: "10000" } });
    expect((await trader.createOrder(RESTING_BID)).status).toBe("OPEN");
    expect((await refusal(client(rest, 32, 30, TARGET_DOMAIN, 1).createOrder(RESTING_BID))).code).toBe("UNAUTHORIZED_SIGNATURE_ERROR");
    expect((await refusal(client(rest, 31, 30, DEFAULT_SIGNING_CONFIG, EXCHANGE_ID).createOrder(RESTING_BID))).code).toBe("INPUT_VALIDATION_ERROR");
  });
});

describe("--clock wall --speed 10", () => {
  it("runs virtual time at ten times real time from --start, and the house acts with no request", async () => {
    const sentFirst = Date.now();
    const first = await state(wall);
    const prices0 = (await getJson(`${wall.rest}/assetOraclePrices`)) as { asset: string; updatedAt: number }[];
    const gotFirst = Date.now();
    // It started at --start (at most the real time since the spawn, x 10, ago).
    expect(first.virtualTime).toBeGreaterThanOrEqual(START_MS);
    expect(first.virtualTime).toBeLessThanOrEqual(START_MS + (gotFirst - wall.spawnedAtMs) * 10);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const sentSecond = Date.now();
    const second = await state(wall);
    const prices1 = (await getJson(`${wall.rest}/assetOraclePrices`)) as { asset: string; updatedAt: number }[];
    const gotSecond = Date.now();

    // Virtual elapsed / 10 lies between the shortest and longest real intervals between the two readings (plus a tick).
    const virtualMs = second.virtualTime - first.virtualTime;
    expect(virtualMs).toBeGreaterThanOrEqual((sentSecond - gotFirst) * 10 - 50);
    expect(virtualMs).toBeLessThanOrEqual((gotSecond - sentFirst) * 10 + 50);
    expect(virtualMs).toBeGreaterThanOrEqual(9_000);

    // No input was sent, yet the house moved the oracle and requoted (its orders are inputs).
    expect(second.counts.inputs!).toBeGreaterThan(first.counts.inputs!);
    expect(second.fingerprint).not.toBe(first.fingerprint);
    const updated0 = new Map(prices0.map((p) => [p.asset, p.updatedAt]));
    for (const price of prices1) expect(price.updatedAt, price.asset).toBeGreaterThan(updated0.get(price.asset)!);
  });
});

describe("--edge-limit", () => {
  it("limits /v2 per source IP from the CLI: 429 with no body after the limit, another source still served, /admin and /health exempt", async () => {
    for (let i = 0; i < 3; i++) expect((await getFrom("127.0.0.1", twinB.port, "/v2/feeTiers")).status).toBe(200);
    const limited = await getFrom("127.0.0.1", twinB.port, "/v2/feeTiers");
    expect(limited).toEqual({ status: 429, body: "", contentType: undefined });
    expect((await getFrom("127.0.0.1", twinB.port, "/admin/state")).status).toBe(200);
    expect((await getFrom("127.0.0.1", twinB.port, "/health/live")).status).toBe(200);
    if (LOOPBACK_2) expect((await getFrom("127.0.0.2", twinB.port, "/v2/feeTiers")).status).toBe(200);
  });

  it("0 turns it off: well over the default 1,000 requests from one source are all served", async () => {
    let served = 0;
    for (let batch = 0; batch < 21; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${twinA.rest}/feeTiers`).then(async (r) => (await r.arrayBuffer(), r.status))));
      served += answers.filter((status) => status === 200).length;
    }
    expect(served).toBe(1_050);
  });
});

describe("--slow-consumer-bytes", () => {
  /** Fills a wallet's ledger (so its transfers snapshot is ~20 KB), then floods a client that stops reading. */
  async function flood(served: Served, accountId: number, keyNumber: number): Promise<{ client: StreamClient; subscribes: number }> {
    const wallet = client(httpTransport(served.rest), keyNumber, accountId, DEFAULT_SIGNING_CONFIG, 1).address;
    await postJson(`${served.origin}/admin/accounts`, { wallet, accountId });
    for (let i = 0; i < 10; i++) {
      await Promise.all(Array.from({ length: 10 }, () => postJson(`${served.origin}/admin/deposits`, { accountId, asset: "rUSD", amount: "1" })));
    }
    const slow = await StreamClient.connect(served.stream);
    const channel = `/v2/wallet/${wallet}/transfers`;
    const snapshotBytes = JSON.stringify(await slow.subscribeAndWait(channel)).length;
    expect(snapshotBytes).toBeGreaterThan(10_000);
    slow.tcp.pause();
    const subscribes = Math.ceil((16 * 1024 * 1024) / snapshotBytes); // far beyond the kernel's socket buffers
    for (let i = 0; i < subscribes; i++) slow.subscribe(channel);
    return { client: slow, subscribes };
  }

  it("a /ws client that stops reading is closed with 1013 past a small limit, and kept under a large one", async () => {
    const [small, large] = await Promise.all([flood(domain, 40, 41), flood(twinA, 40, 41)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    small.client.tcp.resume();
    large.client.tcp.resume();
    expect(await small.client.closedWithin(10_000)).toEqual({ code: 1013, reason: "slow consumer" });
    expect(small.client.received.length).toBeLessThan(small.subscribes);

    const deadline = Date.now() + 15_000;
    while (large.client.received.length < large.subscribes + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(large.client.received.filter((f) => f.type === "subscribed")).toHaveLength(large.subscribes + 1);
    expect(large.client.socket.readyState).toBe(WebSocket.OPEN);
    large.client.socket.close();
  }, 30_000);
});

describe("validation and help", () => {
  const valid: ServeOptions = { port: "0", host: "127.0.0.1", seed: "1", clock: "manual", exchangeId: "1", signerThreads: "0", edgeLimit: "1000", slowConsumerBytes: "1048576" };

  it.each([
    ["edgeLimit", "-1", '--edge-limit "-1" must be a whole number of requests per 60 s window (0: no limit)'],
    ["edgeLimit", "1.5", '--edge-limit "1.5" must be a whole number of requests per 60 s window (0: no limit)'],
    ["edgeLimit", "lots", '--edge-limit "lots" must be a whole number of requests per 60 s window (0: no limit)'],
    ["slowConsumerBytes", "-5", '--slow-consumer-bytes "-5" must be an integer of at least 0'],
    ["slowConsumerBytes", "64k", '--slow-consumer-bytes "64k" must be an integer of at least 0'],
    ["execSlowConsumerBytes", "1000", `--exec-slow-consumer-bytes "1000" must be an integer of at least ${EXEC_FRAME_BYTES_MAX}`],
    ["execSlowConsumerBytes", "2m", '--exec-slow-consumer-bytes "2m"'],
    ["port", "65536", '--port "65536" is out of range: it must be an integer within [0, 65535]'],
    ["speed", "1e400", '--speed "1e400" must be a positive number of at most 1000000'],
    ["speed", "2", '--speed "2" applies to the wall clock only: the manual clock moves by POST /admin/clock'],
    ["durability", "async", '--durability "async" applies to --record only: without it nothing is logged'],
    ["seed", "x", '--seed "x" must be a non-negative integer without leading zeros'],
    ["start", "9007199254740991", '--start "9007199254740991" is out of range: it must be an integer within [0, 5853599254740]'],
    ["signerThreads", "1000000", '--signer-threads "1000000" is out of range: it must be an integer within [0, 64]'],
    ["host", "not a host", '--host "not a host" is not an address of this machine'],
  ] as const)("refuses %s %s, naming the flag and the rule", async (field, value, message) => {
    await expect(serve({ ...valid, [field]: value })).rejects.toThrow(message);
  });

  it("refuses a port in use before --record opens its log, so an earlier log stays as it was", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const directory = mkdtempSync(join(tmpdir(), "shadowbook-serve-record-"));
    const earlier = join(directory, "inputs.arrow");
    writeFileSync(earlier, "an earlier session's log");
    try {
      await expect(serve({ ...valid, port: String(port), record: directory })).rejects.toThrow(`--port ${port} is in use on 127.0.0.1`);
      expect(readFileSync(earlier, "utf8")).toBe("an earlier session's log");
    } finally {
      taken.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("refuses to --record over an earlier session's log, and leaves it as it was", async () => {
    const directory = mkdtempSync(join(tmpdir(), "shadowbook-serve-record-"));
    const earlier = join(directory, "inputs.arrow");
    writeFileSync(earlier, "an earlier session's log");
    try {
      await expect(serve({ ...valid, record: directory })).rejects.toThrow(
        `--record "${directory}": ${earlier} already holds a recorded session's log, which --record never overwrites: replay it or move it away, or record into another directory`,
      );
      expect(readFileSync(earlier, "utf8")).toBe("an earlier session's log");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("documents both flags in `shadowbook serve --help`", async () => {
    const { code, stdout } = await help;
    expect(code).toBe(0);
    const text = stdout.replace(/\s+/g, " ");
    expect(text).toContain('--edge-limit <n> network-edge limit: /v2 REST requests per source IP per 60 s fixed window');
    expect(text).toContain('(0: no limit; /admin and /health are exempt) (default: "1000")');
    expect(text).toContain("--slow-consumer-bytes <n> unsent bytes a streaming (/ws) connection may hold before it is closed with 1013");
    expect(text).toContain('(default: "1048576")');
    expect(text).toContain("--exec-slow-consumer-bytes <n> unsent answer bytes an order-entry (/exec) connection may hold before it is closed with 1013");
    expect(text).toContain('(default: "2097152")');
  });
});

describe("the edge limit keyed by source IP (startLiveServer, real sockets)", () => {
  let running: RunningServer | undefined;
  afterAll(async () => running?.close());

  it.runIf(LOOPBACK_2)("limits each source address on its own; /admin and /health are exempt", async () => {
    running = await startLiveServer({
      config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
      seed: 1,
      host: "127.0.0.1",
      port: 0,
      clock: "manual",
      startMicros: millisToMicros(START_MS),
      edgeLimit: { requestsPerWindow: 5, windowMs: 60_000 },
      signerThreads: 0,
    });
    const port = running.port;
    for (let i = 0; i < 5; i++) expect((await getFrom("127.0.0.1", port, "/v2/feeTiers")).status).toBe(200);
    expect(await getFrom("127.0.0.1", port, "/v2/feeTiers")).toEqual({ status: 429, body: "", contentType: undefined });
    expect(await getFrom("127.0.0.1", port, "/v2/nothing")).toEqual({ status: 429, body: "", contentType: undefined });
    // The second source has its own window.
    for (let i = 0; i < 5; i++) expect((await getFrom("127.0.0.2", port, "/v2/feeTiers")).status).toBe(200);
    expect(await getFrom("127.0.0.2", port, "/v2/feeTiers")).toEqual({ status: 429, body: "", contentType: undefined });
    for (const source of ["127.0.0.1", "127.0.0.2"]) {
      expect((await getFrom(source, port, "/admin/state")).status).toBe(200);
      expect((await getFrom(source, port, "/health/live")).status).toBe(200);
      expect((await getFrom(source, port, "/health/ready")).status).toBe(200);
    }
    // A third source is fresh too.
    expect((await getFrom("127.0.0.3", port, "/v2/feeTiers")).status).toBe(200);
  });
});
