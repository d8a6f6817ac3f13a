/**
 * Cross margin, hand-computed. BTC perp: initialMarginParameter 0.1,
 * maxLeverage 20 (floor 0.05), liquidationMarginParameter 0.05. ETH perp:
 * initialMarginParameter 0.05, maxLeverage 10 (floor 0.1 wins),
 * liquidationMarginParameter 0.04. Taker fee 0.0004. Marks 50000 and 3000.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { divRound } from "../../src/risk/fixed.ts";
import { unrealizedFunding } from "../../src/risk/margin.ts";
import type { AccountState } from "../../src/risk/state.ts";
import { auditAccountSums } from "../../src/risk/audit.ts";
import { BTC_PERP, ETH_PERP, SECOND, T0, execution, match, setPrices, trade, venue } from "./fixtures.ts";

function marginVenue() {
  const risk = venue({ accounts: 4, poolDeposit: "1000000" });
  risk.deposit(1, "RUSD", "100000", T0);
  risk.deposit(2, "RUSD", "100000", T0);
  setPrices(risk, T0);
  return risk;
}

const buy = (accountId: number, qtyLots: number, priceTicks = 500_000) => ({ accountId, marketId: BTC_PERP, side: "B" as const, qtyLots, priceTicks });
const sell = (accountId: number, qtyLots: number, priceTicks = 500_000) => ({ ...buy(accountId, qtyLots, priceTicks), side: "A" as const });

describe("requirements", () => {
  it("charge |qty| x mark x max(initialMarginParameter, 1/maxLeverage), and liquidationMarginParameter", () => {
    const risk = marginVenue();
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0); // 1 BTC
    expect(risk.margin(1, T0)).toMatchObject({ initialMargin: "5000", liquidationMargin: "2500" });
    trade(risk, ETH_PERP, 1, 2, "B", 300_000, 100, T0); // 1 ETH: 300 (1/10 > 0.05) and 120
    expect(risk.margin(1, T0)).toMatchObject({ initialMargin: "5300", liquidationMargin: "2620", marginBalance: "99978.8" });
    const { kept, recomputed } = auditAccountSums(risk.state.accounts.get(1)!);
    expect(kept).toEqual(recomputed);
  });

  it("values collateral at index x (1 - priceHaircut), the settlement asset at par", () => {
    const risk = marginVenue();
    risk.deposit(3, "BTC", "1", T0);
    expect(risk.margin(3, T0).marginBalance).toBe("45000");
    risk.deposit(3, "ETH", "2", T0);
    expect(risk.margin(3, T0).marginBalance).toBe("49800");
    risk.deposit(3, "RUSD", "0.5", T0);
    risk.setIndexPrice("BTC", "40000", T0 + 1);
    expect(risk.margin(3, T0 + 1).marginBalance).toBe("40800.5");
  });
});

describe("pre-trade initial margin", () => {
  it("refuses an order that would leave the account below initial margin", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    expect(risk.checkOrder(buy(4, 190), T0)).toBeNull(); // 950 required, 1000 - 3.8 fee reserve
    expect(risk.checkOrder(buy(4, 200), T0)).toEqual({
      error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
      message: "order would leave accountId 4 with margin balance \"996\" below its initial margin requirement \"1000\" (admission margin \"1000\" less the order's price loss against the mark \"0\" and its taker fee reserve \"4\")",
    });
  });

  it("counts the loss of buying above (or selling below) the mark", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    // 0.1 @ 55000: loss 500, fee 2.2 -> 497.8 < 500
    expect(risk.checkOrder(buy(4, 100, 550_000), T0)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    expect(risk.checkOrder(sell(4, 100, 550_000), T0)).toBeNull(); // selling above the mark is no loss
    expect(risk.checkOrder(sell(4, 100, 450_000), T0)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
  });

  it("counts resting orders on the same side", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    risk.restOrder({ orderId: "r1", accountId: 4, marketId: BTC_PERP, side: "B", qtyLots: 150, priceTicks: 500_000 });
    expect(risk.margin(4, T0).initialMarginWithOrders).toBe("750");
    expect(risk.checkOrder(buy(4, 50), T0)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" }); // 0.2 -> 1000
    expect(risk.checkOrder(sell(4, 150), T0)).toBeNull(); // exposure stays 0.15
    expect(risk.checkOrder(sell(4, 200), T0)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" }); // 0.2 short side
    expect(risk.removeRestingOrder("r1")).toBe(true);
    expect(risk.removeRestingOrder("r1")).toBe(false);
    expect(risk.checkOrder(buy(4, 50), T0)).toBeNull();
  });

  it("lets an account below initial margin reduce but not grow", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    trade(risk, BTC_PERP, 4, 2, "B", 500_000, 190, T0); // long 0.19, balance 996.2
    const update = risk.setIndexPrice("BTC", "48000", T0 + SECOND);
    risk.setOraclePrice(BTC_PERP, "48000", T0 + SECOND);
    expect(update.liquidation.liquidatedAccountIds).toEqual([]);
    // margin 996.2 - 380 = 616.2; initial 912, liquidation 456
    expect(risk.margin(4, T0 + SECOND)).toMatchObject({ marginBalance: "616.2", initialMargin: "912", liquidationMargin: "456" });
    expect(risk.checkOrder(buy(4, 1, 480_000), T0 + SECOND)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    expect(risk.checkOrder(sell(4, 10, 480_000), T0 + SECOND)).toBeNull();
  });

  it("lets an account below liquidation margin only reduce", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    const pending = match(BTC_PERP, 4, 2, "B", 500_000, 190);
    risk.addPending(pending); // matched, not settled: nothing to liquidate on-chain yet
    const at = T0 + SECOND;
    risk.setIndexPrice("BTC", "47000", at);
    const update = risk.setOraclePrice(BTC_PERP, "47000", at);
    expect(update.liquidation.liquidatedAccountIds).toEqual([]);
    // effective margin 1000 - 3.8 - 570 = 426.2 < 0.19 x 47000 x 0.05 = 446.5
    expect(risk.margin(4, at)).toMatchObject({ marginBalance: "426.2", liquidationMargin: "446.5", settledMarginBalance: "1000" });
    expect(risk.checkOrder(buy(4, 1, 470_000), at)).toEqual({
      error: "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR",
      message: 'accountId 4 margin balance "426.2" is below its liquidation requirement "446.5": only reducing orders are accepted',
    });
    expect(risk.checkOrder(sell(4, 10, 470_000), at)).toBeNull();
    // The chain sees settled state only: buying 0.19 @ 50000 at mark 47000 with 1000 is below initial margin.
    expect(risk.validateMatch(pending, at)).toEqual({ reasonName: "AccountBelowIM", accountId: 4, delta: "-1466.8", shortfall: "466.8" });
  });
});

describe("match-time checks", () => {
  it("cancels a maker that no longer passes, and rejects such a taker", () => {
    const risk = marginVenue();
    risk.deposit(3, "RUSD", "100", T0);
    expect(risk.checkFill(match(BTC_PERP, 2, 3, "A", 500_000, 100), T0)).toBe("cancel-maker");
    expect(risk.checkFill(match(BTC_PERP, 3, 2, "B", 500_000, 100), T0)).toBe("reject-taker");
    expect(risk.checkFill(match(BTC_PERP, 1, 2, "B", 500_000, 100), T0)).toBe("ok");
  });

  it("always lets a fill reduce a position", () => {
    const risk = marginVenue();
    risk.deposit(3, "RUSD", "600", T0);
    trade(risk, BTC_PERP, 3, 2, "B", 500_000, 100, T0); // long 0.1, margin 598 vs 500
    risk.setIndexPrice("BTC", "46000", T0 + 1);
    risk.setOraclePrice(BTC_PERP, "46000", T0 + 1); // margin 198 < 460 initial, > 230? no: liquidation 230 -> liquidated
    expect(risk.positions(3)).toEqual([]);
    risk.deposit(4, "RUSD", "600", T0 + 1);
    trade(risk, BTC_PERP, 4, 2, "B", 460_000, 100, T0 + 1); // long 0.1 @ 46000, margin 598.16 vs 460
    risk.setIndexPrice("BTC", "44000", T0 + 2);
    risk.setOraclePrice(BTC_PERP, "44000", T0 + 2); // margin 398.16 < 440 initial, > 220 liquidation
    expect(risk.checkFill(match(BTC_PERP, 2, 4, "B", 440_000, 50), T0 + 2)).toBe("ok"); // maker 4 sells half
    expect(risk.checkFill(match(BTC_PERP, 2, 4, "A", 440_000, 50), T0 + 2)).toBe("cancel-maker"); // maker 4 would buy more
  });

  it("counts pending matches at match time but not at settlement", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    risk.addPending(match(BTC_PERP, 4, 2, "B", 500_000, 190));
    const more = match(BTC_PERP, 4, 2, "B", 500_000, 100);
    expect(risk.checkFill(more, T0)).toBe("reject-taker"); // 0.29 needs 1450
    expect(risk.validateMatch(more, T0)).toBeNull(); // settled: 0.1 needs 500 of 998
    expect(risk.positionLots(4, BTC_PERP)).toBe(190);
  });

  it("reports the maker first when the chain would refuse a match", () => {
    const risk = marginVenue();
    risk.deposit(3, "RUSD", "1000", T0);
    risk.deposit(4, "RUSD", "10", T0);
    // 3 buys 1 BTC: 1000 - 20 fee vs 5000 required
    expect(risk.validateMatch(match(BTC_PERP, 3, 2, "B", 500_000, 1_000), T0)).toEqual({
      reasonName: "AccountBelowIM",
      accountId: 3,
      delta: "-5020",
      shortfall: "4020",
    });
    expect(risk.validateMatch(match(BTC_PERP, 3, 4, "B", 500_000, 1_000), T0)).toMatchObject({ reasonName: "AccountBelowIM", accountId: 4 });
  });

  it("settles a match applied after its pending hold exactly as if applied directly", () => {
    const direct = marginVenue();
    const held = marginVenue();
    const m = match(BTC_PERP, 1, 2, "B", 500_000, 300);
    held.addPending(m);
    expect(held.margin(1, T0).initialMargin).toBe("1500");
    held.releasePending(m.fillId);
    expect(held.margin(1, T0)).toEqual(direct.margin(1, T0));
    const a = held.applyPerpExecution(execution(m), T0);
    const b = direct.applyPerpExecution({ ...execution(m), sequenceNumber: a.record.sequenceNumber }, T0);
    expect(a).toEqual(b);
    expect(held.margin(1, T0)).toEqual(direct.margin(1, T0));
  });
});

describe("withdrawals and transfers", () => {
  it("keep the balance available and the margin at or above initial", () => {
    const risk = marginVenue();
    risk.deposit(4, "RUSD", "1000", T0);
    trade(risk, BTC_PERP, 4, 2, "B", 500_000, 100, T0); // 0.1 BTC: 500 required, balance 998
    expect(risk.withdraw(4, "RUSD", "2000", T0)).toMatchObject({ ok: false, rejection: { error: "INSUFFICIENT_BALANCE_ERROR" } });
    expect(risk.withdraw(4, "RUSD", "498.000001", T0)).toMatchObject({ ok: false, rejection: { error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" } });
    expect(risk.withdraw(4, "RUSD", "0.0000001", T0)).toMatchObject({ ok: false, rejection: { error: "INPUT_VALIDATION_ERROR" } });
    const done = risk.withdraw(4, "RUSD", "400", T0);
    expect(done).toEqual({
      ok: true,
      ledger: [{ accountId: 4, asset: "RUSD", type: "WITHDRAWAL", amount: "-400", netDepositsAfter: "600", timestamp: T0 / 1000 }],
    });
    const moved = risk.transfer(4, 3, "RUSD", "98", T0);
    expect(moved.ok && moved.ledger.map((entry) => [entry.accountId, entry.type, entry.amount, entry.netDepositsAfter, entry.counterpartyAccountId])).toEqual([
      [4, "TRANSFER_OUT", "-98", "502", 3],
      [3, "TRANSFER_IN", "98", "98", 4],
    ]);
    expect(risk.balances(4)).toEqual([{ accountId: 4, asset: "RUSD", realBalance: "500", balanceDEPRECATED: "502" }]);
  });
});

describe("unrealized funding", () => {
  it("is floor((f0 + f1 x t) / 10^18) at every time asked, in any order, repeats included", () => {
    // The time's bigint is remembered between calls: a stale one would show at the next different time.
    const account = { f0: 0n, f1: 0n } as AccountState;
    const step = fc.record({ f0: fc.bigInt(-(10n ** 60n), 10n ** 60n), f1: fc.oneof(fc.constant(0n), fc.bigInt(-(10n ** 40n), 10n ** 40n)), t: fc.constantFrom(T0, T0 + 1, T0 + SECOND, 0, 7) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        for (const { f0, f1, t } of steps) {
          account.f0 = f0;
          account.f1 = f1;
          expect(unrealizedFunding(account, t)).toBe(divRound(f0 + f1 * BigInt(t), 10n ** 18n, "floor"));
        }
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});
