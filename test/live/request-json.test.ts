/**
 * src/live/request-json.ts: the nesting limit every surface applies to a
 * JSON body before the Exchange sees it, and the text of WebSocket frames.
 */
import { describe, expect, it } from "vitest";
import { frameText, JSON_NESTING_MAX, nestingMessage, nestsDeeperThan } from "../../src/live/request-json.ts";

/** `levels` arrays or objects, one inside the other, around 1. */
function nested(levels: number, kind: "array" | "object"): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = kind === "array" ? [value] : { x: value };
  return value;
}

describe("nestsDeeperThan", () => {
  it("counts a scalar as 0 levels and each array or object as one", () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan("[[[", 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan([[]], 1)).toBe(true);
    expect(nestsDeeperThan([[]], 2)).toBe(false);
  });

  it("takes exactly JSON_NESTING_MAX levels of arrays or objects, and refuses one more", () => {
    for (const kind of ["array", "object"] as const) {
      expect(nestsDeeperThan(nested(JSON_NESTING_MAX, kind), JSON_NESTING_MAX)).toBe(false);
      expect(nestsDeeperThan(nested(JSON_NESTING_MAX + 1, kind), JSON_NESTING_MAX)).toBe(true);
    }
  });

  it("finds the deep member wherever it is, after shallow ones", () => {
    const body = { symbol: "BTCRUSDPERP", qty: "1", list: [1, 2, { a: [3] }], deep: nested(40, "object") };
    expect(nestsDeeperThan(body, JSON_NESTING_MAX)).toBe(true);
    expect(nestsDeeperThan({ ...body, deep: 0 }, JSON_NESTING_MAX)).toBe(false);
  });

  it("answers for a value nested 200,000 levels without overflowing the stack (it stops at the limit)", () => {
    const text = "[".repeat(200_000) + "]".repeat(200_000);
    expect(nestsDeeperThan(JSON.parse(text), JSON_NESTING_MAX)).toBe(true);
  });

  it("names the value and the rule in its message", () => {
    expect(nestingMessage("payload")).toBe(`payload nests deeper than ${JSON_NESTING_MAX} levels of arrays and objects`);
  });
});

describe("frameText", () => {
  it("reads a Buffer, fragments and an ArrayBuffer as UTF-8", () => {
    const text = '{"type":"ping","id":"é"}';
    const bytes = Buffer.from(text, "utf8");
    expect(frameText(bytes)).toBe(text);
    expect(frameText([bytes.subarray(0, 5), bytes.subarray(5)])).toBe(text);
    expect(frameText(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))).toBe(text);
  });
});
