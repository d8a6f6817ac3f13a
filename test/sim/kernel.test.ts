import { describe, expect, it } from "vitest";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { RngRoot } from "../../src/core/rng.ts";
import { Simulation } from "../../src/sim/kernel.ts";

describe("Simulation", () => {
  it("runs events in time order, FIFO among equal times, and moves the clock with them", () => {
    const sim = new Simulation({ startMicros: 1000 });
    const seen: string[] = [];
    sim.schedule(3000, () => seen.push(`c@${sim.now()}`));
    sim.schedule(2000, () => seen.push(`a@${sim.now()}`));
    sim.schedule(2000, () => {
      seen.push(`b@${sim.now()}`);
      sim.after(0, () => seen.push(`b-child@${sim.now()}`));
    });
    const stats = sim.run();
    expect(seen).toEqual(["a@2000", "b@2000", "b-child@2000", "c@3000"]);
    expect(stats).toEqual({ eventsProcessed: 4, startMicros: 1000, endMicros: 3000, spanMicros: 2000, drained: true, paused: false });
  });

  it("stops at `untilMicros` with the clock there, and resumes", () => {
    const sim = new Simulation({ startMicros: 0 });
    const seen: number[] = [];
    for (const t of [10, 20, 30]) sim.schedule(t, () => seen.push(t));
    const first = sim.run({ untilMicros: 20 });
    expect(seen).toEqual([10, 20]);
    expect(first.endMicros).toBe(20);
    expect(first.drained).toBe(false);
    expect(sim.run({ untilMicros: 25 }).eventsProcessed).toBe(0);
    expect(sim.now()).toBe(25);
    sim.run();
    expect(seen).toEqual([10, 20, 30]);
  });

  it("cancels scheduled events and refuses the past", () => {
    const sim = new Simulation({ startMicros: 100 });
    const seen: number[] = [];
    const id = sim.schedule(200, () => seen.push(200));
    sim.schedule(300, () => seen.push(300));
    expect(sim.cancel(id)).toBe(true);
    expect(sim.cancel(id)).toBe(false);
    expect(() => sim.schedule(99, () => {})).toThrow(/clock already reads 100/);
    sim.run({ maxEvents: 1 });
    expect(seen).toEqual([300]);
    expect(sim.pending).toBe(0);
  });

  it("gives the same fingerprint for the same seed, twice, and another for another seed", () => {
    const runOnce = (seed: number) => {
      const sim = new Simulation({ startMicros: 0 });
      const rng = new RngRoot(seed);
      const fingerprint = new Fingerprint();
      for (let agent = 0; agent < 5; agent++) {
        const stream = rng.stream(`agent:${agent}`);
        const tick = () => {
          fingerprint.update({ agent, t: sim.now(), draw: stream.int(0, 1000) });
          if (sim.now() < 1_000_000) sim.after(Math.round(stream.exponential(1 / 10_000)) + 1, tick);
        };
        sim.schedule(0, tick);
      }
      sim.run();
      return fingerprint.digest();
    };
    expect(runOnce(1)).toBe(runOnce(1));
    expect(runOnce(1)).not.toBe(runOnce(2));
  });
});
