/**
 * Liquidation cascade with ADL: ETH falls about 10 % over twenty minutes
 * (a strongly negative drift plus downward jumps) while six over-leveraged
 * traders are long at 17-19x. Each liquidation closes against the backstop
 * pool while the pool's margin allows, and falls to auto-deleveraging of
 * the most profitable shorts (ADL executions) when it does not; losses
 * beyond the pool are socialized. The pool starts small here: on seed 1
 * the first three closes are ADL, and the pool, grown by liquidation
 * penalties, takes the last two.
 * The market maker and noise takers keep a book to trade against.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { overLeveraged } from "../agents/over-leveraged.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../src/exchange/config.ts";
import { defineScenario } from "../src/sim/scenario.ts";

const longs = [17, 18, 19, 19, 18, 17].map((leverage, index) => ({
  name: `long-${index + 1}`,
  agent: overLeveraged,
  params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, leverage, startDelaySeconds: 10 + index * 5, reenterAfterSeconds: null },
  account: { rateTier: 3 as const, deposits: { rUSD: String(5_000 + index * 1_000) } },
}));

export default defineScenario({
  name: "liquidation-cascade",
  description: "ETH falls ~10 % in twenty minutes; six 17-19x longs are liquidated, ADL closes what the small pool cannot take",
  seed: 1,
  durationSeconds: 1_800,
  signatures: "trusted",
  prices: [
    { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.01, hourlyDrift: -0.3, jumps: { perHour: 6, mean: -0.01, sd: 0.004 } },
    { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.01, decimals: 1 },
  ],
  timeline: [{ atSeconds: 0, admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount: "3000" } }],
  agents: [
    { name: "mm-eth", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 8_000, maxInventoryNotional: 400_000 }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "noise-eth", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 0.5 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
    ...longs,
  ],
});
