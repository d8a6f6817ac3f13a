/**
 * AgentContext.endMicros (src/sim/agent.ts): an agent knows when its run
 * ends, so it can wind down before it. It is the run's end (start plus the
 * duration the run was given, the scenario's or an override), and an agent
 * that flattens ten seconds before it ends flat.
 */
import { describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { gridOf } from "../../agents/lib/grid.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { CALM_FEEDS } from "../agents/helpers.ts";

const SYMBOL = "ETHRUSDPERP";

/** Buys 0.05 ETH soon after it starts, and sells it back (reduce-only IOC) ten seconds before the run ends. */
const flattener = defineAgent({
  kind: "flattener",
  description: "long, then flat before the end",
  defaults: {},
  start(ctx) {
    const grid = gridOf(ctx.markets, SYMBOL);
    ctx.count("endSeconds", (ctx.endMicros! - ctx.now()) / 1_000_000);
    const trade = async (isBuy: boolean, reduceOnly: boolean) => {
      const answer = await ctx.client.createOrder({ symbol: SYMBOL, isBuy, limitPx: grid.price(isBuy ? 3_090 : 2_910, isBuy ? "down" : "up"), qty: "0.05", timeInForce: "IOC", reduceOnly });
      ctx.count(`${isBuy ? "buy" : "sell"}:${answer.status}`);
      ctx.count(isBuy ? "boughtAtSecond" : "soldAtSecond", Math.floor((ctx.now() - ctx.endMicros!) / 1_000_000));
    };
    ctx.after(5_000_000, () => trade(true, false));
    ctx.after(ctx.endMicros! - ctx.now() - 10_000_000, () => trade(false, true));
  },
});

function scenario(durationSeconds: number) {
  return defineScenario({
    name: "agent-end",
    description: "",
    seed: 3,
    durationSeconds,
    prices: CALM_FEEDS,
    agents: [
      { name: "mm", agent: marketMaker, params: { symbol: SYMBOL, levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
      { name: "flat", agent: flattener, params: {}, account: { deposits: { rUSD: "10000" } } },
    ],
  });
}

describe("an agent knows when its run ends", () => {
  it("endMicros is the run's end, with the scenario's duration or the one the run was given", async () => {
    for (const [durationSeconds, override] of [
      [90, undefined],
      [90, 60],
    ] as const) {
      const { run } = await runScenario(scenario(durationSeconds), override === undefined ? {} : { durationSeconds: override });
      const agent = run.host.agents.find((hosted) => hosted.name === "flat")!;
      expect(run.endMicros - run.startMicros).toBe((override ?? durationSeconds) * 1_000_000);
      // Counted at start: seconds from the agent's start to endMicros, the whole run less nothing (it starts at the run's start).
      expect(agent.counts.get("endSeconds")).toBe((run.endMicros - run.startMicros) / 1_000_000);
    }
  });

  it("a strategy that flattens ten seconds before the end ends flat, having traded both ways", async () => {
    const { run } = await runScenario(scenario(90));
    const agent = run.host.agents.find((hosted) => hosted.name === "flat")!;
    expect(agent.counts.get("buy:FILLED")).toBe(1);
    expect(agent.counts.get("sell:FILLED")).toBe(1);
    // The sell was answered within a second after end - 10 s (the order-entry latency), the buy long before.
    expect(agent.counts.get("soldAtSecond")).toBe(-10);
    expect(agent.counts.get("boughtAtSecond")).toBeLessThan(-60);
    const position = run.world.queries.positions(agent.wallet).find((entry) => entry.symbol === SYMBOL);
    expect(position === undefined || Number(position.qty) === 0).toBe(true);
  });
});
