import { describe, expect, it } from "vitest";
import type { Rejection, RequestErrorCode } from "../../src/engine/types.ts";
import { harness, ok, T0_SEC } from "./helpers.ts";
import type { Harness } from "./helpers.ts";

/** A state with something of everything: resting orders, client ids, a GTT, an armed stop, a fired child, a dead-man switch. */
function richState(): { h: Harness; resting: string; partly: string; armed: string; child: string } {
  const h = harness();
  h.setPosition(1, 1, 8);
  h.setPosition(5, 1, 3);
  const resting = h.buy(1, 100, 5, { clientOrderId: "11" }).orderId;
  const partly = h.sell(2, 110, 6, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 600 }).orderId;
  h.buy(3, 110, 2);
  const armed = ok(h.create({ accountId: 1, isBuy: false, orderType: "STOP_LOSS", triggerTicks: 90, priceTicks: 88, qtyLots: undefined })).orderId;
  const child = ok(h.create({ accountId: 5, isBuy: false, orderType: "STOP_LOSS", triggerTicks: 130, priceTicks: 125, qtyLots: undefined })).orderId;
  ok(h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: 120 })); // fires account 5's stop, which rests at 125
  ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 1, timeoutMs: 30_000 }));
  h.buy(9, 200, 3, { marketId: 2 });
  return { h, resting, partly, armed, child };
}

const limit = { marketId: 1, exchangeId: 1, orderType: "LIMIT" as const, timeInForce: "GTC" as const };

describe("a rejected request changes nothing", () => {
  const cases: [string, RequestErrorCode, (s: ReturnType<typeof richState>) => Rejection | { ok: true }][] = [
    ["unknown market", "SYMBOL_NOT_FOUND_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 100, marketId: 9 }) as never],
    ["postOnly with IOC", "INPUT_VALIDATION_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 100, postOnly: true, timeInForce: "IOC" }) as never],
    ["expiry beyond the time range", "NUMERIC_OVERFLOW_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: 2 ** 50 }) as never],
    ["zero price", "PRICE_QTY_BOUNDS_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 0 }) as never],
    ["IOC stop with expiry", "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", ({ h }) =>
      h.create({ accountId: 1, isBuy: false, orderType: "TAKE_PROFIT", timeInForce: "IOC", triggerTicks: 200, priceTicks: 195, qtyLots: undefined, expiresAfterSec: T0_SEC + 60 }) as never],
    ["stop limit out of band", "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR", ({ h }) =>
      h.create({ accountId: 1, isBuy: false, orderType: "TAKE_PROFIT", triggerTicks: 200, priceTicks: 150, qtyLots: undefined }) as never],
    ["GTT too soon", "ORDER_EXPIRES_TOO_SOON_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 100, timeInForce: "GTT", expiresAfterSec: T0_SEC + 1 }) as never],
    ["duplicate client id", "DUPLICATE_CLIENT_ORDER_ID_ERROR", ({ h }) => h.create({ accountId: 1, isBuy: true, priceTicks: 99, clientOrderId: "11" }) as never],
    ["reduce-only without position", "REDUCE_ONLY_CONDITION_NOT_MET_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: false, priceTicks: 99, timeInForce: "IOC", reduceOnly: true }) as never],
    ["second stop-loss", "TRIGGER_ALREADY_EXISTS_ERROR", ({ h }) =>
      h.create({ accountId: 1, isBuy: false, orderType: "STOP_LOSS", triggerTicks: 80, priceTicks: 78, qtyLots: undefined }) as never],
    ["post-only crossing", "POST_ONLY_WOULD_CROSS_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: false, priceTicks: 100, postOnly: true }) as never],
    ["unknown order to modify", "ORDER_NOT_FOUND_ERROR", ({ h }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 1, ownerId: 1, orderId: "5", isBuy: true, priceTicks: 99, qtyLots: 5 }) as never],
    ["modify another account's order", "MODIFY_ORDER_OTHER_ERROR", ({ h, resting }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 4, ownerId: 4, orderId: resting, isBuy: true, priceTicks: 99, qtyLots: 5, clientOrderId: "11" }) as never],
    ["modify a fired child", "MODIFY_ORDER_OTHER_ERROR", ({ h, child }) =>
      h.engine.modifyOrder({ atMicros: h.now, marketId: 1, exchangeId: 1, accountId: 5, ownerId: 5, orderId: child, isBuy: false, orderType: "STOP_LOSS", timeInForce: "GTC", triggerTicks: 131, priceTicks: 126 }) as never],
    ["modify changing nothing", "EMPTY_MODIFY_ERROR", ({ h, resting }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 1, ownerId: 1, orderId: resting, isBuy: true, priceTicks: 100, qtyLots: 5, clientOrderId: "11" }) as never],
    ["modify below filled", "MODIFY_QTY_BELOW_FILLED_ERROR", ({ h, partly }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 2, ownerId: 2, orderId: partly, isBuy: false, priceTicks: 110, qtyLots: 2, timeInForce: "GTT", expiresAfterSec: T0_SEC + 600 }) as never],
    ["modify flipping GTT to GTC", "INPUT_VALIDATION_ERROR", ({ h, partly }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 2, ownerId: 2, orderId: partly, isBuy: false, priceTicks: 111, qtyLots: 6 }) as never],
    ["post-only modify crossing", "POST_ONLY_WOULD_CROSS_ERROR", ({ h, resting }) =>
      h.engine.modifyOrder({ ...limit, atMicros: h.now, accountId: 1, ownerId: 1, orderId: resting, isBuy: true, priceTicks: 110, qtyLots: 9, clientOrderId: "11", postOnly: true }) as never],
    ["cancel a filled order", "CANCEL_ORDER_OTHER_ERROR", ({ h }) => h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 3, orderId: "63552420354981890" }) as never],
    ["cancel another account's order", "CANCEL_ORDER_OTHER_ERROR", ({ h, armed }) => h.engine.cancelOrder({ atMicros: h.now, marketId: 1, accountId: 2, orderId: armed }) as never],
    ["cancelAll in an unknown market", "SYMBOL_NOT_FOUND_ERROR", ({ h }) => h.engine.cancelAll({ atMicros: h.now, accountId: 1, marketId: 7 }) as never],
    ["cancelAllAfter out of range", "INPUT_VALIDATION_ERROR", ({ h }) => h.engine.cancelAllAfter({ atMicros: h.now, accountId: 1, timeoutMs: 100 }) as never],
    ["cancelForReason of a dead order", "ORDER_NOT_FOUND_ERROR", ({ h }) => h.engine.cancelForReason({ atMicros: h.now, orderId: "1", reason: "RISK_CANCELLED" }) as never],
    ["mark price not positive", "INPUT_VALIDATION_ERROR", ({ h }) => h.engine.setMarkPrice({ atMicros: h.now, marketId: 1, priceTicks: -3 }) as never],
    ["qty over the per-order maximum", "NUMERIC_OVERFLOW_ERROR", ({ h }) => h.create({ accountId: 4, isBuy: true, priceTicks: 1, qtyLots: 2 ** 45 }) as never],
  ];

  for (const [name, code, command] of cases) {
    it(`${name}: ${code}, no event, no id, identical state`, () => {
      const state = richState();
      const { h } = state;
      h.engine.checkInvariants();
      const before = h.engine.dumpState();
      h.clear();
      const result = command(state);
      expect(result.ok).toBe(false);
      expect((result as Rejection).error.code).toBe(code);
      expect((result as Rejection).error.message).toMatch(/^[^\s].*[^.]$/); // a sentence, no final period
      expect(h.rec.updates).toEqual([]);
      expect(h.rec.fills).toEqual([]);
      expect(h.rec.depth).toEqual([]);
      expect(h.engine.dumpState()).toEqual(before);
    });
  }

  it("halted, crossing-unavailable and capacity rejections change nothing either", () => {
    const { h } = richState();
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: true }));
    const check = (code: RequestErrorCode, run: () => { ok: boolean }) => {
      const before = h.engine.dumpState();
      h.clear();
      const result = run();
      expect(result.ok ? "accepted" : (result as Rejection).error.code).toBe(code);
      expect(h.rec.updates).toEqual([]);
      expect(h.engine.dumpState()).toEqual(before);
    };
    check("TRADING_HALTED_ERROR", () => h.create({ accountId: 4, isBuy: true, priceTicks: 90 }));
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: false, reopening: true }));
    check("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR", () => h.create({ accountId: 4, isBuy: true, priceTicks: 125 }));
    const small = harness({ config: { maxRestingOrdersPerMarket: 1 } });
    small.buy(1, 100, 5);
    const before = small.engine.dumpState();
    const result = small.create({ accountId: 2, isBuy: true, priceTicks: 99 });
    expect(result.ok ? "accepted" : result.error.code).toBe("CAPACITY_LIMITED_ERROR");
    expect(small.engine.dumpState()).toEqual(before);
  });
});

describe("precedence of rejections", () => {
  it("reports shape before bounds, bounds before market state, market state before the book", () => {
    const h = harness();
    h.sell(1, 100, 5);
    ok(h.engine.setMarketState({ atMicros: h.now, marketId: 1, halted: true }));
    // post-only crossing in a halted market: the halt is reported
    expect(h.create({ accountId: 2, isBuy: true, priceTicks: 100, postOnly: true })).toMatchObject({ ok: false, error: { code: "TRADING_HALTED_ERROR" } });
    // a zero price in a halted market: the bounds are reported
    expect(h.create({ accountId: 2, isBuy: true, priceTicks: 0 })).toMatchObject({ ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR" } });
    // postOnly with IOC and a zero price: the shape is reported
    expect(h.create({ accountId: 2, isBuy: true, priceTicks: 0, postOnly: true, timeInForce: "IOC" })).toMatchObject({ ok: false, error: { code: "INPUT_VALIDATION_ERROR" } });
  });
});
