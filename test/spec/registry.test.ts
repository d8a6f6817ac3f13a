import { describe, expect, test } from "vitest";
import { z } from "zod";
import * as spec from "../../src/spec/index.ts";

const exportedSchemas = Object.entries(spec as Record<string, unknown>).filter((entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType);

/** Export names that differ from the spec's name (the registry id). */
const RENAMED: ReadonlyMap<string, string> = new Map([["MarketSymbol", "Symbol"]]);

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

describe("schema registry", () => {
  test("every exported schema has a registry id equal to its name", () => {
    expect(exportedSchemas.length).toBeGreaterThan(100);
    for (const [name, schema] of exportedSchemas) {
      expect(z.globalRegistry.get(schema)?.id, name).toBe(RENAMED.get(name) ?? name);
    }
  });

  test("registry ids are unique", () => {
    const ids = exportedSchemas.map(([, schema]) => z.globalRegistry.get(schema)?.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("z.toJSONSchema of Order produces an object schema with its properties", () => {
    const doc = z.toJSONSchema(spec.Order);
    const defs = doc.$defs;
    if (!isObject(defs)) throw new Error("expected $defs");
    const order = defs["Order"];
    if (!isObject(order)) throw new Error("expected $defs.Order");
    expect(order["type"]).toBe("object");
    const properties = order["properties"];
    if (!isObject(properties)) throw new Error("expected properties");
    expect(Object.keys(properties)).toContain("orderId");
    expect(Object.keys(properties)).toContain("cancelReason");
    expect(properties["orderId"]).toStrictEqual({ $ref: "#/$defs/Id" });
    expect(order["required"]).toStrictEqual([
      "exchangeId",
      "symbol",
      "accountId",
      "orderId",
      "side",
      "limitPx",
      "orderType",
      "status",
      "createdAt",
      "lastUpdateAt",
    ]);
    expect(order["additionalProperties"]).toStrictEqual({});
    expect(defs["UnsignedDecimal"]).toStrictEqual({ type: "string", pattern: spec.UNSIGNED_DECIMAL_PATTERN.source });
  });

  test("the whole registry converts to JSON Schema (the OpenAPI/AsyncAPI source)", () => {
    const doc = z.toJSONSchema(z.globalRegistry);
    const names = Object.keys(doc.schemas);
    for (const [name] of exportedSchemas) expect(names).toContain(RENAMED.get(name) ?? name);
  });
});
