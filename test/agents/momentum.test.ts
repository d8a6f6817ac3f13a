import { describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { MOMENTUM_DEFAULTS, momentum, type MomentumParams } from "../../agents/momentum.ts";
import type { ReadTransport } from "../../src/client/transport.ts";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";
import { type AgentDefinition, defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario, type TimelineEntry } from "../../src/sim/scenario.ts";
import { agentOf, CALM_FEEDS, countOf, pathFeed, RunLog } from "./helpers.ts";

/** WETH flat, a rise of 1 % over 50 s, flat, then a fall of 2 % over 30 s ([seconds, price]). */
const RISE_THEN_FALL: readonly (readonly [number, number])[] = [
  [0, 3_000],
  [30, 3_000],
  [80, 3_030],
  [90, 3_030],
  [120, 2_970],
  [180, 2_970],
];

describe("momentum trader", () => {
  it("enters with the trend, protects each position with a stop-loss and a take-profit, and both fire", async () => {
    // Flat, a rise of 1 % over 50 s, flat, then a fall of 2 % over 30 s.
    const eth = pathFeed("WETH", RISE_THEN_FALL);
    const log = new RunLog();
    const scenario = defineScenario({
      name: "momentum",
      description: "",
      seed: 2,
      durationSeconds: 150,
      prices: [eth.feed, CALM_FEEDS[1]!],
      oracleBasisSd: 0,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 10_000, refreshSeconds: 1 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        {
          name: "momentum",
          agent: momentum,
          params: { fastSamples: 5, slowSamples: 20, entryThresholdBps: 3, stopLossBps: 30, takeProfitBps: 40, notional: 3_000, cooldownSeconds: 5, maxHoldSeconds: 120 },
          account: { rateTier: 3 },
        },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log], paths: eth.paths });
    const trader = agentOf(run, "momentum");
    const rows = log.ordersOf(trader);

    // Stops were armed: STOP_LOSS and TAKE_PROFIT orders without qty, on the closing side, around the entry.
    const armed = rows.filter((row) => row.orderType !== "LIMIT" && row.status === "OPEN" && row.triggered === false);
    expect(armed.filter((row) => row.orderType === "STOP_LOSS").length).toBeGreaterThanOrEqual(2);
    expect(armed.filter((row) => row.orderType === "TAKE_PROFIT").length).toBeGreaterThanOrEqual(2);
    expect(countOf(run, "momentum", "stopsArmed")).toBe(armed.length);
    const firstLong = log.requestsOf(trader, "createOrder").find((request) => request.body["orderType"] === "LIMIT" && request.body["isBuy"] === true);
    expect(firstLong).toBeDefined();
    expect(log.seconds(firstLong!.atMicros)).toBeGreaterThan(30);
    expect(log.seconds(firstLong!.atMicros)).toBeLessThan(45);
    const firstStops = armed.slice(0, 2);
    for (const stop of firstStops) expect(stop.side).toBe("A");
    const stopLoss = firstStops.find((row) => row.orderType === "STOP_LOSS")!;
    const takeProfit = firstStops.find((row) => row.orderType === "TAKE_PROFIT")!;
    expect(Number(stopLoss.triggerPx)).toBeLessThan(3_010);
    expect(Number(takeProfit.triggerPx)).toBeGreaterThan(Number(stopLoss.triggerPx) * 1.006);

    // Both kinds fired (triggered=true), the sibling of each was cancelled as OCO, and the fired child traded.
    const fired = rows.filter((row) => row.triggered === true);
    expect(fired.some((row) => row.orderType === "TAKE_PROFIT")).toBe(true);
    expect(fired.some((row) => row.orderType === "STOP_LOSS")).toBe(true);
    expect(countOf(run, "momentum", "takeProfitFired")).toBeGreaterThanOrEqual(1);
    expect(countOf(run, "momentum", "stopLossFired")).toBeGreaterThanOrEqual(1);
    expect(rows.filter((row) => row.cancelReason === "OCO_SIBLING_FIRED").length).toBeGreaterThanOrEqual(2);
    const stopFillIds = new Set<string>();
    for (const row of fired) {
      if (row.firstFillId === undefined) continue;
      for (let i = 0n; i < BigInt(row.fillCount ?? 0); i++) stopFillIds.add(String(BigInt(row.firstFillId) + i));
    }
    const stopFills = log.executions.filter((entry) => stopFillIds.has(entry.record.fillId));
    expect(stopFills.length).toBeGreaterThan(0);
    for (const fill of stopFills) expect(fill.record.takerAccountId).toBe(trader.accountId);
    // The take-profit fired on the rise, the stop-loss on the fall.
    const firedAt = (type: string) => log.orders.filter((entry) => entry.row.orderType === type && entry.row.triggered === true).map((entry) => log.seconds(entry.atMicros));
    expect(Math.min(...firedAt("TAKE_PROFIT"))).toBeLessThan(80);
    expect(Math.min(...firedAt("STOP_LOSS"))).toBeGreaterThan(90);
    expect(countOf(run, "momentum", "closed")).toBeGreaterThanOrEqual(2);
  });
});

/** The rise-then-fall path of the first test, one maker, and a momentum trader with `params` over the first test's. */
async function runMomentum(params: Record<string, unknown>, timeline: readonly TimelineEntry[] = []) {
  const eth = pathFeed("WETH", RISE_THEN_FALL);
  const log = new RunLog();
  const scenario = defineScenario({
    name: "momentum-variant",
    description: "",
    seed: 2,
    durationSeconds: 150,
    prices: [eth.feed, CALM_FEEDS[1]!],
    oracleBasisSd: 0,
    timeline,
    agents: [
      { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 10_000, refreshSeconds: 1 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
      {
        name: "momentum",
        agent: momentum,
        params: { fastSamples: 5, slowSamples: 20, entryThresholdBps: 3, stopLossBps: 30, takeProfitBps: 40, notional: 3_000, cooldownSeconds: 5, maxHoldSeconds: 120, ...params },
        account: { rateTier: 3 },
      },
    ],
  });
  const { run } = await runScenario(scenario, { observers: [log], paths: eth.paths });
  return { run, log, trader: agentOf(run, "momentum") };
}

describe("momentum trader's parameters", () => {
  const context = { markets: [{ symbol: "ETHRUSDPERP", kind: "perp" as const }] };
  it("refuses a stopSlippageBps beyond the trigger band (500) and a notional beyond the USD cap, naming the field and the rule", () => {
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, stopSlippageBps: 500 }, context)).toBeNull();
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, stopSlippageBps: 501 }, context)).toBe(
      'stopSlippageBps "501" must be at most 500 (a fired stop\'s limit must lie within the trigger band, 5 % of its trigger)',
    );
    // Below the range, the rule states it as before (test/sim/agent-params.test.ts).
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, stopSlippageBps: -1 }, context)).toBe('stopSlippageBps "-1" must be a finite number in [0, 10000]');
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, notional: 1e12 }, context)).toBeNull();
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, notional: 1e13 }, context)).toBe(
      'notional "10000000000000" must be at most 1000000000000 (the largest USD amount an agent\'s parameter may name)',
    );
    expect(momentum.checkParams!({ ...MOMENTUM_DEFAULTS, notional: 0 }, context)).toBe('notional "0" must be a finite number greater than 0');
  });
});

describe("momentum trader, robustness", () => {
  it("arms its stops at the widest stopSlippageBps it accepts (500): every limit within the trigger band, none refused", async () => {
    const { run, log, trader } = await runMomentum({ stopSlippageBps: 500 });
    const stops = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] !== "LIMIT");
    expect(stops.length).toBeGreaterThanOrEqual(4);
    for (const stop of stops) {
      const trigger = Number(stop.body["triggerPx"]);
      const limit = Number(stop.body["limitPx"]);
      expect(Math.abs(limit - trigger) * 10_000).toBeLessThanOrEqual(trigger * 500 + 1e-6);
      // As far from the trigger as the band allows: less than a tick inside its edge.
      expect(Math.abs(limit - trigger)).toBeGreaterThan(trigger * 0.05 - 0.01 - 1e-9);
    }
    expect(countOf(run, "momentum", "error:TRIGGER_LIMIT_OUTSIDE_BAND_ERROR")).toBe(0);
    expect(countOf(run, "momentum", "stopsArmed")).toBe(stops.length);
  });

  it("caps its entry and exit crosses inside the IOC band the exchange enforces: a crossBps of 1500 is sent 900 bps through the oracle, and none is refused", async () => {
    const { run, log, trader } = await runMomentum({ crossBps: 1_500 });
    // Without the cap every entry was refused by the band (CREATE_ORDER_OTHER_ERROR), and the trader never held a position.
    expect(countOf(run, "momentum", "error:CREATE_ORDER_OTHER_ERROR")).toBe(0);
    expect(countOf(run, "momentum", "closed")).toBeGreaterThanOrEqual(2);
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    // The first entry is a buy on the rise, from an oracle between 3000 and 3030: 9 % above it.
    const first = Number(entries[0]!.body["limitPx"]);
    expect(entries[0]!.body["isBuy"]).toBe(true);
    expect(first).toBeGreaterThan(3_000 * 1.09 - 0.01);
    expect(first).toBeLessThan(3_030 * 1.09 + 0.01);
  });

  it("waits out a stalled chain: an entry that has not settled is not taken as busted, so it does not enter again and the position is one entry, protected", async () => {
    // The chain makes no block from 30 s to 68 s: the first entry (about 35 s) settles only then.
    const { run, log, trader } = await runMomentum({}, [{ atSeconds: 30, fault: { fault: "delayBlocks", durationMs: 38_000 } }]);
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    const firstEntry = entries[0]!;
    expect(log.seconds(firstEntry.atMicros)).toBeGreaterThan(30);
    expect(log.seconds(firstEntry.atMicros)).toBeLessThan(45);
    // No second entry before the first one settled and was closed.
    const firstClose = log.executions.find((entry) => entry.record.takerAccountId === trader.accountId && entry.record.side === "A");
    expect(firstClose).toBeDefined();
    expect(entries.filter((request) => request.atMicros < firstClose!.atMicros)).toHaveLength(1);
    expect(countOf(run, "momentum", "entryBusted")).toBe(0);
    // Once settled, the one entry was protected by both stops.
    const armedAfter = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] !== "LIMIT" && log.seconds(request.atMicros) >= 68);
    expect(armedAfter.slice(0, 2).map((request) => request.body["orderType"]).sort()).toEqual(["STOP_LOSS", "TAKE_PROFIT"]);
  });

  it("takes an entry whose fills were all busted as busted (the executionBusts read says so), and enters again after its cooldown", async () => {
    // The first match after 30 s (the first entry) busts.
    const { run, log, trader } = await runMomentum({}, [{ atSeconds: 30, fault: { fault: "bustNext", count: 1, reasonName: "TEST" } }]);
    expect(log.busts).toBe(1);
    expect(countOf(run, "momentum", "entryBusted")).toBe(1);
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    // Busted after about 5 s, then the 5 s cooldown: the second entry comes about 10 s after the first.
    const gap = log.seconds(entries[1]!.atMicros) - log.seconds(entries[0]!.atMicros);
    expect(gap).toBeGreaterThan(9);
    expect(gap).toBeLessThan(13);
  });
});

/** A static book: 2 ETH every 3 USD from 3 USD around 3000, forty levels a side, placed once at 2 s (no other requests later). */
const ladder = defineAgent({
  kind: "test-ladder",
  description: "rests a fixed book once",
  defaults: {},
  start(ctx) {
    ctx.after(2 * MICROS_PER_SECOND, async () => {
      for (let i = 1; i <= 40; i++) {
        await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: String(3_000 - 3 * i), qty: "2", timeInForce: "GTC" });
        await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: false, limitPx: String(3_000 + 3 * i), qty: "2", timeInForce: "GTC" });
      }
    });
  },
});

/**
 * A run of the lost-answer tests: the static ladder and the momentum trader (fast 5 and slow 20 samples, 3 bps threshold,
 * 3,000 USD entries, 5 s cooldown) on RISE_THEN_FALL, or `variant.path`, with `timeline`'s faults. `variant.params` lays
 * over the trader's params, and `variant.agent` replaces the momentum program (a wrapper of it).
 */
async function lostEntryScenario(
  name: string,
  timeline: readonly TimelineEntry[],
  durationSeconds: number,
  variant: { path?: readonly (readonly [number, number])[]; params?: Partial<MomentumParams>; agent?: AgentDefinition<MomentumParams> } = {},
) {
  const eth = pathFeed("WETH", variant.path ?? RISE_THEN_FALL);
  const log = new RunLog();
  const scenario = defineScenario({
    name,
    description: "",
    seed: 2,
    durationSeconds,
    prices: [eth.feed, CALM_FEEDS[1]!],
    oracleBasisSd: 0,
    timeline,
    agents: [
      { name: "ladder", agent: ladder, account: { rateTier: 3, deposits: { rUSD: "10000000" } } },
      {
        name: "momentum",
        agent: variant.agent ?? momentum,
        params: { fastSamples: 5, slowSamples: 20, entryThresholdBps: 3, stopLossBps: 30, takeProfitBps: 40, notional: 3_000, cooldownSeconds: 5, maxHoldSeconds: 120, ...variant.params },
        account: { rateTier: 3 },
      },
    ],
  });
  const { run } = await runScenario(scenario, { observers: [log], paths: eth.paths });
  return { run, log, trader: agentOf(run, "momentum") };
}

describe("momentum trader, lost answers", () => {
  it("keeps managing a position whose entry answer was lost: no second entry on top of it", async () => {
    // The next answer after 34 s, the first entry's (about 35 s), is dropped: the client reports a transport failure 10 s later.
    const timeline: readonly TimelineEntry[] = [{ atSeconds: 34, fault: { fault: "dropResponses", count: 1 } }];
    const { run, log, trader } = await lostEntryScenario("momentum-lost-entry", timeline, 100);
    expect(countOf(run, "momentum", "error:client:TransportFailedError")).toBe(1);
    const creates = log.requestsOf(trader, "createOrder");
    const entries = creates.filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(log.seconds(entries[0]!.atMicros)).toBeLessThan(36);
    // The entry filled; its position was protected, and nothing was entered again until it was closed.
    const firstClose = log.executions.find((entry) => entry.record.takerAccountId === trader.accountId && entry.record.side === "A");
    expect(firstClose).toBeDefined();
    expect(entries.filter((request) => request.atMicros < firstClose!.atMicros)).toHaveLength(1);
    expect(creates.filter((request) => request.body["orderType"] !== "LIMIT" && request.atMicros < firstClose!.atMicros)).toHaveLength(2);
    expect(Number(firstClose!.record.qty)).toBeCloseTo(Number(entries[0]!.body["qty"]), 6);
  });

  it("reconciles a lost entry answer with its orderHistory when the chain stalls too: the filled entry is awaited, not entered again on top", async () => {
    const timeline: readonly TimelineEntry[] = [
      // The first entry's answer (about 35 s) is lost: the client reports a transport failure 10 s later.
      { atSeconds: 34, fault: { fault: "dropResponses", count: 1 } },
      // And the chain makes no block from 30 s to 75 s: the entry settles 40 s after it filled, long after its answer was given up.
      { atSeconds: 30, fault: { fault: "delayBlocks", durationMs: 45_000 } },
    ];
    const { run, log, trader } = await lostEntryScenario("momentum-lost-entry-stall", timeline, 110);
    expect(countOf(run, "momentum", "error:client:TransportFailedError")).toBe(1);
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(log.seconds(entries[0]!.atMicros)).toBeLessThan(36);
    const size = Number(entries[0]!.body["qty"]);

    // The position, execution by execution (they come at settlement): one entry at a time (about 1 ETH each), never two on top
    // of each other; the first is the lost entry's fill.
    let position = 0;
    let largest = 0;
    const positions: number[] = [];
    for (const { record } of log.executions) {
      const taker = record.takerAccountId === trader.accountId;
      if (!taker && record.makerAccountId !== trader.accountId) continue;
      const buys = (record.side === "B") === taker;
      position += buys ? Number(record.qty) : -Number(record.qty);
      positions.push(position);
      largest = Math.max(largest, Math.abs(position));
    }
    expect(positions[0]).toBeCloseTo(size, 6);
    expect(largest).toBeLessThan(size * 1.1);
    // No entry was sent between the lost one and the settlement of its fill; then the one position was protected.
    const settled = log.executions.find((entry) => entry.record.takerAccountId === trader.accountId)!;
    expect(log.seconds(settled.atMicros)).toBeGreaterThan(74);
    expect(entries.filter((request) => request.atMicros < settled.atMicros)).toHaveLength(1);
    expect(countOf(run, "momentum", "entryRecovered")).toBe(1);
    expect(countOf(run, "momentum", "entryBusted")).toBe(0);
    expect(countOf(run, "momentum", "stopsArmed")).toBeGreaterThanOrEqual(2);
  });

  it("gives a lost entry that never became an order up only once its deadline has passed, re-reading orderHistory until then", async () => {
    const timeline: readonly TimelineEntry[] = [
      // The first entry (about 35 s) is refused (the engine is down: no order row is made) and that answer is lost.
      { atSeconds: 34, fault: { fault: "engineUnavailable", durationMs: 3_000 } },
      { atSeconds: 34, fault: { fault: "dropResponses", count: 1 } },
    ];
    const { run, log, trader } = await lostEntryScenario("momentum-lost-entry-absent", timeline, 140);
    expect(countOf(run, "momentum", "error:client:TransportFailedError")).toBe(1);
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(log.seconds(entries[0]!.atMicros)).toBeGreaterThanOrEqual(34);
    expect(log.seconds(entries[0]!.atMicros)).toBeLessThan(37);
    // No order row was ever made for it.
    expect(log.ordersOf(trader).filter((row) => row.orderType === "LIMIT" && row.reduceOnly !== true)[0]?.createdAt ?? Infinity).toBeGreaterThan(entries[0]!.atMicros / 1_000 + 1_000);
    expect(countOf(run, "momentum", "entryRecovered")).toBe(0);
    expect(countOf(run, "momentum", "entryLostAbsent")).toBe(1);
    // Flat again only after the lost request's deadline (60 s from when its answer was given up, about 10 s after it was sent):
    // the next entry comes after that, not at the next signal.
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(log.seconds(entries[1]!.atMicros)).toBeGreaterThan(log.seconds(entries[0]!.atMicros) + 70);
  });
  it("drops a stale reconcile: a lost entry's history read that answers after its position showed, closed and a second entry was lost too does not take the old fill for the new entry and freeze the trader", async () => {
    // The trader's first orderHistory read (the first lost entry's) answers 30 s late, as a slow, paged read may.
    const slowFirstRead: AgentDefinition<MomentumParams> = {
      ...momentum,
      kind: "test-momentum-slow-first-read",
      start(ctx) {
        let delayed = false;
        const reads = new Proxy(ctx.reads, {
          get(target, key) {
            if (key === "orderHistory" && !delayed) {
              delayed = true;
              return (...args: Parameters<ReadTransport["orderHistory"]>) =>
                new Promise((resolve, reject) => ctx.after(30 * MICROS_PER_SECOND, () => target.orderHistory(...args).then(resolve, reject)));
            }
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        return momentum.start({ ...ctx, reads });
      },
    };
    const timeline: readonly TimelineEntry[] = [
      // The first entry's answer (about 33 s) is lost (failure reported about 43 s), and no block is made from 30 s to 50 s: its
      // position shows only after the failure, while the trader reconciles; the read it sends then answers at about 73 s.
      { atSeconds: 32, fault: { fault: "dropResponses", count: 1 } },
      { atSeconds: 30, fault: { fault: "delayBlocks", durationMs: 20_000 } },
      // Held 5 s, closed, 5 s of cooldown: the second entry (about 62 s) is refused with the engine down (no order row) and its
      // answer lost, so the trader reconciles it until its deadline (about 132 s), "entering" when the first read answers.
      { atSeconds: 60, fault: { fault: "engineUnavailable", durationMs: 4_000 } },
      { atSeconds: 60, fault: { fault: "dropResponses", count: 1 } },
    ];
    // A steady rise: the signal stays long throughout.
    const path = [
      [0, 3_000],
      [30, 3_000],
      [200, 3_060],
    ] as const;
    const { run, log, trader } = await lostEntryScenario("momentum-stale-reconcile", timeline, 160, { path, params: { maxHoldSeconds: 5 }, agent: slowFirstRead });
    const entries = log.requestsOf(trader, "createOrder").filter((request) => request.body["orderType"] === "LIMIT" && request.body["reduceOnly"] === false);
    expect(countOf(run, "momentum", "error:client:TransportFailedError")).toBe(2);
    expect(countOf(run, "momentum", "timeExits")).toBeGreaterThanOrEqual(1);
    expect(log.seconds(entries[1]!.atMicros)).toBeGreaterThan(55);
    expect(log.seconds(entries[1]!.atMicros)).toBeLessThan(70);
    // The first entry's late row is not taken for the second entry's fate (before the guard: entryRecovered 1, then waiting on a
    // position that never showed, and no entry again for the rest of the run).
    expect(countOf(run, "momentum", "entryRecovered")).toBe(0);
    expect(countOf(run, "momentum", "entryLostAbsent")).toBe(1);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(log.seconds(entries[2]!.atMicros)).toBeGreaterThan(log.seconds(entries[1]!.atMicros) + 60);
  });
});
