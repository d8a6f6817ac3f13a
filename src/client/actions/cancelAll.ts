/**
 * cancelAll (spec 4.2.5): cancels every open order of the account in one
 * market, or across all its markets when no symbol is given (spot and perp
 * alike). Signs a MassCancel over the market's id, or 0 for all markets. No
 * signerWallet: the signer is recovered. Deadline: now + 60 s by default.
 * cancelAll has its own rate bucket (10 per 60 s, spec 8.1).
 */
import type { CancelAllRequest } from "../../spec/requests.ts";
import { massCancelMessage } from "../../signing/messages.ts";
import type { ClientContext } from "../context.ts";
import { shortDeadline } from "../deadlines.ts";
import { decodeWith, TolerantCancelAllResponse, type DecodeResult } from "../decode.ts";
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
import { checkInteger } from "../internal/checks.ts";
import { PlanBase, send, type Attempt, type RequestPlan, type SignedPart } from "../internal/send.ts";

export interface CancelAllParameters {
  /** One market; omit for every market of the account. */
  symbol?: string;
  /** Unix seconds; default now + 60 s. */
  deadline?: number;
}

export type CancelAllReturnType = TolerantCancelAllResponse;

export type CancelAllErrorType =
  | InvalidParameterError
  | MarketNotFoundError
  | ClientConfigError
  | SigningFailedError
  | TransportFailedError
  | InvalidResponseError
  | RequestFailedError;

/** A checked cancelAll: each attempt builds a body with its own nonce and deadline. */
class CancelAllPlan extends PlanBase<"cancelAll", CancelAllReturnType> {
  readonly operation = "cancelAll";
  readonly kind = "MassCancel";

  constructor(
    private readonly client: ClientContext,
    /** Null: every market. */
    private readonly market: MarketEntry | null,
    private readonly deadline: number | undefined,
  ) {
    super();
  }

  body({ nowMicros, nonce }: Attempt): CancelAllRequest {
    const market = this.market;
    return {
      accountId: this.client.accountId,
      ...(market === null ? {} : { symbol: market.symbol }),
      signature: "",
      nonce,
      deadline: this.deadline ?? shortDeadline(nowMicros),
    };
  }

  signed(body: CancelAllRequest): SignedPart {
    const marketRef = this.market === null ? null : signingMarketRef(this.market);
    return { kind: "MassCancel", message: massCancelMessage(body, marketRef, this.client.signer.config) };
  }

  decode(payload: unknown): DecodeResult<CancelAllReturnType> {
    return decodeWith(TolerantCancelAllResponse, payload);
  }
}

export function cancelAllPlan(client: ClientContext, parameters: CancelAllParameters = {}): RequestPlan<"cancelAll", CancelAllReturnType> {
  const loose: { symbol?: unknown; deadline?: unknown } = parameters;
  if (loose.symbol !== undefined && typeof loose.symbol !== "string") throw new InvalidParameterError("symbol", "symbol must be a string");
  const market = loose.symbol === undefined ? null : client.markets.require(loose.symbol);
  const deadline = loose.deadline === undefined ? undefined : checkInteger("deadline", loose.deadline);
  return new CancelAllPlan(client, market, deadline);
}

/** Cancels the account's open orders; resolves with `cancelledCount`, rejects with a CancelAllErrorType. */
export async function cancelAll(client: ClientContext, parameters: CancelAllParameters = {}): Promise<CancelAllReturnType> {
  return send(client, cancelAllPlan(client, parameters));
}
