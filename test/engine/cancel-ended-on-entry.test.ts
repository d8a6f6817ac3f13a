/**
 * A cancel by the client id of an order that ended in the create that made
 * it (an IOC, a create filled or stopped on entry) says filled or cancelled,
 * as for an order that rested first (issue #3: "a message saying which").
 */
import { describe, expect, it } from "vitest";
import { harness, ok, rejected } from "./helpers.ts";

describe("cancelOrder by the clientOrderId of an order that ended in its own create (issue #3: 'a message saying which')", () => {
  const cancelByClientId = (h: ReturnType<typeof harness>, clientOrderId: string) =>
    rejected(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId }));

  it("says 'already filled' for a GTC that filled completely on entry, naming the order", () => {
    const h = harness();
    h.sell(2, 100, 5);
    const filled = h.buy(1, 100, 5, { clientOrderId: "7" });
    expect(filled.status).toBe("FILLED");
    expect(cancelByClientId(h, "7")).toEqual({
      code: "CANCEL_ORDER_OTHER_ERROR",
      message: `clientOrderId "7" of account 1 is already filled (order ${filled.orderId})`,
    });
  });

  it("says 'already cancelled' for an IOC that found nothing, and for a create stopped by self-trade prevention", () => {
    const h = harness();
    const ioc = ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 5, timeInForce: "IOC", clientOrderId: "8" }));
    expect([ioc.status, ioc.cancelReason]).toEqual(["CANCELLED", "NO_LIQUIDITY"]);
    expect(cancelByClientId(h, "8")).toEqual({
      code: "CANCEL_ORDER_OTHER_ERROR",
      message: `clientOrderId "8" of account 1 is already cancelled (order ${ioc.orderId})`,
    });

    h.sell(1, 110, 5);
    const stopped = h.buy(1, 110, 5, { clientOrderId: "9" });
    expect([stopped.status, stopped.cancelReason]).toEqual(["CANCELLED", "SELF_TRADE_PREVENTION"]);
    expect(cancelByClientId(h, "9").message).toBe(`clientOrderId "9" of account 1 is already cancelled (order ${stopped.orderId})`);
    // The id stays free for a new order (retries are not de-duplicated).
    expect(h.buy(1, 90, 5, { clientOrderId: "9" }).status).toBe("OPEN");
  });
});
