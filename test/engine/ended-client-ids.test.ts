import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EndedClientIds } from "../../src/engine/ended-client-ids.ts";

/** The plain definition: a Map in order of ending, an id moved to the back when it ends again, the front one evicted beyond the capacity. */
class ReferenceEnded {
  readonly latest = new Map<string, number>();
  constructor(readonly capacity: number) {}
  remember(id: string, orderIndex: number): void {
    this.latest.delete(id);
    this.latest.set(id, orderIndex);
    if (this.latest.size > this.capacity) this.latest.delete(this.latest.keys().next().value!);
  }
}

describe("EndedClientIds", () => {
  it("remembers exactly what the plain Map definition remembers, after any sequence of ends", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 400 }), (capacity, ends) => {
        const ended = new EndedClientIds(capacity);
        const reference = new ReferenceEnded(capacity);
        ends.forEach((id, orderIndex) => {
          ended.remember(String(id), orderIndex);
          reference.remember(String(id), orderIndex);
          expect(ended.size).toBe(reference.latest.size);
        });
        for (let id = 0; id <= 30; id++) expect(ended.get(String(id))).toBe(reference.latest.get(String(id)));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("forgets the id that ended longest ago, and an id that ended again counts from its latest end", () => {
    const ended = new EndedClientIds(2);
    ended.remember("a", 1);
    ended.remember("b", 2);
    ended.remember("a", 3);
    ended.remember("c", 4);
    expect(ended.get("b")).toBeUndefined();
    expect(ended.get("a")).toBe(3);
    expect(ended.get("c")).toBe(4);
  });

  it("keeps its queue bounded when the same few ids end again and again", () => {
    const ended = new EndedClientIds(100);
    for (let i = 0; i < 100_000; i++) ended.remember(String(i % 3), i);
    const queue = (ended as unknown as { queueIds: string[] }).queueIds;
    expect(queue.length).toBeLessThanOrEqual(2 * 3 + 100);
    expect(ended.get("0")).toBe(99_999);
    expect(ended.get("2")).toBe(99_998);
  });

  it("keeps its queue bounded at the capacity with fresh ids, and each end stays cheap", () => {
    const capacity = 10_000;
    const ended = new EndedClientIds(capacity);
    for (let i = 0; i < 200_000; i++) ended.remember(`cid-${i}`, i);
    const queue = (ended as unknown as { queueIds: string[] }).queueIds;
    expect(ended.size).toBe(capacity);
    expect(queue.length).toBeLessThanOrEqual(3 * capacity);
    expect(ended.get("cid-189999")).toBeUndefined();
    expect(ended.get("cid-190000")).toBe(190_000);
  });
});
