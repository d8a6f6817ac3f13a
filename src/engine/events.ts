/**
 * What the engine emits, and what it asks of its host.
 *
 * - OrderUpdate: one change of one order, with a sequence number that
 *   increases strictly across all order events of the engine. It copies
 *   what it reports (the order's identity and its state at that moment)
 *   and keeps no reference to the order, so the engine may reuse an ended
 *   order's object (lifecycle.ts). `onOrderChanges` is false for the one row of
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
import {
  cancelReasonOfFlags,
  isBuyOfFlags,
  ON_ORDER_CHANGES,
  onOrderChangesOfFlags,
  orderTypeOfFlags,
  postOnlyOfFlags,
  reduceOnlyOfFlags,
  statusOfFlags,
  timeInForceOfFlags,
  triggeredOfFlags,
  type Order,
} from "./order.ts";
import type { CancelReason, Fill, FillProposal, FillVerdict, OrderResponse, OrderStatus, OrderType, TimeInForce } from "./types.ts";

/** Bit of a row's flags: the order rested in the book when the row was made (order.ts keeps bits 0-15, and 17, which rows leave out). */
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
  RISK_CANCELLED: "resting order cancelled by risk: a margin check at match time, or its account's liquidation",
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
 * history): it copies the order's identity (market, index in the order-id
 * sequence, account, exchange, client order id, creation time) and its
 * changing state (price, quantities, the packed flags, which hold the
 * side, type, time in force and status, the update time in two small
 * integers). It keeps no reference to the order: the engine reuses ended
 * orders' objects. `ok`, the enums and the ids are read through getters on
 * the prototype, so a row costs one small object; the order id and the
 * first fill id are kept as their indices in their sequences and their
 * text built when read.
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
  declare readonly market: Market;
  /** Place in the order-id sequence (orderId = firstOrderId + index). */
  declare private readonly orderIndex: number;
  declare readonly accountId: number;
  declare readonly exchangeId: number;
  declare readonly clientOrderId: string | null;
  declare private readonly createdSec: number;
  declare private readonly createdMicros: number;
  declare readonly sequenceNumber: number;
  declare readonly priceTicks: number;
  declare readonly qtyLots: number;
  declare readonly cumLots: number;
  declare private readonly flags: number;
  declare private readonly updatedSec: number;
  declare private readonly updatedMicros: number;

  /** A row of the order's current state, without fills; `orderUpdate` makes the row of any kind. */
  constructor(order: Order, sequenceNumber: number, onOrderChanges: boolean) {
    this.market = order.market;
    this.orderIndex = order.index;
    this.accountId = order.accountId;
    this.exchangeId = order.exchangeId;
    this.clientOrderId = order.clientOrderId;
    this.createdSec = order.createdSec;
    this.createdMicros = order.createdMicros;
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
    return index < 0 ? null : this.market.ids!.fills.text(index);
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
    return this.market.ids!.orders.text(this.orderIndex);
  }

  get marketId(): number {
    return this.market.marketId;
  }

  get isBuy(): boolean {
    return isBuyOfFlags(this.flags);
  }

  get orderType(): OrderType {
    return orderTypeOfFlags(this.flags);
  }

  get timeInForce(): TimeInForce {
    return timeInForceOfFlags(this.flags);
  }

  get reduceOnly(): boolean {
    return reduceOnlyOfFlags(this.flags);
  }

  get createdAtMicros(): number {
    return this.createdSec * MICROS_PER_SECOND + this.createdMicros;
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
const TAKER_BUY = 4;
const TAKER_REDUCE_ONLY = 8;
const MAKER_REDUCE_ONLY = 16;

/**
 * One match (a Fill), or a proposed one (fill index -1, fillId ""). It is
 * immutable and may be kept. It copies what it reports of both orders
 * (their places in the order-id sequence, accounts, owners, the taker's
 * side, reduce-only for settlement) and keeps no reference to them (the
 * engine reuses ended orders' objects), with what the fill alone knows
 * (price, quantity, time, whether it completed each order). The ids are
 * kept as their indices in their sequences; the fill id's text is built on
 * first read and kept.
 */
export class FillRecord implements Fill {
  /** Index in the fill-id sequence; -1 for a proposal (no id yet). */
  declare readonly fillIndex: number;
  declare private readonly market: Market;
  declare private readonly takerIndex: number;
  declare private readonly makerIndex: number;
  declare readonly takerAccountId: number;
  declare readonly makerAccountId: number;
  declare readonly takerOwnerId: number;
  declare readonly makerOwnerId: number;
  declare readonly priceTicks: number;
  declare readonly qtyLots: number;
  declare private idText: string | null;
  declare private readonly atSec: number;
  declare private readonly atMicrosPart: number;
  declare private readonly flags: number;

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
    this.market = taker.market;
    this.takerIndex = taker.index;
    this.makerIndex = maker.index;
    this.takerAccountId = taker.accountId;
    this.makerAccountId = maker.accountId;
    this.takerOwnerId = taker.ownerId;
    this.makerOwnerId = maker.ownerId;
    this.priceTicks = priceTicks;
    this.qtyLots = qtyLots;
    this.idText = null;
    this.atSec = atSec;
    this.atMicrosPart = atMicrosPart;
    this.flags =
      (takerFilled ? TAKER_FILLED : 0) |
      (makerFilled ? MAKER_FILLED : 0) |
      (taker.isBuy ? TAKER_BUY : 0) |
      (taker.settlesReduceOnly ? TAKER_REDUCE_ONLY : 0) |
      (maker.settlesReduceOnly ? MAKER_REDUCE_ONLY : 0);
  }

  get fillId(): string {
    const text = this.idText;
    if (text !== null) return text;
    return (this.idText = this.fillIndex < 0 ? "" : this.market.ids!.fills.text(this.fillIndex));
  }

  get marketId(): number {
    return this.market.marketId;
  }

  get atMicros(): number {
    return this.atSec * MICROS_PER_SECOND + this.atMicrosPart;
  }

  get takerSide(): "B" | "A" {
    return (this.flags & TAKER_BUY) !== 0 ? "B" : "A";
  }

  get takerOrderId(): string {
    return this.market.ids!.orders.text(this.takerIndex);
  }

  get takerReduceOnly(): boolean {
    return (this.flags & TAKER_REDUCE_ONLY) !== 0;
  }

  get takerFilled(): boolean {
    return (this.flags & TAKER_FILLED) !== 0;
  }

  get makerOrderId(): string {
    return this.market.ids!.orders.text(this.makerIndex);
  }

  get makerReduceOnly(): boolean {
    return (this.flags & MAKER_REDUCE_ONLY) !== 0;
  }

  get makerFilled(): boolean {
    return (this.flags & MAKER_FILLED) !== 0;
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
