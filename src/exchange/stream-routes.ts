/**
 * The Exchange's outputs routed to the channels of the streaming interface
 * (spec 6.1): one table for every driver. The live server fans the
 * channels out to WebSocket subscribers (src/live/stream-fanout.ts); the
 * simulator delivers them to agents through the kernel (src/sim).
 */
import type { ChannelKind } from "../spec/channels.ts";
import { walletKey } from "../risk/accounts.ts";
import type { ExchangeOutput } from "./outputs.ts";

/**
 * Where routed channel payloads go. Event feeds (`publish`, `publishItem`)
 * are sent at once, in order; latest-value feeds (`publishLatest`) may be
 * coalesced by the sink to the newest value of each channel per turn.
 */
export interface ChannelSink {
  /** Whether any channel of `kind` has a subscriber (checked before computing keys). */
  listening(kind: ChannelKind): boolean;
  /** `data` is the channel's payload. */
  publish(kind: ChannelKind, key: string, data: unknown): void;
  /** `[item]` is the channel's payload (array channels, one event). */
  publishItem(kind: ChannelKind, key: string, item: unknown): void;
  /** `data` is the channel's newest value (latest-value feeds). */
  publishLatest(kind: ChannelKind, key: string, data: unknown): void;
}

/**
 * The routing table: each output to the channels it belongs to.
 *
 * | output                     | channels                                                        |
 * |----------------------------|-----------------------------------------------------------------|
 * | order (onOrderChanges)     | /v2/wallet/{wallet}/orderChanges, [row]                         |
 * | order (IOC taker)          | none (spec 6.4)                                                 |
 * | perpExecution              | /v2/market/{symbol}/perpExecutions and each involved wallet's   |
 * |                            | /v2/wallet/{w}/perpExecutions, [record]                          |
 * | spotExecution              | .../spotExecutions likewise                                     |
 * | bust                       | /v2/market/{symbol}/executionBusts and wallets' executionBusts  |
 * | depth                      | /v2/market/{symbol}/depth, the UPDATE                           |
 * | positions                  | /v2/wallet/{wallet}/positions (latest value)                    |
 * | balances                   | /v2/wallet/{wallet}/accountBalances (latest value)              |
 * | transfer                   | /v2/wallet/{wallet}/transfers, [entry]                          |
 * | account                    | /v2/wallet/{wallet}/accounts, [notification]                    |
 * | perpSummaries              | /v2/perpMarkets/summary (array) and each                        |
 * |                            | /v2/perpMarket/{symbol}/summary (object), latest value          |
 * | spotSummaries              | /v2/spotMarkets/summary and /v2/spotMarket/{symbol}/summary     |
 * | oraclePrices               | /v2/assetOraclePrices (latest value)                            |
 * | block                      | none                                                            |
 *
 * Executions and busts are emitted by the Exchange when their block settles
 * or fails them, so the execution channels publish after settlement.
 */
export function routeOutput(output: ExchangeOutput, fanout: ChannelSink): void {
  switch (output.kind) {
    case "order":
      if (output.onOrderChanges) walletItem(fanout, "walletOrderChanges", output.wallet, output.row);
      return;
    case "perpExecution":
      fanout.publishItem("marketPerpExecutions", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletPerpExecutions", wallet, output.record);
      return;
    case "spotExecution":
      fanout.publishItem("marketSpotExecutions", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletSpotExecutions", wallet, output.record);
      return;
    case "bust":
      fanout.publishItem("marketExecutionBusts", output.symbol, output.record);
      for (const wallet of output.wallets) walletItem(fanout, "walletExecutionBusts", wallet, output.record);
      return;
    case "depth":
      fanout.publish("marketDepth", output.symbol, output.depth);
      return;
    case "positions":
      if (fanout.listening("walletPositions")) fanout.publishLatest("walletPositions", walletKey(output.wallet), output.positions);
      return;
    case "balances":
      if (fanout.listening("walletAccountBalances")) fanout.publishLatest("walletAccountBalances", walletKey(output.wallet), output.balances);
      return;
    case "transfer":
      walletItem(fanout, "walletTransfers", output.wallet, output.entry);
      return;
    case "account":
      walletItem(fanout, "walletAccounts", output.wallet, output.notification);
      return;
    case "perpSummaries":
      fanout.publishLatest("perpMarketsSummary", "", output.summaries);
      if (fanout.listening("perpMarketSummary")) for (const summary of output.summaries) fanout.publishLatest("perpMarketSummary", summary.symbol, summary);
      return;
    case "spotSummaries":
      fanout.publishLatest("spotMarketsSummary", "", output.summaries);
      if (fanout.listening("spotMarketSummary")) for (const summary of output.summaries) fanout.publishLatest("spotMarketSummary", summary.symbol, summary);
      return;
    case "oraclePrices":
      fanout.publishLatest("assetOraclePrices", "", output.prices);
      return;
    case "block":
      return;
  }
}

/** A one-item event on a wallet channel; the wallet is keyed lowercase (only when someone listens to the kind). */
function walletItem(fanout: ChannelSink, kind: ChannelKind, wallet: string, item: unknown): void {
  if (fanout.listening(kind)) fanout.publishItem(kind, walletKey(wallet), item);
}

