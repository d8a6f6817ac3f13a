/**
 * The edge limiter with many sources (edge-limiter.ts, audit s21 D2): the
 * work per request stays bounded however many sources have a live window
 * (counted, as the windows its expiry looks at), ended windows are dropped,
 * and the verdicts are the per-source fixed windows of spec 8.4.
 */
import { describe, expect, it } from "vitest";
import { EdgeLimiter } from "../../src/live/edge-limiter.ts";

const WINDOW_MS = 60_000;

describe("EdgeLimiter with many sources", () => {
  it("does O(1) amortized work per request with more than 100,000 live sources", () => {
    const limiter = new EdgeLimiter({ requestsPerWindow: 3, windowMs: WINDOW_MS });
    const SOURCES = 150_000;
    let admits = 0;
    // 150,000 distinct sources within one window (one every 0.1 ms of the window's first 15 s).
    let refused = 0;
    for (let i = 0; i < SOURCES; i++) {
      if (!limiter.admit(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 1_000 + Math.floor(i / 10))) refused++;
      admits++;
    }
    expect(refused).toBe(0);
    expect(limiter.sources).toBe(SOURCES);
    // A known source, and new ones, while all of them are live: no sweep of the map.
    const before = limiter.expiryWork;
    for (let i = 0; i < 10_000; i++) {
      limiter.admit(i % 2 === 0 ? "10.0.0.0" : `fd00::${i}`, 20_000);
      admits++;
    }
    expect(limiter.expiryWork - before).toBeLessThanOrEqual(10_000);
    // Every window ends: they are all dropped, by the requests that come after.
    for (let i = 0; i < 1_000; i++) {
      limiter.admit(`192.168.0.${i & 255}`, 100_000 + i);
      admits++;
    }
    expect(limiter.sources).toBe(256);
    // In all: each window looked at once when dropped, plus one look per request.
    expect(limiter.expiryWork).toBeLessThanOrEqual(2 * admits);
  });

  it("keeps the verdicts of per-source fixed windows among many sources", () => {
    const limiter = new EdgeLimiter({ requestsPerWindow: 2, windowMs: WINDOW_MS });
    expect(limiter.admit("a", 0)).toBe(true);
    for (let i = 0; i < 120_000; i++) limiter.admit(`s${i}`, 10 + (i % 1_000));
    expect(limiter.admit("a", 30_000)).toBe(true);
    expect(limiter.admit("a", 59_999)).toBe(false); // third in a's window
    // a's window ended at 60_000: a fresh one; the others ended by 61_009 and are dropped.
    expect(limiter.admit("a", 60_000)).toBe(true);
    expect(limiter.admit("a", 60_001)).toBe(true);
    expect(limiter.admit("a", 60_002)).toBe(false);
    expect(limiter.admit("s5", 61_010)).toBe(true);
    expect(limiter.sources).toBe(2);
    // A source renewed in a later window keeps its new window when its old one is dropped.
    expect(limiter.admit("a", 120_000)).toBe(true);
    expect(limiter.admit("b", 121_011)).toBe(true);
    expect(limiter.sources).toBe(2); // a (from 120_000) and b; s5's window (61_010) ended
    expect(limiter.admit("a", 121_012)).toBe(true);
    expect(limiter.admit("a", 121_013)).toBe(false);
  });
});
