import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdCounter, OrderIds, OrderTable } from "../../src/engine/order-table.ts";
import type { Order } from "../../src/engine/order.ts";

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

describe("IdCounter", () => {
  it("builds the text of any issued id as first + index, across 2^53, the 10^9 split and up to uint64", () => {
    const firsts = [0n, 1n, 999_999_998n, 9_007_199_254_740_990n, 63_552_420_354_981_888n, 18_446_744_073_709_551_615n - 5_000_000_000n];
    for (const first of firsts) {
      const ids = new IdCounter(first);
      for (const index of [0, 1, 2, 3, 4, 99_999_999, 100_000_000, 999_999_999, 1_000_000_000, 1_000_000_001, 4_999_999_999]) {
        expect(ids.text(index), `${first} + ${index}`).toBe((first + BigInt(index)).toString());
      }
      // The one-entry cache answers the same text again, and a different index is not answered from it.
      expect(ids.text(7)).toBe((first + 7n).toString());
      expect(ids.text(7)).toBe((first + 7n).toString());
      expect(ids.text(8)).toBe((first + 8n).toString());
    }
  });

  it("issues ids up to the uint64 maximum and then refuses", () => {
    const ids = new IdCounter(18_446_744_073_709_551_614n);
    expect(ids.next()).toBe("18446744073709551614");
    expect(ids.next()).toBe("18446744073709551615");
    expect(() => ids.next()).toThrow(RangeError);
    expect(() => new IdCounter(18_446_744_073_709_551_616n)).toThrow(RangeError);
  });
});

describe("OrderTable", () => {
  function fakeOrder(index: number): Order {
    return { index } as Order;
  }

  it("finds every live order by index while chunks empty, close, reopen and are reused", () => {
    const table = new OrderTable();
    const live = new Map<number, Order>();
    const check = () => {
      for (let index = 0; index < 5 * 4096; index += 97) expect(table.get(index)).toBe(live.get(index));
      for (const [index, order] of live) expect(table.get(index)).toBe(order);
      expect(table.size).toBe(live.size);
    };
    const add = (index: number) => {
      const order = fakeOrder(index);
      table.add(order);
      live.set(index, order);
    };
    const remove = (index: number) => {
      table.delete(live.get(index)!);
      live.delete(index);
    };
    // Orders that leave at once, in the newest chunk: its slots are reused, never left stale.
    for (let index = 0; index < 3000; index++) {
      add(index);
      remove(index);
    }
    check();
    // Spread over three chunks; empty the first and the middle one (freed: one becomes the spare), keep some of the newest.
    for (let index = 3000; index < 3 * 4096 + 10; index++) add(index);
    for (let index = 3000; index < 2 * 4096; index++) remove(index);
    check();
    // A new chunk opens from the spare: it must hold none of the old entries.
    for (let index = 4 * 4096; index < 4 * 4096 + 50; index++) add(index);
    check();
    for (const index of [...live.keys()]) remove(index);
    check();
    expect(table.get(-1)).toBeUndefined();
  });

  it("lists exactly the live orders, by index, however adds, deletes and walks interleave (seeded)", () => {
    // Steps: add the next index (skipping some, as IOC orders are never added), delete a live one, or walk.
    const step = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), skip: fc.nat({ max: 5000 }) }),
      fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("walk" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        const table = new OrderTable();
        const live = new Map<number, Order>();
        let next = 0;
        for (const s of steps) {
          if (s.kind === "add") {
            next += s.skip < 4000 ? 1 : s.skip;
            const order = fakeOrder(next);
            table.add(order);
            live.set(next, order);
          } else if (s.kind === "delete" && live.size > 0) {
            const index = [...live.keys()][s.pick % live.size]!;
            table.delete(live.get(index)!);
            live.delete(index);
          } else {
            expect(table.all()).toEqual([...live.keys()].sort((a, b) => a - b).map((index) => live.get(index)));
          }
        }
        expect(table.all()).toEqual([...live.keys()].sort((a, b) => a - b).map((index) => live.get(index)));
      }),
      { seed: 23, numRuns: 300 },
    );
  });
});
