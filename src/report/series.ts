/**
 * Sampled time series for the report's charts, kept as typed arrays on the
 * observer samples' time grid (one value per sample, NaN where there is
 * none), and downsampled for drawing.
 */

/** A growable Float64 array. */
export class FloatSeries {
  private values = new Float64Array(256);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  get(index: number): number {
    return this.values[index]!;
  }

  last(): number {
    return this.length === 0 ? NaN : this.values[this.length - 1]!;
  }

  toArray(): Float64Array {
    return this.values.slice(0, this.length);
  }
}

/** Named series on one time grid (ms). */
export interface SeriesSet {
  readonly timesMs: Float64Array;
  /** key -> values, each as long as timesMs. */
  readonly series: ReadonlyMap<string, Float64Array>;
}

/** Every sampled series the report draws: by agent, by perp market, by market. */
export interface RunSeries {
  readonly startMs: number;
  readonly timesMs: Float64Array;
  /** agent -> equity (rUSD, mark-to-market) net of flows: less the deposits, withdrawals and transfers since the first sample, so a deposit is not drawn as a gain. */
  readonly equity: ReadonlyMap<string, Float64Array>;
  /** agent -> perp symbol -> signed position (base units). */
  readonly positions: ReadonlyMap<string, ReadonlyMap<string, Float64Array>>;
  /** market -> series name (index, oracle, mark, fundingRate, openInterest, bestBid, bestAsk, bidDepth, askDepth) -> values. */
  readonly markets: ReadonlyMap<string, ReadonlyMap<string, Float64Array>>;
}

/**
 * The indices to draw of a series of `length` points, at most `maxPoints`:
 * every point when it fits; otherwise, per bucket of consecutive points, the
 * first, the minimum and the maximum of `values` (so spikes survive), and
 * always the last point. Indices ascend.
 */
export function downsampleIndices(length: number, maxPoints: number, values?: ArrayLike<number>): number[] {
  if (length <= maxPoints) return Array.from({ length }, (_, i) => i);
  const indices: number[] = [];
  const buckets = Math.max(1, Math.floor(maxPoints / 3));
  const size = length / buckets;
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size);
    const to = Math.min(length, Math.floor((b + 1) * size));
    if (to <= from) continue;
    if (values === undefined) {
      indices.push(from);
      continue;
    }
    let lo = from;
    let hi = from;
    for (let i = from + 1; i < to; i++) {
      const v = values[i]!;
      if (v < values[lo]! || Number.isNaN(values[lo]!)) lo = i;
      if (v > values[hi]! || Number.isNaN(values[hi]!)) hi = i;
    }
    const chosen = [...new Set([from, lo, hi])].sort((a, b) => a - b);
    indices.push(...chosen);
  }
  if (indices[indices.length - 1] !== length - 1) indices.push(length - 1);
  return indices;
}
