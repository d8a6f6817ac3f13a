/**
 * The Order row (spec 2.12), shared by openOrders, orderChanges and
 * orderHistory, with the lists that carry it (spec 2.13, 2.20).
 */
import { z } from "zod";
import { CancelReason, OrderStatus, OrderType, TimeInForce } from "./enums.ts";
import { PaginationMeta } from "./pagination.ts";
import { Id, MarketSymbol, Side, SignedDecimal, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/** A fill count: at least 1 when present (spec 2.12, 4.2.2). */
export const FillCount = z.number().int().min(1).meta({ id: "FillCount" });
export type FillCount = z.infer<typeof FillCount>;

/**
 * Spec 2.12 one state of one order. Streams and history may hold several
 * rows for one order. The rules that tie fields together (cancelReason only
 * when CANCELLED, fillCount only with firstFillId, triggered never true for
 * LIMIT, ...) are the publisher's invariants, not checked here.
 */
export const Order = z
  .looseObject({
    exchangeId: UnsignedInteger,
    symbol: MarketSymbol,
    accountId: UnsignedInteger,
    orderId: Id,
    sequenceNumber: UnsignedInteger.exactOptional(),
    clientOrderId: Id.exactOptional(),
    qty: UnsignedDecimal.exactOptional(),
    execQty: UnsignedDecimal.exactOptional(),
    cumQty: UnsignedDecimal.exactOptional(),
    firstFillId: Id.exactOptional(),
    fillCount: FillCount.exactOptional(),
    side: Side,
    limitPx: SignedDecimal,
    orderType: OrderType,
    triggerPx: SignedDecimal.exactOptional(),
    triggered: z.boolean().exactOptional(),
    timeInForce: TimeInForce.exactOptional(),
    expiresAfter: UnsignedInteger.exactOptional(),
    reduceOnly: z.boolean().exactOptional(),
    postOnly: z.boolean().exactOptional(),
    status: OrderStatus,
    createdAt: UnsignedInteger,
    lastUpdateAt: UnsignedInteger,
    cancelReason: CancelReason.exactOptional(),
    cancelReasonMessage: z.string().exactOptional(),
  })
  .meta({ id: "Order" });
export type Order = z.infer<typeof Order>;

/** Spec 2.13 a page of orderHistory, newest first, at most 100 rows. */
export const OrderHistoryList = z
  .looseObject({
    data: z.array(Order),
    meta: PaginationMeta,
  })
  .meta({ id: "OrderHistoryList" });
export type OrderHistoryList = z.infer<typeof OrderHistoryList>;

/**
 * Spec 2.20 the `contents` of an orderChanges subscription: the current
 * open orders and the cursor that later rows' sequenceNumber exceeds.
 */
export const OrderChangesSnapshot = z
  .looseObject({
    data: z.array(Order),
    snapshotSequenceNumber: UnsignedInteger,
  })
  .meta({ id: "OrderChangesSnapshot" });
export type OrderChangesSnapshot = z.infer<typeof OrderChangesSnapshot>;
