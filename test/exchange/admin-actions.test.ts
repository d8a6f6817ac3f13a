import { describe, expect, it } from "vitest";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { START_MICROS, trustedConfig, wallet } from "./flow.ts";

function fresh() {
  const exchange = new Exchange({ config: trustedConfig(), startMicros: START_MICROS, seed: 3 });
  const outputs: ExchangeOutput[] = [];
  exchange.subscribe((output) => outputs.push(output));
  return { exchange, outputs };
}

describe("admin actions apply whole or not at all", () => {
  it("refuses an account whose deposits cannot be made, before creating it", () => {
    const { exchange, outputs } = fresh();
    const answer = exchange.handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(7), accountId: 9, deposits: { rUSD: "100", DOGE: "5" } } }, START_MICROS);
    expect(answer).toMatchObject({ ok: false, error: { error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("DOGE") } });
    expect(exchange.risk.accountOwner(9)).toBeUndefined();
    expect(outputs.filter((o) => o.kind !== "perpSummaries" && o.kind !== "spotSummaries" && o.kind !== "block")).toEqual([]);
    const malformed = exchange.handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(7), deposits: { rUSD: "1e" } } }, START_MICROS);
    expect(malformed).toMatchObject({ ok: false, error: { message: expect.stringContaining('"1e"') } });
    expect(exchange.risk.accountsOf(wallet(7))).toEqual([]);
    expect(exchange.handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(7), accountId: 9, deposits: { rUSD: "100" } } }, START_MICROS)).toEqual({
      ok: true,
      payload: { accountId: 9 },
    });
  });

  it("refuses to close a spot market, or a perp without a price, without halting it", () => {
    const { exchange } = fresh();
    expect(exchange.handle({ kind: "admin", admin: { action: "market", symbol: "WETHRUSD", closed: true, halted: true } }, START_MICROS)).toMatchObject({ ok: false });
    expect(exchange.engine.marketBySymbol("WETHRUSD")!.halted).toBe(false);
    expect(exchange.handle({ kind: "admin", admin: { action: "market", symbol: "ETHRUSDPERP", closed: true } }, START_MICROS)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("settlementPrice") },
    });
    expect(exchange.engine.marketBySymbol("ETHRUSDPERP")!.halted).toBe(false);
    expect(exchange.handle({ kind: "admin", admin: { action: "market", symbol: "ETHRUSDPERP", closed: true, settlementPrice: "3000.001" } }, START_MICROS)).toMatchObject({
      ok: false,
      error: { error: "PRICE_QTY_BOUNDS_ERROR" },
    });
    expect(exchange.handle({ kind: "admin", admin: { action: "market", symbol: "ETHRUSDPERP", closed: true, settlementPrice: "3000" } }, START_MICROS)).toMatchObject({ ok: true });
    expect(exchange.engine.marketBySymbol("ETHRUSDPERP")!.halted).toBe(true);
  });

  it("refuses wallet settings that name no VIP fee tier, no configured rate tier, or the wallet itself as referrer, before registering the wallet", () => {
    const { exchange } = fresh();
    const vipTiers = exchange.config.risk.feeTiers.filter((tier) => tier.tierType === "VIP").map((tier) => tier.tierId);
    const regularTier = exchange.config.risk.feeTiers.find((tier) => tier.tierType !== "VIP")!.tierId;
    const refused = [
      { feeTierId: regularTier, message: `feeTierId ${regularTier} is not a VIP fee tier (VIP tiers: ${vipTiers.join(", ") || "none"})` },
      { feeTierId: 99, message: `feeTierId 99 is not a VIP fee tier (VIP tiers: ${vipTiers.join(", ") || "none"})` },
      { rateTier: 42, message: "rateTier 42 is not a configured rate tier" },
      { referrer: wallet(8).toUpperCase().replace("0X", "0x"), message: "referrer: a wallet cannot refer itself" },
    ];
    for (const { message, ...settings } of refused) {
      const answer = exchange.handle({ kind: "admin", admin: { action: "wallet", wallet: wallet(8), ...settings } }, START_MICROS);
      expect(answer).toEqual({ ok: false, error: { error: "INPUT_VALIDATION_ERROR", message } });
      expect(exchange.risk.hasWallet(wallet(8))).toBe(false);
    }
    if (vipTiers.length > 0) {
      expect(exchange.handle({ kind: "admin", admin: { action: "wallet", wallet: wallet(8), feeTierId: vipTiers[0]! } }, START_MICROS)).toEqual({ ok: true, payload: { wallet: wallet(8) } });
    }
  });
});

describe("inputs no typed caller can make (an input log edited by hand)", () => {
  it("answers an unknown input kind, admin action or fault with INPUT_VALIDATION_ERROR naming it, and changes nothing", () => {
    const { exchange, outputs } = fresh();
    const before = JSON.stringify(exchange.engine.dumpState());
    const untyped = [
      { input: { kind: "teleport" }, message: 'input kind "teleport" is not an input of the Exchange' },
      { input: { kind: "admin", admin: { action: "nuke" } }, message: 'admin action "nuke" is not an admin action' },
      { input: { kind: "fault", fault: { fault: "meteor", durationMs: 5 } }, message: 'fault "meteor" is not a fault' },
    ];
    for (const { input, message } of untyped) {
      expect(exchange.handle(input as never, START_MICROS)).toEqual({ ok: false, error: { error: "INPUT_VALIDATION_ERROR", message } });
    }
    expect(JSON.stringify(exchange.engine.dumpState())).toBe(before);
    expect(outputs.filter((o) => o.kind !== "perpSummaries" && o.kind !== "spotSummaries" && o.kind !== "block")).toEqual([]);
  });
});
