/**
 * PickList (test/exchange/flow.ts), the flow driver's list of cancel
 * targets: it must take out exactly what `Array.prototype.splice(k, 1)`
 * took, so that the seeded flow (and every test and benchmark built on it)
 * sends the same inputs as before it replaced the splice.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PickList } from "./flow.ts";

describe("PickList", () => {
  it("takes the same items in the same order as splice, through growth (seeded)", () => {
    const op = fc.oneof(fc.record({ push: fc.constant(true) }), fc.record({ push: fc.constant(false), at: fc.nat({ max: 10_000 }) }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const list = new PickList<number>();
        const model: number[] = [];
        let next = 0;
        for (const step of ops) {
          if (step.push || model.length === 0) {
            list.push(next);
            model.push(next);
            next += 1;
          } else {
            const k = step.at % model.length;
            expect(list.takeAt(k)).toBe(model.splice(k, 1)[0]);
          }
          expect(list.size).toBe(model.length);
        }
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });

  it("refuses a position outside the items it holds", () => {
    const list = new PickList<string>();
    list.push("a");
    expect(() => list.takeAt(1)).toThrow(/position 1 is outside 0\.\.0/);
    expect(list.takeAt(0)).toBe("a");
    expect(() => list.takeAt(0)).toThrow(RangeError);
  });
});
