/**
 * Seeded random streams.
 *
 * A run has one root seed; every consumer draws from its own named stream
 * (`rng.stream("agent:mm-1")`), seeded from the root seed and the name alone.
 * Adding a stream, or drawing more from one, never changes what another
 * stream draws: that is what keeps seeds meaningful as a scenario grows.
 *
 * The generator is seedrandom's Alea (fast, 2^116 period, good statistics
 * for simulation; not for cryptography). Distributions are written out here,
 * each one consuming a documented number of uniforms, so that their draws
 * are reproducible across platforms with the same Node major version.
 */
import seedrandom from "seedrandom";

export type Seed = string | number;

export class Rng {
  private readonly next: () => number;
  private spareNormal: number | undefined;

  constructor(readonly name: string, seed: string) {
    this.next = seedrandom.alea(seed);
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return this.next();
  }

  /** Uniform in [low, high). */
  between(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min) {
      throw new RangeError(`int(${min}, ${max}) needs safe integers with min <= max`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  bernoulli(p: number): boolean {
    return this.next() < p;
  }

  /** Exponential with the given rate (mean 1/rate). */
  exponential(rate: number): number {
    if (!(rate > 0)) throw new RangeError(`exponential rate must be positive, got ${rate}`);
    return -Math.log(1 - this.next()) / rate;
  }

  /** Normal by the Box-Muller transform; draws come in pairs, the second is kept for the next call. */
  normal(mean = 0, sd = 1): number {
    if (this.spareNormal !== undefined) {
      const z = this.spareNormal;
      this.spareNormal = undefined;
      return mean + sd * z;
    }
    const u1 = 1 - this.next(); // (0, 1]: log is finite
    const u2 = this.next();
    const radius = Math.sqrt(-2 * Math.log(u1));
    this.spareNormal = radius * Math.sin(2 * Math.PI * u2);
    return mean + sd * radius * Math.cos(2 * Math.PI * u2);
  }

  /** exp(N(mu, sigma)). */
  lognormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  /**
   * Poisson with mean lambda: Knuth's product method below 30, and the
   * normal approximation (rounded, floored at 0) above, where Knuth's loop
   * would be slow and lose precision.
   */
  poisson(lambda: number): number {
    if (!(lambda >= 0)) throw new RangeError(`poisson mean must be non-negative, got ${lambda}`);
    if (lambda === 0) return 0;
    if (lambda >= 30) return Math.max(0, Math.round(this.normal(lambda, Math.sqrt(lambda))));
    const limit = Math.exp(-lambda);
    let count = 0;
    let product = this.next();
    while (product > limit) {
      count += 1;
      product *= this.next();
    }
    return count;
  }

  /** One element, uniformly. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("choice from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Fisher-Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const held = items[i]!;
      items[i] = items[j]!;
      items[j] = held;
    }
    return items;
  }
}

/** The root of a run's randomness: hands out one independent stream per name. */
export class RngRoot {
  private readonly streams = new Map<string, Rng>();
  readonly seed: string;

  constructor(seed: Seed) {
    this.seed = String(seed);
  }

  /** The stream of this name; the same object on every call. */
  stream(name: string): Rng {
    let stream = this.streams.get(name);
    if (stream === undefined) {
      stream = new Rng(name, `${this.seed}\u0000${name}`);
      this.streams.set(name, stream);
    }
    return stream;
  }
}
