/**
 * Funding squeeze: for an hour the ETH perp trades rich. Takers buy four
 * times in five, the market maker skews its quotes up as it goes short (by
 * up to 60 bps at its inventory cap of 1.5M USD, which is above what the
 * longs and the buyers take, so it keeps offering: with a cap of 300k it
 * stopped quoting asks, and the buyers' buys went unfilled while their
 * sells filled, leaving them net short), and
 * the exchange-mark oracle sits 0.3 % above the index, so the mark (the
 * median of the impact price, index + smoothed premium, and that oracle)
 * stays above the index and funding runs well above the default 0.05 %
 * cap (0.20-0.26 % an hour for 80 % of the hour on seed 1, above 0.05 % for
 * 99 % of it; prices.arrow has the rate; the cap is raised to 0.5 % for
 * the scenario, which the rate does not reach: only one of the mark's three
 * inputs sits 0.3 % high, so their median stays closer): longs pay, shorts
 * receive. Two over-leveraged longs hold their positions and bleed funding
 * (the summary counts funding still accruing on an open position in its
 * unrealized PnL, and in the funding columns once a position shrinks; the
 * prices.arrow output has the rate over time).
 *
 * Fuzz: each seed draws the mark oracle's premium over the index
 * (oraclePremium 0.0015..0.006), the buyers' share of buys (buyShare
 * 0.6..0.95) and the ETH perp's funding cap (fundingRateCap 0.002..0.01,
 * still four times the default or more): longs keep paying shorts; then a
 * fault and the chain's timing (scenarios/fuzz-helpers.ts drawFaults).
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { overLeveraged } from "../agents/over-leveraged.ts";
import type { Rng } from "../src/core/rng.ts";
import { DEFAULT_MARKETS, DEFAULT_POOL_ACCOUNT_ID } from "../src/exchange/config.ts";
import type { RiskConfigInput } from "../src/risk/config.ts";
import { defineScenario, type FuzzParameters, type FuzzRun, type Scenario } from "../src/sim/scenario.ts";
import { applyFaults, drawFaults, round, withAgentParams } from "./fuzz-helpers.ts";

/** The markets with the ETH perp's funding cap set to `cap` (a fraction per hour, as a decimal string). */
const withEthFundingCap = (markets: RiskConfigInput, cap: string): RiskConfigInput => ({
  ...markets,
  perpMarkets: markets.perpMarkets.map((market) => (market.symbol === "ETHRUSDPERP" ? { ...market, fundingRateCap: cap } : market)),
});

function draw(rng: Rng, run: FuzzRun): FuzzParameters {
  return {
    oraclePremium: round(rng.between(0.0015, 0.006), 5),
    buyShare: round(rng.between(0.6, 0.95), 2),
    fundingRateCap: round(rng.between(0.002, 0.01), 4).toString(),
    ...drawFaults(rng, run),
  };
}

function applyTheme(scenario: Scenario, parameters: FuzzParameters): Scenario {
  return {
    ...scenario,
    markets: withEthFundingCap(scenario.markets ?? DEFAULT_MARKETS, String(parameters["fundingRateCap"])),
    oracleBasisMean: Number(parameters["oraclePremium"]),
    agents: withAgentParams(scenario.agents, (agent) => (agent.name === "buyers" ? { buyShare: Number(parameters["buyShare"]) } : undefined)),
  };
}

export default defineScenario({
  name: "funding-squeeze",
  description: "one-sided buying and a rich mark oracle keep ETH funding far above the default cap: longs pay shorts for an hour",
  seed: 1,
  durationSeconds: 3_600,
  signatures: "trusted",
  markets: withEthFundingCap(DEFAULT_MARKETS, "0.005"),
  prices: [
    { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.01, stepMs: 2_000 },
    { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.01, stepMs: 2_000, decimals: 1 },
  ],
  oracleBasisMean: 0.003,
  oracleBasisSd: 0.0002,
  fuzz: { draw, apply: (scenario, parameters) => applyFaults(applyTheme(scenario, parameters), parameters) },
  timeline: [{ atSeconds: 0, admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount: "5000000" } }],
  agents: [
    { name: "mm-eth", agent: marketMaker, params: { symbol: "ETHRUSDPERP", skewBps: 60, maxInventoryNotional: 1_500_000 }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "buyers", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 0.5, buyShare: 0.8, maxPositionNotional: 200_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
    { name: "long-1", agent: overLeveraged, params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, leverage: 15 }, account: { rateTier: 3, deposits: { rUSD: "10000" } } },
    { name: "long-2", agent: overLeveraged, params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, leverage: 10 }, account: { rateTier: 3, deposits: { rUSD: "20000" } } },
  ],
});
