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
import { decodeWith, TolerantCancelAllResponse } from "../decode.ts";
import {
  InvalidParameterError,
  type ClientConfigError,
  type InvalidResponseError,
  type MarketNotFoundError,
  type RequestFailedError,
  type SigningFailedError,
  type TransportFailedError,
} from "../errors.ts";
import { signingMarketRef } from "../markets.ts";
import { checkInteger } from "../internal/checks.ts";
import { send, type RequestPlan } from "../internal/send.ts";

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

export function cancelAllPlan(client: ClientContext, parameters: CancelAllParameters = {}): RequestPlan<"cancelAll", CancelAllReturnType> {
  const loose: { symbol?: unknown; deadline?: unknown } = parameters;
  if (loose.symbol !== undefined && typeof loose.symbol !== "string") throw new InvalidParameterError("symbol", "symbol must be a string");
  const market = loose.symbol === undefined ? null : client.markets.require(loose.symbol);
  const marketRef = market === null ? null : signingMarketRef(market);
  const deadline = loose.deadline === undefined ? undefined : checkInteger("deadline", loose.deadline);
  return {
    operation: "cancelAll",
    build({ nowMicros, nonce }) {
      const body: CancelAllRequest = {
        accountId: client.accountId,
        ...(market === null ? {} : { symbol: market.symbol }),
        signature: "",
        nonce,
        deadline: deadline ?? shortDeadline(nowMicros),
      };
      return { body, signed: { kind: "MassCancel", message: massCancelMessage(body, marketRef, client.signer.config) } };
    },
    decode: (payload) => decodeWith(TolerantCancelAllResponse, payload),
  };
}

/** Cancels the account's open orders; resolves with `cancelledCount`, rejects with a CancelAllErrorType. */
export async function cancelAll(client: ClientContext, parameters: CancelAllParameters = {}): Promise<CancelAllReturnType> {
  return send(client, cancelAllPlan(client, parameters));
}
