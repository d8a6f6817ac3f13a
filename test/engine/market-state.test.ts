import { describe, expect, it } from "vitest";
import { harness, ok, rejected } from "./helpers.ts";

describe("market states", () => {
  it("a halted market rejects creates and modifies with TRADING_HALTED_ERROR, and still cancels", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: true }));
    expect(rejected(h.create({ accountId: 2, isBuy: true, priceTicks: 90 }))).toEqual({ code: "TRADING_HALTED_ERROR", message: "trading in BTCPERP is halted" });
    expect(rejected(h.modify(order, { priceTicks: 99 })).code).toBe("TRADING_HALTED_ERROR");
    expect(h.buy(2, 90, 3, { marketId: 2 }).status).toBe("OPEN"); // the other market trades
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: order.orderId }));
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: false }));
    expect(h.buy(2, 90, 5).status).toBe("OPEN");
  });

  for (const state of ["reopening", "settlementPaused"] as const) {
    it(`while ${state}, orders that would cross are CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR and the others rest`, () => {
      const h = harness();
      h.sell(1, 100, 5);
      const bid = h.buy(2, 95, 5);
      ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, [state]: true }));
      const error = rejected(h.create({ accountId: 3, isBuy: true, priceTicks: 100 }));
      expect(error.code).toBe("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR");
      expect(error.message).toBe(
        state === "reopening"
          ? "BTCPERP is reopening after a halt: orders that would cross are not accepted"
          : "BTCPERP has settlement paused: orders that would cross are not accepted",
      );
      expect(rejected(h.create({ accountId: 3, isBuy: true, priceTicks: 101, timeInForce: "IOC" })).code).toBe("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR");
      expect(rejected(h.modify(bid, { priceTicks: 100 })).code).toBe("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR");
      expect(h.buy(3, 99, 5).status).toBe("OPEN");
      expect(h.buy(4, 99, 5, { timeInForce: "IOC" }).cancelReason).toBe("NO_LIQUIDITY");
      expect(ok(h.modify(bid, { priceTicks: 96 })).status).toBe("OPEN");
      ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, [state]: false }));
      expect(h.buy(3, 100, 5).status).toBe("FILLED");
    });
  }

  it("gives CAPACITY_LIMITED_ERROR when a market's resting orders are at the configured maximum", () => {
    const h = harness({ config: { maxRestingOrdersPerMarket: 2 } });
    h.sell(1, 100, 2);
    h.buy(2, 90, 2);
    expect(rejected(h.create({ accountId: 3, isBuy: true, priceTicks: 91 }))).toEqual({
      code: "CAPACITY_LIMITED_ERROR",
      message: "BTCPERP holds the maximum of 2 resting orders",
    });
    // an order that would fill completely does not rest: it is accepted
    expect(h.buy(3, 100, 2).status).toBe("FILLED");
    // one that would partly fill and rest the remainder is not
    h.sell(1, 100, 2);
    expect(rejected(h.create({ accountId: 4, isBuy: true, priceTicks: 100, qtyLots: 3 })).code).toBe("CAPACITY_LIMITED_ERROR");
    expect(h.buy(4, 100, 1, { timeInForce: "IOC" }).status).toBe("FILLED");
    expect(h.buy(5, 80, 3, { marketId: 2 }).status).toBe("OPEN"); // per market
  });
});
