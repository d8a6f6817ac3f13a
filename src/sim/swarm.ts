/**
 * Swarm-testing helpers for a scenario's `fuzz` section: a seed draws one
 * fault (or none) with its time and size, and the fault becomes a timeline
 * entry. Drawn values are plain numbers and strings, so a failing seed's
 * parameters print readably and re-draw identically from the seed.
 */
import type { Rng } from "../core/rng.ts";
import type { FaultAction } from "../exchange/inputs.ts";
import type { FuzzParameters, TimelineEntry } from "./scenario.ts";

export const SWARM_FAULTS = ["none", "dropResponses", "engineUnavailable", "accountOwnerUnavailable", "oracleStale", "delayBlocks", "bustNext"] as const;

/** Draws `fault`, `faultAtSeconds` (within the run) and `faultSize` (1..8: a count, or seconds). */
export function drawFault(rng: Rng, durationSeconds: number): { fault: string; faultAtSeconds: number; faultSize: number } {
  return {
    fault: rng.choice(SWARM_FAULTS),
    faultAtSeconds: rng.int(1, Math.max(1, Math.floor(durationSeconds) - 1)),
    faultSize: rng.int(1, 8),
  };
}

/** The drawn fault as an action (undefined for "none"). */
export function faultOf(parameters: FuzzParameters): FaultAction | undefined {
  const size = Number(parameters["faultSize"]);
  switch (parameters["fault"]) {
    case "dropResponses":
      return { fault: "dropResponses", count: size };
    case "engineUnavailable":
      return { fault: "engineUnavailable", durationMs: size * 1_000 };
    case "accountOwnerUnavailable":
      return { fault: "accountOwnerUnavailable", durationMs: size * 1_000 };
    case "oracleStale":
      return { fault: "oracleStale", durationMs: size * 2_000 };
    case "delayBlocks":
      return { fault: "delayBlocks", durationMs: size * 1_000 };
    case "bustNext":
      return { fault: "bustNext", count: size, reasonName: "FUZZ" };
    default:
      return undefined;
  }
}

/** The timeline with the drawn fault added at its second. */
export function withDrawnFault(timeline: readonly TimelineEntry[] | undefined, parameters: FuzzParameters): TimelineEntry[] {
  const fault = faultOf(parameters);
  const entries = [...(timeline ?? [])];
  if (fault !== undefined) entries.push({ atSeconds: Number(parameters["faultAtSeconds"]), fault });
  return entries;
}
