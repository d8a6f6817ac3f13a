/**
 * ExchangeQueries.depth answers undefined only for a symbol that names no
 * market; a limit the engine refuses is its RequestError (INPUT_VALIDATION_ERROR),
 * not an unknown symbol (audit s21 F2: the sim answered SYMBOL_NOT_FOUND_ERROR
 * naming a market that exists).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import { ExchangeQueries } from "../../src/exchange/queries.ts";
import { ReadRequestError } from "../../src/exchange/read-params.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

const T0 = 1_767_225_600_000_000;

describe("ExchangeQueries.depth", () => {
  const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: false } });
  const queries = new ExchangeQueries(new Exchange({ config, startMicros: T0, seed: 1 }));

  it("is undefined for an unknown symbol and a SNAPSHOT for a limit in range", () => {
    expect(queries.depth("NOPEPERP", 10)).toBeUndefined();
    expect(queries.depth("ETHRUSDPERP", 1000)).toMatchObject({ symbol: "ETHRUSDPERP", type: "SNAPSHOT" });
  });

  it.each([0, 1001, 5000, 1.5])("throws INPUT_VALIDATION_ERROR for limit %s", (limit) => {
    let thrown: unknown;
    try {
      queries.depth("ETHRUSDPERP", limit);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ReadRequestError);
    expect(thrown).toMatchObject({ code: "INPUT_VALIDATION_ERROR", message: expect.stringContaining(`limit ${limit}`) });
  });
});
