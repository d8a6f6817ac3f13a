/**
 * cancelAllAfter (spec 4.2.6, 3.3): arms, refreshes or disarms the
 * account's cancel-on-disconnect switch. `timeoutMs` in [5000, 60000] arms
 * it (or restarts the countdown from receipt); 0 disarms it. When it fires,
 * every open order of the account is cancelled except protective stops.
 * The switch is per account, not per connection: keep refreshing it well
 * inside the timeout. Signs accountId, timeoutMs, nonce and deadline;
 * carries signerWallet. Deadline (signature validity, not the trigger time):
 * now + 60 s by default. It counts toward no rate bucket (spec 8.1).
 */
import type { CancelAllAfterRequest } from "../../spec/requests.ts";
import {
  CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM,
  CANCEL_ALL_AFTER_TIMEOUT_MS_MAX,
  CANCEL_ALL_AFTER_TIMEOUT_MS_MIN,
} from "../../spec/limits.ts";
import { cancelAllAfterMessage } from "../../signing/messages.ts";
import type { ClientContext } from "../context.ts";
import { shortDeadline } from "../deadlines.ts";
import { decodeWith, TolerantCancelAllAfterResponse, type DecodeResult } from "../decode.ts";
import {
  InvalidParameterError,
  type ClientConfigError,
  type InvalidResponseError,
  type RequestFailedError,
  type SigningFailedError,
  type TransportFailedError,
} from "../errors.ts";
import { checkInteger } from "../internal/checks.ts";
import { PlanBase, send, type Attempt, type RequestPlan, type SignedPart } from "../internal/send.ts";

export interface CancelAllAfterParameters {
  /** 0 disarms; otherwise in [5000, 60000]. */
  timeoutMs: number;
  /** Unix seconds; default now + 60 s. */
  deadline?: number;
}

export type CancelAllAfterReturnType = TolerantCancelAllAfterResponse;

export type CancelAllAfterErrorType =
  | InvalidParameterError
  | ClientConfigError
  | SigningFailedError
  | TransportFailedError
  | InvalidResponseError
  | RequestFailedError;

/** A checked cancelAllAfter: each attempt builds a body with its own nonce and deadline. */
class CancelAllAfterPlan extends PlanBase<"cancelAllAfter", CancelAllAfterReturnType> {
  readonly operation = "cancelAllAfter";
  readonly kind = "CancelAllAfter";

  constructor(
    private readonly client: ClientContext,
    private readonly timeoutMs: number,
    private readonly deadline: number | undefined,
  ) {
    super();
  }

  body({ nowMicros, nonce }: Attempt): CancelAllAfterRequest {
    return {
      accountId: this.client.accountId,
      timeoutMs: this.timeoutMs,
      signature: "",
      nonce,
      signerWallet: this.client.address,
      deadline: this.deadline ?? shortDeadline(nowMicros),
    };
  }

  signed(body: CancelAllAfterRequest): SignedPart {
    return { kind: "CancelAllAfter", message: cancelAllAfterMessage(body, this.client.signer.config) };
  }

  decode(payload: unknown): DecodeResult<CancelAllAfterReturnType> {
    return decodeWith(TolerantCancelAllAfterResponse, payload);
  }
}

export function cancelAllAfterPlan(client: ClientContext, parameters: CancelAllAfterParameters): RequestPlan<"cancelAllAfter", CancelAllAfterReturnType> {
  const loose: { timeoutMs?: unknown; deadline?: unknown } = parameters;
  const timeoutMs = checkInteger("timeoutMs", loose.timeoutMs);
  if (timeoutMs !== CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM && (timeoutMs < CANCEL_ALL_AFTER_TIMEOUT_MS_MIN || timeoutMs > CANCEL_ALL_AFTER_TIMEOUT_MS_MAX)) {
    throw new InvalidParameterError(
      "timeoutMs",
      `timeoutMs "${timeoutMs}" must be ${CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM} (disarm) or within [${CANCEL_ALL_AFTER_TIMEOUT_MS_MIN}, ${CANCEL_ALL_AFTER_TIMEOUT_MS_MAX}]`,
    );
  }
  const deadline = loose.deadline === undefined ? undefined : checkInteger("deadline", loose.deadline);
  return new CancelAllAfterPlan(client, timeoutMs, deadline);
}

/** Arms (timeoutMs > 0) or disarms (0) the switch; resolves with the response, rejects with a CancelAllAfterErrorType. */
export async function cancelAllAfter(client: ClientContext, parameters: CancelAllAfterParameters): Promise<CancelAllAfterReturnType> {
  return send(client, cancelAllAfterPlan(client, parameters));
}
