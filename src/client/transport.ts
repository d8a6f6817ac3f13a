/**
 * The transports a client talks through. Order entry is one method, so that
 * REST (POST /v2/<operation>), WebSocket order entry (a frame of that type,
 * answered by id) and the simulator's in-process transport all fit; the
 * transports themselves come with the runner and live-server work.
 *
 * A transport only frames: it hands over what the service answered, raw,
 * and the client decodes it tolerantly (decode.ts). That is why `payload`
 * and `error` are `unknown` here: a WebSocket transport has parsed JSON, not
 * checked values, and the decoding rules (unknown fields and enum values)
 * belong in one place. (An in-process transport, whose answers are the
 * reference Exchange's own values, may say so: `typed`, below.)
 *
 * What a transport must do:
 * - Resolve `{ ok: true, payload }` with the REST 200 body or the `payload`
 *   of an ok WebSocket response.
 * - Resolve `{ ok: false, error }` with the RequestError of an HTTP 400 body
 *   or of a failed WebSocket response. A transport that meets the REST edge
 *   limit (HTTP 429, no body, spec 7.6) may report it as a RATE_LIMITED_ERROR
 *   with the wait it knows, so that the client's retry policy applies.
 * - Reject (throw) when it cannot tell what happened to the request
 *   (connection lost after sending, timeout, an HTTP 500): the client turns
 *   that into TransportFailedError and never resends by itself.
 */
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";
import type { AccountBalance, Position } from "../spec/account.ts";
import type { Depth } from "../spec/depth.ts";
import type {
  CancelAllAfterRequest,
  CancelAllRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  ModifyOrderRequest,
} from "../spec/requests.ts";
import type { TolerantOrder, TolerantOrderHistoryList, TolerantPerpExecutionList } from "./decode.ts";

export type { OrderEntryOperation };

/** The request body of each operation (spec 4.2), identical on REST and WebSocket. */
export interface OrderEntryRequestBodies {
  createOrder: CreateOrderRequest;
  modifyOrder: ModifyOrderRequest;
  cancelOrder: CancelOrderRequest;
  cancelAll: CancelAllRequest;
  cancelAllAfter: CancelAllAfterRequest;
}

/**
 * What the service answered: raw, decoded by the client.
 *
 * `typed: true` is for in-process transports only (the simulator's, over
 * the reference Exchange): the transport vouches that `payload` is already
 * a value of the operation's response type and `error` a RequestError, as
 * the Exchange built them (test/exchange/gateway/responses.test.ts holds
 * its answers to the spec schemas), so the client hands them over as they
 * are instead of decoding a copy. A transport that received the answer from
 * a network (REST, WebSocket) never sets it: what a server sends is decoded.
 */
export type OrderEntryResponse =
  | { readonly ok: true; readonly payload: unknown; readonly typed?: true }
  | { readonly ok: false; readonly error: unknown; readonly typed?: true };

export interface OrderEntryTransport {
  request<Op extends OrderEntryOperation>(operation: Op, body: OrderEntryRequestBodies[Op]): Promise<OrderEntryResponse>;
}

/**
 * orderHistory filters (spec 4.1): ms, inclusive, on lastUpdateAt. Rows come
 * newest first, at most 100. `cursor`: a page's meta.nextCursor, for the
 * next (older) page with the same filters.
 */
export interface OrderHistoryQuery {
  startTime?: number;
  endTime?: number;
  cursor?: string;
}

/** REST depth (spec 4.1): `limit` levels per side, default 100, at most 1000. */
export interface DepthQuery {
  limit?: number;
}

/**
 * Executions filters (spec 4.1, GET /v2/wallet/{address}/perpExecutions):
 * `limit` rows, default 100, at most 1000; `startTime`/`endTime` (ms,
 * inclusive) on the execution's `timestamp`. Rows come newest first.
 */
export interface ExecutionsQuery {
  limit?: number;
  startTime?: number;
  endTime?: number;
}

/**
 * The REST reads a strategy needs (spec 4.1), by wallet address. An
 * implementation decodes with decode.ts (tolerant of unknown fields and enum
 * values) and rejects with a ClientError: RequestFailedError (with the
 * RequestError's `code`) for an HTTP 400 RequestError, ConnectionError
 * when the read itself failed (errors.ts).
 * Reads are not signed and not retried by the SDK.
 *
 * Shapes are the REST bodies (src/live/rest.ts): lists of current state
 * (openOrders, positions, balances) are arrays; lists of past records
 * (orderHistory, perpExecutions) are `{data, meta}` pages, newest first,
 * whose meta echoes the effective limit and the time filters given. Every
 * implementation (the simulator's in-process connection, the SDK's
 * httpReadTransport) answers the same value for the same exchange state.
 */
/** The name of each REST read (a ReadTransport method), as RequestFailedError and InvalidResponseError name it in `operation`. */
export type ReadOperation = keyof ReadTransport;

export interface ReadTransport {
  openOrders(wallet: string): Promise<readonly TolerantOrder[]>;
  orderHistory(wallet: string, query?: OrderHistoryQuery): Promise<TolerantOrderHistoryList>;
  depth(symbol: string, query?: DepthQuery): Promise<Depth>;
  positions(wallet: string): Promise<readonly Position[]>;
  balances(wallet: string): Promise<readonly AccountBalance[]>;
  perpExecutions(wallet: string, query?: ExecutionsQuery): Promise<TolerantPerpExecutionList>;
}
