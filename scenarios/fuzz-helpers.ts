/**
 * Helpers for the `fuzz` sections of the shipped scenarios (swarm testing:
 * each seed draws a scenario's free parameters, see src/sim/fuzz.ts).
 *
 * - `drawSwarm` / `applySwarm`: the default scenario's draw, shared by any
 *   scenario of market makers and noise takers (spot-only uses it too): the
 *   bust probability, a factor on every noise taker's rate, the order-entry
 *   and market-data latency medians of every agent, the makers' refresh
 *   interval, and one fault (or none) at a second of the run.
 * - `drawFaults` / `applyFaults`: the fault and chain-timing part of that
 *   draw alone, which every themed scenario draws after its own parameters,
 *   so that a theme is fuzzed under a fault too (the swarm: one of the
 *   faults, or none, at any second of the run, and blocks and settlement
 *   with jitter and latency).
 * - Smaller pieces for the themed scenarios: `round` (drawn values print
 *   readably), `withAgentParams` (a patch of some agents' params).
 *
 * Drawn values are plain numbers and strings (FuzzParameters), so a failing
 * seed's parameters print readably and re-draw identically from the seed.
 */
import { marketMaker } from "../agents/market-maker.ts";
import { NOISE_TAKER_DEFAULTS, noiseTaker } from "../agents/noise-taker.ts";
import type { Rng } from "../src/core/rng.ts";
import type { LatencySpec } from "../src/sim/latency.ts";
import type { FuzzParameters, FuzzRun, Scenario, ScenarioAgent } from "../src/sim/scenario.ts";
import { drawFault, withDrawnFault } from "../src/sim/swarm.ts";


/** `value` to `digits` decimal places, as a number. */
export const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** A lognormal latency around `medianMicros` (sigma 0.4, floor 150 µs or the median if lower). */
export const lognormal = (medianMicros: number): LatencySpec => ({ model: "lognormal", medianMicros, sigma: 0.4, minMicros: Math.min(150, medianMicros) });

/**
 * The agents with `patch(agent)` merged into their params; an agent whose
 * patch is undefined is kept as it is.
 */
export function withAgentParams(agents: readonly ScenarioAgent[], patch: (agent: ScenarioAgent) => Record<string, unknown> | undefined): ScenarioAgent[] {
  return agents.map((agent) => {
    const changes = patch(agent);
    return changes === undefined ? agent : { ...agent, params: { ...agent.params, ...changes } };
  });
}

/**
 * The default scenario's draw: bustProbability 0..0.03, takerRateFactor
 * 0.5..4, orderEntryMedianMicros and marketDataMedianMicros 200..20000,
 * refreshSeconds 1..8, and a fault (src/sim/swarm.ts) at a second of the
 * run (the seconds 1 to its duration less one: CI's one-minute runs draw
 * within the minute, a ten-minute run anywhere in its ten);
 * then the chain's timing, drawn last so that the values above stay what
 * they were for every seed: blockJitterMs 0..50 (blocks every 100 ms),
 * settlementLatencyMinMs 0..200 and settlementLatencyMaxMs up to 300 above
 * it (a match waits that long before a block may take it), so that the
 * invariants' block and latency rules run with times other than zero.
 */
export function drawSwarm(rng: Rng, run: FuzzRun): FuzzParameters {
  return {
    bustProbability: round(rng.between(0, 0.03), 4),
    takerRateFactor: round(rng.between(0.5, 4), 2),
    orderEntryMedianMicros: rng.int(200, 20_000),
    marketDataMedianMicros: rng.int(200, 20_000),
    refreshSeconds: rng.int(1, 8),
    ...drawFaults(rng, run),
  };
}

/**
 * A fault (src/sim/swarm.ts: one of SWARM_FAULTS, "none" included) at a
 * second of the run, then the chain's timing (see `drawSwarm`). A themed
 * scenario draws these after its own parameters, so that its own stay what
 * they were for every seed.
 */
export function drawFaults(rng: Rng, run: FuzzRun): FuzzParameters {
  return { ...drawFault(rng, run.durationSeconds), ...drawChainTiming(rng) };
}

function drawChainTiming(rng: Rng): FuzzParameters {
  const blockJitterMs = rng.int(0, 50);
  const settlementLatencyMinMs = rng.int(0, 200);
  return { blockJitterMs, settlementLatencyMinMs, settlementLatencyMaxMs: settlementLatencyMinMs + rng.int(0, 300) };
}

/**
 * `drawSwarm`'s parameters over the scenario: every agent gets the drawn
 * latencies (responses as order entry), every noise taker's rate is
 * multiplied by the factor, every market maker refreshes at the drawn
 * interval, the fault joins the timeline and the bust probability replaces
 * the scenario's.
 */
export function applySwarm(scenario: Scenario, parameters: FuzzParameters): Scenario {
  const entry = Number(parameters["orderEntryMedianMicros"]);
  const latency = { orderEntry: lognormal(entry), responses: lognormal(entry), marketData: lognormal(Number(parameters["marketDataMedianMicros"])) };
  const agents = scenario.agents.map((agent) => {
    const params: Record<string, unknown> = { ...agent.params };
    if (agent.agent === noiseTaker) params["ratePerSecond"] = Number(params["ratePerSecond"] ?? NOISE_TAKER_DEFAULTS.ratePerSecond) * Number(parameters["takerRateFactor"]);
    if (agent.agent === marketMaker) params["refreshSeconds"] = Number(parameters["refreshSeconds"]);
    return { ...agent, params, latency };
  });
  const busting = { ...scenario, settlement: { ...scenario.settlement, bustProbability: Number(parameters["bustProbability"]) } };
  const { timeline, settlement } = applyFaults(busting, parameters);
  return { ...scenario, agents, timeline, settlement };
}

/** `drawFaults`'s parameters over the scenario: the fault joins the end of the timeline, the chain's timing replaces the scenario's. */
export function applyFaults(scenario: Scenario, parameters: FuzzParameters): Scenario & Required<Pick<Scenario, "timeline" | "settlement">> {
  return { ...scenario, timeline: withDrawnFault(scenario.timeline, parameters), settlement: { ...scenario.settlement, ...chainTimingOf(parameters) } };
}

/** The drawn chain timing (drawChainTiming), or nothing when the parameters have none (the scenario's own stays). */
function chainTimingOf(parameters: FuzzParameters): { blockJitterMs?: number; settlementLatencyMinMs?: number; settlementLatencyMaxMs?: number } {
  if (parameters["blockJitterMs"] === undefined) return {};
  return {
    blockJitterMs: Number(parameters["blockJitterMs"]),
    settlementLatencyMinMs: Number(parameters["settlementLatencyMinMs"]),
    settlementLatencyMaxMs: Number(parameters["settlementLatencyMaxMs"]),
  };
}
