/**
 * The REST surface, `/v2/...` (spec 4.1, 4.2, 7, 8.5, 9): every read route,
 * the five order-entry POSTs and the three API documents. The routes are
 * the table REST_ROUTES of api-docs.ts, which the OpenAPI document is built
 * from; this module binds a handler to each (and refuses to start if one is
 * missing). The network-edge limit (8.4) is applied by server.ts before
 * this handler runs.
 *
 * Choices where the spec says "not shown", made like the real service:
 *
 * - Wrappers. Lists of current state are plain JSON arrays: openOrders
 *   (Order rows, no sequenceNumber), positions, accountBalances, accounts,
 *   and the definition, summary and oracle lists. Lists of past records are
 *   `{data, meta}` pages, newest first: orderHistory (OrderHistoryList),
 *   transfers (TransferList), and the perpExecutions, spotExecutions and
 *   executionBusts routes of markets and wallets (PerpExecutionList,
 *   SpotExecutionList, ExecutionBustList). `meta` (PaginationMeta) always
 *   carries the effective `limit` and echoes `startTime`/`endTime` when they
 *   were given; orderHistory and transfers add `nextCursor` when an older
 *   page exists.
 * - Query parameters. `limit` (integer >= 1): orderHistory default and
 *   maximum 100; depth default 100, maximum 1000 (levels per side);
 *   executions, busts and transfers default 100, maximum 1000.
 *   `startTime`, `endTime` (ms, inclusive): on lastUpdateAt for orderHistory,
 *   on `timestamp` for executions, busts and transfers. transfers also takes
 *   `type` (a TransferType) and `cursor` (the opaque meta.nextCursor of the
 *   previous page; pass the same filters again). orderHistory pages back by
 *   endTime (the oldest row's lastUpdateAt; drop the overlap by
 *   sequenceNumber), as the spec describes, or by `cursor` (its
 *   meta.nextCursor, present when older rows match), which also reaches
 *   past more than a page of rows with one lastUpdateAt (the spec leaves
 *   orderHistory's paging parameters "not shown"). Unknown query
 *   parameters are ignored; a known one given twice is an error.
 * - GET /v2/wallet/{address}/accounts: array of WalletAccount
 *   `{accountId, ownerWallet, signers}` (addresses lowercase, signers sorted,
 *   the owner included).
 * - A symbol route for the wrong kind of market (a spot symbol on
 *   /v2/perpMarket/{symbol}/summary or /v2/market/{symbol}/perpExecutions, a
 *   perp symbol on the spot routes) is SYMBOL_NOT_FOUND_ERROR: the symbol
 *   does not resolve to a market of that kind. depth and executionBusts take
 *   both kinds.
 *
 * Answers:
 * - 200 with the body in the wire shape of src/spec (read models from
 *   ExchangeQueries); the API documents as `application/yaml`.
 * - 400 RequestError: a path parameter off its pattern or a bad query
 *   parameter (INPUT_VALIDATION_ERROR); a well-formed symbol that names no
 *   market (SYMBOL_NOT_FOUND_ERROR); a POST without an `application/json`
 *   content type, with a body that is not JSON or larger than 64 KiB
 *   (INPUT_VALIDATION_ERROR); an order-entry request the Exchange rejects
 *   (its RequestError as it is, retryAfterMs included when present). A
 *   well-formed but unknown wallet reads as empty (200).
 * - 404 `{error: "NOT_FOUND", message}`: unknown routes, and the routes
 *   removed in 3.x (spec 4.1), whose message names the replacement.
 * - 405 `{error: "METHOD_NOT_ALLOWED", message}` with an Allow header. GET
 *   routes also answer HEAD; OPTIONS answers a CORS preflight (204), and
 *   every answer carries `access-control-allow-origin: *` (browser clients).
 * - 500 ServerError `{error: "INTERNAL_SERVER_ERROR", message}`, never a
 *   stack trace, when a read or the Exchange throws.
 * - An order-entry request whose response the dropResponses fault drops:
 *   the socket is destroyed without an answer (the order still happened).
 *
 * Order-entry POSTs go through `context.driver.handle({kind: "request"})`:
 * stamped, logged and handled like any other input, with bodies identical to
 * WebSocket order entry. When recording with sync durability, the answer
 * waits for the group commit that makes the request durable in the input
 * log (`driver.whenDurable`), so a crash never loses an answered request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { CursorError } from "../core/cursor.ts";
import type { TransferQuery } from "../settlement/ledger.ts";
import { quote } from "../exchange/gateway/validate/errors.ts";
import {
  checkAddressParam,
  checkCursor,
  checkLimit,
  checkMarket,
  checkSymbolParam,
  checkTimeRange,
  checkTransferType,
  integerParam as integerText,
  invalidRead as invalid,
  recordsPage,
  ReadRequestError as RestRequestError,
} from "../exchange/read-params.ts";
import { ORDER_ENTRY_OPERATIONS, type OrderEntryOperation } from "../spec/exec-envelopes.ts";
import { apiDocumentYaml, REST_ROUTES, type ApiDocumentName, type RestRoute } from "./api-docs.ts";
import { JSON_NESTING_MAX, nestingMessage, nestsDeeperThan } from "./request-json.ts";
import { internalError, readBody, sendJson, type HttpHandler, type LiveContext } from "./server.ts";

/**
 * Largest accepted request body, on /v2 and /admin alike (an order-entry
 * body is well under 1 KiB). A larger one is answered 400 as soon as it is
 * known to be larger, and the connection closed (server.ts readBody).
 */
export const REST_BODY_LIMIT_BYTES = 64 * 1024;

/** The refusal of a body over REST_BODY_LIMIT_BYTES, on /v2 and /admin alike. */
export const BODY_TOO_LARGE = `request body exceeds ${REST_BODY_LIMIT_BYTES} bytes`;

/** Routes removed in contract 3.x (spec 4.1, 9): 404, with what to use instead. */
const REMOVED_ROUTES: readonly { path: string; instead: string }[] = [
  { path: "/v2/marketDefinitions", instead: "use /v2/perpMarketDefinitions" },
  { path: "/v2/liquidityParameters", instead: "it has no replacement" },
  { path: "/v2/prices", instead: "use /v2/assetOraclePrices or the market summaries" },
  { path: "/v2/prices/{symbol}", instead: "use /v2/assetOraclePrices or /v2/perpMarket/{symbol}/summary" },
  { path: "/v2/markets/summary", instead: "use /v2/perpMarkets/summary" },
  { path: "/v2/market/{symbol}/summary", instead: "use /v2/perpMarket/{symbol}/summary" },
  { path: "/v2/market/{symbol}/spotExecutionBusts", instead: "use /v2/market/{symbol}/executionBusts" },
  { path: "/v2/wallet/{address}/spotExecutionBusts", instead: "use /v2/wallet/{address}/executionBusts" },
];

// A request failure answered with HTTP 400 and a RequestError: RestRequestError (read-params.ts,
// whose checks the simulator's reads share), made by `invalid` for INPUT_VALIDATION_ERROR.

// -- routing ----------------------------------------------------------------------------------

interface PathParams {
  symbol?: string;
  address?: string;
}

/** Matches a path against a template; the raw (still encoded) parameter segments, or null. */
function matchTemplate(template: string, path: string): Record<string, string> | null {
  const want = template.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith("{")) {
      if (got[i] === "") return null;
      params[segment.slice(1, -1)] = got[i]!;
    } else if (segment !== got[i]) {
      return null;
    }
  }
  return params;
}

function decodeSegment(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalid(`${name} ${quote(raw)} is not valid percent-encoding`);
  }
}

/** Decodes and checks the path parameters against their patterns (spec 2.1). */
function pathParams(raw: Record<string, string>): PathParams {
  const params: PathParams = {};
  if (raw["symbol"] !== undefined) {
    params.symbol = checkSymbolParam(decodeSegment("symbol", raw["symbol"]));
  }
  if (raw["address"] !== undefined) {
    params.address = checkAddressParam(decodeSegment("address", raw["address"]));
  }
  return params;
}

// -- query parameters -----------------------------------------------------------------------

interface ReadQuery {
  limit: number;
  startTime?: number;
  endTime?: number;
  cursor?: string;
  type?: string;
}

function single(url: URL, name: string): string | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length > 1) throw invalid(`query parameter ${name} is given ${values.length} times; give it at most once`);
  return values[0];
}

function integerParam(url: URL, name: string): number | undefined {
  return integerText(name, single(url, name));
}

/** Reads the query parameters a route takes (see RestRoute); the others are ignored. */
function readQuery(route: RestRoute, url: URL): ReadQuery {
  const query: ReadQuery = { limit: route.limit?.default ?? 0 };
  if (route.limit !== undefined) {
    const limit = integerParam(url, "limit");
    if (limit !== undefined) query.limit = checkLimit(limit, route.limit.max);
  }
  if (route.timeFilter !== undefined) {
    const startTime = integerParam(url, "startTime");
    const endTime = integerParam(url, "endTime");
    checkTimeRange(startTime, endTime);
    if (startTime !== undefined) query.startTime = startTime;
    if (endTime !== undefined) query.endTime = endTime;
  }
  if (route.cursor === true) {
    const cursor = single(url, "cursor");
    checkCursor(cursor);
    if (cursor !== undefined) query.cursor = cursor;
  }
  if (route.transferType === true) {
    const type = single(url, "type");
    checkTransferType(type);
    if (type !== undefined) query.type = type;
  }
  return query;
}

// -- read handlers ------------------------------------------------------------------------------

type ReadHandler = (params: PathParams, query: ReadQuery) => unknown;

function readHandlers(context: LiveContext): Record<string, ReadHandler> {
  const { queries, exchange } = context;

  /** The symbol, which must name a market (of `kind`, when given). */
  const market = (params: PathParams, kind?: "perp" | "spot"): string => checkMarket(exchange.marketsBySymbol, params.symbol!, kind);

  /** A `{data, meta}` page of timestamped records (read-params.ts recordsPage, as the simulator's reads make it). */
  const records = <T extends { timestamp: number }>(fetch: (count: number) => T[], query: ReadQuery) => recordsPage(fetch, query, exchange.config.recordsRetained);

  const document = (name: ApiDocumentName) => () => apiDocumentYaml(name);

  return {
    getOpenApiSpec: document("openapi-spec.yaml"),
    getAsyncApiSpec: document("asyncapi-spec.yaml"),
    getAsyncApiExecSpec: document("asyncapi-exec-spec.yaml"),
    getPerpMarketDefinitions: () => queries.perpMarketDefinitions(),
    getSpotMarketDefinitions: () => queries.spotMarketDefinitions(),
    getAssetDefinitions: () => queries.assetDefinitions(),
    getGlobalFeeParameters: () => queries.globalFeeParameters(),
    getFeeTiers: () => queries.feeTiers(),
    getPerpMarketsSummary: () => queries.perpMarketsSummary(),
    getPerpMarketSummary: (params) => queries.perpMarketSummary(market(params, "perp")),
    getSpotMarketsSummary: () => queries.spotMarketsSummary(),
    getSpotMarketSummary: (params) => queries.spotMarketSummary(market(params, "spot")),
    getMarketDepth: (params, query) => queries.depth(market(params), query.limit),
    getMarketPerpExecutions: (params, query) => records((count) => queries.perpExecutionsOfMarket(market(params, "perp"), count), query),
    getMarketSpotExecutions: (params, query) => records((count) => queries.spotExecutionsOfMarket(market(params, "spot"), count), query),
    getMarketExecutionBusts: (params, query) => records((count) => queries.bustsOfMarket(market(params), count), query),
    getAssetOraclePrices: () => queries.assetOraclePrices(),
    getWalletOrderHistory: ({ address }, query) =>
      paged(() =>
        queries.orderHistoryPage(address!, {
          limit: query.limit,
          ...(query.startTime === undefined ? {} : { startTimeMs: query.startTime }),
          ...(query.endTime === undefined ? {} : { endTimeMs: query.endTime }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        }),
      ),
    getWalletTransfers: ({ address }, query) => transfers(context, address!, query),
    getWalletOpenOrders: ({ address }) => queries.openOrders(address!),
    getWalletPerpExecutions: ({ address }, query) => records((count) => queries.perpExecutionsOfWallet(address!, count), query),
    getWalletSpotExecutions: ({ address }, query) => records((count) => queries.spotExecutionsOfWallet(address!, count), query),
    getWalletExecutionBusts: ({ address }, query) => records((count) => queries.bustsOfWallet(address!, count), query),
    getWalletPositions: ({ address }) => queries.positions(address!),
    getWalletAccountBalances: ({ address }) => queries.accountBalances(address!),
    getWalletAccounts: ({ address }) => queries.accounts(address!),
    getWalletConfiguration: ({ address }) => queries.walletConfiguration(address!),
  };
}

function transfers(context: LiveContext, address: string, query: ReadQuery): unknown {
  const ledgerQuery: TransferQuery = { limit: query.limit };
  if (query.type !== undefined) ledgerQuery.type = query.type;
  if (query.startTime !== undefined) ledgerQuery.startTime = query.startTime;
  if (query.endTime !== undefined) ledgerQuery.endTime = query.endTime;
  if (query.cursor !== undefined) ledgerQuery.cursor = query.cursor;
  return paged(() => context.queries.transfers(address, ledgerQuery));
}

/** A cursor-paged listing's page; a cursor it did not issue is INPUT_VALIDATION_ERROR. */
function paged<T>(page: () => T): T {
  try {
    return page();
  } catch (error) {
    if (error instanceof CursorError) throw invalid(error.message);
    throw error;
  }
}

// -- answers ------------------------------------------------------------------------------------

function sendRequestError(response: ServerResponse, error: RestRequestError): void {
  sendJson(response, 400, { error: error.code, message: error.message });
}

function sendRouteError(response: ServerResponse, status: 404 | 405, message: string, allow?: string): void {
  if (allow !== undefined) response.setHeader("allow", allow);
  sendJson(response, status, { error: status === 404 ? "NOT_FOUND" : "METHOD_NOT_ALLOWED", message });
}

function sendYaml(response: ServerResponse, text: string): void {
  response.writeHead(200, { "content-type": "application/yaml; charset=utf-8", "content-length": Buffer.byteLength(text) }).end(text);
}

function allowedMethods(routes: readonly RestRoute[]): string {
  const methods = routes.some((route) => route.method === "GET") ? ["GET", "HEAD"] : [];
  if (routes.some((route) => route.method === "POST")) methods.push("POST");
  return [...methods, "OPTIONS"].join(", ");
}

function isJsonContentType(header: string | undefined): boolean {
  const mediaType = header?.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

// -- order entry --------------------------------------------------------------------------------

async function orderEntry(context: LiveContext, op: OrderEntryOperation, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const contentType = request.headers["content-type"];
  if (!isJsonContentType(contentType)) {
    const got = contentType === undefined ? "no content type" : `content type ${quote(contentType)}`;
    return sendRequestError(response, invalid(`request body must be application/json, got ${got}`));
  }
  const text = await readBody(request, response, REST_BODY_LIMIT_BYTES);
  if (text === undefined) return sendRequestError(response, invalid(BODY_TOO_LARGE));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return sendRequestError(response, invalid(`request body is not valid JSON: ${(error as Error).message}`));
  }
  if (nestsDeeperThan(body, JSON_NESTING_MAX)) return sendRequestError(response, invalid(nestingMessage("request body")));
  const answer = context.driver.handle({ kind: "request", op, body });
  context.driver.whenDurable(() => {
    if (answer.responseDropped === true) request.socket.destroy();
    else if (answer.ok) sendJson(response, 200, answer.payload);
    else sendJson(response, 400, answer.error);
  });
}

// -- the handler --------------------------------------------------------------------------------

/** The routes whose template matches `path` (any method), and their raw parameters. */
function routesAt(path: string): { routes: RestRoute[]; raw: Record<string, string> } {
  const routes: RestRoute[] = [];
  let raw: Record<string, string> = {};
  for (const route of REST_ROUTES) {
    const params = matchTemplate(route.path, path);
    if (params === null) continue;
    routes.push(route);
    raw = params;
  }
  return { routes, raw };
}

function notFound(response: ServerResponse, method: string, path: string): void {
  const removed = REMOVED_ROUTES.find((route) => matchTemplate(route.path, path) !== null);
  if (removed !== undefined) return sendRouteError(response, 404, `route ${removed.path} was removed in contract 3.x: ${removed.instead}`);
  sendRouteError(response, 404, `no route ${method} ${path}`);
}

function checkBindings(handlers: Record<string, ReadHandler>): void {
  const operations: readonly string[] = ORDER_ENTRY_OPERATIONS;
  for (const route of REST_ROUTES) {
    const bound = route.method === "POST" ? operations.includes(route.operationId) : Object.hasOwn(handlers, route.operationId);
    if (!bound) throw new Error(`REST route ${route.method} ${route.path} (${route.operationId}) has no handler`);
  }
  for (const operationId of Object.keys(handlers)) {
    if (!REST_ROUTES.some((route) => route.operationId === operationId && route.method === "GET")) throw new Error(`REST handler ${operationId} has no route`);
  }
}

export function createRestHandler(context: LiveContext): HttpHandler {
  const handlers = readHandlers(context);
  checkBindings(handlers);

  return (request, response, url) => {
    response.setHeader("access-control-allow-origin", "*");
    const method = (request.method ?? "GET").toUpperCase();
    const path = url.pathname;
    const { routes, raw } = routesAt(path);
    if (routes.length === 0) return notFound(response, method, path);
    const allow = allowedMethods(routes);
    if (method === "OPTIONS") {
      response.writeHead(204, { allow, "access-control-allow-methods": allow, "access-control-allow-headers": "content-type", "access-control-max-age": "600" }).end();
      return;
    }
    const route = routes.find((candidate) => candidate.method === method || (candidate.method === "GET" && method === "HEAD"));
    if (route === undefined) return sendRouteError(response, 405, `method ${method} is not allowed on ${path}; allowed: ${allow}`, allow);
    try {
      if (route.method === "POST") {
        orderEntry(context, route.operationId as OrderEntryOperation, request, response).catch((error: unknown) => internalError(response, error));
        return;
      }
      const params = pathParams(raw);
      const query = readQuery(route, url);
      const body = handlers[route.operationId]!(params, query);
      if (route.response === "yaml") sendYaml(response, body as string);
      else sendJson(response, 200, body);
    } catch (error) {
      if (error instanceof RestRequestError) sendRequestError(response, error);
      else internalError(response, error);
    }
  };
}
