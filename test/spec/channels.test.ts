import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";
import type { ChannelKind, ParsedChannel } from "../../src/spec/index.ts";
import * as fx from "./fixtures.ts";

const SYMBOL = "ETHPERP";
const ADDRESS = fx.WALLET;

// The 17 templates of spec 6.1, in its order, with shadowbook's kind names.
const TEMPLATES: ReadonlyArray<readonly [ChannelKind, string]> = [
  ["perpMarketsSummary", "/v2/perpMarkets/summary"],
  ["perpMarketSummary", "/v2/perpMarket/{symbol}/summary"],
  ["spotMarketsSummary", "/v2/spotMarkets/summary"],
  ["spotMarketSummary", "/v2/spotMarket/{symbol}/summary"],
  ["marketPerpExecutions", "/v2/market/{symbol}/perpExecutions"],
  ["marketSpotExecutions", "/v2/market/{symbol}/spotExecutions"],
  ["marketExecutionBusts", "/v2/market/{symbol}/executionBusts"],
  ["marketDepth", "/v2/market/{symbol}/depth"],
  ["assetOraclePrices", "/v2/assetOraclePrices"],
  ["walletPositions", "/v2/wallet/{address}/positions"],
  ["walletOrderChanges", "/v2/wallet/{address}/orderChanges"],
  ["walletPerpExecutions", "/v2/wallet/{address}/perpExecutions"],
  ["walletSpotExecutions", "/v2/wallet/{address}/spotExecutions"],
  ["walletExecutionBusts", "/v2/wallet/{address}/executionBusts"],
  ["walletAccountBalances", "/v2/wallet/{address}/accountBalances"],
  ["walletTransfers", "/v2/wallet/{address}/transfers"],
  ["walletAccounts", "/v2/wallet/{address}/accounts"],
];

function expectedParse(kind: ChannelKind, template: string): ParsedChannel {
  if (template.includes("{symbol}")) return { kind, symbol: SYMBOL } as ParsedChannel;
  if (template.includes("{address}")) return { kind, address: ADDRESS } as ParsedChannel;
  return { kind } as ParsedChannel;
}

function fill(template: string): string {
  return template.replace("{symbol}", SYMBOL).replace("{address}", ADDRESS);
}

/** Reference parser: one anchored regex per template (slow, obviously right). */
const REFERENCE = TEMPLATES.map(([kind, template]) => {
  const source = template
    .replace("{symbol}", "(?<symbol>[A-Za-z0-9]+)")
    .replace("{address}", "(?<address>0x[a-fA-F0-9]{40})");
  return [kind, new RegExp(`^${source}$`)] as const;
});

function referenceParse(name: string): ParsedChannel | undefined {
  for (const [kind, re] of REFERENCE) {
    const m = re.exec(name);
    if (m === null) continue;
    const symbol = m.groups?.["symbol"];
    const address = m.groups?.["address"];
    if (symbol !== undefined) return { kind, symbol } as ParsedChannel;
    if (address !== undefined) return { kind, address } as ParsedChannel;
    return { kind } as ParsedChannel;
  }
  return undefined;
}

describe("channel catalogue", () => {
  test("has the 17 templates of spec 6.1, in order", () => {
    expect(spec.CHANNEL_KINDS).toHaveLength(17);
    expect(spec.CHANNEL_KINDS.map((kind) => [kind, spec.CHANNELS[kind].template])).toStrictEqual(TEMPLATES);
    expect(Object.keys(spec.CHANNELS).sort()).toStrictEqual([...spec.CHANNEL_KINDS].sort());
  });

  test("exactly depth, orderChanges and transfers have a snapshot", () => {
    const withSnapshot = spec.CHANNEL_KINDS.filter((kind) => spec.channelHasSnapshot(kind));
    expect(withSnapshot).toStrictEqual(["marketDepth", "walletOrderChanges", "walletTransfers"]);
    expect(spec.CHANNELS.marketDepth.snapshot).toBe(spec.DepthSnapshot);
    expect(spec.CHANNELS.walletOrderChanges.snapshot).toBe(spec.OrderChangesSnapshot);
    expect(spec.CHANNELS.walletTransfers.snapshot).toBe(spec.TransfersSnapshot);
  });

  test("the parameter kind follows the template", () => {
    for (const [kind, template] of TEMPLATES) {
      const param = template.includes("{symbol}") ? "symbol" : template.includes("{address}") ? "address" : "none";
      expect(spec.CHANNELS[kind].param).toBe(param);
    }
  });

  const payloads: ReadonlyArray<readonly [ChannelKind, unknown]> = [
    ["perpMarketsSummary", [fx.marketSummary]],
    ["perpMarketSummary", fx.marketSummary],
    ["spotMarketsSummary", [fx.spotMarketSummary]],
    ["spotMarketSummary", fx.spotMarketSummary],
    ["marketPerpExecutions", [fx.perpExecution, fx.adlExecution]],
    ["marketSpotExecutions", [fx.spotExecution]],
    ["marketExecutionBusts", [fx.executionBust]],
    ["marketDepth", fx.depth],
    ["assetOraclePrices", [fx.assetOraclePrice]],
    ["walletPositions", [fx.position]],
    ["walletOrderChanges", [fx.fillUpdateOrder, fx.cancelledStopOrder]],
    ["walletPerpExecutions", [fx.perpExecution]],
    ["walletSpotExecutions", [fx.spotExecution]],
    ["walletExecutionBusts", [fx.executionBust]],
    ["walletAccountBalances", [fx.accountBalance]],
    ["walletTransfers", [fx.withdrawal, fx.transfer]],
    ["walletAccounts", [fx.accountNotification]],
  ];

  test.each(payloads)("%s data payload parses and round-trips", (kind, data) => {
    expect(spec.CHANNELS[kind].data.parse(data)).toStrictEqual(data);
  });

  test("data payloads of the wrong channel are rejected", () => {
    expect(spec.CHANNELS.walletPositions.data.safeParse([fx.accountBalance]).success).toBe(false);
    expect(spec.CHANNELS.perpMarketSummary.data.safeParse([fx.marketSummary]).success).toBe(false);
    expect(spec.CHANNELS.marketSpotExecutions.data.safeParse([fx.adlExecution]).success).toBe(false);
  });

  test("snapshots parse", () => {
    expect(spec.CHANNELS.marketDepth.snapshot.parse(fx.depthSnapshot)).toStrictEqual(fx.depthSnapshot);
    expect(spec.CHANNELS.walletOrderChanges.snapshot.parse(fx.orderChangesSnapshot)).toStrictEqual(fx.orderChangesSnapshot);
    expect(spec.CHANNELS.walletTransfers.snapshot.parse(fx.transfersSnapshot)).toStrictEqual(fx.transfersSnapshot);
  });
});

describe("parseChannel", () => {
  test.each(TEMPLATES)("accepts %s", (kind, template) => {
    expect(spec.parseChannel(fill(template))).toStrictEqual(expectedParse(kind, template));
  });

  test("keeps the address as given (letter case included)", () => {
    const lower = ADDRESS.toLowerCase();
    expect(spec.parseChannel(`/v2/wallet/${lower}/positions`)).toStrictEqual({ kind: "walletPositions", address: lower });
  });

  test.each(["ETH-PERP", "ETH_PERP", "ETH PERP", "ÉTH", "ETH.PERP", "", "*", "{symbol}"])(
    "rejects the malformed symbol %j",
    (symbol) => {
      expect(spec.parseChannel(`/v2/market/${symbol}/depth`)).toBeUndefined();
      expect(spec.parseChannel(`/v2/perpMarket/${symbol}/summary`)).toBeUndefined();
      expect(spec.parseChannel(`/v2/spotMarket/${symbol}/summary`)).toBeUndefined();
    },
  );

  test.each([
    ADDRESS.slice(0, 41),
    `${ADDRESS}0`,
    ADDRESS.slice(2),
    `0X${ADDRESS.slice(2)}`,
    `0x${"g".repeat(40)}`,
    `0x${"a".repeat(39)} `,
    "ETHPERP",
    "",
  ])("rejects the malformed address %j", (address) => {
    expect(spec.parseChannel(`/v2/wallet/${address}/positions`)).toBeUndefined();
    expect(spec.parseChannel(`/v2/wallet/${address}/orderChanges`)).toBeUndefined();
  });

  test.each([
    "/v2/market/ETHPERP/depth/extra",
    "/v2/market/ETHPERP/depth/",
    "/v2/assetOraclePrices/",
    "/v2/assetOraclePrices/ETHPERP",
    "/v2/perpMarkets/summary/",
    "/v2/perpMarkets/ETHPERP/summary",
    "/v2/market/depth",
    `/v2/wallet/${ADDRESS}`,
    "//v2/assetOraclePrices",
    "/v2//assetOraclePrices",
    "/v2/market//ETHPERP/depth",
  ])("rejects extra or missing segments: %s", (name) => {
    expect(spec.parseChannel(name)).toBeUndefined();
  });

  test.each([
    "",
    "/",
    "/v2",
    "/v2/",
    "v2/assetOraclePrices",
    "/v3/assetOraclePrices",
    "/V2/assetOraclePrices",
    "/v2/assetoracleprices",
    "/v2/assetOraclePrices?x=1",
    "/v2/prices",
    "/v2/markets/summary",
    "/v2/market/ETHPERP/summary",
    "/v2/market/ETHPERP/trades",
    "/v2/wallet/ETHPERP/positions",
    `/v2/market/${ADDRESS}/orderChanges`,
    `/v2/wallet/${ADDRESS}/depth`,
    "/v2/spotMarkets/ETHPERP/summary",
    " /v2/assetOraclePrices",
  ])("rejects the unknown name %j", (name) => {
    expect(spec.parseChannel(name)).toBeUndefined();
  });

  test("agrees with a regex-per-template reference on mutated names (property)", () => {
    const paramChars = fc.constantFrom(..."0123456789abcdefABCDEFxXgZz-_/ .*{}".split(""));
    const param = fc.oneof(
      fc.string({ unit: paramChars, minLength: 0, maxLength: 44 }),
      fc.stringMatching(/^0x[0-9a-fA-F]{38,42}$/),
      fc.stringMatching(/^[A-Za-z0-9]{1,12}$/),
    );
    const name = fc
      .tuple(fc.constantFrom(...TEMPLATES), param, fc.constantFrom("", "/", "x", "/x"), fc.constantFrom("", "/", "/v2"))
      .map(([[, template], p, suffix, prefix]) =>
        prefix + template.replace("{symbol}", p).replace("{address}", p) + suffix,
      );
    fc.assert(
      fc.property(name, (n) => {
        expect(spec.parseChannel(n)).toStrictEqual(referenceParse(n));
      }),
      { seed: 42, numRuns: 5000 },
    );
  });
});

describe("channelName", () => {
  test.each(TEMPLATES)("builds %s", (kind, template) => {
    expect(spec.formatChannel(expectedParse(kind, template))).toBe(fill(template));
  });

  test("builds each parameter class by kind", () => {
    expect(spec.channelName("assetOraclePrices")).toBe("/v2/assetOraclePrices");
    expect(spec.channelName("marketDepth", SYMBOL)).toBe(`/v2/market/${SYMBOL}/depth`);
    expect(spec.channelName("walletTransfers", ADDRESS)).toBe(`/v2/wallet/${ADDRESS}/transfers`);
  });

  test("throws on a malformed, missing or unexpected parameter", () => {
    expect(() => spec.channelName("marketDepth", "ETH-PERP")).toThrow('symbol "ETH-PERP" of channel "marketDepth" does not match');
    expect(() => spec.channelName("walletPositions", "0x12")).toThrow('address "0x12" of channel "walletPositions" does not match');
    // @ts-expect-error: a symbol channel needs its symbol
    expect(() => spec.channelName("marketDepth")).toThrow("does not match");
    // @ts-expect-error: a plain channel takes no parameter
    expect(() => spec.channelName("assetOraclePrices", "ETHPERP")).toThrow('channel "assetOraclePrices" takes no parameter');
  });

  test("channelName and parseChannel round-trip (property)", () => {
    const symbol = fc.stringMatching(/^[A-Za-z0-9]{1,16}$/);
    const address = fc.stringMatching(/^0x[0-9a-fA-F]{40}$/);
    const parsed: fc.Arbitrary<ParsedChannel> = fc.oneof(
      fc.constantFrom(...TEMPLATES.filter(([k]) => spec.CHANNELS[k].param === "none")).map(([kind]) => ({ kind }) as ParsedChannel),
      fc
        .tuple(fc.constantFrom(...TEMPLATES.filter(([k]) => spec.CHANNELS[k].param === "symbol")), symbol)
        .map(([[kind], s]) => ({ kind, symbol: s }) as ParsedChannel),
      fc
        .tuple(fc.constantFrom(...TEMPLATES.filter(([k]) => spec.CHANNELS[k].param === "address")), address)
        .map(([[kind], a]) => ({ kind, address: a }) as ParsedChannel),
    );
    fc.assert(
      fc.property(parsed, (p) => {
        const name = spec.formatChannel(p);
        expect(spec.parseChannel(name)).toStrictEqual(p);
        expect(spec.formatChannel(spec.parseChannel(name) ?? { kind: "assetOraclePrices" })).toBe(name);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

describe("parameter checks", () => {
  test("isSymbolParam and isAddressParam agree with the spec patterns (property)", () => {
    const chars = fc.constantFrom(..."0123456789abcdefABCDEFgGzZxX-_ /.é".split(""));
    const text = fc.oneof(
      fc.string({ unit: chars, maxLength: 44 }),
      fc.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      fc.string({ maxLength: 44 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(spec.isSymbolParam(t)).toBe(spec.SYMBOL_PATTERN.test(t));
        expect(spec.isAddressParam(t)).toBe(spec.ADDRESS_PATTERN.test(t));
      }),
      { seed: 42, numRuns: 5000 },
    );
  });
});
