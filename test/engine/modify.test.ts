import { describe, expect, it } from "vitest";
import { harness, ok, rejected, rowsOf, SEC, summary, T0_SEC } from "./helpers.ts";
import type { Harness } from "./helpers.ts";

/** The order ids of the asks at `priceTicks`, in queue order. */
function queueAt(h: Harness, priceTicks: number, side: "bids" | "asks" = "asks"): string[] {
  return h.engine.dumpState().markets[0]![side].find((level) => level.priceTicks === priceTicks)?.orderIds.slice() ?? [];
}

describe("modifyOrder: queue priority", () => {
  it("keeps the place on a qty decrease at the same price", () => {
    const h = harness();
    const a = h.sell(1, 100, 5);
    const b = h.sell(2, 100, 5);
    const modified = ok(h.modify(a, { qtyLots: 3 }));
    expect(modified.orderId).toBe(a.orderId);
    expect(queueAt(h, 100)).toEqual([a.orderId, b.orderId]);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 100, qtyLots: 8 }]);
    h.buy(3, 100, 3);
    expect(h.rec.fills.map((f) => f.makerOrderId)).toEqual([a.orderId]);
  });

  it("goes to the back on a qty increase", () => {
    const h = harness();
    const a = h.sell(1, 100, 5);
    const b = h.sell(2, 100, 5);
    ok(h.modify(a, { qtyLots: 6 }));
    expect(queueAt(h, 100)).toEqual([b.orderId, a.orderId]);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 100, qtyLots: 11 }]);
  });

  it("goes to the back of the new level on a price change", () => {
    const h = harness();
    const a = h.sell(1, 100, 5);
    const c = h.sell(3, 101, 5);
    ok(h.modify(a, { priceTicks: 101 }));
    expect(queueAt(h, 101)).toEqual([c.orderId, a.orderId]);
    expect(queueAt(h, 100)).toEqual([]);
  });

  it("keeps the place when only postOnly changes", () => {
    const h = harness();
    const a = h.sell(1, 100, 5);
    const b = h.sell(2, 100, 5);
    const modified = ok(h.modify(a, { postOnly: true }));
    expect(modified.postOnly).toBe(true);
    expect(queueAt(h, 100)).toEqual([a.orderId, b.orderId]);
  });
});

describe("modifyOrder: crossing", () => {
  it("executes at once: FILLED with the fill range in the response, orderId and clientOrderId unchanged", () => {
    const h = harness();
    h.sell(1, 100, 4);
    const bid = h.buy(2, 98, 4, { clientOrderId: "77" });
    h.clear();
    const modified = ok(h.modify(bid, { priceTicks: 100 }));
    expect(summary(modified)).toEqual({
      orderId: bid.orderId,
      status: "FILLED",
      qtyLots: 4,
      cumLots: 4,
      execLots: 4,
      firstFillId: "1000000000",
      fillCount: 1,
      cancelReason: null,
    });
    expect(modified.clientOrderId).toBe("77");
    expect(h.rec.fills[0]).toMatchObject({ takerOrderId: bid.orderId, priceTicks: 100, qtyLots: 4 });
    expect(h.engine.order(bid.orderId)).toBeUndefined();
  });

  it("rests the remainder after a partial fill (OPEN), and cumQty covers the lifetime", () => {
    const h = harness();
    h.sell(1, 100, 2);
    const bid = h.buy(2, 98, 6);
    h.sell(3, 98, 1); // bid cum 1
    const modified = ok(h.modify(bid, { priceTicks: 100 }));
    expect(modified.status).toBe("OPEN");
    expect(modified.cumLots).toBe(3);
    expect(modified.execLots).toBe(2);
    expect(ok(h.engine.depth(1)).bids).toEqual([{ priceTicks: 100, qtyLots: 3 }]);
  });

  it("rejects a post-only modify that would cross, leaving the resting order exactly as it was", () => {
    const h = harness();
    h.sell(1, 100, 2);
    const bid = h.buy(2, 98, 6, { postOnly: true });
    const before = h.engine.dumpState();
    h.clear();
    const error = rejected(h.modify(bid, { priceTicks: 100, qtyLots: 9 }));
    expect(error.code).toBe("POST_ONLY_WOULD_CROSS_ERROR");
    expect(h.engine.dumpState()).toEqual(before);
    expect(h.rec.updates).toEqual([]);
  });

  it("ends CANCELLED by self-trade prevention when it crosses into the account's own order", () => {
    const h = harness();
    const ask = h.sell(1, 100, 2);
    const bid = h.buy(1, 98, 2);
    const modified = ok(h.modify(bid, { priceTicks: 100 }));
    expect(modified.status).toBe("CANCELLED");
    expect(modified.cancelReason).toBe("SELF_TRADE_PREVENTION");
    expect(h.engine.order(bid.orderId)).toBeUndefined();
    expect(h.engine.order(ask.orderId)?.cumLots).toBe(0);
  });

  it("omits execQty in the response of a modify that did not fill", () => {
    const h = harness();
    const bid = h.buy(2, 98, 6);
    const modified = ok(h.modify(bid, { priceTicks: 97 }));
    expect(modified.execLots).toBe(0);
    expect(modified.fillCount).toBe(0);
    expect(modified.firstFillId).toBeNull();
  });
});

describe("modifyOrder: GTT expiry", () => {
  it("moves a LIMIT GTT's expiry", () => {
    const h = harness();
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    ok(h.modify(gtt, { expiresAfterSec: T0_SEC + 20 }));
    h.engine.advanceTo((T0_SEC + 15) * SEC);
    expect(h.engine.order(gtt.orderId)?.status).toBe("OPEN");
    h.engine.advanceTo((T0_SEC + 20) * SEC);
    expect(h.engine.order(gtt.orderId)).toBeUndefined();
    expect(rowsOf(h.rec, gtt.orderId).at(-1)?.cancelReason).toBe("GTT_EXPIRED");
  });

  it("keeps the expiry through a price change", () => {
    const h = harness();
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    ok(h.modify(gtt, { priceTicks: 99 }));
    h.engine.advanceTo((T0_SEC + 10) * SEC);
    expect(h.engine.order(gtt.orderId)).toBeUndefined();
  });

  it("refuses a new expiry that is too soon", () => {
    const h = harness();
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    expect(rejected(h.modify(gtt, { expiresAfterSec: T0_SEC + 2 })).code).toBe("ORDER_EXPIRES_TOO_SOON_ERROR");
  });
});

describe("modifyOrder: lookup and rules", () => {
  it("finds the order by a non-zero clientOrderId when orderId is absent", () => {
    const h = harness();
    const order = h.buy(1, 100, 5, { clientOrderId: "5" });
    const modified = ok(
      h.engine.modifyOrder({ atMicros: h.now, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, clientOrderId: "5", isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 100, qtyLots: 4 }),
    );
    expect(modified.orderId).toBe(order.orderId);
    expect(modified.qtyLots).toBe(4);
  });

  it("is EMPTY_MODIFY_ERROR when nothing changes", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    expect(rejected(h.modify(order, {}))).toEqual({ code: "EMPTY_MODIFY_ERROR", message: `the modify changes nothing of order ${order.orderId}` });
  });

  it("is MODIFY_QTY_BELOW_FILLED_ERROR when qty is not above cumQty", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    h.sell(2, 100, 2);
    const error = rejected(h.modify(order, { qtyLots: 2 }));
    expect(error).toEqual({ code: "MODIFY_QTY_BELOW_FILLED_ERROR", message: 'qty "0.002" must be greater than cumQty "0.002"' });
    expect(ok(h.modify(order, { qtyLots: 3 })).qtyLots).toBe(3);
  });

  it("is ORDER_NOT_FOUND_ERROR for an unknown, filled or cancelled order", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    h.sell(2, 100, 5);
    const base = { atMicros: h.now, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, isBuy: true, orderType: "LIMIT" as const, timeInForce: "GTC" as const, priceTicks: 99, qtyLots: 5 };
    expect(rejected(h.engine.modifyOrder({ ...base, orderId: order.orderId })).code).toBe("ORDER_NOT_FOUND_ERROR");
    expect(rejected(h.engine.modifyOrder({ ...base, orderId: "123" })).code).toBe("ORDER_NOT_FOUND_ERROR");
    expect(rejected(h.engine.modifyOrder({ ...base, clientOrderId: "8" })).message).toBe('account 1 has no live order with clientOrderId "8"');
  });

  it("is MODIFY_ORDER_OTHER_ERROR for another account's order or another signer", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    expect(rejected(h.modify(order, { accountId: 2, ownerId: 2, priceTicks: 99 }))).toEqual({
      code: "MODIFY_ORDER_OTHER_ERROR",
      message: `order ${order.orderId} does not belong to account 2`,
    });
    expect(rejected(h.modify(order, { ownerId: 9, priceTicks: 99 })).code).toBe("MODIFY_ORDER_OTHER_ERROR");
  });

  it("is INPUT_VALIDATION_ERROR for the signer's own order named under another of its accounts (accountId is immutable)", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    const before = h.engine.dumpState();
    // Owner 1 signs for accounts 1 and 3; the order is account 1's.
    expect(rejected(h.modify(order, { accountId: 3, ownerId: 1, priceTicks: 99 }))).toEqual({
      code: "INPUT_VALIDATION_ERROR",
      message: `accountId 3 differs from order ${order.orderId}'s 1: it cannot be modified`,
    });
    expect(h.engine.dumpState()).toEqual(before);
  });

  it("is INPUT_VALIDATION_ERROR when an immutable field differs (GTC and GTT cannot be flipped)", () => {
    const h = harness();
    const order = h.buy(1, 100, 5, { clientOrderId: "3" });
    const cases: [Record<string, unknown>, string][] = [
      [{ exchangeId: 2 }, "exchangeId"],
      [{ isBuy: false }, "isBuy"],
      [{ timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }, "timeInForce"],
      [{ clientOrderId: "4" }, "clientOrderId"],
      [{ marketId: 2, qtyLots: 5 }, "symbol"],
      [{ orderType: "STOP_LOSS", triggerTicks: 100, qtyLots: undefined }, "orderType"],
    ];
    for (const [changes, field] of cases) {
      const error = rejected(h.modify(order, { priceTicks: 99, ...changes }));
      expect(error.code, field).toBe("INPUT_VALIDATION_ERROR");
      expect(error.message.startsWith(`${field} `), error.message).toBe(true);
      expect(error.message.endsWith("it cannot be modified"), error.message).toBe(true);
    }
    const withoutClientId = rejected(
      h.engine.modifyOrder({ atMicros: h.now, marketId: 1, exchangeId: 1, accountId: 1, ownerId: 1, orderId: order.orderId, isBuy: true, orderType: "LIMIT", timeInForce: "GTC", priceTicks: 99, qtyLots: 5 }),
    );
    expect(withoutClientId.message).toBe(`clientOrderId null differs from order ${order.orderId}'s "3": it cannot be modified`);
  });

  it("updates open-order accounting and depth", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    ok(h.modify(order, { priceTicks: 90, qtyLots: 8 }));
    expect(h.engine.openOrderFigures(1)).toEqual({ count: 1, notional: expect.anything() });
    expect(h.engine.openOrderFigures(1).notional.toFixed()).toBe("0.36"); // 8 lots x 0.001 x 90 ticks x 0.5
    expect(ok(h.engine.depth(1)).bids).toEqual([{ priceTicks: 90, qtyLots: 8 }]);
  });
});
