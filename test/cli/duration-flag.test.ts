/**
 * `--duration` of run, fuzz and sweep (src/cli/run.ts parseDuration):
 * seconds of virtual time in decimal digits, at least a microsecond; a refusal
 * says the rule. The run line of the summary shows a fractional duration as
 * given, not rounded to whole seconds.
 */
import { describe, expect, it, vi } from "vitest";
import { parseDuration, runCommand } from "../../src/cli/run.ts";

describe("parseDuration", () => {
  it("takes decimal seconds from a microsecond", () => {
    expect(parseDuration("3600")).toBe(3_600);
    expect(parseDuration("0.5")).toBe(0.5);
    expect(parseDuration("0.000001")).toBe(0.000001);
    expect(parseDuration("0.0000015")).toBe(0.0000015);
  });

  it("refuses exponents, signs, words and less than a microsecond, saying the rule", () => {
    const rule = "must be a positive number of seconds in decimal digits, e.g. 3600 or 0.5";
    for (const bad of ["1e9", "-1", "abc", "", ".5", "1."]) expect(() => parseDuration(bad), bad).toThrow(`--duration "${bad}" ${rule}`);
    expect(() => parseDuration("0")).toThrow('--duration "0" must be a positive number of seconds');
    expect(() => parseDuration("0.0000001")).toThrow('--duration "0.0000001" must be at least 0.000001 seconds (a microsecond of virtual time)');
    expect(() => parseDuration("3153600001")).toThrow('--duration "3153600001" must be at most 3153600000 seconds (100 years of virtual time)');
  });
});

describe("the run line", () => {
  it("shows a fractional duration as given", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await runCommand("default", { duration: "0.5", progress: false });
      const printed = log.mock.calls.map((call) => String(call[0])).join("\n");
      expect(printed).toMatch(/ simulated 0\.5 s in \d+\.\d\d s wall \(x\d/);
    } finally {
      log.mockRestore();
    }
  }, 60_000);
});
