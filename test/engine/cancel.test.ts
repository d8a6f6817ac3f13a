import { describe, expect, it } from "vitest";
import { ENDED_CLIENT_IDS_PER_ACCOUNT } from "../../src/engine/accounts.ts";
import { harness, ok, rejected, rowsOf, SEC, T0 } from "./helpers.ts";

describe("cancelOrder", () => {
  it("cancels by orderId with USER_CANCEL; the response is CANCELLED with the client id echoed", () => {
    const h = harness();
    const order = h.buy(1, 100, 5, { clientOrderId: "12" });
    h.clear();
    const response = ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: order.orderId }));
    expect(response.status).toBe("CANCELLED");
    expect(response.orderId).toBe(order.orderId);
    expect(response.clientOrderId).toBe("12");
    expect(rowsOf(h.rec, order.orderId).map((u) => [u.status, u.cancelReason, u.onOrderChanges])).toEqual([["CANCELLED", "USER_CANCEL", true]]);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
    expect(h.engine.openOrderFigures(1).count).toBe(0);
  });

  it("cancels by clientOrderId when orderId is absent", () => {
    const h = harness();
    const order = h.buy(1, 100, 5, { clientOrderId: "12" });
    expect(ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId: "12" })).orderId).toBe(order.orderId);
  });

  it("is CANCEL_ORDER_OTHER_ERROR for an unknown, cancelled or filled target, saying which", () => {
    const h = harness();
    const filled = h.buy(1, 100, 5);
    h.sell(2, 100, 5);
    const cancelled = h.buy(1, 90, 5);
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: cancelled.orderId }));
    const cancel = (orderId: string) => rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId }));
    expect(cancel(filled.orderId)).toEqual({ code: "CANCEL_ORDER_OTHER_ERROR", message: `order ${filled.orderId} is already filled` });
    expect(cancel(cancelled.orderId)).toEqual({ code: "CANCEL_ORDER_OTHER_ERROR", message: `order ${cancelled.orderId} is already cancelled` });
    expect(cancel("999")).toEqual({ code: "CANCEL_ORDER_OTHER_ERROR", message: "order 999 is unknown: no open order of account 1 has this id" });
    expect(cancel("not-an-id").code).toBe("CANCEL_ORDER_OTHER_ERROR");
    expect(rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId: "5" })).message).toBe(
      'clientOrderId "5" is unknown: no open order of account 1 has it',
    );
  });

  it("says the same by clientOrderId: filled, cancelled or unknown, naming the order that last had it", () => {
    const h = harness();
    const filled = h.buy(1, 100, 5, { clientOrderId: "7" });
    h.sell(2, 100, 5);
    const cancelled = h.buy(1, 90, 5, { clientOrderId: "8" });
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId: "8" }));
    const cancel = (clientOrderId: string, accountId = 1) => rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId, clientOrderId }));
    expect(cancel("7")).toEqual({ code: "CANCEL_ORDER_OTHER_ERROR", message: `clientOrderId "7" of account 1 is already filled (order ${filled.orderId})` });
    expect(cancel("8")).toEqual({ code: "CANCEL_ORDER_OTHER_ERROR", message: `clientOrderId "8" of account 1 is already cancelled (order ${cancelled.orderId})` });
    // Another account never used these ids.
    expect(cancel("7", 2).message).toBe('clientOrderId "7" is unknown: no open order of account 2 has it');
    // A client id used again: the live order is cancelled; once that ends, the message names the latest order.
    const again = h.buy(1, 80, 5, { clientOrderId: "7" });
    expect(ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId: "7" })).orderId).toBe(again.orderId);
    expect(cancel("7").message).toBe(`clientOrderId "7" of account 1 is already cancelled (order ${again.orderId})`);
  });

  it("remembers the ENDED_CLIENT_IDS_PER_ACCOUNT client ids that ended last; an older one reads as unknown", () => {
    const h = harness();
    const cancelByClientId = (clientOrderId: string) => h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId });
    // The first ended id is used again later, which makes it the latest to end.
    const first = h.buy(1, 100, 1, { clientOrderId: "1" });
    ok(cancelByClientId("1"));
    for (let id = 2; id <= ENDED_CLIENT_IDS_PER_ACCOUNT; id++) {
      h.buy(1, 100, 1, { clientOrderId: String(id) });
      ok(cancelByClientId(String(id)));
    }
    // Exactly at the bound: every id is still remembered.
    expect(rejected(cancelByClientId("1")).message).toBe(`clientOrderId "1" of account 1 is already cancelled (order ${first.orderId})`);
    const reused = h.buy(1, 100, 1, { clientOrderId: "1" });
    ok(cancelByClientId("1"));
    const beyond = h.buy(1, 100, 1, { clientOrderId: "99999" });
    ok(cancelByClientId("99999"));
    // One past the bound: "2" ended longest ago and is forgotten; "1" ended again since, so it stays, naming its latest order.
    expect(rejected(cancelByClientId("2")).message).toBe('clientOrderId "2" is unknown: no open order of account 1 has it');
    expect(rejected(cancelByClientId("3")).message).toMatch(/^clientOrderId "3" of account 1 is already cancelled/);
    expect(rejected(cancelByClientId("1")).message).toBe(`clientOrderId "1" of account 1 is already cancelled (order ${reused.orderId})`);
    expect(rejected(cancelByClientId("99999")).message).toBe(`clientOrderId "99999" of account 1 is already cancelled (order ${beyond.orderId})`);
  });

  it("does not cancel another account's order, nor an order of another market", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    expect(rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 2, orderId: order.orderId })).code).toBe("CANCEL_ORDER_OTHER_ERROR");
    expect(rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 2, accountId: 1, orderId: order.orderId })).message).toBe(
      `order ${order.orderId} is in BTCPERP, not ETHRUSD`,
    );
    expect(h.engine.order(order.orderId)?.status).toBe("OPEN");
  });
});

describe("cancelAll", () => {
  it("cancels every open order of the account in one market, armed stops included, and returns the count", () => {
    const h = harness();
    h.setPosition(1, 1, 10);
    const a = h.buy(1, 100, 5);
    const b = h.sell(1, 110, 5);
    const stop = ok(h.create({ accountId: 1, isBuy: false, orderType: "STOP_LOSS", priceTicks: 95, triggerTicks: 96, qtyLots: undefined }));
    const spot = h.buy(1, 100, 5, { marketId: 2 });
    const other = h.buy(2, 100, 5);
    h.clear();
    expect(ok(h.engine.cancelAll({ atMicros: h.now, accountId: 1, marketId: 1 })).cancelledCount).toBe(3);
    expect(h.rec.updates.map((u) => [u.orderId, u.cancelReason])).toEqual([
      [a.orderId, "MASS_CANCEL"],
      [b.orderId, "MASS_CANCEL"],
      [stop.orderId, "MASS_CANCEL"],
    ]);
    expect(h.engine.order(spot.orderId)?.status).toBe("OPEN");
    expect(h.engine.order(other.orderId)?.status).toBe("OPEN");
  });

  it("cancels across every market when no market is given", () => {
    const h = harness();
    h.buy(1, 100, 5);
    h.buy(1, 100, 5, { marketId: 2 });
    expect(ok(h.engine.cancelAll({ atMicros: h.now, accountId: 1 })).cancelledCount).toBe(2);
    expect(h.engine.openOrders(1)).toEqual([]);
  });

  it("returns 0 when nothing is open", () => {
    const h = harness();
    expect(ok(h.engine.cancelAll({ atMicros: h.now, accountId: 5 })).cancelledCount).toBe(0);
  });
});

describe("cancelAllAfter", () => {
  it("arms one timer per account; when it fires, every open order is cancelled with CANCEL_ALL_AFTER except protective stops", () => {
    const h = harness();
    h.setPosition(1, 1, 10);
    const limit = h.buy(1, 100, 5);
    const spot = h.buy(1, 100, 5, { marketId: 2 });
    const stop = ok(h.create({ accountId: 1, isBuy: false, orderType: "STOP_LOSS", priceTicks: 95, triggerTicks: 96, qtyLots: undefined }));
    const other = h.buy(2, 99, 5);
    const response = ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 1, timeoutMs: 10_000 }));
    expect(response).toEqual({ ok: true, accountId: 1, timeoutMs: 10_000, triggerAtMs: T0 / 1000 + 10_000 });
    h.engine.advanceTo(T0 + 10 * SEC - 1);
    expect(h.engine.order(limit.orderId)?.status).toBe("OPEN");
    h.clear();
    h.engine.advanceTo(T0 + 10 * SEC);
    expect(h.rec.updates.map((u) => [u.orderId, u.cancelReason, u.lastUpdateAtMicros])).toEqual([
      [limit.orderId, "CANCEL_ALL_AFTER", T0 + 10 * SEC],
      [spot.orderId, "CANCEL_ALL_AFTER", T0 + 10 * SEC],
    ]);
    expect(h.engine.order(stop.orderId)?.status).toBe("OPEN");
    expect(h.engine.order(other.orderId)?.status).toBe("OPEN");
    expect(h.engine.cancelAllAfterTriggerAtMicros(1)).toBeNull(); // disarmed by firing
  });

  it("spares a fired stop's resting child", () => {
    const h = harness();
    h.setPosition(1, 1, 4);
    const stop = ok(h.create({ accountId: 1, isBuy: false, orderType: "STOP_LOSS", priceTicks: 95, triggerTicks: 96, qtyLots: undefined }));
    ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: 96 }));
    expect(h.engine.order(stop.orderId)?.triggered).toBe(true);
    ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 1, timeoutMs: 5_000 }));
    h.engine.advanceTo(T0 + 5 * SEC);
    expect(h.engine.order(stop.orderId)?.status).toBe("OPEN");
  });

  it("re-arms with a fresh countdown from the new receipt time", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    ok(h.engine.cancelAllAfter({ atMicros: T0, accountId: 1, timeoutMs: 10_000 }));
    const rearmed = ok(h.engine.cancelAllAfter({ atMicros: T0 + 8 * SEC, accountId: 1, timeoutMs: 5_000 }));
    expect(rearmed.triggerAtMs).toBe(T0 / 1000 + 13_000);
    h.engine.advanceTo(T0 + 12 * SEC);
    expect(h.engine.order(order.orderId)?.status).toBe("OPEN");
    h.engine.advanceTo(T0 + 13 * SEC);
    expect(h.engine.order(order.orderId)).toBeUndefined();
  });


  it("fires at exactly the triggerAt it reported, also for a receipt between two milliseconds", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    const receipt = T0 + 700; // 0.7 ms past a whole millisecond
    const armed = ok(h.engine.cancelAllAfter({ atMicros: receipt, accountId: 1, timeoutMs: 5_000 }));
    expect(armed.triggerAtMs).toBe(Math.floor(receipt / 1000) + 5_000);
    const triggerAtMicros = armed.triggerAtMs! * 1000;
    expect(h.engine.cancelAllAfterTriggerAtMicros(1)).toBe(triggerAtMicros);
    h.engine.advanceTo(triggerAtMicros - 1);
    expect(h.engine.order(order.orderId)?.status).toBe("OPEN");
    h.clear();
    h.engine.advanceTo(triggerAtMicros);
    expect(h.rec.updates.map((u) => [u.orderId, u.cancelReason, u.lastUpdateAtMicros])).toEqual([[order.orderId, "CANCEL_ALL_AFTER", triggerAtMicros]]);
  });
  it("disarms with 0 (no triggerAt)", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    ok(h.engine.cancelAllAfter({ atMicros: T0, accountId: 1, timeoutMs: 10_000 }));
    expect(ok(h.engine.cancelAllAfter({ atMicros: T0 + SEC, accountId: 1, timeoutMs: 0 }))).toEqual({ ok: true, accountId: 1, timeoutMs: 0, triggerAtMs: null });
    h.engine.advanceTo(T0 + 60 * SEC);
    expect(h.engine.order(order.orderId)?.status).toBe("OPEN");
  });

  it("refuses a timeout outside 0 and [5000, 60000] with INPUT_VALIDATION_ERROR", () => {
    const h = harness();
    for (const timeoutMs of [1, 4_999, 60_001, 5_000.5, -5_000]) {
      expect(rejected(h.engine.cancelAllAfter({ atMicros: T0, accountId: 1, timeoutMs }))).toEqual({
        code: "INPUT_VALIDATION_ERROR",
        message: `timeoutMs ${timeoutMs} must be 0 or within [5000, 60000]`,
      });
    }
    expect(ok(h.engine.cancelAllAfter({ atMicros: T0, accountId: 1, timeoutMs: 60_000 })).triggerAtMs).toBe(T0 / 1000 + 60_000);
  });
});

describe("cancelForReason (the exchange's own cancels)", () => {
  it("cancels a live order with the reason it gives", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    ok(h.engine.cancelForReason({ atMicros: h.now, orderId: order.orderId, reason: "RISK_CANCELLED" }));
    expect(rowsOf(h.rec, order.orderId).at(-1)?.cancelReason).toBe("RISK_CANCELLED");
    expect(rejected(h.engine.cancelForReason({ atMicros: h.now, orderId: order.orderId, reason: "RISK_CANCELLED" })).code).toBe("ORDER_NOT_FOUND_ERROR");
  });
});

describe("account queries", () => {
  it("lists the accounts with live orders, per market or overall, and each account's open orders oldest first", () => {
    const h = harness();
    const a = h.buy(3, 100, 5);
    h.buy(1, 100, 5, { marketId: 2 });
    const b = h.sell(3, 110, 5);
    h.sell(2, 120, 5);
    expect(h.engine.accountsWithOpenOrders()).toEqual([1, 2, 3]);
    expect(h.engine.accountsWithOpenOrders(1)).toEqual([2, 3]);
    expect(h.engine.openOrders(3).map((o) => o.orderId)).toEqual([a.orderId, b.orderId]);
    expect(h.engine.openOrders(1, 1)).toEqual([]);
  });
});
