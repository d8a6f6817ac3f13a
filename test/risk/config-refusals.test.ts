/**
 * parseRiskConfig refuses what the specification's types and rules forbid
 * in the definitions it publishes (audit s22 R3), naming the field and the
 * rule: tierId and exchange ids are UnsignedInteger (2.1, 2.6); an asset's
 * status is ENABLED or WITHDRAWAL_ONLY and displayDecimals an
 * UnsignedInteger (2.5); spotMarketSymbol is the asset's linked spot market
 * (2.5), so it must exist and trade the asset as its base; perp symbols end
 * in PERP and spot symbols do not (1), both letters and digits only (2.1).
 */
import { describe, expect, it } from "vitest";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import { RiskEngine } from "../../src/risk/risk.ts";
import { baseConfig } from "./fixtures.ts";

const base = baseConfig();

function build(overrides: Partial<RiskConfigInput>) {
  return () => new RiskEngine({ ...base, ...overrides });
}

const asset = (symbol: string, patch: object) => base.assets.map((entry) => (entry.asset === symbol ? { ...entry, ...patch } : entry));

describe("parseRiskConfig refuses", () => {
  it.each([
    ["a negative tierId", build({ feeTiers: base.feeTiers.map((tier) => (tier.tierId === 9 ? { ...tier, tierId: -1 } : tier)) }), "fee tier tierId -1 must be a non-negative integer (UnsignedInteger)"],
    ["a fractional tierId", build({ feeTiers: base.feeTiers.map((tier) => (tier.tierId === 9 ? { ...tier, tierId: 1.5 } : tier)) }), "fee tier tierId 1.5 must be a non-negative integer (UnsignedInteger)"],
    ["a negative exchangeId", build({ exchangeId: -1 }), "exchangeId -1 must be a non-negative integer (UnsignedInteger)"],
    ["a fractional poolAccountId", build({ poolAccountId: 0.5 }), "poolAccountId 0.5 must be a non-negative integer (UnsignedInteger)"],
    ["an asset status outside the enum", build({ assets: asset("BTC", { status: "PAUSED" }) }), 'BTC.status "PAUSED" must be ENABLED or WITHDRAWAL_ONLY'],
    ["a negative displayDecimals", build({ assets: asset("ETH", { displayDecimals: -2 }) }), "ETH.displayDecimals -2 must be a non-negative integer (UnsignedInteger)"],
    ["an asset name off the Asset pattern", build({ assets: asset("ETH", { asset: "E-TH" }) }), 'asset "E-TH" must be letters and digits only (spec 2.1 Asset)'],
    ["a spotMarketSymbol naming no spot market", build({ assets: asset("ETH", { spotMarketSymbol: "ETHRUSD" }) }), 'ETH.spotMarketSymbol "ETHRUSD" is not a configured spot market'],
    [
      "a spotMarketSymbol whose market trades another base",
      build({ assets: asset("ETH", { spotMarketSymbol: "BTCRUSD" }) }),
      'ETH.spotMarketSymbol "BTCRUSD" trades BTC, not ETH: the linked spot market must have the asset as its baseAsset',
    ],
    [
      "a perp symbol not ending in PERP",
      build({ perpMarkets: base.perpMarkets.map((market, index) => (index === 0 ? { ...market, symbol: "BTCRUSDSWAP" } : market)) }),
      'perp market symbol "BTCRUSDSWAP" must be letters and digits ending in PERP (spec 1: perp symbols end in PERP)',
    ],
    [
      "a perp symbol off the Symbol pattern",
      build({ perpMarkets: base.perpMarkets.map((market, index) => (index === 0 ? { ...market, symbol: "BTC-PERP" } : market)) }),
      'perp market symbol "BTC-PERP" must be letters and digits ending in PERP (spec 1: perp symbols end in PERP)',
    ],
    [
      "a spot symbol ending in PERP",
      build({ spotMarkets: base.spotMarkets.map((market) => ({ ...market, symbol: "BTCRUSDPERP2PERP" })), assets: asset("BTC", { spotMarketSymbol: "BTCRUSDPERP2PERP" }) }),
      'spot market symbol "BTCRUSDPERP2PERP" must be letters and digits not ending in PERP (spec 1: spot symbols do not)',
    ],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(message);
  });

  it("and accepts the fixture venue, whose definitions follow every one of these rules", () => {
    expect(build({})).not.toThrow();
  });
});
