/**
 * The matching engine: one central limit order book per market (perp and
 * spot), price-time priority, and the order behaviours of the specification.
 *
 * It is deterministic and knows nothing of clocks, transports or signatures:
 * it is handed validated commands in integer units (ticks, lots) with their
 * virtual time, answers each with a result (`{ ok: true, ...response }` or
 * `{ ok: false, error }`, and a rejection changes nothing), emits events to
 * its sink, consults its hooks (positions, match-time risk), and asks its
 * scheduler for timers (GTT expiry, cancelAllAfter).
 *
 * Commands must come in non-decreasing virtual time and must not be issued
 * from inside the sink or the hooks (the engine is not re-entrant).
 * Without a driver scheduler the engine uses a ManualScheduler of its own
 * and runs the timers due at or before each command's time before the
 * command (`advanceTo` runs them without a command).
 *
 * Each command lives in its own module (create.ts, modify.ts, cancel.ts,
 * cancel-all-after.ts, stops.ts) as a function of the shared state
 * (lifecycle.ts); this class binds them and adds the queries.
 */
import { Dec } from "../core/decimal.ts";
import { assert } from "../core/assert.ts";
import type { Scheduler } from "../core/scheduler.ts";
import { CancelAllAfterSwitches } from "./cancel-all-after.ts";
import { cancelAll, cancelForReason, cancelOrder } from "./cancel.ts";
import { createOrder } from "./create.ts";
import { DepthStream, depthView, type DepthLevels } from "./depth.ts";
import { NULL_SINK, type EngineHooks, type EngineSink, type OrderUpdate } from "./events.ts";
import { checkInvariants, dumpState, type EngineStateDump } from "./dump.ts";
import { EngineCore } from "./lifecycle.ts";
import { Market } from "./market.ts";
import { modifyOrder } from "./modify.ts";
import type { OpenOrderFigures, OpenOrderUnits } from "./open-orders.ts";
import type { Order } from "./order.ts";
import { fireDueStops, followPosition } from "./stops.ts";
import { ManualScheduler } from "./timers.ts";
import {
  DEFAULT_ENGINE_CONFIG,
  DEPTH_LIMIT_DEFAULT,
  DEPTH_LIMIT_MAX,
  reject,
  type CancelAllAfterCommand,
  type CancelAllAfterResponse,
  type CancelAllCommand,
  type CancelAllResponse,
  type CancelOrderCommand,
  type CancelReason,
  type CreateOrderCommand,
  type EngineConfig,
  type EngineResult,
  type MarketSpec,
  type MarketState,
  type Rejection,
  type ModifyOrderCommand,
} from "./types.ts";

export interface EngineOptions {
  readonly markets: readonly MarketSpec[];
  readonly sink?: Partial<EngineSink>;
  readonly hooks?: Partial<EngineHooks>;
  /** The driver's scheduler; by default a ManualScheduler advanced to each command's time. */
  readonly scheduler?: Scheduler;
  readonly config?: Partial<EngineConfig>;
}

/**
 * A new mark price. A mark is any decimal, not only a whole number of
 * ticks: `priceTicks` is the mark rounded down to the tick grid, and
 * `betweenTicks` says that the mark lies strictly between priceTicks and
 * priceTicks + 1 ticks. Stops compare the mark itself (triggers.ts isDue):
 * a stop-loss at 2900 does not fire at a mark of 2900.004, which a mark
 * rounded to the grid would make 2900.
 */
export interface SetMarkPriceCommand {
  readonly atMicros: number;
  readonly marketId: number;
  readonly priceTicks: number;
  /** True when the mark is off the tick grid, strictly above priceTicks (default false: the mark is priceTicks). */
  readonly betweenTicks?: boolean;
}

export interface SetMarketStateCommand extends Partial<MarketState> {
  readonly atMicros: number;
  readonly marketId: number;
}

export interface PositionChangedCommand {
  readonly atMicros: number;
  readonly accountId: number;
  readonly marketId: number;
}

export interface CancelForReasonCommand {
  readonly atMicros: number;
  readonly orderId: string;
  readonly reason: CancelReason;
}

export interface DepthResult extends DepthLevels {
  readonly updatedAtMicros: number;
}

/** OpenOrderImpact in integer units of 10^-openOrderNotionalDecimals USD. */
export interface OpenOrderImpactUnits {
  readonly ownerId: number;
  readonly countDelta: number;
  readonly notionalDeltaUnits: bigint;
}

export interface OpenOrderImpact {
  readonly ownerId: number;
  readonly countDelta: number;
  /** Change of the owner's open-order notional, in the quote currency. */
  readonly notionalDelta: Dec;
}

export class Engine {
  private readonly core: EngineCore;
  private readonly manual: ManualScheduler | null;
  private readonly switches: CancelAllAfterSwitches;
  private readonly marketList: Market[];
  private readonly bySymbol = new Map<string, Market>();
  private busy = false;

  constructor(options: EngineOptions) {
    const config: EngineConfig = { ...DEFAULT_ENGINE_CONFIG, ...options.config };
    checkConfig(config);
    this.marketList = options.markets.map((spec, index) => new Market(spec, index));
    for (const market of this.marketList) {
      assert(!this.bySymbol.has(market.symbol), `market symbol ${market.symbol} is registered once`);
      this.bySymbol.set(market.symbol, market);
    }
    this.manual = options.scheduler === undefined ? new ManualScheduler() : null;
    const sink: EngineSink = { ...NULL_SINK, ...options.sink };
    const hooks: EngineHooks = { positionLots: () => 0, checkFill: () => "ok", ...options.hooks };
    this.core = new EngineCore(this.marketList, config, sink, hooks, options.scheduler ?? this.manual!, options.hooks?.checkFill !== undefined);
    this.core.runTimer = (action) => this.runTimer(action);
    this.switches = new CancelAllAfterSwitches(this.core);
  }

  // -- commands ----------------------------------------------------------------

  createOrder(cmd: CreateOrderCommand): OrderUpdate | Rejection {
    this.begin(cmd.atMicros);
    try {
      return createOrder(this.core, cmd);
    } finally {
      this.end();
    }
  }

  modifyOrder(cmd: ModifyOrderCommand): OrderUpdate | Rejection {
    this.begin(cmd.atMicros);
    try {
      return modifyOrder(this.core, cmd);
    } finally {
      this.end();
    }
  }

  cancelOrder(cmd: CancelOrderCommand): OrderUpdate | Rejection {
    this.begin(cmd.atMicros);
    try {
      return cancelOrder(this.core, cmd);
    } finally {
      this.end();
    }
  }

  cancelAll(cmd: CancelAllCommand): EngineResult<CancelAllResponse> {
    return this.command(cmd.atMicros, () => cancelAll(this.core, cmd));
  }

  cancelAllAfter(cmd: CancelAllAfterCommand): EngineResult<CancelAllAfterResponse> {
    return this.command(cmd.atMicros, () => this.switches.handle(cmd));
  }

  /** The exchange cancels a live order for a reason of its own (RISK_CANCELLED, POSITION_CLOSED, ...). */
  cancelForReason(cmd: CancelForReasonCommand): OrderUpdate | Rejection {
    this.begin(cmd.atMicros);
    try {
      return cancelForReason(this.core, cmd.orderId, cmd.reason);
    } finally {
      this.end();
    }
  }

  /** A new mark price (from the risk layer): fires the stops it makes due. */
  setMarkPrice(cmd: SetMarkPriceCommand): EngineResult<{ readonly firedCount: number }> {
    this.begin(cmd.atMicros);
    try {
      const market = this.core.market(cmd.marketId);
      if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
      const between = cmd.betweenTicks === true;
      // A mark below one tick is between 0 and 1 ticks: its floor is 0.
      if (!Number.isSafeInteger(cmd.priceTicks) || cmd.priceTicks < (between ? 0 : 1) || cmd.priceTicks >= Number.MAX_SAFE_INTEGER) {
        return reject("INPUT_VALIDATION_ERROR", `mark price of ${cmd.priceTicks} ticks is not a positive integer`);
      }
      market.markTicks = cmd.priceTicks;
      market.markCeilTicks = between ? cmd.priceTicks + 1 : cmd.priceTicks;
      return { ok: true, firedCount: fireDueStops(this.core, market) };
    } finally {
      this.end();
    }
  }

  /** Halts, reopens or pauses settlement of a market; stops due at the latest mark fire once it is normal again. */
  setMarketState(cmd: SetMarketStateCommand): EngineResult<{ readonly firedCount: number }> {
    return this.command(cmd.atMicros, () => {
      const market = this.core.market(cmd.marketId);
      if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
      market.halted = cmd.halted ?? market.halted;
      market.reopening = cmd.reopening ?? market.reopening;
      market.settlementPaused = cmd.settlementPaused ?? market.settlementPaused;
      return { ok: true, firedCount: fireDueStops(this.core, market) };
    });
  }

  /** The account's position in a market changed: its stops and resting children follow it. */
  positionChanged(cmd: PositionChangedCommand): EngineResult<{ readonly changedCount: number }> {
    this.begin(cmd.atMicros);
    try {
      const market = this.core.market(cmd.marketId);
      if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${cmd.marketId} is not a registered market`);
      return { ok: true, changedCount: followPosition(this.core, cmd.accountId, market) };
    } finally {
      this.end();
    }
  }

  /** Runs the timers due at or before `atMicros` (default scheduler only; a driver runs its own). */
  advanceTo(atMicros: number): void {
    assert(this.manual !== null, "advanceTo is for an engine without a driver scheduler");
    this.command(atMicros, () => undefined);
  }

  // -- queries -------------------------------------------------------------------

  get markets(): readonly Market[] {
    return this.marketList;
  }

  market(marketId: number): Market | undefined {
    return this.core.market(marketId);
  }

  marketBySymbol(symbol: string): Market | undefined {
    return this.bySymbol.get(symbol);
  }

  /**
   * The live order with this id (resting, armed or a resting fired child);
   * the engine's own object: read it, never write it. It may be kept: the
   * engine then never reuses its object for another order (Order.pinned).
   */
  order(orderId: string): Order | undefined {
    return this.core.orders.get(this.core.orderIds.indexOf(orderId))?.pin();
  }

  /** The account's live order with this clientOrderId; kept like `order`'s. */
  orderByClientId(accountId: number, clientOrderId: string): Order | undefined {
    return this.core.accounts.byClientId(accountId, clientOrderId)?.pin();
  }

  /**
   * `order` and `orderByClientId` for a reader that reads the fields it
   * needs at once and keeps nothing (the gateway's checks before a
   * command): valid until the next command or timer step only, since the
   * order may end there and a later createOrder reuse its object.
   */
  peekOrder(orderId: string): Order | undefined {
    return this.core.orders.get(this.core.orderIds.indexOf(orderId));
  }

  peekOrderByClientId(accountId: number, clientOrderId: string): Order | undefined {
    return this.core.accounts.byClientId(accountId, clientOrderId);
  }

  /**
   * The account's live orders, oldest first, optionally in one market
   * (wire.openOrderRow formats them). The first account-level query of an
   * account indexes it with one pass over the live orders (accounts.ts).
   */
  openOrders(accountId: number, marketId?: number): Order[] {
    const listed = this.peekOpenOrders(accountId, marketId);
    for (const order of listed) order.pin();
    return listed;
  }

  /** `openOrders` for a reader that formats them at once (REST, stream snapshots): pins nothing, valid as `peekOrder`'s answer is. */
  peekOpenOrders(accountId: number, marketId?: number): Order[] {
    const orders = this.core.accounts.liveOrdersOf(accountId);
    return marketId === undefined ? orders : orders.filter((order) => order.market.marketId === marketId);
  }

  /** Accounts with live orders (in one market, or any), ascending: one pass over the live orders, no per-account indexing. */
  accountsWithOpenOrders(marketId?: number): number[] {
    const accounts = new Set<number>();
    for (const order of this.core.orders.all()) if (marketId === undefined || order.market.marketId === marketId) accounts.add(order.accountId);
    return [...accounts].sort((a, b) => a - b);
  }

  /** The REST depth view: the best `limit` levels per side (default 100, at most 1000). */
  depth(marketId: number, limit: number = DEPTH_LIMIT_DEFAULT): EngineResult<DepthResult> {
    const market = this.core.market(marketId);
    if (market === undefined) return reject("SYMBOL_NOT_FOUND_ERROR", `marketId ${marketId} is not a registered market`);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > DEPTH_LIMIT_MAX) {
      return reject("INPUT_VALIDATION_ERROR", `limit ${limit} must be an integer within [1, ${DEPTH_LIMIT_MAX}]`);
    }
    return { ok: true, ...depthView(market.book, limit), updatedAtMicros: market.book.depthUpdatedAtMicros };
  }

  /** The market's depth stream (created on first use; one per market, for the stream publisher). */
  depthStream(marketId: number): DepthStream {
    const market = this.core.market(marketId);
    assert(market !== undefined, `marketId ${marketId} is registered`);
    market.depthStream ??= new DepthStream(market.book);
    return market.depthStream;
  }

  /** Count and notional of the owner's resting GTC/GTT orders across all markets (spec 8.2). */
  openOrderFigures(ownerId: number): OpenOrderFigures {
    return this.core.openOrders.figures(ownerId);
  }

  /**
   * openOrderFigures in integer units of 10^-openOrderNotionalDecimals USD:
   * with openOrderImpactUnitsOf* and openOrderNotionalUnits (for a cap),
   * a per-order cap check needs no decimal arithmetic.
   */
  openOrderUnits(ownerId: number): OpenOrderUnits {
    return this.core.openOrders.unitFigures(ownerId);
  }

  /** The decimals of the integer notional unit of openOrderUnits and openOrderImpactUnitsOf*. */
  get openOrderNotionalDecimals(): number {
    return this.core.openOrders.notionalDecimals;
  }

  /** A USD amount (a notional cap) in the integer notional unit, rounded down: `units > openOrderNotionalUnits(cap)` iff `units > cap`. */
  openOrderNotionalUnits(usd: Dec | string): bigint {
    return this.core.openOrders.floorUnits(new Dec(usd));
  }

  /** openOrderImpactOfCreate in integer notional units. */
  openOrderImpactUnitsOfCreate(cmd: CreateOrderCommand): OpenOrderImpactUnits {
    const market = this.core.market(cmd.marketId);
    if (market === undefined || !restsAsLimit(cmd)) return { ownerId: cmd.ownerId, countDelta: 0, notionalDeltaUnits: 0n };
    return { ownerId: cmd.ownerId, countDelta: 1, notionalDeltaUnits: this.core.openOrders.unitsOf(market, cmd.qtyLots!, cmd.priceTicks) };
  }

  /** openOrderImpactOfModify in integer notional units. */
  openOrderImpactUnitsOfModify(cmd: ModifyOrderCommand): OpenOrderImpactUnits {
    const order = this.modifyTarget(cmd);
    if (order === undefined || !restsAsLimit(cmd)) return { ownerId: cmd.ownerId, countDelta: 0, notionalDeltaUnits: 0n };
    const table = this.core.openOrders;
    const after = table.unitsOf(order.market, Math.max(0, cmd.qtyLots! - order.cumLots), cmd.priceTicks);
    return { ownerId: cmd.ownerId, countDelta: 0, notionalDeltaUnits: after - table.unitsOf(order.market, order.remainingLots, order.priceTicks) };
  }

  /** What a create would add to its owner's open-order figures if it rested in full (0 for IOC and stops). */
  openOrderImpactOfCreate(cmd: CreateOrderCommand): OpenOrderImpact {
    const market = this.core.market(cmd.marketId);
    if (market === undefined || !restsAsLimit(cmd)) return noImpact(cmd.ownerId);
    return { ownerId: cmd.ownerId, countDelta: 1, notionalDelta: market.units.notional(BigInt(cmd.qtyLots!) * BigInt(cmd.priceTicks)) };
  }

  /** What a modify would change of its owner's open-order notional (positive when it raises it). */
  openOrderImpactOfModify(cmd: ModifyOrderCommand): OpenOrderImpact {
    const order = this.modifyTarget(cmd);
    if (order === undefined || !restsAsLimit(cmd)) return noImpact(cmd.ownerId);
    const units = order.market.units;
    const after = units.notional(BigInt(Math.max(0, cmd.qtyLots! - order.cumLots)) * BigInt(cmd.priceTicks));
    const before = units.notional(BigInt(order.remainingLots) * BigInt(order.priceTicks));
    return { ownerId: cmd.ownerId, countDelta: 0, notionalDelta: after.sub(before) };
  }

  /** When the account's cancelAllAfter fires (virtual µs), or null when disarmed. */
  cancelAllAfterTriggerAtMicros(accountId: number): number | null {
    return this.switches.triggerAtMicros(accountId);
  }

  /** Virtual time of the latest command or timer. */
  get nowMicros(): number {
    return this.core.nowMicros;
  }

  /** The whole state as plain data (for tests, debugging and "a rejection changes nothing"). */
  dumpState(): EngineStateDump {
    return dumpState(this.core, this.switches);
  }

  /** Asserts the structural invariants (dump.ts); throws InvariantError on the first broken one. */
  checkInvariants(): void {
    checkInvariants(this.core);
  }

  // -- plumbing ------------------------------------------------------------------

  /** A modify's live target, read at once by the impact figures (a peek: it pins nothing). */
  private modifyTarget(cmd: ModifyOrderCommand): Order | undefined {
    if (cmd.orderId !== undefined) return this.peekOrder(cmd.orderId);
    return cmd.clientOrderId === undefined ? undefined : this.peekOrderByClientId(cmd.accountId, cmd.clientOrderId);
  }

  private command<T>(atMicros: number, action: () => T): T {
    this.begin(atMicros);
    try {
      return action();
    } finally {
      this.end();
    }
  }

  private begin(atMicros: number): void {
    if (this.busy || !Number.isSafeInteger(atMicros)) this.refuse(atMicros);
    if (this.manual !== null) this.manual.advanceTo(atMicros);
    const core = this.core;
    if (atMicros < core.nowMicros) this.refuse(atMicros);
    // Compared here, so that a command at the engine's time (most, in a burst) makes no setter call.
    if (atMicros !== core.nowMicros) core.nowMicros = atMicros;
    this.busy = true;
  }

  /** Throws for a command that cannot begin (re-entered, a bad time, a time in the past). */
  private refuse(atMicros: number): never {
    assert(!this.busy, "the engine is not re-entered from its sink or hooks");
    if (!Number.isSafeInteger(atMicros)) throw new RangeError(`atMicros ${atMicros} is not a safe integer of microseconds`);
    throw new RangeError(`command at ${atMicros} is before the engine's time ${this.core.nowMicros}`);
  }

  private end(): void {
    this.core.flushDepthNotices();
    this.busy = false;
  }

  /** A timer callback runs as a command of its own, at the scheduler's time. */
  private runTimer(action: () => void): void {
    assert(!this.busy, "a timer does not fire inside a command");
    this.core.nowMicros = Math.max(this.core.nowMicros, this.core.scheduler.now());
    this.busy = true;
    try {
      action();
    } finally {
      this.end();
    }
  }
}

function restsAsLimit(cmd: CreateOrderCommand | ModifyOrderCommand): boolean {
  return cmd.orderType === "LIMIT" && cmd.timeInForce !== "IOC" && cmd.qtyLots !== undefined && Number.isSafeInteger(cmd.qtyLots);
}

function noImpact(ownerId: number): OpenOrderImpact {
  return { ownerId, countDelta: 0, notionalDelta: new Dec(0) };
}

function checkConfig(config: EngineConfig): void {
  const nonNegative = (name: keyof EngineConfig) => {
    const value = config[name];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new RangeError(`config ${name} must be a non-negative integer, got ${String(value)}`);
  };
  nonNegative("minGttLifetimeMicros");
  nonNegative("triggerBandBps");
  nonNegative("stopSettlementMarginMicros");
  nonNegative("maxRestingOrdersPerMarket");
  nonNegative("firstSequenceNumber");
}
