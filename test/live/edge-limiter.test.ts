import { describe, expect, it } from "vitest";
import { EdgeLimiter } from "../../src/live/edge-limiter.ts";

describe("EdgeLimiter", () => {
  it("admits the window's budget per source, refuses the rest, and resets at the window's end", () => {
    const limiter = new EdgeLimiter({ requestsPerWindow: 3, windowMs: 60_000 });
    expect([1, 2, 3, 4].map((i) => limiter.admit("10.0.0.1", 1_000 + i))).toEqual([true, true, true, false]);
    expect(limiter.admit("10.0.0.2", 1_010)).toBe(true);
    expect(limiter.admit("10.0.0.1", 61_000)).toBe(false); // window started at 1_001: ends at 61_001
    expect(limiter.admit("10.0.0.1", 61_001)).toBe(true);
  });
});
