/**
 * modifyOrder (spec 4.2.3): amends one live order in place, a resting LIMIT
 * (GTC or GTT) or an armed perp trigger, under a fresh signature and nonce.
 *
 * The request RESTATES THE COMPLETE POST-MODIFY ORDER, unchanged values
 * included: the signature covers the whole order state, and the service
 * compares it with the resting order (immutable fields must match; a request
 * that changes nothing is EMPTY_MODIFY_ERROR). So the parameters are the
 * order's full state, not a diff: `postOnly` is required for a LIMIT (it is
 * modifiable, and a default could silently change it), a GTT restates its
 * expiresAfter, a trigger its triggerPx.
 *
 * Fixed by the spec and not parameters: `reduceOnly` is sent as false (no
 * resting order is reduce-only: it is supported on perp IOC only, and
 * triggers report false), and a trigger sends postOnly false.
 *
 * Lookup: orderId when given, else the non-zero clientOrderId. With an
 * orderId, a clientOrderId restates the order's own client id (it cannot
 * assign a new one): pass it when the order has one, since it is signed.
 *
 * The deadline defaults as for a create of the restated order (deadlines.ts):
 * the new signature is what the order settles under from now on.
 */
import type { ModifyOrderRequest } from "../../spec/requests.ts";
import { orderMessage } from "../../signing/messages.ts";
import type { ClientContext } from "../context.ts";
import { decodeWith, TolerantModifyOrderResponse, type DecodeResult } from "../decode.ts";
import {
  InvalidParameterError,
  type ClientConfigError,
  type InvalidResponseError,
  type MarketNotFoundError,
  type RequestFailedError,
  type SigningFailedError,
  type TransportFailedError,
} from "../errors.ts";
import { checkBoolean, checkId } from "../internal/checks.ts";
import { idFields, type OrderIds } from "../internal/ids.ts";
import { checkOrder, orderDeadline, type CheckedOrder, type LooseOrderParameters } from "../internal/order.ts";
import { PlanBase, send, type Attempt, type RequestPlan, type SignedPart } from "../internal/send.ts";
import { signingMarketRef } from "../markets.ts";

/** Which order to modify: by orderId (restating its clientOrderId if it has one), or by a non-zero clientOrderId. */
export type ModifyOrderLookup = { orderId: string; clientOrderId?: string } | { orderId?: never; clientOrderId: string };

interface ModifyOrderStateBase {
  symbol: string;
  /** Immutable: restate it. */
  isBuy: boolean;
  /** Modifiable. */
  limitPx: string;
  /** Signature validity, Unix seconds; default as for a create of the restated order. */
  deadline?: number;
}

export interface ModifyLimitGtcParameters extends ModifyOrderStateBase {
  orderType?: "LIMIT";
  timeInForce: "GTC";
  /** Total post-modify quantity, above cumQty. */
  qty: string;
  postOnly: boolean;
}

export interface ModifyLimitGttParameters extends ModifyOrderStateBase {
  orderType?: "LIMIT";
  timeInForce: "GTT";
  qty: string;
  postOnly: boolean;
  /** Modifiable for a LIMIT: a future time after the deadline. */
  expiresAfter: number;
}

export interface ModifyTriggerParameters extends ModifyOrderStateBase {
  orderType: "STOP_LOSS" | "TAKE_PROFIT";
  /** The original time in force of the trigger's child. */
  timeInForce: "IOC" | "GTC";
  /** Modifiable. */
  triggerPx: string;
}

export interface ModifyTriggerGttParameters extends ModifyOrderStateBase {
  orderType: "STOP_LOSS" | "TAKE_PROFIT";
  timeInForce: "GTT";
  triggerPx: string;
  /** The original expiry, restated (a trigger's expiry cannot be amended). */
  expiresAfter: number;
}

export type ModifyOrderParameters = ModifyOrderLookup &
  (ModifyLimitGtcParameters | ModifyLimitGttParameters | ModifyTriggerParameters | ModifyTriggerGttParameters);

export type ModifyOrderReturnType = TolerantModifyOrderResponse;

export type ModifyOrderErrorType =
  | InvalidParameterError
  | MarketNotFoundError
  | ClientConfigError
  | SigningFailedError
  | TransportFailedError
  | InvalidResponseError
  | RequestFailedError;

interface LooseModifyParameters extends LooseOrderParameters {
  orderId?: unknown;
}

function checkLookup(parameters: LooseModifyParameters): OrderIds {
  const clientOrderId = parameters.clientOrderId === undefined ? undefined : checkId("clientOrderId", parameters.clientOrderId);
  if (parameters.orderId !== undefined) {
    // "0" is a well-formed uint64 but no order's id: checkId reads it as absent.
    const orderId = checkId("orderId", parameters.orderId);
    if (orderId === undefined) throw new InvalidParameterError("orderId", 'orderId "0" names no order');
    return clientOrderId === undefined ? { orderId } : { orderId, clientOrderId };
  }
  if (clientOrderId === undefined) throw new InvalidParameterError("orderId", "one of orderId or a non-zero clientOrderId is required");
  return { clientOrderId };
}

/** A checked modifyOrder: each attempt builds a body with its own nonce and deadline. */
class ModifyOrderPlan extends PlanBase<"modifyOrder", ModifyOrderReturnType> {
  readonly operation = "modifyOrder";
  readonly kind = "Order";

  constructor(
    private readonly client: ClientContext,
    private readonly lookup: OrderIds,
    private readonly order: CheckedOrder,
    private readonly postOnly: boolean,
  ) {
    super();
  }

  body({ nowMicros, nonce }: Attempt): ModifyOrderRequest {
    const { client, order } = this;
    // The lookup first (the input log keeps key order); see idFields for why not one literal.
    return Object.assign(
      idFields(this.lookup),
      {
        symbol: order.market.symbol,
        accountId: client.accountId,
        exchangeId: client.exchangeId,
        isBuy: order.isBuy,
        orderType: order.orderType,
        timeInForce: order.timeInForce,
        ...(order.triggerPx === undefined ? {} : { triggerPx: order.triggerPx }),
        reduceOnly: false,
        limitPx: order.limitPx,
        ...(order.qty === undefined ? {} : { qty: order.qty }),
        postOnly: this.postOnly,
        ...(order.expiresAfter === undefined ? {} : { expiresAfter: order.expiresAfter }),
        signature: "",
        nonce,
        signerWallet: client.address,
        deadline: orderDeadline(order, nowMicros),
      },
    );
  }

  signed(body: ModifyOrderRequest): SignedPart {
    return { kind: "Order", message: orderMessage(body, signingMarketRef(this.order.market), this.client.signer.config) };
  }

  decode(payload: unknown): DecodeResult<ModifyOrderReturnType> {
    return decodeWith(TolerantModifyOrderResponse, payload);
  }
}

export function modifyOrderPlan(client: ClientContext, parameters: ModifyOrderParameters): RequestPlan<"modifyOrder", ModifyOrderReturnType> {
  const loose: LooseModifyParameters = parameters;
  const lookup = checkLookup(loose);
  // The lookup's clientOrderId is handled above; checkOrder would read it as the order's own.
  // (Object.assign: a field after a leading spread is slow to add, see idFields.)
  const order = checkOrder(client, Object.assign({}, loose, { clientOrderId: undefined }));
  if (!order.isTrigger && order.timeInForce === "IOC") {
    throw new InvalidParameterError("timeInForce", 'timeInForce "IOC" cannot be modified: a resting LIMIT is GTC or GTT');
  }
  if (loose.reduceOnly !== undefined && loose.reduceOnly !== false) {
    throw new InvalidParameterError("reduceOnly", "reduceOnly is always false on a modify: no resting order is reduce-only");
  }
  let postOnly = false;
  if (order.isTrigger) {
    if (loose.postOnly !== undefined && loose.postOnly !== false) {
      throw new InvalidParameterError("postOnly", "postOnly is not supported for a STOP_LOSS or TAKE_PROFIT order");
    }
  } else {
    if (loose.postOnly === undefined) throw new InvalidParameterError("postOnly", "postOnly is required: restate the order's postOnly");
    postOnly = checkBoolean("postOnly", loose.postOnly);
  }
  return new ModifyOrderPlan(client, lookup, order, postOnly);
}

/** Modifies a resting order; resolves with the response, rejects with a ModifyOrderErrorType. */
export async function modifyOrder(client: ClientContext, parameters: ModifyOrderParameters): Promise<ModifyOrderReturnType> {
  return send(client, modifyOrderPlan(client, parameters));
}
