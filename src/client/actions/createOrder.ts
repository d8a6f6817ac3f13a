/**
 * createOrder (spec 4.2.1): places a LIMIT order, or arms a STOP_LOSS /
 * TAKE_PROFIT trigger (perp only).
 *
 * The body carries exactly the fields that apply (see internal/order.ts),
 * `signerWallet` = the client's address, a fresh nonce, and a deadline that
 * lets the order settle (deadlines.ts) unless one is given. The Order
 * message is built from that very body by src/signing (a spot market signs
 * its id + 10^10; a trigger signs the quantity sentinel with the side's
 * sign, reduceOnly and postOnly false).
 *
 * clientOrderId: kept across retries. The service does not de-duplicate by
 * it, so a create whose response was lost (TransportFailedError) must be
 * checked against openOrders before it is sent again (spec 4.3).
 */
import type { CreateOrderRequest } from "../../spec/requests.ts";
import { orderMessage } from "../../signing/messages.ts";
import type { ClientContext } from "../context.ts";
import { decodeWith, TolerantCreateOrderResponse, type DecodeResult } from "../decode.ts";
import type {
  ClientConfigError,
  InvalidParameterError,
  InvalidResponseError,
  MarketNotFoundError,
  RequestFailedError,
  SigningFailedError,
  TransportFailedError,
} from "../errors.ts";
import { checkCreateFlags, checkOrder, orderDeadline, type CheckedOrder, type CreateFlags, type LooseOrderParameters } from "../internal/order.ts";
import { PlanBase, send, type Attempt, type RequestPlan, type SignedPart } from "../internal/send.ts";
import { signingMarketRef } from "../markets.ts";

interface CreateOrderParametersBase {
  /** The market; must be in the client's market directory. */
  symbol: string;
  isBuy: boolean;
  /** Worst acceptable execution price, an UnsignedDecimal string. */
  limitPx: string;
  /** A decimal uint64 string; "0" means none and is omitted. Not de-duplicated by the service. */
  clientOrderId?: string;
  /** Signature validity, Unix seconds. Default: deadlines.ts (IOC now + 60 s, resting now + 365 days, GTT expiresAfter - 1). */
  deadline?: number;
}

/** A LIMIT IOC: fills what the book offers, cancels the rest. */
export interface LimitIocOrderParameters extends CreateOrderParametersBase {
  orderType?: "LIMIT";
  timeInForce: "IOC";
  qty: string;
  /** Perp only; sent (default false) on every perp IOC, refused as true on spot. */
  reduceOnly?: boolean;
}

export interface LimitGtcOrderParameters extends CreateOrderParametersBase {
  orderType?: "LIMIT";
  timeInForce: "GTC";
  qty: string;
  /** Default false. */
  postOnly?: boolean;
}

export interface LimitGttOrderParameters extends CreateOrderParametersBase {
  orderType?: "LIMIT";
  timeInForce: "GTT";
  qty: string;
  postOnly?: boolean;
  /** Expiry, Unix seconds; must be after the deadline. */
  expiresAfter: number;
}

/** A STOP_LOSS or TAKE_PROFIT (perp only) whose fired child is IOC or GTC. No qty: it covers the whole position. */
export interface TriggerOrderParameters extends CreateOrderParametersBase {
  orderType: "STOP_LOSS" | "TAKE_PROFIT";
  timeInForce: "IOC" | "GTC";
  /** Non-zero. */
  triggerPx: string;
}

/** A STOP_LOSS or TAKE_PROFIT whose armed stop and fired child share one expiry. */
export interface TriggerGttOrderParameters extends CreateOrderParametersBase {
  orderType: "STOP_LOSS" | "TAKE_PROFIT";
  timeInForce: "GTT";
  triggerPx: string;
  expiresAfter: number;
}

export type CreateOrderParameters =
  | LimitIocOrderParameters
  | LimitGtcOrderParameters
  | LimitGttOrderParameters
  | TriggerOrderParameters
  | TriggerGttOrderParameters;

export type CreateOrderReturnType = TolerantCreateOrderResponse;

export type CreateOrderErrorType =
  | InvalidParameterError
  | MarketNotFoundError
  | ClientConfigError
  | SigningFailedError
  | TransportFailedError
  | InvalidResponseError
  | RequestFailedError;

/** A checked createOrder: each attempt builds a body with its own nonce and deadline. */
class CreateOrderPlan extends PlanBase<"createOrder", CreateOrderReturnType> {
  readonly operation = "createOrder";
  readonly kind = "Order";

  constructor(
    private readonly client: ClientContext,
    private readonly order: CheckedOrder,
    private readonly flags: CreateFlags,
  ) {
    super();
  }

  body({ nowMicros, nonce }: Attempt): CreateOrderRequest {
    const { client, order, flags } = this;
    return {
      exchangeId: client.exchangeId,
      symbol: order.market.symbol,
      accountId: client.accountId,
      isBuy: order.isBuy,
      limitPx: order.limitPx,
      ...(order.qty === undefined ? {} : { qty: order.qty }),
      orderType: order.orderType,
      timeInForce: order.timeInForce,
      ...(order.triggerPx === undefined ? {} : { triggerPx: order.triggerPx }),
      ...(flags.reduceOnly === undefined ? {} : { reduceOnly: flags.reduceOnly }),
      ...(flags.postOnly === undefined ? {} : { postOnly: flags.postOnly }),
      signature: "",
      nonce,
      signerWallet: client.address,
      deadline: orderDeadline(order, nowMicros),
      ...(order.expiresAfter === undefined ? {} : { expiresAfter: order.expiresAfter }),
      ...(order.clientOrderId === undefined ? {} : { clientOrderId: order.clientOrderId }),
    };
  }

  signed(body: CreateOrderRequest): SignedPart {
    return { kind: "Order", message: orderMessage(body, signingMarketRef(this.order.market), this.client.signer.config) };
  }

  decode(payload: unknown): DecodeResult<CreateOrderReturnType> {
    return decodeWith(TolerantCreateOrderResponse, payload);
  }
}

/** Checks the parameters once; each attempt then builds a body with its own nonce and deadline. */
export function createOrderPlan(client: ClientContext, parameters: CreateOrderParameters): RequestPlan<"createOrder", CreateOrderReturnType> {
  const loose: LooseOrderParameters = parameters;
  const order = checkOrder(client, loose);
  return new CreateOrderPlan(client, order, checkCreateFlags(order, loose));
}

/** Places an order; resolves with the response, rejects with a CreateOrderErrorType. */
export async function createOrder(client: ClientContext, parameters: CreateOrderParameters): Promise<CreateOrderReturnType> {
  return send(client, createOrderPlan(client, parameters));
}
