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
import type { AccountBalance, Position, TransferList, WalletAccount } from "../spec/account.ts";
import type { ExecutionBustList } from "../spec/bust.ts";
import type { Depth } from "../spec/depth.ts";
import type {
  AssetDefinition,
  AssetOraclePrice,
  FeeTierParameters,
  GlobalFeeParameters,
  MarketDefinition,
  MarketSummary,
  SpotMarketDefinition,
  SpotMarketSummary,
  WalletConfiguration,
} from "../spec/market.ts";
import type {
  CancelAllAfterRequest,
  CancelAllRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  ModifyOrderRequest,
} from "../spec/requests.ts";
import type { TolerantOrder, TolerantOrderHistoryList, TolerantPerpExecutionList, TolerantSpotExecutionList } from "./decode.ts";

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
 * Executions and busts filters (spec 4.1, the perpExecutions,
 * spotExecutions and executionBusts routes of wallets and markets):
 * `limit` rows, default 100, at most 1000; `startTime`/`endTime` (ms,
 * inclusive) on the row's `timestamp`. Rows come newest first.
 */
export interface ExecutionsQuery {
  limit?: number;
  startTime?: number;
  endTime?: number;
}

/**
 * Transfers filters (spec 4.1, GET /v2/wallet/{address}/transfers): `limit`
 * entries, default 100, at most 1000; `startTime`/`endTime` (ms, inclusive)
 * on the entry's `timestamp`; `type`, a TransferType; `cursor`, a page's
 * meta.nextCursor, for the next (older) page with the same filters.
 * Entries come newest first.
 */
export interface TransfersQuery {
  limit?: number;
  startTime?: number;
  endTime?: number;
  type?: string;
  cursor?: string;
}

/**
 * Every REST read of the service (spec 4.1, and the routes src/live/rest.ts
 * adds where the spec says "not shown"; the three API documents *.yaml
 * aside), by wallet address or symbol. Each method is its route's
 * operationId (src/live/api-docs.ts REST_ROUTES) without `get`
 * (getMarketPerpExecutions -> marketPerpExecutions), except the first
 * wallet reads, named before the others: openOrders, orderHistory,
 * positions, balances (accountBalances), perpExecutions, spotExecutions,
 * transfers. An implementation decodes with decode.ts and the src/spec
 * schemas (tolerant of unknown fields and of new values of the open
 * enumerations) and rejects with a ClientError: RequestFailedError (with
 * the RequestError's `code`; SYMBOL_NOT_FOUND_ERROR for a symbol that names
 * no market of the route's kind, INPUT_VALIDATION_ERROR for a malformed
 * wallet, symbol or parameter) for an HTTP 400 RequestError,
 * InvalidResponseError for an answer that does not decode, ConnectionError
 * when the read itself failed (errors.ts); `operation` is the method's name.
 * Reads are not signed and not retried by the SDK.
 *
 * Shapes are the REST bodies (src/live/rest.ts): lists of current state
 * (openOrders, positions, balances, walletAccounts, the definitions, fee
 * tiers, oracle prices and market summaries) are arrays; globalFeeParameters
 * and walletConfiguration are one object; lists of past records
 * (orderHistory, transfers, and the executions and busts of wallets and
 * markets) are `{data, meta}` pages, newest first, whose meta echoes the
 * effective limit and the time filters given (orderHistory and transfers
 * add nextCursor when older rows match). Every implementation (the
 * simulator's in-process connection, the SDK's httpReadTransport) answers
 * the same value for the same exchange state
 * (test/conformance/sdk-live-agent.test.ts compares every read).
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
  /** GET /v2/wallet/{address}/spotExecutions: a `{data, meta}` page, as perpExecutions. */
  spotExecutions(wallet: string, query?: ExecutionsQuery): Promise<TolerantSpotExecutionList>;
  /** GET /v2/wallet/{address}/transfers: the ledger entries of the wallet's accounts, a `{data, meta}` page (meta.nextCursor when older entries match). */
  transfers(wallet: string, query?: TransfersQuery): Promise<TransferList>;
  /** GET /v2/perpMarkets/summary: every perp market's summary. */
  perpMarketsSummary(): Promise<readonly MarketSummary[]>;
  /** GET /v2/perpMarket/{symbol}/summary: a spot symbol is SYMBOL_NOT_FOUND_ERROR. */
  perpMarketSummary(symbol: string): Promise<MarketSummary>;
  /** GET /v2/spotMarkets/summary: every spot market's summary. */
  spotMarketsSummary(): Promise<readonly SpotMarketSummary[]>;
  /** GET /v2/spotMarket/{symbol}/summary: a perp symbol is SYMBOL_NOT_FOUND_ERROR. */
  spotMarketSummary(symbol: string): Promise<SpotMarketSummary>;
  /** GET /v2/perpMarketDefinitions: every perp market's definition (spec 2.3). */
  perpMarketDefinitions(): Promise<readonly MarketDefinition[]>;
  /** GET /v2/spotMarketDefinitions: every spot market's definition (spec 2.4). */
  spotMarketDefinitions(): Promise<readonly SpotMarketDefinition[]>;
  /** GET /v2/assetDefinitions: every collateral asset, with its current status (spec 2.5). */
  assetDefinitions(): Promise<readonly AssetDefinition[]>;
  /** GET /v2/globalFeeParameters: the venue-wide discounts and rebates (spec 2.7). */
  globalFeeParameters(): Promise<GlobalFeeParameters>;
  /** GET /v2/feeTiers: the fee tiers (spec 2.6), REGULAR by volume30d, then VIP. */
  feeTiers(): Promise<readonly FeeTierParameters[]>;
  /** GET /v2/assetOraclePrices: the assets' oracle prices (spec 2.18). */
  assetOraclePrices(): Promise<readonly AssetOraclePrice[]>;
  /** GET /v2/market/{symbol}/perpExecutions: the market's settled executions, a `{data, meta}` page; a spot symbol is SYMBOL_NOT_FOUND_ERROR. */
  marketPerpExecutions(symbol: string, query?: ExecutionsQuery): Promise<TolerantPerpExecutionList>;
  /** GET /v2/market/{symbol}/spotExecutions: as marketPerpExecutions; a perp symbol is SYMBOL_NOT_FOUND_ERROR. */
  marketSpotExecutions(symbol: string, query?: ExecutionsQuery): Promise<TolerantSpotExecutionList>;
  /** GET /v2/market/{symbol}/executionBusts: the market's busted matches (perp or spot), a `{data, meta}` page. */
  marketExecutionBusts(symbol: string, query?: ExecutionsQuery): Promise<ExecutionBustList>;
  /** GET /v2/wallet/{address}/executionBusts: the busted matches of the wallet's accounts, a `{data, meta}` page. */
  walletExecutionBusts(wallet: string, query?: ExecutionsQuery): Promise<ExecutionBustList>;
  /** GET /v2/wallet/{address}/accounts: the accounts the wallet owns, with their signers. */
  walletAccounts(wallet: string): Promise<readonly WalletAccount[]>;
  /** GET /v2/wallet/{address}/configuration: the wallet's fee configuration (spec 2.8); an unknown wallet reads as a new one. */
  walletConfiguration(wallet: string): Promise<WalletConfiguration>;
}
