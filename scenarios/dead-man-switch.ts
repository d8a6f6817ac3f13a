/**
 * A market maker whose refreshes stop: it quotes ETHRUSDPERP and renews a
 * 15 s cancelAllAfter with every refresh, as a dead-man switch; after five
 * minutes its refresh loop stops (a crashed quoting process, say), the
 * switch fires, and every one of its orders is cancelled by the exchange.
 * A second maker keeps quoting, so takers see the book thin out, not vanish.
 *
 * Fuzz: each seed draws when the maker stalls (stallAfterSeconds 20..450, so
 * the switch fires within the run) and its switch's timeout (deadManMs
 * 5000..60000 in whole seconds, the range cancelAllAfter accepts; every
 * value is longer than the 3 s refresh); then a fault and the chain's
 * timing (scenarios/fuzz-helpers.ts drawFaults): a renewal may meet an
 * unavailable engine or lose its response.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import type { Rng } from "../src/core/rng.ts";
import { defineScenario, type FuzzParameters, type FuzzRun, type Scenario } from "../src/sim/scenario.ts";
import { applyFaults, drawFaults, withAgentParams } from "./fuzz-helpers.ts";

function draw(rng: Rng, run: FuzzRun): FuzzParameters {
  return {
    stallAfterSeconds: rng.int(20, 450),
    deadManMs: rng.int(5, 60) * 1_000,
    ...drawFaults(rng, run),
  };
}

function applyTheme(scenario: Scenario, parameters: FuzzParameters): Scenario {
  const stalls = { stopRefreshingAfterSeconds: Number(parameters["stallAfterSeconds"]), deadManMs: Number(parameters["deadManMs"]) };
  return { ...scenario, agents: withAgentParams(scenario.agents, (agent) => (agent.name === "mm-stalls" ? stalls : undefined)) };
}

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
  fuzz: { draw, apply: (scenario, parameters) => applyFaults(applyTheme(scenario, parameters), parameters) },
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
