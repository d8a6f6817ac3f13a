import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LONGEST } from "./longest-first-sequencer.ts";

const ROOT = resolve(import.meta.dirname, "../..");

describe("the longest-first test order", () => {
  it("names test files that exist, each once (a renamed file would silently start late again)", () => {
    for (const path of LONGEST) expect(existsSync(resolve(ROOT, path)), path).toBe(true);
    expect(new Set(LONGEST).size).toBe(LONGEST.length);
  });
});
