/**
 * cancelOrder (spec 4.2.4): cancels one order, by orderId or by its
 * non-zero clientOrderId. The body has no signerWallet: the service
 * recovers the signer from the OrderCancel signature (orderId and clOrdId
 * exclusive, the unused one signed as 0). Deadline: now + 60 s by default
 * (at most 600 s ahead is accepted).
 */
import type { CancelOrderRequest } from "../../spec/requests.ts";
import { cancelMessage } from "../../signing/messages.ts";
import type { ClientContext } from "../context.ts";
import { shortDeadline } from "../deadlines.ts";
import { decodeWith, TolerantCancelOrderResponse, type DecodeResult } from "../decode.ts";
import {
  InvalidParameterError,
  type ClientConfigError,
  type InvalidResponseError,
  type MarketNotFoundError,
  type RequestFailedError,
  type SigningFailedError,
  type TransportFailedError,
} from "../errors.ts";
import { signingMarketRef, type MarketEntry } from "../markets.ts";
import { checkId, checkInteger } from "../internal/checks.ts";
import { idFields } from "../internal/ids.ts";
import { PlanBase, send, type Attempt, type RequestPlan, type SignedPart } from "../internal/send.ts";

export type CancelOrderParameters = {
  /** The order's market (signed as its marketId). */
  symbol: string;
  /** Unix seconds; default now + 60 s. */
  deadline?: number;
} & ({ orderId: string; clientOrderId?: never } | { orderId?: never; clientOrderId: string });

export type CancelOrderReturnType = TolerantCancelOrderResponse;

export type CancelOrderErrorType =
  | InvalidParameterError
  | MarketNotFoundError
  | ClientConfigError
  | SigningFailedError
  | TransportFailedError
  | InvalidResponseError
  | RequestFailedError;

interface LooseCancelParameters {
  symbol?: unknown;
  orderId?: unknown;
  clientOrderId?: unknown;
  deadline?: unknown;
}

function checkTarget(parameters: LooseCancelParameters): { orderId: string } | { clientOrderId: string } {
  if (parameters.orderId !== undefined && parameters.clientOrderId !== undefined) {
    throw new InvalidParameterError("clientOrderId", "give one of orderId or clientOrderId, not both");
  }
  if (parameters.orderId !== undefined) {
    const orderId = checkId("orderId", parameters.orderId);
    if (orderId === undefined) throw new InvalidParameterError("orderId", 'orderId "0" names no order');
    return { orderId };
  }
  if (parameters.clientOrderId !== undefined) {
    const clientOrderId = checkId("clientOrderId", parameters.clientOrderId);
    if (clientOrderId === undefined) throw new InvalidParameterError("clientOrderId", 'clientOrderId "0" names no order: it must be non-zero');
    return { clientOrderId };
  }
  throw new InvalidParameterError("orderId", "one of orderId or clientOrderId is required");
}

/** A checked cancelOrder: each attempt builds a body with its own nonce and deadline. */
class CancelOrderPlan extends PlanBase<"cancelOrder", CancelOrderReturnType> {
  readonly operation = "cancelOrder";
  readonly kind = "OrderCancel";

  constructor(
    private readonly client: ClientContext,
    private readonly market: MarketEntry,
    private readonly target: { orderId: string } | { clientOrderId: string },
    private readonly deadline: number | undefined,
  ) {
    super();
  }

  body({ nowMicros, nonce }: Attempt): CancelOrderRequest {
    // See idFields for why not one literal.
    return Object.assign(
      idFields(this.target),
      {
        accountId: this.client.accountId,
        symbol: this.market.symbol,
        signature: "",
        nonce,
        deadline: this.deadline ?? shortDeadline(nowMicros),
      },
    );
  }

  signed(body: CancelOrderRequest): SignedPart {
    return { kind: "OrderCancel", message: cancelMessage(body, signingMarketRef(this.market), this.client.signer.config) };
  }

  decode(payload: unknown): DecodeResult<CancelOrderReturnType> {
    return decodeWith(TolerantCancelOrderResponse, payload);
  }
}

export function cancelOrderPlan(client: ClientContext, parameters: CancelOrderParameters): RequestPlan<"cancelOrder", CancelOrderReturnType> {
  const loose: LooseCancelParameters = parameters;
  if (typeof loose.symbol !== "string") throw new InvalidParameterError("symbol", "symbol must be a string");
  const market = client.markets.require(loose.symbol);
  const target = checkTarget(loose);
  const deadline = loose.deadline === undefined ? undefined : checkInteger("deadline", loose.deadline);
  return new CancelOrderPlan(client, market, target, deadline);
}

/** Cancels one order; resolves with the response (status CANCELLED), rejects with a CancelOrderErrorType. */
export async function cancelOrder(client: ClientContext, parameters: CancelOrderParameters): Promise<CancelOrderReturnType> {
  return send(client, cancelOrderPlan(client, parameters));
}
