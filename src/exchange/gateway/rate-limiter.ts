/**
 * Per-wallet request rate limits (spec section 8.1).
 *
 * Keyed by signing wallet and shared by every transport. Each wallet has
 * buckets with a sliding 60 s window: createOrder, cancelOrder and
 * modifyOrder share one (modifyOrder's bucket is "not shown" in the spec; it
 * is an order-entry write like the other two, so it counts there), cancelAll
 * has its own, cancelAllAfter is exempt.
 *
 * A request is checked early (`check`) and counted only once it has been
 * accepted (`record`): rejections of any kind never count. When a bucket is
 * full, `retryAfterMs` is the time until its oldest request leaves the
 * window, rounded up to whole milliseconds and at least 1. A request at time
 * t occupies the window (t - 60 s, t]: at exactly t + 60 s it has left.
 */
import { MICROS_PER_MILLI, type Micros } from "../../core/time.ts";

export type RateBucket = "order" | "cancelAll";

export type RateLimitedOperation = "createOrder" | "modifyOrder" | "cancelOrder" | "cancelAll" | "cancelAllAfter";

/** Which bucket an operation counts in; undefined = exempt. */
export function bucketOf(operation: RateLimitedOperation): RateBucket | undefined {
  switch (operation) {
    case "createOrder":
    case "modifyOrder":
    case "cancelOrder":
      return "order";
    case "cancelAll":
      return "cancelAll";
    case "cancelAllAfter":
      return undefined;
  }
}

export interface RateLimits {
  /** Requests per window in the shared create/cancel/modify bucket. */
  orderPerWindow: number;
  /** Requests per window in the cancelAll bucket. */
  cancelAllPerWindow: number;
}

export const RATE_WINDOW_MICROS: Micros = 60_000 * MICROS_PER_MILLI;

/** Tier 1 is the specification's; tiers 2 and 3 are "not shown" there: these defaults are configurable. */
export const DEFAULT_RATE_LIMITS_BY_TIER: Readonly<Record<1 | 2 | 3, RateLimits>> = {
  1: { orderPerWindow: 30, cancelAllPerWindow: 10 },
  2: { orderPerWindow: 300, cancelAllPerWindow: 60 },
  3: { orderPerWindow: 6_000, cancelAllPerWindow: 600 },
};

/** The arrival times of one bucket's requests inside the window, oldest first, in a ring. */
class WindowRing {
  private times: Float64Array;
  private head = 0;
  private count = 0;

  constructor(capacity: number) {
    this.times = new Float64Array(Math.max(1, capacity));
  }

  /** Drops arrivals that have left the window at `now`; returns how many remain. */
  expire(now: Micros, windowMicros: Micros): number {
    while (this.count > 0 && this.times[this.head]! + windowMicros <= now) {
      this.head = (this.head + 1) % this.times.length;
      this.count--;
    }
    return this.count;
  }

  oldest(): Micros {
    return this.times[this.head]!;
  }

  add(now: Micros): void {
    if (this.count === this.times.length) this.grow();
    this.times[(this.head + this.count) % this.times.length] = now;
    this.count++;
  }

  /** A limit raised at run time (a tier change) may need more room. */
  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.count; i++) times[i] = this.times[(this.head + i) % this.times.length]!;
    this.times = times;
    this.head = 0;
  }
}

export type RateCheck = { ok: true } | { ok: false; retryAfterMs: number; limit: number; bucket: RateBucket };

/** One wallet's windows, one per bucket (created on its first accepted request). */
interface WalletWindows {
  order: WindowRing | undefined;
  cancelAll: WindowRing | undefined;
}

export class RateLimiter {
  /**
   * By lowercase wallet: one lookup per check, no key string built per
   * request. A lowercase wallet (the gateway's signers are) finds its entry
   * as it is; only a text that misses is lowercased (a mixed-case one cannot
   * equal a key).
   */
  private readonly windows = new Map<string, WalletWindows>();

  constructor(private readonly windowMicros: Micros = RATE_WINDOW_MICROS) {}

  /** Whether one more request of `bucket` fits for `wallet` at `now`. Changes no count. */
  check(wallet: string, bucket: RateBucket, limits: RateLimits, now: Micros): RateCheck {
    const limit = bucket === "order" ? limits.orderPerWindow : limits.cancelAllPerWindow;
    const ring = this.windowsOf(wallet)?.[bucket];
    const used = ring === undefined ? 0 : ring.expire(now, this.windowMicros);
    if (used < limit) return ALLOWED;
    const waitMicros = ring!.oldest() + this.windowMicros - now;
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil(waitMicros / MICROS_PER_MILLI)), limit, bucket };
  }

  private windowsOf(wallet: string): WalletWindows | undefined {
    return this.windows.get(wallet) ?? this.windows.get(wallet.toLowerCase());
  }

  /** Counts an accepted request. */
  record(wallet: string, bucket: RateBucket, limits: RateLimits, now: Micros): void {
    let windows = this.windowsOf(wallet);
    if (windows === undefined) {
      windows = { order: undefined, cancelAll: undefined };
      this.windows.set(wallet.toLowerCase(), windows);
    }
    let ring = windows[bucket];
    if (ring === undefined) {
      ring = new WindowRing(bucket === "order" ? limits.orderPerWindow : limits.cancelAllPerWindow);
      windows[bucket] = ring;
    }
    ring.expire(now, this.windowMicros);
    ring.add(now);
  }
}

const ALLOWED: RateCheck = Object.freeze({ ok: true });
