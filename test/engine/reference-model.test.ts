/**
 * Differential test: the engine against a reference model of the book
 * (reference-book.ts), written apart from src/engine from the rules of the
 * issue and the specification, over seeded random streams of LIMIT
 * commands. After every step both must agree on:
 * - whether the request was accepted, and the error code when not;
 * - the fills, in order: taker, maker, price and quantity (price-time
 *   priority and FIFO within a level are checked here);
 * - which orders changed, and each one's status, cancel reason, price,
 *   qty and cumQty;
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
import { ReferenceBook, type ModelFill, type Outcome } from "./reference-book.ts";

const ACCOUNTS = 4;
const ownerOf = (accountId: number): number => 100 + accountId;
/** Minimum lots per market (helpers.ts: the perp's minOrderQty is one step, the spot's three). */
const MIN_LOTS: Record<number, number> = { 1: 1, 2: 3 };

type Step =
  | { kind: "create"; accountId: number; marketId: number; isBuy: boolean; tif: "GTC" | "IOC" | "GTT"; distance: number; qtyLots: number; postOnly: boolean; clientOrderId: number; expiresInSec: number }
  | { kind: "cancel"; pick: number; byClientId: boolean; otherAccount: boolean }
  | { kind: "modify"; pick: number; priceDelta: number; qtyDelta: number; flipPostOnly: boolean; expiryDelta: number; otherAccount: boolean }
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
      distance: fc.integer({ min: -1, max: 4 }),
      qtyLots: fc.integer({ min: 1, max: 8 }),
      postOnly: fc.constantFrom(false, false, false, true),
      clientOrderId: fc.integer({ min: 0, max: 3 }),
      expiresInSec: fc.integer({ min: 3, max: 30 }),
    }),
  },
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
  readonly engine = new Engine({
    markets: [PERP, SPOT],
    sink: { orderUpdate: (update) => this.updates.push(update), fill: (fill) => this.fills.push(fill) },
  });
  /** Order ids the engine issued, for picking targets. */
  private readonly seen: string[] = [];
  now = T0;

  constructor() {
    this.model.now = T0;
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
  }

  private timers(): void {
    this.engine.advanceTo(this.now);
    this.model.advanceTo(this.now);
    this.compare(`timers at ${this.now - T0} µs`);
  }

  private run(s: Exclude<Step, { kind: "advance" }>): [ReturnType<Engine["createOrder"]> | ReturnType<Engine["cancelAll"]> | ReturnType<Engine["cancelAllAfter"]>, Outcome] {
    const at = this.now;
    switch (s.kind) {
      case "create": {
        const qtyLots = Math.max(s.qtyLots, MIN_LOTS[s.marketId]!);
        const priceTicks = s.isBuy ? 100 - s.distance : 100 + s.distance;
        const postOnly = s.postOnly && s.tif !== "IOC";
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
          ...(clientOrderId !== null ? { clientOrderId } : {}),
          ...(s.tif === "GTT" ? { expiresAfterSec } : {}),
        };
        const result = this.engine.createOrder(cmd);
        // The model keys its orders by the engine's ids; a create the engine refuses gets a name no engine id has.
        const orderId = result.ok ? result.orderId : "refused";
        if (result.ok) this.seen.push(result.orderId);
        const outcome = this.model.create(orderId, { accountId: s.accountId, marketId: s.marketId, isBuy: s.isBuy, tif: s.tif, clientOrderId, priceTicks, qtyLots, postOnly, expiresAfterSec });
        if (!result.ok) this.model.orders.delete("refused");
        return [result, outcome];
      }
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
        const change = {
          priceTicks: Math.max(1, target.priceTicks + s.priceDelta),
          qtyLots: Math.max(MIN_LOTS[target.marketId]!, target.qtyLots + s.qtyDelta),
          postOnly: s.flipPostOnly && target.tif !== "IOC" ? !target.postOnly : target.postOnly, // postOnly with IOC is a malformed request
          expiresAfterSec: target.tif === "GTT" ? target.expiresAfterSec + s.expiryDelta : 0,
        };
        const cmd: ModifyOrderCommand = {
          atMicros: at,
          marketId: target.marketId,
          exchangeId: 1,
          accountId,
          ownerId: ownerOf(accountId),
          orderId: target.orderId,
          isBuy: target.isBuy,
          orderType: "LIMIT",
          timeInForce: target.tif,
          priceTicks: change.priceTicks,
          qtyLots: change.qtyLots,
          ...(target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : {}),
          ...(change.postOnly ? { postOnly: true } : {}),
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
      changed: sortById([...last.values()].map((update) => ({ orderId: update.orderId, status: update.status, cancelReason: update.cancelReason, priceTicks: update.priceTicks, qtyLots: update.qtyLots, cumLots: update.cumLots }))),
      open: sortById(this.engine.openOrders(1).concat(...[2, 3, 4].map((accountId) => this.engine.openOrders(accountId))).map((order) => ({ orderId: order.orderId, accountId: order.accountId, priceTicks: order.priceTicks, qtyLots: order.qtyLots, cumLots: order.cumLots }))),
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
          return { orderId, status: order.status, cancelReason: order.cancelReason, priceTicks: order.priceTicks, qtyLots: order.qtyLots, cumLots: order.cumLots };
        }),
      ),
      open: sortById(this.model.open().map((order) => ({ orderId: order.orderId, accountId: order.accountId, priceTicks: order.priceTicks, qtyLots: order.qtyLots, cumLots: order.cumLots }))),
      depth: [1, 2].map((marketId) => {
        const levels = (isBuy: boolean) => {
          const byPrice = new Map<number, number>();
          for (const order of this.model.open(marketId)) if (order.isBuy === isBuy) byPrice.set(order.priceTicks, (byPrice.get(order.priceTicks) ?? 0) + order.qtyLots - order.cumLots);
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
