import { describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import { Engine } from "../../src/engine/engine.ts";
import { ManualScheduler } from "../../src/engine/timers.ts";
import { harness, ok, PERP, rowsOf, SEC, T0, T0_SEC } from "./helpers.ts";

const gtc = { marketId: 1, exchangeId: 1, ownerId: 1, orderType: "LIMIT" as const, timeInForce: "GTC" as const, qtyLots: 5 };

describe("Engine plumbing", () => {
  it("runs standalone with permissive defaults: no sink, no hooks, its own timers", () => {
    const engine = new Engine({ markets: [PERP] });
    const sell = ok(engine.createOrder({ ...gtc, atMicros: T0, accountId: 1, isBuy: false, priceTicks: 100 }));
    const buy = ok(engine.createOrder({ ...gtc, atMicros: T0, accountId: 2, isBuy: true, priceTicks: 100 }));
    expect([sell.status, buy.status]).toEqual(["OPEN", "FILLED"]);
  });

  it("leaves timers to a driver's scheduler when given one", () => {
    const scheduler = new ManualScheduler(T0);
    const h = harness({ scheduler });
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    h.now = T0 + 9 * SEC;
    h.buy(2, 90, 5);
    h.now = T0 + 12 * SEC;
    h.buy(3, 90, 5); // the engine does not run the driver's timers, even for a command past them
    expect(h.engine.order(gtt.orderId)?.status).toBe("OPEN");
    scheduler.advanceTo(T0 + 12 * SEC); // the driver does (a real driver would have run it before the command at 12 s)
    expect(rowsOf(h.rec, gtt.orderId).at(-1)).toMatchObject({ cancelReason: "GTT_EXPIRED" });
    expect(h.engine.order(gtt.orderId)).toBeUndefined();
    expect(() => h.engine.advanceTo(T0 + 30 * SEC)).toThrow(InvariantError);
  });

  it("handles a driver's timer at the driver's time", () => {
    const scheduler = new ManualScheduler(T0);
    const h = harness({ scheduler });
    const gtt = h.buy(1, 100, 5, { timeInForce: "GTT", expiresAfterSec: T0_SEC + 10 });
    scheduler.advanceTo(T0 + 60 * SEC);
    expect(rowsOf(h.rec, gtt.orderId).at(-1)).toMatchObject({ cancelReason: "GTT_EXPIRED", lastUpdateAtMicros: T0 + 10 * SEC });
    expect(h.rec.depth.at(-1)).toEqual({ marketId: 1, atMicros: T0 + 10 * SEC });
  });

  it("refuses a command earlier than the engine's time", () => {
    const h = harness();
    h.now = T0 + 10;
    h.buy(1, 100, 5);
    h.now = T0 + 9;
    expect(() => h.create({ accountId: 2, isBuy: true, priceTicks: 99 })).toThrow("command at 1700000000000009 is before the engine's time 1700000000000010");
  });

  it("is not re-entrant: a sink that calls back into the engine fails loudly", () => {
    let engine: Engine | undefined;
    engine = new Engine({
      markets: [PERP],
      sink: { orderUpdate: () => void engine!.cancelAll({ atMicros: T0, accountId: 1 }) },
    });
    expect(() => engine!.createOrder({ ...gtc, atMicros: T0, accountId: 1, isBuy: true, priceTicks: 100 })).toThrow("the engine is not re-entered from its sink or hooks");
  });

  it("rejects a configuration it cannot honour", () => {
    expect(() => new Engine({ markets: [PERP], config: { maxRestingOrdersPerMarket: -1 } })).toThrow("config maxRestingOrdersPerMarket must be a non-negative integer, got -1");
    expect(() => new Engine({ markets: [PERP, PERP] })).toThrow("market symbol BTCPERP is registered once");
  });

  it("starts order ids, fill ids and sequence numbers where configured", () => {
    const h = harness({ config: { firstOrderId: 7n, firstFillId: 900n, firstSequenceNumber: 41 } });
    h.sell(1, 100, 5);
    const taker = h.buy(2, 100, 5);
    expect(taker.orderId).toBe("8");
    expect(taker.firstFillId).toBe("900");
    expect(taker.sequenceNumber).toBe(44);
  });
});
