/**
 * `shadowbook serve <scenario> --clock wall`: the scenario is staged while
 * its accounts' inputs move the wall-clock driver's time, and the agents
 * then act on the wall clock (the CLI's LIVE_AGENT_TICK_MS tick). Staging
 * used to let the agents' kernel catch up to the driver mid-setup, past
 * the start time the feeds schedule their first prices at, and the server
 * failed to start ("cannot schedule at ...: the clock already reads ...").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_AGENT_TICK_MS, liveScenario } from "../../src/cli/serve-scenario.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { defineScenario } from "../../src/sim/scenario.ts";

/** Quotes one bid 10 ticks under the oracle as soon as it has a price, once. */
const quoter = defineAgent({
  kind: "test-wall-quoter",
  description: "one bid under the oracle",
  defaults: { symbol: "ETHRUSDPERP" },
  async start(ctx) {
    let quoted = false;
    await ctx.stream.subscribe("/v2/assetOraclePrices", (message) => {
      const weth = message.data.find((price) => price.asset === "WETH");
      if (weth === undefined || quoted) return;
      quoted = true;
      void ctx.client.createOrder({ symbol: ctx.params.symbol, isBuy: true, limitPx: (Number(weth.oraclePrice) - 1).toFixed(2), qty: "0.5", timeInForce: "GTC", postOnly: true });
    });
  },
});

const scenario = defineScenario({
  name: "serve-wall-test",
  description: "one quoter, wall clock",
  seed: 3,
  durationSeconds: 60,
  markets: { ...DEFAULT_MARKETS, perpMarkets: DEFAULT_MARKETS.perpMarkets.filter((market) => market.symbol === "ETHRUSDPERP") },
  prices: [{ asset: "WETH", model: "gbm", start: 2500, hourlyVolatility: 0 }],
  oracleBasisSd: 0,
  // Several agents, so that staging (keys, accounts) takes wall time, as a real scenario's does.
  agents: ["a", "b", "c", "d"].map((name) => ({ name: `serve-wall-${name}`, agent: quoter, account: { rateTier: 3, deposits: { rUSD: "500000" } } })),
});

let running: RunningServer;
let tick: NodeJS.Timeout;

beforeAll(async () => {
  const live = liveScenario(scenario, new Map(), { signing: DEFAULT_SIGNING_CONFIG }, 1, scenario.seed);
  running = await startLiveServer({
    config: live.config,
    seed: scenario.seed,
    clock: "wall",
    // As the CLI starts it: the wall clock's now (a driver, not the code under test, reads it).
    startMicros: Date.now() * 1_000,
    onAdvance: (now) => live.advance(now),
    setup: (context) => live.setup(context),
  });
  tick = setInterval(() => live.advance(running.context.driver.now()), LIVE_AGENT_TICK_MS);
});

afterAll(async () => {
  clearInterval(tick);
  await running?.close();
});

describe("serve <scenario> on the wall clock", () => {
  it("starts, publishes the scenario's first prices, and its agents trade on them", async () => {
    let bids: { px: string; qty: string }[] = [];
    // Until all four bids rest (the agents' orders arrive one by one on the wall clock), for at most 5 s.
    for (let attempt = 0; attempt < 100 && bids[0]?.qty !== "2"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const response = await fetch(`${running.urls.rest}/market/ETHRUSDPERP/depth?limit=1`);
      expect(response.status).toBe(200);
      bids = ((await response.json()) as { bids: { px: string; qty: string }[] }).bids;
    }
    // Four agents each bid 0.5 one dollar under the oracle's 2500.
    expect(bids).toEqual([{ px: "2499", qty: "2" }]);
  });
});
