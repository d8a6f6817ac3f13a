import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createHash } from "node:crypto";
import { canonicalJson, Fingerprint, fingerprintOf } from "../../src/core/fingerprint.ts";

describe("canonical JSON", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: "x" }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson({ n: 10n })).toBe('{"n":"10"}');
  });

  it("refuses values the wire cannot carry", () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ x: Infinity })).toThrow(/Infinity/);
  });
});

describe("Fingerprint", () => {
  const records = [{ type: "order", id: "1", px: "3000" }, { type: "fill", id: "2" }];

  it("gives the same digest for the same records, whatever their key order", () => {
    const reordered = [{ px: "3000", id: "1", type: "order" }, { id: "2", type: "fill" }];
    expect(fingerprintOf(records)).toBe(fingerprintOf(reordered));
    expect(fingerprintOf(records)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with any change of content, order or record boundaries", () => {
    const base = fingerprintOf(records);
    expect(fingerprintOf([records[1], records[0]])).not.toBe(base);
    expect(fingerprintOf([{ ...records[0], px: "3000.5" }, records[1]])).not.toBe(base);
    expect(fingerprintOf([records[0]])).not.toBe(base);
  });

  it("can be read at checkpoints and go on", () => {
    const running = new Fingerprint();
    running.update(records[0]);
    const checkpoint = running.digest();
    expect(checkpoint).toBe(fingerprintOf([records[0]]));
    running.update(records[1]);
    expect(running.digest()).toBe(fingerprintOf(records));
    expect(running.count).toBe(2);
  });
});

describe("canonical JSON against a plain reference", () => {
  /** The definition, written the slow obvious way: sort every object's keys, JSON.stringify the rest. */
  function reference(value: unknown): string {
    if (Array.isArray(value)) return `[${value.map((element) => (element === undefined ? "null" : reference(element))).join(",")}]`;
    if (typeof value === "bigint") return `"${value.toString()}"`;
    if (value !== null && typeof value === "object") {
      const entries = Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`);
      return `{${entries.join(",")}}`;
    }
    return JSON.stringify(value);
  }

  it("agrees on strings JSON must escape and on every kind of number (the fast paths)", () => {
    const tricky = ['"', "\\", "a\"b", "\u0000", "\u001f", "\u007f", "\n\t", "\ud800", "x\udc00", "\ud83d\ude00", "\u2028", "é", "", "plain"];
    for (const text of tricky) expect(canonicalJson({ [text]: text })).toBe(reference({ [text]: text }));
    for (const number of [0, -0, 1, -1.5, 1e21, 1e-7, 123456789012345680000, 5e-324, Number.MAX_SAFE_INTEGER]) {
      expect(canonicalJson([number])).toBe(reference([number]));
    }
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.double({ noNaN: true, noDefaultInfinity: true }), (text, number) => {
        expect(canonicalJson({ [text]: [text, number] })).toBe(reference({ [text]: [text, number] }));
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it("agrees when many shapes share a first key and when the shape table starts over", () => {
    const sameFirst = Array.from({ length: 200 }, (_, i) => ({ a: i, [`k${i % 70}`]: i, z: "x" }));
    const manyFirsts = Array.from({ length: 12_000 }, (_, i) => ({ [`k${i}`]: i, b: "y" }));
    const got = [...sameFirst, ...manyFirsts, ...sameFirst].map((record) => canonicalJson(record)).join("\n");
    expect(got).toBe([...sameFirst, ...manyFirsts, ...sameFirst].map((record) => reference(record)).join("\n"));
  });

  it("hashes batched records exactly as one record per update", () => {
    const texts = Array.from({ length: 3_000 }, (_, i) => canonicalJson({ i, s: "x".repeat(i % 50) }));
    const running = new Fingerprint();
    const expected = createHash("sha256");
    for (const [i, text] of texts.entries()) {
      running.updateCanonical(text);
      expected.update(text + "\n");
      if (i % 997 === 0) expect(running.digest()).toBe(expected.copy().digest("hex"));
    }
    expect(running.digest()).toBe(expected.digest("hex"));
  });

  it("agrees on random records of repeated and varying shapes (the per-shape key cache)", () => {
    const key = fc.constantFrom("a", "b", "ab", "a,b", "b\u0000a", "z", "Z", "é", "10", "2", "__proto__x", "sequenceNumber");
    const scalar = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.bigInt());
    const record = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(key, tie("value"), { maxKeys: 5 })),
    })).value;
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), (records) => {
        for (const item of records) if (item !== undefined) expect(canonicalJson(item)).toBe(reference(item));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});
