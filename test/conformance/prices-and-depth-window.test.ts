/**
 * The live mock's read surface (REST GET /v2 and the /ws stream) against
 * the contract (spec 2, 4.1, 4.4, 6, 7.5, 8.5), where the other conformance
 * files do not already look:
 *
 * - oraclePrice freshness (8.5, 2.9, 2.10) on the live server: present while
 *   the tick is at most 60 s old, omitted after, on REST and on the stream.
 * - The oracleStale fault: while it is open, order entry answers
 *   NO_PRICES_FOUND_FOR_SYMBOL_ERROR and the summaries and
 *   assetOraclePrices omit the oracle value (spec 2.9: "absent means no
 *   fresh value"). They published it as fresh before the fault moved into
 *   the risk layer's freshness (risk/prices.ts isFresh).
 * - Depth window (6.2) under changes the random-flow property of
 *   stream-depth.test.ts does not make: a cancelAll of a whole side, a sweep
 *   of 50 levels, modifyOrder moving an order across the top-100 boundary
 *   both ways, on a perp and on the spot book.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelAllPlan } from "../../src/client/actions/cancelAll.ts";
import { modifyOrderPlan, type ModifyOrderParameters } from "../../src/client/actions/modifyOrder.ts";
import { MarketSummary, SpotMarketSummary } from "../../src/spec/index.ts";
import type { Party } from "../exchange/gateway/harness.ts";
import { ETH, SPOT, startRestWorld, type RestWorld } from "./helpers/rest-world.ts";
import { ClientBook, expectValidFrames } from "./helpers/stream-checks.ts";
import { StreamWorld } from "./helpers/stream-world.ts";

describe("oraclePrice freshness on the live server (spec 2.9, 2.10, 8.5)", () => {
  let world: StreamWorld;
  beforeAll(async () => {
    world = await StreamWorld.start();
  });
  afterAll(async () => {
    await world.close();
  });

  it("is published while the tick is at most 60 s old and omitted once older, on REST and on the stream", async () => {
    const client = await world.connect();
    const channel = `/v2/perpMarket/${ETH}/summary`;
    await client.subscribeAndWait(channel);
    const rest = async (path: string) => (await fetch(world.running.urls.rest + path)).json() as Promise<any>;

    world.advance(60_000); // the ticks set at start are now exactly 60 s old: still fresh
    await client.sync();
    const fresh = client.drainData(channel).at(-1)!["data"] as any;
    expect(MarketSummary.parse(fresh).oraclePrice).toBe("2000");
    expect((await rest(`/perpMarket/${ETH}/summary`)).oraclePrice).toBe("2000");
    expect((await rest(`/spotMarket/${SPOT}/summary`)).oraclePrice).toBe("2000");

    world.advance(500); // 60.5 s: older than 60 s
    await client.sync();
    const stale = client.drainData(channel).at(-1)!["data"] as any;
    expect(MarketSummary.parse(stale)).not.toHaveProperty("oraclePrice");
    expect(stale).not.toHaveProperty("markPrice");
    const perp = await rest(`/perpMarket/${ETH}/summary`);
    expect(perp).not.toHaveProperty("oraclePrice");
    const spot = SpotMarketSummary.parse(await rest(`/spotMarket/${SPOT}/summary`));
    expect(spot).not.toHaveProperty("oraclePrice");
    expect(await rest("/assetOraclePrices")).toEqual([]);

    world.refreshPrices();
    world.advance(500);
    expect((await rest(`/perpMarket/${ETH}/summary`)).oraclePrice).toBe("2000");
    expectValidFrames(client);
  });
});

describe("the oracleStale fault and the published oracle price (spec 2.9, 7.3)", () => {
  let world: RestWorld;
  beforeAll(async () => {
    world = await startRestWorld();
  });
  afterAll(async () => {
    await world.close();
  });

  it("omits oraclePrice from the summaries while order entry says there is no fresh oracle price", async () => {
    await world.admin("faults", { oracleStaleMs: 30_000 });
    const refused = await world.post("/v2/createOrder", world.create(world.alice, { symbol: ETH, isBuy: true, qty: "0.1", limitPx: "1900", timeInForce: "GTC" }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("NO_PRICES_FOUND_FOR_SYMBOL_ERROR"); // "no fresh oracle price for ETHRUSDPERP"
    await world.advance(1_000); // a summary computed inside the fault window
    const perp = await world.ok(`/v2/perpMarket/${ETH}/summary`);
    // Spec 2.9: oraclePrice is "omitted when no fresh value exists ...; absent means no fresh value, not zero".
    expect(perp, "the summary publishes an oracle value the order gateway calls not fresh").not.toHaveProperty("oraclePrice");
  });
});

describe("the depth window under mass changes (spec 6.2, 8.5)", () => {
  let world: StreamWorld;
  beforeAll(async () => {
    world = await StreamWorld.start();
  });
  afterAll(async () => {
    await world.close();
  });

  function modify(party: Party, parameters: ModifyOrderParameters): void {
    const built = modifyOrderPlan(party.client, parameters).build({ nowMicros: world.context.driver.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    const answer = world.handle({ kind: "request", op: "modifyOrder", body: built.body });
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
  }

  function cancelAll(party: Party, symbol: string): void {
    const built = cancelAllPlan(party.client, { symbol } as never).build({ nowMicros: world.context.driver.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    expect(world.handle({ kind: "request", op: "cancelAll", body: built.body }).ok).toBe(true);
  }

  it.each([ETH, SPOT])("%s: SNAPSHOT + UPDATEs equal the REST top 100 after a cancelAll, a 50-level sweep and modifies across the boundary", async (symbol) => {
    const client = await world.connect();
    const channel = `/v2/market/${symbol}/depth`;
    const book = new ClientBook((await client.subscribeAndWait(channel))["contents"] as never);
    const expectBook = async (step: string) => {
      await client.sync();
      for (const frame of client.drainData(channel)) book.apply(frame["data"] as never);
      const view = world.context.queries.depth(symbol, 100)!;
      expect(book.view(), step).toEqual({ bids: view.bids, asks: view.asks });
    };
    const seller = symbol === ETH ? world.bob : world.carol;
    const bidPx = (k: number) => (1990 - k * 0.05).toFixed(2);
    const bids: string[] = [];
    for (let k = 0; k < 140; k++) bids.push(world.rest(world.alice, { symbol, isBuy: true, qty: "0.01", limitPx: bidPx(k) }));
    for (let k = 0; k < 140; k++) world.rest(seller, { symbol, isBuy: false, qty: "0.01", limitPx: (2010 + k * 0.05).toFixed(2) });
    await expectBook("seeded past 100 levels a side");
    modify(world.alice, { orderId: bids[130]!, symbol, isBuy: true, qty: "0.02", limitPx: "1995", timeInForce: "GTC", postOnly: false } as ModifyOrderParameters);
    await expectBook("a level from below the boundary to the top");
    modify(world.alice, { orderId: bids[0]!, symbol, isBuy: true, qty: "0.01", limitPx: bidPx(139.5), timeInForce: "GTC", postOnly: false } as ModifyOrderParameters);
    await expectBook("the best level to below the boundary");
    world.create(world.alice, { symbol, isBuy: true, qty: "0.5", limitPx: (2010 + 60 * 0.05).toFixed(2), timeInForce: "IOC" });
    await expectBook("a sweep of 50 ask levels");
    cancelAll(seller, symbol);
    await expectBook("cancelAll of every ask");
    for (let k = 0; k < 120; k++) world.rest(seller, { symbol, isBuy: false, qty: "0.01", limitPx: (2020 + k * 0.05).toFixed(2) });
    for (let k = 1; k < 40; k++) world.cancel(world.alice, { symbol, orderId: bids[k]! });
    await expectBook("120 asks rested and 39 bids cancelled between two reads");
    expectValidFrames(client);
  });
});
