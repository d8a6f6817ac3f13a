/**
 * The engine reuses an ended order's object for a new order (EngineCore
 * newOrder, Order.reuse), unless it was handed out (Order.pinned). Nothing
 * anyone sees may change by it:
 *
 * - differential, over seeded random command streams (command-stream.ts):
 *   the same stream through an engine that reuses (its reader only peeks)
 *   and through one that cannot (every new order pinned at once) gives the
 *   same answers, the same order rows and the same fills, field by field;
 * - every row and fill kept from the whole stream still reads, at the end,
 *   exactly as it read when it was emitted (rows copy what they report);
 * - an order handed out by `order`, `orderByClientId` or `openOrders` is
 *   never reused, so whoever holds it keeps reading that order;
 * - `Order.reuse` writes what the constructor writes (its own copy of the
 *   lines, for speed): a reused object equals a new one field by field, in
 *   the same field order, whatever state it ended in.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/engine.ts";
import type { OrderUpdate } from "../../src/engine/events.ts";
import { Market } from "../../src/engine/market.ts";
import { Order } from "../../src/engine/order.ts";
import type { CreateOrderCommand, Fill } from "../../src/engine/types.ts";
import { commandArbitrary, createCommandOf, engineWithStandInRisk, modifyCommandOf, type Command } from "./command-stream.ts";
import { harness, ok, PERP, T0 } from "./helpers.ts";

/** Every field a row reports, read through its getters. */
function rowSnapshot(row: OrderUpdate): string {
  return JSON.stringify([
    row.sequenceNumber,
    row.orderId,
    row.marketId,
    row.market.symbol,
    row.accountId,
    row.exchangeId,
    row.clientOrderId,
    row.isBuy,
    row.orderType,
    row.timeInForce,
    row.reduceOnly,
    row.postOnly,
    row.createdAtMicros,
    row.lastUpdateAtMicros,
    row.priceTicks,
    row.qtyLots,
    row.cumLots,
    row.execLots,
    row.fillCount,
    row.firstFillId,
    row.triggerTicks,
    row.expiresAfterSec,
    row.status,
    row.cancelReason,
    row.triggered,
    row.resting,
    row.onOrderChanges,
  ]);
}

function fillSnapshot(fill: Fill): string {
  return JSON.stringify([
    fill.fillId,
    fill.marketId,
    fill.atMicros,
    fill.priceTicks,
    fill.qtyLots,
    fill.takerSide,
    fill.takerOrderId,
    fill.takerAccountId,
    fill.takerOwnerId,
    fill.takerReduceOnly,
    fill.takerFilled,
    fill.makerOrderId,
    fill.makerAccountId,
    fill.makerOwnerId,
    fill.makerReduceOnly,
    fill.makerFilled,
  ]);
}

interface Trace {
  /** Per command: its answer (ok, or the rejection code). */
  readonly answers: string[];
  /** Every event as it read when emitted. */
  readonly events: string[];
  readonly rows: { row: OrderUpdate; atEmission: string }[];
  readonly fills: { fill: Fill; atEmission: string }[];
  /** Order objects that carried more than one order id over the run. */
  reusedObjects: number;
}

/**
 * Runs the stream. "reuse": the driver reads live orders only through the
 * engine's peeks, so ended orders' objects are taken by new orders; "pin":
 * every new order is pinned as soon as it is created, so none ever is.
 */
function runStream(commands: readonly Command[], mode: "reuse" | "pin"): Trace {
  const trace: Trace = { answers: [], events: [], rows: [], fills: [], reusedObjects: 0 };
  const { engine, positions } = engineWithStandInRisk({
    orderUpdate: (row) => {
      const atEmission = rowSnapshot(row);
      trace.events.push(atEmission);
      trace.rows.push({ row, atEmission });
    },
    fill: (fill) => {
      const atEmission = fillSnapshot(fill);
      trace.events.push(atEmission);
      trace.fills.push({ fill, atEmission });
    },
  });
  const lookUp = (orderId: string): Order | undefined => (mode === "pin" ? engine.order(orderId) : engine.peekOrder(orderId));
  const seen: { orderId: string; accountId: number; clientOrderId: string | null; marketId: number }[] = [];
  const idsOfObject = new Map<Order, string>();
  let now = T0;
  const answer = (result: { ok: boolean } & ({ ok: true } | { ok: false; error: { code: string } })) =>
    trace.answers.push(result.ok ? "ok" : result.error.code);
  for (const cmd of commands) {
    engine.advanceTo(now);
    const before = new Map(positions);
    switch (cmd.kind) {
      case "advance":
        now += cmd.dtMicros;
        engine.advanceTo(now);
        continue;
      case "create": {
        const result = engine.createOrder(createCommandOf(cmd, now));
        answer(result);
        if (result.ok) {
          seen.push({ orderId: result.orderId, accountId: result.accountId, clientOrderId: result.clientOrderId, marketId: result.marketId });
          const order = lookUp(result.orderId);
          if (order !== undefined) {
            const previous = idsOfObject.get(order);
            if (previous !== undefined && previous !== result.orderId) trace.reusedObjects += 1;
            idsOfObject.set(order, result.orderId);
          }
        }
        break;
      }
      case "cancel": {
        const target = seen.length === 0 ? undefined : seen[cmd.pick % seen.length]!;
        if (target === undefined) continue;
        const by = cmd.byClientId && target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId };
        answer(engine.cancelOrder({ atMicros: now, marketId: target.marketId, accountId: target.accountId, ...by }));
        break;
      }
      case "modify": {
        const target = seen.length === 0 ? undefined : seen[cmd.pick % seen.length]!;
        const order = target === undefined ? undefined : lookUp(target.orderId);
        if (order === undefined) continue;
        answer(engine.modifyOrder(modifyCommandOf(cmd, order, now)));
        break;
      }
      case "cancelAll":
        answer(engine.cancelAll({ atMicros: now, accountId: cmd.accountId, ...(cmd.marketId === 0 ? {} : { marketId: cmd.marketId }) }));
        break;
      case "cancelAllAfter":
        answer(engine.cancelAllAfter({ atMicros: now, accountId: cmd.accountId, timeoutMs: cmd.timeoutMs }));
        break;
      case "mark":
        answer(engine.setMarkPrice({ atMicros: now, marketId: 1, priceTicks: cmd.priceTicks }));
        break;
      case "state":
        answer(engine.setMarketState({ atMicros: now, marketId: 1, halted: cmd.halted, reopening: cmd.reopening, settlementPaused: cmd.settlementPaused }));
        break;
    }
    for (const [key, lots] of positions) {
      if ((before.get(key) ?? 0) !== lots) engine.positionChanged({ atMicros: now, accountId: Number(key.split(":")[0]), marketId: 1 });
    }
    engine.checkInvariants();
  }
  return trace;
}

describe("reusing ended orders' objects", () => {
  it("changes no answer, row or fill, and leaves every kept row and fill reading as it did when emitted (seeded streams)", () => {
    let reusedObjects = 0;
    fc.assert(
      fc.property(fc.array(commandArbitrary(8), { minLength: 20, maxLength: 160 }), (commands) => {
        const reusing = runStream(commands, "reuse");
        const pinned = runStream(commands, "pin");
        expect(pinned.reusedObjects).toBe(0);
        expect(reusing.answers).toEqual(pinned.answers);
        expect(reusing.events).toEqual(pinned.events);
        for (const { row, atEmission } of reusing.rows) expect(rowSnapshot(row)).toBe(atEmission);
        for (const { fill, atEmission } of reusing.fills) expect(fillSnapshot(fill)).toBe(atEmission);
        reusedObjects += reusing.reusedObjects;
      }),
      { seed: 20261127, numRuns: 150 },
    );
    // The streams did exercise reuse: without it this test would compare two identical engines.
    expect(reusedObjects).toBeGreaterThan(100);
  });

  it("a new order takes the object of one that ended and was only peeked at", () => {
    const h = harness();
    const first = ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 1 }));
    const object = h.engine.peekOrder(first.orderId)!;
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: PERP.marketId, accountId: 1, orderId: first.orderId }));
    const second = ok(h.create({ accountId: 2, isBuy: false, priceTicks: 110, qtyLots: 3 }));
    expect(h.engine.peekOrder(second.orderId)).toBe(object);
    expect(object.orderId).toBe(second.orderId);
    expect(object.accountId).toBe(2);
    // The first order's rows still read as the first order.
    expect(first.orderId).not.toBe(second.orderId);
    expect(first.accountId).toBe(1);
    expect(first.isBuy).toBe(true);
  });

  it.each([
    ["order", (engine: Engine, orderId: string) => engine.order(orderId)],
    ["orderByClientId", (engine: Engine) => engine.orderByClientId(1, "77")],
    ["openOrders", (engine: Engine) => engine.openOrders(1)[0]],
  ] as const)("an order handed out by %s is never reused: its holder keeps reading that order", (_, handOut) => {
    const h = harness();
    const first = ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 1, clientOrderId: "77" }));
    const held = handOut(h.engine, first.orderId)!;
    expect(held.orderId).toBe(first.orderId);
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: PERP.marketId, accountId: 1, orderId: first.orderId }));
    for (let i = 0; i < 20; i++) {
      const next = ok(h.create({ accountId: 2 + i, isBuy: false, priceTicks: 120 + i, qtyLots: 2 }));
      expect(h.engine.peekOrder(next.orderId)).not.toBe(held);
    }
    expect(held.orderId).toBe(first.orderId);
    expect(held.accountId).toBe(1);
    expect(held.clientOrderId).toBe("77");
    expect(held.status).toBe("CANCELLED");
  });

  it("the open-order impact of a modify (the gateway's cap check) and peekOpenOrders pin nothing: the object is reused once its order ends", () => {
    const h = harness();
    const first = ok(h.create({ accountId: 1, isBuy: true, priceTicks: 100, qtyLots: 1 }));
    const object = h.engine.peekOrder(first.orderId)!;
    const modify = { atMicros: h.now, marketId: PERP.marketId, exchangeId: 1, accountId: 1, ownerId: 1, orderId: first.orderId, isBuy: true, orderType: "LIMIT" as const, timeInForce: "GTC" as const, priceTicks: 101, qtyLots: 2 };
    expect(h.engine.openOrderImpactUnitsOfModify(modify).notionalDeltaUnits).toBeGreaterThan(0n);
    expect(h.engine.openOrderImpactOfModify(modify).notionalDelta.gt(0)).toBe(true);
    expect(object.pinned).toBe(false);
    // Nor do the listings the exchange formats at once (REST openOrders, stream snapshots, state dumps).
    expect(h.engine.peekOpenOrders(1)).toEqual([object]);
    expect(object.pinned).toBe(false);
    ok(h.engine.cancelOrder({ atMicros: h.now, marketId: PERP.marketId, accountId: 1, orderId: first.orderId }));
    const second = ok(h.create({ accountId: 2, isBuy: false, priceTicks: 110, qtyLots: 3 }));
    expect(h.engine.peekOrder(second.orderId)).toBe(object);
  });

  it("a reused object equals a new order field by field and in field order, whatever state it ended in (seeded)", () => {
    const market = new Market(PERP, 0);
    const otherMarket = new Market({ ...PERP, marketId: 9, symbol: "OTHERPERP" }, 1);
    const createArbitrary = fc.record({
      accountId: fc.integer({ min: 1, max: 1_000 }),
      ownerId: fc.integer({ min: 1, max: 1_000 }),
      exchangeId: fc.integer({ min: 1, max: 3 }),
      isBuy: fc.boolean(),
      orderType: fc.constantFrom("LIMIT" as const, "STOP_LOSS" as const, "TAKE_PROFIT" as const),
      timeInForce: fc.constantFrom("GTC" as const, "IOC" as const, "GTT" as const),
      priceTicks: fc.integer({ min: 1, max: 1_000_000 }),
      reduceOnly: fc.option(fc.boolean(), { nil: undefined }),
      postOnly: fc.option(fc.boolean(), { nil: undefined }),
      clientOrderId: fc.option(fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }).map(String), { nil: undefined }),
      expiresAfterSec: fc.option(fc.integer({ min: 1, max: 2_000_000_000 }), { nil: undefined }),
      triggerTicks: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
    });
    const command = (fields: typeof createArbitrary extends fc.Arbitrary<infer T> ? T : never, atMicros: number): CreateOrderCommand => {
      const cmd: Record<string, unknown> = { atMicros, marketId: PERP.marketId, ...fields };
      for (const key of Object.keys(cmd)) if (cmd[key] === undefined) delete cmd[key];
      return cmd as unknown as CreateOrderCommand;
    };
    const fieldsOf = (order: Order) => Object.entries(order).map(([key, value]) => [key, value instanceof Object && !(value instanceof Market) ? { ...value } : value]);
    fc.assert(
      fc.property(createArbitrary, createArbitrary, fc.integer({ min: 0, max: 1e15 }), fc.integer({ min: 0, max: 1e15 }), (first, second, at1, at2) => {
        const spare = new Order(command(first, at1), null, 5, otherMarket, 7, at1);
        // Ended in some state: filled part, id text read, links and extras set, status and reason written.
        spare.cumLots = 3;
        (spare as unknown as { idText: string }).idText = "5"; // as after a read of orderId
        spare.timerId = 42;
        spare.triggered = true;
        spare.finish(2, 6, 99, 123);
        const fresh = new Order(command(second, at2), null, 11, market, 4, at2);
        const reused = spare.reuse(command(second, at2), 11, market, 4, at2);
        expect(fieldsOf(reused)).toEqual(fieldsOf(fresh));
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });
});
