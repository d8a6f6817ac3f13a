/**
 * REST read transport for the client SDK: the ReadTransport (transport.ts)
 * over the live `/v2` GET routes (spec 4.1, src/live/rest.ts), with the same
 * base URL as httpTransport (`http://host:port/v2`).
 *
 * | method         | route                                          | query                       |
 * |----------------|------------------------------------------------|-----------------------------|
 * | openOrders     | GET /wallet/{address}/openOrders               | -                           |
 * | orderHistory   | GET /wallet/{address}/orderHistory             | startTime, endTime, cursor  |
 * | depth          | GET /market/{symbol}/depth                     | limit                       |
 * | positions      | GET /wallet/{address}/positions                | -                           |
 * | balances       | GET /wallet/{address}/accountBalances          | -                           |
 * | perpExecutions | GET /wallet/{address}/perpExecutions           | limit, startTime, endTime   |
 * | spotExecutions | GET /wallet/{address}/spotExecutions           | limit, startTime, endTime   |
 * | transfers      | GET /wallet/{address}/transfers                | limit, startTime, endTime,  |
 * |                |                                                | type, cursor                |
 * | perpMarketsSummary | GET /perpMarkets/summary                   | -                           |
 * | perpMarketSummary  | GET /perpMarket/{symbol}/summary           | -                           |
 * | spotMarketsSummary | GET /spotMarkets/summary                   | -                           |
 * | spotMarketSummary  | GET /spotMarket/{symbol}/summary           | -                           |
 * | perpMarketDefinitions | GET /perpMarketDefinitions              | -                           |
 * | spotMarketDefinitions | GET /spotMarketDefinitions              | -                           |
 * | assetDefinitions      | GET /assetDefinitions                   | -                           |
 * | globalFeeParameters   | GET /globalFeeParameters                | -                           |
 * | feeTiers              | GET /feeTiers                           | -                           |
 * | assetOraclePrices     | GET /assetOraclePrices                  | -                           |
 * | marketPerpExecutions  | GET /market/{symbol}/perpExecutions     | limit, startTime, endTime   |
 * | marketSpotExecutions  | GET /market/{symbol}/spotExecutions     | limit, startTime, endTime   |
 * | marketExecutionBusts  | GET /market/{symbol}/executionBusts     | limit, startTime, endTime   |
 * | walletExecutionBusts  | GET /wallet/{address}/executionBusts    | limit, startTime, endTime   |
 * | walletAccounts        | GET /wallet/{address}/accounts          | -                           |
 * | walletConfiguration   | GET /wallet/{address}/configuration     | -                           |
 *
 * Answers, as the simulator's in-process reads give them for the same
 * state: the body decoded tolerantly (decode.ts: unknown fields kept, open
 * enumerations read as any string). Failures:
 * - 400 RequestError -> RequestFailedError (`code`: INPUT_VALIDATION_ERROR
 *   for a malformed wallet or parameter, SYMBOL_NOT_FOUND_ERROR, ...);
 * - 429 (the network-edge limit, no body) -> RequestFailedError with code
 *   RATE_LIMITED_ERROR and the wait in `retryAfterMs`, as httpTransport
 *   reports it for order entry;
 * - a 200 body that does not decode -> InvalidResponseError;
 * - a network failure, or any other status (404 for a wrong base URL, 500)
 *   -> ConnectionError (with `status` when there was one).
 * Reads change nothing and are not retried here: a caller may retry any of
 * them.
 */
import { z } from "zod";
import { AccountBalance, Position, TransferList, WalletAccount } from "../../spec/account.ts";
import { ExecutionBustList } from "../../spec/bust.ts";
import { Depth } from "../../spec/depth.ts";
import {
  AssetDefinition,
  AssetOraclePrice,
  FeeTierParameters,
  GlobalFeeParameters,
  MarketDefinition,
  MarketSummary,
  SpotMarketDefinition,
  SpotMarketSummary,
  WalletConfiguration,
} from "../../spec/market.ts";
import {
  decodeRequestError,
  decodeWith,
  TolerantOrder,
  TolerantOrderHistoryList,
  TolerantPerpExecutionList,
  TolerantSpotExecutionList,
  type TolerantRequestError,
} from "../decode.ts";
import { ConnectionError, InvalidResponseError, RequestFailedError } from "../errors.ts";
import type { DepthQuery, ExecutionsQuery, OrderHistoryQuery, ReadOperation, ReadTransport, TransfersQuery } from "../transport.ts";
import { edgeRetryAfterMs } from "./http.ts";

export interface HttpReadTransportOptions {
  /** The fetch to use (default: the global fetch of Node 20). */
  readonly fetch?: typeof fetch;
}

const OpenOrders = z.array(TolerantOrder);
const Positions = z.array(Position);
const Balances = z.array(AccountBalance);
const MarketSummaries = z.array(MarketSummary);
const SpotMarketSummaries = z.array(SpotMarketSummary);
const MarketDefinitions = z.array(MarketDefinition);
const SpotMarketDefinitions = z.array(SpotMarketDefinition);
const AssetDefinitions = z.array(AssetDefinition);
const FeeTiers = z.array(FeeTierParameters);
const AssetOraclePrices = z.array(AssetOraclePrice);
const WalletAccounts = z.array(WalletAccount);

/** `?a=1&b=2` of the defined values, in the given order, or "". */
function queryString(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

export function httpReadTransport(baseUrl: string, options: HttpReadTransportOptions = {}): ReadTransport {
  const base = baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? fetch;

  async function get<T>(operation: ReadOperation, path: string, schema: z.ZodType<T>): Promise<T> {
    const url = `${base}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { method: "GET", headers: { accept: "application/json" } });
      text = await response.text();
    } catch (error) {
      throw new ConnectionError(`${operation} failed: GET ${url} did not complete`, { cause: error, details: (error as Error)?.message });
    }
    if (response.status === 429) {
      const error: TolerantRequestError = { error: "RATE_LIMITED_ERROR", message: "network-edge limit (HTTP 429): wait for its window to end", retryAfterMs: edgeRetryAfterMs(response.headers.get("retry-after")) };
      throw new RequestFailedError(operation, error, 1);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.status === 400) {
      const decoded = decodeRequestError(body);
      if (decoded.ok) throw new RequestFailedError(operation, decoded.value, 1);
      throw new InvalidResponseError(operation, text, `HTTP 400 without a RequestError body:\n${decoded.issues}`);
    }
    if (response.status !== 200) {
      const serverMessage = typeof (body as { message?: unknown } | undefined)?.message === "string" ? (body as { message: string }).message : text.slice(0, 200);
      throw new ConnectionError(`${operation} failed: GET ${url} answered HTTP ${response.status}`, { status: response.status, details: serverMessage });
    }
    if (body === undefined) throw new InvalidResponseError(operation, text, "the body is not JSON");
    const decoded = decodeWith(schema, body);
    if (!decoded.ok) throw new InvalidResponseError(operation, body, decoded.issues);
    return decoded.value;
  }

  const wallet = (address: string, leaf: string) => `/wallet/${encodeURIComponent(address)}/${leaf}`;
  const market = (symbol: string, leaf: string) => `/market/${encodeURIComponent(symbol)}/${leaf}`;
  const executions = (query: ExecutionsQuery) => queryString({ limit: query.limit, startTime: query.startTime, endTime: query.endTime });

  return {
    openOrders: (address) => get("openOrders", wallet(address, "openOrders"), OpenOrders),
    orderHistory: (address, query: OrderHistoryQuery = {}) =>
      get("orderHistory", wallet(address, "orderHistory") + queryString({ startTime: query.startTime, endTime: query.endTime, cursor: query.cursor }), TolerantOrderHistoryList),
    depth: (symbol, query: DepthQuery = {}) => get("depth", market(symbol, "depth") + queryString({ limit: query.limit }), Depth),
    positions: (address) => get("positions", wallet(address, "positions"), Positions),
    balances: (address) => get("balances", wallet(address, "accountBalances"), Balances),
    perpExecutions: (address, query: ExecutionsQuery = {}) => get("perpExecutions", wallet(address, "perpExecutions") + executions(query), TolerantPerpExecutionList),
    spotExecutions: (address, query: ExecutionsQuery = {}) => get("spotExecutions", wallet(address, "spotExecutions") + executions(query), TolerantSpotExecutionList),
    transfers: (address, query: TransfersQuery = {}) =>
      get(
        "transfers",
        wallet(address, "transfers") + queryString({ limit: query.limit, startTime: query.startTime, endTime: query.endTime, type: query.type, cursor: query.cursor }),
        TransferList,
      ),
    perpMarketsSummary: () => get("perpMarketsSummary", "/perpMarkets/summary", MarketSummaries),
    perpMarketSummary: (symbol) => get("perpMarketSummary", `/perpMarket/${encodeURIComponent(symbol)}/summary`, MarketSummary),
    spotMarketsSummary: () => get("spotMarketsSummary", "/spotMarkets/summary", SpotMarketSummaries),
    spotMarketSummary: (symbol) => get("spotMarketSummary", `/spotMarket/${encodeURIComponent(symbol)}/summary`, SpotMarketSummary),
    perpMarketDefinitions: () => get("perpMarketDefinitions", "/perpMarketDefinitions", MarketDefinitions),
    spotMarketDefinitions: () => get("spotMarketDefinitions", "/spotMarketDefinitions", SpotMarketDefinitions),
    assetDefinitions: () => get("assetDefinitions", "/assetDefinitions", AssetDefinitions),
    globalFeeParameters: () => get("globalFeeParameters", "/globalFeeParameters", GlobalFeeParameters),
    feeTiers: () => get("feeTiers", "/feeTiers", FeeTiers),
    assetOraclePrices: () => get("assetOraclePrices", "/assetOraclePrices", AssetOraclePrices),
    marketPerpExecutions: (symbol, query: ExecutionsQuery = {}) => get("marketPerpExecutions", market(symbol, "perpExecutions") + executions(query), TolerantPerpExecutionList),
    marketSpotExecutions: (symbol, query: ExecutionsQuery = {}) => get("marketSpotExecutions", market(symbol, "spotExecutions") + executions(query), TolerantSpotExecutionList),
    marketExecutionBusts: (symbol, query: ExecutionsQuery = {}) => get("marketExecutionBusts", market(symbol, "executionBusts") + executions(query), ExecutionBustList),
    walletExecutionBusts: (address, query: ExecutionsQuery = {}) => get("walletExecutionBusts", wallet(address, "executionBusts") + executions(query), ExecutionBustList),
    walletAccounts: (address) => get("walletAccounts", wallet(address, "accounts"), WalletAccounts),
    walletConfiguration: (address) => get("walletConfiguration", wallet(address, "configuration"), WalletConfiguration),
  };
}
