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
import { cancelReasonOfFlags, postOnlyOfFlags, statusOfFlags, triggeredOfFlags, type Order } from "./order.ts";
import type { CancelReason, Fill, FillProposal, FillVerdict, OrderResponse, OrderStatus } from "./types.ts";

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
 */
export class OrderUpdate implements OrderResponse {
  readonly ok = true as const;
  readonly priceTicks: number;
  readonly triggerTicks: number;
  readonly qtyLots: number;
  readonly cumLots: number;
  readonly expiresAfterSec: number;
  private readonly flags: number;
  private readonly updatedSec: number;
  private readonly updatedMicros: number;

  constructor(
    /** The order (read only its identity fields: the rest moves on). */
    readonly order: Order,
    readonly sequenceNumber: number,
    /** Lots executed by this update; 0 when it is not a fill update. */
    readonly execLots: number,
    readonly firstFillId: string | null,
    readonly fillCount: number,
    readonly onOrderChanges: boolean,
  ) {
    this.priceTicks = order.priceTicks;
    this.triggerTicks = order.triggerTicks;
    this.qtyLots = order.qtyLots;
    this.cumLots = order.cumLots;
    this.expiresAfterSec = order.expiresAfterSec;
    this.flags = order.stateFlags;
    this.updatedSec = order.lastUpdateSec;
    this.updatedMicros = order.lastUpdateMicros;
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
}

export class FillRecord implements Fill {
  constructor(
    readonly fillId: string,
    readonly marketId: number,
    readonly atMicros: number,
    readonly priceTicks: number,
    readonly qtyLots: number,
    readonly takerSide: "B" | "A",
    readonly takerAccountId: number,
    readonly takerOrderId: string,
    readonly takerOwnerId: number,
    readonly takerReduceOnly: boolean,
    readonly takerFilled: boolean,
    readonly makerAccountId: number,
    readonly makerOrderId: string,
    readonly makerOwnerId: number,
    readonly makerReduceOnly: boolean,
    readonly makerFilled: boolean,
  ) {}
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
