import { describe, expect, it } from "vitest";
import { bucketOf, DEFAULT_RATE_LIMITS_BY_TIER, RateLimiter } from "../../src/exchange/gateway/rate-limiter.ts";

const tier1 = DEFAULT_RATE_LIMITS_BY_TIER[1];
const wallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const SECOND = 1_000_000;

describe("RateLimiter", () => {
  it("puts create, cancel and modify in one bucket, cancelAll in its own, cancelAllAfter in none", () => {
    expect(bucketOf("createOrder")).toBe("order");
    expect(bucketOf("cancelOrder")).toBe("order");
    expect(bucketOf("modifyOrder")).toBe("order");
    expect(bucketOf("cancelAll")).toBe("cancelAll");
    expect(bucketOf("cancelAllAfter")).toBeUndefined();
  });

  it("allows 30 order requests per sliding 60 s and frees each one exactly 60 s after it", () => {
    const limiter = new RateLimiter();
    const t0 = 1_000 * SECOND;
    for (let i = 0; i < 30; i++) {
      expect(limiter.check(wallet, "order", tier1, t0 + i * SECOND).ok).toBe(true);
      limiter.record(wallet, "order", tier1, t0 + i * SECOND);
    }
    // Full: the oldest (t0) leaves at t0 + 60 s.
    expect(limiter.check(wallet, "order", tier1, t0 + 30 * SECOND)).toEqual({ ok: false, retryAfterMs: 30_000, limit: 30, bucket: "order" });
    // One microsecond before the boundary: still full, and the wait rounds up to 1 ms.
    expect(limiter.check(wallet, "order", tier1, t0 + 60 * SECOND - 1)).toEqual({ ok: false, retryAfterMs: 1, limit: 30, bucket: "order" });
    // 1.5 ms before: rounds up to 2 ms.
    expect(limiter.check(wallet, "order", tier1, t0 + 60 * SECOND - 1_500)).toMatchObject({ retryAfterMs: 2 });
    // At the boundary exactly, the oldest has left.
    expect(limiter.check(wallet, "order", tier1, t0 + 60 * SECOND).ok).toBe(true);
  });

  it("counts only what is recorded, so rejected requests never use the budget", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 100; i++) expect(limiter.check(wallet, "order", tier1, i).ok).toBe(true);
  });

  it("keeps buckets and wallets apart, and wallets case-insensitive", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 10; i++) limiter.record(wallet, "cancelAll", tier1, i);
    expect(limiter.check(wallet, "cancelAll", tier1, 10).ok).toBe(false);
    expect(limiter.check(wallet.toLowerCase(), "cancelAll", tier1, 10).ok).toBe(false);
    expect(limiter.check(wallet, "order", tier1, 10).ok).toBe(true);
    expect(limiter.check("0x0000000000000000000000000000000000000001", "cancelAll", tier1, 10).ok).toBe(true);
  });

  it("counts one wallet's requests together whatever the case of each call", () => {
    const limiter = new RateLimiter();
    const lower = wallet.toLowerCase();
    for (let i = 0; i < 10; i++) limiter.record(i % 2 === 0 ? wallet : lower, "cancelAll", tier1, i);
    expect(limiter.check(lower, "cancelAll", tier1, 10).ok).toBe(false);
    expect(limiter.check(wallet, "cancelAll", tier1, 10).ok).toBe(false);
    const fresh = new RateLimiter();
    for (let i = 0; i < 10; i++) fresh.record(i < 5 ? lower : wallet, "cancelAll", tier1, i);
    expect(fresh.check(wallet, "cancelAll", tier1, 10).ok).toBe(false);
  });

  it("honours a raised limit for a wallet that moved to a higher tier", () => {
    const limiter = new RateLimiter();
    const tier3 = DEFAULT_RATE_LIMITS_BY_TIER[3];
    for (let i = 0; i < 30; i++) limiter.record(wallet, "order", tier1, i);
    expect(limiter.check(wallet, "order", tier1, 31).ok).toBe(false);
    for (let i = 30; i < 500; i++) {
      expect(limiter.check(wallet, "order", tier3, i).ok).toBe(true);
      limiter.record(wallet, "order", tier3, i);
    }
    expect(limiter.check(wallet, "order", tier1, 600)).toMatchObject({ ok: false });
  });
});
