/**
 * Spot only: one spot market (WETHRUSD, marketId 5) and no perps; WETH
 * and rUSD balances move by spot executions alone (no positions, margin
 * or funding). A maker holds both assets; takers buy and sell WETH with
 * rUSD, each within its own balances (spot orders are checked against the
 * assets they would spend).
 *
 * Fuzz: the default scenario's draw (scenarios/fuzz-helpers.ts): the bust
 * probability (0..0.03), a factor on the takers' rates (0.5..4), order-entry
 * and market-data latency medians (200..20000 µs), the maker's refresh
 * interval (1..8 s) and one fault at a second of the run.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { DEFAULT_MARKETS } from "../src/exchange/config.ts";
import { defineScenario } from "../src/sim/scenario.ts";
import { applySwarm, drawSwarm } from "./fuzz-helpers.ts";

export default defineScenario({
  name: "spot-only",
  description: "WETHRUSD spot alone: a maker with both assets and takers trading WETH against rUSD",
  seed: 1,
  durationSeconds: 1_800,
  signatures: "trusted",
  markets: { ...DEFAULT_MARKETS, perpMarkets: [] },
  fuzz: { draw: drawSwarm, apply: applySwarm },
  prices: [{ asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.02, jumps: { perHour: 2, mean: 0, sd: 0.01 } }],
  agents: [
    { name: "mm-spot", agent: marketMaker, params: { symbol: "WETHRUSD", spreadBps: 10, levelNotional: 3_000 }, account: { rateTier: 3, deposits: { rUSD: "5000000", WETH: "1500" } } },
    { name: "noise-spot-1", agent: noiseTaker, params: { symbols: ["WETHRUSD"], ratePerSecond: 0.6 }, account: { rateTier: 3, deposits: { rUSD: "300000", WETH: "100" } } },
    { name: "noise-spot-2", agent: noiseTaker, params: { symbols: ["WETHRUSD"], ratePerSecond: 0.4, medianNotional: 4_000 }, account: { rateTier: 3, deposits: { rUSD: "300000", WETH: "100" } } },
  ],
});
