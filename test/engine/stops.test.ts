import { describe, expect, it } from "vitest";
import { openOrderRow } from "../../src/engine/wire.ts";
import { harness, ok, rejected, rowsOf, SEC, T0, T0_SEC } from "./helpers.ts";
import type { CreateFields, Harness } from "./helpers.ts";

/** A stop of account 1 in the perp market (qty omitted, as the spec wants). */
function stop(h: Harness, orderType: "STOP_LOSS" | "TAKE_PROFIT", isBuy: boolean, triggerTicks: number, extra: CreateFields = {}) {
  const priceTicks = isBuy ? triggerTicks + 10 : triggerTicks - 10;
  return h.create({ ...extra, priceTicks: extra.priceTicks ?? priceTicks, accountId: 1, isBuy, orderType, triggerTicks: extra.triggerTicks ?? triggerTicks, qtyLots: extra.qtyLots });
}

function mark(h: Harness, priceTicks: number) {
  return ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks }));
}

describe("stops: arming", () => {
  it("arms with triggered=false against a position on the opposite side; the response shows it armed", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const armed = ok(stop(h, "STOP_LOSS", false, 1000));
    expect(armed.status).toBe("OPEN");
    expect(armed.triggered).toBe(false);
    expect(armed.qtyLots).toBe(0);
    expect(armed.onOrderChanges).toBe(true);
    expect(ok(h.engine.depth(1)).asks).toEqual([]); // not in the book
    expect(h.engine.openOrderFigures(1).count).toBe(0); // armed stops do not count
  });

  it("is REDUCE_ONLY_CONDITION_NOT_MET_ERROR without a position, or with one on the same side", () => {
    const h = harness();
    expect(rejected(stop(h, "STOP_LOSS", false, 1000))).toEqual({
      code: "REDUCE_ONLY_CONDITION_NOT_MET_ERROR",
      message: "a sell STOP_LOSS needs a long position of account 1 in BTCPERP",
    });
    h.setPosition(1, 1, 5); // long: a buy stop has nothing to protect
    expect(rejected(stop(h, "TAKE_PROFIT", true, 1000)).code).toBe("REDUCE_ONLY_CONDITION_NOT_MET_ERROR");
  });

  it("allows one STOP_LOSS and one TAKE_PROFIT per account and market (TRIGGER_ALREADY_EXISTS_ERROR)", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const first = ok(stop(h, "STOP_LOSS", false, 1000));
    ok(stop(h, "TAKE_PROFIT", false, 1200));
    expect(rejected(stop(h, "STOP_LOSS", false, 990))).toEqual({
      code: "TRIGGER_ALREADY_EXISTS_ERROR",
      message: `account 1 already has an armed STOP_LOSS in BTCPERP (order ${first.orderId})`,
    });
    expect(rejected(stop(h, "TAKE_PROFIT", false, 1300)).code).toBe("TRIGGER_ALREADY_EXISTS_ERROR");
    h.setPosition(2, 1, 5);
    expect(ok(h.create({ accountId: 2, isBuy: false, orderType: "STOP_LOSS", triggerTicks: 1000, priceTicks: 990, qtyLots: undefined })).status).toBe("OPEN");
  });

  it("counts a fired stop whose child still rests: a second STOP_LOSS waits until the child is gone", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 990 }));
    mark(h, 999); // fires; nothing bids, so the GTC child rests at 990
    expect(h.engine.order(sl.orderId)!.triggered).toBe(true);
    expect(rejected(stop(h, "STOP_LOSS", false, 980))).toEqual({
      code: "TRIGGER_ALREADY_EXISTS_ERROR",
      message: `account 1 already has a fired STOP_LOSS in BTCPERP (order ${sl.orderId})`,
    });
    // The sibling type is free, and so is the stop-loss once the child has gone.
    ok(stop(h, "TAKE_PROFIT", false, 1200));
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: sl.orderId }));
    expect(ok(stop(h, "STOP_LOSS", false, 980)).status).toBe("OPEN");
  });

  it("keeps the limit within the band around the trigger (5% by default, configurable)", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 949 }))).toEqual({
      code: "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR",
      message: 'limitPx "474.5" is more than 5% away from triggerPx "500"',
    });
    expect(ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 950 })).status).toBe("OPEN");
    const narrow = harness({ config: { triggerBandBps: 100 } });
    narrow.setPosition(1, 1, 5);
    expect(rejected(stop(narrow, "STOP_LOSS", false, 1000, { priceTicks: 989 })).code).toBe("TRIGGER_LIMIT_OUTSIDE_BAND_ERROR");
  });

  it("refuses an IOC stop with an expiry (TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR), a qty, postOnly, and spot", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "IOC", expiresAfterSec: T0_SEC + 60 }))).toEqual({
      code: "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR",
      message: "expiresAfter must be omitted for an IOC STOP_LOSS",
    });
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { qtyLots: 5 })).code).toBe("INPUT_VALIDATION_ERROR");
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { postOnly: true })).code).toBe("INPUT_VALIDATION_ERROR");
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { reduceOnly: true })).code).toBe("INPUT_VALIDATION_ERROR");
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { triggerTicks: 0 })).message).toBe("triggerPx is required and non-zero for STOP_LOSS");
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { marketId: 2 })).message).toBe("STOP_LOSS orders exist only in perp markets, not in ETHRUSD");
    expect(rejected(h.create({ accountId: 1, isBuy: true, priceTicks: 100, triggerTicks: 100 })).message).toBe("triggerPx must be omitted for LIMIT orders");
  });
});

describe("stops: firing", () => {
  it("fires a long's (sell) STOP_LOSS when mark <= triggerPx and its TAKE_PROFIT when mark >= triggerPx", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    expect(mark(h, 1001).firedCount).toBe(0);
    expect(mark(h, 1000).firedCount).toBe(1);
    expect(h.engine.order(sl.orderId)?.triggered).toBe(true);

    const g = harness();
    g.setPosition(1, 1, 5);
    const tp = ok(stop(g, "TAKE_PROFIT", false, 1200));
    expect(mark(g, 1199).firedCount).toBe(0);
    expect(mark(g, 1200).firedCount).toBe(1);
    expect(g.engine.order(tp.orderId)?.triggered).toBe(true);
  });

  it("compares the mark itself, not a rounding of it: a mark between two ticks fires no stop at the nearer tick", () => {
    // Each of the four kinds of stop at trigger 1000, against a mark just past it on the side that must not fire.
    const cases = [
      { type: "STOP_LOSS", isBuy: false, position: 5, quiet: 1000, fires: 999 }, // fires on a fall: mark in (1000, 1001) is above 1000
      { type: "TAKE_PROFIT", isBuy: true, position: -5, quiet: 1000, fires: 999 },
      { type: "TAKE_PROFIT", isBuy: false, position: 5, quiet: 999, fires: 1000 }, // fires on a rise: mark in (999, 1000) is below 1000
      { type: "STOP_LOSS", isBuy: true, position: -5, quiet: 999, fires: 1000 },
    ] as const;
    for (const c of cases) {
      const h = harness();
      h.setPosition(1, 1, c.position);
      const armed = ok(stop(h, c.type, c.isBuy, 1000));
      expect(ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: c.quiet, betweenTicks: true })).firedCount, `${c.type} ${c.isBuy}`).toBe(0);
      expect(h.engine.order(armed.orderId)?.triggered).toBe(false);
      // Past the trigger (between two ticks on the far side), or exactly on it.
      expect(ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: c.fires, betweenTicks: c.fires === 999 })).firedCount, `${c.type} ${c.isBuy}`).toBe(1);
    }
  });

  it("takes a mark below one tick (floor 0, between ticks) and refuses a floor of 0 on the grid", () => {
    const h = harness();
    expect(ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: 0, betweenTicks: true })).firedCount).toBe(0);
    expect(rejected(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: 0 })).code).toBe("INPUT_VALIDATION_ERROR");
  });

  it("cancels a fired sibling's resting child too (OCO_SIBLING_FIRED): two children for the whole position never rest at once", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    // A GTC stop-loss fires with no bids: its child rests for the whole position at its limit.
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    expect(mark(h, 999).firedCount).toBe(1);
    expect(h.engine.order(sl.orderId)).toMatchObject({ status: "OPEN", triggered: true });
    // The pair's other stop can be armed while the child rests (one of each type), and fires on a rise.
    const tp = ok(stop(h, "TAKE_PROFIT", false, 1200));
    expect(mark(h, 1200).firedCount).toBe(1);
    expect(rowsOf(h.rec, sl.orderId).at(-1)).toMatchObject({ status: "CANCELLED", cancelReason: "OCO_SIBLING_FIRED" });
    expect(h.engine.order(tp.orderId)).toMatchObject({ status: "OPEN", triggered: true });
    expect(h.engine.openOrders(1).map((order) => order.orderId)).toEqual([tp.orderId]);
  });

  it("mirrors for a short (buy stops)", () => {
    const h = harness();
    h.setPosition(1, 1, -5);
    const sl = ok(stop(h, "STOP_LOSS", true, 1000));
    const tp = ok(stop(h, "TAKE_PROFIT", true, 800));
    expect(mark(h, 999).firedCount).toBe(0);
    expect(mark(h, 801).firedCount).toBe(0);
    expect(mark(h, 1000).firedCount).toBe(1);
    expect(h.engine.order(sl.orderId)?.triggered).toBe(true);
    expect(rowsOf(h.rec, tp.orderId).at(-1)?.cancelReason).toBe("OCO_SIBLING_FIRED");
  });

  it("sends a reduce-only child for the whole position at fire time; IOC fills what it can and cancels the rest", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "IOC", priceTicks: 990 }));
    h.setPosition(1, 1, 7); // the position grew after arming
    h.buy(2, 995, 4);
    h.buy(3, 980, 10); // below the child's limit
    h.clear();
    mark(h, 1000);
    expect(h.rec.fills.map((f) => [f.takerOrderId, f.priceTicks, f.qtyLots, f.takerReduceOnly])).toEqual([[sl.orderId, 995, 4, true]]);
    const row = rowsOf(h.rec, sl.orderId).at(-1)!;
    expect([row.status, row.qtyLots, row.cumLots, row.execLots, row.cancelReason, row.triggered, row.onOrderChanges]).toEqual([
      "CANCELLED",
      7,
      4,
      4,
      "IOC_REMAINDER",
      true,
      true,
    ]);
  });

  it("rests a GTC child's remainder (OPEN, triggered=true), which counts as an open order", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 990 }));
    h.buy(2, 995, 2);
    mark(h, 999);
    const child = h.engine.order(sl.orderId)!;
    expect([child.status, child.triggered, child.qtyLots, child.cumLots, child.priceTicks]).toEqual(["OPEN", true, 5, 2, 990]);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 990, qtyLots: 3 }]);
    expect(h.engine.openOrderFigures(1).count).toBe(1);
  });

  it("refuses to modify a fired child (MODIFY_ORDER_OTHER_ERROR) but cancels it", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 990 }));
    mark(h, 999);
    expect(rejected(h.modify(sl, { priceTicks: 985 }))).toEqual({
      code: "MODIFY_ORDER_OTHER_ERROR",
      message: `order ${sl.orderId} is a fired stop: it can be cancelled, not modified`,
    });
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 1, orderId: sl.orderId }));
    expect(h.engine.order(sl.orderId)).toBeUndefined();
  });

  it("cancels the OCO sibling when one fires", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    const tp = ok(stop(h, "TAKE_PROFIT", false, 1200));
    h.clear();
    mark(h, 1250);
    expect(h.rec.updates.map((u) => [u.orderId, u.status, u.cancelReason])).toEqual([
      [sl.orderId, "CANCELLED", "OCO_SIBLING_FIRED"],
      [tp.orderId, "OPEN", null],
    ]);
    expect(h.engine.order(tp.orderId)?.triggered).toBe(true);
  });

  it("is never blocked by its own account's makers: they are swept (PROTECTIVE_SELF_TRADE_SWEEP) and it goes on", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const own = h.buy(1, 998, 2);
    const other = h.buy(2, 997, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "IOC", priceTicks: 990 }));
    h.clear();
    mark(h, 1000);
    expect(rowsOf(h.rec, own.orderId).map((u) => u.cancelReason)).toEqual(["PROTECTIVE_SELF_TRADE_SWEEP"]);
    expect(h.rec.fills.map((f) => [f.makerOrderId, f.qtyLots])).toEqual([[other.orderId, 5]]);
    expect(rowsOf(h.rec, sl.orderId).at(-1)?.status).toBe("FILLED");
  });

  it("fires at once when the mark is already through the trigger at arming, after the armed row", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    mark(h, 900);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    expect(sl.triggered).toBe(false);
    expect(rowsOf(h.rec, sl.orderId).map((u) => u.triggered)).toEqual([false, true]);
  });

  it("cancels the stop and its sibling with POSITION_CLOSED when the position is gone at fire time", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    const tp = ok(stop(h, "TAKE_PROFIT", false, 1200));
    h.setPosition(1, 1, 0);
    mark(h, 990);
    expect(rowsOf(h.rec, sl.orderId).at(-1)?.cancelReason).toBe("POSITION_CLOSED");
    expect(rowsOf(h.rec, tp.orderId).at(-1)?.cancelReason).toBe("POSITION_CLOSED");
  });

  it("waits while the market is halted or refuses crossing orders, and fires when it is normal again", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: true }));
    mark(h, 990);
    expect(h.engine.order(sl.orderId)?.triggered).toBe(false);
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: false, settlementPaused: true }));
    expect(h.engine.order(sl.orderId)?.triggered).toBe(false);
    expect(ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, settlementPaused: false })).firedCount).toBe(1);
    expect(h.engine.order(sl.orderId)?.triggered).toBe(true);
  });
});

describe("stops: a resting child is reduce-only at match time", () => {
  /** A harness whose position table follows the fills, as the risk layer's (settled + pending) does. */
  function followingHarness(startingLots: number): { h: Harness; positionLots: (accountId: number, marketId: number) => number } {
    const fills: Harness["rec"]["fills"] = [];
    const positionLots = (accountId: number, marketId: number): number => {
      let lots = accountId === 1 && marketId === 1 ? startingLots : 0;
      for (const fill of fills) {
        if (fill.marketId !== marketId) continue;
        const takerSign = fill.takerSide === "B" ? 1 : -1;
        if (fill.takerAccountId === accountId) lots += takerSign * fill.qtyLots;
        if (fill.makerAccountId === accountId) lots -= takerSign * fill.qtyLots;
      }
      return lots;
    };
    const h = harness({ hooks: { positionLots } });
    // Every fill the engine reports, kept across h.clear() (the harness's recorder is cleared).
    const record = h.rec.fills.push.bind(h.rec.fills);
    h.rec.fills.push = (...added) => {
      fills.push(...added);
      return record(...added);
    };
    return { h, positionLots };
  }

  it("never fills past the position left when the same taker filled the account's other orders first", () => {
    const { h, positionLots } = followingHarness(5);
    h.sell(1, 995, 5); // a plain sell of the long account, ahead of the child in price
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 1000 }));
    mark(h, 999); // fires; the child (sell 5 at 1000) rests
    expect(h.engine.order(sl.orderId)!.level).not.toBeNull();
    h.clear();
    const taker = h.buy(2, 1000, 10, { timeInForce: "IOC" });
    // The plain sell fills the whole position; the child has nothing left to reduce and is cancelled, unfilled.
    expect(h.rec.fills.map((fill) => [fill.makerAccountId, fill.priceTicks, fill.qtyLots])).toEqual([[1, 995, 5]]);
    const childRows = rowsOf(h.rec, sl.orderId);
    expect(childRows.at(-1)).toMatchObject({ status: "CANCELLED", cancelReason: "POSITION_CLOSED", cumLots: 0 });
    expect([taker.status, taker.cumLots]).toEqual(["CANCELLED", 5]);
    expect(positionLots(1, 1)).toBe(0);
  });

  it("cuts a fill against the child to the position left, then cancels the child's rest", () => {
    const { h, positionLots } = followingHarness(5);
    h.sell(1, 995, 3);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 1000 }));
    mark(h, 999);
    h.clear();
    h.buy(2, 1000, 10, { timeInForce: "IOC" });
    expect(h.rec.fills.map((fill) => [fill.makerOrderId === sl.orderId ? "child" : "plain", fill.qtyLots])).toEqual([
      ["plain", 3],
      ["child", 2],
    ]);
    expect(rowsOf(h.rec, sl.orderId).at(-1)).toMatchObject({ status: "CANCELLED", cancelReason: "POSITION_CLOSED", cumLots: 2 });
    expect(positionLots(1, 1)).toBe(0);
  });

  it("fills in full while the position covers it", () => {
    const { h, positionLots } = followingHarness(5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 1000 }));
    mark(h, 999);
    h.clear();
    h.buy(2, 1000, 10, { timeInForce: "IOC" });
    expect(rowsOf(h.rec, sl.orderId).at(-1)).toMatchObject({ status: "FILLED", cumLots: 5 });
    expect(positionLots(1, 1)).toBe(0);
  });
});

describe("stops: following the position", () => {
  it("cancels armed stops with POSITION_CLOSED when the position goes flat", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    const tp = ok(stop(h, "TAKE_PROFIT", false, 1200));
    expect(ok(h.engine.positionChanged({ atMicros: h.now, accountId: 1, marketId: 1 })).changedCount).toBe(0);
    h.setPosition(1, 1, 0);
    expect(ok(h.engine.positionChanged({ atMicros: h.now, accountId: 1, marketId: 1 })).changedCount).toBe(2);
    expect(rowsOf(h.rec, sl.orderId).at(-1)?.cancelReason).toBe("POSITION_CLOSED");
    expect(rowsOf(h.rec, tp.orderId).at(-1)?.cancelReason).toBe("POSITION_CLOSED");
  });

  it("shrinks a resting child to a smaller position, keeping its queue place", () => {
    const h = harness();
    h.setPosition(1, 1, 6);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { priceTicks: 990 }));
    mark(h, 1000);
    const behind = h.sell(3, 990, 1);
    h.setPosition(1, 1, 2);
    ok(h.engine.positionChanged({ atMicros: h.now, accountId: 1, marketId: 1 }));
    expect(h.engine.order(sl.orderId)?.qtyLots).toBe(2);
    expect(ok(h.engine.depth(1)).asks).toEqual([{ priceTicks: 990, qtyLots: 3 }]);
    h.buy(4, 990, 2);
    expect(h.rec.fills.at(-1)?.makerOrderId).toBe(sl.orderId);
    expect(h.engine.order(behind.orderId)?.cumLots).toBe(0);
  });
});

describe("stops: modify and expiry", () => {
  it("modifies an armed stop's limitPx and triggerPx, and fires at the new trigger", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    mark(h, 1050);
    const modified = ok(h.modify(sl, { triggerTicks: 1060, priceTicks: 1055 }));
    expect(modified.triggered).toBe(false);
    expect(h.engine.order(sl.orderId)?.triggered).toBe(true); // the mark 1050 is through the new trigger
    expect(h.engine.order(sl.orderId)?.priceTicks).toBe(1055);
  });

  it("band-checks a modified stop and refuses an empty change", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    expect(rejected(h.modify(sl, { priceTicks: 900 })).code).toBe("TRIGGER_LIMIT_OUTSIDE_BAND_ERROR");
    expect(rejected(h.modify(sl, {})).code).toBe("EMPTY_MODIFY_ERROR");
  });

  it("ends a GTT stop, armed or fired, the settlement margin before expiresAfter (configurable)", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const armed = ok(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }));
    const tp = ok(stop(h, "TAKE_PROFIT", false, 1200, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }));
    h.engine.advanceTo(T0 + 55 * SEC - 1);
    expect(h.engine.order(armed.orderId)?.status).toBe("OPEN");
    h.engine.advanceTo(T0 + 55 * SEC);
    expect(rowsOf(h.rec, armed.orderId).at(-1)?.cancelReason).toBe("GTT_EXPIRED");
    expect(rowsOf(h.rec, tp.orderId).at(-1)?.cancelReason).toBe("GTT_EXPIRED");

    const g = harness({ config: { stopSettlementMarginMicros: 10 * SEC } });
    g.setPosition(1, 1, 5);
    const fired = ok(stop(g, "STOP_LOSS", false, 1000, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }));
    mark(g, 1000); // fires; the child rests (no bids)
    expect(g.engine.order(fired.orderId)?.triggered).toBe(true);
    g.engine.advanceTo(T0 + 50 * SEC);
    expect(g.engine.order(fired.orderId)).toBeUndefined();
    expect(rowsOf(g.rec, fired.orderId).at(-1)?.cancelReason).toBe("GTT_EXPIRED");
  });

  it("applies the minimum lifetime to the stop's early end", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    expect(rejected(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 9 })).code).toBe("ORDER_EXPIRES_TOO_SOON_ERROR");
    expect(ok(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 })).status).toBe("OPEN");
  });

  it("requires a GTT stop's modify to restate its original expiry", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 60 }));
    expect(rejected(h.modify(sl, { triggerTicks: 1001, expiresAfterSec: T0_SEC + 61 }))).toEqual({
      code: "INPUT_VALIDATION_ERROR",
      message: `expiresAfter of a GTT stop ${T0_SEC + 61} differs from order ${sl.orderId}'s ${T0_SEC + 60}: it cannot be modified`,
    });
    expect(ok(h.modify(sl, { triggerTicks: 1001 })).triggerTicks).toBe(1001);
  });
});

describe("stops on the wire", () => {
  it("report reduceOnly false, carry triggerPx and triggered, and omit qty while armed", () => {
    const h = harness();
    h.setPosition(1, 1, 5);
    const sl = ok(stop(h, "STOP_LOSS", false, 1000));
    const row = openOrderRow(h.engine.order(sl.orderId)!);
    expect(row).toMatchObject({ orderType: "STOP_LOSS", triggerPx: "500", triggered: false, reduceOnly: false, limitPx: "495" });
    expect(row.qty).toBeUndefined();
    mark(h, 1000);
    const fired = openOrderRow(h.engine.order(sl.orderId)!);
    expect(fired).toMatchObject({ triggered: true, qty: "0.005", reduceOnly: false });
  });
});
