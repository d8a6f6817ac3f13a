/**
 * The shadowbook client SDK: typed, signed order entry for agents in the
 * simulator and for programs against the live mock or the real service.
 *
 *   const client = createClient({ transport, signer: privateKey, accountId, markets, clock, sleep, random });
 *   const { orderId } = await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "0.5", limitPx: "3000", timeInForce: "GTC" });
 *
 * The public API is this file; test/client/index.test.ts pins its export list.
 */
export { createClient, DEFAULT_EXCHANGE_ID, type Client, type CreateClientParameters } from "./client.ts";
export type { ClientContext, RetryRuntime } from "./context.ts";

export {
  createOrder,
  createOrderPlan,
  type CreateOrderErrorType,
  type CreateOrderParameters,
  type CreateOrderReturnType,
  type LimitGtcOrderParameters,
  type LimitGttOrderParameters,
  type LimitIocOrderParameters,
  type TriggerGttOrderParameters,
  type TriggerOrderParameters,
} from "./actions/createOrder.ts";
export {
  modifyOrder,
  modifyOrderPlan,
  type ModifyLimitGtcParameters,
  type ModifyLimitGttParameters,
  type ModifyOrderErrorType,
  type ModifyOrderLookup,
  type ModifyOrderParameters,
  type ModifyOrderReturnType,
  type ModifyTriggerGttParameters,
  type ModifyTriggerParameters,
} from "./actions/modifyOrder.ts";
export {
  cancelOrder,
  cancelOrderPlan,
  type CancelOrderErrorType,
  type CancelOrderParameters,
  type CancelOrderReturnType,
} from "./actions/cancelOrder.ts";
export { cancelAll, cancelAllPlan, type CancelAllErrorType, type CancelAllParameters, type CancelAllReturnType } from "./actions/cancelAll.ts";
export {
  cancelAllAfter,
  cancelAllAfterPlan,
  type CancelAllAfterErrorType,
  type CancelAllAfterParameters,
  type CancelAllAfterReturnType,
} from "./actions/cancelAllAfter.ts";
export type { Attempt, BuiltRequest, RequestPlan, SignedPart } from "./internal/send.ts";

export {
  ClientConfigError,
  ClientError,
  ConnectionError,
  InvalidParameterError,
  InvalidResponseError,
  MarketNotFoundError,
  RequestFailedError,
  SigningFailedError,
  SubscribeFailedError,
  TransportFailedError,
  type ClientErrorOptions,
} from "./errors.ts";

export {
  defaultOrderDeadline,
  GTT_DEADLINE_LEAD_SECONDS,
  RESTING_DEADLINE_SECONDS,
  SHORT_DEADLINE_SECONDS,
  shortDeadline,
} from "./deadlines.ts";

export { createNonceManager, NONCE_MAX, type Clock, type CreateNonceManagerParameters, type NonceManager } from "./nonce.ts";

export {
  createMarketDirectory,
  signingMarketRef,
  type CreateMarketDirectoryParameters,
  type MarketDirectory,
  type MarketEntry,
  type MarketKind,
} from "./markets.ts";

export {
  privateKeySigner,
  viemAccountSigner,
  type ClientSigner,
  type PrivateKeySignerOptions,
  type SigningPath,
  type TypedDataAccount,
} from "./signer.ts";

export type {
  DepthQuery,
  ExecutionsQuery,
  OrderEntryOperation,
  OrderEntryRequestBodies,
  OrderEntryResponse,
  OrderEntryTransport,
  OrderHistoryQuery,
  ReadOperation,
  ReadTransport,
  TransfersQuery,
} from "./transport.ts";

// Transports: order entry (REST, /exec), REST reads, the /ws stream, and an agent's whole live connection.
export { edgeRetryAfterMs, httpTransport } from "./transports/http.ts";
export { connectWsTransport, WS_REQUEST_TIMEOUT_MS_DEFAULT, type WsTransport, type WsTransportOptions } from "./transports/ws.ts";
export { httpReadTransport, type HttpReadTransportOptions } from "./transports/http-reads.ts";
export { connectWsStream, type StreamClose, type WsStream, type WsStreamOptions } from "./transports/ws-stream.ts";
export {
  connectLiveAgent,
  fetchAgentMarkets,
  startLiveAgent,
  wallTimers,
  type ConnectLiveAgentOptions,
  type LiveAgent,
  type LiveAgentConnection,
  type LiveTimers,
  type StartLiveAgentOptions,
} from "./transports/live-agent.ts";

export {
  backoffCapMs,
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  RETRYABLE_ERROR_CODES,
  retryDelayMs,
  retryPolicy,
  uniformOf,
  type RandomSource,
  type RetryPolicy,
  type Sleep,
} from "./retry.ts";

export {
  decodeOrder,
  decodePerpExecution,
  decodeRequestError,
  decodeSpotExecution,
  decodeWith,
  isKnownCancelReason,
  isKnownExecutionType,
  isKnownRequestErrorCode,
  isKnownTimeInForce,
  TolerantCancelAllAfterResponse,
  TolerantCancelAllResponse,
  TolerantCancelOrderResponse,
  TolerantCreateOrderResponse,
  TolerantModifyOrderResponse,
  TolerantOrder,
  TolerantOrderChangesSnapshot,
  TolerantOrderHistoryList,
  TolerantPerpExecution,
  TolerantPerpExecutionList,
  TolerantRequestError,
  TolerantSpotExecution,
  TolerantSpotExecutionList,
  type DecodeResult,
  type Open,
} from "./decode.ts";
