import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventQueue } from "../../src/core/event-queue.ts";

type Op = { kind: "push"; time: number } | { kind: "pop" } | { kind: "cancel"; pick: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("push" as const), time: fc.integer({ min: 0, max: 50 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: "pop" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
);

describe("EventQueue", () => {
  it("pops like a sorted model keyed by (time, insertion order), with cancellation", () => {
    fc.assert(
      fc.property(fc.array(opArbitrary, { maxLength: 400 }), (ops) => {
        const queue = new EventQueue<number>();
        // The model: live entries as [time, seq]; popping takes the smallest pair.
        const model: { time: number; seq: number }[] = [];
        const handles: number[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op.kind === "push") {
            const handle = queue.push(op.time, seq);
            handles.push(handle);
            model.push({ time: op.time, seq });
            seq++;
          } else if (op.kind === "pop") {
            model.sort((a, b) => a.time - b.time || a.seq - b.seq);
            const expected = model.shift();
            const got = queue.pop();
            expect(got).toBe(expected?.seq);
            if (expected) expect(queue.poppedTime).toBe(expected.time);
          } else if (handles.length > 0) {
            const handle = handles[op.pick % handles.length]!;
            const index = model.findIndex((entry) => entry.seq === handle);
            expect(queue.cancel(handle)).toBe(index >= 0);
            if (index >= 0) model.splice(index, 1);
          }
          expect(queue.size).toBe(model.length);
        }
        model.sort((a, b) => a.time - b.time || a.seq - b.seq);
        for (const expected of model) expect(queue.pop()).toBe(expected.seq);
        expect(queue.pop()).toBeUndefined();
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("keeps FIFO order among equal times across growth and compaction", () => {
    const queue = new EventQueue<number>();
    const handles: number[] = [];
    for (let i = 0; i < 10_000; i++) handles.push(queue.push(i % 7, i));
    // Cancel most entries so that compaction runs.
    for (let i = 0; i < 10_000; i++) if (i % 5 !== 0) queue.cancel(handles[i]!);
    expect(queue.size).toBe(2_000);
    let lastTime = -1;
    let lastValue = -1;
    for (let value = queue.pop(); value !== undefined; value = queue.pop()) {
      expect(value % 5).toBe(0);
      if (queue.poppedTime === lastTime) expect(value).toBeGreaterThan(lastValue);
      else expect(queue.poppedTime).toBeGreaterThan(lastTime);
      lastTime = queue.poppedTime;
      lastValue = value;
    }
  });

  it("says whether a cancel stopped anything", () => {
    const queue = new EventQueue<string>();
    const a = queue.push(1, "a");
    const b = queue.push(2, "b");
    expect(queue.pop()).toBe("a");
    expect(queue.cancel(a)).toBe(false); // already popped
    expect(queue.cancel(b)).toBe(true);
    expect(queue.cancel(b)).toBe(false); // already cancelled
    expect(queue.cancel(99)).toBe(false); // never existed
    expect(queue.peekTime()).toBe(Infinity);
  });
});
