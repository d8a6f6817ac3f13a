import { describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario, type Scenario } from "../../src/sim/scenario.ts";
import { agentOf, CALM_FEEDS, countOf, RunLog } from "./helpers.ts";

const MAKER_ACCOUNT = { rateTier: 3, deposits: { rUSD: "1000000" } } as const;

/**
 * A short run on seed 5 with the WETH oracle held at 3,000 (or drifting at
 * `hourlyVolatility`) and no oracle basis, so that a maker's target prices
 * are known in advance; `agents` and `timeline` are the test's own.
 */
function makerScenario(
  name: string,
  durationSeconds: number,
  agents: Scenario["agents"],
  options: { hourlyVolatility?: number; timeline?: Scenario["timeline"] } = {},
) {
  return defineScenario({
    name,
    description: "",
    seed: 5,
    durationSeconds,
    prices: [{ asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: options.hourlyVolatility ?? 0 }, CALM_FEEDS[1]!],
    oracleBasisSd: 0,
    ...(options.timeline === undefined ? {} : { timeline: options.timeline }),
    agents,
  });
}

/** Buys `notional` USD from the book once, at `atSeconds`. */
const buyer = defineAgent({
  kind: "test-buyer",
  description: "one large IOC buy",
  defaults: { atSeconds: 20, qty: "6" },
  start(ctx) {
    ctx.after(ctx.params.atSeconds * MICROS_PER_SECOND, async () => {
      await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "3150", qty: ctx.params.qty, timeInForce: "IOC" });
    });
  },
});

/** One IOC at `atSeconds`: a buy or a sell of `qty` ETH, priced far through the book. */
const taker = defineAgent({
  kind: "test-taker",
  description: "one IOC",
  defaults: { atSeconds: 20, qty: "1", isBuy: true },
  start(ctx) {
    const { atSeconds, qty, isBuy } = ctx.params;
    ctx.after(atSeconds * MICROS_PER_SECOND, async () => {
      await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy, limitPx: isBuy ? "3150" : "2850", qty, timeInForce: "IOC" });
    });
  },
});

/**
 * A one-level maker with no skew, made short 0.5 ETH at 10 s (so that its bid
 * stays at the full 2 ETH level), then 0.3 ETH of that bid hit at 20 s.
 */
const PARTIAL_FILL_AGENTS: Scenario["agents"] = [
  { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levels: 1, levelNotional: 6_000, skewBps: 0, refreshSeconds: 2 }, account: MAKER_ACCOUNT },
  { name: "buyer", agent: taker, params: { atSeconds: 10, qty: "0.5", isBuy: true }, account: { deposits: { rUSD: "100000" } } },
  { name: "seller", agent: taker, params: { atSeconds: 20, qty: "0.3", isBuy: false }, account: { deposits: { rUSD: "100000" } } },
];

describe("market maker", () => {
  it("quotes every level on both sides and refreshes the same orders with modifyOrder", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "mm-quotes",
      description: "",
      seed: 7,
      durationSeconds: 60,
      prices: CALM_FEEDS,
      agents: [{ name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levels: 3, refreshSeconds: 2 }, account: MAKER_ACCOUNT }],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");

    const open = run.world.queries.openOrders(mm.wallet);
    expect(open.filter((order) => order.side === "B")).toHaveLength(3);
    expect(open.filter((order) => order.side === "A")).toHaveLength(3);
    const bids = open.filter((order) => order.side === "B").map((order) => Number(order.limitPx));
    const asks = open.filter((order) => order.side === "A").map((order) => Number(order.limitPx));
    expect(Math.max(...bids)).toBeLessThan(Math.min(...asks));

    // Six orders were created, once; everything after that moved them in place.
    const creates = log.requestsOf(mm, "createOrder");
    const modifies = log.requestsOf(mm, "modifyOrder");
    expect(creates).toHaveLength(6);
    expect(log.requestsOf(mm, "cancelOrder")).toHaveLength(0);
    expect(modifies.length).toBeGreaterThan(6 * 10);
    expect(countOf(run, "mm", "modifies")).toBe(modifies.length);
    const createdIds = new Set(log.ordersOf(mm).filter((row) => row.sequenceNumber !== undefined).map((row) => row.orderId));
    expect(createdIds.size).toBe(6);
    expect(new Set(open.map((order) => order.orderId))).toEqual(createdIds);
    // Each modify names one of the six and moves its price.
    for (const request of modifies) expect(createdIds.has(request.body["orderId"] as string)).toBe(true);
    const pricesOfOne = new Set(log.ordersOf(mm).filter((row) => row.orderId === open[0]!.orderId).map((row) => row.limitPx));
    expect(pricesOfOne.size).toBeGreaterThan(5);
    // The dead-man switch is renewed at every refresh.
    expect(log.requestsOf(mm, "cancelAllAfter").length).toBeGreaterThanOrEqual(29);
  });

  it("lets its cancelAllAfter switch fire once refreshes stop: every quote is cancelled with CANCEL_ALL_AFTER", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "mm-dead-man",
      description: "",
      seed: 3,
      durationSeconds: 45,
      prices: CALM_FEEDS,
      agents: [
        {
          name: "mm",
          agent: marketMaker,
          params: { symbol: "ETHRUSDPERP", levels: 2, refreshSeconds: 2, deadManMs: 6_000, stopRefreshingAfterSeconds: 15 },
          account: MAKER_ACCOUNT,
        },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");

    expect(run.world.queries.openOrders(mm.wallet)).toHaveLength(0);
    const lastRenewal = Math.max(...log.requestsOf(mm, "cancelAllAfter").map((request) => log.seconds(request.atMicros)));
    // Refreshes run every 2 s from the first oracle price (about 1 s in) and stop 15 s after the start.
    expect(lastRenewal).toBeGreaterThan(13);
    expect(lastRenewal).toBeLessThan(15.1);
    const cancelled = log.ordersOf(mm).filter((row) => row.status === "CANCELLED");
    expect(cancelled).toHaveLength(4);
    for (const row of cancelled) expect(row.cancelReason).toBe("CANCEL_ALL_AFTER");
    // The switch fires deadManMs after the last renewal reached the exchange, at the triggerAt it reported
    // (the receipt in whole milliseconds plus the timeout): not before the millisecond of the receipt.
    const firedAt = log.orders.filter((entry) => entry.row.status === "CANCELLED").map((entry) => log.seconds(entry.atMicros));
    for (const at of firedAt) {
      expect(at).toBeGreaterThanOrEqual(Math.floor(lastRenewal * 1000) / 1000 + 6);
      expect(at).toBeLessThan(lastRenewal + 6.1);
    }
    expect(countOf(run, "mm", "deadManCancels")).toBe(4);
    expect(countOf(run, "mm", "refreshStopped")).toBe(1);
  });

  it("skews its quotes against its inventory: short after a buyer lifts it, it shows less on the ask and more above the oracle", async () => {
    const scenario = makerScenario(
      "mm-skew",
      40,
      [
        {
          name: "mm",
          agent: marketMaker,
          params: { symbol: "ETHRUSDPERP", levels: 3, levelNotional: 6_000, maxInventoryNotional: 30_000, skewBps: 20, refreshSeconds: 2 },
          account: MAKER_ACCOUNT,
        },
        { name: "buyer", agent: buyer, params: { atSeconds: 20, qty: "5" }, account: { deposits: { rUSD: "100000" } } },
      ],
    );
    const { run } = await runScenario(scenario);
    const mm = agentOf(run, "mm");
    const position = run.world.queries.positions(mm.wallet).find((row) => row.symbol === "ETHRUSDPERP");
    expect(position?.side).toBe("A");
    expect(Number(position?.qty)).toBeCloseTo(5, 6);

    const open = run.world.queries.openOrders(mm.wallet);
    const qtyOf = (side: "A" | "B") => open.filter((order) => order.side === side).reduce((sum, order) => sum + Number(order.qty) - Number(order.cumQty ?? 0), 0);
    // Inventory -15000 / 30000 = -0.5: asks are half the bids.
    expect(qtyOf("A")).toBeCloseTo(qtyOf("B") / 2, 2);
    const bestBid = Math.max(...open.filter((order) => order.side === "B").map((order) => Number(order.limitPx)));
    const bestAsk = Math.min(...open.filter((order) => order.side === "A").map((order) => Number(order.limitPx)));
    // Fair price moved up by 0.5 x 20 bps = 10 bps from 3000: the mid is above the oracle.
    expect((bestBid + bestAsk) / 2).toBeCloseTo(3_003, 0);
  });
});

describe("market maker, partial fills", () => {
  it("tops a partly filled quote back up to its target size at the next refresh, though its target did not move", async () => {
    const log = new RunLog();
    const scenario = makerScenario(
      // A flat oracle and no skew: the bid's target price never moves, and while the maker is short its size is the full level.
      "mm-partial-fill",
      30,
      PARTIAL_FILL_AGENTS,
    );
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    expect(Number(run.world.queries.positions(mm.wallet)[0]?.qty)).toBeCloseTo(0.2, 6);
    expect(run.world.queries.positions(mm.wallet)[0]?.side).toBe("A");

    const bid = run.world.queries.openOrders(mm.wallet).find((order) => order.side === "B")!;
    expect(Number(bid.limitPx)).toBe(2997.6);
    expect(Number(bid.cumQty)).toBeCloseTo(0.3, 6);
    // 2 ETH rest again: the bid was modified to 2.3 ETH (0.3 filled), not left at 1.7.
    expect(Number(bid.qty) - Number(bid.cumQty)).toBeCloseTo(2, 6);
    const topUps = log.requestsOf(mm, "modifyOrder").filter((request) => request.body["orderId"] === bid.orderId && log.seconds(request.atMicros) > 20);
    expect(topUps).toHaveLength(1);
    expect(log.seconds(topUps[0]!.atMicros)).toBeLessThan(23);
    expect(topUps[0]!.body["qty"]).toBe("2.3");
  });
});

describe("market maker, edge parameters", () => {
  it("with spreadBps 0 and a fair price on the tick grid, still quotes both sides, the ask a tick above the bid", async () => {
    const log = new RunLog();
    const scenario = makerScenario(
      "mm-zero-spread",
      20,
      [{ name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levels: 2, spreadBps: 0, levelSpacingBps: 5, refreshSeconds: 2 }, account: MAKER_ACCOUNT }],
    );
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    const open = run.world.queries.openOrders(mm.wallet);
    const prices = (side: "A" | "B") => open.filter((order) => order.side === side).map((order) => Number(order.limitPx));
    expect(prices("B").sort((a, b) => a - b)).toEqual([2998.5, 3000]);
    expect(prices("A").sort((a, b) => a - b)).toEqual([3000.01, 3001.5]);
    expect(countOf(run, "mm", "error:POST_ONLY_WOULD_CROSS_ERROR")).toBe(0);
    expect(log.requestsOf(mm, "createOrder")).toHaveLength(4);
  });
});

describe("market maker, lost answers", () => {
  it("adopts a quote whose create answer was lost (the order rests all the same) instead of placing a second one and leaving it unmanaged", async () => {
    const log = new RunLog();
    const scenario = makerScenario(
      // The answers to the first three requests the exchange answers are dropped: the switch's first arming and both creates.
      "mm-lost-creates",
      40,
      [{ name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levels: 1, refreshSeconds: 2 }, account: MAKER_ACCOUNT }],
      { hourlyVolatility: 0.05, timeline: [{ atSeconds: 0.5, fault: { fault: "dropResponses", count: 3 } }] },
    );
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    expect(countOf(run, "mm", "error:client:TransportFailedError")).toBe(3);
    // One order per side, ever: the two that rested despite the lost answers, moved with modifyOrder since.
    expect(log.requestsOf(mm, "createOrder")).toHaveLength(2);
    const open = run.world.queries.openOrders(mm.wallet);
    expect(open.map((order) => order.side).sort()).toEqual(["A", "B"]);
    const created = new Set(log.ordersOf(mm).map((row) => row.orderId));
    expect(created.size).toBe(2);
    const modified = new Set(log.requestsOf(mm, "modifyOrder").map((request) => request.body["orderId"]));
    expect(modified).toEqual(created);
    expect(log.requestsOf(mm, "modifyOrder").length).toBeGreaterThan(10);
  });
  it("reads a top-up whose modify answer was lost from the orderChanges stream: no modify re-sent and refused with EMPTY_MODIFY_ERROR at every refresh", async () => {
    const log = new RunLog();
    const scenario = makerScenario(
      // The partial-fill scenario: short 0.5 ETH at 10 s, then 0.3 ETH of the 2 ETH bid hit at 20 s.
      // The answers to the next two requests after 21 s are dropped: the bid's top-up to 2.3 and the ask's resize, sent at the 21 s
      // refresh. Both apply at the exchange all the same.
      "mm-lost-top-up",
      60,
      PARTIAL_FILL_AGENTS,
      { timeline: [{ atSeconds: 21, fault: { fault: "dropResponses", count: 2 } }] },
    );
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    expect(countOf(run, "mm", "error:client:TransportFailedError")).toBe(2);
    // Before the fix, the bid's top-up was re-sent at every refresh from 33 s on, each refused as a modify that changes nothing.
    expect(countOf(run, "mm", "error:EMPTY_MODIFY_ERROR")).toBe(0);
    const bid = run.world.queries.openOrders(mm.wallet).find((order) => order.side === "B")!;
    expect(Number(bid.cumQty)).toBeCloseTo(0.3, 6);
    expect(Number(bid.qty) - Number(bid.cumQty)).toBeCloseTo(2, 6);
    const bidModifies = log.requestsOf(mm, "modifyOrder").filter((request) => request.body["orderId"] === bid.orderId && log.seconds(request.atMicros) > 20);
    expect(bidModifies.map((request) => request.body["qty"])).toEqual(["2.3"]);
    // The ask, short 0.2 ETH of a 60,000 USD full inventory: 1 % under its 2 ETH level, 1.98 ETH resting.
    const ask = run.world.queries.openOrders(mm.wallet).find((order) => order.side === "A")!;
    expect(Number(ask.qty) - Number(ask.cumQty)).toBeCloseTo(1.98, 6);
    expect(log.requestsOf(mm, "modifyOrder").filter((request) => log.seconds(request.atMicros) > 22)).toHaveLength(0);
  });
});

describe("market maker, refused cancels", () => {
  it("keeps a quote it could not pull (order entry disabled) and pulls it once it can: no quote left resting unmanaged", async () => {
    const log = new RunLog();
    const scenario = makerScenario(
      // Short 1.2 ETH after the buyer at 20 s: past maxInventoryNotional (3000 USD), so the rest of the ask is pulled at the next refresh,
      // while order entry is disabled (20.5 s to 26 s).
      "mm-refused-pull",
      40,
      [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levels: 1, levelNotional: 6_000, maxInventoryNotional: 3_000, refreshSeconds: 2 }, account: MAKER_ACCOUNT },
        { name: "buyer", agent: buyer, params: { atSeconds: 20, qty: "1.2" }, account: { deposits: { rUSD: "100000" } } },
      ],
      { timeline: [{ atSeconds: 20.5, fault: { fault: "serviceDisabled", durationMs: 5_500 } }] },
    );
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    expect(countOf(run, "mm", "error:SERVICE_DISABLED_ERROR")).toBeGreaterThan(0);
    expect(Number(run.world.queries.positions(mm.wallet)[0]?.qty)).toBeCloseTo(1.2, 6);
    // Fully short: no ask may rest, and the pull went through once order entry was back.
    const open = run.world.queries.openOrders(mm.wallet);
    expect(open.filter((order) => order.side === "A")).toHaveLength(0);
    expect(open.filter((order) => order.side === "B")).toHaveLength(1);
    expect(countOf(run, "mm", "pulled")).toBe(1);
  });
});
