/**
 * REST reads over a real socket (spec 4.1 and the routes the real service
 * has that the spec leaves unshown): every GET route answers with realistic
 * state (accounts and prices set through the admin API, perp and spot
 * trades and a bust made by signed POST /v2/createOrder requests, blocks
 * settled by advancing the manual clock), in the shape of the schema its
 * OpenAPI entry is generated from; then the error answers: bad path and
 * query parameters (400 INPUT_VALIDATION_ERROR), unknown symbols (400
 * SYMBOL_NOT_FOUND_ERROR), unknown wallets (200, empty), removed and unknown
 * routes (404), wrong methods (405), HEAD and OPTIONS, and a failing read
 * (500 ServerError without a stack trace).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_ROUTES, type RestRoute } from "../../src/live/api-docs.ts";
import { RequestError, ServerError } from "../../src/spec/errors.ts";
import { ETH, NOBODY, SPOT, startRestWorld, type RestWorld } from "./helpers/rest-world.ts";

const BTC = "BTCRUSDPERP";
let w: RestWorld;
let aliceRestingId: string;
let bobRestingId: string;
const covered = new Set<string>();

function route(operationId: string): RestRoute {
  const found = REST_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (found === undefined) throw new Error(`no route ${operationId}`);
  return found;
}

/** GET that must answer 200 with the body its route's schema describes. */
async function read(operationId: string, path: string): Promise<any> {
  const schema = route(operationId).response;
  const body = await w.ok(path);
  covered.add(operationId);
  if (schema !== "yaml") schema.parse(body);
  return body;
}

beforeAll(async () => {
  w = await startRestWorld();
  // A settled perp trade: alice long 0.1 ETH from bob at 2000.
  await w.trade(w.alice, w.bob, "0.1");
  // A settled spot trade: carol sells 0.2 WETH to alice at 2000.
  await w.rest(w.carol, { symbol: SPOT, isBuy: false, qty: "0.5", limitPx: "2000" });
  expect((await w.entry("createOrder", w.create(w.alice, { symbol: SPOT, isBuy: true, qty: "0.2", limitPx: "2000", timeInForce: "IOC" }))).status).toBe("FILLED");
  await w.advance(200);
  // A busted perp match.
  await w.admin("faults", { bustNext: { count: 1, reasonName: "InjectedFailure" } });
  await w.rest(w.bob, { symbol: ETH, isBuy: false, qty: "0.05", limitPx: "2000" });
  expect((await w.entry("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.05", limitPx: "2000", timeInForce: "IOC" }))).status).toBe("FILLED");
  await w.advance(200);
  // Resting orders on both sides of the ETH book.
  aliceRestingId = await w.rest(w.alice, { isBuy: true, qty: "0.02", limitPx: "1900", clientOrderId: "77" });
  bobRestingId = await w.rest(w.bob, { isBuy: false, qty: "0.03", limitPx: "2100" });
  await w.rest(w.bob, { isBuy: false, qty: "0.01", limitPx: "2200" });
  await w.advance(1_000); // a summary cadence passes
});

afterAll(async () => {
  await w?.close();
});

describe("Reference data", () => {
  it("lists the perp and spot market definitions, the assets, the fee tiers and the global fees of the configuration", async () => {
    const perps = await read("getPerpMarketDefinitions", "/v2/perpMarketDefinitions");
    expect(perps.map((m: any) => [m.symbol, m.marketId, m.tickSize, m.maxLeverage])).toEqual([
      [ETH, 1, "0.01", 20],
      [BTC, 2, "0.1", 20],
    ]);
    const spots = await read("getSpotMarketDefinitions", "/v2/spotMarketDefinitions");
    expect(spots).toEqual([{ symbol: SPOT, marketId: 5, baseAsset: "WETH", quoteAsset: "rUSD", minOrderQty: "0.001", qtyStepSize: "0.001", tickSize: "0.01" }]);
    const assets = await read("getAssetDefinitions", "/v2/assetDefinitions");
    expect(assets.map((a: any) => [a.asset, a.status, a.decimals])).toEqual([
      ["rUSD", "ENABLED", 6],
      ["WETH", "ENABLED", 18],
      ["WBTC", "ENABLED", 8],
    ]);
    expect(assets[1].spotMarketSymbol).toBe(SPOT);
    expect(assets[0]).not.toHaveProperty("spotMarketSymbol");
    expect(await read("getGlobalFeeParameters", "/v2/globalFeeParameters")).toEqual({ ogDiscount: "0.1", refereeDiscount: "0.05", referrerRebate: "0.1", affiliateReferrerRebate: "0.2" });
    const tiers = await read("getFeeTiers", "/v2/feeTiers");
    expect(tiers.map((t: any) => [t.tierId, t.takerFee, t.tierType])).toEqual([
      [1, "0.0004", "REGULAR"],
      [2, "0.00035", "REGULAR"],
      [3, "0.0003", "REGULAR"],
      [10, "0.0002", "VIP"],
    ]);
  });
});

describe("Market data", () => {
  it("summarises the perp markets, with the trade's open interest and volume, all and one by one", async () => {
    const all = await read("getPerpMarketsSummary", "/v2/perpMarkets/summary");
    expect(all.map((s: any) => s.symbol)).toEqual([ETH, BTC]);
    const eth = await read("getPerpMarketSummary", `/v2/perpMarket/${ETH}/summary`);
    expect(eth).toEqual(all[0]);
    expect(eth).toMatchObject({ symbol: ETH, oiQty: "0.1", volume24h: "200", oraclePrice: "2000", markPrice: expect.any(String) });
    expect(eth.updatedAt).toBeGreaterThan(w.nowMs() - 2_000);
    expect(await read("getPerpMarketSummary", `/v2/perpMarket/${BTC}/summary`)).toMatchObject({ symbol: BTC, oiQty: "0", oraclePrice: "60000" });
  });

  it("summarises the spot markets, all and one by one", async () => {
    const all = await read("getSpotMarketsSummary", "/v2/spotMarkets/summary");
    expect(all.map((s: any) => s.symbol)).toEqual([SPOT]);
    const spot = await read("getSpotMarketSummary", `/v2/spotMarket/${SPOT}/summary`);
    expect(spot).toEqual(all[0]);
    expect(spot).toMatchObject({ symbol: SPOT, volume24h: "400", oraclePrice: "2000" });
  });

  it("answers depth as a SNAPSHOT of the resting levels, bids descending and asks ascending, bounded by limit", async () => {
    const depth = await read("getMarketDepth", `/v2/market/${ETH}/depth`);
    expect(depth).toMatchObject({ symbol: ETH, type: "SNAPSHOT" });
    expect(depth.bids).toEqual([{ px: "1900", qty: "0.02" }]);
    expect(depth.asks).toEqual([
      { px: "2100", qty: "0.03" },
      { px: "2200", qty: "0.01" },
    ]);
    expect((await read("getMarketDepth", `/v2/market/${ETH}/depth?limit=1`)).asks).toEqual([{ px: "2100", qty: "0.03" }]);
    const spotDepth = await read("getMarketDepth", `/v2/market/${SPOT}/depth`);
    expect(spotDepth.asks).toEqual([{ px: "2000", qty: "0.3" }]);
    expect(spotDepth.bids).toEqual([]);
  });

  it("lists a market's settled executions and busts as {data, meta} pages, newest first", async () => {
    const perp = await read("getMarketPerpExecutions", `/v2/market/${ETH}/perpExecutions`);
    expect(perp.meta).toEqual({ limit: 100 });
    expect(perp.data).toHaveLength(1);
    expect(perp.data[0]).toMatchObject({ symbol: ETH, takerAccountId: 2, makerAccountId: 3, qty: "0.1", side: "B", price: "2000", type: "ORDER_MATCH" });
    expect((await read("getMarketPerpExecutions", `/v2/market/${BTC}/perpExecutions`)).data).toEqual([]);
    const spot = await read("getMarketSpotExecutions", `/v2/market/${SPOT}/spotExecutions`);
    expect(spot.data).toHaveLength(1);
    expect(spot.data[0]).toMatchObject({ symbol: SPOT, takerAccountId: 2, makerAccountId: 4, qty: "0.2", side: "B", price: "2000" });
    const busts = await read("getMarketExecutionBusts", `/v2/market/${ETH}/executionBusts`);
    expect(busts.data).toHaveLength(1);
    expect(busts.data[0]).toMatchObject({ symbol: ETH, takerAccountId: 2, makerAccountId: 3, qty: "0.05", reason: { reasonName: "InjectedFailure", args: {} } });
    expect((await read("getMarketExecutionBusts", `/v2/market/${SPOT}/executionBusts`)).data).toEqual([]);
  });

  it("lists the assets' oracle prices", async () => {
    const prices = await read("getAssetOraclePrices", "/v2/assetOraclePrices");
    const byAsset = new Map(prices.map((p: any) => [p.asset, p.oraclePrice]));
    expect(byAsset.get("WETH")).toBe("2000");
    expect(byAsset.get("WBTC")).toBe("60000");
  });
});

describe("Wallet data", () => {
  it("lists open orders as a plain array of Order rows (no sequenceNumber)", async () => {
    const orders = await read("getWalletOpenOrders", `/v2/wallet/${w.alice.address}/openOrders`);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ orderId: aliceRestingId, clientOrderId: "77", symbol: ETH, accountId: 2, side: "B", limitPx: "1900", qty: "0.02", status: "OPEN", timeInForce: "GTC" });
    expect(orders[0]).not.toHaveProperty("sequenceNumber");
    const bobs = await read("getWalletOpenOrders", `/v2/wallet/${w.bob.address}/openOrders`);
    expect(bobs.map((o: any) => o.orderId)).toContain(bobRestingId);
  });

  it("lists order history newest first, with sequence numbers, as an OrderHistoryList", async () => {
    const history = await read("getWalletOrderHistory", `/v2/wallet/${w.alice.address}/orderHistory`);
    expect(history.meta).toEqual({ limit: 100 });
    const sequence = history.data.map((row: any) => row.sequenceNumber);
    expect(sequence).toEqual([...sequence].sort((a: number, b: number) => b - a));
    expect(history.data[0]).toMatchObject({ orderId: aliceRestingId, status: "OPEN" });
    expect(history.data.some((row: any) => row.symbol === SPOT && row.status === "FILLED")).toBe(true);
  });

  it("lists the ledger as a TransferList, newest first", async () => {
    const transfers = await read("getWalletTransfers", `/v2/wallet/${w.alice.address}/transfers`);
    expect(transfers.meta).toEqual({ limit: 100 });
    const types = transfers.data.map((entry: any) => entry.type);
    expect(types[types.length - 1]).toBe("DEPOSIT");
    expect(types).toContain("PERP_FEE");
    expect(types).toContain("SPOT_LEG");
    const ids = transfers.data.map((entry: any) => BigInt(entry.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
  });

  it("lists the wallet's executions and busts as pages, its positions, balances, accounts and configuration", async () => {
    const perp = await read("getWalletPerpExecutions", `/v2/wallet/${w.alice.address}/perpExecutions`);
    expect(perp.data.map((e: any) => [e.qty, e.takerAccountId])).toEqual([["0.1", 2]]);
    expect((await read("getWalletPerpExecutions", `/v2/wallet/${w.bob.address}/perpExecutions`)).data).toEqual(perp.data); // the maker sees the same record
    const spot = await read("getWalletSpotExecutions", `/v2/wallet/${w.carol.address}/spotExecutions`);
    expect(spot.data.map((e: any) => [e.qty, e.makerAccountId])).toEqual([["0.2", 4]]);
    const busts = await read("getWalletExecutionBusts", `/v2/wallet/${w.bob.address}/executionBusts`);
    expect(busts.data.map((b: any) => b.qty)).toEqual(["0.05"]);
    expect(await read("getWalletPositions", `/v2/wallet/${w.alice.address}/positions`)).toEqual([
      { exchangeId: 1, symbol: ETH, accountId: 2, qty: "0.1", side: "B", avgEntryPrice: "2000", avgEntryFundingValue: expect.any(String), lastTradeSequenceNumber: perp.data[0].sequenceNumber },
    ]);
    const balances = await read("getWalletAccountBalances", `/v2/wallet/${w.carol.address}/accountBalances`);
    expect(new Map(balances.map((b: any) => [b.asset, b.realBalance])).get("WETH")).toBe("1.8");
    expect(await read("getWalletAccounts", `/v2/wallet/${w.alice.address}/accounts`)).toEqual([
      { accountId: 2, ownerWallet: w.alice.address.toLowerCase(), signers: [w.alice.address.toLowerCase()] },
    ]);
    expect(await read("getWalletConfiguration", `/v2/wallet/${w.alice.address}/configuration`)).toEqual({ feeTierId: 1, ogStatus: false, affiliateStatus: false, refereeStatus: false });
  });

  it("reads a wallet the same in any letter case", async () => {
    const lower = await w.ok(`/v2/wallet/${w.alice.address.toLowerCase()}/openOrders`);
    const upper = await w.ok(`/v2/wallet/0x${w.alice.address.slice(2).toUpperCase()}/openOrders`);
    expect(upper).toEqual(lower);
    expect(lower).toHaveLength(1);
  });

  it("answers an unknown but well-formed wallet with 200 and empty results on every wallet route", async () => {
    const expected: Record<string, unknown> = {
      orderHistory: { data: [], meta: { limit: 100 } },
      transfers: { data: [], meta: { limit: 100 } },
      openOrders: [],
      perpExecutions: { data: [], meta: { limit: 100 } },
      spotExecutions: { data: [], meta: { limit: 100 } },
      executionBusts: { data: [], meta: { limit: 100 } },
      positions: [],
      accountBalances: [],
      accounts: [],
      configuration: { feeTierId: 1, ogStatus: false, affiliateStatus: false, refereeStatus: false },
    };
    const walletRoutes = REST_ROUTES.filter((r) => r.path.startsWith("/v2/wallet/"));
    expect(walletRoutes.map((r) => r.path.split("/").pop()).sort()).toEqual(Object.keys(expected).sort());
    for (const [leaf, body] of Object.entries(expected)) expect(await w.ok(`/v2/wallet/${NOBODY}/${leaf}`), leaf).toEqual(body);
  });
});

describe("Bad parameters", () => {
  const symbolRoutes = REST_ROUTES.filter((r) => r.path.includes("{symbol}"));
  const walletRoutes = REST_ROUTES.filter((r) => r.path.includes("{address}"));

  async function expectRequestError(path: string, code: string, mentions: string[] = []): Promise<void> {
    const answer = await w.get(path);
    expect(answer.status, `${path}: ${answer.text}`).toBe(400);
    const error = RequestError.parse(answer.body);
    expect(error.error, path).toBe(code);
    for (const mention of mentions) expect(error.message).toContain(mention);
    expect(error).not.toHaveProperty("retryAfterMs");
  }

  it("answers a symbol off its pattern with 400 INPUT_VALIDATION_ERROR on every symbol route", async () => {
    expect(symbolRoutes).toHaveLength(6);
    for (const r of symbolRoutes) {
      await expectRequestError(r.path.replace("{symbol}", "ETH-PERP"), "INPUT_VALIDATION_ERROR", ['symbol "ETH-PERP"']);
      await expectRequestError(r.path.replace("{symbol}", "ETH%2FPERP"), "INPUT_VALIDATION_ERROR", ['symbol "ETH/PERP"']);
    }
  });

  it("answers a well-formed symbol that names no market with 400 SYMBOL_NOT_FOUND_ERROR on every symbol route", async () => {
    for (const r of symbolRoutes) await expectRequestError(r.path.replace("{symbol}", "DOGERUSDPERP"), "SYMBOL_NOT_FOUND_ERROR", ['"DOGERUSDPERP"']);
    await expectRequestError(`/v2/market/${ETH.toLowerCase()}/depth`, "SYMBOL_NOT_FOUND_ERROR"); // symbols are case-sensitive
  });

  it("answers a symbol of the wrong kind of market with 400 SYMBOL_NOT_FOUND_ERROR", async () => {
    await expectRequestError(`/v2/perpMarket/${SPOT}/summary`, "SYMBOL_NOT_FOUND_ERROR", ["spot market"]);
    await expectRequestError(`/v2/market/${SPOT}/perpExecutions`, "SYMBOL_NOT_FOUND_ERROR", ["spot market"]);
    await expectRequestError(`/v2/spotMarket/${ETH}/summary`, "SYMBOL_NOT_FOUND_ERROR", ["perp market"]);
    await expectRequestError(`/v2/market/${ETH}/spotExecutions`, "SYMBOL_NOT_FOUND_ERROR", ["perp market"]);
  });

  it("answers an address off its pattern with 400 INPUT_VALIDATION_ERROR on every wallet route", async () => {
    expect(walletRoutes).toHaveLength(10);
    for (const r of walletRoutes) {
      for (const bad of ["0x1234", `${NOBODY}00`, `0x${"g".repeat(40)}`, NOBODY.slice(2)]) {
        await expectRequestError(r.path.replace("{address}", bad), "INPUT_VALIDATION_ERROR", [`address "${bad}"`]);
      }
    }
  });

  it("answers a limit out of range or malformed with 400 INPUT_VALIDATION_ERROR, per route maximum", async () => {
    const cases: [string, number][] = [
      [`/v2/market/${ETH}/depth`, 1000],
      [`/v2/wallet/${NOBODY}/orderHistory`, 100],
      [`/v2/wallet/${NOBODY}/transfers`, 1000],
      [`/v2/market/${ETH}/perpExecutions`, 1000],
      [`/v2/wallet/${NOBODY}/executionBusts`, 1000],
    ];
    for (const [path, max] of cases) {
      expect((await w.get(`${path}?limit=${max}`)).status, path).toBe(200);
      await expectRequestError(`${path}?limit=${max + 1}`, "INPUT_VALIDATION_ERROR", [`limit ${max + 1}`, `[1, ${max}]`]);
      await expectRequestError(`${path}?limit=0`, "INPUT_VALIDATION_ERROR", ["limit 0"]);
      for (const bad of ["-1", "1.5", "abc", "", "1e2"]) await expectRequestError(`${path}?limit=${bad}`, "INPUT_VALIDATION_ERROR", [`limit "${bad}"`]);
      await expectRequestError(`${path}?limit=5&limit=6`, "INPUT_VALIDATION_ERROR", ["limit", "2 times"]);
    }
  });

  it("reads an integer parameter by its value: leading zeros do not make a small one 'beyond the safe integer range'", async () => {
    const depth = `/v2/market/${ETH}/depth`;
    const padded = `${"0".repeat(20)}2`;
    const view = await w.ok(`${depth}?limit=${padded}`);
    expect(view.bids.length).toBeLessThanOrEqual(2);
    expect(view.asks.length).toBeLessThanOrEqual(2);
    expect((await w.ok(`/v2/market/${ETH}/perpExecutions?limit=${padded}`)).meta.limit).toBe(2);
    // Still refused: a value beyond the range, however it is written, and a padded one beyond the route's maximum.
    await expectRequestError(`${depth}?limit=0${Number.MAX_SAFE_INTEGER + 1}`, "INPUT_VALIDATION_ERROR", ["beyond the safe integer range"]);
    await expectRequestError(`${depth}?limit=${"0".repeat(20)}1001`, "INPUT_VALIDATION_ERROR", ["limit 1001", "[1, 1000]"]);
  });

  it("answers bad time filters, cursors and transfer types with 400 INPUT_VALIDATION_ERROR", async () => {
    const history = `/v2/wallet/${w.alice.address}/orderHistory`;
    await expectRequestError(`${history}?startTime=abc`, "INPUT_VALIDATION_ERROR", ['startTime "abc"']);
    await expectRequestError(`${history}?endTime=-5`, "INPUT_VALIDATION_ERROR", ['endTime "-5"']);
    await expectRequestError(`${history}?startTime=10&endTime=9`, "INPUT_VALIDATION_ERROR", ["startTime 10 is after endTime 9"]);
    const transfers = `/v2/wallet/${w.alice.address}/transfers`;
    await expectRequestError(`${transfers}?cursor=not-a-cursor`, "INPUT_VALIDATION_ERROR", ['cursor "not-a-cursor"']);
    await expectRequestError(`${transfers}?cursor=`, "INPUT_VALIDATION_ERROR", ["cursor"]);
    await expectRequestError(`${transfers}?type=BRIBE`, "INPUT_VALIDATION_ERROR", ['type "BRIBE"', "DEPOSIT"]);
    await expectRequestError(`/v2/market/${ETH}/perpExecutions?startTime=2&endTime=1`, "INPUT_VALIDATION_ERROR", ["startTime 2"]);
  });

  it("ignores query parameters a route does not take", async () => {
    expect(await w.ok("/v2/feeTiers?limit=abc&foo=1")).toHaveLength(4);
    expect((await w.ok(`/v2/wallet/${w.alice.address}/openOrders?startTime=x`)).length).toBe(1);
  });
});

describe("Routing", () => {
  it("answers the routes removed in 3.x with 404 and names what replaces them", async () => {
    const removed: [string, string][] = [
      ["/v2/marketDefinitions", "/v2/perpMarketDefinitions"],
      ["/v2/liquidityParameters", "no replacement"],
      ["/v2/prices", "/v2/assetOraclePrices"],
      [`/v2/prices/${ETH}`, "/v2/assetOraclePrices"],
      ["/v2/markets/summary", "/v2/perpMarkets/summary"],
      [`/v2/market/${ETH}/summary`, "/v2/perpMarket/{symbol}/summary"],
      [`/v2/market/${SPOT}/spotExecutionBusts`, "/v2/market/{symbol}/executionBusts"],
      [`/v2/wallet/${w.alice.address}/spotExecutionBusts`, "/v2/wallet/{address}/executionBusts"],
    ];
    for (const [path, instead] of removed) {
      const answer = await w.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toBe("NOT_FOUND");
      expect(answer.body.message).toContain("removed");
      expect(answer.body.message).toContain(instead);
    }
  });

  it("answers an unknown route with 404 and a JSON body", async () => {
    for (const path of ["/v2", "/v2/", "/v2/nothing", "/v2/feeTiers/", "/v2/market/ETHRUSDPERP", `/v2/wallet/${NOBODY}/unknown`, "/v2/perpMarket//summary"]) {
      const answer = await w.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get("content-type")).toContain("application/json");
      expect(answer.body).toEqual({ error: "NOT_FOUND", message: expect.stringContaining(path) });
    }
  });

  it("answers a plain HTTP request to /ws or /exec with 426 Upgrade Required, not 404: the endpoints exist, as WebSockets", async () => {
    for (const path of ["/ws", "/exec", "/ws?x=1"]) {
      const answer = await w.get(path);
      expect(answer.status, path).toBe(426);
      expect(answer.headers.get("upgrade"), path).toBe("websocket");
      expect(answer.body, path).toEqual({ error: "UPGRADE_REQUIRED", message: expect.stringContaining("WebSocket") });
    }
    expect((await w.get("/wss")).status).toBe(404);
  });

  it("answers a method a route does not take with 405 and an Allow header", async () => {
    const del = await w.request("DELETE", "/v2/feeTiers");
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(del.body).toMatchObject({ error: "METHOD_NOT_ALLOWED" });
    const post = await w.post("/v2/perpMarketDefinitions", {});
    expect(post.status).toBe(405);
    const get = await w.get("/v2/createOrder");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("answers HEAD like GET without a body, and OPTIONS as a CORS preflight; every answer allows any origin", async () => {
    const head = await w.request("HEAD", "/v2/feeTiers");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(Number(head.headers.get("content-length"))).toBe(JSON.stringify(await w.ok("/v2/feeTiers")).length);
    const options = await w.request("OPTIONS", "/v2/createOrder");
    expect(options.status).toBe(204);
    expect(options.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(options.headers.get("access-control-allow-headers")).toBe("content-type");
    for (const path of ["/v2/feeTiers", "/v2/nothing", `/v2/market/FOO/depth`]) expect((await w.get(path)).headers.get("access-control-allow-origin"), path).toBe("*");
  });

  it("answers a failing read with 500 ServerError and no stack trace", async () => {
    const queries = w.running.context.queries;
    const original = queries.feeTiers;
    queries.feeTiers = () => {
      throw new Error("read model exploded at /secret/path.ts:12");
    };
    try {
      const answer = await w.get("/v2/feeTiers");
      expect(answer.status).toBe(500);
      expect(ServerError.parse(answer.body)).toEqual({ error: "INTERNAL_SERVER_ERROR", message: expect.any(String) });
      expect(answer.text).not.toContain("exploded");
      expect(answer.text).not.toContain("secret");
      expect(answer.text).not.toMatch(/\bat\b.*:\d+/);
    } finally {
      queries.feeTiers = original;
    }
    expect((await w.get("/v2/feeTiers")).status).toBe(200);
  });
});

describe("Every GET route", () => {
  it("was read above with a body that parses with the schema of its OpenAPI entry", () => {
    const gets = REST_ROUTES.filter((r) => r.method === "GET" && r.response !== "yaml").map((r) => r.operationId);
    expect(gets).toHaveLength(24);
    expect([...covered].sort()).toEqual([...gets].sort());
  });
});
