/**
 * A market maker whose refreshes stop: it quotes ETHRUSDPERP and renews a
 * 15 s cancelAllAfter with every refresh, as a dead-man switch; after five
 * minutes its refresh loop stops (a crashed quoting process, say), the
 * switch fires, and every one of its orders is cancelled by the exchange.
 * A second maker keeps quoting, so takers see the book thin out, not vanish.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { defineScenario } from "../src/sim/scenario.ts";

export default defineScenario({
  name: "dead-man-switch",
  description: "a maker's refreshes stop after five minutes; its 15 s cancelAllAfter fires and cancels its quotes",
  seed: 1,
  durationSeconds: 600,
  signatures: "trusted",
  prices: [
    { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.015 },
    { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.015, decimals: 1 },
  ],
  agents: [
    {
      name: "mm-stalls",
      agent: marketMaker,
      params: { symbol: "ETHRUSDPERP", deadManMs: 15_000, stopRefreshingAfterSeconds: 300 },
      account: { rateTier: 3, deposits: { rUSD: "5000000" } },
    },
    { name: "mm-steady", agent: marketMaker, params: { symbol: "ETHRUSDPERP", spreadBps: 14 }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "noise-eth", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 0.5 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
  ],
});
