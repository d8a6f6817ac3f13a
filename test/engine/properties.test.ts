/**
 * Invariants over random command streams (seeded fast-check):
 * - the resting book is never crossed, every level's aggregate equals the
 *   sum of its orders, and the engine's structures agree (checkInvariants);
 * - cumQty <= qty and never decreases; only the transitions of spec 3.1
 *   occur; FILLED and CANCELLED are terminal; a CANCELLED row has a reason;
 * - order sequence numbers increase strictly; fill ids are gap-free;
 * - no fill ever matches an account with itself, and every fill is at the
 *   maker's price within the taker's limit;
 * - a rejected request emits nothing;
 * - depth-stream updates applied to the snapshot equal the REST top 100;
 * - open-order figures equal a recount of the resting orders.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import type { OrderUpdate } from "../../src/engine/events.ts";
import { DepthStream, type DepthLevel } from "../../src/engine/depth.ts";
import type { CreateOrderCommand, Fill, ModifyOrderCommand } from "../../src/engine/types.ts";
import { ACCOUNTS, commandArbitrary, engineWithStandInRisk, createCommandOf, modifyCommandOf, ownerOf, type Command } from "./command-stream.ts";
import { PERP, T0 } from "./helpers.ts";

const command = commandArbitrary(5);

/** A run: the engine, a risk layer's stand-in (positions from fills, a deterministic risk verdict) and the checks. */
class Run {
  readonly engine: Engine;
  readonly positions: Map<string, number>;
  now = T0;
  private updates: OrderUpdate[] = [];
  private fills: Fill[] = [];
  private lastSequence = 0;
  private lastFillId: bigint | null = null;
  private readonly last = new Map<string, { status: string; cumLots: number; triggered: boolean }>();
  /** Order ids ever seen, for picking targets. */
  private readonly seen: { orderId: string; accountId: number; clientOrderId: string | null; marketId: number }[] = [];
  private readonly views = new Map<number, { bids: Map<number, number>; asks: Map<number, number> }>();

  constructor() {
    const { engine, positions } = engineWithStandInRisk({ orderUpdate: (update) => this.updates.push(update), fill: (fill) => this.fills.push(fill) });
    this.engine = engine;
    this.positions = positions;
    for (const marketId of [1, 2]) {
      const stream = this.engine.depthStream(marketId);
      const snapshot = stream.snapshot();
      this.views.set(marketId, { bids: toMap(snapshot.bids), asks: toMap(snapshot.asks) });
    }
  }

  apply(cmd: Command): void {
    if (cmd.kind === "advance") {
      this.now += cmd.dtMicros;
      this.engine.advanceTo(this.now);
      this.check(true);
      return;
    }
    this.engine.advanceTo(this.now); // timers due now run before the command
    this.check(true);
    const positionsBefore = new Map(this.positions);
    this.check(this.run(cmd));
    this.followPositions(positionsBefore);
  }

  private run(cmd: Exclude<Command, { kind: "advance" }>): boolean {
    const at = this.now;
    switch (cmd.kind) {
      case "create":
        return this.engine.createOrder(this.createCommand(cmd)).ok;
      case "cancel": {
        const target = this.pick(cmd.pick);
        if (target === undefined) return true;
        const by = cmd.byClientId && target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId };
        return this.engine.cancelOrder({ atMicros: at, marketId: target.marketId, accountId: target.accountId, ...by }).ok;
      }
      case "modify": {
        const command = this.modifyCommand(cmd);
        return command === undefined ? true : this.engine.modifyOrder(command).ok;
      }
      case "cancelAll":
        return this.engine.cancelAll({ atMicros: at, accountId: cmd.accountId, ...(cmd.marketId === 0 ? {} : { marketId: cmd.marketId }) }).ok;
      case "cancelAllAfter":
        return this.engine.cancelAllAfter({ atMicros: at, accountId: cmd.accountId, timeoutMs: cmd.timeoutMs }).ok;
      case "mark":
        return this.engine.setMarkPrice({ atMicros: at, marketId: 1, priceTicks: cmd.priceTicks }).ok;
      case "state":
        return this.engine.setMarketState({ atMicros: at, marketId: 1, halted: cmd.halted, reopening: cmd.reopening, settlementPaused: cmd.settlementPaused }).ok;
    }
  }

  private createCommand(cmd: Extract<Command, { kind: "create" }>): CreateOrderCommand {
    return createCommandOf(cmd, this.now);
  }

  private pick(n: number) {
    return this.seen.length === 0 ? undefined : this.seen[n % this.seen.length];
  }

  private modifyCommand(cmd: Extract<Command, { kind: "modify" }>): ModifyOrderCommand | undefined {
    const target = this.pick(cmd.pick);
    const order = target === undefined ? undefined : this.engine.order(target.orderId);
    return order === undefined ? undefined : modifyCommandOf(cmd, order, this.now);
  }

  /** What the exchange does after a command: tell the engine whose positions changed. */
  private followPositions(before: Map<string, number>): void {
    for (const [key, lots] of this.positions) {
      if ((before.get(key) ?? 0) === lots) continue;
      const accountId = Number(key.split(":")[0]);
      this.engine.positionChanged({ atMicros: this.now, accountId, marketId: 1 });
      this.check(true);
    }
  }

  private check(accepted: boolean): void {
    this.engine.checkInvariants();
    for (const update of this.updates) this.checkUpdate(update);
    const limits = new Map(this.updates.map((update) => [update.orderId, update.priceTicks]));
    for (const fill of this.fills) this.checkFill(fill, limits);
    if (!accepted) expect(this.updates.length + this.fills.length).toBe(0);
    this.checkDepth();
    this.checkFigures();
    this.updates = [];
    this.fills = [];
  }

  private checkUpdate(update: OrderUpdate): void {
    expect(update.sequenceNumber).toBe(this.lastSequence + 1);
    this.lastSequence = update.sequenceNumber;
    expect(update.cumLots).toBeLessThanOrEqual(Math.max(update.qtyLots, 0));
    expect(update.cancelReason !== null).toBe(update.status === "CANCELLED");
    if (update.orderType === "LIMIT") expect(update.triggered).toBe(false);
    if (update.fillCount > 0) {
      expect(update.execLots).toBeGreaterThan(0);
      expect(update.firstFillId).not.toBeNull();
    } else {
      expect(update.execLots).toBe(0);
    }
    const previous = this.last.get(update.orderId);
    if (previous === undefined) {
      this.seen.push({ orderId: update.orderId, accountId: update.accountId, clientOrderId: update.clientOrderId, marketId: update.marketId });
    } else {
      expect(previous.status, `order ${update.orderId} changed after ${previous.status}`).toBe("OPEN");
      expect(update.cumLots).toBeGreaterThanOrEqual(previous.cumLots);
      if (previous.triggered) expect(update.triggered).toBe(true);
    }
    this.last.set(update.orderId, { status: update.status, cumLots: update.cumLots, triggered: update.triggered });
  }

  /** `limits`: the limit price of each order with a row in this command (takers and makers both have one). */
  private checkFill(fill: Fill, limits: Map<string, number>): void {
    const id = BigInt(fill.fillId);
    if (this.lastFillId !== null) expect(id).toBe(this.lastFillId + 1n);
    this.lastFillId = id;
    expect(fill.takerAccountId).not.toBe(fill.makerAccountId);
    expect(fill.qtyLots).toBeGreaterThan(0);
    expect(fill.priceTicks, "a fill is at the maker's price").toBe(limits.get(fill.makerOrderId));
    const takerLimit = limits.get(fill.takerOrderId)!;
    if (fill.takerSide === "B") expect(fill.priceTicks).toBeLessThanOrEqual(takerLimit);
    else expect(fill.priceTicks).toBeGreaterThanOrEqual(takerLimit);
  }

  private checkDepth(): void {
    for (const [marketId, view] of this.views) {
      const update = this.engine.depthStream(marketId).update();
      if (update !== null) {
        apply(view.bids, update.bids);
        apply(view.asks, update.asks);
      }
      const rest = this.engine.depth(marketId, 100);
      if (!rest.ok) throw new Error(rest.error.message);
      expect(sorted(view.bids, -1)).toEqual(rest.bids.map(pair));
      expect(sorted(view.asks, 1)).toEqual(rest.asks.map(pair));
    }
  }

  private checkFigures(): void {
    const counts = new Map<number, number>();
    for (let accountId = 1; accountId <= ACCOUNTS; accountId++) {
      for (const order of this.engine.openOrders(accountId)) {
        if (order.level === null) continue;
        counts.set(order.ownerId, (counts.get(order.ownerId) ?? 0) + 1);
      }
    }
    for (let accountId = 1; accountId <= ACCOUNTS; accountId++) {
      const ownerId = ownerOf(accountId);
      expect(this.engine.openOrderFigures(ownerId).count).toBe(counts.get(ownerId) ?? 0);
    }
  }

  /** The notional of every owner, recomputed from the resting orders (checked once per run: it is slow). */
  checkNotional(): void {
    const expected = new Map<number, number>();
    for (let accountId = 1; accountId <= ACCOUNTS; accountId++) {
      for (const order of this.engine.openOrders(accountId)) {
        if (order.level === null) continue;
        const unit = order.market.marketId === 1 ? 0.0005 : 0.001; // tick x lot, scaled below
        expected.set(order.ownerId, (expected.get(order.ownerId) ?? 0) + Math.round(order.remainingLots * order.priceTicks * unit * 1e4));
      }
    }
    for (const ownerId of new Set(Array.from({ length: ACCOUNTS }, (_, i) => ownerOf(i + 1)))) {
      expect(this.engine.openOrderFigures(ownerId).notional.mul(1e4).toNumber()).toBe(expected.get(ownerId) ?? 0);
    }
  }
}

function toMap(levels: readonly DepthLevel[]): Map<number, number> {
  return new Map(levels.map((level) => [level.priceTicks, level.qtyLots]));
}

function apply(view: Map<number, number>, levels: readonly DepthLevel[]): void {
  for (const level of levels) {
    if (level.qtyLots === 0) view.delete(level.priceTicks);
    else view.set(level.priceTicks, level.qtyLots);
  }
}

function sorted(view: Map<number, number>, direction: 1 | -1): [number, number][] {
  return [...view].sort((a, b) => direction * (a[0] - b[0]));
}

function pair(level: DepthLevel): [number, number] {
  return [level.priceTicks, level.qtyLots];
}

describe("engine invariants over random command streams", () => {
  it("hold for every command of every seeded stream", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 20, maxLength: 150, size: "max" }), (commands) => {
        const run = new Run();
        for (const cmd of commands) run.apply(cmd);
        run.checkNotional();
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("keep the depth stream equal to the REST view through boundary crossings (small views make them frequent)", () => {
    const steps = fc.array(
      fc.record({ isBuy: fc.boolean(), offset: fc.integer({ min: 0, max: 12 }), qtyLots: fc.integer({ min: 1, max: 5 }), cancel: fc.boolean() }),
      { minLength: 20, maxLength: 200 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), steps, (size, script) => {
        const engine = new Engine({ markets: [PERP] });
        const stream = new DepthStream(engine.market(1)!.book, size);
        const view = { bids: new Map<number, number>(), asks: new Map<number, number>() };
        const ids: string[] = [];
        let accountId = 0;
        for (const step of script) {
          if (step.cancel && ids.length > 0) {
            const orderId = ids[step.offset % ids.length]!;
            const order = engine.order(orderId);
            if (order !== undefined) engine.cancelOrder({ atMicros: T0, marketId: 1, accountId: order.accountId, orderId });
          } else {
            accountId += 1;
            const priceTicks = step.isBuy ? 100 - step.offset : 101 + step.offset;
            const result = engine.createOrder({ atMicros: T0, marketId: 1, exchangeId: 1, accountId, ownerId: 1, isBuy: step.isBuy, orderType: "LIMIT", timeInForce: "GTC", priceTicks, qtyLots: step.qtyLots });
            if (result.ok) ids.push(result.orderId);
          }
          const update = stream.update();
          if (update !== null) {
            apply(view.bids, update.bids);
            apply(view.asks, update.asks);
          }
          const rest = engine.depth(1, size);
          if (!rest.ok) throw new Error(rest.error.message);
          expect(sorted(view.bids, -1)).toEqual(rest.bids.map(pair));
          expect(sorted(view.asks, 1)).toEqual(rest.asks.map(pair));
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
