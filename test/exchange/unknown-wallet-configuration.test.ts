/**
 * ExchangeQueries.walletConfiguration of a wallet the exchange does not know
 * reports what a new wallet gets (audit D4): the default fee tier, the
 * REGULAR tier with volume30d 0, wherever the scenario lists it. The tiers
 * here list a higher REGULAR tier and a VIP tier before the default one.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_GATEWAY_CONFIG, DEFAULT_MARKETS, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import { ExchangeQueries } from "../../src/exchange/queries.ts";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

const T0 = 1_767_225_600_000_000;
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

function exchangeWithTiers(feeTiers: RiskConfigInput["feeTiers"]) {
  const risk: RiskConfigInput = { ...DEFAULT_MARKETS, feeTiers };
  const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { risk, gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: false } });
  return new Exchange({ config, startMicros: T0, seed: 1 });
}

describe("walletConfiguration of an unknown wallet", () => {
  it("reports the default tier a new wallet gets, not the first tier listed", () => {
    const exchange = exchangeWithTiers([
      { tierId: 2, takerFee: "0.00035", makerFee: "0", volume30d: "1000000", tierType: "REGULAR" },
      { tierId: 10, takerFee: "0.0002", makerFee: "0", volume30d: "0", tierType: "VIP" },
      { tierId: 1, takerFee: "0.0004", makerFee: "0", volume30d: "0", tierType: "REGULAR" },
    ]);
    const queries = new ExchangeQueries(exchange);
    // Published in the canonical order (REGULAR by volume30d, then VIP), not the order listed.
    expect(queries.feeTiers().map((tier) => tier.tierId)).toEqual([1, 2, 10]);
    const created = exchange.handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(100), deposits: { rUSD: "100" } } }, T0);
    expect(created.ok).toBe(true);
    const known = queries.walletConfiguration(wallet(100));
    expect(known).toEqual({ feeTierId: 1, ogStatus: false, affiliateStatus: false, refereeStatus: false });
    expect(queries.walletConfiguration(wallet(999))).toEqual(known);
  });

  it("is tier 1 with the default tiers", () => {
    const queries = new ExchangeQueries(exchangeWithTiers(DEFAULT_MARKETS.feeTiers));
    expect(queries.walletConfiguration(wallet(999))).toEqual({ feeTierId: 1, ogStatus: false, affiliateStatus: false, refereeStatus: false });
  });
});
