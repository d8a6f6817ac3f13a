/**
 * The built-in default world of `shadowbook serve` (no scenario), over real
 * sockets, with the manual clock (src/cli/serve.ts, src/live/house.ts):
 *  - two perp markets (ETHRUSDPERP 1, BTCRUSDPERP 2) and one spot market
 *    (WETHRUSD 5, WETH against rUSD);
 *  - the house publishes the first prices and quotes every book once when
 *    the server opens, at the start time, and acts again only when the clock
 *    is advanced: real time alone changes nothing;
 *  - after each advance every book, spot included, has bids and asks (one
 *    five-level post-only ladder per side, requoted every 5 s of virtual
 *    time), and the oracle moves every second of virtual time.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServe } from "../helpers/serve-process.ts";

const START_MS = 1_767_225_600_000;
const SYMBOLS = ["ETHRUSDPERP", "BTCRUSDPERP", "WETHRUSD"] as const;
/** Price levels per side of a house ladder (HouseOptions.levels). */
const LEVELS = 5;

interface Level {
  px: string;
  qty: string;
}
interface Depth {
  symbol: string;
  bids: Level[];
  asks: Level[];
  updatedAt: number;
}
interface OraclePrice {
  asset: string;
  oraclePrice: string;
  updatedAt: number;
}
interface State {
  virtualTime: number;
  fingerprint: string;
  counts: Record<string, number>;
}

let child: ChildProcess;
let base = "";
let banner = "";

async function get<T>(path: string): Promise<T> {
  const response = await fetch(base + path);
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

async function advance(advanceMs: number): Promise<number> {
  const response = await fetch(`${base}/admin/clock`, { method: "POST", body: JSON.stringify({ advanceMs }), headers: { "content-type": "application/json" } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { virtualTime: number }).virtualTime;
}

async function depths(): Promise<Depth[]> {
  return Promise.all(SYMBOLS.map((symbol) => get<Depth>(`/v2/market/${symbol}/depth`)));
}

async function oracle(): Promise<Map<string, OraclePrice>> {
  return new Map((await get<OraclePrice[]>("/v2/assetOraclePrices")).map((price) => [price.asset, price]));
}

/** Every book holds one house ladder, last quoted at `quotedAtMs`: LEVELS bids below LEVELS asks. */
function expectQuoted(books: Depth[], quotedAtMs: number): void {
  for (const book of books) {
    expect(book.bids, `${book.symbol} bids`).toHaveLength(LEVELS);
    expect(book.asks, `${book.symbol} asks`).toHaveLength(LEVELS);
    expect(Number(book.bids[0]!.px), `${book.symbol} is crossed`).toBeLessThan(Number(book.asks[0]!.px));
    expect(book.updatedAt, `${book.symbol} updatedAt`).toBe(quotedAtMs);
  }
}

beforeAll(async () => {
  // One process: node with tsx's loader, so the signal below reaches the server itself.
  const served = await spawnServe({ via: "tsx", args: ["--clock", "manual", "--port", "0", "--start", String(START_MS)] });
  child = served.child;
  banner = served.banner;
  base = served.origin;
}, 60_000); // a cold tsx start of the CLI can take over 10 s on a loaded machine // a cold tsx start of the CLI can take over 10 s on a loaded machine

afterAll(async () => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
});

describe("shadowbook serve without a scenario", () => {
  it("says it serves the built-in markets on the manual clock", () => {
    expect(banner).toContain("shadowbook serve: built-in markets and house market makers, manual clock, seed 1, exchangeId 1");
  });

  it("has ETHRUSDPERP (1), BTCRUSDPERP (2), WETHRUSD (spot, 5) and the rUSD and WETH assets", async () => {
    const perps = await get<{ symbol: string; marketId: number }[]>("/v2/perpMarketDefinitions");
    expect(perps.map(({ symbol, marketId }) => ({ symbol, marketId }))).toEqual([
      { symbol: "ETHRUSDPERP", marketId: 1 },
      { symbol: "BTCRUSDPERP", marketId: 2 },
    ]);
    const spots = await get<{ symbol: string; marketId: number; baseAsset: string; quoteAsset: string }[]>("/v2/spotMarketDefinitions");
    expect(spots.map(({ symbol, marketId, baseAsset, quoteAsset }) => ({ symbol, marketId, baseAsset, quoteAsset }))).toEqual([
      { symbol: "WETHRUSD", marketId: 5, baseAsset: "WETH", quoteAsset: "rUSD" },
    ]);
    const assets = (await get<{ asset: string }[]>("/v2/assetDefinitions")).map(({ asset }) => asset);
    expect(assets).toEqual(expect.arrayContaining(["rUSD", "WETH"]));
  });

  it("before any advance holds only the opening quote and prices, and real time alone changes nothing", async () => {
    const state = await get<State>("/admin/state");
    expect(state.virtualTime).toBe(START_MS);
    const books = await depths();
    expectQuoted(books, START_MS);
    const prices = await oracle();
    expect([...prices.values()].map((price) => price.updatedAt)).toEqual([START_MS, START_MS]);

    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(await get<State>("/admin/state")).toEqual(state);
    expect(await depths()).toEqual(books);
    expect(await oracle()).toEqual(prices);
  });

  it("after an advance past the requote interval, requotes every book, spot included, around moved prices", async () => {
    const before = await depths();
    const pricesBefore = await oracle();
    const now = await advance(6_000);
    expect(now).toBe(START_MS + 6_000);
    const books = await depths();
    expectQuoted(books, now);
    books.forEach((book, i) => expect(book, `${book.symbol} was not requoted`).not.toEqual(before[i]));
    const prices = await oracle();
    for (const asset of ["WETH", "WBTC"]) {
      expect(prices.get(asset)!.updatedAt).toBe(now);
      expect(prices.get(asset)!.oraclePrice).not.toBe(pricesBefore.get(asset)!.oraclePrice);
    }
    // The spot ladder sits around the spot market's base asset, WETH.
    const [spot] = books.filter((book) => book.symbol === "WETHRUSD");
    const weth = Number(prices.get("WETH")!.oraclePrice);
    expect(Number(spot!.bids[0]!.px)).toBeLessThan(weth);
    expect(Number(spot!.asks[0]!.px)).toBeGreaterThan(weth);
  });

  it("advancing further keeps every book quoted while the oracle moves each second", async () => {
    let quotedAt = (await get<State>("/admin/state")).virtualTime;
    let prices = await oracle();
    for (let step = 1; step <= 6; step++) {
      const now = await advance(1_000);
      const moved = await oracle();
      for (const asset of ["WETH", "WBTC"]) {
        expect(moved.get(asset)!.updatedAt).toBe(now);
        expect(moved.get(asset)!.oraclePrice, `${asset} at step ${step}`).not.toBe(prices.get(asset)!.oraclePrice);
      }
      prices = moved;
      // Requotes come every 5 s of virtual time; between them the ladders stay.
      if (now - quotedAt >= 5_000) quotedAt = now;
      expectQuoted(await depths(), quotedAt);
    }
    expect(quotedAt).toBe(START_MS + 11_000);
  });
});
