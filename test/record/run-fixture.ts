/**
 * A small scenario for the recorder and report tests: a market maker quoting
 * the two perps and the spot market around the oracle, two noise takers
 * (IOC on every market), and an over-leveraged long on ETHRUSDPERP while
 * WETH falls, so the run holds fills, fees, funding, a liquidation and busts.
 */
import { defineAgent, type AgentContext } from "../../src/sim/agent.ts";
import { defineScenario, type Scenario } from "../../src/sim/scenario.ts";

const DECIMALS: Readonly<Record<string, number>> = { ETHRUSDPERP: 2, BTCRUSDPERP: 1, WETHRUSD: 2 };
const SIZES: Readonly<Record<string, string>> = { ETHRUSDPERP: "0.5", BTCRUSDPERP: "0.02", WETHRUSD: "0.2" };

/** Index prices by asset, kept up to date from the oracle stream. */
async function followOracle(ctx: AgentContext<Record<string, unknown>>): Promise<Map<string, number>> {
  const mids = new Map<string, number>([
    ["WETH", 3000],
    ["WBTC", 60000],
  ]);
  await ctx.stream.subscribe("/v2/assetOraclePrices", (m) => {
    for (const p of m.data) mids.set(p.asset, Number(p.oraclePrice));
  });
  return mids;
}

const quoter = defineAgent({
  kind: "fixture-quoter",
  description: "quotes every market around the oracle, refreshed every second",
  defaults: { spread: 0.0008 },
  async start(ctx) {
    const mids = await followOracle(ctx);
    const loop = async () => {
      for (const market of ctx.markets) {
        await ctx.client.cancelAll({ symbol: market.symbol }).catch(() => ctx.count("cancelAllFailed"));
        const mid = mids.get(market.asset) ?? 0;
        for (const isBuy of [true, false]) {
          for (const step of [1, 2]) {
            const px = (isBuy ? mid * (1 - ctx.params.spread * step) : mid * (1 + ctx.params.spread * step)).toFixed(DECIMALS[market.symbol]!);
            try {
              await ctx.client.createOrder({ symbol: market.symbol, isBuy, limitPx: px, qty: SIZES[market.symbol]!, timeInForce: "GTC", postOnly: true });
            } catch {
              ctx.count("rejected");
            }
          }
        }
      }
      ctx.after(1_000_000, loop);
    };
    await loop();
  },
});

const taker = defineAgent({
  kind: "fixture-taker",
  description: "Poisson IOC flow on every market",
  defaults: { perSecond: 1 },
  async start(ctx) {
    const mids = await followOracle(ctx);
    const tick = async () => {
      const market = ctx.markets[ctx.rng.int(0, ctx.markets.length - 1)]!;
      const isBuy = ctx.rng.bernoulli(0.5);
      const far = ((mids.get(market.asset) ?? 0) * (isBuy ? 1.02 : 0.98)).toFixed(DECIMALS[market.symbol]!);
      try {
        await ctx.client.createOrder({ symbol: market.symbol, isBuy, limitPx: far, qty: SIZES[market.symbol]!, timeInForce: "IOC" });
      } catch (error) {
        ctx.count(`rejected: ${(error as Error).message.slice(0, 60)}`);
      }
      ctx.after(Math.round(ctx.rng.exponential(ctx.params.perSecond) * 1e6), tick);
    };
    ctx.after(2_000_000, tick);
  },
});

const gambler = defineAgent({
  kind: "fixture-gambler",
  description: "buys ETHRUSDPERP at high leverage in small clips, then holds",
  defaults: { clips: 10 },
  async start(ctx) {
    const mids = await followOracle(ctx);
    let left = ctx.params.clips;
    const buy = async () => {
      try {
        const px = ((mids.get("WETH") ?? 0) * 1.02).toFixed(2);
        await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: px, qty: "0.5", timeInForce: "IOC" });
      } catch (error) {
        ctx.count(`rejected: ${(error as Error).message.slice(0, 60)}`);
      }
      if (--left > 0) ctx.after(1_500_000, buy);
    };
    ctx.after(3_000_000, buy);
  },
});

export function fixtureScenario(durationSeconds = 60, overrides: Partial<Scenario> = {}): Scenario {
  return defineScenario({
    name: "record-fixture",
    description: "recorder and report tests",
    seed: 7,
    durationSeconds,
    prices: [
      { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.02, hourlyDrift: -4 },
      { asset: "WBTC", model: "gbm", start: 60000, hourlyVolatility: 0.02, decimals: 1 },
    ],
    settlement: { bustProbability: 0.03 },
    agents: [
      { name: "mm", agent: quoter, account: { rateTier: 3, deposits: { rUSD: "2000000", WETH: "50" } } },
      { name: "taker-1", agent: taker, account: { rateTier: 3, deposits: { rUSD: "200000", WETH: "20" } } },
      { name: "taker-2", agent: taker, params: { perSecond: 2 }, account: { rateTier: 3, deposits: { rUSD: "200000", WETH: "20" } } },
      { name: "gambler", agent: gambler, account: { deposits: { rUSD: "1000" } } },
    ],
    ...overrides,
  });
}
