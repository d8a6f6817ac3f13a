/**
 * The fee reserve of admission and match-time checks is the gross taker fee
 * at the wallet's tier at the time of the check (audit s22 R5), not at the
 * tier of the wallet's last trade: when a wallet's 30-day volume expires it
 * is back on the default tier (rate 0.0004) and its reserve must be that
 * tier's, or an order passes admission that the chain then refuses.
 *
 * By hand: wallet 1 trades 1,000,000 of notional at T0 (tier 1, rate
 * 0.0003) through its account 10, flat afterwards. Its account 1 then buys
 * 1 BTC at the mark 50000: initial requirement 50000 x max(0.1, 1/20) =
 * 5000; with 5015 of margin the reserve decides: 5015 - 15 = 5000 passes
 * (tier 1), 5015 - 20 = 4995 does not (tier 0). On spot, 0.1 BTC at 50000
 * costs 5000 plus a reserve of 1.5 (tier 1) or 2 (tier 0).
 */
import { describe, expect, it } from "vitest";
import { BTC_PERP, BTC_SPOT, HOUR, T0, setPrices, trade, venue, wallet } from "./fixtures.ts";

const DAY = 24 * HOUR;

/** Wallet 1 at tier 1 from T0 (volume 1,000,000 through its account 10, flat after), its account 1 holding `margin` rUSD from `at`. */
function tieredVenue(at: number, margin: string) {
  const risk = venue({ accounts: 3 });
  risk.createAccount(10, wallet(1));
  risk.deposit(10, "RUSD", "1000000", T0);
  risk.deposit(2, "RUSD", "1000000", T0);
  risk.deposit(3, "BTC", "1", T0);
  setPrices(risk, T0);
  trade(risk, BTC_PERP, 10, 2, "B", 500_000, 10_000, T0); // 10 BTC @ 50000
  trade(risk, BTC_PERP, 10, 2, "A", 500_000, 10_000, T0); // flat again: 1,000,000 traded
  setPrices(risk, at);
  risk.deposit(1, "RUSD", margin, at);
  return risk;
}

const perpBuy = { accountId: 1, marketId: BTC_PERP, side: "B", qtyLots: 1_000, priceTicks: 500_000 } as const;
const spotBuy = { accountId: 1, marketId: BTC_SPOT, side: "B", qtyLots: 1_000, priceTicks: 500_000 } as const;

describe("the fee reserve of a check", () => {
  it("is the tier 1 fee while the wallet's 30-day volume holds it there", () => {
    const at = T0 + DAY;
    expect(tieredVenue(at, "5015").checkOrder(perpBuy, at)).toBeNull();
    expect(tieredVenue(at, "5001.5").checkOrder(spotBuy, at)).toBeNull();
  });

  it("is the default tier's fee once that volume has expired, though the wallet has not traded since", () => {
    const at = T0 + 31 * DAY;
    expect(tieredVenue(at, "5015").checkOrder(perpBuy, at)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    expect(tieredVenue(at, "5015.000001").checkOrder(perpBuy, at)).toMatchObject({ error: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR" });
    expect(tieredVenue(at, "5020").checkOrder(perpBuy, at)).toBeNull();
    expect(tieredVenue(at, "5001.5").checkOrder(spotBuy, at)).toMatchObject({ error: "INSUFFICIENT_BALANCE_ERROR" });
    expect(tieredVenue(at, "5002").checkOrder(spotBuy, at)).toBeNull();
  });

  it("at match time rejects a taker whose margin only covers the expired tier's fee", () => {
    const at = T0 + 31 * DAY;
    const fill = { marketId: BTC_PERP, takerAccountId: 1, makerAccountId: 2, takerSide: "B", priceTicks: 500_000, qtyLots: 1_000 } as const;
    expect(tieredVenue(at, "5015").checkFill(fill, at)).toBe("reject-taker");
    expect(tieredVenue(at, "5020").checkFill(fill, at)).toBe("ok");
    expect(tieredVenue(T0 + DAY, "5015").checkFill(fill, T0 + DAY)).toBe("ok");
  });
});
