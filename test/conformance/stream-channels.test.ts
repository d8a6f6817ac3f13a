/**
 * The 17 channels of spec 6.1 over a real socket: each one's subscribe
 * answer (contents exactly for depth, orderChanges and transfers) and its
 * updates, every payload checked against the spec schemas; executions only
 * after settlement (spec 6.4), busts on executionBusts, the IOC taker
 * absent from orderChanges, latest-value coalescing, and wallet channels
 * matched case-insensitively.
 */
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { microsToMillis } from "../../src/core/time.ts";
import { z } from "zod";
import { ExecutionBust } from "../../src/spec/bust.ts";
import { CHANNEL_KINDS, CHANNELS, type ChannelKind } from "../../src/spec/channels.ts";
import { StreamChannelData } from "../../src/spec/stream-envelopes.ts";
import { checkData, checkSubscribed, expectValidFrames } from "./helpers/stream-checks.ts";
import type { StreamClient } from "./helpers/stream-client.ts";
import { ETH, SPOT, StreamWorld } from "./helpers/stream-world.ts";

let world: StreamWorld;
let client: StreamClient;

beforeAll(async () => {
  world = await StreamWorld.start();
  client = await world.connect();
});

afterAll(async () => {
  await world.close();
});

type Row = Record<string, unknown>;

const wallet = (kind: ChannelKind, address: string) => CHANNELS[kind].template.replace("{address}", address);
const market = (kind: ChannelKind, symbol: string) => CHANNELS[kind].template.replace("{symbol}", symbol);

/** Subscribes `client` to `channel` of `kind` and checks the answer; the contents, if any. */
async function subscribe(kind: ChannelKind, channel: string, on: StreamClient = client): Promise<unknown> {
  return checkSubscribed(await on.subscribeAndWait(channel), kind, channel);
}

async function nextData(kind: ChannelKind, channel: string, on: StreamClient = client): Promise<unknown> {
  return checkData(await on.data(channel), kind, channel);
}

describe("summaries and oracle prices (latest-value feeds)", () => {
  it("perpMarkets/summary sends every perp market's summary as an array", async () => {
    const channel = "/v2/perpMarkets/summary";
    expect(await subscribe("perpMarketsSummary", channel)).toBeUndefined();
    world.advance(500);
    const data = (await nextData("perpMarketsSummary", channel)) as Row[];
    expect(data.map((s) => s["symbol"])).toEqual(["ETHRUSDPERP", "BTCRUSDPERP"]);
  });

  it("perpMarket/{symbol}/summary sends one MarketSummary object", async () => {
    const channel = market("perpMarketSummary", ETH);
    await subscribe("perpMarketSummary", channel);
    world.advance(500);
    const data = (await nextData("perpMarketSummary", channel)) as Row;
    expect(Array.isArray(data)).toBe(false);
    expect(data["symbol"]).toBe(ETH);
    expect(data["updatedAt"]).toBe(microsToMillis(world.context.exchange.now()));
  });

  it("spotMarkets/summary and spotMarket/{symbol}/summary send the spot summaries", async () => {
    const all = "/v2/spotMarkets/summary";
    const one = market("spotMarketSummary", SPOT);
    await subscribe("spotMarketsSummary", all);
    await subscribe("spotMarketSummary", one);
    world.advance(500);
    expect(((await nextData("spotMarketsSummary", all)) as Row[]).map((s) => s["symbol"])).toEqual([SPOT]);
    expect(((await nextData("spotMarketSummary", one)) as Row)["symbol"]).toBe(SPOT);
  });

  it("coalesces a latest-value feed within one turn: one frame with the newest value", async () => {
    const channel = "/v2/perpMarkets/summary";
    await client.sync();
    client.drainData(channel);
    world.advance(5_000); // ten summary ticks in one synchronous advance
    await client.sync();
    const frames = client.drainData(channel);
    expect(frames).toHaveLength(1);
    const now = microsToMillis(world.context.exchange.now());
    expect(frames[0]!["timestamp"]).toBe(now);
    expect((frames[0]!["data"] as Row[])[0]!["updatedAt"]).toBe(now);
  });

  it("assetOraclePrices sends the oracle prices on a price input", async () => {
    const channel = "/v2/assetOraclePrices";
    await subscribe("assetOraclePrices", channel);
    world.refreshPrices("2001", "60001");
    const data = (await nextData("assetOraclePrices", channel)) as Row[];
    expect(data.find((p) => p["asset"] === "WETH")?.["oraclePrice"]).toBe("2001");
    world.refreshPrices();
  });
});

describe("order book and orders", () => {
  it("depth: a SNAPSHOT equal to the stream view, then an UPDATE with the changed level only", async () => {
    world.rest(world.bob, { symbol: ETH, isBuy: false, qty: "0.5", limitPx: "2100" });
    const channel = market("marketDepth", ETH);
    const snapshot = (await subscribe("marketDepth", channel)) as Row;
    expect(snapshot).toEqual(world.context.queries.depthStreamSnapshot(ETH));
    expect(snapshot["asks"]).toContainEqual({ px: "2100", qty: "0.5" });
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.25", limitPx: "1900" });
    const frame = await client.data(channel);
    expect(frame["timestamp"]).toBe(microsToMillis(world.context.exchange.now()));
    const update = checkData(frame, "marketDepth", channel) as Row;
    expect(update).toMatchObject({ symbol: ETH, type: "UPDATE", bids: [{ px: "1900", qty: "0.25" }], asks: [] });
  });

  it("orderChanges: snapshot of open orders and cursor, then rows above the cursor; the IOC taker is not published", async () => {
    const channel = wallet("walletOrderChanges", world.alice.address);
    const bobChannel = wallet("walletOrderChanges", world.bob.address);
    const contents = (await subscribe("walletOrderChanges", channel)) as { data: Row[]; snapshotSequenceNumber: number };
    await subscribe("walletOrderChanges", bobChannel);
    expect(contents.snapshotSequenceNumber).toBe(world.context.exchange.lastOrderSequenceNumber);
    expect(contents.data.map((o) => o["orderId"])).toEqual(world.context.queries.openOrders(world.alice.address).map((o) => o.orderId));
    expect(contents.data.length).toBeGreaterThan(0);
    for (const order of contents.data) expect(order).not.toHaveProperty("sequenceNumber");

    const orderId = world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1950" });
    const rows = (await nextData("walletOrderChanges", channel)) as Row[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ orderId, status: "OPEN" });
    expect(rows[0]!["sequenceNumber"] as number).toBeGreaterThan(contents.snapshotSequenceNumber);

    // alice's IOC takes bob's 2100 ask: bob's maker row is published, alice's taker row is not.
    const taker = world.create(world.alice, { symbol: ETH, isBuy: true, qty: "0.5", limitPx: "2100", timeInForce: "IOC" });
    expect(taker["status"]).toBe("FILLED");
    const bobRows = (await nextData("walletOrderChanges", bobChannel)) as Row[];
    expect(bobRows[0]).toMatchObject({ status: "FILLED", cumQty: "0.5" });
    await client.sync();
    const aliceRows = client.drainData(channel).flatMap((f) => f["data"] as Row[]);
    expect(aliceRows.map((r) => r["orderId"])).not.toContain(taker["orderId"]);
    world.advance(200); // settle it
  });
});

/** A bust frame: the envelope, and every record against the spec's ExecutionBust (typed reasons included). */
async function bustData(channel: string): Promise<unknown> {
  const frame = await client.data(channel);
  StreamChannelData.parse(frame);
  const parsed = z.array(ExecutionBust).safeParse(frame["data"]);
  expect(parsed.success, parsed.error?.message).toBe(true);
  return frame["data"];
}

describe("executions, positions, balances and transfers", () => {
  it("perp executions publish after settlement, with positions, balances and transfers of both wallets", async () => {
    const channels = {
      market: market("marketPerpExecutions", ETH),
      alice: wallet("walletPerpExecutions", world.alice.address),
      bob: wallet("walletPerpExecutions", world.bob.address),
      positions: wallet("walletPositions", world.alice.address),
      balances: wallet("walletAccountBalances", world.alice.address),
      transfers: wallet("walletTransfers", world.alice.address),
    };
    await subscribe("marketPerpExecutions", channels.market);
    await subscribe("walletPerpExecutions", channels.alice);
    await subscribe("walletPerpExecutions", channels.bob);
    await subscribe("walletPositions", channels.positions);
    await subscribe("walletAccountBalances", channels.balances);
    const transfers = (await subscribe("walletTransfers", channels.transfers)) as { data: Row[] };
    const ids = transfers.data.map((t) => BigInt(t["id"] as string));
    expect(ids.length).toBeGreaterThan(0);
    expect([...ids].sort((a, b) => (b > a ? 1 : -1))).toEqual(ids); // newest first

    world.trade(world.alice, world.bob, ETH, "0.2", "2000");
    await client.sync();
    expect(client.drainData(channels.market)).toEqual([]); // matched, not settled
    expect(client.drainData(channels.alice)).toEqual([]);

    world.advance(100); // the next block settles it
    const record = ((await nextData("marketPerpExecutions", channels.market)) as Row[])[0]!;
    expect(record).toMatchObject({ symbol: ETH, qty: "0.2", price: "2000", side: "B", takerAccountId: 2, makerAccountId: 3 });
    expect(((await nextData("walletPerpExecutions", channels.alice)) as Row[])[0]!["fillId"]).toBe(record["fillId"]);
    expect(((await nextData("walletPerpExecutions", channels.bob)) as Row[])[0]!["fillId"]).toBe(record["fillId"]);
    const positions = (await nextData("walletPositions", channels.positions)) as Row[];
    expect(positions).toEqual(world.context.queries.positions(world.alice.address));
    expect(positions.find((p) => p["symbol"] === ETH)).toMatchObject({ side: "B", accountId: 2 });
    expect(await nextData("walletAccountBalances", channels.balances)).toEqual(world.context.queries.accountBalances(world.alice.address));
    const fee = ((await nextData("walletTransfers", channels.transfers)) as Row[])[0]!;
    expect(BigInt(fee["id"] as string) > ids[0]!).toBe(true);
  });

  it("spot executions publish on the market and both wallets' spotExecutions after settlement", async () => {
    const channels = {
      market: market("marketSpotExecutions", SPOT),
      alice: wallet("walletSpotExecutions", world.alice.address),
      carol: wallet("walletSpotExecutions", world.carol.address),
    };
    await subscribe("marketSpotExecutions", channels.market);
    await subscribe("walletSpotExecutions", channels.alice);
    await subscribe("walletSpotExecutions", channels.carol);
    world.trade(world.alice, world.carol, SPOT, "0.1", "2000");
    await client.sync();
    expect(client.drainData(channels.market)).toEqual([]);
    world.advance(100);
    const record = ((await nextData("marketSpotExecutions", channels.market)) as Row[])[0]!;
    expect(record).toMatchObject({ symbol: SPOT, qty: "0.1", takerAccountId: 2, makerAccountId: 4, type: "ORDER_MATCH" });
    expect(((await nextData("walletSpotExecutions", channels.alice)) as Row[])[0]!["fillId"]).toBe(record["fillId"]);
    expect(((await nextData("walletSpotExecutions", channels.carol)) as Row[])[0]!["fillId"]).toBe(record["fillId"]);
  });

  it("a busted match goes to executionBusts (market and wallets), never to the execution channels", async () => {
    const channels = {
      market: market("marketExecutionBusts", ETH),
      alice: wallet("walletExecutionBusts", world.alice.address),
      bob: wallet("walletExecutionBusts", world.bob.address),
      executions: market("marketPerpExecutions", ETH),
    };
    await subscribe("marketExecutionBusts", channels.market);
    await subscribe("walletExecutionBusts", channels.alice);
    await subscribe("walletExecutionBusts", channels.bob);
    await client.sync();
    client.drainData(channels.executions);
    world.fault({ fault: "bustNext", count: 1, reasonName: "AccountBelowIM" });
    world.trade(world.alice, world.bob, ETH, "0.1", "2000");
    await client.sync();
    expect(client.drainData(channels.market)).toEqual([]);
    world.advance(100);
    const bust = ((await bustData(channels.market)) as Row[])[0]!;
    expect(bust).toMatchObject({ symbol: ETH, qty: "0.1", takerAccountId: 2, makerAccountId: 3, reason: { reasonName: "AccountBelowIM", accountId: 2, delta: "0", shortfall: "0" } });
    expect(((await bustData(channels.alice)) as Row[])[0]!["fillId"]).toBe(bust["fillId"]);
    expect(((await bustData(channels.bob)) as Row[])[0]!["fillId"]).toBe(bust["fillId"]);
    await client.sync();
    const executions = client.drainData(channels.executions).flatMap((f) => f["data"] as Row[]);
    expect(executions.map((e) => e["fillId"])).not.toContain(bust["fillId"]);
  });

  it("a bust with an unmodeled contract error is a fully valid ExecutionBust", async () => {
    const channel = market("marketExecutionBusts", ETH);
    world.fault({ fault: "bustNext", count: 1, reasonName: "OrderSignerRevoked" });
    world.trade(world.alice, world.bob, ETH, "0.1", "2000");
    world.advance(100);
    const bust = ((await nextData("marketExecutionBusts", channel)) as Row[])[0]!;
    expect(bust["reason"]).toEqual({ reasonName: "OrderSignerRevoked", args: {} });
  });

  it("accountBalances and transfers follow a deposit", async () => {
    const balances = wallet("walletAccountBalances", world.bob.address);
    const transfers = wallet("walletTransfers", world.bob.address);
    await subscribe("walletAccountBalances", balances);
    await subscribe("walletTransfers", transfers);
    world.adminOk({ action: "deposit", accountId: 3, asset: "rUSD", amount: "25" });
    const entry = ((await nextData("walletTransfers", transfers)) as Row[])[0]!;
    expect(entry).toMatchObject({ accountId: 3, asset: "rUSD", amount: "25" });
    expect(await nextData("walletAccountBalances", balances)).toEqual(world.context.queries.accountBalances(world.bob.address));
  });

  it("accounts notifies a new account and an added signer", async () => {
    const channel = wallet("walletAccounts", world.carol.address);
    await subscribe("walletAccounts", channel);
    world.adminOk({ action: "createAccount", wallet: world.carol.address, accountId: 40 });
    expect(await nextData("walletAccounts", channel)).toEqual([
      { accountId: 40, ownerWallet: world.carol.address, event: "ACCOUNT_CREATED", timestamp: microsToMillis(world.context.exchange.now()) },
    ]);
    world.adminOk({ action: "addSigner", accountId: 40, signer: world.alice.address });
    expect(((await nextData("walletAccounts", channel)) as Row[])[0]).toMatchObject({ event: "SIGNER_ADDED", signer: world.alice.address });
  });
});

describe("wallet addresses match case-insensitively", () => {
  it("a checksummed and a lowercase subscription get the same updates, each under its own spelling", async () => {
    const checksummed = getAddress(world.bob.address);
    expect(checksummed).not.toBe(world.bob.address);
    const other = await world.connect();
    const upper = wallet("walletOrderChanges", checksummed);
    const lower = wallet("walletOrderChanges", world.bob.address);
    const upperContents = (await subscribe("walletOrderChanges", upper, other)) as { data: Row[] };
    const lowerContents = (await subscribe("walletOrderChanges", lower)) as { data: Row[] };
    expect(upperContents.data).toEqual(lowerContents.data);
    await client.sync();
    client.drainData(lower);
    const orderId = world.rest(world.bob, { symbol: ETH, isBuy: false, qty: "0.1", limitPx: "2200" });
    expect(((await nextData("walletOrderChanges", upper, other)) as Row[])[0]!["orderId"]).toBe(orderId);
    expect(((await nextData("walletOrderChanges", lower)) as Row[])[0]!["orderId"]).toBe(orderId);
    other.close();
  });
});

describe("catalogue coverage", () => {
  it("every one of the 17 channels was subscribed and updated above, and every frame is a valid server frame", () => {
    expect(CHANNEL_KINDS).toHaveLength(17);
    const updated = new Set(client.received.filter((f) => f.type === "channel_data").map((f) => f["channel"] as string));
    for (const kind of CHANNEL_KINDS) {
      const shape = new RegExp(`^${CHANNELS[kind].template.replace("{symbol}", "[A-Za-z0-9]+").replace("{address}", "0x[0-9a-fA-F]{40}")}$`);
      expect([...updated].some((name) => shape.test(name)), `no update received on ${kind}`).toBe(true);
    }
    expectValidFrames(client);
  });
});
