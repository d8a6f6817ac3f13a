/**
 * The machine-readable contracts (spec 9) served at /v2/openapi-spec.yaml,
 * /v2/asyncapi-spec.yaml and /v2/asyncapi-exec-spec.yaml: each is YAML that
 * reads back to the document generated from the zod schemas, lists every
 * route (or channel, or operation), and every $ref in it resolves. Also the
 * YAML emitter's quoting, which keeps a string a string.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiDocumentYaml,
  buildExecAsyncApiDocument,
  buildOpenApiDocument,
  buildStreamAsyncApiDocument,
  REST_ROUTES,
  type ApiDocumentName,
} from "../../src/live/api-docs.ts";
import { toYaml } from "../../src/live/yaml.ts";
import { CHANNEL_KINDS, CHANNELS } from "../../src/spec/channels.ts";
import { REQUEST_ERROR_CODES } from "../../src/spec/errors.ts";
import { ORDER_ENTRY_OPERATIONS } from "../../src/spec/exec-envelopes.ts";
import { startRestWorld, type RestWorld } from "./helpers/rest-world.ts";
import { parseYaml, refsOf, resolveRef } from "./helpers/rest-yaml.ts";

let w: RestWorld;
const served = new Map<ApiDocumentName, any>();

/** The routes the issue and spec 4.1/4.2/9 name, independently of REST_ROUTES. */
const EXPECTED_ROUTES = [
  "GET /v2/perpMarketDefinitions",
  "GET /v2/spotMarketDefinitions",
  "GET /v2/assetDefinitions",
  "GET /v2/globalFeeParameters",
  "GET /v2/feeTiers",
  "GET /v2/perpMarkets/summary",
  "GET /v2/perpMarket/{symbol}/summary",
  "GET /v2/spotMarkets/summary",
  "GET /v2/spotMarket/{symbol}/summary",
  "GET /v2/market/{symbol}/depth",
  "GET /v2/market/{symbol}/perpExecutions",
  "GET /v2/market/{symbol}/spotExecutions",
  "GET /v2/market/{symbol}/executionBusts",
  "GET /v2/assetOraclePrices",
  "GET /v2/wallet/{address}/orderHistory",
  "GET /v2/wallet/{address}/transfers",
  "GET /v2/wallet/{address}/openOrders",
  "GET /v2/wallet/{address}/perpExecutions",
  "GET /v2/wallet/{address}/spotExecutions",
  "GET /v2/wallet/{address}/executionBusts",
  "GET /v2/wallet/{address}/positions",
  "GET /v2/wallet/{address}/accountBalances",
  "GET /v2/wallet/{address}/accounts",
  "GET /v2/wallet/{address}/configuration",
  "POST /v2/createOrder",
  "POST /v2/modifyOrder",
  "POST /v2/cancelOrder",
  "POST /v2/cancelAll",
  "POST /v2/cancelAllAfter",
  "GET /v2/openapi-spec.yaml",
  "GET /v2/asyncapi-spec.yaml",
  "GET /v2/asyncapi-exec-spec.yaml",
];

function expectRefsResolve(document: unknown, minimum: number): void {
  const refs = refsOf(document);
  expect(refs.length).toBeGreaterThanOrEqual(minimum);
  const dangling = refs.filter(({ ref }) => resolveRef(document, ref) === undefined);
  expect(dangling).toEqual([]);
}

beforeAll(async () => {
  w = await startRestWorld({ bare: true });
  for (const name of ["openapi-spec.yaml", "asyncapi-spec.yaml", "asyncapi-exec-spec.yaml"] as const) {
    const answer = await w.get(`/v2/${name}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    served.set(name, parseYaml(answer.text));
    expect(answer.text).toBe(apiDocumentYaml(name));
  }
});

afterAll(async () => {
  await w?.close();
});

describe("The served documents", () => {
  it("read back from YAML to exactly the documents generated from the zod schemas", () => {
    expect(served.get("openapi-spec.yaml")).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(served.get("asyncapi-spec.yaml")).toEqual(JSON.parse(JSON.stringify(buildStreamAsyncApiDocument())));
    expect(served.get("asyncapi-exec-spec.yaml")).toEqual(JSON.parse(JSON.stringify(buildExecAsyncApiDocument())));
  });

  it("are generated the same, byte for byte, every time", () => {
    expect(toYaml(buildOpenApiDocument())).toBe(apiDocumentYaml("openapi-spec.yaml"));
    expect(toYaml(buildStreamAsyncApiDocument())).toBe(toYaml(buildStreamAsyncApiDocument()));
    expect(toYaml(buildExecAsyncApiDocument())).toBe(apiDocumentYaml("asyncapi-exec-spec.yaml"));
  });
});

describe("OpenAPI (REST)", () => {
  it("is OpenAPI 3.1 of contract 3.5.2 and lists every route, and nothing else, under the /v2 server", () => {
    const doc = served.get("openapi-spec.yaml");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("3.5.2");
    expect(doc.servers).toEqual([{ url: "/v2", description: "This server" }]);
    const listed = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.keys(item).map((method) => `${method.toUpperCase()} /v2${path}`));
    expect(listed.sort()).toEqual([...EXPECTED_ROUTES].sort());
    expect(REST_ROUTES.map((route) => `${route.method} ${route.path}`).sort()).toEqual([...EXPECTED_ROUTES].sort());
    for (const removed of ["/marketDefinitions", "/liquidityParameters", "/prices", "/markets/summary", "/market/{symbol}/summary"]) expect(doc.paths).not.toHaveProperty(removed);
    const ids = listed.map((entry) => {
      const [method, path] = entry.split(" ") as [string, string];
      return doc.paths[path.slice(3)][method.toLowerCase()].operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("describes parameters, bodies and answers of each route", () => {
    const doc = served.get("openapi-spec.yaml");
    const op = (path: string, method = "get") => doc.paths[path][method];
    const query = (path: string) => Object.fromEntries(op(path).parameters.filter((p: any) => p.in === "query").map((p: any) => [p.name, p.schema]));
    expect(query("/market/{symbol}/depth")).toEqual({ limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 } });
    expect(query("/wallet/{address}/orderHistory")).toEqual({
      limit: { type: "integer", minimum: 1, maximum: 100, default: 100 },
      startTime: { $ref: "#/components/schemas/UnsignedInteger" },
      endTime: { $ref: "#/components/schemas/UnsignedInteger" },
      cursor: { type: "string" },
    });
    expect(Object.keys(query("/wallet/{address}/transfers"))).toEqual(["limit", "startTime", "endTime", "type", "cursor"]);
    expect(Object.keys(query("/wallet/{address}/perpExecutions"))).toEqual(["limit", "startTime", "endTime"]);
    expect(op("/market/{symbol}/depth").parameters[0]).toEqual({ $ref: "#/components/parameters/SymbolPath" });
    expect(op("/wallet/{address}/openOrders").parameters).toEqual([{ $ref: "#/components/parameters/AddressPath" }]);
    expect(op("/feeTiers")).not.toHaveProperty("parameters");
    const json200 = (path: string, method = "get") => op(path, method).responses["200"].content["application/json"].schema;
    expect(json200("/wallet/{address}/openOrders")).toEqual({ type: "array", items: { $ref: "#/components/schemas/Order" } });
    expect(json200("/wallet/{address}/perpExecutions")).toEqual({ $ref: "#/components/schemas/PerpExecutionList" });
    expect(json200("/wallet/{address}/orderHistory")).toEqual({ $ref: "#/components/schemas/OrderHistoryList" });
    expect(json200("/wallet/{address}/accounts")).toEqual({ type: "array", items: { $ref: "#/components/schemas/WalletAccount" } });
    for (const operation of ORDER_ENTRY_OPERATIONS) {
      const post = op(`/${operation}`, "post");
      const name = operation.charAt(0).toUpperCase() + operation.slice(1);
      expect(post.requestBody.content["application/json"].schema).toEqual({ $ref: `#/components/schemas/${name}Request` });
      expect(json200(`/${operation}`, "post")).toEqual({ $ref: `#/components/schemas/${name}Response` });
    }
    for (const [path, item] of Object.entries(doc.paths) as [string, any][]) {
      for (const operation of Object.values(item) as any[]) {
        expect(operation.responses["500"], path).toEqual({ $ref: "#/components/responses/InternalServerError" });
        expect(operation.responses["429"], path).toEqual({ $ref: "#/components/responses/EdgeLimited" });
        if (!path.endsWith(".yaml")) expect(operation.responses["400"], path).toEqual({ $ref: "#/components/responses/BadRequest" });
      }
    }
    expect(op("/openapi-spec.yaml").responses["200"].content).toHaveProperty("application/yaml");
  });

  it("carries the schemas of the code: required fields, patterns, enums", () => {
    const schemas = served.get("openapi-spec.yaml").components.schemas;
    expect(Object.keys(schemas)).toEqual([...Object.keys(schemas)].sort());
    expect(schemas.Order.required).toEqual(["exchangeId", "symbol", "accountId", "orderId", "side", "limitPx", "orderType", "status", "createdAt", "lastUpdateAt"]);
    expect(schemas.Address).toEqual({ type: "string", pattern: "^0x[a-fA-F0-9]{40}$" });
    expect(schemas.RequestErrorCode.enum).toEqual([...REQUEST_ERROR_CODES]);
    expect(schemas.ServerError.properties.error).toEqual({ type: "string", const: "INTERNAL_SERVER_ERROR" });
    expect(schemas.PerpExecutionList.properties.data).toEqual({ type: "array", items: { $ref: "#/components/schemas/PerpExecution" } });
    expect(schemas.WalletAccount.required).toEqual(["accountId", "ownerWallet", "signers"]);
  });

  it("has every $ref resolve", () => {
    expectRefsResolve(served.get("openapi-spec.yaml"), 200);
  });
});

describe("AsyncAPI (streaming)", () => {
  it("lists the 17 channels with their addresses, parameters and data messages", () => {
    const doc = served.get("asyncapi-spec.yaml");
    expect(doc.asyncapi).toBe("3.0.0");
    expect(doc.servers.live).toMatchObject({ pathname: "/ws", protocol: "ws" });
    expect(CHANNEL_KINDS).toHaveLength(17);
    expect(Object.keys(doc.channels).sort()).toEqual([...CHANNEL_KINDS, "control"].sort());
    for (const kind of CHANNEL_KINDS) {
      const channel = doc.channels[kind];
      expect(channel.address).toBe(CHANNELS[kind].template);
      const names = [...CHANNELS[kind].template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(Object.keys(channel.parameters ?? {})).toEqual(names);
      const data = resolveRef(doc, channel.messages.channelData.$ref) as any;
      expect(data.payload.properties.type).toEqual({ const: "channel_data" });
      expect(data.payload.required).toEqual(["type", "timestamp", "channel", "data"]);
      expect(Object.keys(channel.messages).includes("subscribed")).toBe(CHANNELS[kind].snapshot !== null);
      const operation = Object.values(doc.operations).find((candidate: any) => candidate.channel.$ref === `#/channels/${kind}`) as any;
      expect(operation?.action).toBe("receive");
    }
    const depth = resolveRef(doc, doc.channels.marketDepth.messages.channelData.$ref) as any;
    expect(depth.payload.properties.data).toEqual({ $ref: "#/components/schemas/Depth" });
    const orders = resolveRef(doc, doc.channels.walletOrderChanges.messages.subscribed.$ref) as any;
    expect(orders.payload.properties.contents).toEqual({ $ref: "#/components/schemas/OrderChangesSnapshot" });
    expect(Object.keys(doc.channels.control.messages)).toEqual(["subscribe", "unsubscribe", "ping", "subscribed", "unsubscribed", "error", "pong"]);
    expect(doc.operations.subscribe.reply.messages).toEqual([{ $ref: "#/channels/control/messages/subscribed" }, { $ref: "#/channels/control/messages/error" }]);
  });

  it("has every $ref resolve", () => {
    expectRefsResolve(served.get("asyncapi-spec.yaml"), 100);
  });
});

describe("AsyncAPI (order entry)", () => {
  it("lists the five operations as requests with success and failure replies, and ping and error frames", () => {
    const doc = served.get("asyncapi-exec-spec.yaml");
    expect(doc.asyncapi).toBe("3.0.0");
    expect(doc.servers.live).toMatchObject({ pathname: "/exec", protocol: "ws" });
    expect(Object.keys(doc.operations)).toEqual([...ORDER_ENTRY_OPERATIONS, "ping", "receiveError"]);
    for (const op of ORDER_ENTRY_OPERATIONS) {
      const operation = doc.operations[op];
      expect(operation.action).toBe("send");
      const request = resolveRef(doc, operation.messages[0].$ref) as any;
      expect(request).toEqual({ $ref: `#/components/messages/${op}Request` });
      const name = op.charAt(0).toUpperCase() + op.slice(1);
      expect((resolveRef(doc, request.$ref) as any).payload).toEqual({ $ref: `#/components/schemas/Exec${name}Request` });
      expect(operation.reply.messages.map((m: any) => m.$ref)).toEqual([`#/channels/orderEntry/messages/${op}Success`, `#/channels/orderEntry/messages/${op}Failure`]);
      expect(doc.components.schemas[`Exec${name}Request`].properties.payload).toEqual({ $ref: `#/components/schemas/${name}Request` });
    }
    expect(doc.components.schemas.ExecErrorFrame.properties.error).toEqual({ $ref: "#/components/schemas/ExecFramingError" });
  });

  it("has every $ref resolve", () => {
    expectRefsResolve(served.get("asyncapi-exec-spec.yaml"), 50);
  });
});

describe("The YAML emitter", () => {
  it("quotes every string YAML would read as something else, and round-trips", () => {
    const risky = ["yes", "No", "ON", "off", "y", "null", "Null", "~", "true", "123", "1e3", "0x1f", "-1", ".5", "3.1.0", "-x", "- x", "#x", "a: b", "a #b", "", " lead", "trail ", "multi\nline", 'quote"s', "back\\slash", "tab\tx", "{x}", "[x]", "@x", "`x`", "!x", "&x", "*x", "|x", ">x", "%x", "?x", "'x'", "a,b", "ünï ✓", "a  b"];
    for (const text of risky) {
      const yaml = toYaml({ key: text });
      expect(yaml.startsWith('key: "'), JSON.stringify(text)).toBe(true);
      expect(parseYaml(yaml)).toEqual({ key: text });
    }
    for (const text of ["Specs", "/v2/perpMarket/{symbol}/summary", "application/json", "$ref", "Perp market definitions", "ETHRUSDPERP", "a_b.c-d", "one (two)"]) {
      expect(toYaml({ key: text }), text).toBe(`key: ${text}\n`);
    }
  });

  it("writes nested mappings and sequences, empty collections and scalars, and reads them back", () => {
    const value = {
      "200": { a: [1, -2.5, 3e21, true, false, null], "#/x": {} },
      list: [[1, [2, []]], { a: { b: [{ c: "d" }, {}] }, e: "f" }, [], "s"],
      empty: [],
      nested: { deeper: { deepest: { $ref: "#/components/schemas/Order" } } },
    };
    const yaml = toYaml(value);
    expect(parseYaml(yaml)).toEqual(value);
    expect(yaml).toContain('"200":\n');
    expect(toYaml("plain")).toBe("plain\n");
    expect(toYaml([])).toBe("[]\n");
    expect(() => toYaml({ bad: Number.NaN })).toThrow(/NaN/);
    expect(() => toYaml({ bad: 10n })).toThrow(/bigint/);
    expect(toYaml({ skipped: undefined, kept: 1 })).toBe("kept: 1\n");
  });
});
