import { describe, expect, test } from "vitest";
import { z } from "zod";
import * as spec from "../../src/spec/index.ts";
import { SAMPLES, fillUpdateOrder, orderHistoryList } from "./fixtures.ts";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

describe("samples", () => {
  test.each(SAMPLES.map((s) => [s.name, s] as const))("%s parses and round-trips", (_name, { schema, sample }) => {
    const parsed = schema.parse(sample);
    expect(parsed).toStrictEqual(sample);
  });

  test.each(SAMPLES.filter((s) => isPlainObject(s.sample)).map((s) => [s.name, s] as const))(
    "%s accepts and keeps unknown properties",
    (_name, { schema, sample }) => {
      const extended = { ...(sample as Record<string, unknown>), futureField: { nested: [1, "two"] }, flag: true };
      expect(schema.parse(extended)).toStrictEqual(extended);
    },
  );

  test("unknown properties of nested objects are kept", () => {
    const nested = {
      ...orderHistoryList,
      data: [{ ...fillUpdateOrder, venueTag: "x" }],
      meta: { ...orderHistoryList.meta, totalPagesHint: 3 },
    };
    expect(spec.OrderHistoryList.parse(nested)).toStrictEqual(nested);
  });

  test("every exported schema has a sample", () => {
    const exported = Object.entries(spec)
      .filter(([, value]) => value instanceof z.ZodType)
      .map(([name]) => name)
      .sort();
    const sampled = [...new Set(SAMPLES.map((s) => s.name))].sort();
    expect(sampled).toStrictEqual(exported);
  });

  test("an optional field set to undefined is rejected (exact optional)", () => {
    expect(spec.Order.safeParse({ ...fillUpdateOrder, qty: undefined }).success).toBe(false);
    const { qty: _omitted, ...withoutQty } = fillUpdateOrder;
    expect(spec.Order.safeParse(withoutQty).success).toBe(true);
  });
});
