import { describe, expect, it } from "vitest";
import { harness, ok, rejected, rowsOf, SEC, summary, T0, T0_SEC } from "./helpers.ts";

describe("LIMIT GTC", () => {
  it("rests when it does not cross, with an orderId from the configured first id", () => {
    const h = harness();
    const order = h.buy(1, 100, 5);
    expect(order.status).toBe("OPEN");
    expect(order.orderId).toBe("63552420354981888");
    expect(order.cumLots).toBe(0);
    expect(order.fillCount).toBe(0);
    const depth = ok(h.engine.depth(1));
    expect(depth.bids).toEqual([{ priceTicks: 100, qtyLots: 5 }]);
    expect(depth.asks).toEqual([]);
  });

  it("fills at the makers' prices, best price first and FIFO within a price, and rests the remainder", () => {
    const h = harness();
    const a = h.sell(1, 101, 3); // same price as b, earlier: fills first
    const b = h.sell(2, 101, 4);
    const c = h.sell(3, 100, 2); // best price
    const d = h.sell(4, 103, 9); // beyond the limit
    h.clear();
    const taker = h.buy(5, 102, 8);
    expect(h.rec.fills.map((f) => [f.makerOrderId, f.priceTicks, f.qtyLots])).toEqual([
      [c.orderId, 100, 2],
      [a.orderId, 101, 3],
      [b.orderId, 101, 3],
    ]);
    expect(summary(taker)).toEqual({
      orderId: taker.orderId,
      status: "FILLED",
      qtyLots: 8,
      cumLots: 8,
      execLots: 8,
      firstFillId: "1000000000",
      fillCount: 3,
      cancelReason: null,
    });
    const depth = ok(h.engine.depth(1));
    expect(depth.asks).toEqual([
      { priceTicks: 101, qtyLots: 1 },
      { priceTicks: 103, qtyLots: 9 },
    ]);
    expect(h.engine.order(b.orderId)?.cumLots).toBe(3);
    expect(h.engine.order(d.orderId)?.cumLots).toBe(0);
  });

  it("rests the remainder after a partial fill, at its own limit", () => {
    const h = harness();
    h.sell(1, 100, 3);
    const taker = h.buy(2, 101, 10);
    expect(taker.status).toBe("OPEN");
    expect(taker.cumLots).toBe(3);
    expect(taker.execLots).toBe(3);
    expect(taker.fillCount).toBe(1);
    expect(ok(h.engine.depth(1)).bids).toEqual([{ priceTicks: 101, qtyLots: 7 }]);
    expect(ok(h.engine.depth(1)).asks).toEqual([]);
  });

  it("a sell taker walks the bids from the highest down", () => {
    const h = harness();
    h.buy(1, 98, 2);
    h.buy(2, 99, 2);
    h.buy(3, 97, 2);
    h.clear();
    h.sell(4, 98, 5);
    expect(h.rec.fills.map((f) => [f.priceTicks, f.qtyLots, f.takerSide])).toEqual([
      [99, 2, "A"],
      [98, 2, "A"],
    ]);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 98, qtyLots: 1 }]);
    expect(ok(h.engine.depth(1)).bids).toEqual([{ priceTicks: 97, qtyLots: 2 }]);
  });
});

describe("fills and order rows", () => {
  it("gives each match one fill id from one counter, and the taker row the contiguous range", () => {
    const h = harness();
    h.sell(1, 100, 1);
    h.sell(2, 100, 1);
    const first = h.buy(3, 100, 2);
    h.sell(4, 105, 3, { marketId: 2 });
    const second = h.buy(5, 105, 3, { marketId: 2 });
    expect(first.firstFillId).toBe("1000000000");
    expect(first.fillCount).toBe(2);
    expect(second.firstFillId).toBe("1000000002");
    expect(h.rec.fills.map((f) => f.fillId)).toEqual(["1000000000", "1000000001", "1000000002"]);
  });

  it("gives a maker row its single fill, execQty of this update and cumQty of the lifetime", () => {
    const h = harness();
    const maker = h.sell(1, 100, 10);
    h.buy(2, 100, 3);
    h.buy(3, 100, 4);
    const makerRows = rowsOf(h.rec, maker.orderId).map(summary);
    expect(makerRows).toEqual([
      { orderId: maker.orderId, status: "OPEN", qtyLots: 10, cumLots: 0, execLots: 0, firstFillId: null, fillCount: 0, cancelReason: null },
      { orderId: maker.orderId, status: "OPEN", qtyLots: 10, cumLots: 3, execLots: 3, firstFillId: "1000000000", fillCount: 1, cancelReason: null },
      { orderId: maker.orderId, status: "OPEN", qtyLots: 10, cumLots: 7, execLots: 4, firstFillId: "1000000001", fillCount: 1, cancelReason: null },
    ]);
  });

  it("numbers every order event with a strictly increasing sequence number, maker rows before the taker's", () => {
    const h = harness();
    const maker = h.sell(1, 100, 1);
    const taker = h.buy(2, 100, 1);
    expect(h.rec.updates.map((u) => [u.orderId, u.sequenceNumber, u.status])).toEqual([
      [maker.orderId, 1, "OPEN"],
      [maker.orderId, 2, "FILLED"],
      [taker.orderId, 3, "FILLED"],
    ]);
  });

  it("emits a fill before the maker's row, with everything settlement needs", () => {
    const h = harness();
    const maker = h.sell(1, 100, 2, { ownerId: 11 });
    h.clear();
    const taker = h.buy(2, 100, 5, { ownerId: 22 });
    expect(h.rec.fills).toEqual([
      expect.objectContaining({
        fillId: "1000000000",
        marketId: 1,
        atMicros: T0,
        priceTicks: 100,
        qtyLots: 2,
        takerSide: "B",
        takerAccountId: 2,
        takerOrderId: taker.orderId,
        takerOwnerId: 22,
        takerReduceOnly: false,
        takerFilled: false,
        makerAccountId: 1,
        makerOrderId: maker.orderId,
        makerOwnerId: 11,
        makerReduceOnly: false,
        makerFilled: true,
      }),
    ]);
  });

  it("marks the fill that completes the taker", () => {
    const h = harness();
    h.sell(1, 100, 2);
    h.sell(2, 100, 2);
    h.buy(3, 100, 3);
    expect(h.rec.fills.map((f) => [f.takerFilled, f.makerFilled])).toEqual([
      [false, true],
      [true, false],
    ]);
  });

  it("reports a depth change once per command and market, at the command's time", () => {
    const h = harness();
    h.sell(1, 100, 2);
    h.now = T0 + 5;
    h.buy(2, 100, 1);
    h.create({ accountId: 3, isBuy: true, priceTicks: 90, qtyLots: 3, marketId: 2 });
    expect(h.rec.depth).toEqual([
      { marketId: 1, atMicros: T0 },
      { marketId: 1, atMicros: T0 + 5 },
      { marketId: 2, atMicros: T0 + 5 },
    ]);
    expect(ok(h.engine.depth(1)).updatedAtMicros).toBe(T0 + 5);
  });
});

describe("LIMIT IOC", () => {
  it("fills completely: FILLED, and never rests", () => {
    const h = harness();
    h.sell(1, 100, 5);
    const ioc = h.buy(2, 100, 5, { timeInForce: "IOC" });
    expect(ioc.status).toBe("FILLED");
    expect(ioc.cumLots).toBe(5);
    expect(ok(h.engine.depth(1)).asks).toEqual([]);
    expect(h.engine.order(ioc.orderId)).toBeUndefined();
  });

  it("is CANCELLED with NO_LIQUIDITY when nothing crossed, with an orderId assigned", () => {
    const h = harness();
    h.sell(1, 101, 5);
    const ioc = h.buy(2, 100, 5, { timeInForce: "IOC" });
    expect(ioc.status).toBe("CANCELLED");
    expect(ioc.cancelReason).toBe("NO_LIQUIDITY");
    expect(ioc.orderId).toBe("63552420354981889");
    expect(ioc.fillCount).toBe(0);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
  });

  it("is CANCELLED with IOC_REMAINDER after a partial fill, and the fills stand", () => {
    const h = harness();
    const maker = h.sell(1, 100, 3);
    const ioc = h.buy(2, 102, 5, { timeInForce: "IOC" });
    expect(summary(ioc)).toEqual({
      orderId: ioc.orderId,
      status: "CANCELLED",
      qtyLots: 5,
      cumLots: 3,
      execLots: 3,
      firstFillId: "1000000000",
      fillCount: 1,
      cancelReason: "IOC_REMAINDER",
    });
    expect(h.rec.fills).toHaveLength(1);
    expect(h.engine.order(maker.orderId)).toBeUndefined();
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
  });

  it("has one row, kept for history but not published on orderChanges", () => {
    const h = harness();
    h.sell(1, 100, 3);
    h.clear();
    const ioc = h.buy(2, 100, 5, { timeInForce: "IOC" });
    const rows = rowsOf(h.rec, ioc.orderId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.onOrderChanges).toBe(false);
    expect(rows[0]!.status).toBe("CANCELLED");
    // the maker's row is published
    expect(h.rec.updates.filter((u) => u.orderId !== ioc.orderId).every((u) => u.onOrderChanges)).toBe(true);
    // the response is the taker's row
    expect(ioc).toBe(rows[0]);
  });
});

describe("LIMIT GTT", () => {
  const expiresAfterSec = T0_SEC + 60;

  it("rests until expiresAfter, then is CANCELLED with GTT_EXPIRED at exactly that time", () => {
    const h = harness();
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec, deadlineSec: T0_SEC + 10 });
    expect(gtt.status).toBe("OPEN");
    h.engine.advanceTo(expiresAfterSec * SEC - 1);
    expect(h.engine.order(gtt.orderId)?.status).toBe("OPEN");
    h.engine.advanceTo(expiresAfterSec * SEC);
    expect(h.engine.order(gtt.orderId)).toBeUndefined();
    const last = rowsOf(h.rec, gtt.orderId).at(-1)!;
    expect(last.status).toBe("CANCELLED");
    expect(last.cancelReason).toBe("GTT_EXPIRED");
    expect(last.lastUpdateAtMicros).toBe(expiresAfterSec * SEC);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
  });

  it("expires before a command handled at the same time", () => {
    const h = harness();
    const gtt = h.sell(1, 100, 5, { timeInForce: "GTT", expiresAfterSec });
    h.now = expiresAfterSec * SEC;
    const taker = h.buy(2, 100, 5, { timeInForce: "IOC" });
    expect(taker.cancelReason).toBe("NO_LIQUIDITY");
    expect(h.engine.order(gtt.orderId)).toBeUndefined();
  });

  it("does not expire once it has been filled", () => {
    const h = harness();
    const gtt = h.sell(1, 100, 5, { timeInForce: "GTT", expiresAfterSec });
    h.buy(2, 100, 5);
    h.clear();
    h.engine.advanceTo(expiresAfterSec * SEC + 1);
    expect(rowsOf(h.rec, gtt.orderId)).toEqual([]);
  });

  it("refuses an expiry not after the deadline (INPUT_VALIDATION_ERROR)", () => {
    const h = harness();
    const error = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: T0_SEC + 60, deadlineSec: T0_SEC + 60 }));
    expect(error.code).toBe("INPUT_VALIDATION_ERROR");
    expect(error.message).toBe("expiresAfter 1700000060 must be greater than deadline 1700000060");
  });

  it("refuses an expiry closer than the minimum lifetime (ORDER_EXPIRES_TOO_SOON_ERROR), configurable", () => {
    const h = harness();
    const tooSoon = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: T0_SEC + 4 }));
    expect(tooSoon.code).toBe("ORDER_EXPIRES_TOO_SOON_ERROR");
    expect(tooSoon.message).toBe("expiresAfter leaves 4 s, less than the minimum lifetime of 5 s");
    expect(ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: T0_SEC + 5 })).status).toBe("OPEN");
    const strict = harness({ config: { minGttLifetimeMicros: 30 * SEC } });
    expect(rejected(strict.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: T0_SEC + 29 })).code).toBe(
      "ORDER_EXPIRES_TOO_SOON_ERROR",
    );
  });

  it("requires expiresAfter for GTT and refuses it for GTC and IOC", () => {
    const h = harness();
    expect(rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "GTT" })).message).toBe("expiresAfter is required for timeInForce GTT");
    expect(rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, expiresAfterSec })).message).toBe("expiresAfter must be omitted for timeInForce GTC");
    expect(rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, timeInForce: "IOC", expiresAfterSec })).code).toBe("INPUT_VALIDATION_ERROR");
  });
});

describe("clientOrderId", () => {
  it("refuses a value used by a live order of the same account, and allows it again once that order is gone", () => {
    const h = harness();
    const first = h.buy(1, 100, 5, { clientOrderId: "42" });
    expect(first.clientOrderId).toBe("42");
    const duplicate = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 99, clientOrderId: "42" }));
    expect(duplicate.code).toBe("DUPLICATE_CLIENT_ORDER_ID_ERROR");
    expect(duplicate.message).toBe('clientOrderId "42" is already used by a live order of account 1');
    // another account may use it
    expect(h.buy(2, 99, 5, { clientOrderId: "42" }).status).toBe("OPEN");
    // a retry after the first is gone is a second order
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, clientOrderId: "42" }));
    const second = h.buy(1, 100, 5, { clientOrderId: "42" });
    expect(second.orderId).not.toBe(first.orderId);
    expect(h.engine.orderByClientId(1, "42")?.orderId).toBe(second.orderId);
  });

  it("finds an order placed before the account was first looked up", () => {
    const h = harness();
    const order = h.buy(7, 100, 5, { clientOrderId: "9" });
    h.buy(7, 99, 5);
    expect(h.engine.orderByClientId(7, "9")?.orderId).toBe(order.orderId);
    expect(h.engine.openOrders(7).map((o) => o.orderId)).toHaveLength(2);
  });

  it("must be a non-zero decimal uint64", () => {
    const h = harness();
    for (const clientOrderId of ["0", "-1", "01", "1.5", "18446744073709551616", "abc"]) {
      const error = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, clientOrderId }));
      expect(error.code).toBe("INPUT_VALIDATION_ERROR");
      expect(error.message).toBe(`clientOrderId "${clientOrderId}" must be a non-zero decimal uint64`);
    }
    expect(h.buy(1, 100, 5, { clientOrderId: "18446744073709551615" }).status).toBe("OPEN");
  });
});

describe("price and quantity bounds", () => {
  it("refuses a non-positive price and a quantity below minOrderQty, naming the rule", () => {
    const h = harness();
    const price = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 0 }));
    expect(price.code).toBe("PRICE_QTY_BOUNDS_ERROR");
    expect(price.message).toBe('limitPx of 0 ticks is not a positive whole number of tickSize "0.5"');
    const qty = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 2, marketId: 2 }));
    expect(qty.code).toBe("PRICE_QTY_BOUNDS_ERROR");
    expect(qty.message).toBe('qty "0.2" is below minOrderQty "0.3"');
    const fractional = rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100.5 }));
    expect(fractional.code).toBe("PRICE_QTY_BOUNDS_ERROR");
    expect(h.buy(1, 100, 3, { marketId: 2 }).status).toBe("OPEN");
  });
});
