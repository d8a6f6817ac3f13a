import { describe, expect, it } from "vitest";
import { harness, ok, rowsOf, summary } from "./helpers.ts";

describe("self-trade prevention (cancel-taker)", () => {
  it("cancels the taker when the best maker is its own, and leaves the maker untouched", () => {
    const h = harness();
    const own = h.sell(1, 100, 5);
    const taker = h.buy(1, 101, 5);
    expect(taker.status).toBe("CANCELLED");
    expect(taker.cancelReason).toBe("SELF_TRADE_PREVENTION");
    expect(taker.cumLots).toBe(0);
    expect(h.rec.fills).toEqual([]);
    expect(h.engine.order(own.orderId)?.cumLots).toBe(0);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 100, qtyLots: 5 }]);
  });

  it("counts a touch at the same price as a cross", () => {
    const h = harness();
    h.sell(1, 100, 5);
    expect(h.buy(1, 100, 5).cancelReason).toBe("SELF_TRADE_PREVENTION");
  });

  it("keeps the fills against other accounts made before the own order, then cancels the remainder", () => {
    const h = harness();
    const other = h.sell(2, 100, 3);
    const own = h.sell(1, 100, 4); // behind `other` at the same price
    const further = h.sell(3, 99, 2); // better price: first
    const taker = h.buy(1, 101, 10);
    expect(h.rec.fills.map((f) => [f.makerOrderId, f.qtyLots])).toEqual([
      [further.orderId, 2],
      [other.orderId, 3],
    ]);
    expect(summary(taker)).toEqual({
      orderId: taker.orderId,
      status: "CANCELLED",
      qtyLots: 10,
      cumLots: 5,
      execLots: 5,
      firstFillId: "1000000000",
      fillCount: 2,
      cancelReason: "SELF_TRADE_PREVENTION",
    });
    expect(h.engine.order(own.orderId)?.cumLots).toBe(0);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
  });

  it("does not trigger when the taker is filled before it reaches its own order", () => {
    const h = harness();
    h.sell(2, 100, 3);
    h.sell(1, 100, 4);
    const taker = h.buy(1, 100, 3);
    expect(taker.status).toBe("FILLED");
  });

  it("never fills an account against itself (the check is per account, not per owner)", () => {
    const h = harness();
    h.sell(1, 100, 5, { ownerId: 70 });
    const taker = h.buy(1, 100, 5, { ownerId: 71, timeInForce: "IOC" });
    expect(taker.cancelReason).toBe("SELF_TRADE_PREVENTION");
    expect(h.sell(2, 100, 5, { ownerId: 70 }).status).toBe("OPEN");
    expect(h.buy(3, 100, 10, { ownerId: 70 }).cumLots).toBe(10); // other accounts of the same owner trade
  });

  it("emits one taker row with the fills and the cancel reason", () => {
    const h = harness();
    h.sell(2, 100, 1);
    h.sell(1, 100, 1);
    h.clear();
    const taker = h.buy(1, 100, 2);
    const rows = rowsOf(h.rec, taker.orderId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.cancelReason).toBe("SELF_TRADE_PREVENTION");
    expect(rows[0]!.execLots).toBe(1);
  });
});

describe("match-time risk check (checkFill hook)", () => {
  it("on cancel-maker cancels that maker with RISK_CANCELLED and goes on with the next", () => {
    const h = harness({ riskHook: true });
    const risky = h.sell(1, 100, 3);
    const next = h.sell(2, 100, 3);
    h.verdicts.set(risky.orderId, "cancel-maker");
    const taker = h.buy(3, 100, 3);
    expect(taker.status).toBe("FILLED");
    expect(h.rec.fills.map((f) => f.makerOrderId)).toEqual([next.orderId]);
    expect(h.rec.fills[0]!.fillId).toBe("1000000000"); // the refused match used no fill id
    expect(rowsOf(h.rec, risky.orderId).at(-1)?.cancelReason).toBe("RISK_CANCELLED");
    expect(h.engine.order(risky.orderId)).toBeUndefined();
  });

  it("on reject-taker cancels the taker's remainder with RISK_REJECTED; earlier fills stand", () => {
    const h = harness({ riskHook: true });
    h.sell(1, 100, 2);
    const second = h.sell(2, 101, 2);
    h.verdicts.set(second.orderId, "reject-taker");
    const taker = h.buy(3, 101, 10);
    expect(taker.status).toBe("CANCELLED");
    expect(taker.cancelReason).toBe("RISK_REJECTED");
    expect(taker.cumLots).toBe(2);
    expect(h.engine.order(second.orderId)?.cumLots).toBe(0);
    expect(ok(h.engine.depth(1)).bids).toEqual([]);
  });

  it("sees each proposed fill before it happens, with the flags settlement needs", () => {
    const h = harness({ riskHook: true });
    const maker = h.sell(1, 100, 2);
    const taker = h.buy(3, 100, 5);
    expect(h.proposals).toHaveLength(1);
    expect(h.proposals[0]).toMatchObject({
      fillId: "",
      marketId: 1,
      atMicros: h.now,
      priceTicks: 100,
      qtyLots: 2,
      takerSide: "B",
      takerAccountId: 3,
      takerOrderId: taker.orderId,
      takerOwnerId: 3,
      takerReduceOnly: false,
      takerFilled: false,
      makerAccountId: 1,
      makerOrderId: maker.orderId,
      makerOwnerId: 1,
      makerReduceOnly: false,
      makerFilled: true,
    });
    expect(h.rec.fills[0]!.fillId).toBe("1000000000");
  });
});
