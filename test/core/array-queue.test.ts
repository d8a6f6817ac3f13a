import { describe, expect, it } from "vitest";
import { compactConsumed } from "../../src/core/array-queue.ts";

describe("compactConsumed", () => {
  it("empties a fully consumed queue and restarts at 0", () => {
    const items = [1, 2, 3];
    expect(compactConsumed(items, 3)).toBe(0);
    expect(items).toEqual([]);
  });

  it("keeps a short consumed prefix in place (no copy for a few items)", () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    expect(compactConsumed(items, 4)).toBe(4);
    expect(items).toHaveLength(10);
  });

  it("drops a consumed prefix over 1,024 entries and over half the array, keeping the rest in order", () => {
    const items = Array.from({ length: 2000 }, (_, i) => i);
    expect(compactConsumed(items, 1500)).toBe(0);
    expect(items).toEqual(Array.from({ length: 500 }, (_, i) => 1500 + i));
  });

  it("keeps a long prefix that is under half the array", () => {
    const items = Array.from({ length: 5000 }, (_, i) => i);
    expect(compactConsumed(items, 2000)).toBe(2000);
    expect(items[2000]).toBe(2000);
  });
});
