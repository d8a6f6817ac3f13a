/**
 * Channel names typed by their text (src/spec/channels.ts ChannelKindOf,
 * ChannelDataOf, ChannelContentsOf; src/sim/agent.ts StreamHandler): the
 * compile-time reading of a name must agree with parseChannel's reading at
 * run time, for every kind, and a subscription by a literal or template
 * name hands the channel's payload type with no cast.
 *
 * The `expectTypeOf` lines are checked by `tsc` (part of `npm test`); the
 * `it` bodies check the same names at run time.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { channelName, parseChannel } from "../../src/spec/channel-parse.ts";
import {
  CHANNEL_KINDS,
  channelHasSnapshot,
  type ChannelContentsOf,
  type ChannelData,
  type ChannelDataOf,
  type ChannelKind,
  type ChannelKindOf,
  type ChannelSnapshot,
} from "../../src/spec/channels.ts";
import type { Depth, DepthSnapshot } from "../../src/spec/depth.ts";
import type { Order, OrderChangesSnapshot } from "../../src/spec/order.ts";
import type { AssetOraclePrice, MarketSummary } from "../../src/spec/market.ts";
import type { AgentStream, StreamHandler } from "../../src/sim/agent.ts";
import type { DeepReadonly } from "../../src/spec/stream-envelopes.ts";
import type { StreamChannelData } from "../../src/spec/stream-envelopes.ts";

const WALLET = "0x00000000000000000000000000000000000000aa";

/** One concrete name of every kind (a literal type each). */
const NAMES = {
  perpMarketsSummary: "/v2/perpMarkets/summary",
  perpMarketSummary: "/v2/perpMarket/BTCRUSDPERP/summary",
  spotMarketsSummary: "/v2/spotMarkets/summary",
  spotMarketSummary: "/v2/spotMarket/WETHRUSD/summary",
  marketPerpExecutions: "/v2/market/BTCRUSDPERP/perpExecutions",
  marketSpotExecutions: "/v2/market/WETHRUSD/spotExecutions",
  marketExecutionBusts: "/v2/market/BTCRUSDPERP/executionBusts",
  marketDepth: "/v2/market/BTCRUSDPERP/depth",
  assetOraclePrices: "/v2/assetOraclePrices",
  walletPositions: `/v2/wallet/${WALLET}/positions`,
  walletOrderChanges: `/v2/wallet/${WALLET}/orderChanges`,
  walletPerpExecutions: `/v2/wallet/${WALLET}/perpExecutions`,
  walletSpotExecutions: `/v2/wallet/${WALLET}/spotExecutions`,
  walletExecutionBusts: `/v2/wallet/${WALLET}/executionBusts`,
  walletAccountBalances: `/v2/wallet/${WALLET}/accountBalances`,
  walletTransfers: `/v2/wallet/${WALLET}/transfers`,
  walletAccounts: `/v2/wallet/${WALLET}/accounts`,
} as const satisfies { readonly [K in ChannelKind]: string };

/** True for each kind whose name reads, at compile time, as exactly that kind (one template matches, and the right one). */
type ReadsAsItsKind = { [K in ChannelKind]: [ChannelKindOf<(typeof NAMES)[K]>] extends [K] ? ([K] extends [ChannelKindOf<(typeof NAMES)[K]>] ? true : false) : false };

describe("channel names typed by their text", () => {
  it("every kind's name reads as that kind at compile time and at run time", () => {
    expectTypeOf<ReadsAsItsKind>().toEqualTypeOf<{ [K in ChannelKind]: true }>();
    expect(Object.keys(NAMES)).toEqual([...CHANNEL_KINDS]);
    for (const kind of CHANNEL_KINDS) expect(parseChannel(NAMES[kind])?.kind, NAMES[kind]).toBe(kind);
  });

  it("a name of no channel, or one known only at run time, types its payload as unknown", () => {
    expectTypeOf<ChannelKindOf<"/v2/perpMarkets/depth">>().toBeNever();
    expectTypeOf<ChannelDataOf<"/v2/perpMarkets/depth">>().toBeUnknown();
    expectTypeOf<ChannelDataOf<string>>().toBeUnknown();
    expectTypeOf<ChannelContentsOf<string>>().toBeUnknown();
    // The run-time reading agrees that the first is no channel.
    expect(parseChannel("/v2/perpMarkets/depth")).toBeUndefined();
  });

  it("payloads and snapshots follow the catalogue", () => {
    expectTypeOf<ChannelDataOf<(typeof NAMES)["marketDepth"]>>().toEqualTypeOf<Depth>();
    expectTypeOf<ChannelContentsOf<(typeof NAMES)["marketDepth"]>>().toEqualTypeOf<DepthSnapshot>();
    expectTypeOf<ChannelDataOf<(typeof NAMES)["walletOrderChanges"]>>().toEqualTypeOf<Order[]>();
    expectTypeOf<ChannelContentsOf<(typeof NAMES)["walletOrderChanges"]>>().toEqualTypeOf<OrderChangesSnapshot>();
    expectTypeOf<ChannelDataOf<(typeof NAMES)["perpMarketSummary"]>>().toEqualTypeOf<MarketSummary>();
    expectTypeOf<ChannelDataOf<(typeof NAMES)["assetOraclePrices"]>>().toEqualTypeOf<AssetOraclePrice[]>();
    // A channel without a snapshot has no contents.
    expectTypeOf<ChannelContentsOf<(typeof NAMES)["assetOraclePrices"]>>().toBeUndefined();
    expectTypeOf<ChannelDataOf<(typeof NAMES)["walletTransfers"]>>().toEqualTypeOf<ChannelData<"walletTransfers">>();
    expectTypeOf<ChannelContentsOf<(typeof NAMES)["walletTransfers"]>>().toEqualTypeOf<ChannelSnapshot<"walletTransfers">>();
    // The run-time catalogue agrees on which of them have a snapshot.
    expect(channelHasSnapshot("marketDepth")).toBe(true);
    expect(channelHasSnapshot("walletOrderChanges")).toBe(true);
    expect(channelHasSnapshot("assetOraclePrices")).toBe(false);
  });

  it("a union of names types each of its channels: the data and the snapshot of either", () => {
    type Either = `/v2/market/${string}/depth` | "/v2/assetOraclePrices";
    expectTypeOf<ChannelKindOf<Either>>().toEqualTypeOf<"marketDepth" | "assetOraclePrices">();
    expectTypeOf<ChannelDataOf<Either>>().toEqualTypeOf<Depth | AssetOraclePrice[]>();
    expectTypeOf<ChannelContentsOf<Either>>().toEqualTypeOf<DepthSnapshot | undefined>();
    expect(parseChannel(NAMES.marketDepth)?.kind).toBe("marketDepth");
  });

  it("messages are read-only all the way down (shared by every handler; the simulator freezes them)", () => {
    const handler: StreamHandler<(typeof NAMES)["marketDepth"]> = (message) => {
      // @ts-expect-error a level list is read-only
      message.data.bids.push({ px: "1", qty: "1" });
      // @ts-expect-error so is a level
      message.data.bids[0]!.qty = "2";
    };
    const frozen = Object.freeze({ type: "channel_data", timestamp: 1, channel: NAMES.marketDepth, data: Object.freeze({ symbol: "BTCRUSDPERP", type: "UPDATE", bids: Object.freeze([Object.freeze({ px: "1", qty: "1" })]), asks: Object.freeze([]), updatedAt: 1 }) } as const);
    // At run time, as the simulator hands it: the attempt throws.
    expect(() => handler(frozen)).toThrow(TypeError);
  });

  it("channelName returns its kind's pattern, and builds the names above", () => {
    const depth = channelName("marketDepth", "BTCRUSDPERP");
    expectTypeOf(depth).toEqualTypeOf<`/v2/market/${string}/depth`>();
    expectTypeOf<ChannelDataOf<typeof depth>>().toEqualTypeOf<Depth>();
    expect(depth).toBe(NAMES.marketDepth);
    expect(channelName("walletOrderChanges", WALLET)).toBe(NAMES.walletOrderChanges);
    expect(channelName("assetOraclePrices")).toBe(NAMES.assetOraclePrices);
  });

  it("a subscription by a template name hands typed messages and a typed snapshot", () => {
    // Compile-time only: the handler's parameter and the frame are typed by the name, no cast.
    const subscribeDepth = async (stream: AgentStream, symbol: string) => {
      const frame = await stream.subscribe(`/v2/market/${symbol}/depth`, (message) => {
        expectTypeOf(message.data).toEqualTypeOf<DeepReadonly<Depth>>();
        expectTypeOf(message.timestamp).toEqualTypeOf<number>();
      });
      expectTypeOf(frame.contents).toEqualTypeOf<DeepReadonly<DepthSnapshot> | undefined>();
    };
    // A handler written for any channel (StreamChannelData) still fits any name.
    const subscribeAny = (stream: AgentStream, name: string, handler: (message: StreamChannelData) => void) => stream.subscribe(name, handler);
    expectTypeOf(subscribeAny).returns.resolves.toHaveProperty("channel");
    expect(typeof subscribeDepth).toBe("function");
  });
});
