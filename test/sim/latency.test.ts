import { describe, expect, it } from "vitest";
import { RngRoot } from "../../src/core/rng.ts";
import { latencyModel, LatencySpecError, OrderedPath } from "../../src/sim/latency.ts";

const rng = () => new RngRoot(11).stream("latency:test");

describe("latency models", () => {
  it("constant is always its value, rounded to whole microseconds", () => {
    const draw = latencyModel({ model: "constant", micros: 250.4 }, rng());
    expect([draw(), draw(), draw()]).toEqual([250, 250, 250]);
  });

  it("uniform stays within its bounds and covers them", () => {
    const draw = latencyModel({ model: "uniform", minMicros: 100, maxMicros: 200 }, rng());
    const draws = Array.from({ length: 5_000 }, draw);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...draws)).toBeLessThanOrEqual(200);
    expect(Math.min(...draws)).toBeLessThan(105);
    expect(Math.max(...draws)).toBeGreaterThan(195);
  });

  it("lognormal has the given median and never goes below its floor", () => {
    const draw = latencyModel({ model: "lognormal", medianMicros: 1_000, sigma: 0.5, minMicros: 600 }, rng());
    const draws = Array.from({ length: 20_001 }, draw).sort((a, b) => a - b);
    expect(draws[0]).toBeGreaterThanOrEqual(600);
    expect(draws[10_000]!).toBeGreaterThan(960);
    expect(draws[10_000]!).toBeLessThan(1_040);
  });

  it("recorded replays its series in order and cycles", () => {
    const draw = latencyModel({ model: "recorded", micros: [5, 7, 9] }, rng());
    expect(Array.from({ length: 7 }, draw)).toEqual([5, 7, 9, 5, 7, 9, 5]);
  });

  it("the same stream gives the same draws", () => {
    const a = latencyModel({ model: "lognormal", medianMicros: 800, sigma: 0.3 }, rng());
    const b = latencyModel({ model: "lognormal", medianMicros: 800, sigma: 0.3 }, rng());
    expect(Array.from({ length: 100 }, a)).toEqual(Array.from({ length: 100 }, b));
  });

  it("refuses specs that name the field and the rule", () => {
    expect(() => latencyModel({ model: "uniform", minMicros: 10, maxMicros: 5 }, rng(), "mm.orderEntry")).toThrow(new LatencySpecError('mm.orderEntry.maxMicros "5" must be >= minMicros "10"'));
    expect(() => latencyModel({ model: "constant", micros: -1 }, rng())).toThrow(/latency.micros "-1" must be a finite number of microseconds >= 0/);
    expect(() => latencyModel({ model: "recorded", micros: [] }, rng())).toThrow(/at least one measured latency/);
    expect(() => latencyModel({ model: "lognormal", medianMicros: 0, sigma: 1 }, rng())).toThrow(/medianMicros "0" must be greater than 0/);
    expect(() => latencyModel({ model: "gamma" } as never, rng())).toThrow(/is not one of constant, uniform, lognormal, recorded/);
  });
});

describe("OrderedPath", () => {
  it("never lets a message overtake one sent before it", () => {
    const path = new OrderedPath(latencyModel({ model: "recorded", micros: [500, 10, 300, 1] }, rng()));
    expect([path.arrival(0), path.arrival(1), path.arrival(2), path.arrival(1_000)]).toEqual([500, 500, 500, 1_001]);
  });
});
