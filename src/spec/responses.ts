/**
 * Success bodies of the order-entry operations (spec 4.2): the REST 200
 * body and the `payload` of an ok WebSocket response.
 */
import { z } from "zod";
import { CancelReason, OrderStatus } from "./enums.ts";
import { FillCount } from "./order.ts";
import { Id, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

const orderEntryResult = z.looseObject({
  status: OrderStatus,
  orderId: Id,
  execQty: UnsignedDecimal.exactOptional(),
  cumQty: UnsignedDecimal.exactOptional(),
  clientOrderId: Id.exactOptional(),
  cancelReason: CancelReason.exactOptional(),
  cancelReasonMessage: z.string().exactOptional(),
  firstFillId: Id.exactOptional(),
  fillCount: FillCount.exactOptional(),
});

/**
 * Spec 4.2.2 createOrder response. orderId is assigned for every order,
 * IOC included; firstFillId and fillCount are present only when the order
 * filled on entry.
 */
export const CreateOrderResponse = orderEntryResult.meta({ id: "CreateOrderResponse" });
export type CreateOrderResponse = z.infer<typeof CreateOrderResponse>;

/**
 * Spec 4.2.3 modifyOrder response: the createOrder response fields. orderId
 * is unchanged by the modify; execQty appears only when the modify crossed
 * and filled; cumQty covers the order's lifetime.
 */
export const ModifyOrderResponse = orderEntryResult.meta({ id: "ModifyOrderResponse" });
export type ModifyOrderResponse = z.infer<typeof ModifyOrderResponse>;

/** Spec 4.2.4 cancelOrder response; status is always CANCELLED. */
export const CancelOrderResponse = z
  .looseObject({
    status: z.literal("CANCELLED"),
    orderId: Id,
    clientOrderId: Id.exactOptional(),
  })
  .meta({ id: "CancelOrderResponse" });
export type CancelOrderResponse = z.infer<typeof CancelOrderResponse>;

/** Spec 4.2.5 cancelAll response. */
export const CancelAllResponse = z
  .looseObject({
    cancelledCount: UnsignedInteger,
  })
  .meta({ id: "CancelAllResponse" });
export type CancelAllResponse = z.infer<typeof CancelAllResponse>;

/**
 * Spec 4.2.6 cancelAllAfter response. timeoutMs 0 means disarmed, and then
 * triggerAt (ms, receipt time plus timeoutMs) is omitted.
 */
export const CancelAllAfterResponse = z
  .looseObject({
    accountId: UnsignedInteger,
    timeoutMs: UnsignedInteger,
    triggerAt: UnsignedInteger.exactOptional(),
  })
  .meta({ id: "CancelAllAfterResponse" });
export type CancelAllAfterResponse = z.infer<typeof CancelAllAfterResponse>;
