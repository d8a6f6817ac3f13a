/**
 * The client SDK's live reads and stream (httpReadTransport,
 * connectWsStream, connectLiveAgent, startLiveAgent) over real sockets,
 * against a live server started in-process on the manual clock (signed
 * mode):
 * - every ReadTransport read answers exactly what the simulator's
 *   in-process reads (InProcessConnection over a driven SimWorld on the
 *   server's own Exchange) answer for the same state, perpExecutions as a
 *   {data, meta} page on both (audit s21 F5), and so do spotExecutions,
 *   transfers (filters, type, cursor) and the market summaries; REST refusals are
 *   RequestFailedError with the RequestError's code, a network failure a
 *   ConnectionError;
 * - so do the other reads: the definitions, fee parameters, fee tiers and
 *   oracle prices, a market's perp and spot executions and busts, a
 *   wallet's busts, accounts and configuration (with busts, a VIP wallet
 *   and an added signer in the state), their limit and time filters, and
 *   their refusals (unknown symbol, wrong market kind, malformed wallet);
 * - every stream channel (the 17 of spec 6.1) delivers through the SDK
 *   stream exactly the frames a raw /ws client gets (subscribed frames with
 *   their snapshots, then channel_data in order), and the snapshots equal
 *   the in-process stream's; refusals are SubscribeFailedError with the
 *   server's text; a resync (1012) is surfaced;
 * - the market maker and the noise taker of agents/ run unchanged against
 *   the server through connectLiveAgent/startLiveAgent for a few clock
 *   steps: the maker quotes, the taker trades against it, and its fills
 *   read back through the SDK equal the in-process read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import marketMaker from "../../agents/market-maker.ts";
import noiseTaker from "../../agents/noise-taker.ts";
import {
  ConnectionError,
  connectLiveAgent,
  fetchAgentMarkets,
  connectWsStream,
  httpReadTransport,
  RequestFailedError,
  startLiveAgent,
  SubscribeFailedError,
  type LiveAgentConnection,
  type LiveTimers,
  type ReadTransport,
  type StreamClose,
  type WsStream,
} from "../../src/client/index.ts";
import type { TimerId } from "../../src/core/scheduler.ts";
import type { Micros } from "../../src/core/time.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { agentPrivateKey } from "../../src/sim/agent-host.ts";
import { OrderedPath } from "../../src/sim/latency.ts";
import { InProcessConnection } from "../../src/sim/transport.ts";
import { SimWorld } from "../../src/sim/world.ts";
import { CHANNELS } from "../../src/spec/channels.ts";
import type { StreamChannelData } from "../../src/spec/stream-envelopes.ts";
import { ETH, SPOT, START_MICROS, signedConfig } from "./helpers/rest-world.ts";
import { StreamClient, type Frame } from "./helpers/stream-client.ts";

const config = signedConfig();
let running: RunningServer;
let base: string;
let world: SimWorld;
let sim: InProcessConnection;
let alice: LiveAgentConnection;
let bob: LiveAgentConnection;
let reads: ReadTransport;

const NOBODY = "0x00000000000000000000000000000000000000aa";

async function admin(path: string, body: unknown = {}): Promise<any> {
  const response = await fetch(`${base}/admin/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text);
}

async function advance(ms: number): Promise<void> {
  await admin("clock", { advanceMs: ms });
}

async function prices(eth: string): Promise<void> {
  await admin("prices", { prices: [{ asset: "WETH", price: eth }, { symbol: ETH, price: eth }, { asset: "WBTC", price: "60000" }, { symbol: "BTCRUSDPERP", price: "60000" }] });
}

/** A read through the in-process connection on the server's Exchange: its kernel runs (zero latency) up to the server's time. */
async function simRead<T>(read: (connection: InProcessConnection) => Promise<T>): Promise<T> {
  const answer = read(sim);
  world.kernel.run({ untilMicros: Math.max(world.kernel.now(), running.context.driver.now()) });
  return answer;
}

async function connect(name: string, accountId: number, orderEntry: "rest" | "ws" = "rest", onStreamClose?: (close: StreamClose) => void): Promise<LiveAgentConnection> {
  return connectLiveAgent({
    url: base,
    signer: agentPrivateKey(name),
    accountId,
    orderEntry,
    signing: config.signing,
    exchangeId: config.gateway.exchangeId,
    clock: { now: () => running.context.driver.now() },
    ...(onStreamClose === undefined ? {} : { onStreamClose }),
  });
}

const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  running = await startLiveServer({ config, seed: 7, port: 0, clock: "manual", startMicros: START_MICROS });
  base = `http://127.0.0.1:${running.port}`;
  const driver = running.context.driver;
  world = new SimWorld({ exchange: running.context.exchange, startMicros: START_MICROS, handle: (input) => driver.handle(input) });
  const zero = () => new OrderedPath(() => 0);
  sim = new InProcessConnection({ world, runtime: { invoke: (_what, body) => void body(), settled: () => undefined }, outbound: zero(), inbound: zero(), marketData: zero() });
  reads = httpReadTransport(`${base}/v2`);
});

afterAll(async () => {
  for (const close of closers) await close();
  await running?.close();
});

describe("connectLiveAgent", () => {
  it("connects an agent's client, reads and stream, with the server's markets", async () => {
    await admin("accounts", { wallet: (await import("viem/accounts")).privateKeyToAddress(agentPrivateKey("alice")), accountId: 2, deposits: { rUSD: "100000", WETH: "2" } });
    await admin("accounts", { wallet: (await import("viem/accounts")).privateKeyToAddress(agentPrivateKey("bob")), accountId: 3, deposits: { rUSD: "100000" } });
    await prices("2000");
    alice = await connect("alice", 2, "rest");
    bob = await connect("bob", 3, "ws");
    closers.push(() => alice.close(), () => bob.close());
    expect(alice.wallet).toMatch(/^0x[0-9a-f]{40}$/);
    expect(alice.markets.map((m) => [m.symbol, m.kind, m.marketId, m.asset])).toEqual([
      [ETH, "perp", 1, "WETH"],
      ["BTCRUSDPERP", "perp", 2, "WBTC"],
      [SPOT, "spot", 5, "WETH"],
    ]);
  });

  it("reports a server that does not answer the definitions as a ConnectionError naming the read", async () => {
    const failure = fetchAgentMarkets(`${base}/v2/nowhere`);
    await expect(failure).rejects.toBeInstanceOf(ConnectionError);
    await expect(failure).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/^(perp|spot)MarketDefinitions failed|^assetDefinitions failed/) });
  });
});

describe("reads: the same answers as the in-process reads", () => {
  let raw: StreamClient;
  let sdk: WsStream;
  /** Every channel name of the catalogue, for alice and ETH. */
  const names = () =>
    Object.values(CHANNELS).map((spec) =>
      spec.template.replace("{symbol}", spec.template.includes("spot") ? SPOT : ETH).replace("{address}", alice.wallet),
    );
  const got = new Map<string, StreamChannelData[]>();
  const subscribed = new Map<string, unknown>();

  beforeAll(async () => {
    // Both stream clients hold every channel before any trading.
    raw = await StreamClient.connect(`ws://127.0.0.1:${running.port}/ws`);
    sdk = alice.stream;
    for (const name of names()) {
      raw.socket.send(JSON.stringify({ type: "subscribe", channel: name }));
      got.set(name, []);
      subscribed.set(name, await sdk.subscribe(name, (message) => void got.get(name)!.push(message)));
    }
    // State: a settled perp trade (bob sells 0.5 to alice), a spot trade, resting orders, history.
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.5", limitPx: "2000", timeInForce: "GTC" });
    await alice.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.5", limitPx: "2000", timeInForce: "IOC" });
    await alice.client.createOrder({ symbol: SPOT, isBuy: false, qty: "0.3", limitPx: "2010", timeInForce: "GTC" });
    await bob.client.createOrder({ symbol: SPOT, isBuy: true, qty: "0.1", limitPx: "2010", timeInForce: "IOC" });
    await advance(300);
    await alice.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.2", limitPx: "1950", timeInForce: "GTC", clientOrderId: "7" });
    const { orderId } = await alice.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1940", timeInForce: "GTC" });
    await alice.client.cancelOrder({ symbol: ETH, orderId });
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.4", limitPx: "2050", timeInForce: "GTC" });
    await prices("2005");
    await advance(1_000);
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.1", limitPx: "1950", timeInForce: "IOC" });
    await advance(300);
    await sdk.ping();
    await raw.sync();
  });

  afterAll(() => raw?.socket.close());

  it("openOrders, positions, balances, depth", async () => {
    for (const wallet of [alice.wallet, bob.wallet, NOBODY]) {
      expect(await reads.openOrders(wallet)).toStrictEqual(await simRead((c) => c.openOrders(wallet)));
      expect(await reads.positions(wallet)).toStrictEqual(await simRead((c) => c.positions(wallet)));
      expect(await reads.balances(wallet)).toStrictEqual(await simRead((c) => c.balances(wallet)));
    }
    expect((await reads.openOrders(alice.wallet)).length).toBe(2);
    expect((await reads.positions(alice.wallet))[0]).toMatchObject({ symbol: ETH, qty: "0.6" });
    for (const symbol of [ETH, SPOT, "BTCRUSDPERP"]) {
      expect(await reads.depth(symbol)).toStrictEqual(await simRead((c) => c.depth(symbol)));
      expect(await reads.depth(symbol, { limit: 1 })).toStrictEqual(await simRead((c) => c.depth(symbol, { limit: 1 })));
    }
  });

  it("orderHistory, with filters and a cursor", async () => {
    const all = await reads.orderHistory(alice.wallet);
    expect(all).toStrictEqual(await simRead((c) => c.orderHistory(alice.wallet)));
    expect(all.data.length).toBeGreaterThanOrEqual(4);
    const newest = all.data[0]!.lastUpdateAt;
    const query = { startTime: START_MICROS / 1000, endTime: newest - 1 };
    expect(await reads.orderHistory(alice.wallet, query)).toStrictEqual(await simRead((c) => c.orderHistory(alice.wallet, query)));
  });

  it("perpExecutions is a {data, meta} page on both, with limit and time filters (F5)", async () => {
    const page = await reads.perpExecutions(alice.wallet);
    expect(page).toStrictEqual(await simRead((c) => c.perpExecutions(alice.wallet)));
    expect(page.meta).toEqual({ limit: 100 });
    expect(page.data.map((row) => [row.symbol, row.qty])).toEqual([
      [ETH, "0.1"],
      [ETH, "0.5"],
    ]);
    const first = page.data[1]!.timestamp;
    for (const query of [{ limit: 1 }, { startTime: first + 1 }, { endTime: first }, { startTime: first, endTime: first, limit: 5 }]) {
      expect(await reads.perpExecutions(alice.wallet, query)).toStrictEqual(await simRead((c) => c.perpExecutions(alice.wallet, query)));
    }
    expect((await reads.perpExecutions(alice.wallet, { limit: 1 })).data).toHaveLength(1);
    expect(await reads.perpExecutions(NOBODY)).toStrictEqual({ data: [], meta: { limit: 100 } });
  });

  it("spotExecutions, transfers and the market summaries, with their filters and cursors", async () => {
    for (const wallet of [alice.wallet, bob.wallet, NOBODY]) {
      expect(await reads.spotExecutions(wallet)).toStrictEqual(await simRead((c) => c.spotExecutions(wallet)));
      expect(await reads.transfers(wallet)).toStrictEqual(await simRead((c) => c.transfers(wallet)));
    }
    const spot = await reads.spotExecutions(alice.wallet);
    expect(spot.meta).toEqual({ limit: 100 });
    expect(spot.data.map((row) => [row.symbol, row.qty])).toEqual([[SPOT, "0.1"]]);
    const at = spot.data[0]!.timestamp;
    for (const query of [{ limit: 1 }, { startTime: at + 1 }, { endTime: at }, { startTime: at, endTime: at, limit: 5 }]) {
      expect(await reads.spotExecutions(alice.wallet, query)).toStrictEqual(await simRead((c) => c.spotExecutions(alice.wallet, query)));
    }
    expect((await reads.spotExecutions(alice.wallet, { startTime: at + 1 })).data).toEqual([]);

    const ledger = await reads.transfers(alice.wallet);
    expect(ledger.data.length).toBeGreaterThanOrEqual(3);
    expect(ledger.data.map((entry) => entry.type)).toContain("DEPOSIT");
    // Paged one entry at a time by cursor, the same pages on both.
    let query: { limit: number; cursor?: string } = { limit: 1 };
    const paged: unknown[] = [];
    for (let page = 0; page < ledger.data.length; page++) {
      const live = await reads.transfers(alice.wallet, query);
      expect(live, `page ${page}`).toStrictEqual(await simRead((c) => c.transfers(alice.wallet, query)));
      paged.push(...live.data);
      if (live.meta.nextCursor === undefined) break;
      query = { limit: 1, cursor: live.meta.nextCursor };
    }
    expect(paged).toStrictEqual(ledger.data);
    const newest = ledger.data[0]!;
    for (const filter of [{ type: "DEPOSIT" }, { type: newest.type, limit: 2 }, { startTime: newest.timestamp }, { endTime: newest.timestamp - 1 }]) {
      expect(await reads.transfers(alice.wallet, filter)).toStrictEqual(await simRead((c) => c.transfers(alice.wallet, filter)));
    }
    expect((await reads.transfers(alice.wallet, { type: "DEPOSIT" })).data.every((entry) => entry.type === "DEPOSIT")).toBe(true);

    const perps = await reads.perpMarketsSummary();
    expect(perps).toStrictEqual(await simRead((c) => c.perpMarketsSummary()));
    expect(perps.map((summary) => summary.symbol)).toEqual([ETH, "BTCRUSDPERP"]);
    const spots = await reads.spotMarketsSummary();
    expect(spots).toStrictEqual(await simRead((c) => c.spotMarketsSummary()));
    expect(spots.map((summary) => summary.symbol)).toEqual([SPOT]);
    expect(await reads.perpMarketSummary(ETH)).toStrictEqual(await simRead((c) => c.perpMarketSummary(ETH)));
    expect(await reads.perpMarketSummary(ETH)).toStrictEqual(perps[0]);
    expect(await reads.spotMarketSummary(SPOT)).toStrictEqual(await simRead((c) => c.spotMarketSummary(SPOT)));
  });

  it("refusals are RequestFailedError with the RequestError's code; a network failure is a ConnectionError", async () => {
    const refused = async (read: Promise<unknown>, code: string, operation: string) => {
      const error = await read.then(() => undefined, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(RequestFailedError);
      expect(error).toMatchObject({ code, operation });
    };
    await refused(reads.orderHistory(alice.wallet, { cursor: "bogus" }), "INPUT_VALIDATION_ERROR", "orderHistory");
    await refused(reads.depth("NOPEPERP"), "SYMBOL_NOT_FOUND_ERROR", "depth");
    await refused(reads.depth(ETH, { limit: 0 }), "INPUT_VALIDATION_ERROR", "depth");
    await refused(reads.openOrders("0x1234"), "INPUT_VALIDATION_ERROR", "openOrders");
    await refused(reads.perpExecutions(alice.wallet, { limit: 5_000 }), "INPUT_VALIDATION_ERROR", "perpExecutions");
    await refused(reads.perpExecutions(alice.wallet, { startTime: 2, endTime: 1 }), "INPUT_VALIDATION_ERROR", "perpExecutions");
    // The reads added for spot executions, transfers and summaries: refused as the in-process reads refuse them, code and message.
    const cases: [string, (r: ReadTransport) => Promise<unknown>, string][] = [
      ["spotExecutions", (r) => r.spotExecutions(alice.wallet, { limit: 5_000 }), "INPUT_VALIDATION_ERROR"],
      ["spotExecutions", (r) => r.spotExecutions("0x1234"), "INPUT_VALIDATION_ERROR"],
      ["transfers", (r) => r.transfers(alice.wallet, { type: "BOGUS" }), "INPUT_VALIDATION_ERROR"],
      ["transfers", (r) => r.transfers(alice.wallet, { cursor: "bogus" }), "INPUT_VALIDATION_ERROR"],
      ["transfers", (r) => r.transfers(alice.wallet, { startTime: 2, endTime: 1 }), "INPUT_VALIDATION_ERROR"],
      ["transfers", (r) => r.transfers(alice.wallet, { limit: 0 }), "INPUT_VALIDATION_ERROR"],
      ["perpMarketSummary", (r) => r.perpMarketSummary(SPOT), "SYMBOL_NOT_FOUND_ERROR"],
      ["perpMarketSummary", (r) => r.perpMarketSummary("ETH-PERP"), "INPUT_VALIDATION_ERROR"],
      ["spotMarketSummary", (r) => r.spotMarketSummary(ETH), "SYMBOL_NOT_FOUND_ERROR"],
      ["spotMarketSummary", (r) => r.spotMarketSummary("NOPE"), "SYMBOL_NOT_FOUND_ERROR"],
    ];
    for (const [operation, read, code] of cases) {
      await refused(read(reads), code, operation);
      const live = (await read(reads).catch((error: RequestFailedError) => error)) as RequestFailedError;
      const inProcess = (await simRead((c) => read(c)).catch((error: RequestFailedError) => error)) as RequestFailedError;
      expect(inProcess, operation).toBeInstanceOf(RequestFailedError);
      expect({ operation: inProcess.operation, requestError: inProcess.requestError }).toEqual({ operation: live.operation, requestError: live.requestError });
    }
    const detail = await reads.depth("NOPEPERP").catch((error: RequestFailedError) => error);
    expect((detail as RequestFailedError).requestError.message).toBe('symbol "NOPEPERP" does not resolve to a market');

    const offline = await httpReadTransport("http://127.0.0.1:1/v2").positions(alice.wallet).catch((error: unknown) => error);
    expect(offline).toBeInstanceOf(ConnectionError);
    const wrongBase = await httpReadTransport(base).positions(alice.wallet).catch((error: unknown) => error);
    expect(wrongBase).toBeInstanceOf(ConnectionError);
    expect(wrongBase).toMatchObject({ status: 404 });
  });

  it("every channel: the SDK stream hands over exactly the frames a raw /ws client gets, snapshots as the in-process stream gives them", async () => {
    const rawFrames = raw.received;
    for (const name of names()) {
      const rawSubscribed = rawFrames.find((frame: Frame) => frame.type === "subscribed" && frame["channel"] === name);
      expect(subscribed.get(name), name).toStrictEqual(rawSubscribed);
      const rawData = rawFrames.filter((frame: Frame) => frame.type === "channel_data" && frame["channel"] === name);
      expect(got.get(name), name).toStrictEqual(rawData);
    }
    // Every kind of channel saw traffic except the ones nothing here produces.
    const silent = names().filter((name) => got.get(name)!.length === 0);
    expect(silent.sort()).toEqual([`/v2/market/${ETH}/executionBusts`, `/v2/wallet/${alice.wallet}/executionBusts`, `/v2/wallet/${alice.wallet}/accounts`].sort());
    // Snapshots now, through both: the same contents.
    for (const name of names()) {
      const live = await sdk.subscribe(name, () => undefined);
      const inProcess = await simRead((c) => c.subscribe(name, () => undefined));
      expect(live, name).toStrictEqual(inProcess);
      sim.unsubscribe(name);
    }
  });

  it("a refused subscribe is SubscribeFailedError with the server's text; unsubscribe stops the handler", async () => {
    const error = await sdk.subscribe("/v2/market/NOPEPERP/depth", () => undefined).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(SubscribeFailedError);
    expect((error as Error).message).toBe("Invalid channel name");
    const simError = await simRead((c) => c.subscribe("/v2/market/NOPEPERP/depth", () => undefined)).catch((failure: unknown) => failure);
    expect((simError as Error).message).toBe((error as Error).message);
    expect(simError).toBeInstanceOf(SubscribeFailedError);

    const depth = `/v2/market/${ETH}/depth`;
    const before = got.get(depth)!.length;
    sdk.unsubscribe(depth);
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.1", limitPx: "2100", timeInForce: "GTC" });
    await sdk.ping();
    expect(got.get(depth)!.length).toBe(before);
  });
});

describe("reads: every other REST read, the same answers as the in-process reads", () => {
  const SIGNER = "0x00000000000000000000000000000000000000bb";

  beforeAll(async () => {
    // State the reads above leave out: a VIP wallet, an added signer, a busted perp and a busted spot match, and one more settled perp match.
    await admin(`wallets/${bob.wallet}`, { feeTierId: 10, og: true });
    await admin("signers", { accountId: 2, signer: SIGNER });
    await admin("faults", { bustNext: { count: 2, reasonName: "GasPriceTooLow" } });
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.1", limitPx: "2000", timeInForce: "GTC" });
    await alice.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.1", limitPx: "2000", timeInForce: "IOC" });
    await bob.client.createOrder({ symbol: SPOT, isBuy: true, qty: "0.1", limitPx: "2010", timeInForce: "IOC" });
    await advance(300);
    await bob.client.createOrder({ symbol: ETH, isBuy: false, qty: "0.2", limitPx: "2000", timeInForce: "GTC" });
    await alice.client.createOrder({ symbol: ETH, isBuy: true, qty: "0.2", limitPx: "2000", timeInForce: "IOC" });
    await advance(300);
  });

  it("definitions, fee parameters, fee tiers and oracle prices", async () => {
    const perps = await reads.perpMarketDefinitions();
    expect(perps).toStrictEqual(await simRead((c) => c.perpMarketDefinitions()));
    expect(perps.map((definition) => definition.symbol)).toEqual([ETH, "BTCRUSDPERP"]);
    const spots = await reads.spotMarketDefinitions();
    expect(spots).toStrictEqual(await simRead((c) => c.spotMarketDefinitions()));
    expect(spots.map((definition) => [definition.symbol, definition.baseAsset])).toEqual([[SPOT, "WETH"]]);
    const assets = await reads.assetDefinitions();
    expect(assets).toStrictEqual(await simRead((c) => c.assetDefinitions()));
    expect(assets.map((asset) => asset.asset)).toContain("WETH");
    const fees = await reads.globalFeeParameters();
    expect(fees).toStrictEqual(await simRead((c) => c.globalFeeParameters()));
    expect(Object.keys(fees).sort()).toEqual(["affiliateReferrerRebate", "ogDiscount", "refereeDiscount", "referrerRebate"]);
    const tiers = await reads.feeTiers();
    expect(tiers).toStrictEqual(await simRead((c) => c.feeTiers()));
    expect(tiers.find((tier) => tier.tierId === 10)).toMatchObject({ tierType: "VIP" });
    const oracle = await reads.assetOraclePrices();
    expect(oracle).toStrictEqual(await simRead((c) => c.assetOraclePrices()));
    expect(oracle.map((price) => price.asset)).toEqual(expect.arrayContaining(["WETH", "WBTC"]));
  });

  it("a market's perp and spot executions and busts, with limit and time filters", async () => {
    const perp = await reads.marketPerpExecutions(ETH);
    expect(perp).toStrictEqual(await simRead((c) => c.marketPerpExecutions(ETH)));
    expect(perp.meta).toEqual({ limit: 100 });
    // One row per match (both sides in one record), busted matches left out: 0.2, then 0.1 and 0.5 of the reads above.
    expect(perp.data.slice(0, 3).map((row) => [row.symbol, row.qty])).toEqual([
      [ETH, "0.2"],
      [ETH, "0.1"],
      [ETH, "0.5"],
    ]);
    const at = perp.data[1]!.timestamp;
    for (const query of [{ limit: 1 }, { startTime: at + 1 }, { endTime: at }, { startTime: at, endTime: at, limit: 5 }]) {
      expect(await reads.marketPerpExecutions(ETH, query)).toStrictEqual(await simRead((c) => c.marketPerpExecutions(ETH, query)));
    }
    expect((await reads.marketPerpExecutions(ETH, { limit: 1 })).data).toStrictEqual(perp.data.slice(0, 1));
    expect(await reads.marketPerpExecutions("BTCRUSDPERP")).toStrictEqual({ data: [], meta: { limit: 100 } });

    const spot = await reads.marketSpotExecutions(SPOT);
    expect(spot).toStrictEqual(await simRead((c) => c.marketSpotExecutions(SPOT)));
    expect(spot.data.map((row) => [row.symbol, row.qty])).toEqual([[SPOT, "0.1"]]);
    const spotAt = spot.data[0]!.timestamp;
    for (const query of [{ limit: 1 }, { startTime: spotAt + 1 }, { endTime: spotAt, limit: 3 }]) {
      expect(await reads.marketSpotExecutions(SPOT, query)).toStrictEqual(await simRead((c) => c.marketSpotExecutions(SPOT, query)));
    }

    for (const symbol of [ETH, SPOT, "BTCRUSDPERP"]) {
      expect(await reads.marketExecutionBusts(symbol)).toStrictEqual(await simRead((c) => c.marketExecutionBusts(symbol)));
    }
    const busts = await reads.marketExecutionBusts(ETH);
    expect(busts.data.map((bust) => [bust.symbol, bust.qty, bust.reason.reasonName])).toEqual([[ETH, "0.1", "GasPriceTooLow"]]);
    expect((await reads.marketExecutionBusts(SPOT)).data.map((bust) => [bust.symbol, bust.qty])).toEqual([[SPOT, "0.1"]]);
    const bustAt = busts.data[0]!.timestamp;
    for (const query of [{ limit: 1 }, { startTime: bustAt + 1 }, { startTime: bustAt, endTime: bustAt }]) {
      expect(await reads.marketExecutionBusts(ETH, query)).toStrictEqual(await simRead((c) => c.marketExecutionBusts(ETH, query)));
    }
    expect((await reads.marketExecutionBusts(ETH, { startTime: bustAt + 1 })).data).toEqual([]);
  });

  it("a wallet's busts, accounts and configuration", async () => {
    for (const wallet of [alice.wallet, bob.wallet, NOBODY]) {
      expect(await reads.walletExecutionBusts(wallet)).toStrictEqual(await simRead((c) => c.walletExecutionBusts(wallet)));
      expect(await reads.walletAccounts(wallet)).toStrictEqual(await simRead((c) => c.walletAccounts(wallet)));
      expect(await reads.walletConfiguration(wallet)).toStrictEqual(await simRead((c) => c.walletConfiguration(wallet)));
    }
    const busts = await reads.walletExecutionBusts(alice.wallet);
    expect(busts.data.map((bust) => bust.symbol)).toEqual([SPOT, ETH]);
    for (const query of [{ limit: 1 }, { endTime: busts.data[1]!.timestamp }, { startTime: busts.data[0]!.timestamp + 1 }]) {
      expect(await reads.walletExecutionBusts(alice.wallet, query)).toStrictEqual(await simRead((c) => c.walletExecutionBusts(alice.wallet, query)));
    }
    expect(await reads.walletExecutionBusts(NOBODY)).toStrictEqual({ data: [], meta: { limit: 100 } });

    expect(await reads.walletAccounts(alice.wallet)).toStrictEqual([{ accountId: 2, ownerWallet: alice.wallet, signers: [SIGNER, alice.wallet].sort() }]);
    expect(await reads.walletAccounts(NOBODY)).toStrictEqual([]);
    expect(await reads.walletConfiguration(bob.wallet)).toMatchObject({ feeTierId: 10, ogStatus: true });
    expect(await reads.walletConfiguration(alice.wallet)).not.toStrictEqual(await reads.walletConfiguration(bob.wallet));
  });

  it("refusals: the same RequestError on both, with the read's name as `operation`", async () => {
    const cases: [string, (r: ReadTransport) => Promise<unknown>, string][] = [
      ["marketPerpExecutions", (r) => r.marketPerpExecutions("NOPEPERP"), "SYMBOL_NOT_FOUND_ERROR"],
      ["marketPerpExecutions", (r) => r.marketPerpExecutions(SPOT), "SYMBOL_NOT_FOUND_ERROR"],
      ["marketPerpExecutions", (r) => r.marketPerpExecutions("ETH-PERP"), "INPUT_VALIDATION_ERROR"],
      ["marketPerpExecutions", (r) => r.marketPerpExecutions("NOPEPERP", { limit: 0 }), "INPUT_VALIDATION_ERROR"],
      ["marketSpotExecutions", (r) => r.marketSpotExecutions(ETH), "SYMBOL_NOT_FOUND_ERROR"],
      ["marketSpotExecutions", (r) => r.marketSpotExecutions(SPOT, { startTime: 2, endTime: 1 }), "INPUT_VALIDATION_ERROR"],
      ["marketExecutionBusts", (r) => r.marketExecutionBusts("NOPE"), "SYMBOL_NOT_FOUND_ERROR"],
      ["marketExecutionBusts", (r) => r.marketExecutionBusts(ETH, { limit: 1001 }), "INPUT_VALIDATION_ERROR"],
      ["walletExecutionBusts", (r) => r.walletExecutionBusts("0x1234"), "INPUT_VALIDATION_ERROR"],
      ["walletExecutionBusts", (r) => r.walletExecutionBusts(alice.wallet, { limit: 0 }), "INPUT_VALIDATION_ERROR"],
      ["walletAccounts", (r) => r.walletAccounts("0x1234"), "INPUT_VALIDATION_ERROR"],
      ["walletConfiguration", (r) => r.walletConfiguration("not-a-wallet"), "INPUT_VALIDATION_ERROR"],
    ];
    for (const [operation, read, code] of cases) {
      const live = await read(reads).then(() => undefined, (failure: unknown) => failure);
      const inProcess = await simRead((c) => read(c)).then(() => undefined, (failure: unknown) => failure);
      expect(live, operation).toBeInstanceOf(RequestFailedError);
      expect(inProcess, operation).toBeInstanceOf(RequestFailedError);
      expect(live, operation).toMatchObject({ code, operation });
      const { requestError } = live as RequestFailedError;
      expect({ operation: (inProcess as RequestFailedError).operation, requestError: (inProcess as RequestFailedError).requestError }).toEqual({ operation, requestError });
    }
    const unknown = await reads.marketPerpExecutions("NOPEPERP").catch((error: RequestFailedError) => error);
    expect((unknown as RequestFailedError).requestError.message).toBe('symbol "NOPEPERP" does not resolve to a market');
  });
});

describe("closes", () => {
  it("a resync (1012) rejects later subscribes with ConnectionError and reaches onStreamClose and closed", async () => {
    const seen: StreamClose[] = [];
    const carol = await connect("alice", 2, "rest", (close) => seen.push(close));
    const standalone = await connectWsStream(`ws://127.0.0.1:${running.port}/ws`);
    await carol.stream.subscribe("/v2/assetOraclePrices", () => undefined);
    await admin("resync");
    const close = await carol.stream.closed;
    expect(close).toEqual({ code: 1012, reason: "resync", byClient: false });
    expect(seen).toEqual([close]);
    expect((await standalone.closed).code).toBe(1012);
    const error = await carol.stream.subscribe("/v2/assetOraclePrices", () => undefined).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ closeCode: 1012, closeReason: "resync" });
    await carol.close();
    // alice's and bob's streams were closed too: reconnect them for the agents below.
    alice = await connect("alice", 2, "rest");
    bob = await connect("bob", 3, "ws");
    closers.push(() => alice.close(), () => bob.close());
  });
});

/** Agent timers on the server's manual clock: due ones fire when the test moves the clock. */
class ManualTimers implements LiveTimers {
  private next = 0;
  private readonly due = new Map<TimerId, { at: Micros; handler: () => void }>();
  now(): Micros {
    return running.context.driver.now();
  }
  after(delayMicros: Micros, handler: () => void): TimerId {
    const id = ++this.next;
    this.due.set(id, { at: this.now() + delayMicros, handler });
    return id;
  }
  cancel(timer: TimerId): void {
    this.due.delete(timer);
  }
  fire(): number {
    let fired = 0;
    for (;;) {
      const ready = [...this.due].filter(([, timer]) => timer.at <= this.now()).sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
      if (ready.length === 0) return fired;
      for (const [id, timer] of ready) {
        this.due.delete(id);
        timer.handler();
        fired++;
      }
    }
  }
}

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("agents/ run unchanged against the live server", () => {
  it("the market maker quotes and the noise taker trades against it; the taker's fills read back as in-process", async () => {
    const timers = new ManualTimers();
    const failures: unknown[] = [];
    const onError = (error: unknown) => void failures.push(error);
    const makerKey = agentPrivateKey("live-maker");
    const takerKey = agentPrivateKey("live-taker");
    const { privateKeyToAddress } = await import("viem/accounts");
    await admin("accounts", { wallet: privateKeyToAddress(makerKey), accountId: 10, deposits: { rUSD: "1000000" } });
    await admin("accounts", { wallet: privateKeyToAddress(takerKey), accountId: 11, deposits: { rUSD: "100000" } });
    const makerConnection = await connect("live-maker", 10, "ws");
    const takerConnection = await connect("live-taker", 11, "rest");
    closers.push(() => makerConnection.close(), () => takerConnection.close());
    const maker = startLiveAgent(marketMaker, { connection: makerConnection, name: "live-maker", params: { refreshSeconds: 1, levels: 2, levelNotional: 600 }, timers, onError });
    const taker = startLiveAgent(noiseTaker, { connection: takerConnection, name: "live-taker", params: { ratePerSecond: 4, startDelaySeconds: 1, medianNotional: 800 }, timers, onError });
    // The maker waits for an oracle price on its stream.
    await realWait(50);
    await prices("2010");
    await maker.started;
    await taker.started;
    for (let step = 0; step < 12; step++) {
      await advance(500);
      timers.fire();
      for (let turn = 0; turn < 4; turn++) await realWait(15);
      await makerConnection.stream.ping();
      await takerConnection.stream.ping();
    }
    maker.stop();
    taker.stop();
    await realWait(50);
    expect(failures).toEqual([]);
    // A live agent runs until it is stopped: it has no end time (AgentContext.endMicros).
    expect(maker.context.endMicros).toBeUndefined();
    expect(maker.counts.get("quotesCreated")).toBeGreaterThanOrEqual(4);
    expect(maker.counts.get("deadManRenewals")).toBeGreaterThanOrEqual(5);
    expect(taker.counts.get("sent")).toBeGreaterThan(3);
    expect(taker.counts.get("filled")).toBeGreaterThan(0);
    const fills = await takerConnection.reads.perpExecutions(takerConnection.wallet);
    expect(fills.data.length).toBeGreaterThan(0);
    expect(fills).toStrictEqual(await simRead((c) => c.perpExecutions(takerConnection.wallet)));
    expect(await makerConnection.reads.openOrders(makerConnection.wallet)).toStrictEqual(await simRead((c) => c.openOrders(makerConnection.wallet)));
    expect((await makerConnection.reads.openOrders(makerConnection.wallet)).length).toBeGreaterThan(0);
  });
});
