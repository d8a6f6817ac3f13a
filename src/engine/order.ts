/**
 * The engine's state of one order, and the node of the intrusive lists it
 * sits in: its price level's FIFO queue and (for indexed accounts) its
 * account's list of live orders. Both unlink in O(1) and cost no allocation.
 *
 * Identity fields never change. `qtyLots` is the order's total quantity
 * (for an armed stop 0 until it fires: a stop protects the whole position
 * at fire time); `cumLots` the quantity filled over its lifetime.
 *
 * Layout (measured: a resting order's size is what the garbage collector
 * copies, and deep books hold tens of thousands of them): the enums and
 * booleans share one small-integer `flags` field; each timestamp is two
 * small integers (seconds and microseconds) instead of a boxed double; the
 * fields most orders never use (client order id, trigger, expiry, timer,
 * account links) live in an `OrderExtra` made on first use. Accessors keep
 * the plain field names. The order id is kept as its index in the id
 * sequence; its decimal text is built on first read (`orderId`) and kept.
 *
 * Once an order has ended, the engine may take its object for a new order
 * (`reuse`, lifecycle.ts newOrder), unless it was handed out (`pinned`):
 * rows and fills copy what they report, and nothing else keeps an ended
 * order.
 */
import type { Account } from "./accounts.ts";
import type { PriceLevel } from "./level.ts";
import type { Market } from "./market.ts";
import type { CancelReason, CreateOrderCommand, OrderStatus, OrderType, TimeInForce } from "./types.ts";

export const NO_TIMER = -1;

const ORDER_TYPES: readonly OrderType[] = ["LIMIT", "STOP_LOSS", "TAKE_PROFIT"];
const TIMES_IN_FORCE: readonly TimeInForce[] = ["IOC", "GTC", "GTT"];
const STATUSES: readonly OrderStatus[] = ["OPEN", "FILLED", "CANCELLED"];
const CANCEL_REASONS: readonly CancelReason[] = [
  "NO_LIQUIDITY",
  "IOC_REMAINDER",
  "SELF_TRADE_PREVENTION",
  "PROTECTIVE_SELF_TRADE_SWEEP",
  "GTT_EXPIRED",
  "USER_CANCEL",
  "MASS_CANCEL",
  "CANCEL_ALL_AFTER",
  "FEED_RESET",
  "RISK_CANCELLED",
  "RISK_REJECTED",
  "OCO_SIBLING_FIRED",
  "POSITION_CLOSED",
];

/** Codes of the enums in `flags` (the position in the arrays above; a cancel reason is +1, 0 = none). */
const TYPE_CODES: Readonly<Record<OrderType, number>> = { LIMIT: 0, STOP_LOSS: 1, TAKE_PROFIT: 2 };
const TIF_CODES: Readonly<Record<TimeInForce, number>> = { IOC: 0, GTC: 1, GTT: 2 };
const STATUS_CODES: Readonly<Record<OrderStatus, number>> = { OPEN: 0, FILLED: 1, CANCELLED: 2 };
const REASON_CODES = Object.fromEntries(CANCEL_REASONS.map((reason, i) => [reason, i + 1])) as Readonly<Record<CancelReason, number>>;
/** The commonest reason, without the keyed lookup. */
const USER_CANCEL_CODE = REASON_CODES.USER_CANCEL;

// flags: bit 0 isBuy | 1-2 orderType | 3-4 timeInForce | 5 reduceOnly | 6 postOnly
//        | 7-8 status | 9 triggered | 10 live | 11-14 cancelReason (0 = none)
//        | 15 onOrderChanges (OrderUpdate rows only) | 17 pinned (orders only; rows ignore it)
const IS_BUY = 1;
const TYPE_SHIFT = 1;
const TIF_SHIFT = 3;
const REDUCE_ONLY = 1 << 5;
const POST_ONLY = 1 << 6;
const STATUS_SHIFT = 7;
const STATUS_MASK = 3 << STATUS_SHIFT;
const TRIGGERED = 1 << 9;
const LIVE = 1 << 10;
const REASON_SHIFT = 11;
const REASON_MASK = 15 << REASON_SHIFT;
/** Bit of a row's flags (events.ts): published on orderChanges. */
export const ON_ORDER_CHANGES = 1 << 15;
/** Bit 16 is a row's (events.ts: RESTING). */
const PINNED = 1 << 17;
const TIF_MASK = 3 << TIF_SHIFT;
const GTT_FLAG = 2 << TIF_SHIFT;
const IOC_FLAG = 0;
const MICROS_PER_SECOND = 1_000_000;

/** Status codes for `Order.finish` (the position in STATUSES). */
export const STATUS_FILLED = 1;
export const STATUS_CANCELLED = 2;

/** The code of a cancel reason for `Order.finish` (0 = none). */
export function reasonCode(reason: CancelReason | null): number {
  return reason === null ? 0 : reason === "USER_CANCEL" ? USER_CANCEL_CODE : REASON_CODES[reason];
}

/** Decoders of `Order.stateFlags`, for the rows that copy it (events.ts). */
export function statusOfFlags(flags: number): OrderStatus {
  return STATUSES[(flags & STATUS_MASK) >> STATUS_SHIFT]!;
}

export function cancelReasonOfFlags(flags: number): CancelReason | null {
  const code = (flags & REASON_MASK) >> REASON_SHIFT;
  return code === 0 ? null : CANCEL_REASONS[code - 1]!;
}

export function triggeredOfFlags(flags: number): boolean {
  return (flags & TRIGGERED) !== 0;
}

export function postOnlyOfFlags(flags: number): boolean {
  return (flags & POST_ONLY) !== 0;
}

export function onOrderChangesOfFlags(flags: number): boolean {
  return (flags & ON_ORDER_CHANGES) !== 0;
}

export function isBuyOfFlags(flags: number): boolean {
  return (flags & IS_BUY) !== 0;
}

export function orderTypeOfFlags(flags: number): OrderType {
  return ORDER_TYPES[(flags >> TYPE_SHIFT) & 3]!;
}

export function timeInForceOfFlags(flags: number): TimeInForce {
  return TIMES_IN_FORCE[(flags >> TIF_SHIFT) & 3]!;
}

export function reduceOnlyOfFlags(flags: number): boolean {
  return (flags & REDUCE_ONLY) !== 0;
}

function typeCode(orderType: OrderType): number {
  return orderType === "LIMIT" ? 0 : orderType === "STOP_LOSS" ? 1 : TYPE_CODES[orderType];
}

function tifCode(timeInForce: TimeInForce): number {
  return timeInForce === "GTC" ? 1 : timeInForce === "IOC" ? 0 : TIF_CODES[timeInForce];
}

/**
 * The latest creation time split into whole seconds and microseconds (a
 * division saved per order: the orders of one command, and of a run of
 * commands at one time, share it). A cache only: it changes no result.
 */
let splitAtMicros = 0;
let splitSec = 0;
let splitMicros = 0;

function splitTime(atMicros: number): void {
  const seconds = Math.floor(atMicros / MICROS_PER_SECOND);
  splitAtMicros = atMicros;
  splitSec = seconds;
  // `| 0`: the part is below 10^6, and an int32 keeps it a small integer (a plain double difference would box it in every order).
  splitMicros = (atMicros - seconds * MICROS_PER_SECOND) | 0;
}

/** A new order's packed enums and booleans. */
function flagsOf(cmd: CreateOrderCommand): number {
  return (
    (cmd.isBuy ? IS_BUY : 0) |
    (typeCode(cmd.orderType) << TYPE_SHIFT) |
    (tifCode(cmd.timeInForce) << TIF_SHIFT) |
    (cmd.reduceOnly === true ? REDUCE_ONLY : 0) |
    (cmd.postOnly === true ? POST_ONLY : 0)
  );
}

/** The fields few orders use. */
class OrderExtra {
  clientOrderId: string | null = null;
  triggerTicks = 0;
  expiresAfterSec = 0;
  timerId = NO_TIMER;
  account: Account | null = null;
  accountPrev: Order | null = null;
  accountNext: Order | null = null;
}

/**
 * The extras of reused orders, for the next orders that need one. An extra
 * lives as long as its order, so a fresh one is promoted with it: a market
 * maker that puts a client id on every order made one per order (~65 B of
 * the live benchmark's promotion per create). Module-wide, as the split
 * time above: which object an order gets is never observable.
 */
const spareExtras: OrderExtra[] = [];
const SPARE_EXTRAS_MAX = 4_096;

/** Resets an ended order's extra to a new one's state (whatever it ended in) and keeps it for the next order that needs one. */
function releaseExtra(extra: OrderExtra): void {
  extra.clientOrderId = null;
  extra.triggerTicks = 0;
  extra.expiresAfterSec = 0;
  extra.timerId = NO_TIMER;
  extra.account = null;
  extra.accountPrev = null;
  extra.accountNext = null;
  if (spareExtras.length < SPARE_EXTRAS_MAX) spareExtras.push(extra);
}

export class Order {
  // Fields are declared (no initializers) and all assigned in the constructor, in one order: every
  // order gets the same hidden class at once, with each field written once. `reuse` writes them all
  // again, as the constructor does; the identity fields (index, market, account, exchange, owner,
  // creation time) are not readonly only so that it can: no other code writes them.
  /** The decimal text of the order id, once read. */
  declare private idText: string | null;
  /** Place in the order-id sequence (orderId = firstOrderId + index). */
  declare index: number;
  declare market: Market;
  declare accountId: number;
  declare exchangeId: number;
  /** The signing wallet, as the exchange's dense id (open-order accounting). */
  declare ownerId: number;
  declare priceTicks: number;
  declare qtyLots: number;
  declare cumLots: number;
  /** Book links: set while the order rests. */
  declare level: PriceLevel | null;
  declare prev: Order | null;
  declare next: Order | null;
  declare private flags: number;
  /** The creation time in two small integers (seconds, microseconds), for rows that copy it. */
  declare createdSec: number;
  declare createdMicros: number;
  declare private updatedSec: number;
  declare private updatedMicros: number;
  declare private extra: OrderExtra | null;

  /**
   * A new order from its (validated) create command; `qtyLots` may be cut
   * (reduce-only) or 0 (a stop). `orderId` null: the text comes from the
   * market's id counter when first read.
   */
  constructor(cmd: CreateOrderCommand, orderId: string | null, index: number, market: Market, qtyLots: number, atMicros: number) {
    if (atMicros !== splitAtMicros) splitTime(atMicros);
    const seconds = splitSec;
    const micros = splitMicros;
    this.idText = orderId;
    this.index = index;
    this.market = market;
    this.accountId = cmd.accountId;
    this.exchangeId = cmd.exchangeId;
    this.ownerId = cmd.ownerId;
    this.priceTicks = cmd.priceTicks;
    this.qtyLots = qtyLots;
    this.cumLots = 0;
    this.level = null;
    this.prev = null;
    this.next = null;
    this.flags = flagsOf(cmd);
    this.createdSec = seconds;
    this.createdMicros = micros;
    this.updatedSec = seconds;
    this.updatedMicros = micros;
    this.extra = null;
    if (cmd.clientOrderId !== undefined || cmd.expiresAfterSec !== undefined || (cmd.triggerTicks !== undefined && cmd.triggerTicks !== 0)) this.initExtra(cmd);
  }

  /**
   * This object, taken for a new order: every field written as the
   * constructor writes it (the same lines, in `reuseAt`: a constructor
   * that called a shared method measured ~250 instructions per operation
   * more on the deep book, the construction no longer inlined;
   * order-reuse.test.ts checks that a reused order reads exactly as a new
   * one). Only for an order that has ended and that nothing outside the
   * engine holds (not `pinned`): rows and fill records copy what they
   * report, so none of them reads it again.
   */
  reuse(cmd: CreateOrderCommand, index: number, market: Market, qtyLots: number, atMicros: number): this {
    if (atMicros !== splitAtMicros) splitTime(atMicros);
    return this.reuseAt(cmd, index, market, qtyLots, splitSec, splitMicros);
  }

  /**
   * `reuse` with the creation time in its two halves (whole seconds,
   * microseconds), as the engine keeps the command's time: small integers
   * through the call, where a time in microseconds is a double that V8
   * boxes in a new heap number for every call it does not inline.
   */
  reuseAt(cmd: CreateOrderCommand, index: number, market: Market, qtyLots: number, seconds: number, micros: number): this {
    this.idText = null;
    this.index = index;
    this.market = market;
    this.accountId = cmd.accountId;
    this.exchangeId = cmd.exchangeId;
    this.ownerId = cmd.ownerId;
    this.priceTicks = cmd.priceTicks;
    this.qtyLots = qtyLots;
    this.cumLots = 0;
    this.level = null;
    this.prev = null;
    this.next = null;
    this.flags = flagsOf(cmd);
    this.createdSec = seconds;
    this.createdMicros = micros;
    this.updatedSec = seconds;
    this.updatedMicros = micros;
    if (this.extra !== null) releaseExtra(this.extra);
    this.extra = null;
    if (cmd.clientOrderId !== undefined || cmd.expiresAfterSec !== undefined || (cmd.triggerTicks !== undefined && cmd.triggerTicks !== 0)) this.initExtra(cmd);
    return this;
  }

  private initExtra(cmd: CreateOrderCommand): void {
    if (cmd.clientOrderId !== undefined) this.ensureExtra().clientOrderId = cmd.clientOrderId;
    if (cmd.triggerTicks !== undefined && cmd.triggerTicks !== 0) this.ensureExtra().triggerTicks = cmd.triggerTicks;
    if (cmd.expiresAfterSec !== undefined) this.ensureExtra().expiresAfterSec = cmd.expiresAfterSec;
  }

  // -- identity ------------------------------------------------------------------

  get orderId(): string {
    const text = this.idText;
    if (text !== null) return text;
    return (this.idText = this.market.ids!.orders.text(this.index));
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

  get isGtt(): boolean {
    return (this.flags & TIF_MASK) === GTT_FLAG;
  }

  get isIoc(): boolean {
    return (this.flags & TIF_MASK) === IOC_FLAG;
  }

  get clientOrderId(): string | null {
    return this.extra === null ? null : this.extra.clientOrderId;
  }

  get createdAtMicros(): number {
    return this.createdSec * MICROS_PER_SECOND + this.createdMicros;
  }

  // -- state -----------------------------------------------------------------------

  get postOnly(): boolean {
    return (this.flags & POST_ONLY) !== 0;
  }

  set postOnly(value: boolean) {
    this.flags = value ? this.flags | POST_ONLY : this.flags & ~POST_ONLY;
  }

  /**
   * Handed out by one of the engine's public lookups (Engine.order,
   * orderByClientId, openOrders), so someone may hold it: the engine never
   * reuses its object once it has ended.
   */
  get pinned(): boolean {
    return (this.flags & PINNED) !== 0;
  }

  pin(): this {
    this.flags |= PINNED;
    return this;
  }

  /** The packed enums and booleans, for rows that copy the state in one word. */
  get stateFlags(): number {
    // Not the pinned bit: a row reads the same whether or not someone looked its order up.
    return this.flags & ~PINNED;
  }

  get status(): OrderStatus {
    return statusOfFlags(this.flags);
  }

  get isOpen(): boolean {
    return (this.flags & STATUS_MASK) === 0;
  }

  set status(value: OrderStatus) {
    this.flags = (this.flags & ~STATUS_MASK) | (STATUS_CODES[value] << STATUS_SHIFT);
  }

  /** Stops: false while armed, true once fired. Always false for LIMIT. */
  get triggered(): boolean {
    return (this.flags & TRIGGERED) !== 0;
  }

  set triggered(value: boolean) {
    this.flags = value ? this.flags | TRIGGERED : this.flags & ~TRIGGERED;
  }

  /** Live: findable by id (resting, armed, or a resting fired child). */
  get live(): boolean {
    return (this.flags & LIVE) !== 0;
  }

  set live(value: boolean) {
    this.flags = value ? this.flags | LIVE : this.flags & ~LIVE;
  }

  get cancelReason(): CancelReason | null {
    return cancelReasonOfFlags(this.flags);
  }

  set cancelReason(value: CancelReason | null) {
    const code = value === null ? 0 : REASON_CODES[value];
    this.flags = (this.flags & ~REASON_MASK) | (code << REASON_SHIFT);
  }

  get lastUpdateAtMicros(): number {
    return this.updatedSec * MICROS_PER_SECOND + this.updatedMicros;
  }

  /** The two halves of lastUpdateAtMicros (seconds, microseconds), for rows that copy it. */
  get lastUpdateSec(): number {
    return this.updatedSec;
  }

  get lastUpdateMicros(): number {
    return this.updatedMicros;
  }

  set lastUpdateAtMicros(atMicros: number) {
    const seconds = Math.floor(atMicros / MICROS_PER_SECOND);
    this.updatedSec = seconds;
    this.updatedMicros = (atMicros - seconds * MICROS_PER_SECOND) | 0;
  }

  /** lastUpdateAtMicros from its two halves (the engine splits the command's time once). */
  touchedAt(seconds: number, micros: number): void {
    this.updatedSec = seconds;
    this.updatedMicros = micros;
  }

  /** Ends the order: its final status (STATUS_FILLED or STATUS_CANCELLED), reason code and time, in one write. */
  finish(status: number, reason: number, seconds: number, micros: number): void {
    this.flags = (this.flags & ~(STATUS_MASK | REASON_MASK)) | (status << STATUS_SHIFT) | (reason << REASON_SHIFT);
    this.updatedSec = seconds;
    this.updatedMicros = micros;
  }

  /** 0 for LIMIT. */
  get triggerTicks(): number {
    return this.extra === null ? 0 : this.extra.triggerTicks;
  }

  set triggerTicks(value: number) {
    this.ensureExtra().triggerTicks = value;
  }

  /** Unix seconds; 0 when the order has no expiry. */
  get expiresAfterSec(): number {
    return this.extra === null ? 0 : this.extra.expiresAfterSec;
  }

  set expiresAfterSec(value: number) {
    this.ensureExtra().expiresAfterSec = value;
  }

  get timerId(): number {
    return this.extra === null ? NO_TIMER : this.extra.timerId;
  }

  set timerId(value: number) {
    if (value === NO_TIMER && this.extra === null) return;
    this.ensureExtra().timerId = value;
  }

  // -- account links (accounts.ts) --------------------------------------------------

  get account(): Account | null {
    return this.extra === null ? null : this.extra.account;
  }

  set account(value: Account | null) {
    if (value === null && this.extra === null) return;
    this.ensureExtra().account = value;
  }

  get accountPrev(): Order | null {
    return this.extra === null ? null : this.extra.accountPrev;
  }

  set accountPrev(value: Order | null) {
    if (value === null && this.extra === null) return;
    this.ensureExtra().accountPrev = value;
  }

  get accountNext(): Order | null {
    return this.extra === null ? null : this.extra.accountNext;
  }

  set accountNext(value: Order | null) {
    if (value === null && this.extra === null) return;
    this.ensureExtra().accountNext = value;
  }

  // -- derived -----------------------------------------------------------------------

  get remainingLots(): number {
    return this.qtyLots - this.cumLots;
  }

  get isTrigger(): boolean {
    return (this.flags & (3 << TYPE_SHIFT)) !== 0;
  }

  /**
   * A LIMIT without the rarer fields (OrderExtra: client order id, trigger,
   * expiry, timer, account links), as most orders are: retire has nothing
   * to undo for it beyond the book and the tables.
   */
  get isPlain(): boolean {
    return this.extra === null && (this.flags & (3 << TYPE_SHIFT)) === 0;
  }

  /** An armed stop: waiting for the mark price, not in the book. */
  get isArmed(): boolean {
    return this.isTrigger && (this.flags & (TRIGGERED | STATUS_MASK)) === 0;
  }

  /** A fired stop's child: reduce-only by construction, cancel-only, sweeps its own account's makers. */
  get isFiredChild(): boolean {
    return this.isTrigger && this.triggered;
  }

  /** Reduce-only for settlement: the flag, or a stop's child (which the wire reports as false). One test of the flags: a fill record reads it twice, in every fill. */
  get settlesReduceOnly(): boolean {
    return (this.flags & (REDUCE_ONLY | (3 << TYPE_SHIFT))) !== 0;
  }

  private ensureExtra(): OrderExtra {
    if (this.extra === null) this.extra = spareExtras.pop() ?? new OrderExtra();
    return this.extra;
  }
}
