import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SHARD_COUNT, ShardedMap, shardOf } from "../../src/core/sharded-map.ts";

/** An operation on both maps: set, delete, get or has of a key from a small pool (so that keys repeat). */
const operation = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key: fc.nat(300), value: fc.integer() }),
  fc.record({ op: fc.constant("delete" as const), key: fc.nat(300) }),
  fc.record({ op: fc.constant("get" as const), key: fc.nat(300) }),
);

/** Keys as the maps see them: decimal ids, and a few that are not (empty, one or two characters, letters). */
function keyText(n: number): string {
  if (n === 0) return "";
  if (n < 10) return String.fromCharCode(96 + n);
  if (n < 20) return `k${n}`;
  return String(1_000_000 + n * 7);
}

describe("ShardedMap", () => {
  it("answers every get, has, delete and size as a Map does under random operations", () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 400 }), (ops) => {
        const sharded = new ShardedMap<number>();
        const plain = new Map<string, number>();
        for (const step of ops) {
          const key = keyText(step.key);
          if (step.op === "set") {
            expect(sharded.set(key, step.value)).toBe(sharded);
            plain.set(key, step.value);
          } else if (step.op === "delete") {
            expect(sharded.delete(key)).toBe(plain.delete(key));
          } else {
            expect(sharded.get(key)).toBe(plain.get(key));
            expect(sharded.has(key)).toBe(plain.has(key));
          }
          expect(sharded.size).toBe(plain.size);
        }
        // Iteration yields each live key and value once (in shard order, so compared sorted).
        expect([...sharded.keys()].sort()).toEqual([...plain.keys()].sort());
        for (const key of sharded.keys()) expect(sharded.get(key)).toBe(plain.get(key));
        expect([...sharded.values()].sort((a, b) => a - b)).toEqual([...plain.values()].sort((a, b) => a - b));
      }),
      { seed: 18, numRuns: 200 },
    );
  });

  it("keeps a value stored under undefined apart from an absent key", () => {
    const map = new ShardedMap<number | undefined>();
    map.set("42", undefined);
    expect(map.has("42")).toBe(true);
    expect(map.get("42")).toBeUndefined();
    expect(map.size).toBe(1);
    expect(map.delete("42")).toBe(true);
    expect(map.has("42")).toBe(false);
    expect(map.size).toBe(0);
  });

  it("spreads 1,000 consecutive decimal ids over the shards within one of even", () => {
    const counts = new Array<number>(SHARD_COUNT).fill(0);
    for (let id = 987_654_321; id < 987_655_321; id++) counts[shardOf(String(id))]! += 1;
    expect(Math.min(...counts)).toBe(Math.floor(1000 / SHARD_COUNT));
    expect(Math.max(...counts)).toBe(Math.ceil(1000 / SHARD_COUNT));
  });

  it("spreads keys of one and two digits too (a short key is not all in one shard)", () => {
    const oneDigit = new Set(Array.from({ length: 10 }, (_, d) => shardOf(String(d))));
    expect(oneDigit.size).toBe(10);
    const twoDigits = new Set(Array.from({ length: 100 }, (_, n) => shardOf(String(n).padStart(2, "0"))));
    expect(twoDigits.size).toBe(SHARD_COUNT);
  });
});
