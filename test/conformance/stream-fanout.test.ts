/**
 * The fan-out and routing of the streaming surface, without sockets: the
 * routing table (each Exchange output to its channels), one serialization
 * per channel shared by its subscribers, nothing built for a channel
 * nobody listens to, and latest-value coalescing.
 */
import { describe, expect, it } from "vitest";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { ChannelRegistry, resolveChannel } from "../../src/exchange/stream-channels.ts";
import { routeOutput } from "../../src/exchange/stream-routes.ts";
import { StreamFanout } from "../../src/live/stream-fanout.ts";
import type { MarketRef } from "../../src/exchange/gateway/validate/types.ts";
import { CHANNEL_KINDS, CHANNELS } from "../../src/spec/channels.ts";

const WALLET = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";
const MARKETS = new Map<string, MarketRef>([
  ["ETHRUSDPERP", { marketId: 1, symbol: "ETHRUSDPERP", kind: "perp", tickSize: "0.01", qtyStepSize: "0.001", minOrderQty: "0.001" }],
  ["WETHRUSD", { marketId: 5, symbol: "WETHRUSD", kind: "spot", tickSize: "0.01", qtyStepSize: "0.001", minOrderQty: "0.001" }],
]);

interface Sent {
  subscriber: string;
  frame: Buffer;
  json: { type: string; timestamp: number; channel: string; data: unknown };
}

function setup(names: readonly [subscriber: string, channel: string][]) {
  const registry = new ChannelRegistry<string>();
  for (const [subscriber, channel] of names) {
    const resolved = resolveChannel(channel, MARKETS);
    if (resolved === undefined) throw new Error(`invalid ${channel}`);
    registry.add(resolved, subscriber, channel);
  }
  const sent: Sent[] = [];
  const fanout = new StreamFanout<string>(registry, (subscriber, frame) => sent.push({ subscriber, frame, json: JSON.parse(frame.toString()) }), () => 1234);
  return { registry, fanout, sent };
}

/** Every channel of the catalogue, for the wallet and the perp market (spot for the spot-only ones). */
function everyChannel(): string[] {
  return CHANNEL_KINDS.map((kind) => {
    const template = CHANNELS[kind].template;
    const symbol = kind === "spotMarketSummary" || kind === "marketSpotExecutions" ? "WETHRUSD" : "ETHRUSDPERP";
    return template.replace("{symbol}", symbol).replace("{address}", WALLET);
  });
}

const row = { orderId: "1" };
const ROUTES: [ExchangeOutput, string[]][] = [
  [{ kind: "order", wallet: WALLET, row: row as never, onOrderChanges: true }, [`/v2/wallet/${WALLET}/orderChanges`]],
  [{ kind: "order", wallet: WALLET, row: row as never, onOrderChanges: false }, []],
  [
    { kind: "perpExecution", symbol: "ETHRUSDPERP", wallets: [WALLET, OTHER], record: { fillId: "1" } as never },
    ["/v2/market/ETHRUSDPERP/perpExecutions", `/v2/wallet/${WALLET}/perpExecutions`],
  ],
  [
    { kind: "spotExecution", symbol: "WETHRUSD", wallets: [WALLET], record: { fillId: "2" } as never },
    ["/v2/market/WETHRUSD/spotExecutions", `/v2/wallet/${WALLET}/spotExecutions`],
  ],
  [
    { kind: "bust", symbol: "ETHRUSDPERP", wallets: [OTHER, WALLET], record: { fillId: "3" } as never },
    ["/v2/market/ETHRUSDPERP/executionBusts", `/v2/wallet/${WALLET}/executionBusts`],
  ],
  [{ kind: "depth", symbol: "ETHRUSDPERP", depth: { type: "UPDATE" } as never }, ["/v2/market/ETHRUSDPERP/depth"]],
  [{ kind: "positions", wallet: WALLET, positions: [] }, [`/v2/wallet/${WALLET}/positions`]],
  [{ kind: "balances", wallet: WALLET, balances: [] }, [`/v2/wallet/${WALLET}/accountBalances`]],
  [{ kind: "transfer", wallet: WALLET, entry: { id: "9" } as never }, [`/v2/wallet/${WALLET}/transfers`]],
  [{ kind: "account", wallet: WALLET, notification: { accountId: 2 } as never }, [`/v2/wallet/${WALLET}/accounts`]],
  [
    { kind: "perpSummaries", summaries: [{ symbol: "ETHRUSDPERP" }, { symbol: "BTCRUSDPERP" }] as never },
    ["/v2/perpMarkets/summary", "/v2/perpMarket/ETHRUSDPERP/summary"],
  ],
  [{ kind: "spotSummaries", summaries: [{ symbol: "WETHRUSD" }] as never }, ["/v2/spotMarkets/summary", "/v2/spotMarket/WETHRUSD/summary"]],
  [{ kind: "oraclePrices", prices: [] }, ["/v2/assetOraclePrices"]],
  [{ kind: "block", number: 1, timeMicros: 0, settled: 0, busted: 0 }, []],
];

describe("routing table", () => {
  it.each(ROUTES.map(([output, channels]) => [output.kind, output, channels] as const))("%s goes to exactly its channels", async (_kind, output, channels) => {
    const { fanout, sent } = setup(everyChannel().map((channel) => ["client", channel] as const));
    routeOutput(output, fanout);
    await Promise.resolve(); // the end of the turn: latest-value feeds flush
    expect(sent.map((s) => s.json.channel).sort()).toEqual([...channels].sort());
  });

  it("wraps one event in an array and sends a whole payload as it is", async () => {
    const { fanout, sent } = setup([
      ["c", `/v2/wallet/${WALLET}/orderChanges`],
      ["c", "/v2/perpMarket/ETHRUSDPERP/summary"],
    ]);
    routeOutput(ROUTES[0]![0], fanout);
    routeOutput(ROUTES[10]![0], fanout);
    await Promise.resolve();
    expect(sent.map((s) => s.json)).toEqual([
      { type: "channel_data", timestamp: 1234, channel: `/v2/wallet/${WALLET}/orderChanges`, data: [row] },
      { type: "channel_data", timestamp: 1234, channel: "/v2/perpMarket/ETHRUSDPERP/summary", data: { symbol: "ETHRUSDPERP" } },
    ]);
  });
});

describe("fan-out cost", () => {
  it("serializes once per channel: subscribers with the same spelling share one frame Buffer", () => {
    const upper = `/v2/wallet/0x${WALLET.slice(2).toUpperCase()}/transfers`;
    const lower = `/v2/wallet/${WALLET}/transfers`;
    const { fanout, sent } = setup([
      ["a", lower],
      ["b", upper],
      ["c", lower],
      ["d", upper],
    ]);
    let serialized = 0;
    const entry = { toJSON: () => (serialized++, { id: "1" }) };
    routeOutput({ kind: "transfer", wallet: WALLET, entry: entry as never }, fanout);
    expect(serialized).toBe(1);
    expect(sent.map((s) => s.subscriber)).toEqual(["a", "b", "c", "d"]);
    expect(sent[0]!.frame).toBe(sent[2]!.frame);
    expect(sent[1]!.frame).toBe(sent[3]!.frame);
    expect(sent[0]!.json.channel).toBe(lower);
    expect(sent[1]!.json.channel).toBe(upper);
  });

  it("builds nothing for a channel without subscribers", async () => {
    const { fanout, sent } = setup([["a", `/v2/wallet/${OTHER}/transfers`]]);
    let serialized = 0;
    const payload = { toJSON: () => (serialized++, {}) };
    for (const [output] of ROUTES) {
      const touched = JSON.parse(JSON.stringify(output, (key, value) => (key === "wallet" ? WALLET : value))) as ExchangeOutput;
      routeOutput({ ...touched, ...pick(touched, payload) } as ExchangeOutput, fanout);
    }
    await Promise.resolve();
    expect(serialized).toBe(0);
    expect(sent).toEqual([]);
  });

  it("coalesces a latest-value feed to its newest value by the end of the turn", async () => {
    const { fanout, sent } = setup([["a", "/v2/assetOraclePrices"]]);
    for (let i = 0; i < 5; i++) routeOutput({ kind: "oraclePrices", prices: [{ asset: "WETH", oraclePrice: String(i), updatedAt: i }] as never }, fanout);
    expect(sent).toEqual([]);
    await Promise.resolve();
    expect(sent.map((s) => s.json.data)).toEqual([[{ asset: "WETH", oraclePrice: "4", updatedAt: 4 }]]);
  });
});

/** Replaces the payload field of an output with `payload` (to count serializations). */
function pick(output: ExchangeOutput, payload: unknown): Partial<Record<string, unknown>> {
  switch (output.kind) {
    case "order":
      return { row: payload };
    case "perpExecution":
    case "spotExecution":
    case "bust":
      return { record: payload };
    case "depth":
      return { depth: payload };
    case "positions":
      return { positions: payload };
    case "balances":
      return { balances: payload };
    case "transfer":
      return { entry: payload };
    case "account":
      return { notification: payload };
    case "perpSummaries":
    case "spotSummaries":
      return { summaries: [payload] };
    case "oraclePrices":
      return { prices: payload };
    case "block":
      return {};
  }
}
