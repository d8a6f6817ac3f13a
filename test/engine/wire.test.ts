import { describe, expect, it } from "vitest";
import { Order as OrderSchema } from "../../src/spec/order.ts";
import { CancelAllAfterResponse, CancelOrderResponse, CreateOrderResponse } from "../../src/spec/responses.ts";
import { Depth } from "../../src/spec/depth.ts";
import { cancelAllAfterResponse, cancelResponse, depthMessage, openOrderRow, orderEventRow, orderHistoryRow, orderResponse } from "../../src/engine/wire.ts";
import { harness, ok, rowsOf, T0, T0_SEC } from "./helpers.ts";

describe("Order rows on the wire (spec 2.12)", () => {
  it("formats a resting order's event row with canonical decimals, ms times and the fields of its variant", () => {
    const h = harness();
    h.now = T0 + 1_234_567;
    const order = h.buy(7, 101, 2500, { clientOrderId: "99", exchangeId: 1, postOnly: true });
    expect(orderEventRow(order)).toEqual({
      exchangeId: 1,
      symbol: "BTCPERP",
      accountId: 7,
      orderId: order.orderId,
      sequenceNumber: 1,
      clientOrderId: "99",
      qty: "2.5",
      cumQty: "0",
      side: "B",
      limitPx: "50.5",
      orderType: "LIMIT",
      triggered: false,
      timeInForce: "GTC",
      reduceOnly: false,
      postOnly: true,
      status: "OPEN",
      createdAt: T0 / 1000 + 1234,
      lastUpdateAt: T0 / 1000 + 1234,
    });
  });

  it("puts sequenceNumber on event and history rows, never on open-order snapshots; triggered never on history", () => {
    const h = harness();
    const order = h.sell(1, 100, 5);
    const event = orderEventRow(order);
    const history = orderHistoryRow(order);
    const snapshot = openOrderRow(h.engine.order(order.orderId)!);
    expect(event.sequenceNumber).toBe(1);
    expect(history.sequenceNumber).toBe(1);
    expect("sequenceNumber" in snapshot).toBe(false);
    expect(event.triggered).toBe(false);
    expect(snapshot.triggered).toBe(false);
    expect("triggered" in history).toBe(false);
  });

  it("puts firstFillId, fillCount and execQty only on fill updates", () => {
    const h = harness();
    const maker = h.sell(1, 100, 5);
    const taker = h.buy(2, 100, 2, { timeInForce: "IOC" });
    const makerRows = rowsOf(h.rec, maker.orderId).map(orderEventRow);
    expect(makerRows[0]).not.toHaveProperty("firstFillId");
    expect(makerRows[0]).not.toHaveProperty("fillCount");
    expect(makerRows[0]).not.toHaveProperty("execQty");
    expect(makerRows[1]).toMatchObject({ execQty: "0.002", cumQty: "0.002", firstFillId: "1000000000", fillCount: 1 });
    expect(orderHistoryRow(taker)).toMatchObject({ status: "FILLED", execQty: "0.002", firstFillId: "1000000000", fillCount: 1 });
    expect(openOrderRow(h.engine.order(maker.orderId)!)).not.toHaveProperty("firstFillId");
  });

  it("omits clientOrderId when none was given, expiresAfter unless GTT, cancelReason unless CANCELLED", () => {
    const h = harness();
    const plain = h.buy(1, 100, 5);
    const gtt = h.buy(2, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 });
    const ioc = h.buy(3, 90, 5, { timeInForce: "IOC" });
    const row = orderEventRow(plain);
    expect(row).not.toHaveProperty("clientOrderId");
    expect(row).not.toHaveProperty("expiresAfter");
    expect(row).not.toHaveProperty("cancelReason");
    expect(row).not.toHaveProperty("cancelReasonMessage");
    expect(row).not.toHaveProperty("triggerPx");
    expect(orderEventRow(gtt).expiresAfter).toBe(T0_SEC + 60);
    expect(orderEventRow(ioc)).toMatchObject({ status: "CANCELLED", cancelReason: "NO_LIQUIDITY", cancelReasonMessage: "IOC order found nothing to match" });
  });

  it("conforms to the spec's Order schema in every variant", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    h.sell(2, 100, 5, { clientOrderId: "1" });
    h.buy(3, 100, 2, { timeInForce: "IOC" });
    ok(h.create({ accountId: 1, isBuy: false, orderType: "TAKE_PROFIT", priceTicks: 1190, triggerTicks: 1200, qtyLots: undefined, timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }));
    ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: 1200 }));
    for (const update of h.rec.updates) {
      expect(() => OrderSchema.parse(orderEventRow(update))).not.toThrow();
      expect(() => OrderSchema.parse(orderHistoryRow(update))).not.toThrow();
    }
    for (const order of [...h.engine.openOrders(1), ...h.engine.openOrders(2)]) {
      expect(() => OrderSchema.parse(openOrderRow(order))).not.toThrow();
    }
  });
});

describe("responses and depth on the wire", () => {
  it("formats create, cancel and cancelAllAfter responses (spec 4.2)", () => {
    const h = harness();
    h.sell(1, 100, 3);
    const filled = h.buy(2, 100, 5, { timeInForce: "IOC", clientOrderId: "4" });
    const wire = orderResponse(filled, h.engine.market(1)!);
    expect(wire).toEqual({
      status: "CANCELLED",
      orderId: filled.orderId,
      execQty: "0.003",
      cumQty: "0.003",
      clientOrderId: "4",
      cancelReason: "IOC_REMAINDER",
      cancelReasonMessage: "IOC order remainder cancelled after a partial fill",
      firstFillId: "1000000000",
      fillCount: 1,
    });
    expect(CreateOrderResponse.parse(wire)).toEqual(wire);
    const resting = h.buy(3, 90, 5);
    expect(orderResponse(resting, h.engine.market(1)!)).toEqual({ status: "OPEN", orderId: resting.orderId, cumQty: "0" });
    const cancelled = ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 3, orderId: resting.orderId }));
    expect(CancelOrderResponse.parse(cancelResponse(cancelled))).toEqual({ status: "CANCELLED", orderId: resting.orderId });
    const armed = cancelAllAfterResponse(ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 3, timeoutMs: 5_000 })));
    expect(CancelAllAfterResponse.parse(armed)).toEqual({ accountId: 3, timeoutMs: 5_000, triggerAt: T0 / 1000 + 5_000 });
    expect(cancelAllAfterResponse(ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 3, timeoutMs: 0 })))).toEqual({ accountId: 3, timeoutMs: 0 });
  });

  it("formats depth messages that conform to the spec's Depth schema", () => {
    const h = harness();
    h.buy(1, 99, 2);
    const depth = ok(h.engine.depth(1));
    expect(Depth.parse(depthMessage(h.engine.market(1)!, depth, "SNAPSHOT"))).toBeDefined();
  });
});
