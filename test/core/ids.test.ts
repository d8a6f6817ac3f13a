import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addToId, compareIds, IdGenerator, isUint64, SequenceCounter } from "../../src/core/ids.ts";

describe("ids", () => {
  it("hands out consecutive uint64 strings beyond float precision", () => {
    const ids = new IdGenerator(2n ** 53n + 1n);
    expect([ids.next(), ids.next()]).toEqual(["9007199254740993", "9007199254740994"]);
    const last = new IdGenerator(2n ** 64n - 1n);
    expect(last.next()).toBe("18446744073709551615");
    expect(() => last.next()).toThrow(/exhausted/);
  });

  it("compares ids as numbers without converting them", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (a, b) => {
        expect(Math.sign(compareIds(a.toString(), b.toString()))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
      { seed: 42, numRuns: 1000 },
    );
    // Float would call these equal.
    expect(compareIds("9007199254740993", "9007199254740992")).toBe(1);
  });

  it("recognizes canonical uint64 text", () => {
    expect(isUint64("0")).toBe(true);
    expect(isUint64("18446744073709551615")).toBe(true);
    expect(isUint64("18446744073709551616")).toBe(false);
    expect(isUint64("01")).toBe(false);
    expect(isUint64("-1")).toBe(false);
    expect(isUint64("1.0")).toBe(false);
    expect(addToId("18446744073709551610", 5)).toBe("18446744073709551615");
  });

  it("counts sequence numbers without gaps", () => {
    const counter = new SequenceCounter();
    expect([counter.next(), counter.next(), counter.next()]).toEqual([1, 2, 3]);
    expect(counter.current).toBe(3);
  });
});
