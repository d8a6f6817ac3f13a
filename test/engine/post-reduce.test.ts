import { describe, expect, it } from "vitest";
import { harness, ok, rejected, rowsOf, T0_SEC } from "./helpers.ts";

describe("postOnly", () => {
  it("rejects a buy that would cross or touch the best ask, before any fill, and changes nothing", () => {
    const h = harness();
    h.sell(1, 101, 5);
    h.sell(2, 100, 5);
    const before = h.engine.dumpState();
    h.clear();
    for (const priceTicks of [100, 101, 105]) {
      const error = rejected(h.create({ accountId: 3, isBuy: true, priceTicks, postOnly: true }));
      expect(error.code).toBe("POST_ONLY_WOULD_CROSS_ERROR");
    }
    expect(rejected(h.create({ accountId: 3, isBuy: true, priceTicks: 100, postOnly: true })).message).toBe(
      'post-only buy at limitPx "50" would cross the best opposite price',
    );
    expect(h.rec.updates).toEqual([]);
    expect(h.rec.fills).toEqual([]);
    expect(h.engine.dumpState()).toEqual(before);
  });

  it("rests a buy below the best ask, and a sell above the best bid (GTC and GTT)", () => {
    const h = harness();
    h.sell(1, 100, 5);
    h.buy(2, 90, 5);
    expect(h.buy(3, 99, 5, { postOnly: true }).status).toBe("OPEN");
    expect(h.sell(4, 100, 5, { postOnly: true, timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }).status).toBe("OPEN");
    expect(rejected(h.create({ accountId: 5, isBuy: false, priceTicks: 99, postOnly: true })).code).toBe("POST_ONLY_WOULD_CROSS_ERROR");
    expect(h.engine.order(ok(h.create({ accountId: 6, isBuy: true, priceTicks: 95, postOnly: true })).orderId)?.postOnly).toBe(true);
  });

  it("is INPUT_VALIDATION_ERROR with IOC", () => {
    const h = harness();
    const error = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 90, postOnly: true, timeInForce: "IOC" }));
    expect(error).toEqual({ code: "INPUT_VALIDATION_ERROR", message: "postOnly is not allowed with timeInForce IOC" });
  });
});

describe("reduceOnly (perp IOC)", () => {
  it("is cut to the position size, and the row shows the cut quantity", () => {
    const h = harness();
    h.setPosition(1, 1, 4); // long 4 lots
    h.buy(2, 100, 10);
    const order = ok(h.create({ accountId: 1, isBuy: false, priceTicks: 100, qtyLots: 10, timeInForce: "IOC", reduceOnly: true }));
    expect(order.qtyLots).toBe(4);
    expect(order.cumLots).toBe(4);
    expect(order.status).toBe("FILLED");
    expect(h.rec.fills.at(-1)).toMatchObject({ qtyLots: 4, takerReduceOnly: true, makerReduceOnly: false });
    expect(rowsOf(h.rec, order.orderId)[0]!.qtyLots).toBe(4);
  });

  it("keeps a smaller order whole", () => {
    const h = harness();
    h.setPosition(1, 1, -8); // short 8: a buy reduces
    h.sell(2, 100, 10);
    const order = ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 3, timeInForce: "IOC", reduceOnly: true }));
    expect(order.qtyLots).toBe(3);
    expect(order.status).toBe("FILLED");
  });

  it("is REDUCE_ONLY_CONDITION_NOT_MET_ERROR with no position or a position on the same side", () => {
    const h = harness();
    const flat = rejected(h.create({ accountId: 1, isBuy: false, priceTicks: 100, timeInForce: "IOC", reduceOnly: true }));
    expect(flat).toEqual({ code: "REDUCE_ONLY_CONDITION_NOT_MET_ERROR", message: "a reduce-only order needs a long position of account 1 in BTCPERP" });
    h.setPosition(1, 1, -3);
    expect(rejected(h.create({ accountId: 1, isBuy: false, priceTicks: 100, timeInForce: "IOC", reduceOnly: true })).code).toBe(
      "REDUCE_ONLY_CONDITION_NOT_MET_ERROR",
    );
    expect(h.engine.dumpState().ordersIssued).toBe(0);
  });

  it("is INPUT_VALIDATION_ERROR on GTC, GTT and spot", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    expect(rejected(h.create({ accountId: 1, isBuy: false, priceTicks: 100, reduceOnly: true })).message).toBe(
      "reduceOnly is supported only for perp IOC orders, not perp GTC",
    );
    expect(rejected(h.create({ accountId: 1, isBuy: false, priceTicks: 100, reduceOnly: true, timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 })).code).toBe(
      "INPUT_VALIDATION_ERROR",
    );
    expect(rejected(h.create({ accountId: 1, isBuy: false, priceTicks: 100, reduceOnly: true, timeInForce: "IOC", marketId: 2 })).message).toBe(
      "reduceOnly is supported only for perp IOC orders, not spot IOC",
    );
  });
});
