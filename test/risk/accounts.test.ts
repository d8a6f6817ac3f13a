/**
 * Accounts, signers and wallet flags, and the admission codes that come
 * from them, in their precedence.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findWallet } from "../../src/risk/accounts.ts";
import { BTC_PERP, T0, baseConfig, setPrices, trade, venue, wallet } from "./fixtures.ts";

const order = (accountId: number, marketId = BTC_PERP) => ({ accountId, marketId, side: "B" as const, qtyLots: 1, priceTicks: 500_000 });

function accountsVenue(whitelistEnabled = false) {
  const risk = venue({ accounts: 2, poolDeposit: "1000", config: { whitelistEnabled } });
  risk.deposit(1, "RUSD", "1000", T0);
  risk.deposit(2, "RUSD", "1000", T0);
  setPrices(risk, T0);
  return risk;
}

describe("account access", () => {
  it("refuses unknown accounts and unknown signers", () => {
    const risk = accountsVenue();
    expect(risk.checkOrder(order(99), T0)).toEqual({ error: "NO_ACCOUNTS_FOUND_ERROR", message: "accountId 99 does not exist" });
    const stranger = wallet(555);
    expect(risk.checkOrder({ ...order(1), signer: stranger }, T0)).toMatchObject({ error: "UNAUTHORIZED_SIGNATURE_ERROR" });
    risk.addSigner(1, stranger.toUpperCase().replace("0X", "0x"));
    expect(risk.checkOrder({ ...order(1), signer: stranger }, T0)).toBeNull();
    expect(risk.checkOrder({ ...order(1), signer: wallet(1) }, T0)).toBeNull(); // the owner
    risk.removeSigner(1, stranger);
    expect(risk.checkAccess(1, stranger)).toMatchObject({ error: "UNAUTHORIZED_SIGNATURE_ERROR" });
    expect(() => risk.removeSigner(1, wallet(1))).toThrow(/owner/);
  });

  it("refuses wallets that are not whitelisted while whitelisting is on", () => {
    const risk = accountsVenue(true);
    expect(risk.checkOrder(order(1), T0)).toMatchObject({ error: "NOT_WHITELISTED_ERROR" });
    risk.updateWallet(wallet(1), { whitelisted: true });
    expect(risk.checkOrder(order(1), T0)).toBeNull();
    expect(accountsVenue(false).checkOrder(order(1), T0)).toBeNull();
  });

  it("refuses suspended wallets, after the whitelist check", () => {
    const risk = accountsVenue(true);
    risk.updateWallet(wallet(1), { suspended: true });
    expect(risk.checkOrder(order(1), T0)).toMatchObject({ error: "NOT_WHITELISTED_ERROR" });
    risk.updateWallet(wallet(1), { whitelisted: true });
    expect(risk.checkOrder(order(1), T0)).toEqual({ error: "ACCOUNT_SUSPENDED_ERROR", message: `wallet "${wallet(1)}" of accountId 1 is suspended` });
    expect(risk.walletFlags(wallet(1))).toEqual({ rateTier: 1, whitelisted: true, suspended: true });
  });

  it("refuses unknown markets and closed markets", () => {
    const risk = accountsVenue();
    expect(risk.checkOrder(order(1, 77), T0)).toEqual({ error: "SYMBOL_NOT_FOUND_ERROR", message: "marketId 77 does not exist" });
    risk.closeMarket(BTC_PERP, undefined, T0);
    expect(risk.checkOrder(order(1), T0)).toEqual({ error: "TRADING_HALTED_ERROR", message: "BTCRUSDPERP is closed" });
  });

  it("keeps the rate tier for the gateway", () => {
    const risk = accountsVenue();
    risk.updateWallet(wallet(2), { rateTier: 2 });
    expect(risk.walletFlags(wallet(2)).rateTier).toBe(2);
  });
});

describe("deposits", () => {
  it("refuses deposits of an asset in WITHDRAWAL_ONLY status, but not withdrawals", () => {
    const risk = accountsVenue();
    risk.deposit(1, "BTC", "0.5", T0);
    risk.setAssetStatus("BTC", "WITHDRAWAL_ONLY");
    expect(risk.deposit(1, "BTC", "0.1", T0)).toEqual({
      ok: false,
      rejection: { error: "INPUT_VALIDATION_ERROR", message: 'asset "BTC" is WITHDRAWAL_ONLY: deposits are not accepted' },
    });
    expect(risk.withdraw(1, "BTC", "0.5", T0)).toMatchObject({ ok: true });
  });

  it("starts each asset in its configured status", () => {
    const assets = baseConfig().assets.map((asset) => (asset.asset === "ETH" ? { ...asset, status: "WITHDRAWAL_ONLY" as const } : asset));
    const risk = venue({ accounts: 1, config: { assets } });
    expect(risk.deposit(1, "ETH", "1", T0)).toMatchObject({ ok: false, rejection: { error: "INPUT_VALIDATION_ERROR" } });
    expect(risk.deposit(1, "BTC", "1", T0)).toMatchObject({ ok: true });
  });

  it("refuses amounts with more decimals than the asset keeps, and unknown accounts", () => {
    const risk = accountsVenue();
    expect(risk.deposit(1, "RUSD", "1.0000001", T0)).toMatchObject({ ok: false, rejection: { error: "INPUT_VALIDATION_ERROR" } });
    expect(risk.deposit(42, "RUSD", "1", T0)).toMatchObject({ ok: false, rejection: { error: "NO_ACCOUNTS_FOUND_ERROR" } });
    expect(risk.deposit(1, "RUSD", "1e2", T0)).toEqual({
      ok: true,
      ledger: [{ accountId: 1, asset: "RUSD", type: "DEPOSIT", amount: "100", netDepositsAfter: "1100", timestamp: T0 / 1000 }],
    });
  });

  it("keeps realBalance (with PnL and fees) apart from net deposits", () => {
    const risk = accountsVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 10, T0); // fee 0.2
    trade(risk, BTC_PERP, 1, 2, "A", 510_000, 10, T0); // +10 PnL, fee 0.204
    expect(risk.balances(1)).toEqual([{ accountId: 1, asset: "RUSD", realBalance: "1009.596", balanceDEPRECATED: "1000" }]);
  });
});

describe("addresses in any case", () => {
  it("find the same wallet, accounts, tier and signers as their lowercase form", () => {
    const risk = venue({ accounts: 3 });
    risk.createWallet("0xAbCdEf0000000000000000000000000000000001");
    risk.createAccount(9, "0xABCDEF0000000000000000000000000000000001");
    risk.addSigner(1, "0x00000000000000000000000000000000DeaDBeef");
    const known = [wallet(1), wallet(2), "0xabcdef0000000000000000000000000000000001", "0x00000000000000000000000000000000deadbeef", "0x00000000000000000000000000000000000000aa"];
    const cased = fc.tuple(fc.constantFrom(...known), fc.array(fc.boolean(), { minLength: 42, maxLength: 42 })).map(([address, upper]) =>
      [...address].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(""),
    );
    fc.assert(
      fc.property(cased, (address) => {
        const key = address.toLowerCase();
        expect(findWallet(risk.state, address)).toBe(risk.state.wallets.get(key));
        expect(risk.hasWallet(address)).toBe(risk.state.wallets.has(key));
        expect(risk.accountsOf(address)).toEqual(risk.state.wallets.get(key)?.accountIds ?? []);
        expect(risk.rateTierOf(address)).toBe(risk.state.wallets.get(key)?.rateTier);
        for (const accountId of [1, 2, 9]) {
          expect(risk.isSigner(accountId, address)).toBe(risk.state.accounts.get(accountId)!.signers.has(key));
          expect(risk.checkAccess(accountId, address) === null).toBe(risk.state.accounts.get(accountId)!.signers.has(key));
        }
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});
