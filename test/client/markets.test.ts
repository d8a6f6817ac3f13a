import { describe, expect, it } from "vitest";
import { ClientConfigError, MarketNotFoundError } from "../../src/client/errors.ts";
import { createMarketDirectory, signingMarketRef } from "../../src/client/markets.ts";
import type { MarketDefinition, SpotMarketDefinition } from "../../src/spec/market.ts";

const ETHPERP: MarketDefinition = {
  symbol: "ETHPERP",
  marketId: 1,
  minOrderQty: "0.001",
  qtyStepSize: "0.001",
  tickSize: "0.01",
  liquidationMarginParameter: "0.025",
  initialMarginParameter: "0.05",
  maxLeverage: 20,
  oiCap: "25000",
};
const WETHRUSD: SpotMarketDefinition = {
  symbol: "WETHRUSD",
  marketId: 1,
  baseAsset: "WETH",
  quoteAsset: "RUSD",
  minOrderQty: "0.0001",
  qtyStepSize: "0.0001",
  tickSize: "0.01",
};

describe("createMarketDirectory", () => {
  it("takes full definitions of both kinds, even when a perp and a spot id coincide", () => {
    const markets = createMarketDirectory({ perp: [ETHPERP], spot: [WETHRUSD] });
    expect(markets.get("ETHPERP")).toEqual({ symbol: "ETHPERP", marketId: 1, kind: "perp" });
    expect(markets.require("WETHRUSD")).toEqual({ symbol: "WETHRUSD", marketId: 1, kind: "spot" });
    expect(markets.entries.map((entry) => entry.symbol)).toEqual(["ETHPERP", "WETHRUSD"]);
    expect(markets.get("ethperp")).toBeUndefined();
    expect(() => markets.require("BTCPERP")).toThrow(MarketNotFoundError);
  });

  it("gives src/signing the listed id and the kind (the offset is added when signing)", () => {
    const markets = createMarketDirectory({ perp: [ETHPERP], spot: [WETHRUSD] });
    expect(signingMarketRef(markets.require("ETHPERP"))).toEqual({ marketId: 1n, isSpot: false });
    expect(signingMarketRef(markets.require("WETHRUSD"))).toEqual({ marketId: 1n, isSpot: true });
  });

  it.each([
    { name: "a symbol listed twice", parameters: { perp: [ETHPERP], spot: [{ symbol: "ETHPERP", marketId: 9 }] } },
    { name: "a perp id listed twice", parameters: { perp: [ETHPERP, { symbol: "BTCPERP", marketId: 1 }] } },
    { name: "a spot id that already carries the offset", parameters: { spot: [{ symbol: "WETHRUSD", marketId: 10_000_000_001 }] } },
    { name: "a malformed symbol", parameters: { perp: [{ symbol: "ETH-PERP", marketId: 3 }] } },
    { name: "a negative id", parameters: { perp: [{ symbol: "ETHPERP", marketId: -1 }] } },
  ])("refuses $name", ({ parameters }) => {
    expect(() => createMarketDirectory(parameters)).toThrow(ClientConfigError);
  });
});
