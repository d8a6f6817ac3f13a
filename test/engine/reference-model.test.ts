/**
 * Differential test: the engine against a reference model of the book
 * (reference-book.ts), written apart from src/engine from the rules of the
 * issue and the specification, over seeded random streams of commands
 * (LIMIT and stop creates, reduce-only, modifies, cancels, switches, marks
 * and time). Positions follow the perp fills on both sides, and after each
 * step the engine is told whose moved, as the exchange tells it. After
 * every step both must agree on:
 * - whether the request was accepted, and the error code when not;
 * - the fills, in order: taker, maker, price and quantity (price-time
 *   priority and FIFO within a level are checked here);
 * - which orders changed, and each one's status, cancel reason, triggered
 *   flag, price, trigger, qty and cumQty;
 * - every account's open orders, and both markets' depth.
 * The invariant tests (properties.test.ts) check that the engine is
 * self-consistent; this one checks that it does what the rules say.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import type { OrderUpdate } from "../../src/engine/events.ts";
import type { CreateOrderCommand, Fill, ModifyOrderCommand } from "../../src/engine/types.ts";
import { PERP, SEC, SPOT, T0 } from "./helpers.ts";
import { PERP_MARKET_ID, ReferenceBook, type ModelFill, type ModelOrder, type NewOrder, type Outcome } from "./reference-book.ts";

const ACCOUNTS = 4;
const ownerOf = (accountId: number): number => 100 + accountId;
/** Minimum lots per market (helpers.ts: the perp's minOrderQty is one step, the spot's three). */
const MIN_LOTS: Record<number, number> = { 1: 1, 2: 3 };
/** Accounts 1-2 start long this many perp lots and 3-4 short, so that stops and reduce-only orders have something to protect. */
const START_POSITION_LOTS = 12;

type Step =
  | { kind: "create"; accountId: number; marketId: number; isBuy: boolean; tif: "GTC" | "IOC" | "GTT"; distance: number; qtyLots: number; postOnly: boolean; reduceOnly: boolean; clientOrderId: number; expiresInSec: number }
  | { kind: "stop"; accountId: number; isBuy: boolean; orderType: "STOP_LOSS" | "TAKE_PROFIT"; tif: "GTC" | "IOC" | "GTT"; triggerTicks: number; limitOffset: number; clientOrderId: number; expiresInSec: number }
  | { kind: "mark"; markTicks: number }
  | { kind: "cancel"; pick: number; byClientId: boolean; otherAccount: boolean }
  | { kind: "modify"; pick: number; priceDelta: number; qtyDelta: number; flipPostOnly: boolean; expiryDelta: number; limitStretch: number; otherAccount: boolean }
  | { kind: "cancelAll"; accountId: number; marketId: number }
  | { kind: "cancelAllAfter"; accountId: number; timeoutMs: number }
  | { kind: "advance"; dtMicros: number };

const account = fc.integer({ min: 1, max: ACCOUNTS });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("create" as const),
      accountId: account,
      marketId: fc.constantFrom(1, 1, 2),
      isBuy: fc.boolean(),
      tif: fc.constantFrom<"GTC" | "IOC" | "GTT">("GTC", "GTC", "IOC", "GTT"),
      // Ticks behind the mid of 100 (buys below it, sells above; -1 crosses through it), so that queues form at each level.
      distance: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -1, max: 4 }) }, { weight: 1, arbitrary: fc.constant(-8) }),
      // Mostly small; now and then a large one that takes several makers (and a resting child after its account's other orders).
      qtyLots: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 8 }) }, { weight: 1, arbitrary: fc.integer({ min: 15, max: 40 }) }),
      postOnly: fc.constantFrom(false, false, false, true),
      reduceOnly: fc.constantFrom(false, false, false, true),
      clientOrderId: fc.integer({ min: 0, max: 3 }),
      expiresInSec: fc.integer({ min: 3, max: 30 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("stop" as const),
      accountId: account,
      isBuy: fc.boolean(),
      orderType: fc.constantFrom<"STOP_LOSS" | "TAKE_PROFIT">("STOP_LOSS", "TAKE_PROFIT"),
      tif: fc.constantFrom<"GTC" | "IOC" | "GTT">("GTC", "IOC", "IOC", "GTT"),
      triggerTicks: fc.integer({ min: 95, max: 105 }),
      // Ticks of the limit through the trigger: 2 is within the 5% band, 8 outside it (no value near its edge).
      limitOffset: fc.constantFrom(2, 2, 2, -2, 8),
      clientOrderId: fc.integer({ min: 0, max: 3 }),
      expiresInSec: fc.integer({ min: 8, max: 40 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("mark" as const), markTicks: fc.integer({ min: 93, max: 107 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(), byClientId: fc.boolean(), otherAccount: fc.constantFrom(false, false, false, false, true) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("modify" as const),
      pick: fc.nat(),
      // Often 0: a modify that keeps its price (and its place, unless its qty grows) is where priority rules bite.
      priceDelta: fc.oneof(fc.constant(0), fc.integer({ min: -4, max: 4 })),
      qtyDelta: fc.oneof(fc.constant(0), fc.integer({ min: -3, max: 3 })),
      flipPostOnly: fc.constantFrom(false, false, false, true),
      expiryDelta: fc.constantFrom(0, 0, -10, 5, 20),
      // A stop's limit moved this much further from its trigger than the trigger moves: 7 ticks leaves the 5% band.
      limitStretch: fc.constantFrom(0, 0, 0, 7),
      otherAccount: fc.constantFrom(false, false, false, false, false, true),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), accountId: account, marketId: fc.constantFrom(0, 1, 2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAllAfter" as const), accountId: account, timeoutMs: fc.constantFrom(0, 5_000, 9_000) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("advance" as const), dtMicros: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 8 * SEC })) }) },
);

/** No order issued yet: a cancel or modify is skipped on both sides (an agreeing pair of outcomes). */
const NOTHING_TO_TARGET: [{ ok: true; cancelledCount: number }, Outcome] = [{ ok: true, cancelledCount: 0 }, { ok: true, count: 0 }];

/** The engine and the model side by side, fed the same steps. */
class Pair {
  readonly model = new ReferenceBook();
  private readonly fills: Fill[] = [];
  private readonly updates: OrderUpdate[] = [];
  /** The engine's positions (the risk layer's stand-in): perp lots by account, moved by every perp fill as it happens. */
  private readonly positions = new Map<number, number>();
  private readonly moved = new Set<number>();
  readonly engine = new Engine({
    markets: [PERP, SPOT],
    sink: {
      orderUpdate: (update) => this.updates.push(update),
      fill: (fill) => {
        this.fills.push(fill);
        if (fill.marketId !== PERP_MARKET_ID) return;
        const lots = fill.takerSide === "B" ? fill.qtyLots : -fill.qtyLots;
        this.move(fill.takerAccountId, lots);
        this.move(fill.makerAccountId, -lots);
      },
    },
    hooks: { positionLots: (accountId, marketId) => (marketId === PERP_MARKET_ID ? (this.positions.get(accountId) ?? 0) : 0) },
  });
  /** Order ids the engine issued, for picking targets. */
  private readonly seen: string[] = [];
  now = T0;

  constructor() {
    this.model.now = T0;
    for (let accountId = 1; accountId <= ACCOUNTS; accountId++) {
      const lots = accountId <= ACCOUNTS / 2 ? START_POSITION_LOTS : -START_POSITION_LOTS;
      this.positions.set(accountId, lots);
      this.model.positions.set(accountId, lots);
    }
  }

  private move(accountId: number, lots: number): void {
    this.positions.set(accountId, (this.positions.get(accountId) ?? 0) + lots);
    this.moved.add(accountId);
  }

  /** After a step, as the exchange does: the engine is told whose position moved, in account order; the model likewise. */
  private followPositions(where: string): void {
    const moved = [...this.moved].sort((a, b) => a - b);
    this.moved.clear();
    const modelMoved = this.model.takeMovedPositions();
    if (JSON.stringify(moved) !== JSON.stringify(modelMoved)) expect(moved, `accounts whose position moved, ${where}`).toEqual(modelMoved);
    for (const accountId of moved) {
      this.engine.positionChanged({ atMicros: this.now, accountId, marketId: PERP_MARKET_ID });
      this.model.positionChanged(accountId);
    }
  }

  apply(s: Step): void {
    if (s.kind === "advance") {
      this.now += s.dtMicros;
      this.timers();
      return;
    }
    this.timers(); // what is due now runs before the command, on both sides
    const [engine, model] = this.run(s);
    const where = `${s.kind} at ${this.now - T0} µs`;
    const outcome = outcomeOf(engine);
    if (JSON.stringify(outcome) !== JSON.stringify(model)) expect(outcome, where).toEqual(model);
    this.compare(where);
    this.followPositions(where);
    this.compare(`after the positions moved, ${where}`);
  }

  private timers(): void {
    this.engine.advanceTo(this.now);
    this.model.advanceTo(this.now);
    this.compare(`timers at ${this.now - T0} µs`);
  }

  private run(
    s: Exclude<Step, { kind: "advance" }>,
  ): [ReturnType<Engine["createOrder"]> | ReturnType<Engine["cancelAll"]> | ReturnType<Engine["cancelAllAfter"]> | ReturnType<Engine["setMarkPrice"]>, Outcome] {
    const at = this.now;
    switch (s.kind) {
      case "create": {
        const qtyLots = Math.max(s.qtyLots, MIN_LOTS[s.marketId]!);
        const priceTicks = s.isBuy ? 100 - s.distance : 100 + s.distance;
        const postOnly = s.postOnly && s.tif !== "IOC";
        const reduceOnly = s.reduceOnly && s.tif === "IOC" && s.marketId === PERP_MARKET_ID; // reduce-only is for perp IOC orders
        const clientOrderId = s.clientOrderId > 0 ? String(s.clientOrderId) : null;
        const expiresAfterSec = s.tif === "GTT" ? Math.floor(at / SEC) + s.expiresInSec : 0;
        const cmd: CreateOrderCommand = {
          atMicros: at,
          marketId: s.marketId,
          exchangeId: 1,
          accountId: s.accountId,
          ownerId: ownerOf(s.accountId),
          isBuy: s.isBuy,
          orderType: "LIMIT",
          timeInForce: s.tif,
          priceTicks,
          qtyLots,
          ...(postOnly ? { postOnly: true } : {}),
          ...(reduceOnly ? { reduceOnly: true } : {}),
          ...(clientOrderId !== null ? { clientOrderId } : {}),
          ...(s.tif === "GTT" ? { expiresAfterSec } : {}),
        };
        return this.create(cmd, { accountId: s.accountId, marketId: s.marketId, isBuy: s.isBuy, orderType: "LIMIT", tif: s.tif, clientOrderId, reduceOnly, priceTicks, triggerTicks: 0, qtyLots, postOnly, expiresAfterSec });
      }
      case "stop": {
        const clientOrderId = s.clientOrderId > 0 ? String(s.clientOrderId) : null;
        const expiresAfterSec = s.tif === "GTT" ? Math.floor(at / SEC) + s.expiresInSec : 0;
        // The limit lies through the trigger in the direction the child trades (below it for a sell).
        const priceTicks = s.isBuy ? s.triggerTicks + s.limitOffset : s.triggerTicks - s.limitOffset;
        const cmd: CreateOrderCommand = {
          atMicros: at,
          marketId: PERP_MARKET_ID,
          exchangeId: 1,
          accountId: s.accountId,
          ownerId: ownerOf(s.accountId),
          isBuy: s.isBuy,
          orderType: s.orderType,
          timeInForce: s.tif,
          priceTicks,
          triggerTicks: s.triggerTicks,
          ...(clientOrderId !== null ? { clientOrderId } : {}),
          ...(s.tif === "GTT" ? { expiresAfterSec } : {}),
        };
        return this.create(cmd, { accountId: s.accountId, marketId: PERP_MARKET_ID, isBuy: s.isBuy, orderType: s.orderType, tif: s.tif, clientOrderId, reduceOnly: false, priceTicks, triggerTicks: s.triggerTicks, qtyLots: 0, postOnly: false, expiresAfterSec });
      }
      case "mark":
        return [this.engine.setMarkPrice({ atMicros: at, marketId: PERP_MARKET_ID, priceTicks: s.markTicks }), this.model.setMark(s.markTicks)];
      case "cancel": {
        const target = this.pick(s.pick);
        if (target === undefined) return NOTHING_TO_TARGET;
        const accountId = s.otherAccount ? (target.accountId % ACCOUNTS) + 1 : target.accountId;
        const by = s.byClientId && target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId };
        return [this.engine.cancelOrder({ atMicros: at, marketId: target.marketId, accountId, ...by }), this.model.cancel(accountId, target.marketId, by)];
      }
      case "modify": {
        const target = this.pick(s.pick);
        if (target === undefined) return NOTHING_TO_TARGET;
        const accountId = s.otherAccount ? (target.accountId % ACCOUNTS) + 1 : target.accountId;
        if (target.orderType !== "LIMIT") {
          // A stop restates itself with a new limit and trigger (and its GTT expiry unchanged); no qty.
          const triggerTicks = Math.max(1, target.triggerTicks + s.priceDelta);
          const priceTicks = Math.max(1, target.priceTicks + s.priceDelta + (target.isBuy ? s.limitStretch : -s.limitStretch));
          const cmd: ModifyOrderCommand = {
            ...this.restated(target, accountId, at),
            priceTicks,
            triggerTicks,
            ...(target.tif === "GTT" ? { expiresAfterSec: target.expiresAfterSec } : {}),
          };
          const change = { priceTicks, triggerTicks, qtyLots: 0, postOnly: false, expiresAfterSec: target.expiresAfterSec };
          return [this.engine.modifyOrder(cmd), this.model.modify(accountId, target.orderId, change)];
        }
        const change = {
          priceTicks: Math.max(1, target.priceTicks + s.priceDelta),
          qtyLots: Math.max(MIN_LOTS[target.marketId]!, target.qtyLots + s.qtyDelta),
          triggerTicks: 0,
          postOnly: s.flipPostOnly && target.tif !== "IOC" ? !target.postOnly : target.postOnly, // postOnly with IOC is a malformed request
          expiresAfterSec: target.tif === "GTT" ? target.expiresAfterSec + s.expiryDelta : 0,
        };
        const cmd: ModifyOrderCommand = {
          ...this.restated(target, accountId, at),
          priceTicks: change.priceTicks,
          qtyLots: change.qtyLots,
          ...(change.postOnly ? { postOnly: true } : {}),
          ...(target.reduceOnly ? { reduceOnly: true } : {}),
          ...(target.tif === "GTT" ? { expiresAfterSec: change.expiresAfterSec } : {}),
        };
        return [this.engine.modifyOrder(cmd), this.model.modify(accountId, target.orderId, change)];
      }
      case "cancelAll": {
        const marketId = s.marketId === 0 ? undefined : s.marketId;
        return [this.engine.cancelAll({ atMicros: at, accountId: s.accountId, ...(marketId === undefined ? {} : { marketId }) }), this.model.cancelAll(s.accountId, marketId)];
      }
      case "cancelAllAfter":
        return [this.engine.cancelAllAfter({ atMicros: at, accountId: s.accountId, timeoutMs: s.timeoutMs }), this.model.cancelAllAfter(s.accountId, s.timeoutMs)];
    }
  }

  /** A modify's restatement of the target's immutable fields, sent by `accountId` (perhaps not the owner's). */
  private restated(target: ModelOrder, accountId: number, at: number) {
    return {
      atMicros: at,
      marketId: target.marketId,
      exchangeId: 1,
      accountId,
      ownerId: ownerOf(accountId),
      orderId: target.orderId,
      isBuy: target.isBuy,
      orderType: target.orderType,
      timeInForce: target.tif,
      ...(target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : {}),
    };
  }

  /** A create on both sides; the model keys its orders by the engine's ids (a create the engine refuses gets a name no engine id has). */
  private create(cmd: CreateOrderCommand, fields: NewOrder): [ReturnType<Engine["createOrder"]>, Outcome] {
    const result = this.engine.createOrder(cmd);
    const orderId = result.ok ? result.orderId : "refused";
    if (result.ok) this.seen.push(result.orderId);
    const outcome = this.model.create(orderId, fields);
    if (!result.ok) this.model.orders.delete("refused");
    return [result, outcome];
  }

  /** A target: mostly a live order (n % 4 !== 0), else any order the engine issued (perhaps ended); the model's copy. */
  private pick(n: number) {
    const open = this.model.open();
    if (n % 4 !== 0 && open.length > 0) return open[(n >> 2) % open.length];
    return this.seen.length === 0 ? undefined : this.model.orders.get(this.seen[n % this.seen.length]!);
  }

  /** Both sides' fills, changed orders, open orders and depth since the last comparison, as one value each. */
  private compare(where: string): void {
    const engineFills: ModelFill[] = this.fills.map((fill) => ({ takerOrderId: fill.takerOrderId, makerOrderId: fill.makerOrderId, priceTicks: fill.priceTicks, qtyLots: fill.qtyLots }));
    const last = new Map<string, OrderUpdate>();
    for (const update of this.updates) last.set(update.orderId, update);
    this.fills.length = 0;
    this.updates.length = 0;
    const engine = {
      fills: engineFills,
      changed: sortById(
        [...last.values()].map((update) => ({
          orderId: update.orderId,
          status: update.status,
          cancelReason: update.cancelReason,
          triggered: update.triggered,
          priceTicks: update.priceTicks,
          triggerTicks: update.triggerTicks,
          qtyLots: update.qtyLots,
          cumLots: update.cumLots,
        })),
      ),
      open: sortById(
        this.engine
          .openOrders(1)
          .concat(...[2, 3, 4].map((accountId) => this.engine.openOrders(accountId)))
          .map((order) => ({ orderId: order.orderId, accountId: order.accountId, triggered: order.triggered, priceTicks: order.priceTicks, qtyLots: order.qtyLots, cumLots: order.cumLots })),
      ),
      depth: [1, 2].map((marketId) => {
        const depth = this.engine.depth(marketId, 1000);
        if (!depth.ok) throw new Error(`depth of market ${marketId}: ${depth.error.message}`);
        const plain = (side: readonly { priceTicks: number; qtyLots: number }[]) => side.map((level) => ({ priceTicks: level.priceTicks, qtyLots: level.qtyLots }));
        return { bids: plain(depth.bids), asks: plain(depth.asks) };
      }),
    };
    const model = {
      fills: this.model.takeFills(),
      changed: sortById(
        this.model.takeTouched().map((orderId) => {
          const order = this.model.orders.get(orderId)!;
          return {
            orderId,
            status: order.status,
            cancelReason: order.cancelReason,
            triggered: order.triggered,
            priceTicks: order.priceTicks,
            triggerTicks: order.triggerTicks,
            qtyLots: order.qtyLots,
            cumLots: order.cumLots,
          };
        }),
      ),
      open: sortById(
        this.model.open().map((order) => ({ orderId: order.orderId, accountId: order.accountId, triggered: order.triggered, priceTicks: order.priceTicks, qtyLots: order.qtyLots, cumLots: order.cumLots })),
      ),
      depth: [1, 2].map((marketId) => {
        const levels = (isBuy: boolean) => {
          const byPrice = new Map<number, number>();
          for (const order of this.model.open(marketId)) if (order.isBuy === isBuy && (order.orderType === "LIMIT" || order.triggered)) byPrice.set(order.priceTicks, (byPrice.get(order.priceTicks) ?? 0) + order.qtyLots - order.cumLots);
          return [...byPrice].sort((a, b) => (isBuy ? b[0] - a[0] : a[0] - b[0])).map(([priceTicks, qtyLots]) => ({ priceTicks, qtyLots }));
        };
        return { bids: levels(true), asks: levels(false) };
      }),
    };
    // One string comparison per step; expect's diff only when they differ.
    if (JSON.stringify(engine) !== JSON.stringify(model)) expect(engine, where).toEqual(model);
  }
}

function outcomeOf(result: { ok: true; cancelledCount?: number } | { ok: false; error: { code: string } }): Outcome {
  if (!result.ok) return { ok: false, code: result.error.code };
  return "cancelledCount" in result && result.cancelledCount !== undefined ? { ok: true, count: result.cancelledCount } : { ok: true };
}

function sortById<T extends { orderId: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (BigInt(a.orderId) < BigInt(b.orderId) ? -1 : 1));
}

describe("the engine against a reference model of the book", () => {
  it("agrees on every outcome, fill, order state, open order and depth level over seeded random LIMIT streams", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200, size: "max" }), (steps) => {
        const pair = new Pair();
        for (const s of steps) pair.apply(s);
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});
