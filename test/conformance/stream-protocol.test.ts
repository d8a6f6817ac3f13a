/**
 * The streaming protocol over a real socket (spec 4.4, 7.5): the exact
 * error frames, the connection staying open after each, ping/pong, the
 * subscribe id never echoed, unsubscribe, re-subscribe without doubled
 * updates, and a failed snapshot rolled back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamClient } from "./helpers/stream-client.ts";
import { expectValidFrames } from "./helpers/stream-checks.ts";
import { ETH, SPOT, StreamWorld } from "./helpers/stream-world.ts";

let world: StreamWorld;
let client: StreamClient;

beforeAll(async () => {
  world = await StreamWorld.start();
  client = await world.connect();
});

afterAll(async () => {
  expectValidFrames(client);
  await world.close();
});

const nextError = () => client.take((f) => f.type === "error", 5_000, "an error frame");

describe("error frames (spec 7.5), the connection staying open", () => {
  it("a frame that is not JSON is Invalid JSON", async () => {
    for (const text of ["{not json", "", "subscribe", '{"type":"subscribe",']) {
      client.send(text);
      expect(await nextError()).toEqual({ type: "error", message: "Invalid JSON" });
    }
  });

  it("a binary frame is read as UTF-8 text", async () => {
    client.socket.send(Buffer.from('{"type":"ping"}'), { binary: true });
    expect(await client.take((f) => f.type === "pong")).toEqual({ type: "pong" });
    client.socket.send(Buffer.from([0xff, 0x00, 0x7b]), { binary: true });
    expect(await nextError()).toEqual({ type: "error", message: "Invalid JSON" });
  });

  it("a type other than subscribe, unsubscribe or ping is Invalid type", async () => {
    for (const frame of [{ type: "subscrib", channel: "/v2/assetOraclePrices" }, { type: "pong" }, { type: "Subscribe" }, {}, [], 42, null, "ping", { channel: "/v2/assetOraclePrices" }]) {
      client.send(JSON.stringify(frame));
      expect(await nextError()).toEqual({ type: "error", message: "Invalid type" });
    }
  });

  it("an unknown channel or a malformed parameter is Invalid channel name, with the channel", async () => {
    const address = world.alice.address;
    const invalid = [
      "/v2/nope",
      "v2/assetOraclePrices",
      "/v2/assetOraclePrices/",
      "/v2/perpMarkets/summary/extra",
      "/v2/market/ETH-PERP/depth",
      "/v2/market//depth",
      "/v2/market/ETHRUSDPERP/trades",
      "/v2/wallet/0x123/positions",
      `/v2/wallet/${address.slice(0, -1)}g/positions`,
      `/v2/wallet/${address}0/orderChanges`,
      `/v2/wallet/${address.slice(2)}/orderChanges`,
      "/v2/market/DOGERUSDPERP/depth", // well formed, no such market
      "/v2/market/ethrusdperp/depth", // symbols are exact
      `/v2/perpMarket/${SPOT}/summary`, // a spot symbol on a perp channel
      `/v2/spotMarket/${ETH}/summary`,
      `/v2/market/${SPOT}/perpExecutions`,
      `/v2/market/${ETH}/spotExecutions`,
    ];
    for (const channel of invalid) {
      for (const type of ["subscribe", "unsubscribe"]) {
        client.send({ type, channel, id: 7 });
        expect(await nextError(), `${type} ${channel}`).toEqual({ type: "error", message: "Invalid channel name", channel });
      }
    }
  });

  it("a subscribe without a string channel is Invalid channel name, without a channel field", async () => {
    for (const frame of [{ type: "subscribe" }, { type: "subscribe", channel: 5 }, { type: "unsubscribe", channel: null }]) {
      client.send(frame);
      expect(await nextError()).toEqual({ type: "error", message: "Invalid channel name" });
    }
  });

  it("the connection is still open and serving after all of these", async () => {
    await client.sync();
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    expect(await client.subscribeAndWait("/v2/assetOraclePrices")).toEqual({ type: "subscribed", channel: "/v2/assetOraclePrices" });
    client.unsubscribe("/v2/assetOraclePrices");
    await client.take((f) => f.type === "unsubscribed");
  });
});

describe("ping, ids, subscribe and unsubscribe", () => {
  it("ping is answered by exactly {type: pong}, id or not", async () => {
    client.send({ type: "ping" });
    expect(await client.take((f) => f.type === "pong")).toEqual({ type: "pong" });
    client.send({ type: "ping", id: "p-1" });
    expect(await client.take((f) => f.type === "pong")).toEqual({ type: "pong" });
  });

  it("the subscribe id is never echoed, whatever its type, and need not be unique", async () => {
    for (const id of ["abc", 12, "abc", { nested: true }]) {
      client.send({ type: "subscribe", channel: "/v2/perpMarkets/summary", id });
      expect(await client.take((f) => f.type === "subscribed")).toEqual({ type: "subscribed", channel: "/v2/perpMarkets/summary" });
    }
    client.send({ type: "unsubscribe", channel: "/v2/perpMarkets/summary", id: "abc" });
    expect(await client.take((f) => f.type === "unsubscribed")).toEqual({ type: "unsubscribed", channel: "/v2/perpMarkets/summary" });
  });

  it("unsubscribe stops the updates; unsubscribing a channel not held is still answered", async () => {
    const channel = "/v2/assetOraclePrices";
    await client.subscribeAndWait(channel);
    world.refreshPrices();
    await client.data(channel);
    client.unsubscribe(channel);
    expect(await client.take((f) => f.type === "unsubscribed")).toEqual({ type: "unsubscribed", channel });
    world.refreshPrices();
    world.advance(1_000);
    await client.sync();
    expect(client.drainData(channel)).toEqual([]);
    client.unsubscribe(channel);
    expect(await client.take((f) => f.type === "unsubscribed")).toEqual({ type: "unsubscribed", channel });
  });

  it("subscribing twice answers twice (a fresh snapshot) but never doubles the updates", async () => {
    const channel = `/v2/market/${ETH}/depth`;
    const first = await client.subscribeAndWait(channel);
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1800" });
    const second = await client.subscribeAndWait(channel);
    expect(first["contents"]).not.toEqual(second["contents"]);
    expect(second["contents"]).toEqual(world.context.queries.depthStreamSnapshot(ETH));
    await client.sync();
    client.drainData(channel);
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1801" });
    await client.sync();
    expect(client.drainData(channel)).toHaveLength(1);
    client.unsubscribe(channel);
    await client.take((f) => f.type === "unsubscribed");
  });

  it("unsubscribing with another spelling of the wallet ends the subscription", async () => {
    const lower = `/v2/wallet/${world.bob.address}/accountBalances`;
    const upper = `/v2/wallet/0x${world.bob.address.slice(2).toUpperCase()}/accountBalances`;
    await client.subscribeAndWait(lower);
    client.unsubscribe(upper);
    expect(await client.take((f) => f.type === "unsubscribed")).toEqual({ type: "unsubscribed", channel: upper });
    world.adminOk({ action: "deposit", accountId: 3, asset: "rUSD", amount: "1" });
    await client.sync();
    expect(client.drainData(lower)).toEqual([]);
  });
});

describe("snapshot failure (spec 7.5)", () => {
  it("is 'Error while fetching snapshot from {channel}', rolls the subscription back, and may be retried", async () => {
    const depth = `/v2/market/${ETH}/depth`;
    const orders = `/v2/wallet/${world.alice.address}/orderChanges`;
    const transfers = `/v2/wallet/${world.alice.address}/transfers`;
    expect((await client.subscribeAndWait(orders)).type).toBe("subscribed"); // held before the failure
    world.fault({ fault: "engineUnavailable", durationMs: 1_000 });
    for (const channel of [depth, orders, transfers]) {
      client.subscribe(channel, "retry-me");
      expect(await nextError()).toEqual({ type: "error", message: `Error while fetching snapshot from ${channel}`, channel });
    }
    // Channels without a snapshot subscribe as usual.
    expect((await client.subscribeAndWait("/v2/assetOraclePrices")).type).toBe("subscribed");
    world.advance(1_000); // the fault window ends
    world.adminOk({ action: "deposit", accountId: 2, asset: "rUSD", amount: "1" });
    world.rest(world.alice, { symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1700" });
    await client.sync();
    for (const channel of [depth, orders, transfers]) expect(client.drainData(channel), channel).toEqual([]);
    const retried = await client.subscribeAndWait(depth);
    expect(retried["contents"]).toEqual(world.context.queries.depthStreamSnapshot(ETH));
  });
});
