import { describe, expect, it } from "vitest";
import { RngRoot } from "../../src/core/rng.ts";

function draws(root: RngRoot, name: string, count: number): number[] {
  const stream = root.stream(name);
  return Array.from({ length: count }, () => stream.uniform());
}

describe("RngRoot streams", () => {
  it("reproduces the same draws from the same seed and name", () => {
    expect(draws(new RngRoot(7), "agent:mm-1", 50)).toEqual(draws(new RngRoot(7), "agent:mm-1", 50));
  });

  it("keeps a stream's draws independent of other streams being added or used", () => {
    const alone = new RngRoot(7);
    const expected = draws(alone, "agent:mm-1", 50);
    const crowded = new RngRoot(7);
    draws(crowded, "agent:taker-1", 1000);
    const interleaved: number[] = [];
    const mm = crowded.stream("agent:mm-1");
    const other = crowded.stream("oracle");
    for (let i = 0; i < 50; i++) {
      other.normal();
      interleaved.push(mm.uniform());
    }
    expect(interleaved).toEqual(expected);
  });

  it("gives different sequences for different names and for different seeds", () => {
    expect(draws(new RngRoot(7), "a", 10)).not.toEqual(draws(new RngRoot(7), "b", 10));
    expect(draws(new RngRoot(7), "a", 10)).not.toEqual(draws(new RngRoot(8), "a", 10));
  });

  it("draws every distribution within its support and near its mean", () => {
    const rng = new RngRoot("dist").stream("x");
    const n = 20_000;
    const mean = (f: () => number) => {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += f();
      return sum / n;
    };
    expect(mean(() => rng.uniform())).toBeCloseTo(0.5, 1);
    expect(mean(() => rng.exponential(4))).toBeCloseTo(0.25, 1);
    expect(mean(() => rng.normal(3, 2))).toBeCloseTo(3, 1);
    expect(mean(() => rng.poisson(3.5))).toBeCloseTo(3.5, 1);
    expect(mean(() => rng.poisson(100))).toBeGreaterThan(99);
    expect(mean(() => rng.lognormal(0, 0.1))).toBeCloseTo(Math.exp(0.005), 1);
    for (let i = 0; i < 1000; i++) {
      const k = rng.int(-3, 3);
      expect(Number.isInteger(k) && k >= -3 && k <= 3).toBe(true);
      expect(rng.poisson(2)).toBeGreaterThanOrEqual(0);
    }
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(rng.int(-3, 3));
    expect([...seen].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
  });

  it("chooses and shuffles from the stream, reproducibly and without losing elements", () => {
    const items = [1, 2, 3, 4, 5, 6, 7, 8];
    const first = new RngRoot(1).stream("s").shuffle([...items]);
    expect(new RngRoot(1).stream("s").shuffle([...items])).toEqual(first);
    expect([...first].sort()).toEqual(items);
    expect(first).not.toEqual(items);
    const rng = new RngRoot(1).stream("c");
    const picks = new Set(Array.from({ length: 200 }, () => rng.choice(items)));
    expect(picks.size).toBe(items.length);
    expect(() => rng.choice([])).toThrow(/empty/);
  });
});
