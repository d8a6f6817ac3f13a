/**
 * The texts of an applied execution: each amount is formatted once and
 * shown both in its ledger entry (negated where the entry debits) and in
 * the execution record. Over seeded random trades, with discounts, referrer
 * and pool credits, opening fees and closes: every entry's amount is the
 * canonical text of what moved the balance (the entries of an account sum
 * to its balance change, exactly), and each record field is the formatted
 * amount it names (the fee split recomputed here, the legs' PnL read from
 * the entries).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toE18 } from "../../src/core/decimal.ts";
import { mainAccountOf } from "../../src/risk/accounts.ts";
import { computeTakerFeeSplit } from "../../src/risk/fees.ts";
import { E18, formatMoney, negatedText } from "../../src/risk/fixed.ts";
import type { RiskEngine } from "../../src/risk/risk.ts";
import type { LedgerEntry, PerpExecutionRecord } from "../../src/risk/types.ts";
import { BTC_PERP, POOL, SECOND, T0, setPrices, spotTrade, trade, venue, wallet } from "./fixtures.ts";

function money(text: string): bigint {
  return toE18(text, "amount", { signed: true }) * E18;
}

function settlementBalances(risk: RiskEngine): Map<number, bigint> {
  return new Map([...risk.state.accounts.values()].map((account) => [account.id, account.balances.get("RUSD")?.balance ?? 0n]));
}

/** Every entry is canonical, and each account's entries sum to its balance change. */
function expectEntriesMatchBalances(ledger: readonly LedgerEntry[], before: Map<number, bigint>, after: Map<number, bigint>, asset = "RUSD"): void {
  const moved = new Map<number, bigint>();
  for (const entry of ledger) {
    expect(formatMoney(money(entry.amount))).toBe(entry.amount);
    expect(entry.amount).not.toBe("0");
    if (entry.asset === asset) moved.set(entry.accountId, (moved.get(entry.accountId) ?? 0n) + money(entry.amount));
  }
  for (const [accountId, balance] of after) expect(balance - (before.get(accountId) ?? 0n), `account ${accountId}`).toBe(moved.get(accountId) ?? 0n);
}

function entryAmount(ledger: readonly LedgerEntry[], accountId: number, type: LedgerEntry["type"]): string {
  return ledger.find((entry) => entry.accountId === accountId && entry.type === type)?.amount ?? "0";
}

describe("negatedText", () => {
  it("is formatMoney of the opposite amount", () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 30n), 10n ** 30n), (units) => {
        const amount = units * 10n ** 18n;
        expect(negatedText(formatMoney(amount))).toBe(formatMoney(-amount));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe("perp execution texts", () => {
  it("show each amount as its ledger entry moved it", () => {
    const trades = fc.array(
      fc.record({
        taker: fc.integer({ min: 1, max: 4 }),
        maker: fc.integer({ min: 1, max: 4 }),
        side: fc.constantFrom("B" as const, "A" as const),
        priceTicks: fc.integer({ min: 490_000, max: 510_000 }),
        qtyLots: fc.integer({ min: 1, max: 3_000 }),
        seconds: fc.integer({ min: 0, max: 3_600 }),
      }),
      { minLength: 1, maxLength: 40 },
    );
    fc.assert(
      fc.property(trades, fc.boolean(), fc.boolean(), (steps, og, referee) => {
        const risk = venue({ accounts: 4, poolDeposit: "1000" });
        for (let id = 1; id <= 4; id++) risk.deposit(id, "RUSD", "100000000", T0);
        risk.updateWallet(wallet(1), { og, referee, referrer: wallet(3) });
        risk.updateWallet(wallet(2), { og: !og, referrer: wallet(4) });
        risk.updateWallet(wallet(4), { affiliate: true });
        let now = T0;
        setPrices(risk, now);
        for (const step of steps) {
          if (step.taker === step.maker) continue;
          now += step.seconds * SECOND;
          setPrices(risk, now, (step.priceTicks / 10).toFixed(1));
          const state = risk.state;
          const takerWallet = state.accounts.get(step.taker)!.wallet;
          const before = settlementBalances(risk);
          const { record, ledger } = trade(risk, BTC_PERP, step.taker, step.maker, step.side, step.priceTicks, step.qtyLots, now);
          expectEntriesMatchBalances(ledger, before, settlementBalances(risk));
          // The record's fee parts: the split recomputed without the memo, formatted here.
          const market = state.perps.get(BTC_PERP)!;
          const qty = BigInt(step.qtyLots) * market.lots.step;
          const price = BigInt(step.priceTicks) * market.ticks.step;
          const split = computeTakerFeeSplit(state, takerWallet, takerWallet.tier, qty * price, mainAccountOf(state, takerWallet.referrer), state.accounts.get(POOL));
          const fees: Partial<PerpExecutionRecord> = {
            takerFee: formatMoney(split.takerFee),
            protocolFeeCredit: formatMoney(split.protocolFeeCredit),
            referrerFeeCredit: formatMoney(split.referrerFeeCredit),
            takerRebateCredit: formatMoney(split.takerRebateCredit),
            poolFeeCredit: formatMoney(split.poolFeeCredit),
          };
          expect(record).toMatchObject(fees);
          expect(entryAmount(ledger, step.taker, "PERP_FEE")).toBe(split.takerFee === 0n ? "0" : `-${fees.takerFee}`);
          expect(entryAmount(ledger, step.taker, "PERP_REBATE")).toBe(fees.takerRebateCredit);
          expect(entryAmount(ledger, POOL, "PERP_REBATE")).toBe(fees.poolFeeCredit);
          // The legs' PnL in the record are their entries' amounts.
          for (const [side, accountId] of [
            ["taker", step.taker],
            ["maker", step.maker],
          ] as const) {
            const priceText = record[`${side}PriceVariationPnl`];
            const fundingText = record[`${side}FundingPnl`];
            if (priceText === undefined) {
              expect(entryAmount(ledger, accountId, "REALIZED_PNL")).toBe("0");
              continue;
            }
            expect(entryAmount(ledger, accountId, "REALIZED_PNL")).toBe(priceText);
            expect(entryAmount(ledger, accountId, "FUNDING")).toBe(fundingText);
            expect(record[`${side}RealizedPnl`]).toBe(formatMoney(money(priceText) + money(fundingText!)));
          }
        }
      }),
      { seed: 42, numRuns: 60 },
    );
  });
});

describe("spot execution texts", () => {
  it("show each leg and the fee as the entries moved them", () => {
    fc.assert(
      fc.property(fc.constantFrom("B" as const, "A" as const), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 400_000, max: 600_000 }), fc.boolean(), (side, qtyLots, priceTicks, og) => {
        const risk = venue({ accounts: 2, poolDeposit: "1000" });
        risk.deposit(1, "RUSD", "10000000", T0);
        risk.deposit(2, "RUSD", "10000000", T0);
        risk.deposit(1, "BTC", "10", T0);
        risk.deposit(2, "BTC", "10", T0);
        risk.updateWallet(wallet(1), { og });
        setPrices(risk, T0);
        const balances = (asset: string) => new Map([1, 2].map((id) => [id, risk.state.accounts.get(id)!.balances.get(asset)!.balance]));
        const rusd = balances("RUSD");
        const btc = balances("BTC");
        const { record, ledger } = spotTrade(risk, 1, 2, side, priceTicks, qtyLots, T0);
        expectEntriesMatchBalances(ledger, rusd, balances("RUSD"), "RUSD");
        expectEntriesMatchBalances(ledger, btc, balances("BTC"), "BTC");
        const feeEntry = ledger.filter((entry) => entry.accountId === 1 && entry.asset === "RUSD").at(-1)!;
        expect(record.takerFee === "0" ? undefined : feeEntry.amount).toBe(record.takerFee === "0" ? undefined : `-${record.takerFee}`);
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
