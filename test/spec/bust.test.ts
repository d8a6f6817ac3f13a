import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";
import * as fx from "./fixtures.ts";
import { rejectedPaths } from "./issues.ts";

const modeled = [
  fx.bustReasonAccountBelowIM,
  fx.bustReasonInsufficientBalance,
  fx.bustReasonSignatureExpired,
  fx.bustReasonMarketPaused,
  fx.bustReasonDecoded,
  fx.bustReasonUnknown,
];

describe("ExecutionBustReason", () => {
  test.each(modeled.map((r) => [r.reasonName, r] as const))("%s validates as its modeled variant", (_name, reason) => {
    expect(spec.ExecutionBustReason.parse(reason)).toStrictEqual(reason);
    expect(spec.ModeledBustReason.parse(reason)).toStrictEqual(reason);
    expect(spec.isModeledBustReason(reason)).toBe(true);
  });

  test("the modeled names are the typed contract errors plus DecodedReason and UnknownReason", () => {
    expect(spec.TYPED_BUST_REASON_NAMES).toStrictEqual([
      "AccountBelowIM",
      "InsufficientBalance",
      "SignatureExpired",
      "MarketPaused",
    ]);
    expect([...spec.KNOWN_BUST_REASON_NAMES]).toStrictEqual([...spec.TYPED_BUST_REASON_NAMES, "DecodedReason", "UnknownReason"]);
    expect(modeled.map((r) => r.reasonName)).toStrictEqual([...spec.KNOWN_BUST_REASON_NAMES]);
  });

  test("an unmodeled contract error takes the {reasonName, args} form", () => {
    expect(spec.ExecutionBustReason.parse(fx.bustReasonUnmodeled)).toStrictEqual(fx.bustReasonUnmodeled);
    expect(spec.isModeledBustReason(fx.bustReasonUnmodeled)).toBe(false);
  });

  test("an unmodeled contract error needs args", () => {
    expect(rejectedPaths(spec.ExecutionBustReason, { reasonName: "OraclePriceStale" })).toContain("args");
    expect(rejectedPaths(spec.ExecutionBustReason, { reasonName: "OraclePriceStale", args: [] })).toContain("args");
  });

  test("a modeled name with missing typed fields fails even with args, and names the typed field", () => {
    const input = { reasonName: "AccountBelowIM", accountId: 2001, delta: "-1", args: { shortfall: "1" } };
    const paths = rejectedPaths(spec.ExecutionBustReason, input);
    expect(paths).toContain("shortfall");
    expect(paths).toContain("reasonName");
  });

  test("a modeled name with a mistyped field fails", () => {
    const input = { ...fx.bustReasonInsufficientBalance, required: 787.5 };
    expect(rejectedPaths(spec.ExecutionBustReason, input)).toContain("required");
  });

  test("DecodedReason and UnknownReason need a message", () => {
    expect(rejectedPaths(spec.ExecutionBustReason, { reasonName: "DecodedReason", args: {} })).toContain("message");
    expect(rejectedPaths(spec.ExecutionBustReason, { reasonName: "UnknownReason", args: {} })).toContain("message");
  });

  test("an empty reasonName is rejected", () => {
    expect(rejectedPaths(spec.ExecutionBustReason, { reasonName: "", args: {} })).toContain("reasonName");
  });

  test("a bust carries any reason form", () => {
    for (const reason of [...modeled, fx.bustReasonUnmodeled]) {
      const bust = { ...fx.executionBust, reason };
      expect(spec.ExecutionBust.parse(bust)).toStrictEqual(bust);
    }
  });

  test("unknown properties of a modeled reason are kept", () => {
    const reason = { ...fx.bustReasonMarketPaused, pausedAtBlock: 123 };
    expect(spec.ExecutionBustReason.parse(reason)).toStrictEqual(reason);
  });
});
