/**
 * Stateful feeds over a real socket, under seeded random order flow
 * (fast-check, seed 42):
 * - depth continuity: the subscribed SNAPSHOT with every UPDATE applied
 *   equals the REST depth view (the best 100 levels per side) after every
 *   step, each UPDATE lists only levels that changed, and the book has more
 *   than 100 levels per side so that levels cross the top-100 boundary;
 * - orderChanges: rows strictly above the snapshot cursor and strictly
 *   increasing, the snapshot plus the rows rebuilding the wallet's open
 *   orders, and no row for an IOC taker.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSubscribed, ClientBook, expectValidFrames } from "./helpers/stream-checks.ts";
import type { StreamClient } from "./helpers/stream-client.ts";
import { ETH, StreamWorld } from "./helpers/stream-world.ts";
import type { Party } from "../exchange/gateway/harness.ts";

let world: StreamWorld;
const clients: StreamClient[] = [];

beforeAll(async () => {
  world = await StreamWorld.start();
});

afterAll(async () => {
  for (const client of clients) expectValidFrames(client);
  await world.close();
});

/** Levels are 0.05 apart: bids at 1999.00 - k * 0.05, asks at 2001.00 + k * 0.05, k in [0, 160). */
const LEVELS = 160;
const bidPx = (k: number) => (1999 - k * 0.05).toFixed(2);
const askPx = (k: number) => (2001 + k * 0.05).toFixed(2);

type Op =
  | { kind: "rest"; buy: boolean; level: number; lots: number }
  | { kind: "cancel"; pick: number }
  | { kind: "sweep"; buy: boolean; lots: number; reach: number }
  | { kind: "advance"; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("rest" as const), buy: fc.boolean(), level: fc.integer({ min: 0, max: LEVELS - 1 }), lots: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("sweep" as const), buy: fc.boolean(), lots: fc.integer({ min: 1, max: 400 }), reach: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 300 }) }) },
);

interface Resting {
  party: Party;
  orderId: string;
}
const resting: Resting[] = [];
/** Orders created by an IOC taker: never on orderChanges. */
const iocTakers = new Set<string>();

/** Runs one op; bids are alice's, asks bob's, sweeps carol's IOCs. */
function run(op: Op): void {
  switch (op.kind) {
    case "rest": {
      const party = op.buy ? world.alice : world.bob;
      const limitPx = op.buy ? bidPx(op.level) : askPx(op.level);
      const answer = world.createOrder(party, { symbol: ETH, isBuy: op.buy, qty: (op.lots / 1000).toFixed(3), limitPx, timeInForce: "GTC" });
      if (answer.ok && answer.payload["status"] === "OPEN") resting.push({ party, orderId: answer.payload["orderId"] as string });
      return;
    }
    case "cancel": {
      if (resting.length === 0) return;
      const [target] = resting.splice(op.pick % resting.length, 1);
      world.cancel(target!.party, { symbol: ETH, orderId: target!.orderId });
      return;
    }
    case "sweep": {
      const best = op.buy ? world.context.queries.depth(ETH, 1)?.asks[0]?.px : world.context.queries.depth(ETH, 1)?.bids[0]?.px;
      if (best === undefined) return;
      const limitPx = (Number(best) + (op.buy ? 1 : -1) * op.reach * 0.05).toFixed(2);
      const answer = world.createOrder(world.carol, { symbol: ETH, isBuy: op.buy, qty: (op.lots / 1000).toFixed(3), limitPx, timeInForce: "IOC" });
      if (answer.ok) iocTakers.add(answer.payload["orderId"] as string);
      return;
    }
    case "advance":
      world.advance(op.ms);
      return;
  }
}

async function subscribeDepth(client: StreamClient): Promise<ClientBook> {
  const channel = `/v2/market/${ETH}/depth`;
  const contents = checkSubscribed(await client.subscribeAndWait(channel), "marketDepth", channel);
  return new ClientBook(contents as never);
}

/** Applies the UPDATEs that arrived, then compares with the REST view of the best 100 levels. */
async function expectBookMatches(client: StreamClient, book: ClientBook): Promise<void> {
  await client.sync();
  for (const frame of client.drainData(`/v2/market/${ETH}/depth`)) book.apply(frame["data"] as never);
  const rest = world.context.queries.depth(ETH, 100)!;
  expect(book.view()).toEqual({ bids: rest.bids, asks: rest.asks });
}

describe("depth continuity", () => {
  it("seeded: the book is deeper than 100 levels per side before the property runs", async () => {
    const client = await world.connect();
    clients.push(client);
    const book = await subscribeDepth(client);
    for (let k = 0; k < LEVELS; k += 1) {
      if (k % 3 === 2) continue; // leave gaps for levels to enter later
      run({ kind: "rest", buy: true, level: k, lots: 10 + (k % 7) });
      run({ kind: "rest", buy: false, level: k, lots: 10 + (k % 5) });
    }
    await expectBookMatches(client, book);
    const full = world.context.queries.depth(ETH, 1000)!;
    expect(full.bids.length).toBeGreaterThan(100);
    expect(full.asks.length).toBeGreaterThan(100);
    expect(book.view().bids).toHaveLength(100);
  });

  it("SNAPSHOT + UPDATEs equal the REST depth view after every step of random orders, cancels and sweeps", async () => {
    let boundaryCrossings = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 40, maxLength: 80 }), async (ops) => {
        const client = await world.connect();
        clients.push(client);
        const book = await subscribeDepth(client);
        expect(book.view()).toEqual({ bids: world.context.queries.depth(ETH, 100)!.bids, asks: world.context.queries.depth(ETH, 100)!.asks });
        for (const op of ops) {
          const before = world.context.queries.depth(ETH, 100)!;
          run(op);
          await expectBookMatches(client, book);
          const after = world.context.queries.depth(ETH, 100)!;
          if (before.bids.at(-1)?.px !== after.bids.at(-1)?.px || before.asks.at(-1)?.px !== after.asks.at(-1)?.px) boundaryCrossings++;
        }
        client.close();
      }),
      { seed: 42, numRuns: 5 },
    );
    expect(boundaryCrossings).toBeGreaterThan(0); // levels did enter and leave the top 100
  });
});

describe("snapshot contiguity", () => {
  it("subscriptions taken while orders keep flowing miss no update and repeat none", async () => {
    const ops = fc.sample(fc.array(opArb, { minLength: 400, maxLength: 400 }), { seed: 42, numRuns: 1 })[0]!;
    let next = 0;
    // One op per turn of the event loop, interleaved with the clients' subscribe frames.
    const pumped = new Promise<void>((resolve) => {
      const pump = () => {
        if (next >= ops.length) return resolve();
        run(ops[next++]!);
        setImmediate(pump);
      };
      setImmediate(pump);
    });
    const books: [StreamClient, Promise<ClientBook>][] = [];
    while (next < ops.length - 50) {
      const client = await world.connect();
      clients.push(client);
      books.push([client, subscribeDepth(client)]);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await pumped;
    expect(books.length).toBeGreaterThan(3);
    for (const [client, book] of books) await expectBookMatches(client, await book);
  });
});

describe("orderChanges under random flow", () => {
  it("rows are strictly above the cursor and increasing, rebuild the open orders, and skip IOC takers", async () => {
    const client = await world.connect();
    clients.push(client);
    const parties = [world.alice, world.bob, world.carol];
    const channels = parties.map((party) => `/v2/wallet/${party.address}/orderChanges`);
    const held = new Map<string, Map<string, Record<string, unknown>>>();
    const cursors = new Map<string, number>();
    for (const channel of channels) {
      const contents = checkSubscribed(await client.subscribeAndWait(channel), "walletOrderChanges", channel) as {
        data: Record<string, unknown>[];
        snapshotSequenceNumber: number;
      };
      cursors.set(channel, contents.snapshotSequenceNumber);
      held.set(channel, new Map(contents.data.map((order) => [order["orderId"] as string, order])));
    }
    const ops = fc.sample(fc.array(opArb, { minLength: 150, maxLength: 150 }), { seed: 42, numRuns: 1 })[0]!;
    for (const op of ops) run(op);
    world.advance(300);
    await client.sync();
    for (const [index, channel] of channels.entries()) {
      const rows = client.drainData(channel).flatMap((frame) => frame["data"] as Record<string, unknown>[]);
      let last = cursors.get(channel)!;
      const orders = held.get(channel)!;
      for (const row of rows) {
        const sequenceNumber = row["sequenceNumber"] as number;
        expect(sequenceNumber).toBeGreaterThan(last);
        last = sequenceNumber;
        expect(iocTakers.has(row["orderId"] as string), `IOC taker ${String(row["orderId"])} on orderChanges`).toBe(false);
        if (row["status"] === "OPEN") orders.set(row["orderId"] as string, row);
        else orders.delete(row["orderId"] as string);
      }
      const open = world.context.queries.openOrders(parties[index]!.address);
      expect([...orders.keys()].sort()).toEqual(open.map((order) => order.orderId).sort());
      for (const order of open) expect(orders.get(order.orderId)?.["cumQty"]).toBe(order.cumQty);
      if (parties[index] !== world.carol) expect(rows.length).toBeGreaterThan(0);
    }
    expect(iocTakers.size).toBeGreaterThan(0);
  });
});
