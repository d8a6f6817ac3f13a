import { describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { overLeveraged } from "../../agents/over-leveraged.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../../src/exchange/config.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { agentOf, CALM_FEEDS, countOf, pathFeed, RunLog } from "./helpers.ts";

describe("over-leveraged trader", () => {
  it("builds a long near the maximum leverage and is liquidated by a 4 % fall (a LIQUIDATION execution against the pool)", async () => {
    const eth = pathFeed("WETH", [
      [0, 3_000],
      [40, 3_000],
      [70, 2_880],
      [120, 2_880],
    ]);
    const log = new RunLog();
    const scenario = defineScenario({
      name: "over-leveraged",
      description: "",
      seed: 4,
      durationSeconds: 100,
      prices: [eth.feed, CALM_FEEDS[1]!],
      oracleBasisSd: 0,
      timeline: [{ atSeconds: 0, admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount: "10000000" } }],
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000, refreshSeconds: 1 }, account: { rateTier: 3, deposits: { rUSD: "2000000" } } },
        {
          name: "gambler",
          agent: overLeveraged,
          params: { symbol: "ETHRUSDPERP", side: "long", leverage: 19, startDelaySeconds: 5, reenterAfterSeconds: null },
          account: { rateTier: 3, deposits: { rUSD: "2000" } },
        },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log], paths: eth.paths });
    const gambler = agentOf(run, "gambler");

    const own = log.executions.filter((entry) => entry.record.takerAccountId === gambler.accountId);
    const liquidations = own.filter((entry) => entry.record.type === "LIQUIDATION");
    expect(liquidations).toHaveLength(1);
    const liquidation = liquidations[0]!;
    expect(liquidation.record.makerAccountId).toBe(DEFAULT_POOL_ACCOUNT_ID);
    expect(liquidation.record.side).toBe("A"); // the long is sold to the pool
    expect(log.seconds(liquidation.atMicros)).toBeGreaterThan(40);
    expect(log.seconds(liquidation.atMicros)).toBeLessThan(70);

    // Before it, the position was built near the maximum leverage: more than 17 x the 2000 deposit.
    const bought = own.filter((entry) => entry.record.type === "ORDER_MATCH" && entry.atMicros < liquidation.atMicros);
    const notional = bought.reduce((sum, entry) => sum + Number(entry.record.qty) * Number(entry.record.price), 0);
    expect(notional).toBeGreaterThan(17 * 2_000);
    expect(notional).toBeLessThan(20 * 2_000);
    expect(Number(liquidation.record.qty)).toBeCloseTo(bought.reduce((sum, entry) => sum + Number(entry.record.qty), 0), 6);

    expect(countOf(run, "gambler", "liquidations")).toBe(1);
    expect(run.world.queries.positions(gambler.wallet)).toHaveLength(0);
  });
});

describe("over-leveraged trader, robustness", () => {
  /** A maker, and the trader with `params`, on ETH following `points`. */
  async function runGambler(params: Record<string, unknown>, points: readonly (readonly [number, number])[]) {
    const eth = pathFeed("WETH", points);
    const log = new RunLog();
    const scenario = defineScenario({
      name: "over-leveraged-variant",
      description: "",
      seed: 4,
      durationSeconds: 100,
      prices: [eth.feed, CALM_FEEDS[1]!],
      oracleBasisSd: 0,
      timeline: [{ atSeconds: 0, admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount: "10000000" } }],
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000, refreshSeconds: 1 }, account: { rateTier: 3, deposits: { rUSD: "2000000" } } },
        { name: "gambler", agent: overLeveraged, params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, ...params }, account: { rateTier: 3, deposits: { rUSD: "2000" } } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log], paths: eth.paths });
    return { run, log, gambler: agentOf(run, "gambler") };
  }

  it("starting before the first oracle price (startDelaySeconds 0), builds once the price comes instead of giving up", async () => {
    const { run, log, gambler } = await runGambler({ startDelaySeconds: 0, reenterAfterSeconds: null }, [
      [0, 3_000],
      [100, 3_000],
    ]);
    expect(countOf(run, "gambler", "tooPoorToBuild")).toBe(0);
    const chunks = log.requestsOf(gambler, "createOrder");
    expect(chunks.length).toBeGreaterThan(2);
    expect(log.seconds(chunks[0]!.atMicros)).toBeLessThan(3);
    const position = run.world.queries.positions(gambler.wallet).find((row) => row.symbol === "ETHRUSDPERP");
    expect(Number(position?.qty) * 3_000).toBeGreaterThan(17 * 2_000);
  });

  it("re-entering sooner than a chunk period after a liquidation mid-build, keeps one chunk every chunkSeconds (the old build's timer does not run on)", async () => {
    // Built in 4000 USD chunks every 5 s; ETH falls 10 % from 30 s to 45 s and liquidates the long mid-build; it re-enters at once.
    const { run, log, gambler } = await runGambler({ startDelaySeconds: 5, chunkSeconds: 5, chunkNotional: 4_000, reenterAfterSeconds: 0 }, [
      [0, 3_000],
      [30, 3_000],
      [45, 2_700],
      [120, 2_700],
    ]);
    expect(countOf(run, "gambler", "liquidations")).toBe(1);
    expect(countOf(run, "gambler", "reentries")).toBe(1);
    const liquidatedAt = log.executions.find((entry) => entry.record.takerAccountId === gambler.accountId && entry.record.type === "LIQUIDATION")!.atMicros;
    const at = log.requestsOf(gambler, "createOrder").map((request) => log.seconds(request.atMicros));
    // Before the liquidation one chunk every 5 s; after it, the new build's chunks alone, also 5 s apart.
    for (const chunks of [at.filter((second) => second < log.seconds(liquidatedAt)), at.filter((second) => second > log.seconds(liquidatedAt))]) {
      expect(chunks.length).toBeGreaterThan(3);
      for (let i = 1; i < chunks.length; i++) expect(chunks[i]! - chunks[i - 1]!, `chunk at ${chunks[i]} s`).toBeGreaterThan(4.9);
    }
  });
});

describe("over-leveraged trader, crossBps beyond the IOC band", () => {
  it("caps its cross on a perp inside the band the exchange enforces (10 % from the mark): a crossBps of 1500 is sent 900 bps through, and none is refused", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "over-leveraged-wide-cross",
      description: "",
      seed: 3,
      durationSeconds: 60,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        {
          name: "gambler",
          agent: overLeveraged,
          params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, crossBps: 1_500, startDelaySeconds: 5, reenterAfterSeconds: null },
          account: { rateTier: 3, deposits: { rUSD: "5000" } },
        },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const gambler = agentOf(run, "gambler");
    const sent = log.requestsOf(gambler, "createOrder");
    expect(sent.length).toBeGreaterThan(10);
    // Without the cap every one of them was refused by the band (CREATE_ORDER_OTHER_ERROR), and no position was built.
    expect(countOf(run, "gambler", "error:CREATE_ORDER_OTHER_ERROR")).toBe(0);
    expect(Number(run.world.queries.positions(gambler.wallet)[0]?.qty ?? "0")).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.body["isBuy"]).toBe(true);
      // 9 % above the oracle (3000 +- a calm drift), inside the 10 % band around the mark.
      const through = Number(request.body["limitPx"]) / 3_000 - 1;
      expect(through).toBeGreaterThan(0.085);
      expect(through).toBeLessThan(0.095);
    }
  });
});
