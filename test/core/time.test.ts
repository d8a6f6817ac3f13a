import { describe, expect, it } from "vitest";
import { formatMicros, microsToMillis, microsToSeconds, millisToMicros, secondsToMicros } from "../../src/core/time.ts";

describe("time units", () => {
  it("converts to the wire's milliseconds and seconds by flooring", () => {
    const t = 1_745_000_000_123_999;
    expect(microsToMillis(t)).toBe(1_745_000_000_123);
    expect(microsToSeconds(t)).toBe(1_745_000_000);
    expect(millisToMicros(1_745_000_000_123)).toBe(1_745_000_000_123_000);
    expect(secondsToMicros(1_745_000_000)).toBe(1_745_000_000_000_000);
  });

  it("refuses times that are not safe integers of microseconds", () => {
    expect(() => millisToMicros(0.0001)).toThrow(/safe integer/);
    expect(() => secondsToMicros(1e13)).toThrow(/safe integer/);
  });

  it("formats a virtual time as ISO-8601 without reading a clock", () => {
    expect(formatMicros(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(formatMicros(1_745_000_000_123_999)).toBe("2025-04-18T18:13:20.123Z");
    expect(formatMicros(951_782_400_000_000)).toBe("2000-02-29T00:00:00.000Z");
  });
});
