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
