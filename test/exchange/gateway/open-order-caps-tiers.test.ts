/**
 * Open-order caps by tier (spec 8.2, 8.3; issue 3 "Open-order accounting"),
 * through Exchange.handle in signed mode:
 * - tier 3 has no caps: a tier-3 wallet rests more than 100 orders and more
 *   than 5,000 USD of notional (and the same wallet, moved to tier 1, is
 *   refused the next GTC: the figures really are past the tier-1 caps);
 * - tier 1 (100 orders, 5,000 USD): a wallet at its count cap, or at its
 *   notional cap, still has IOC orders accepted (they never rest and never
 *   count, whatever their size), while a GTC or GTT is refused with
 *   OPEN_ORDER_COUNT_EXCEEDED_ERROR / OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR and
 *   changes nothing;
 * - a modify that raises the notional past the cap is refused, one that
 *   lowers it (even while the wallet is above the cap) is accepted.
 *
 * Tier-1 wallets are filled slowly on the virtual clock (2.1 s apart, prices
 * refreshed) so that the spec's rate limit of 30 per 60 s is respected
 * without raising it: the caps and the rate limits stay the defaults.
 */
import { describe, expect, it } from "vitest";
import { Dec } from "../../../src/core/decimal.ts";
import { ETH, World, type Party } from "./harness.ts";

/** The owner's open-order figures in the engine (call only once the party has had an order accepted: ids are assigned on first sight). */
function figures(w: World, party: Party): { count: number; notional: string } {
  const f = w.exchange.engine.openOrderFigures(w.exchange.owners.idOf(party.address));
  return { count: f.count, notional: f.notional.toFixed() };
}

/** Lets the rate window empty and the prices be fresh again. */
function nextMinute(w: World): void {
  w.advance(60_001);
  w.refreshPrices();
}

/** Rests `n` GTC buys of `qty` ETH below the market, paced for a tier-1 wallet (30 per 60 s). Returns their ids. */
function restSlowly(w: World, party: Party, n: number, qty: string, firstPx = 1900): string[] {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    w.refreshPrices();
    ids.push(w.rest(party, { isBuy: true, qty, limitPx: (firstPx - i).toString() }));
    w.advance(2_100);
  }
  return ids;
}

function gtc(w: World, party: Party, qty: string, limitPx: string) {
  return w.create(party, { symbol: ETH, isBuy: true, qty, limitPx, timeInForce: "GTC" });
}

function gtt(w: World, party: Party, qty: string, limitPx: string) {
  const now = w.nowSeconds();
  return w.create(party, { symbol: ETH, isBuy: true, qty, limitPx, timeInForce: "GTT", expiresAfter: now + 3_600, deadline: now + 60 });
}

function ioc(w: World, party: Party, qty: string, limitPx: string) {
  return w.create(party, { symbol: ETH, isBuy: true, qty, limitPx, timeInForce: "IOC" });
}

function modifyBuy(w: World, party: Party, orderId: string, qty: string, limitPx: string) {
  return w.modify(party, { orderId, symbol: ETH, isBuy: true, qty, limitPx, postOnly: false, timeInForce: "GTC" });
}

describe("open-order caps by tier (spec 8.2, 8.3)", () => {
  it("tier 3: a wallet rests 120 orders and over 11,000 USD of notional, none refused", () => {
    const w = new World();
    const tess = w.newParty("tess", 5, 5, { rUSD: "1000000" });
    w.adminOk({ action: "wallet", wallet: tess.address, rateTier: 3 });
    let expected = new Dec(0);
    for (let i = 0; i < 120; i++) {
      const px = (1900 - i).toString();
      // GTC and GTT alike (both rest and count at tier 1)
      const body = i % 3 === 2 ? gtt(w, tess, "0.05", px) : gtc(w, tess, "0.05", px);
      const payload = w.ok("createOrder", body);
      expect(payload["status"], `order ${i}`).toBe("OPEN");
      expected = expected.add(new Dec("0.05").mul(new Dec(px)));
    }
    expect(w.exchange.engine.openOrders(5)).toHaveLength(120);
    expect(figures(w, tess)).toEqual({ count: 120, notional: expected.toFixed() });
    expect(expected.gt(new Dec("5000"))).toBe(true);
    expect(expected.toFixed()).toBe("11043"); // 0.05 x (1900 + ... + 1781)

    // One more big one: 6,000 USD in a single order, still no cap.
    w.ok("createOrder", gtc(w, tess, "4", "1500"));
    expect(figures(w, tess).count).toBe(121);

    // The same wallet at tier 1: its figures are past both caps, so the next GTC is refused (the count first), an IOC is not.
    w.adminOk({ action: "wallet", wallet: tess.address, rateTier: 1 });
    nextMinute(w);
    w.expectRejected("createOrder", gtc(w, tess, "0.001", "1000"), "OPEN_ORDER_COUNT_EXCEEDED_ERROR", [tess.address, "121", "100"]);
    const answer = w.ok("createOrder", ioc(w, tess, "0.001", "1900"));
    expect(answer["status"]).toBe("CANCELLED");
    // And back at tier 3 it rests again.
    w.adminOk({ action: "wallet", wallet: tess.address, rateTier: 3 });
    w.ok("createOrder", gtc(w, tess, "0.001", "1000"));
    expect(figures(w, tess).count).toBe(122);
  });

  it("tier 1 at its count cap: IOC accepted (filled or partly), GTC and GTT refused with OPEN_ORDER_COUNT_EXCEEDED_ERROR", () => {
    const w = new World();
    expect(w.exchange.risk.walletFlags(w.alice.address).rateTier).toBe(1);
    const ids = restSlowly(w, w.alice, 100, "0.001");
    expect(figures(w, w.alice).count).toBe(100);
    nextMinute(w);

    // Liquidity for the IOCs: bob offers 0.01 at 2000.
    w.rest(w.bob, { isBuy: false, qty: "0.01", limitPx: "2000" });

    w.expectRejected("createOrder", gtc(w, w.alice, "0.001", "1000"), "OPEN_ORDER_COUNT_EXCEEDED_ERROR", [w.alice.address, "100"]);
    w.expectRejected("createOrder", gtt(w, w.alice, "0.001", "1000"), "OPEN_ORDER_COUNT_EXCEEDED_ERROR");

    const filled = w.ok("createOrder", ioc(w, w.alice, "0.004", "2000"));
    expect(filled).toMatchObject({ status: "FILLED", cumQty: "0.004" });
    const partial = w.ok("createOrder", ioc(w, w.alice, "0.5", "2000"));
    expect(partial).toMatchObject({ status: "CANCELLED", cumQty: "0.006", cancelReason: "IOC_REMAINDER" });
    const nothing = w.ok("createOrder", ioc(w, w.alice, "0.001", "1990"));
    expect(nothing).toMatchObject({ status: "CANCELLED", cancelReason: "NO_LIQUIDITY" });
    expect(figures(w, w.alice).count).toBe(100);

    // A modify at the count cap that does not add an order is fine.
    w.ok("modifyOrder", modifyBuy(w, w.alice, ids[0]!, "0.001", "1850"));
    expect(figures(w, w.alice).count).toBe(100);

    // Freeing one slot lets exactly one GTC in.
    w.ok("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: ids[1]! }));
    expect(figures(w, w.alice).count).toBe(99);
    w.ok("createOrder", gtc(w, w.alice, "0.001", "1000"));
    w.expectRejected("createOrder", gtc(w, w.alice, "0.001", "1000"), "OPEN_ORDER_COUNT_EXCEEDED_ERROR");
  });

  it("tier 1 at its notional cap: IOC of any size accepted, GTC and GTT refused with OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", () => {
    const w = new World();
    w.rest(w.alice, { isBuy: true, qty: "2", limitPx: "1500" }); // 3,000
    w.rest(w.alice, { isBuy: true, qty: "1", limitPx: "1950" }); // 1,950
    w.rest(w.alice, { isBuy: true, qty: "0.05", limitPx: "1000" }); // 50: exactly 5,000 (the cap is inclusive)
    expect(figures(w, w.alice)).toEqual({ count: 3, notional: "5000" });

    w.rest(w.bob, { isBuy: false, qty: "0.01", limitPx: "2000" });
    w.expectRejected("createOrder", gtc(w, w.alice, "0.001", "1000"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", [w.alice.address, "5001 USD", "5000 USD"]);
    w.expectRejected("createOrder", gtt(w, w.alice, "0.001", "1000"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR");

    // 6,000 USD of IOC on its own, past the cap: accepted, partly filled, nothing rests.
    const partial = w.ok("createOrder", ioc(w, w.alice, "3", "2000"));
    expect(partial).toMatchObject({ status: "CANCELLED", cumQty: "0.01", cancelReason: "IOC_REMAINDER" });
    w.rest(w.bob, { isBuy: false, qty: "0.02", limitPx: "2000" });
    expect(w.ok("createOrder", ioc(w, w.alice, "0.02", "2000"))).toMatchObject({ status: "FILLED" });
    expect(figures(w, w.alice)).toEqual({ count: 3, notional: "5000" });

    // A sell counts as well (notional is qty x limitPx on either side).
    w.expectRejected("createOrder", w.create(w.alice, { symbol: ETH, isBuy: false, qty: "0.001", limitPx: "2500", timeInForce: "GTC" }), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR");
  });

  it("a modify that raises the notional past the cap is refused; one that lowers it is accepted", () => {
    const w = new World();
    const a = w.rest(w.alice, { isBuy: true, qty: "2", limitPx: "1990" }); // 3,980
    const b = w.rest(w.alice, { isBuy: true, qty: "0.5", limitPx: "1980" }); // 990: 4,970 in all
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "4970" });

    // qty 2 -> 2.1: +199 -> 5,169
    w.expectRejected("modifyOrder", modifyBuy(w, w.alice, a, "2.1", "1990"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", ["5169 USD", "5000 USD"]);
    // price 1990 -> 2005.01: +30.02 -> 5,000.02
    w.expectRejected("modifyOrder", modifyBuy(w, w.alice, a, "2", "2005.01"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", ["5000.02 USD"]);
    // price 1990 -> 2005: +30 -> exactly 5,000: accepted
    w.ok("modifyOrder", modifyBuy(w, w.alice, a, "2", "2005"));
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "5000" });
    // at the cap: any raise is refused, a lower qty or price is accepted
    w.expectRejected("modifyOrder", modifyBuy(w, w.alice, b, "0.501", "1980"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR");
    w.ok("modifyOrder", modifyBuy(w, w.alice, b, "0.4", "1980"));
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "4802" });
    w.ok("modifyOrder", modifyBuy(w, w.alice, a, "2", "1900"));
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "4592" });
    // a raise that stays within the cap is accepted
    w.ok("modifyOrder", modifyBuy(w, w.alice, b, "0.6", "1980"));
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "4988" });
  });

  it("a modify that lowers the notional is accepted even above the cap (a wallet moved from tier 3 to tier 1)", () => {
    const w = new World();
    w.adminOk({ action: "wallet", wallet: w.alice.address, rateTier: 3 });
    const a = w.rest(w.alice, { isBuy: true, qty: "3", limitPx: "1900" }); // 5,700
    const b = w.rest(w.alice, { isBuy: true, qty: "1", limitPx: "1800" }); // 1,800
    w.adminOk({ action: "wallet", wallet: w.alice.address, rateTier: 1 });
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "7500" });

    w.expectRejected("modifyOrder", modifyBuy(w, w.alice, a, "3.001", "1900"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", ["7501.9 USD"]);
    w.ok("modifyOrder", modifyBuy(w, w.alice, a, "2.5", "1900")); // -950 -> 6,550, still above
    w.ok("modifyOrder", modifyBuy(w, w.alice, b, "1", "1700")); // -100 -> 6,450
    expect(figures(w, w.alice)).toEqual({ count: 2, notional: "6450" });
    // a raise that would still leave it above the cap is refused
    w.expectRejected("modifyOrder", modifyBuy(w, w.alice, b, "1", "1701"), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR");
  });
});
