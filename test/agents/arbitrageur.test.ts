import { describe, expect, it } from "vitest";
import { arbitrageur } from "../../agents/arbitrageur.ts";
import { gridOf } from "../../agents/lib/grid.ts";
import { OracleTracker } from "../../agents/lib/oracle.ts";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario, type TimelineEntry } from "../../src/sim/scenario.ts";
import { agentOf, countOf, RunLog } from "./helpers.ts";

/** Rests orders off the oracle: an ask 1 % below at 10 s, an ask 5 bps below at 25 s (cancelled at 40 s), a bid 1 % above at 50 s. */
const pusher = defineAgent({
  kind: "test-pusher",
  description: "pushes the book off the oracle",
  defaults: {},
  async start(ctx) {
    const grid = gridOf(ctx.markets, "ETHRUSDPERP");
    const oracle = await OracleTracker.start(ctx);
    const rest = (isBuy: boolean, offsetBps: number) => async () => {
      const price = oracle.price("WETH")!;
      await ctx.client.createOrder({ symbol: grid.symbol, isBuy, limitPx: grid.price(price * (1 + offsetBps / 10_000), isBuy ? "up" : "down"), qty: "1", timeInForce: "GTC" });
    };
    ctx.after(10 * MICROS_PER_SECOND, rest(false, -100));
    ctx.after(25 * MICROS_PER_SECOND, rest(false, -5));
    ctx.after(40 * MICROS_PER_SECOND, async () => {
      await ctx.client.cancelAll({ symbol: grid.symbol });
    });
    ctx.after(50 * MICROS_PER_SECOND, rest(true, 100));
  },
});

describe("arbitrageur", () => {
  it("takes the touch when the book is pushed more than its threshold off the oracle, and only then", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "arbitrage",
      description: "",
      seed: 9,
      durationSeconds: 60,
      prices: [
        { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0 },
        { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0, decimals: 1 },
      ],
      oracleBasisSd: 0,
      agents: [
        { name: "pusher", agent: pusher, account: { rateTier: 3 } },
        { name: "arb", agent: arbitrageur, params: { symbols: ["ETHRUSDPERP", "BTCRUSDPERP"], thresholdBps: 15, exitBps: 10 }, account: { rateTier: 3 } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const arb = agentOf(run, "arb");
    const pushed = agentOf(run, "pusher");

    const trades = log.executions.filter((entry) => entry.record.takerAccountId === arb.accountId);
    expect(trades.map((entry) => [entry.record.side, entry.record.price, entry.record.qty, entry.record.makerAccountId])).toEqual([
      ["B", "2970", "1", pushed.accountId],
      ["A", "3030", "1", pushed.accountId],
    ]);
    // The buy came within a moment of the ask appearing; the sell of the bid likewise.
    expect(log.seconds(trades[0]!.atMicros)).toBeLessThan(10.5);
    expect(log.seconds(trades[1]!.atMicros)).toBeGreaterThan(50);
    expect(log.seconds(trades[1]!.atMicros)).toBeLessThan(50.5);
    // The ask 5 bps off the oracle was left alone, and cancelled untouched by its owner.
    const small = log.ordersOf(pushed).filter((row) => row.limitPx === "2998.5");
    expect(small.at(-1)?.status).toBe("CANCELLED");
    expect(small.at(-1)?.cumQty).toBe("0");
    expect(countOf(run, "arb", "arbBuys")).toBe(1);
    expect(countOf(run, "arb", "arbSells") + countOf(run, "arb", "exits")).toBe(1);
    expect(log.requestsOf(arb, "createOrder")).toHaveLength(2);
  });
});

/** Rests a 0.5 ETH ask 1 % below the oracle every 3 s from 10 s (eight of them). */
const cheapAsks = defineAgent({
  kind: "test-cheap-asks",
  description: "keeps offering below the oracle",
  defaults: {},
  async start(ctx) {
    const grid = gridOf(ctx.markets, "ETHRUSDPERP");
    const oracle = await OracleTracker.start(ctx);
    for (let i = 0; i < 8; i++) {
      ctx.after((10 + 3 * i) * MICROS_PER_SECOND, async () => {
        const price = oracle.price("WETH")!;
        await ctx.client.createOrder({ symbol: grid.symbol, isBuy: false, limitPx: grid.price(price * 0.99, "down"), qty: "0.5", timeInForce: "GTC" });
      });
    }
  },
});

async function runAgainstCheapAsks(timeline: readonly TimelineEntry[]) {
  const log = new RunLog();
  const scenario = defineScenario({
    name: "arbitrage-cap",
    description: "",
    seed: 9,
    durationSeconds: 60,
    prices: [
      { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0 },
      { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0, decimals: 1 },
    ],
    oracleBasisSd: 0,
    timeline,
    agents: [
      { name: "asks", agent: cheapAsks, account: { rateTier: 3 } },
      { name: "arb", agent: arbitrageur, params: { symbols: ["ETHRUSDPERP"], maxPositionNotional: 4_000 }, account: { rateTier: 3 } },
    ],
  });
  const { run } = await runScenario(scenario, { observers: [log] });
  const arb = agentOf(run, "arb");
  const position = run.world.queries.positions(arb.wallet).find((row) => row.symbol === "ETHRUSDPERP");
  return { run, log, arb, qty: position === undefined ? 0 : Number(position.qty) };
}

describe("arbitrageur's position cap", () => {
  it("holds while settlement is late: fills that have not settled yet count, however long the chain stalls", async () => {
    // No block from 9 s to 39 s: every fill of the first 30 s waits for its block.
    const { log, arb, qty } = await runAgainstCheapAsks([{ atSeconds: 9, fault: { fault: "delayBlocks", durationMs: 30_000 } }]);
    // 4000 USD at 3000: 1.333 ETH at most, bought as 0.5 + 0.5 + 0.333.
    expect(qty).toBeCloseTo(1.333, 6);
    expect(log.requestsOf(arb, "createOrder").map((request) => request.body["qty"])).toEqual(["0.5", "0.5", "0.333"]);
  });

  it("buys again once a fill is busted: the busted quantity no longer counts", async () => {
    // The first match after 9.5 s (the arbitrageur's first buy) busts.
    const { log, qty } = await runAgainstCheapAsks([{ atSeconds: 9.5, fault: { fault: "bustNext", count: 1, reasonName: "TEST" } }]);
    expect(log.busts).toBe(1);
    expect(qty).toBeCloseTo(1.333, 6);
  });
});
