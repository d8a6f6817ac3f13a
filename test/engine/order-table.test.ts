import { describe, expect, it } from "vitest";
import { OrderIds } from "../../src/engine/order-table.ts";

describe("OrderIds", () => {
  it("hands out consecutive uint64 decimal ids from the first, and maps each back to its index", () => {
    const ids = new OrderIds(63_552_420_354_981_888n);
    const issued = Array.from({ length: 3 }, () => ids.next());
    expect(issued).toEqual(["63552420354981888", "63552420354981889", "63552420354981890"]);
    expect(issued.map((id) => ids.indexOf(id))).toEqual([0, 1, 2]);
  });

  it("carries across the 10^9 boundary of its two-part parse", () => {
    const ids = new OrderIds(999_999_998n);
    const issued = Array.from({ length: 4 }, () => ids.next());
    expect(issued).toEqual(["999999998", "999999999", "1000000000", "1000000001"]);
    expect(issued.map((id) => ids.indexOf(id))).toEqual([0, 1, 2, 3]);
  });

  it("answers -1 for anything that is not an id it issued", () => {
    const ids = new OrderIds(1000n);
    ids.next();
    for (const text of ["1001", "999", "", "01000", "1000 ", "+1000", "1e3", "abc", "18446744073709551616", "1000.0"]) {
      expect(ids.indexOf(text), text).toBe(-1);
    }
    expect(ids.indexOf("1000")).toBe(0);
  });
});
