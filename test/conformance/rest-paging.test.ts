/**
 * Paging, limits and time filters of the REST listings over a real socket:
 * orderHistory (newest first, at most 100, startTime/endTime inclusive on
 * lastUpdateAt, meta echoing them, paging back by endTime with the overlap
 * removed by sequenceNumber, or by the opaque cursor, which also gets past
 * more than a page of rows with one lastUpdateAt), transfers (opaque cursor, type and time
 * filters), executions (time filters and limit), and the depth limit
 * (default 100 levels per side, at most 1000).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETH, Party, startRestWorld, START_MICROS, type RestWorld } from "./helpers/rest-world.ts";
import { privateKey } from "../exchange/gateway/harness.ts";

let w: RestWorld;
/** The virtual time (ms) of each group of alice's order updates: [placed, cancelled] per round. */
const groupTimes: number[] = [];

async function historyPage(query: string): Promise<any> {
  return w.ok(`/v2/wallet/${w.alice.address}/orderHistory${query}`);
}

beforeAll(async () => {
  w = await startRestWorld();
  // Tier 3: no open-order caps and a high request rate, so that one wallet can rest many orders.
  await w.admin(`wallets/${w.alice.address}`, { rateTier: 3 });
  await w.admin(`wallets/${w.bob.address}`, { rateTier: 3 });
  for (let round = 0; round < 3; round++) {
    await w.advance(1_000);
    groupTimes.push(w.nowMs());
    for (let i = 0; i < 20; i++) await w.rest(w.alice, { isBuy: true, qty: "0.001", limitPx: (1000 + round * 100 + i).toFixed(2) });
    await w.advance(1_000);
    groupTimes.push(w.nowMs());
    expect((await w.entry("cancelAll", w.cancelAll(w.alice, {}))).cancelledCount).toBe(20);
  }
});

afterAll(async () => {
  await w?.close();
});

describe("orderHistory", () => {
  it("returns at most 100 rows, newest first, and meta echoes the limit", async () => {
    const page = await historyPage("");
    expect(page.meta).toEqual({ limit: 100, nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/) });
    expect(page.data).toHaveLength(100);
    const sequence = page.data.map((row: any) => row.sequenceNumber);
    expect(sequence).toEqual([...sequence].sort((a: number, b: number) => b - a));
    expect(page.data[0]).toMatchObject({ status: "CANCELLED", lastUpdateAt: groupTimes[5] });
    expect(await historyPage("?limit=100")).toEqual(page);
    const seven = await historyPage("?limit=7");
    expect(seven).toEqual({ data: page.data.slice(0, 7), meta: { limit: 7, nextCursor: expect.any(String) } });
  });

  it("filters on lastUpdateAt with inclusive bounds, and meta echoes them", async () => {
    const [, cancelled0, placed1, cancelled1] = groupTimes as [number, number, number, number];
    const page = await historyPage(`?startTime=${cancelled0}&endTime=${placed1}`);
    expect(page.meta).toEqual({ limit: 100, startTime: cancelled0, endTime: placed1 });
    expect(page.data).toHaveLength(40);
    expect(new Set(page.data.map((row: any) => row.lastUpdateAt))).toEqual(new Set([cancelled0, placed1]));
    expect(page.data.slice(0, 20).every((row: any) => row.status === "OPEN")).toBe(true);
    expect(page.data.slice(20).every((row: any) => row.status === "CANCELLED")).toBe(true);
    expect((await historyPage(`?startTime=${cancelled1 + 1}&endTime=${cancelled1 + 1}`)).data).toEqual([]);
    const from = await historyPage(`?startTime=${cancelled1}`);
    expect(from.meta).toEqual({ limit: 100, startTime: cancelled1 });
    expect(from.data).toHaveLength(60);
    const until = await historyPage(`?endTime=${placed1 - 1}&limit=50`);
    expect(until.meta).toEqual({ limit: 50, endTime: placed1 - 1 });
    expect(until.data).toHaveLength(40);
    expect(until.data.every((row: any) => row.lastUpdateAt <= placed1 - 1)).toBe(true);
  });

  it("pages back by endTime, the overlap removed by sequenceNumber, to the whole history", async () => {
    const seen = new Map<number, any>();
    let endTime: number | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await historyPage(`?limit=30${endTime === undefined ? "" : `&endTime=${endTime}`}`);
      const fresh = page.data.filter((row: any) => !seen.has(row.sequenceNumber));
      for (const row of fresh) seen.set(row.sequenceNumber, row);
      if (fresh.length === 0 || page.data.length < 30) break;
      endTime = page.data[page.data.length - 1].lastUpdateAt;
    }
    expect(seen.size).toBe(120);
    const placed = [...seen.values()].filter((row) => row.status === "OPEN");
    const cancelled = [...seen.values()].filter((row) => row.status === "CANCELLED");
    expect(placed).toHaveLength(60);
    expect(cancelled).toHaveLength(60);
    expect(new Set(cancelled.map((row) => row.orderId))).toEqual(new Set(placed.map((row) => row.orderId)));
  });

  it("pages by cursor through the whole history, each row once, also past more than a page of rows with one lastUpdateAt", async () => {
    // 110 orders placed and cancelled at one virtual time: 220 rows with one lastUpdateAt.
    await w.advance(1_000);
    const tie = w.nowMs();
    for (let i = 0; i < 110; i++) await w.rest(w.alice, { isBuy: true, qty: "0.001", limitPx: (1500 + i).toFixed(2) });
    expect((await w.entry("cancelAll", w.cancelAll(w.alice, {}))).cancelledCount).toBe(110);
    // Paging by endTime stops at the tie: every page is the same 100 newest rows.
    const byTime = await historyPage(`?endTime=${tie}`);
    expect((await historyPage(`?endTime=${byTime.data[99].lastUpdateAt}`)).data).toEqual(byTime.data);
    const sequence: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await historyPage(`?limit=64${cursor === undefined ? "" : `&cursor=${cursor}`}`);
      pages++;
      expect(page.data.length).toBeGreaterThan(0);
      sequence.push(...page.data.map((row: any) => row.sequenceNumber));
      cursor = page.meta.nextCursor;
      expect(page.meta).toEqual(cursor === undefined ? { limit: 64 } : { limit: 64, nextCursor: cursor });
    } while (cursor !== undefined && pages < 20);
    expect(sequence).toHaveLength(120 + 220);
    expect(sequence).toEqual([...sequence].sort((a, b) => b - a));
    expect(new Set(sequence).size).toBe(sequence.length);
    // The cursor keeps the filters of its page: the tie alone, in two pages.
    const first = await historyPage(`?startTime=${tie}&endTime=${tie}`);
    const second = await historyPage(`?startTime=${tie}&endTime=${tie}&cursor=${first.meta.nextCursor}`);
    expect(first.meta).toEqual({ limit: 100, startTime: tie, endTime: tie, nextCursor: expect.any(String) });
    expect(first.data.length + second.data.length).toBeLessThanOrEqual(220);
    expect(second.data.every((row: any) => row.lastUpdateAt === tie && row.sequenceNumber < first.data[99].sequenceNumber)).toBe(true);
  });

  it("refuses a cursor it did not issue (INPUT_VALIDATION_ERROR), a transfers cursor included", async () => {
    for (const cursor of ["junk", "dDox", Buffer.from("o:x").toString("base64url"), "%00"]) {
      const answer = await w.get(`/v2/wallet/${w.alice.address}/orderHistory?cursor=${cursor}`);
      expect(answer.status, cursor).toBe(400);
      expect(answer.body, cursor).toMatchObject({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("cursor") });
    }
  });
});

describe("transfers", () => {
  let dave: Party;
  const times: number[] = [];

  beforeAll(async () => {
    dave = new Party("dave", privateKey(4), 9, { now: () => w.now() });
    await w.admin("accounts", { wallet: dave.address, accountId: 9, deposits: { rUSD: "100" } });
    times.push(w.nowMs());
    for (let i = 1; i <= 8; i++) {
      await w.advance(1_000);
      times.push(w.nowMs());
      if (i % 3 === 0) await w.admin("withdrawals", { accountId: 9, asset: "rUSD", amount: "1" });
      else await w.admin("deposits", { accountId: 9, asset: i % 2 === 0 ? "WETH" : "rUSD", amount: `${i}` });
    }
  });

  async function transfers(query: string): Promise<any> {
    return w.ok(`/v2/wallet/${dave.address}/transfers${query}`);
  }

  it("lists every ledger entry newest first, one per leg, amounts signed", async () => {
    const all = await transfers("");
    expect(all.meta).toEqual({ limit: 100 });
    expect(all.data.map((entry: any) => [entry.type, entry.asset, entry.amount])).toEqual([
      ["DEPOSIT", "WETH", "8"],
      ["DEPOSIT", "rUSD", "7"],
      ["WITHDRAWAL", "rUSD", "-1"],
      ["DEPOSIT", "rUSD", "5"],
      ["DEPOSIT", "WETH", "4"],
      ["WITHDRAWAL", "rUSD", "-1"],
      ["DEPOSIT", "WETH", "2"],
      ["DEPOSIT", "rUSD", "1"],
      ["DEPOSIT", "rUSD", "100"],
    ]);
    expect(all.data.map((entry: any) => entry.timestamp)).toEqual([...times].reverse());
    expect(all.data[1].netDepositsAfter).toBe("111"); // 100 + 1 - 1 + 5 - 1 + 7
  });

  it("pages with the opaque cursor until no nextCursor is left, each entry once", async () => {
    const all = (await transfers("")).data;
    const collected: any[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await transfers(`?limit=4${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(4);
      expect(page.meta.limit).toBe(4);
      collected.push(...page.data);
      cursor = page.meta.nextCursor;
      if (cursor !== undefined) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(collected).toEqual(all);
  });

  it("filters by type and by inclusive time bounds, also across cursor pages", async () => {
    const withdrawals = await transfers("?type=WITHDRAWAL");
    expect(withdrawals.data.map((entry: any) => entry.timestamp)).toEqual([times[6], times[3]]);
    const deposits = await transfers("?type=DEPOSIT&limit=5");
    expect(deposits.data).toHaveLength(5);
    expect(deposits.data.every((entry: any) => entry.type === "DEPOSIT")).toBe(true);
    const rest = await transfers(`?type=DEPOSIT&limit=5&cursor=${deposits.meta.nextCursor}`);
    expect(deposits.data.map((entry: any) => entry.amount)).toEqual(["8", "7", "5", "4", "2"]);
    expect(rest.data.map((entry: any) => entry.amount)).toEqual(["1", "100"]);
    expect(rest.meta).not.toHaveProperty("nextCursor");
    const window = await transfers(`?startTime=${times[2]}&endTime=${times[4]}`);
    expect(window.meta).toEqual({ limit: 100, startTime: times[2], endTime: times[4] });
    expect(window.data.map((entry: any) => entry.timestamp)).toEqual([times[4], times[3], times[2]]);
  });
});

describe("executions", () => {
  const tradeTimes: number[] = [];

  beforeAll(async () => {
    for (const qty of ["0.01", "0.02", "0.03"]) {
      await w.advance(1_000);
      await w.trade(w.bob, w.alice, qty);
      tradeTimes.push((await w.ok(`/v2/market/${ETH}/perpExecutions?limit=1`)).data[0].timestamp);
    }
  });

  it("filters perp executions by inclusive time bounds, newest first, with meta echoing the filters", async () => {
    const path = `/v2/wallet/${w.bob.address}/perpExecutions`;
    const all = await w.ok(path);
    expect(all.data.map((e: any) => e.qty)).toEqual(["0.03", "0.02", "0.01"]);
    expect(all.data.map((e: any) => e.timestamp)).toEqual([...tradeTimes].reverse());
    const [t1, t2, t3] = tradeTimes as [number, number, number];
    expect((await w.ok(`${path}?startTime=${t2}`)).data.map((e: any) => e.qty)).toEqual(["0.03", "0.02"]);
    expect((await w.ok(`${path}?endTime=${t2}`)).data.map((e: any) => e.qty)).toEqual(["0.02", "0.01"]);
    const one = await w.ok(`${path}?startTime=${t2}&endTime=${t2}`);
    expect(one).toEqual({ data: [all.data[1]], meta: { limit: 100, startTime: t2, endTime: t2 } });
    expect((await w.ok(`${path}?startTime=${t3 + 1}`)).data).toEqual([]);
    expect(await w.ok(`${path}?limit=1`)).toEqual({ data: [all.data[0]], meta: { limit: 1 } });
    expect((await w.ok(`${path}?endTime=${t3}&limit=2`)).data).toEqual(all.data.slice(0, 2));
    expect((await w.ok(`/v2/market/${ETH}/perpExecutions?startTime=${t1}&endTime=${t2}`)).data).toEqual(all.data.slice(1));
  });
});

describe("depth limit", () => {
  beforeAll(async () => {
    await w.entry("cancelAll", w.cancelAll(w.bob, {}));
    for (let i = 0; i < 120; i++) await w.rest(w.bob, { isBuy: false, qty: "0.001", limitPx: (2500 + i).toFixed(2) });
  });

  it("answers 100 levels per side by default, up to 1000 with limit, best first", async () => {
    const path = `/v2/market/${ETH}/depth`;
    const byDefault = await w.ok(path);
    expect(byDefault.asks).toHaveLength(100);
    expect(byDefault.asks[0]).toEqual({ px: "2500", qty: "0.001" });
    expect(byDefault.asks[99]).toEqual({ px: "2599", qty: "0.001" });
    const max = await w.ok(`${path}?limit=1000`);
    expect(max.asks).toHaveLength(120);
    expect(max.asks.map((level: any) => Number(level.px))).toEqual(Array.from({ length: 120 }, (_, i) => 2500 + i));
    expect((await w.ok(`${path}?limit=120`)).asks).toEqual(max.asks);
    expect((await w.ok(`${path}?limit=3`)).asks).toEqual(max.asks.slice(0, 3));
    expect((await w.get(`${path}?limit=1001`)).status).toBe(400);
    const huge = await w.get(`${path}?limit=99999999999999999`);
    expect(huge.status).toBe(400);
    expect(huge.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: `limit "99999999999999999" is beyond the safe integer range (at most ${Number.MAX_SAFE_INTEGER})` });
    expect((await w.get(`${path}?limit=-1`)).body.message).toBe(`limit "-1" is not a non-negative integer`);
    expect(byDefault.updatedAt).toBeGreaterThanOrEqual(START_MICROS / 1000);
  });
});
