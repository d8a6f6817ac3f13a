/**
 * The errors of the client SDK, in viem's shape: one base class
 * (`ClientError`: `shortMessage`, `details`, `cause`, `walk()`), and one
 * subclass per way an action can fail, so that callers match on the class
 * (or on `name`) rather than on message text.
 *
 * Error style: actions THROW (their promise rejects) with one of these.
 * Which ones an action can throw is its `XErrorType` union. The classes say
 * what is known about the request's effect:
 *
 * - InvalidParameterError, MarketNotFoundError, ClientConfigError: found in
 *   the client, nothing was sent.
 * - SigningFailedError: the signer failed or returned no signature; nothing
 *   was sent.
 * - RequestFailedError: the service answered with a RequestError (after the
 *   retries the policy allows). A rejected request changes nothing on the
 *   service, so it is safe to correct and resend.
 * - TransportFailedError: the transport threw (connection lost, response
 *   lost, timeout). The outcome is UNKNOWN: the request may have been
 *   processed. The SDK never resends it on its own; verify through the REST
 *   reads (openOrders, perpExecutions) before resubmitting (spec 4.3).
 * - InvalidResponseError: the service answered with a body that is not the
 *   operation's response even read tolerantly. The outcome is unknown.
 *
 * Reads and streams (transports/http-reads.ts, transports/ws-stream.ts) use
 * the same classes where they apply: a REST read refused with a
 * RequestError is a RequestFailedError (its `operation` the read's name,
 * e.g. "orderHistory"), an unreadable body an InvalidResponseError. Two
 * more are theirs: ConnectionError (the read or the stream connection
 * failed: network error, an HTTP status that is not an answer, a stream
 * closed by the server) and SubscribeFailedError (the stream refused a
 * subscribe with an error envelope, spec 7.5). Reads change nothing, so
 * either may simply be retried.
 *
 * Messages follow the project's style: sentence case, no final period, the
 * field named, values quoted.
 */
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";
import type { ReadOperation } from "./transport.ts";
import type { RequestErrorCode } from "../spec/errors.ts";
import type { SignedKind } from "../signing/types.ts";
import type { Open, TolerantRequestError } from "./decode.ts";

export interface ClientErrorOptions {
  /** More about the failure, after the short message. */
  details?: string;
  cause?: unknown;
}

/** The base of every error the client SDK throws. */
export class ClientError extends Error {
  override name = "ClientError";
  /** The one-line message, without details. */
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(shortMessage: string, options: ClientErrorOptions = {}) {
    const message = options.details === undefined ? shortMessage : `${shortMessage}\n\nDetails: ${options.details}`;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.shortMessage = shortMessage;
    this.details = options.details;
  }

  /**
   * Follows the `cause` chain: without a predicate, returns the deepest
   * cause; with one, the first error in the chain (this one included) that
   * satisfies it, or null.
   */
  walk(predicate?: (error: unknown) => boolean): unknown {
    let current: unknown = this;
    const seen = new Set<unknown>();
    while (current !== undefined && current !== null && !seen.has(current)) {
      if (predicate !== undefined && predicate(current)) return current;
      seen.add(current);
      const next: unknown = current instanceof Error ? current.cause : undefined;
      if (next === undefined || next === null) break;
      current = next;
    }
    return predicate === undefined ? current : null;
  }
}

/** The client was configured wrongly (createClient, createMarketDirectory, a retry policy). */
export class ClientConfigError extends ClientError {
  override name = "ClientConfigError";
}

/** A parameter of an action breaks a rule of spec 4.2; nothing was sent. */
export class InvalidParameterError extends ClientError {
  override name = "InvalidParameterError";
  constructor(
    /** The wire name of the offending field. */
    readonly field: string,
    message: string,
    options: ClientErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** The symbol is not in the client's market directory, so its marketId (needed to sign) is unknown. */
export class MarketNotFoundError extends InvalidParameterError {
  override name = "MarketNotFoundError";
  constructor(readonly symbol: string) {
    super("symbol", `symbol "${symbol}" is not in the market directory`);
  }
}

/** The signer threw, or returned something that is not a 65-byte hex signature; nothing was sent. */
export class SigningFailedError extends ClientError {
  override name = "SigningFailedError";
  constructor(
    readonly kind: SignedKind,
    options: ClientErrorOptions = {},
  ) {
    super(`signing the ${kind} message failed`, options);
  }
}

/**
 * The transport threw: the outcome of the request is unknown (it may have
 * been processed). Verify through the REST reads before resubmitting.
 */
export class TransportFailedError extends ClientError {
  override name = "TransportFailedError";
  constructor(
    readonly operation: OrderEntryOperation,
    options: ClientErrorOptions = {},
  ) {
    super(`${operation} failed in the transport: the outcome is unknown, verify through openOrders before resubmitting`, options);
  }
}

/** The response could not be read as the operation's response, even tolerantly. */
export class InvalidResponseError extends ClientError {
  override name = "InvalidResponseError";
  constructor(
    /** The order-entry operation, or the REST read (ReadTransport method) whose answer it was. */
    readonly operation: OrderEntryOperation | ReadOperation,
    /** The raw value the transport handed over. */
    readonly response: unknown,
    issues: string,
  ) {
    super(`${operation} response is not readable`, { details: issues });
  }
}

/** The service rejected the request with a RequestError (after any retries). */
export class RequestFailedError extends ClientError {
  override name = "RequestFailedError";
  /** The RequestErrorCode; a code newer than this SDK comes through as its raw string. */
  readonly code: Open<RequestErrorCode>;
  readonly retryAfterMs: number | undefined;

  constructor(
    /** The order-entry operation, or the REST read (ReadTransport method) that was refused. */
    readonly operation: OrderEntryOperation | ReadOperation,
    /** The RequestError as received, unknown fields included. */
    readonly requestError: TolerantRequestError,
    /** How many times the request was sent (1 when it was not retried). */
    readonly attempts: number,
  ) {
    const tries = attempts === 1 ? "" : ` after ${attempts} attempts`;
    super(`${operation} was rejected with ${requestError.error}${tries}`, { details: requestError.message });
    this.code = requestError.error;
    this.retryAfterMs = requestError.retryAfterMs;
  }
}

/**
 * A read or a stream connection failed without an answer from the service:
 * the network failed (connection refused or reset), the server answered
 * with an HTTP status that carries no RequestError (404 for a wrong base
 * URL, 500), or the stream connection closed. `status` is the HTTP status
 * when there was one; `closeCode` and `closeReason` the WebSocket close
 * (1013 slow consumer, 1012 resync, 1001 shutdown, spec 6.3; 1006 when the
 * connection was lost without a close frame).
 */
export class ConnectionError extends ClientError {
  override name = "ConnectionError";
  readonly status: number | undefined;
  readonly closeCode: number | undefined;
  readonly closeReason: string | undefined;

  constructor(shortMessage: string, options: ClientErrorOptions & { status?: number; closeCode?: number; closeReason?: string } = {}) {
    super(shortMessage, options);
    this.status = options.status;
    this.closeCode = options.closeCode;
    this.closeReason = options.closeReason;
  }
}

/**
 * The stream refused a subscribe with an error envelope (spec 7.5: "Invalid
 * channel name", a failed snapshot, the subscription limit). `message` is
 * exactly the server's text, as the simulator's stream rejects with.
 */
export class SubscribeFailedError extends ClientError {
  override name = "SubscribeFailedError";
  constructor(
    readonly channel: string,
    /** The error envelope's message. */
    serverMessage: string,
  ) {
    super(serverMessage);
  }
}
