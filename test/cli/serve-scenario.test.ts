/**
 * `shadowbook serve <scenario>` over real sockets: the scenario's markets,
 * accounts, feeds and agents in the live server, with a manual clock so the
 * agents act only when the clock moves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveScenario } from "../../src/cli/serve-scenario.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { agentPrivateKey } from "../../src/sim/agent-host.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { privateKeySigner } from "../../src/client/signer.ts";

const START_MS = 1_767_225_600_000;

/** Quotes one bid and one ask 10 ticks around the oracle, once per second of virtual time. */
const quoter = defineAgent({
  kind: "test-quoter",
  description: "quotes around the oracle",
  defaults: { symbol: "ETHRUSDPERP" },
  async start(ctx) {
    let oracle = 0;
    await ctx.stream.subscribe("/v2/assetOraclePrices", (message) => {
      const weth = message.data.find((price) => price.asset === "WETH");
      if (weth !== undefined) oracle = Number(weth.oraclePrice);
    });
    const quote = async () => {
      if (oracle > 0) {
        await ctx.client.cancelAll({ symbol: ctx.params.symbol });
        await ctx.client.createOrder({ symbol: ctx.params.symbol, isBuy: true, limitPx: (oracle - 0.1).toFixed(2), qty: "0.5", timeInForce: "GTC", postOnly: true });
        await ctx.client.createOrder({ symbol: ctx.params.symbol, isBuy: false, limitPx: (oracle + 0.1).toFixed(2), qty: "0.5", timeInForce: "GTC", postOnly: true });
        ctx.count("quotes");
      }
      ctx.after(1_000_000, quote);
    };
    ctx.after(1_000, quote);
  },
});

const scenario = defineScenario({
  name: "serve-test",
  description: "one quoter on a market set without BTC",
  seed: 7,
  durationSeconds: 60,
  markets: { ...DEFAULT_MARKETS, perpMarkets: DEFAULT_MARKETS.perpMarkets.filter((market) => market.symbol === "ETHRUSDPERP") },
  prices: [{ asset: "WETH", model: "gbm", start: 2500, hourlyVolatility: 0 }],
  oracleBasisSd: 0,
  agents: [{ name: "serve-test-quoter", agent: quoter, account: { rateTier: 3, deposits: { rUSD: "500000" } } }],
});

let running: RunningServer;
let base: string;

beforeAll(async () => {
  const live = liveScenario(scenario, new Map(), { signing: DEFAULT_SIGNING_CONFIG }, 1, scenario.seed);
  running = await startLiveServer({
    config: live.config,
    seed: scenario.seed,
    clock: "manual",
    startMicros: START_MS * 1_000,
    onAdvance: (now) => live.advance(now),
    setup: (context) => live.setup(context),
  });
  base = running.urls.rest;
});

afterAll(async () => {
  await running.close();
});

async function get(path: string): Promise<unknown> {
  const response = await fetch(`${base}${path}`);
  expect(response.status, path).toBe(200);
  return response.json();
}

async function advance(ms: number): Promise<void> {
  const response = await fetch(`${base.replace(/\/v2$/, "")}/admin/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ advanceMs: ms }) });
  expect(response.status).toBe(200);
  // The agents' answers continue on the event loop: give them a few turns.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("serve <scenario>", () => {
  const wallet = privateKeySigner(agentPrivateKey("serve-test-quoter")).address;

  it("serves the scenario's markets, not the built-in set", async () => {
    const definitions = (await get("/perpMarketDefinitions")) as { symbol: string }[];
    expect(definitions.map((definition) => definition.symbol)).toEqual(["ETHRUSDPERP"]);
  });

  it("creates and funds the agents' accounts at start", async () => {
    const balances = (await get(`/wallet/${wallet}/accountBalances`)) as { accountId: number; asset: string; realBalance: string }[];
    expect(balances).toEqual([expect.objectContaining({ accountId: 2, asset: "rUSD", realBalance: "500000" })]);
  });

  it("agents act only when the manual clock moves, and then quote around the scenario's feed", async () => {
    expect(await get(`/wallet/${wallet}/openOrders`)).toEqual([]);
    for (let i = 0; i < 4; i++) await advance(500);
    const depth = (await get("/market/ETHRUSDPERP/depth?limit=1")) as { bids: { px: string; qty: string }[]; asks: { px: string; qty: string }[] };
    expect(depth.bids).toEqual([{ px: "2499.9", qty: "0.5" }]);
    expect(depth.asks).toEqual([{ px: "2500.1", qty: "0.5" }]);
    const open = (await get(`/wallet/${wallet}/openOrders`)) as unknown[];
    expect(open).toHaveLength(2);
  });
});
