/**
 * The channel catalogue of the streaming interface (spec 6.1, 6.2): each
 * channel's name template, its parameter, the schema of its `data` payload
 * and the schema of its subscription snapshot (`contents`), if it has one.
 */
import { z } from "zod";
import { AccountBalance, AccountNotification, Position, Transfer, TransfersSnapshot } from "./account.ts";
import { ExecutionBust } from "./bust.ts";
import { Depth, DepthSnapshot } from "./depth.ts";
import { PerpExecution, SpotExecution } from "./execution.ts";
import { AssetOraclePrice, MarketSummary, SpotMarketSummary } from "./market.ts";
import { Order, OrderChangesSnapshot } from "./order.ts";

/** The parameter a channel name template takes. */
export type ChannelParam = "none" | "symbol" | "address";

/** One row of the catalogue. */
export interface ChannelSpec {
  /** Name template; `{symbol}` or `{address}` marks the parameter. */
  readonly template: string;
  readonly param: ChannelParam;
  /** Schema of `channel_data.data`. */
  readonly data: z.ZodType;
  /** Schema of `subscribed.contents`, or null when the channel has no initial snapshot. */
  readonly snapshot: z.ZodType | null;
}

/**
 * The 17 channels of spec 6.1, keyed by kind. The kinds are shadowbook's
 * names: the template's words in camel case, prefixed by `market` or
 * `wallet` where the spec reuses a leaf name under both.
 *
 * The payloads the spec does not show are shadowbook's choice: transfers
 * carries an array of Transfer and accounts an array of AccountNotification,
 * like the other wallet event channels. Only depth, orderChanges and
 * transfers have a snapshot (spec 6.2).
 */
export const CHANNELS = {
  perpMarketsSummary: { template: "/v2/perpMarkets/summary", param: "none", data: z.array(MarketSummary), snapshot: null },
  perpMarketSummary: { template: "/v2/perpMarket/{symbol}/summary", param: "symbol", data: MarketSummary, snapshot: null },
  spotMarketsSummary: { template: "/v2/spotMarkets/summary", param: "none", data: z.array(SpotMarketSummary), snapshot: null },
  spotMarketSummary: { template: "/v2/spotMarket/{symbol}/summary", param: "symbol", data: SpotMarketSummary, snapshot: null },
  marketPerpExecutions: {
    template: "/v2/market/{symbol}/perpExecutions",
    param: "symbol",
    data: z.array(PerpExecution),
    snapshot: null,
  },
  marketSpotExecutions: {
    template: "/v2/market/{symbol}/spotExecutions",
    param: "symbol",
    data: z.array(SpotExecution),
    snapshot: null,
  },
  marketExecutionBusts: {
    template: "/v2/market/{symbol}/executionBusts",
    param: "symbol",
    data: z.array(ExecutionBust),
    snapshot: null,
  },
  marketDepth: { template: "/v2/market/{symbol}/depth", param: "symbol", data: Depth, snapshot: DepthSnapshot },
  assetOraclePrices: { template: "/v2/assetOraclePrices", param: "none", data: z.array(AssetOraclePrice), snapshot: null },
  walletPositions: { template: "/v2/wallet/{address}/positions", param: "address", data: z.array(Position), snapshot: null },
  walletOrderChanges: {
    template: "/v2/wallet/{address}/orderChanges",
    param: "address",
    data: z.array(Order),
    snapshot: OrderChangesSnapshot,
  },
  walletPerpExecutions: {
    template: "/v2/wallet/{address}/perpExecutions",
    param: "address",
    data: z.array(PerpExecution),
    snapshot: null,
  },
  walletSpotExecutions: {
    template: "/v2/wallet/{address}/spotExecutions",
    param: "address",
    data: z.array(SpotExecution),
    snapshot: null,
  },
  walletExecutionBusts: {
    template: "/v2/wallet/{address}/executionBusts",
    param: "address",
    data: z.array(ExecutionBust),
    snapshot: null,
  },
  walletAccountBalances: {
    template: "/v2/wallet/{address}/accountBalances",
    param: "address",
    data: z.array(AccountBalance),
    snapshot: null,
  },
  walletTransfers: {
    template: "/v2/wallet/{address}/transfers",
    param: "address",
    data: z.array(Transfer),
    snapshot: TransfersSnapshot,
  },
  walletAccounts: {
    template: "/v2/wallet/{address}/accounts",
    param: "address",
    data: z.array(AccountNotification),
    snapshot: null,
  },
} as const satisfies Record<string, ChannelSpec>;

type Catalogue = typeof CHANNELS;
export type ChannelKind = keyof Catalogue;
/** Kinds whose name has no parameter. */
export type PlainChannelKind = { [K in ChannelKind]: Catalogue[K]["param"] extends "none" ? K : never }[ChannelKind];
/** Kinds whose name takes a market symbol. */
export type SymbolChannelKind = { [K in ChannelKind]: Catalogue[K]["param"] extends "symbol" ? K : never }[ChannelKind];
/** Kinds whose name takes a wallet address. */
export type AddressChannelKind = { [K in ChannelKind]: Catalogue[K]["param"] extends "address" ? K : never }[ChannelKind];
/** Kinds whose subscription carries a snapshot in `contents`. */
export type SnapshotChannelKind = {
  [K in ChannelKind]: Catalogue[K]["snapshot"] extends null ? never : K;
}[ChannelKind];

/** The `data` payload type of a channel kind. */
export type ChannelData<K extends ChannelKind> = z.infer<Catalogue[K]["data"]>;
/** The `contents` snapshot type of a channel kind with a snapshot. */
export type ChannelSnapshot<K extends SnapshotChannelKind> = z.infer<NonNullable<Catalogue[K]["snapshot"]>>;

/** Every channel kind, in the spec's order (iterate this, not the object). */
export const CHANNEL_KINDS: readonly ChannelKind[] = [
  "perpMarketsSummary",
  "perpMarketSummary",
  "spotMarketsSummary",
  "spotMarketSummary",
  "marketPerpExecutions",
  "marketSpotExecutions",
  "marketExecutionBusts",
  "marketDepth",
  "assetOraclePrices",
  "walletPositions",
  "walletOrderChanges",
  "walletPerpExecutions",
  "walletSpotExecutions",
  "walletExecutionBusts",
  "walletAccountBalances",
  "walletTransfers",
  "walletAccounts",
];

/** True when a channel's subscription carries a snapshot (depth, orderChanges, transfers). */
export function channelHasSnapshot(kind: ChannelKind): kind is SnapshotChannelKind {
  return CHANNELS[kind].snapshot !== null;
}

/**
 * A name template with its parameter as `${string}`:
 * "/v2/market/{symbol}/depth" -> `/v2/market/${string}/depth`.
 */
type NamePattern<Template extends string> = Template extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Tail}` : Template;

/** The names of a channel kind, as a type: `/v2/market/${string}/depth` for "marketDepth" (what channelName returns). */
export type ChannelNameOf<K extends ChannelKind> = NamePattern<Catalogue[K]["template"]>;

/**
 * The channel kind a channel name is, read from its text at compile time:
 * `/v2/market/BTCRUSDPERP/depth` is "marketDepth", `/v2/perpMarkets/summary`
 * is "perpMarketsSummary". `never` for a name that matches no template, and
 * for a name whose text is not known until run time (a plain `string`). A
 * name that matches a template may still be refused at run time (an empty
 * or unknown symbol: parseChannel and the exchange decide that).
 *
 * No name matches two templates: the templates differ in a fixed part
 * around the parameter (`/v2/perpMarket/` is not a prefix of
 * `/v2/perpMarkets/summary`).
 */
export type ChannelKindOf<Name extends string> = {
  [K in ChannelKind]: Name extends NamePattern<Catalogue[K]["template"]> ? K : never;
}[ChannelKind];

/**
 * The `data` payload type of the channel named `Name` (CHANNELS[kind].data),
 * or `unknown` when the name's text is not known at compile time. This is
 * the spec's shape of what the server sends: the in-process stream hands
 * the exchange's own values, and the live stream (client/transports/
 * ws-stream.ts) hands the decoded JSON without validating it, as a typed
 * client of a trusted server does. The enumerations are the spec's closed
 * ones, which "may gain members" (spec 10): a program that may meet a newer
 * server than shadowbook models should treat an unknown value as possible
 * (the REST reads decode open enums for this: client/decode.ts
 * TolerantOrder).
 */
export type ChannelDataOf<Name extends string> = [ChannelKindOf<Name>] extends [never] ? unknown : ChannelData<ChannelKindOf<Name>>;

/**
 * The `subscribed.contents` type of the channel named `Name`: its snapshot
 * (depth, orderChanges, transfers), `undefined` for a channel without one,
 * `unknown` when the name's text is not known at compile time.
 */
export type ChannelContentsOf<Name extends string> = [ChannelKindOf<Name>] extends [never] ? unknown : SnapshotOfKind<ChannelKindOf<Name>>;

/** Distributes over a union of kinds: `"marketDepth" | "assetOraclePrices"` gives `DepthSnapshot | undefined`. */
type SnapshotOfKind<K extends ChannelKind> = K extends SnapshotChannelKind ? ChannelSnapshot<K> : undefined;
