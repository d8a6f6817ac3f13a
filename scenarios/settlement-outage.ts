/**
 * Settlement outage with mass busts: ten minutes of normal trading, then
 * the chain stalls for two minutes (no blocks: matches pile up unsettled),
 * and when it comes back every pending match and the flow of the next
 * minute bust at 60 % (an injected reason), before settlement returns to
 * its usual 0.5 %. Positions must end equal to the settled executions only:
 * the fuzz and invariant checks watch exactly this.
 *
 * Fuzz: each seed draws when the chain stalls (outageAtSeconds 30..600) and
 * for how long (outageSeconds 30..180), the share of matches busted once it
 * is back (recoveryBustShare 0.3..0.9) and for how long after
 * (recoverySeconds 30..120); then another fault and the chain's timing
 * (scenarios/fuzz-helpers.ts drawFaults).
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import type { Rng } from "../src/core/rng.ts";
import { defineScenario, type FuzzParameters, type FuzzRun, type Scenario, type TimelineEntry } from "../src/sim/scenario.ts";
import { applyFaults, drawFaults, round } from "./fuzz-helpers.ts";

const NORMAL_BUST_PROBABILITY = 0.005;

/**
 * No block from `atSeconds` for `outageSeconds`; matches bust at
 * `bustShare` from `atSeconds` (so every match made during the stall) until
 * `recoverySeconds` after the chain is back, then at the normal rate.
 */
function outage(atSeconds: number, outageSeconds: number, bustShare: number, recoverySeconds: number): TimelineEntry[] {
  return [
    { atSeconds, fault: { fault: "delayBlocks", durationMs: outageSeconds * 1_000 } },
    { atSeconds, fault: { fault: "bustProbability", probability: bustShare } },
    { atSeconds: atSeconds + outageSeconds + recoverySeconds, fault: { fault: "bustProbability", probability: NORMAL_BUST_PROBABILITY } },
  ];
}

function draw(rng: Rng, run: FuzzRun): FuzzParameters {
  return {
    outageAtSeconds: rng.int(30, 600),
    outageSeconds: rng.int(30, 180),
    recoveryBustShare: round(rng.between(0.3, 0.9), 2),
    recoverySeconds: rng.int(30, 120),
    ...drawFaults(rng, run),
  };
}

function applyTheme(scenario: Scenario, parameters: FuzzParameters): Scenario {
  const value = (name: string) => Number(parameters[name]);
  // The drawn outage replaces the scenario's (its whole timeline).
  return { ...scenario, timeline: outage(value("outageAtSeconds"), value("outageSeconds"), value("recoveryBustShare"), value("recoverySeconds")) };
}

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
  settlement: { bustProbability: NORMAL_BUST_PROBABILITY },
  timeline: outage(600, 120, 0.6, 60),
  fuzz: { draw, apply: (scenario, parameters) => applyFaults(applyTheme(scenario, parameters), parameters) },
  agents: [
    { name: "mm-eth", agent: marketMaker, params: { symbol: "ETHRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "mm-btc", agent: marketMaker, params: { symbol: "BTCRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "noise-eth", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 1 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
    { name: "noise-btc", agent: noiseTaker, params: { symbols: ["BTCRUSDPERP"], ratePerSecond: 1 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
  ],
});
