/**
 * The definition reads (spec 2.3, 2.4, 2.5, 2.7) publish canonical decimals
 * (DESIGN: outputs have no exponent and no trailing zeros), whatever
 * spelling the configuration used (audit s22 R4). The values here are the
 * built-in ones, spelled with trailing zeros and exponents.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_GATEWAY_CONFIG, DEFAULT_MARKETS, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import { ExchangeQueries } from "../../src/exchange/queries.ts";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

const T0 = 1_767_225_600_000_000;

function queriesOf(risk: RiskConfigInput) {
  const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { risk, gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: false } });
  return new ExchangeQueries(new Exchange({ config, startMicros: T0, seed: 1 }));
}

const SPELLED: RiskConfigInput = {
  ...DEFAULT_MARKETS,
  assets: DEFAULT_MARKETS.assets.map((asset) => (asset.asset === "WETH" ? { ...asset, priceHaircut: "0.10", liquidationDiscount: "5e-2" } : asset)),
  perpMarkets: DEFAULT_MARKETS.perpMarkets.map((market) =>
    market.symbol === "ETHRUSDPERP"
      ? { ...market, minOrderQty: "0.0010", qtyStepSize: "1e-3", tickSize: "0.010", liquidationMarginParameter: "0.0250", initialMarginParameter: "5E-2", oiCap: "1e5" }
      : market,
  ),
  spotMarkets: DEFAULT_MARKETS.spotMarkets.map((market) => ({ ...market, minOrderQty: "0.00100", qtyStepSize: "0.001000", tickSize: "1.0e-2" })),
  globalFees: { ...DEFAULT_MARKETS.globalFees, ogDiscount: "0.10", refereeDiscount: "5.0e-2", referrerRebate: "0.1000", affiliateReferrerRebate: "2e-1" },
};

describe("definition reads", () => {
  it("publish canonical decimals, not the configuration's spelling", () => {
    const queries = queriesOf(SPELLED);
    expect(queries.perpMarketDefinitions()[0]).toEqual({
      symbol: "ETHRUSDPERP",
      marketId: 1,
      minOrderQty: "0.001",
      qtyStepSize: "0.001",
      tickSize: "0.01",
      liquidationMarginParameter: "0.025",
      initialMarginParameter: "0.05",
      maxLeverage: 20,
      oiCap: "100000",
    });
    expect(queries.spotMarketDefinitions()[0]).toMatchObject({ minOrderQty: "0.001", qtyStepSize: "0.001", tickSize: "0.01" });
    expect(queries.assetDefinitions().find((asset) => asset.asset === "WETH")).toMatchObject({ priceHaircut: "0.1", liquidationDiscount: "0.05" });
    expect(queries.globalFeeParameters()).toEqual({ ogDiscount: "0.1", refereeDiscount: "0.05", referrerRebate: "0.1", affiliateReferrerRebate: "0.2" });
  });

  it("publish the built-in definitions as they are written (already canonical)", () => {
    const spelled = queriesOf(SPELLED);
    const plain = queriesOf(DEFAULT_MARKETS);
    expect(spelled.perpMarketDefinitions()).toEqual(plain.perpMarketDefinitions());
    expect(spelled.spotMarketDefinitions()).toEqual(plain.spotMarketDefinitions());
    expect(spelled.assetDefinitions()).toEqual(plain.assetDefinitions());
    expect(spelled.globalFeeParameters()).toEqual(plain.globalFeeParameters());
    expect(plain.perpMarketDefinitions()[0]!.tickSize).toBe(DEFAULT_MARKETS.perpMarkets[0]!.tickSize);
  });
});
