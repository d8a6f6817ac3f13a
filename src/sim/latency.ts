/**
 * Latency models of the simulated network: how long a request takes to
 * reach the exchange, a response to come back, a stream message to arrive.
 *
 * Each agent has one model per path (order entry, responses, market data),
 * and each model draws from its own seeded stream (`latency:<agent>:<path>`),
 * so adding an agent, or changing one agent's latency, changes no other
 * agent's draws.
 *
 * Models (all in microseconds of virtual time, never negative):
 * - constant: always `micros`;
 * - uniform: between `minMicros` and `maxMicros`;
 * - lognormal: `exp(N(mu, sigma))` with mu and sigma given as the median
 *   and the shape (`medianMicros`, `sigma`), plus an optional floor
 *   (`minMicros`, the wire's speed-of-light part);
 * - recorded: a measured series replayed in order and cycled (`micros`).
 *
 * Delivery keeps the order of a connection: a message never overtakes one
 * sent before it on the same path (see `OrderedPath`), as over one TCP
 * connection. Requests of different agents race freely, so a cancel can
 * lose the race to another agent's taker.
 */
import { RngRoot, type Rng } from "../core/rng.ts";
import type { Micros } from "../core/time.ts";

export type LatencySpec =
  | { readonly model: "constant"; readonly micros: number }
  | { readonly model: "uniform"; readonly minMicros: number; readonly maxMicros: number }
  | { readonly model: "lognormal"; readonly medianMicros: number; readonly sigma: number; readonly minMicros?: number }
  | { readonly model: "recorded"; readonly micros: readonly number[] };

/** The three paths of one agent's connection to the exchange. */
export interface AgentLatency {
  readonly orderEntry: LatencySpec;
  readonly responses: LatencySpec;
  readonly marketData: LatencySpec;
}

/** A co-located-ish default: ~1 ms each way with a lognormal tail, market data a little behind. */
export const DEFAULT_AGENT_LATENCY: AgentLatency = {
  orderEntry: { model: "lognormal", medianMicros: 1_000, sigma: 0.35, minMicros: 300 },
  responses: { model: "lognormal", medianMicros: 1_000, sigma: 0.35, minMicros: 300 },
  marketData: { model: "lognormal", medianMicros: 1_500, sigma: 0.4, minMicros: 400 },
};

export type LatencyDraw = () => Micros;

export class LatencySpecError extends Error {
  override readonly name = "LatencySpecError";
}

function nonNegative(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0) throw new LatencySpecError(`${field} "${value}" must be a finite number of microseconds >= 0`);
  return value;
}

/** Checks a spec and returns a function that draws one latency (whole microseconds) from `rng`. */
export function latencyModel(spec: LatencySpec, rng: Rng, where = "latency"): LatencyDraw {
  switch (spec.model) {
    case "constant": {
      const micros = Math.round(nonNegative(spec.micros, `${where}.micros`));
      return () => micros;
    }
    case "uniform": {
      const min = nonNegative(spec.minMicros, `${where}.minMicros`);
      const max = nonNegative(spec.maxMicros, `${where}.maxMicros`);
      if (max < min) throw new LatencySpecError(`${where}.maxMicros "${max}" must be >= minMicros "${min}"`);
      return () => Math.round(rng.between(min, max));
    }
    case "lognormal": {
      const median = nonNegative(spec.medianMicros, `${where}.medianMicros`);
      if (median === 0) throw new LatencySpecError(`${where}.medianMicros "0" must be greater than 0`);
      const sigma = nonNegative(spec.sigma, `${where}.sigma`);
      const floor = nonNegative(spec.minMicros ?? 0, `${where}.minMicros`);
      const mu = Math.log(median);
      return () => Math.max(floor, Math.round(rng.lognormal(mu, sigma)));
    }
    case "recorded": {
      if (spec.micros.length === 0) throw new LatencySpecError(`${where}.micros must hold at least one measured latency`);
      const series = spec.micros.map((value, index) => Math.round(nonNegative(value, `${where}.micros[${index}]`)));
      let next = 0;
      return () => {
        const value = series[next]!;
        next = next + 1 === series.length ? 0 : next + 1;
        return value;
      };
    }
    default:
      throw new LatencySpecError(`${where}.model "${(spec as { model: unknown }).model}" is not one of constant, uniform, lognormal, recorded`);
  }
}

/** A stream for checking specs: latencyModel draws nothing until its function is called. */
const CHECK_RNG = new RngRoot(0).stream("latency-check");

/**
 * Throws LatencySpecError, naming `where`'s field and the rule, when `spec`
 * is not a valid latency spec: a scenario's check runs it on every agent's
 * latency before the run (a bad spec found by the run instead failed every
 * fuzz seed as "failed before it began").
 */
export function checkLatencySpec(spec: unknown, where: string): void {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw new LatencySpecError(`${where} must be a latency model: { model: "constant" | "uniform" | "lognormal" | "recorded", ... }`);
  latencyModel(spec as LatencySpec, CHECK_RNG, where);
}

/**
 * One direction of one connection: arrival = max(sent + latency, previous
 * arrival), so messages arrive in the order they were sent.
 */
export class OrderedPath {
  private lastArrival = 0;

  constructor(private readonly draw: LatencyDraw) {}

  /** The arrival time of a message sent at `sentAt`. */
  arrival(sentAt: Micros): Micros {
    const at = sentAt + this.draw();
    this.lastArrival = at > this.lastArrival ? at : this.lastArrival;
    return this.lastArrival;
  }
}
