/**
 * The input log's configuration outline check: what replay asks of
 * `shadowbook.config` before it builds an Exchange from it.
 */
import { describe, expect, it } from "vitest";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { configFromJson, configOutlineProblem, configToJson } from "../../src/record/input-log.ts";
import { signingConfig } from "../../src/signing/domain.ts";

describe("configOutlineProblem", () => {
  const config = configFromJson(configToJson(defaultExchangeConfig(signingConfig()))) as unknown as Record<string, unknown>;

  it("passes a logged configuration", () => {
    expect(configOutlineProblem(config)).toBeUndefined();
  });

  it("names what is not an object", () => {
    expect(configOutlineProblem(null)).toBe("it is null, not an object");
    expect(configOutlineProblem([])).toBe("it is an array, not an object");
    expect(configOutlineProblem("risk")).toBe("it is a string, not an object");
    expect(configOutlineProblem(5)).toBe("it is a number, not an object");
  });

  it("names every missing section", () => {
    expect(configOutlineProblem({})).toBe('"risk", "engine", "chain", "gateway", "signing", "orderHistoryPerAccount", "recordsRetained" are missing');
    const { gateway: _gateway, ...withoutGateway } = config;
    expect(configOutlineProblem(withoutGateway)).toBe('"gateway" is missing');
  });

  it("names a section of the wrong type", () => {
    expect(configOutlineProblem({ ...config, risk: [] })).toBe('"risk" must be an object, not an array');
    expect(configOutlineProblem({ ...config, engine: null })).toBe('"engine" must be an object, not null');
    expect(configOutlineProblem({ ...config, recordsRetained: "100" })).toBe('"recordsRetained" must be a number, not a string');
  });
});
