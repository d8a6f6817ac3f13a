/**
 * What the engine emits, and what it asks of its host.
 *
 * - OrderUpdate: one change of one order, with a sequence number that
 *   increases strictly across all order events of the engine. It copies the
 *   order's changing state at that moment, and refers to the order for the
 *   fields that never change. `onOrderChanges` is false for the one row of
 *   a createOrder IOC taker (spec 6.4: not published on orderChanges; its
 *   fills are in the create response), which still belongs in orderHistory.
 * - Fill: one match (types.ts).
 * - depthChanged: a market's aggregated depth changed during a command
 *   (once per market and command).
 *
 * No event is emitted for a rejected request. The sink must not call back
 * into the engine: events are emitted while a command runs.
 */
import { MICROS_PER_SECOND } from "../core/time.ts";
import type { Market } from "./market.ts";
import { cancelReasonOfFlags, ON_ORDER_CHANGES, onOrderChangesOfFlags, postOnlyOfFlags, statusOfFlags, triggeredOfFlags, type Order } from "./order.ts";
import type { CancelReason, Fill, FillProposal, FillVerdict, OrderResponse, OrderStatus, OrderType, TimeInForce } from "./types.ts";

/** Bit of a row's flags: the order rested in the book when the row was made (order.ts keeps bits 0-15). */
const RESTING = 1 << 16;

/**
 * What never changes about an order, as the wire rows report it: read from
 * a live Order (openOrders) or from a row (orderChanges, orderHistory).
 */
export interface OrderIdentity {
  readonly orderId: string;
  readonly exchangeId: number;
  readonly market: Market;
  readonly accountId: number;
  readonly isBuy: boolean;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly reduceOnly: boolean;
  readonly clientOrderId: string | null;
  readonly createdAtMicros: number;
}

export const CANCEL_REASON_MESSAGES: Readonly<Record<CancelReason, string>> = {
  NO_LIQUIDITY: "IOC order found nothing to match",
  IOC_REMAINDER: "IOC order remainder cancelled after a partial fill",
  SELF_TRADE_PREVENTION: "cancelled to prevent a trade with a resting order of the same account",
  PROTECTIVE_SELF_TRADE_SWEEP: "resting order cancelled by a fired stop of the same account",
  GTT_EXPIRED: "order reached its expiresAfter",
  USER_CANCEL: "cancelled by the account",
  MASS_CANCEL: "cancelled by cancelAll",
  CANCEL_ALL_AFTER: "cancelled by the account's cancelAllAfter timer",
  FEED_RESET: "order view reset",
  RISK_CANCELLED: "resting order cancelled by the pre-trade risk check",
  RISK_REJECTED: "order remainder rejected by the pre-trade risk check",
  OCO_SIBLING_FIRED: "the other stop of the pair fired",
  POSITION_CLOSED: "the position this order protects or reduces is closed",
};

/**
 * One state of one order: the row of an order event, and also the response
 * of the command that produced it (createOrder answers with the taker's
 * final row, or a stop's arming row; modifyOrder and cancelOrder with the
 * order's new row), so a command allocates one object for both.
 *
 * A row is immutable and may be kept (the exchange keeps rows in its order
 * history): it copies the order's changing state (price, quantities, the
 * packed status flags, the update time in two small integers) and refers
 * to the order for the fields that never change. `ok`, the enums and the
 * ids are read through getters on the prototype, so a row costs one small
 * object; the first fill id is kept as its index in the fill-id sequence
 * and its text built when read.
 *
 * Most rows have no fill (a resting create, a cancel) and most orders no
 * trigger price or expiry, so a row carries those fields only when it has
 * them: OrderUpdate itself answers 0 (and null) for them, and its
 * subclasses (made by `orderUpdate`) hold them. Readers see the same
 * fields on every row; a row without them is 40 bytes smaller (a third),
 * which is most of what the engine allocates per command.
 */
export class OrderUpdate implements OrderResponse, OrderIdentity {
  // Declared fields, assigned once in the constructor (one hidden class, one write each).
  /**
   * The order, read only for the identity fields, which never change.
   * Private: readers see the identity through the row's own getters, so the
   * row could copy it instead without any reader changing (the step an
   * engine without an object per resting order needs: docs/PERFORMANCE.md).
   */
  declare private readonly order: Order;
  declare readonly sequenceNumber: number;
  declare readonly priceTicks: number;
  declare readonly qtyLots: number;
  declare readonly cumLots: number;
  declare private readonly flags: number;
  declare private readonly updatedSec: number;
  declare private readonly updatedMicros: number;

  /** A row of the order's current state, without fills; `orderUpdate` makes the row of any kind. */
  constructor(order: Order, sequenceNumber: number, onOrderChanges: boolean) {
    this.order = order;
    this.sequenceNumber = sequenceNumber;
    this.priceTicks = order.priceTicks;
    this.qtyLots = order.qtyLots;
    this.cumLots = order.cumLots;
    this.flags = (onOrderChanges ? order.stateFlags | ON_ORDER_CHANGES : order.stateFlags) | (order.level !== null ? RESTING : 0);
    this.updatedSec = order.lastUpdateSec;
    this.updatedMicros = order.lastUpdateMicros;
  }

  get ok(): true {
    return true;
  }

  /** Lots executed by this update; 0 when it is not a fill update. */
  get execLots(): number {
    return 0;
  }

  get fillCount(): number {
    return 0;
  }

  /** Index of the first fill in the fill-id sequence, or -1 when the update has no fill. */
  get firstFillIndex(): number {
    return -1;
  }

  get firstFillId(): string | null {
    const index = this.firstFillIndex;
    return index < 0 ? null : this.order.market.ids!.fills.text(index);
  }

  /** 0 for LIMIT. */
  get triggerTicks(): number {
    return 0;
  }

  /** Unix seconds; 0 when the order has no expiry. */
  get expiresAfterSec(): number {
    return 0;
  }

  /** False for the one row of a createOrder IOC taker (not published on orderChanges). */
  get onOrderChanges(): boolean {
    return onOrderChangesOfFlags(this.flags);
  }

  get status(): OrderStatus {
    return statusOfFlags(this.flags);
  }

  get cancelReason(): CancelReason | null {
    return cancelReasonOfFlags(this.flags);
  }

  get triggered(): boolean {
    return triggeredOfFlags(this.flags);
  }

  get postOnly(): boolean {
    return postOnlyOfFlags(this.flags);
  }

  get lastUpdateAtMicros(): number {
    return this.updatedSec * MICROS_PER_SECOND + this.updatedMicros;
  }

  get orderId(): string {
    return this.order.orderId;
  }

  get accountId(): number {
    return this.order.accountId;
  }

  get clientOrderId(): string | null {
    return this.order.clientOrderId;
  }

  get marketId(): number {
    return this.order.market.marketId;
  }

  get market(): Market {
    return this.order.market;
  }

  get exchangeId(): number {
    return this.order.exchangeId;
  }

  get isBuy(): boolean {
    return this.order.isBuy;
  }

  get orderType(): OrderType {
    return this.order.orderType;
  }

  get timeInForce(): TimeInForce {
    return this.order.timeInForce;
  }

  get reduceOnly(): boolean {
    return this.order.reduceOnly;
  }

  get createdAtMicros(): number {
    return this.order.createdAtMicros;
  }

  /** The order rested in the book when this row was made (an open LIMIT or fired child; not an armed stop). */
  get resting(): boolean {
    return (this.flags & RESTING) !== 0;
  }
}

/** A row with fills (a taker's or a maker's fill update). */
class FillUpdate extends OrderUpdate {
  declare private readonly exec: number;
  declare private readonly firstFill: number;
  declare private readonly fills: number;

  constructor(order: Order, sequenceNumber: number, execLots: number, firstFill: number, fillCount: number, onOrderChanges: boolean) {
    super(order, sequenceNumber, onOrderChanges);
    this.exec = execLots;
    this.firstFill = firstFill;
    this.fills = fillCount;
  }

  override get execLots(): number {
    return this.exec;
  }

  override get fillCount(): number {
    return this.fills;
  }

  override get firstFillIndex(): number {
    return this.firstFill;
  }
}

/** A row without fills of an order with a trigger price or an expiry. */
class ExtraUpdate extends OrderUpdate {
  declare private readonly trigger: number;
  declare private readonly expires: number;

  constructor(order: Order, sequenceNumber: number, onOrderChanges: boolean) {
    super(order, sequenceNumber, onOrderChanges);
    this.trigger = order.triggerTicks;
    this.expires = order.expiresAfterSec;
  }

  override get triggerTicks(): number {
    return this.trigger;
  }

  override get expiresAfterSec(): number {
    return this.expires;
  }
}

/** A row with fills of an order with a trigger price or an expiry. */
class FillExtraUpdate extends FillUpdate {
  declare private readonly trigger: number;
  declare private readonly expires: number;

  constructor(order: Order, sequenceNumber: number, execLots: number, firstFill: number, fillCount: number, onOrderChanges: boolean) {
    super(order, sequenceNumber, execLots, firstFill, fillCount, onOrderChanges);
    this.trigger = order.triggerTicks;
    this.expires = order.expiresAfterSec;
  }

  override get triggerTicks(): number {
    return this.trigger;
  }

  override get expiresAfterSec(): number {
    return this.expires;
  }
}

/**
 * The row of the order's current state: `execLots` lots in `fillCount`
 * fills from index `firstFill` of the fill-id sequence (-1: none), of the
 * smallest class that holds it.
 */
export function orderUpdate(order: Order, sequenceNumber: number, execLots: number, firstFill: number, fillCount: number, onOrderChanges: boolean): OrderUpdate {
  const plain = order.triggerTicks === 0 && order.expiresAfterSec === 0;
  if (fillCount === 0 && execLots === 0 && firstFill < 0) return plain ? new OrderUpdate(order, sequenceNumber, onOrderChanges) : new ExtraUpdate(order, sequenceNumber, onOrderChanges);
  return plain
    ? new FillUpdate(order, sequenceNumber, execLots, firstFill, fillCount, onOrderChanges)
    : new FillExtraUpdate(order, sequenceNumber, execLots, firstFill, fillCount, onOrderChanges);
}

const TAKER_FILLED = 1;
const MAKER_FILLED = 2;

/**
 * One match (a Fill), or a proposed one (fill index -1, fillId ""). It is
 * immutable and may be kept. The identity of both orders (ids, accounts,
 * owners, side, reduce-only) never changes, so it is read from the orders
 * themselves; what the fill alone knows (price, quantity, time, whether it
 * completed each order) is copied. The fill id is kept as its index in the
 * fill-id sequence; its text is built on first read and kept.
 */
export class FillRecord implements Fill {
  /** Index in the fill-id sequence; -1 for a proposal (no id yet). */
  declare readonly fillIndex: number;
  declare private readonly taker: Order;
  declare private readonly maker: Order;
  declare readonly priceTicks: number;
  declare readonly qtyLots: number;
  declare private idText: string | null;
  declare private readonly atSec: number;
  declare private readonly atMicrosPart: number;
  declare private readonly filled: number;

  constructor(
    fillIndex: number,
    taker: Order,
    maker: Order,
    priceTicks: number,
    qtyLots: number,
    atSec: number,
    atMicrosPart: number,
    takerFilled: boolean,
    makerFilled: boolean,
  ) {
    this.fillIndex = fillIndex;
    this.taker = taker;
    this.maker = maker;
    this.priceTicks = priceTicks;
    this.qtyLots = qtyLots;
    this.idText = null;
    this.atSec = atSec;
    this.atMicrosPart = atMicrosPart;
    this.filled = (takerFilled ? TAKER_FILLED : 0) | (makerFilled ? MAKER_FILLED : 0);
  }

  get fillId(): string {
    const text = this.idText;
    if (text !== null) return text;
    return (this.idText = this.fillIndex < 0 ? "" : this.taker.market.ids!.fills.text(this.fillIndex));
  }

  get marketId(): number {
    return this.taker.market.marketId;
  }

  get atMicros(): number {
    return this.atSec * MICROS_PER_SECOND + this.atMicrosPart;
  }

  get takerSide(): "B" | "A" {
    return this.taker.isBuy ? "B" : "A";
  }

  get takerAccountId(): number {
    return this.taker.accountId;
  }

  get takerOrderId(): string {
    return this.taker.orderId;
  }

  get takerOwnerId(): number {
    return this.taker.ownerId;
  }

  get takerReduceOnly(): boolean {
    return this.taker.settlesReduceOnly;
  }

  get takerFilled(): boolean {
    return (this.filled & TAKER_FILLED) !== 0;
  }

  get makerAccountId(): number {
    return this.maker.accountId;
  }

  get makerOrderId(): string {
    return this.maker.orderId;
  }

  get makerOwnerId(): number {
    return this.maker.ownerId;
  }

  get makerReduceOnly(): boolean {
    return this.maker.settlesReduceOnly;
  }

  get makerFilled(): boolean {
    return (this.filled & MAKER_FILLED) !== 0;
  }
}

export interface EngineSink {
  orderUpdate(update: OrderUpdate): void;
  fill(fill: Fill): void;
  depthChanged(marketId: number, atMicros: number): void;
}

/** What the engine asks of the layers above it. */
export interface EngineHooks {
  /** Signed position in lots (+ long, - short) of an account in a perp market. Default: 0 (no positions). */
  positionLots(accountId: number, marketId: number): number;
  /**
   * The match-time risk check (margin, open interest), before each fill:
   * "cancel-maker" cancels that maker (RISK_CANCELLED) and matching goes on;
   * "reject-taker" cancels the taker's remainder (RISK_REJECTED). The
   * proposal's fillId is "": ids go only to fills that happen. Default: "ok".
   */
  checkFill(fill: FillProposal): FillVerdict;
}

export const NULL_SINK: EngineSink = {
  orderUpdate() {},
  fill() {},
  depthChanged() {},
};
