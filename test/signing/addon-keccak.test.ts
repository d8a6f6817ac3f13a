/**
 * shadowbook's add-on keccak256 (native/secp256k1-comb, addon.ts) against
 * viem's: every length across the 136-byte block boundaries, written at any
 * offset of a larger buffer without touching the bytes around it, and the
 * argument checks that keep a bad call from writing out of bounds.
 */
import fc from "fast-check";
import { keccak256 as viemKeccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { ADDON } from "../../src/signing/addon.ts";
import { native, type Keccak256Into } from "../../src/signing/native.ts";
import { SEED } from "./arbitraries.ts";

// `npm ci` builds it (scripts/build-native.mjs); on these machines it must have.
const keccak256Into = (ADDON?.["keccak256"] ?? (() => {
  throw new Error("the add-on's keccak256 did not load: run `npm run install` (scripts/build-native.mjs) and read its message");
})) as Keccak256Into;

describe("the add-on's keccak256", () => {
  it("is the one the native path uses", () => {
    expect(native?.keccakVia).toBe("addon");
    expect(native?.keccak256Into).toBe(keccak256Into);
  });

  it("equals viem's keccak256 for every input, written only at its offset", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 700 }), fc.nat({ max: 64 }), fc.nat({ max: 64 }), (input, before, after) => {
        const output = new Uint8Array(before + 32 + after).fill(0xa5);
        keccak256Into(input, output, before);
        expect(Buffer.from(output.subarray(before, before + 32)).toString("hex")).toBe(viemKeccak256(input).slice(2));
        expect(output.subarray(0, before).every((byte) => byte === 0xa5)).toBe(true);
        expect(output.subarray(before + 32).every((byte) => byte === 0xa5)).toBe(true);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it("hashes every length from 0 to 3 blocks exactly", () => {
    const output = new Uint8Array(32);
    for (let length = 0; length <= 3 * 136 + 1; length++) {
      const input = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      keccak256Into(input, output, 0);
      expect(Buffer.from(output).toString("hex")).toBe(viemKeccak256(input).slice(2));
    }
  });

  it("refuses an output or offset it would write past, and non-byte arguments", () => {
    const input = new Uint8Array(10);
    expect(() => keccak256Into(input, new Uint8Array(31), 0)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), 9)).toThrow(/offset \+ 32 <= output.length/);
    expect(() => keccak256Into(input, new Uint8Array(40), -1)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), 1.5)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), Number.NaN)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), 1e300)).toThrow(TypeError);
    expect(() => keccak256Into(input, new Uint8Array(40), "0" as unknown as number)).toThrow(TypeError);
    expect(() => keccak256Into(new Uint16Array(4) as unknown as Uint8Array, new Uint8Array(32), 0)).toThrow(/input must be a Uint8Array/);
    expect(() => keccak256Into(input, new Float64Array(4) as unknown as Uint8Array, 0)).toThrow(/output must be a Uint8Array/);
    const output = new Uint8Array(40);
    keccak256Into(input, output, 8);
    expect(Buffer.from(output.subarray(8)).toString("hex")).toBe(viemKeccak256(input).slice(2));
  });
});
