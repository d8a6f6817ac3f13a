/**
 * The machine-readable contracts the service publishes (spec 9), generated
 * at run time from the zod schemas of src/spec, so that they cannot drift
 * from the code that validates and produces the wire shapes:
 *
 * - GET /v2/openapi-spec.yaml: OpenAPI 3.1 of the REST surface, built from
 *   REST_ROUTES below, the very table the REST router (rest.ts) dispatches
 *   on (it refuses to start if a route has no handler or a handler no route);
 * - GET /v2/asyncapi-spec.yaml: AsyncAPI 3.0 of the streaming interface,
 *   one channel per entry of the channel catalogue (CHANNELS, spec 6.1) with
 *   its `channel_data` payload and, where it has one, its subscription
 *   snapshot, plus the control frames (subscribe, unsubscribe, ping, ...);
 * - GET /v2/asyncapi-exec-spec.yaml: AsyncAPI 3.0 of WebSocket order entry,
 *   each operation a request with its success and failure replies.
 *
 * Every schema with a registry id (`.meta({ id })`) becomes one named
 * component (OpenAPI `components/schemas`, AsyncAPI `components/schemas`)
 * and is referenced by `$ref`; components are sorted by name. OpenAPI uses
 * JSON Schema 2020-12 (its 3.1 dialect), AsyncAPI the draft-07 form of its
 * Schema Object. The documents are plain JSON data, served as block YAML
 * (yaml.ts): the same code always serves the same bytes.
 *
 * The REST wrappers that the spec leaves unshown (PerpExecutionList,
 * SpotExecutionList, ExecutionBustList, WalletAccount; see rest.ts for the
 * reasons) are src/spec schemas, beside the rows they wrap, so that the
 * document, the router and the client SDK's read transport share them.
 */
import { z } from "zod";
import { EXECUTIONS_LIMIT_DEFAULT, EXECUTIONS_LIMIT_MAX } from "../exchange/queries.ts";
import { TRANSFER_PAGE_LIMIT_DEFAULT, TRANSFER_PAGE_LIMIT_MAX } from "../settlement/ledger.ts";
import { AccountBalance, Position, TransferList, WalletAccount } from "../spec/account.ts";
import { ExecutionBustList } from "../spec/bust.ts";
import { CHANNEL_KINDS, CHANNELS, type ChannelKind } from "../spec/channels.ts";
import { Depth } from "../spec/depth.ts";
import { RequestError, ServerError } from "../spec/errors.ts";
import * as exec from "../spec/exec-envelopes.ts";
import { PerpExecutionList, SpotExecutionList } from "../spec/execution.ts";
import { CONTRACT_VERSION, DEPTH_REST_LIMIT_DEFAULT, DEPTH_REST_LIMIT_MAX, ORDER_HISTORY_LIMIT_MAX } from "../spec/limits.ts";
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
} from "../spec/market.ts";
import { Order, OrderHistoryList } from "../spec/order.ts";
import { CancelAllAfterRequest, CancelAllRequest, CancelOrderRequest, CreateOrderRequest, ModifyOrderRequest } from "../spec/requests.ts";
import { CancelAllAfterResponse, CancelAllResponse, CancelOrderResponse, CreateOrderResponse, ModifyOrderResponse } from "../spec/responses.ts";
import * as stream from "../spec/stream-envelopes.ts";
import { toYaml } from "./yaml.ts";

// -- the REST route table ---------------------------------------------------------------

export type RestTag = "Specs" | "Reference data" | "Market data" | "Wallet data" | "Order entry";

export interface LimitQuery {
  readonly default: number;
  readonly max: number;
}

/**
 * One REST route. Path parameters are `{symbol}` (Symbol pattern) and
 * `{address}` (Address pattern). The optional query parameters a route takes:
 * `limit` (integer in [1, max], default given), `startTime`/`endTime` (ms,
 * inclusive, on the field named by `timeFilter`), `cursor` (opaque) and
 * `type` (a TransferType).
 */
export interface RestRoute {
  readonly operationId: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly tag: RestTag;
  readonly summary: string;
  readonly description?: string;
  readonly limit?: LimitQuery;
  readonly timeFilter?: "lastUpdateAt" | "timestamp";
  readonly cursor?: boolean;
  readonly transferType?: boolean;
  readonly request?: z.ZodType;
  /** The 200 body's schema, or "yaml" for the API documents. */
  readonly response: z.ZodType | "yaml";
}

const EXECUTIONS_LIMIT: LimitQuery = { default: EXECUTIONS_LIMIT_DEFAULT, max: EXECUTIONS_LIMIT_MAX };

function get(operationId: string, path: string, tag: RestTag, summary: string, response: RestRoute["response"], more: Partial<RestRoute> = {}): RestRoute {
  return { operationId, method: "GET", path, tag, summary, response, ...more };
}

function post(operation: exec.OrderEntryOperation, summary: string, request: z.ZodType, response: z.ZodType): RestRoute {
  return { operationId: operation, method: "POST", path: exec.orderEntryRestPath(operation), tag: "Order entry", summary, request, response };
}

const EXECUTIONS_NOTE = "Newest first. A `{data, meta}` page: meta echoes the effective limit and the time filters.";

/** Every REST route, in the order the OpenAPI document lists them. */
export const REST_ROUTES: readonly RestRoute[] = [
  get("getOpenApiSpec", "/v2/openapi-spec.yaml", "Specs", "This OpenAPI document (REST)", "yaml"),
  get("getAsyncApiSpec", "/v2/asyncapi-spec.yaml", "Specs", "The AsyncAPI document of the streaming interface", "yaml"),
  get("getAsyncApiExecSpec", "/v2/asyncapi-exec-spec.yaml", "Specs", "The AsyncAPI document of WebSocket order entry", "yaml"),
  get("getPerpMarketDefinitions", "/v2/perpMarketDefinitions", "Reference data", "Perp market definitions", z.array(MarketDefinition)),
  get("getSpotMarketDefinitions", "/v2/spotMarketDefinitions", "Reference data", "Spot market definitions", z.array(SpotMarketDefinition)),
  get("getAssetDefinitions", "/v2/assetDefinitions", "Reference data", "Asset definitions (with their current status)", z.array(AssetDefinition)),
  get("getGlobalFeeParameters", "/v2/globalFeeParameters", "Reference data", "Global fee parameters", GlobalFeeParameters),
  get("getFeeTiers", "/v2/feeTiers", "Reference data", "Fee tiers", z.array(FeeTierParameters)),
  get("getPerpMarketsSummary", "/v2/perpMarkets/summary", "Market data", "Summaries of every perp market", z.array(MarketSummary)),
  get("getPerpMarketSummary", "/v2/perpMarket/{symbol}/summary", "Market data", "Summary of one perp market", MarketSummary),
  get("getSpotMarketsSummary", "/v2/spotMarkets/summary", "Market data", "Summaries of every spot market", z.array(SpotMarketSummary)),
  get("getSpotMarketSummary", "/v2/spotMarket/{symbol}/summary", "Market data", "Summary of one spot market", SpotMarketSummary),
  get("getMarketDepth", "/v2/market/{symbol}/depth", "Market data", "Bounded depth view (a SNAPSHOT)", Depth, {
    limit: { default: DEPTH_REST_LIMIT_DEFAULT, max: DEPTH_REST_LIMIT_MAX },
    description: "The best `limit` levels per side: bids by descending price, asks by ascending price.",
  }),
  get("getMarketPerpExecutions", "/v2/market/{symbol}/perpExecutions", "Market data", "Settled executions of a perp market", PerpExecutionList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getMarketSpotExecutions", "/v2/market/{symbol}/spotExecutions", "Market data", "Settled executions of a spot market", SpotExecutionList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getMarketExecutionBusts", "/v2/market/{symbol}/executionBusts", "Market data", "Busted matches of a market (spot or perp)", ExecutionBustList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getAssetOraclePrices", "/v2/assetOraclePrices", "Market data", "Oracle prices of the assets", z.array(AssetOraclePrice)),
  get("getWalletOrderHistory", "/v2/wallet/{address}/orderHistory", "Wallet data", "Order history (one row per order update)", OrderHistoryList, {
    limit: { default: ORDER_HISTORY_LIMIT_MAX, max: ORDER_HISTORY_LIMIT_MAX },
    timeFilter: "lastUpdateAt",
    cursor: true,
    description:
      "Newest first, at most 100 rows. To page back, pass meta.nextCursor (present when older rows match) as `cursor` with the same filters; or pass endTime = the oldest row's lastUpdateAt and drop the rows already seen (by sequenceNumber), which cannot get past more than a page of rows with one lastUpdateAt. meta echoes limit, startTime and endTime.",
  }),
  get("getWalletTransfers", "/v2/wallet/{address}/transfers", "Wallet data", "Account ledger entries", TransferList, {
    limit: { default: TRANSFER_PAGE_LIMIT_DEFAULT, max: TRANSFER_PAGE_LIMIT_MAX },
    timeFilter: "timestamp",
    cursor: true,
    transferType: true,
    description: "Newest first. meta.nextCursor, when present, is the opaque cursor of the next (older) page; pass it back as `cursor` with the same filters.",
  }),
  get("getWalletOpenOrders", "/v2/wallet/{address}/openOrders", "Wallet data", "Resting orders (armed triggers included)", z.array(Order)),
  get("getWalletPerpExecutions", "/v2/wallet/{address}/perpExecutions", "Wallet data", "Settled perp executions of the wallet's accounts", PerpExecutionList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getWalletSpotExecutions", "/v2/wallet/{address}/spotExecutions", "Wallet data", "Settled spot executions of the wallet's accounts", SpotExecutionList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getWalletExecutionBusts", "/v2/wallet/{address}/executionBusts", "Wallet data", "Busted matches of the wallet's accounts", ExecutionBustList, {
    limit: EXECUTIONS_LIMIT,
    timeFilter: "timestamp",
    description: EXECUTIONS_NOTE,
  }),
  get("getWalletPositions", "/v2/wallet/{address}/positions", "Wallet data", "Open perp positions", z.array(Position)),
  get("getWalletAccountBalances", "/v2/wallet/{address}/accountBalances", "Wallet data", "Balances of every account and asset", z.array(AccountBalance)),
  get("getWalletAccounts", "/v2/wallet/{address}/accounts", "Wallet data", "Accounts the wallet owns", z.array(WalletAccount)),
  get("getWalletConfiguration", "/v2/wallet/{address}/configuration", "Wallet data", "Fee configuration of the wallet", WalletConfiguration),
  post("createOrder", "Create an order", CreateOrderRequest, CreateOrderResponse),
  post("modifyOrder", "Modify a live order in place", ModifyOrderRequest, ModifyOrderResponse),
  post("cancelOrder", "Cancel one order", CancelOrderRequest, CancelOrderResponse),
  post("cancelAll", "Cancel every order of an account (or of one market)", CancelAllRequest, CancelAllResponse),
  post("cancelAllAfter", "Arm, refresh or disarm the cancel-on-disconnect switch", CancelAllAfterRequest, CancelAllAfterResponse),
];

// -- zod to JSON Schema, with named components -----------------------------------------

type Json = Record<string, unknown>;
type Target = "draft-2020-12" | "draft-7";

/** Rewrites zod's local definition references to the document's component path. */
function rewriteRefs(value: unknown, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, prefix));
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === "$ref" && typeof member === "string") {
      const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(member);
      out[key] = match === null ? member : prefix + match[1]!;
    } else {
      out[key] = rewriteRefs(member, prefix);
    }
  }
  return out;
}

/**
 * Converts zod schemas to JSON Schema, lifting every schema with a registry
 * id into one shared set of named components; the same id must always
 * convert to the same schema.
 */
export class SchemaComponents {
  private readonly defs = new Map<string, unknown>();

  constructor(
    private readonly target: Target,
    private readonly prefix: string,
  ) {}

  schema(schema: z.ZodType): Json {
    const json = z.toJSONSchema(schema, { target: this.target, unrepresentable: "any" }) as Json;
    const { $defs, definitions, $schema: _dialect, ...root } = json;
    const defs = ($defs ?? definitions ?? {}) as Json;
    for (const [id, definition] of Object.entries(defs)) {
      const rewritten = rewriteRefs(definition, this.prefix);
      const known = this.defs.get(id);
      if (known === undefined) this.defs.set(id, rewritten);
      else if (JSON.stringify(known) !== JSON.stringify(rewritten)) throw new Error(`schema id "${id}" converts to two different JSON schemas`);
    }
    return rewriteRefs(root, this.prefix) as Json;
  }

  /** The components collected so far, sorted by name. */
  all(): Json {
    const out: Json = {};
    for (const id of [...this.defs.keys()].sort()) out[id] = this.defs.get(id);
    return out;
  }
}

// -- OpenAPI (REST) -------------------------------------------------------------------------

const OPENAPI_SCHEMAS = "#/components/schemas/";

function timeParam(name: "startTime" | "endTime", field: string): Json {
  const bound = name === "startTime" ? "at or after" : "at or before";
  return { name, in: "query", required: false, description: `Only rows whose ${field} (ms) is ${bound} this time (inclusive)`, schema: { $ref: `${OPENAPI_SCHEMAS}UnsignedInteger` } };
}

function routeParameters(route: RestRoute): Json[] {
  const parameters: Json[] = [];
  if (route.path.includes("{symbol}")) parameters.push({ $ref: "#/components/parameters/SymbolPath" });
  if (route.path.includes("{address}")) parameters.push({ $ref: "#/components/parameters/AddressPath" });
  if (route.limit !== undefined) {
    parameters.push({
      name: "limit",
      in: "query",
      required: false,
      description: `${route.operationId === "getMarketDepth" ? "Levels per side" : "Rows"} to return: default ${route.limit.default}, at most ${route.limit.max}`,
      schema: { type: "integer", minimum: 1, maximum: route.limit.max, default: route.limit.default },
    });
  }
  if (route.timeFilter !== undefined) parameters.push(timeParam("startTime", route.timeFilter), timeParam("endTime", route.timeFilter));
  if (route.transferType === true) {
    parameters.push({ name: "type", in: "query", required: false, description: "Only entries of this type", schema: { $ref: `${OPENAPI_SCHEMAS}TransferType` } });
  }
  if (route.cursor === true) {
    parameters.push({ name: "cursor", in: "query", required: false, description: "Opaque cursor from a previous page's meta.nextCursor", schema: { type: "string" } });
  }
  return parameters;
}

function operation(route: RestRoute, schemas: SchemaComponents): Json {
  const ok =
    route.response === "yaml"
      ? { description: "The document, as YAML", content: { "application/yaml": { schema: { type: "string" } } } }
      : { description: route.summary, content: { "application/json": { schema: schemas.schema(route.response) } } };
  const responses: Json = { "200": ok };
  if (route.response !== "yaml") responses["400"] = { $ref: "#/components/responses/BadRequest" };
  responses["429"] = { $ref: "#/components/responses/EdgeLimited" };
  responses["500"] = { $ref: "#/components/responses/InternalServerError" };
  const parameters = routeParameters(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [route.tag],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.request === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: schemas.schema(route.request) } } } }),
    responses,
  };
}

/** The OpenAPI 3.1 document of the REST surface. */
export function buildOpenApiDocument(): Json {
  const schemas = new SchemaComponents("draft-2020-12", OPENAPI_SCHEMAS);
  const paths: Json = {};
  for (const route of REST_ROUTES) {
    const key = route.path.slice("/v2".length);
    const item = (paths[key] ??= {}) as Json;
    item[route.method.toLowerCase()] = operation(route, schemas);
  }
  const errors = { requestError: schemas.schema(RequestError), serverError: schemas.schema(ServerError) };
  return {
    openapi: "3.1.0",
    info: {
      title: "shadowbook: order-book trading service (REST)",
      version: CONTRACT_VERSION,
      description:
        "The REST surface of the trading service contract 3.5.2, as served by the shadowbook simulator. Generated from the zod schemas of the implementation. Read routes need no signature; the five order-entry POSTs carry EIP-712 signed bodies. Every /v2 route counts toward the network-edge limit (HTTP 429, no body).",
    },
    servers: [{ url: "/v2", description: "This server" }],
    tags: ["Specs", "Reference data", "Market data", "Wallet data", "Order entry"].map((name) => ({ name })),
    paths,
    components: {
      schemas: schemas.all(),
      parameters: {
        SymbolPath: { name: "symbol", in: "path", required: true, description: "Market symbol (perp symbols end in PERP)", schema: { $ref: `${OPENAPI_SCHEMAS}Symbol` } },
        AddressPath: { name: "address", in: "path", required: true, description: "Wallet address (any letter case)", schema: { $ref: `${OPENAPI_SCHEMAS}Address` } },
      },
      responses: {
        BadRequest: { description: "The request failed: a RequestError", content: { "application/json": { schema: errors.requestError } } },
        InternalServerError: { description: "Internal failure: a ServerError", content: { "application/json": { schema: errors.serverError } } },
        EdgeLimited: { description: "Network-edge limit reached (per source, fixed window): no body; wait for the window to end" },
      },
    },
  };
}

// -- AsyncAPI (stream) -----------------------------------------------------------------------

const ASYNCAPI_SCHEMAS = "#/components/schemas/";

function channelParameters(kind: ChannelKind): Json | undefined {
  switch (CHANNELS[kind].param) {
    case "symbol":
      return { symbol: { description: "Market symbol, matching ^[A-Za-z0-9]+$" } };
    case "address":
      return { address: { description: "Wallet address, matching ^0x[a-fA-F0-9]{40}$" } };
    case "none":
      return undefined;
  }
}

function envelope(type: string, fields: Json, required: string[]): Json {
  return { type: "object", properties: { type: { const: type }, ...fields }, required: ["type", ...required], additionalProperties: true };
}

function streamChannelMessages(kind: ChannelKind, schemas: SchemaComponents, messages: Json): Json {
  const spec = CHANNELS[kind];
  const channelData = `${kind}Data`;
  messages[channelData] = {
    name: "channel_data",
    title: `${spec.template} data`,
    payload: envelope(
      "channel_data",
      { timestamp: { $ref: `${ASYNCAPI_SCHEMAS}UnsignedInteger` }, channel: { type: "string" }, data: schemas.schema(spec.data) },
      ["timestamp", "channel", "data"],
    ),
  };
  const own: Json = { channelData: { $ref: `#/components/messages/${channelData}` } };
  if (spec.snapshot !== null) {
    const subscribed = `${kind}Subscribed`;
    messages[subscribed] = {
      name: "subscribed",
      title: `${spec.template} subscription snapshot`,
      payload: envelope("subscribed", { channel: { type: "string" }, contents: schemas.schema(spec.snapshot) }, ["channel", "contents"]),
    };
    own["subscribed"] = { $ref: `#/components/messages/${subscribed}` };
  }
  return own;
}

const STREAM_CONTROL: readonly [string, z.ZodType, string][] = [
  ["subscribe", stream.StreamSubscribe, "Subscribe to a channel"],
  ["unsubscribe", stream.StreamUnsubscribe, "Unsubscribe from a channel"],
  ["ping", stream.StreamPing, "Client ping"],
  ["subscribed", stream.StreamSubscribed, "Subscription confirmed (contents only on depth, orderChanges and transfers)"],
  ["unsubscribed", stream.StreamUnsubscribed, "Unsubscription confirmed"],
  ["error", stream.StreamError, "Error (Invalid JSON, Invalid type, Invalid channel name, Error while fetching snapshot from {channel}); the connection stays open"],
  ["pong", stream.StreamPong, "Answer to a ping"],
];

function controlOperation(message: string, replies: string[]): Json {
  return {
    action: "send",
    channel: { $ref: "#/channels/control" },
    messages: [{ $ref: `#/channels/control/messages/${message}` }],
    reply: { channel: { $ref: "#/channels/control" }, messages: replies.map((reply) => ({ $ref: `#/channels/control/messages/${reply}` })) },
  };
}

/** The AsyncAPI 3.0 document of the streaming interface (spec 4.4, 6). */
export function buildStreamAsyncApiDocument(): Json {
  const schemas = new SchemaComponents("draft-7", ASYNCAPI_SCHEMAS);
  const messages: Json = {};
  const channels: Json = {};
  const operations: Json = {};
  for (const kind of CHANNEL_KINDS) {
    const spec = CHANNELS[kind];
    const parameters = channelParameters(kind);
    const own = streamChannelMessages(kind, schemas, messages);
    channels[kind] = { address: spec.template, ...(parameters === undefined ? {} : { parameters }), messages: own };
    operations[`receive${kind.charAt(0).toUpperCase()}${kind.slice(1)}`] = {
      action: "receive",
      channel: { $ref: `#/channels/${kind}` },
      messages: Object.keys(own).map((name) => ({ $ref: `#/channels/${kind}/messages/${name}` })),
    };
  }
  const control: Json = {};
  for (const [name, schema, summary] of STREAM_CONTROL) {
    messages[`control_${name}`] = { name, summary, payload: schemas.schema(schema) };
    control[name] = { $ref: `#/components/messages/control_${name}` };
  }
  channels["control"] = { address: null, description: "Frames that are not tied to one channel's data: subscription control and keep-alive", messages: control };
  operations["subscribe"] = controlOperation("subscribe", ["subscribed", "error"]);
  operations["unsubscribe"] = controlOperation("unsubscribe", ["unsubscribed", "error"]);
  operations["ping"] = controlOperation("ping", ["pong"]);
  return {
    asyncapi: "3.0.0",
    info: {
      title: "shadowbook: order-book trading service (streaming)",
      version: CONTRACT_VERSION,
      description:
        "The streaming interface of the trading service contract 3.5.2, as served by the shadowbook simulator: one WebSocket, subscribe to channels by name. Closes: 1013 slow consumer, 1012 resynchronization, 1001 shutdown. Generated from the zod schemas of the implementation.",
    },
    defaultContentType: "application/json",
    servers: { live: { host: "{host}", pathname: "/ws", protocol: "ws", variables: { host: { default: "localhost:8080" } } } },
    channels,
    operations,
    components: { schemas: schemas.all(), messages },
  };
}

// -- AsyncAPI (order entry) --------------------------------------------------------------------

const EXEC_FRAMES: readonly [exec.OrderEntryOperation, z.ZodType, z.ZodType, z.ZodType][] = [
  ["createOrder", exec.ExecCreateOrderRequest, exec.ExecCreateOrderSuccess, exec.ExecCreateOrderFailure],
  ["modifyOrder", exec.ExecModifyOrderRequest, exec.ExecModifyOrderSuccess, exec.ExecModifyOrderFailure],
  ["cancelOrder", exec.ExecCancelOrderRequest, exec.ExecCancelOrderSuccess, exec.ExecCancelOrderFailure],
  ["cancelAll", exec.ExecCancelAllRequest, exec.ExecCancelAllSuccess, exec.ExecCancelAllFailure],
  ["cancelAllAfter", exec.ExecCancelAllAfterRequest, exec.ExecCancelAllAfterSuccess, exec.ExecCancelAllAfterFailure],
];

/** The AsyncAPI 3.0 document of WebSocket order entry (spec 4.3). */
export function buildExecAsyncApiDocument(): Json {
  const schemas = new SchemaComponents("draft-7", ASYNCAPI_SCHEMAS);
  const messages: Json = {};
  const channelMessages: Json = {};
  const operations: Json = {};
  const add = (name: string, schema: z.ZodType, summary: string) => {
    messages[name] = { name, summary, payload: schemas.schema(schema) };
    channelMessages[name] = { $ref: `#/components/messages/${name}` };
  };
  const ref = (name: string) => ({ $ref: `#/channels/orderEntry/messages/${name}` });
  for (const [op, request, success, failure] of EXEC_FRAMES) {
    add(`${op}Request`, request, `${op} request; payload identical to the REST body of POST /v2/${op}`);
    add(`${op}Success`, success, `${op} succeeded; payload identical to the REST 200 body`);
    add(`${op}Failure`, failure, `${op} failed; error is the RequestError of the REST 400 body`);
    operations[op] = {
      action: "send",
      channel: { $ref: "#/channels/orderEntry" },
      messages: [ref(`${op}Request`)],
      reply: { channel: { $ref: "#/channels/orderEntry" }, messages: [ref(`${op}Success`), ref(`${op}Failure`)] },
    };
  }
  add("ping", exec.ExecPing, "Client ping; the id, when given, is echoed");
  add("pong", exec.ExecPong, "Answer to a ping");
  add("error", exec.ExecErrorFrame, "A frame that could not be handled at all (MALFORMED_JSON, UNKNOWN_TYPE, DUPLICATE_REQUEST_ID, INTERNAL); the connection stays open");
  operations["ping"] = { action: "send", channel: { $ref: "#/channels/orderEntry" }, messages: [ref("ping")], reply: { channel: { $ref: "#/channels/orderEntry" }, messages: [ref("pong")] } };
  operations["receiveError"] = { action: "receive", channel: { $ref: "#/channels/orderEntry" }, messages: [ref("error")] };
  return {
    asyncapi: "3.0.0",
    info: {
      title: "shadowbook: order-book trading service (order entry)",
      version: CONTRACT_VERSION,
      description:
        "WebSocket order entry of the trading service contract 3.5.2, as served by the shadowbook simulator: requests {type, id, payload} answered by {type, id, ok, payload | error}; ids must be unique among in-flight requests of a connection. Closes: 1013 slow consumer (unread answers past the bound; requests sent still happen), 1001 shutdown. Generated from the zod schemas of the implementation.",
    },
    defaultContentType: "application/json",
    servers: { live: { host: "{host}", pathname: "/exec", protocol: "ws", variables: { host: { default: "localhost:8080" } } } },
    channels: { orderEntry: { address: null, description: "All frames of one order-entry connection", messages: channelMessages } },
    operations,
    components: { schemas: schemas.all(), messages },
  };
}

// -- served text ---------------------------------------------------------------------------------

export type ApiDocumentName = "openapi-spec.yaml" | "asyncapi-spec.yaml" | "asyncapi-exec-spec.yaml";

const BUILDERS: Readonly<Record<ApiDocumentName, () => Json>> = {
  "openapi-spec.yaml": buildOpenApiDocument,
  "asyncapi-spec.yaml": buildStreamAsyncApiDocument,
  "asyncapi-exec-spec.yaml": buildExecAsyncApiDocument,
};

const served = new Map<ApiDocumentName, string>();

/** The YAML text of a document (built on first use, then served from memory: the schemas do not change). */
export function apiDocumentYaml(name: ApiDocumentName): string {
  let text = served.get(name);
  if (text === undefined) {
    text = toYaml(BUILDERS[name]());
    served.set(name, text);
  }
  return text;
}
