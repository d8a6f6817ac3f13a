/**
 * The one path every action sends through: per attempt, read the clock,
 * draw a fresh nonce, build the body and its message, sign, hand the body
 * to the transport; then decode the answer, and on a RequestError ask the
 * retry policy whether to wait and go again. Two shortcuts, for the
 * simulator: a signer's fixed signature (signer.ts) skips the message and
 * the signing, and a `typed` answer (transport.ts) the decoding.
 *
 * Synchronous hand-off: with a synchronous signer, nothing is awaited before
 * `transport.request` is called, so the request leaves within the action
 * call (see signer.ts for why the simulator needs that).
 *
 * Nonce order: nonces are drawn in call order. With an asynchronous signer,
 * signatures may complete out of order; requests are then handed to the
 * transport in the order their nonces were drawn (one chain per nonce
 * manager), so that a later nonce never reaches the service before an
 * earlier one.
 */
import type { Hex } from "viem";
import type { Micros } from "../../core/time.ts";
import { SIGNATURE_PATTERN } from "../../spec/scalars.ts";
import { canonicalSignature } from "../../signing/signature.ts";
import type { SignedKind, SignedMessages } from "../../signing/types.ts";
import type { ClientContext } from "../context.ts";
import { decodeRequestError, type DecodeResult, type TolerantRequestError } from "../decode.ts";
import { InvalidResponseError, RequestFailedError, SigningFailedError, TransportFailedError } from "../errors.ts";
import type { NonceManager } from "../nonce.ts";
import { retryDelayMs } from "../retry.ts";
import type { ClientSigner } from "../signer.ts";
import type { OrderEntryOperation, OrderEntryRequestBodies, OrderEntryResponse } from "../transport.ts";

/** The signed message of one request: a kind and its message, correlated. */
export type SignedPart = { [K in SignedKind]: { readonly kind: K; readonly message: SignedMessages[K] } }[SignedKind];

/** What one attempt is built from. */
export interface Attempt {
  readonly nowMicros: Micros;
  readonly nonce: string;
}

/** A body whose `signature` is filled in after signing. */
export interface BuiltRequest<Op extends OrderEntryOperation> {
  readonly body: OrderEntryRequestBodies[Op];
  readonly signed: SignedPart;
}

/**
 * A request once its parameters are checked: builds a fresh body per
 * attempt, and the message that signs it. The two are separate steps so
 * that a client whose signer has a fixed signature (signer.ts) does not
 * build a message nobody reads; `build` does both, for callers that sign
 * bodies themselves.
 */
export interface RequestPlan<Op extends OrderEntryOperation, Result> {
  readonly operation: Op;
  /** The kind of message that signs the request. */
  readonly kind: SignedKind;
  /** The body of one attempt, `signature` empty. */
  body(attempt: Attempt): OrderEntryRequestBodies[Op];
  /** The message that signs `body` (a body this plan built). */
  signed(body: OrderEntryRequestBodies[Op]): SignedPart;
  /** `body`, then `signed` of it. */
  build(attempt: Attempt): BuiltRequest<Op>;
  decode(payload: unknown): DecodeResult<Result>;
}

/**
 * What the actions' plans share: `build` from `body` and `signed`. The
 * plans are classes, not object literals of closures, because they are
 * made once per action call (several per agent event in a simulation), and
 * a literal's closures cost an allocation each (and a naming call each
 * under tsx, which keeps function names).
 */
export abstract class PlanBase<Op extends OrderEntryOperation, Result> implements RequestPlan<Op, Result> {
  abstract readonly operation: Op;
  abstract readonly kind: SignedKind;
  abstract body(attempt: Attempt): OrderEntryRequestBodies[Op];
  abstract signed(body: OrderEntryRequestBodies[Op]): SignedPart;
  abstract decode(payload: unknown): DecodeResult<Result>;

  build(attempt: Attempt): BuiltRequest<Op> {
    const body = this.body(attempt);
    return { body, signed: this.signed(body) };
  }
}

function callSigner(signer: ClientSigner, signed: SignedPart): Hex | Promise<Hex> {
  switch (signed.kind) {
    case "Order":
      return signer.sign("Order", signed.message);
    case "OrderCancel":
      return signer.sign("OrderCancel", signed.message);
    case "MassCancel":
      return signer.sign("MassCancel", signed.message);
    case "CancelAllAfter":
      return signer.sign("CancelAllAfter", signed.message);
  }
}

/**
 * The signature to send: checked for its wire form and, when the signer made
 * it, in its canonical form (low s, v 27 or 28; src/signing/signature.ts).
 * A signer of this SDK already signs so; a custom one (a remote or KMS
 * signer, a wallet answering with y parity) may not, and the form the
 * simulator's gateway tolerates may still fail on chain at settlement. A
 * fixed signature (trusted mode) is sent as it is: nothing verifies it.
 */
function checkedSignature(kind: SignedKind, signature: unknown, fixed: boolean): Hex {
  if (typeof signature === "string" && SIGNATURE_PATTERN.test(signature)) return (fixed ? signature : canonicalSignature(signature)) as Hex;
  throw new SigningFailedError(kind, { details: `the signer returned "${String(signature).slice(0, 140)}", not 0x and 65 bytes of hex` });
}

/** The hand-off chain of one client: the promise that the previous asynchronous hand-off settled, and how many are pending. */
interface Handoff {
  tail: Promise<void>;
  pending: number;
}

/**
 * Keyed by nonce manager: the order to keep is the order of one nonce
 * sequence, so clients that share a signer's manager share its chain.
 */
const handoffs = new WeakMap<NonceManager, Handoff>();

function handoffOf(client: ClientContext): Handoff {
  let handoff = handoffs.get(client.nonces);
  if (handoff === undefined) {
    handoff = { tail: Promise.resolve(), pending: 0 };
    handoffs.set(client.nonces, handoff);
  }
  return handoff;
}

function transmit<Op extends OrderEntryOperation>(client: ClientContext, operation: Op, body: OrderEntryRequestBodies[Op]): Promise<OrderEntryResponse> {
  let response: Promise<OrderEntryResponse>;
  try {
    response = client.transport.request(operation, body);
  } catch (cause) {
    return Promise.reject(new TransportFailedError(operation, { cause }));
  }
  return Promise.resolve(response).catch((cause: unknown) => {
    throw new TransportFailedError(operation, { cause });
  });
}

/** Signs and hands over one attempt; synchronous up to `transport.request` when the signer is. */
function sendAttempt<Op extends OrderEntryOperation, Result>(client: ClientContext, plan: RequestPlan<Op, Result>, nonce: string): Promise<OrderEntryResponse> {
  const nowMicros = client.clock.now();
  const body = plan.body({ nowMicros, nonce });
  // A fixed signature (signer.ts): the message is not built, the signer not called.
  let signing: Hex | Promise<Hex> | undefined = client.signer.fixedSignature;
  const fixed = signing !== undefined;
  if (signing === undefined) {
    const signed = plan.signed(body);
    try {
      signing = callSigner(client.signer, signed);
    } catch (cause) {
      return Promise.reject(new SigningFailedError(signed.kind, { cause }));
    }
  }
  const handoff = handoffOf(client);
  if (typeof signing === "string" && handoff.pending === 0) {
    let signature: Hex;
    try {
      signature = checkedSignature(plan.kind, signing, fixed);
    } catch (error) {
      return Promise.reject(error);
    }
    body.signature = signature;
    return transmit(client, plan.operation, body);
  }
  const previous = handoff.tail;
  let release: () => void = () => undefined;
  const own = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The next request waits for this one AND everything before it, even if this one fails early.
  handoff.tail = previous.then(() => own);
  handoff.pending++;
  const asyncSigning = Promise.resolve(signing);
  return (async () => {
    try {
      let signature: Hex;
      try {
        signature = checkedSignature(plan.kind, await asyncSigning, fixed);
      } catch (cause) {
        throw cause instanceof SigningFailedError ? cause : new SigningFailedError(plan.kind, { cause });
      }
      await previous;
      body.signature = signature;
      return transmit(client, plan.operation, body);
    } finally {
      handoff.pending--;
      release();
    }
  })();
}

/** Runs a plan to its decoded result, retrying as the client's policy allows; throws the errors of errors.ts. */
export async function send<Op extends OrderEntryOperation, Result>(client: ClientContext, plan: RequestPlan<Op, Result>): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    const nonce = client.nonces.next();
    const response = await sendAttempt(client, plan, nonce);
    // A `typed` answer (transport.ts: an in-process Exchange's) is already of its type: it is not decoded.
    if (response.ok) {
      if (response.typed === true) return response.payload as Result;
      const decoded = plan.decode(response.payload);
      if (!decoded.ok) throw new InvalidResponseError(plan.operation, response.payload, decoded.issues);
      return decoded.value;
    }
    let error: TolerantRequestError;
    if (response.typed === true) {
      error = response.error as TolerantRequestError;
    } else {
      const decoded = decodeRequestError(response.error);
      if (!decoded.ok) throw new InvalidResponseError(plan.operation, response.error, decoded.issues);
      error = decoded.value;
    }
    const retry = client.retry;
    // A nonce refused after a later one of ours was handed out may have lost a race to it (retry.ts).
    const nonceOvertaken = error.error === "INVALID_NONCE_ERROR" && client.nonces.last! > BigInt(nonce);
    const delayMs = retry === undefined ? undefined : retryDelayMs(retry.policy, error, attempt, retry.random, nonceOvertaken);
    if (retry === undefined || delayMs === undefined) throw new RequestFailedError(plan.operation, error, attempt);
    await retry.sleep(delayMs);
  }
}
