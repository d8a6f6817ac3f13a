/**
 * `shadowbook demo`: a small demonstration of the deterministic kernel.
 *
 * Three Poisson order-arrival streams and a once-a-second oracle tick run for
 * one virtual minute on the simulation kernel; every event is hashed into the
 * run fingerprint. Run it twice with the same seed: same fingerprint. No
 * Exchange runs: it shows the kernel's event queue and seeded streams alone
 * (`npm start` runs the default scenario's backtest).
 */
import { Fingerprint } from "../core/fingerprint.ts";
import { RngRoot } from "../core/rng.ts";
import { formatMicros, MICROS_PER_MINUTE, MICROS_PER_SECOND } from "../core/time.ts";
import { Simulation } from "../sim/kernel.ts";

export interface DemoResult {
  seed: string;
  eventsProcessed: number;
  virtualStart: string;
  virtualEnd: string;
  arrivalsByAgent: Record<string, number>;
  oracleTicks: number;
  lastOraclePrice: number;
  fingerprint: string;
}

export function runKernelDemo(seed: string): DemoResult {
  const startMicros = Date.UTC(2026, 0, 1) * 1000;
  const sim = new Simulation({ startMicros });
  const rng = new RngRoot(seed);
  const fingerprint = new Fingerprint();
  const arrivalsByAgent: Record<string, number> = {};
  const endMicros = startMicros + MICROS_PER_MINUTE;

  for (const [agent, ratePerSecond] of [["taker-1", 5], ["taker-2", 2], ["maker-1", 20]] as const) {
    const stream = rng.stream(`agent:${agent}`);
    arrivalsByAgent[agent] = 0;
    const arrive = () => {
      arrivalsByAgent[agent]! += 1;
      fingerprint.update({ t: sim.now(), agent, side: stream.bernoulli(0.5) ? "B" : "A", lots: stream.int(1, 10) });
      const gapMicros = Math.ceil(stream.exponential(ratePerSecond) * MICROS_PER_SECOND);
      if (sim.now() + gapMicros <= endMicros) sim.after(gapMicros, arrive);
    };
    sim.after(0, arrive);
  }

  const oracle = rng.stream("oracle");
  let price = 3000;
  let oracleTicks = 0;
  const tick = () => {
    price = Math.round(price * Math.exp(oracle.normal(0, 0.0005)) * 100) / 100;
    oracleTicks++;
    fingerprint.update({ t: sim.now(), oracle: price });
    if (sim.now() + MICROS_PER_SECOND <= endMicros) sim.after(MICROS_PER_SECOND, tick);
  };
  sim.after(MICROS_PER_SECOND, tick);

  const stats = sim.run({ untilMicros: endMicros });
  return {
    seed,
    eventsProcessed: stats.eventsProcessed,
    virtualStart: formatMicros(stats.startMicros),
    virtualEnd: formatMicros(stats.endMicros),
    arrivalsByAgent,
    oracleTicks,
    lastOraclePrice: price,
    fingerprint: fingerprint.digest(),
  };
}
