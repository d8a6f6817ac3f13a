/**
 * Settlement outage with mass busts: ten minutes of normal trading, then
 * the chain stalls for two minutes (no blocks: matches pile up unsettled),
 * and when it comes back every pending match and the flow of the next
 * minute bust at 60 % (an injected reason), before settlement returns to
 * its usual 0.5 %. Positions must end equal to the settled executions only:
 * the fuzz and invariant checks watch exactly this.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { defineScenario } from "../src/sim/scenario.ts";

export default defineScenario({
  name: "settlement-outage",
  description: "the chain stalls for two minutes, then 60 % of matches bust for a minute, then normal again",
  seed: 1,
  durationSeconds: 1_200,
  signatures: "trusted",
  prices: [
    { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.015 },
    { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.015, decimals: 1 },
  ],
  settlement: { bustProbability: 0.005 },
  timeline: [
    { atSeconds: 600, fault: { fault: "delayBlocks", durationMs: 120_000 } },
    { atSeconds: 600, fault: { fault: "bustProbability", probability: 0.6 } },
    { atSeconds: 780, fault: { fault: "bustProbability", probability: 0.005 } },
  ],
  agents: [
    { name: "mm-eth", agent: marketMaker, params: { symbol: "ETHRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "mm-btc", agent: marketMaker, params: { symbol: "BTCRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "noise-eth", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 1 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
    { name: "noise-btc", agent: noiseTaker, params: { symbols: ["BTCRUSDPERP"], ratePerSecond: 1 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
  ],
});
