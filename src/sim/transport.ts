/**
 * The in-process transport: one agent's connection to the simulated
 * exchange, through the kernel, with the agent's latency models.
 *
 * | what                | leaves at    | reaches the exchange      | comes back                     |
 * |---------------------|--------------|---------------------------|--------------------------------|
 * | order entry request | ctx.now()    | + orderEntry latency      | answer + responses latency     |
 * | REST read           | ctx.now()    | + orderEntry latency      | result + responses latency     |
 * | stream subscribe    | ctx.now()    | + orderEntry latency      | `subscribed` + marketData lat. |
 * | channel_data        | when emitted | -                         | + marketData latency           |
 *
 * Each direction keeps its order (OrderedPath), as one WebSocket would.
 * A response the Exchange drops (the dropResponses fault) never comes back:
 * the request fails with a transport error after `requestTimeoutMicros`,
 * so the client reports that the outcome is unknown, as it would live.
 *
 * A REST read the live server would answer with an HTTP 400 RequestError
 * rejects with the client SDK's RequestFailedError (`code`, and
 * `requestError` `{error, message}` as the live body carries them), as the
 * ReadTransport contract says (src/client/transport.ts); its `operation` is
 * the ReadTransport method's name. The parameters are checked as the live
 * REST route checks them, in its order and with its code and message
 * (src/exchange/read-params.ts, shared with src/live/rest.ts): the wallet
 * address or symbol, then `limit`, `startTime`/`endTime` (integers, start
 * not after end) and `cursor`, then whether the symbol names a market (of
 * the route's kind: SYMBOL_NOT_FOUND_ERROR). Each read answers with the
 * ExchangeQueries read model the live route answers with, paged by the
 * same recordsPage.
 *
 * Promises settle inside kernel events; the world's `pendingContinuations`
 * flag tells the runner to let their continuations run before time moves.
 */
import { ConnectionError, SubscribeFailedError } from "../client/errors.ts";
import { CursorError } from "../core/cursor.ts";
import { RequestFailedError } from "../client/errors.ts";
import type {
  DepthQuery,
  ExecutionsQuery,
  OrderEntryRequestBodies,
  OrderEntryResponse,
  OrderEntryTransport,
  OrderHistoryQuery,
  ReadTransport,
  TransfersQuery,
} from "../client/transport.ts";
import type { TolerantOrder, TolerantOrderHistoryList, TolerantPerpExecutionList, TolerantSpotExecutionList } from "../client/decode.ts";
import type { Micros } from "../core/time.ts";
import { EXECUTIONS_LIMIT_DEFAULT, EXECUTIONS_LIMIT_MAX } from "../exchange/queries.ts";
import { resolveChannel, type Channel, type ResolvedChannel } from "../exchange/stream-channels.ts";
import type { OrderEntryOperation } from "../exchange/inputs.ts";
import {
  checkAddressParam,
  checkCursor,
  checkLimit,
  checkMarket,
  checkSymbolParam,
  checkTimeRange,
  checkTransferType,
  integerValue,
  ReadRequestError,
  recordsPage,
} from "../exchange/read-params.ts";
import { TRANSFER_PAGE_LIMIT_DEFAULT, TRANSFER_PAGE_LIMIT_MAX, type TransferQuery } from "../settlement/ledger.ts";
import type { AccountBalance, Position, TransferList, WalletAccount } from "../spec/account.ts";
import type { ExecutionBustList } from "../spec/bust.ts";
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
import { channelHasSnapshot } from "../spec/channels.ts";
import type { Depth } from "../spec/depth.ts";
import { DEPTH_REST_LIMIT_DEFAULT, DEPTH_REST_LIMIT_MAX } from "../spec/limits.ts";
import { STREAM_ERROR_INVALID_CHANNEL_NAME, streamSnapshotErrorMessage, type RequestErrorCode } from "../spec/errors.ts";
import type { ChannelSubscribed, StreamChannelData, StreamSubscribed } from "../spec/stream-envelopes.ts";
import type { AgentStream, StreamHandler } from "./agent.ts";
import { OrderedPath } from "./latency.ts";
import { deepFreeze, type StreamReceiver, type SimWorld } from "./world.ts";

/** orderHistory's REST page size (spec 4.1: default and maximum 100). */
const ORDER_HISTORY_LIMIT = 100;

/** What the connection calls when agent code must run (a settled promise, a message handler). */
export interface AgentRuntime {
  /** Runs agent code, lets its promise continuations run before time moves, and fails the run on an error. */
  invoke(what: string, body: () => unknown): void;
  /** A promise was settled inside this event: its continuations must run before time moves. */
  settled(): void;
}

export interface ConnectionOptions {
  world: SimWorld;
  runtime: AgentRuntime;
  outbound: OrderedPath;
  inbound: OrderedPath;
  marketData: OrderedPath;
  /** How long a request waits for an answer that never comes (a dropped response). Default 10 s. */
  requestTimeoutMicros?: Micros;
}

export class InProcessConnection implements OrderEntryTransport, ReadTransport, AgentStream, StreamReceiver {
  private readonly world: SimWorld;
  private readonly runtime: AgentRuntime;
  /**
   * The agent's side: the handler of each channel name, installed when the
   * `subscribed` answer arrives and removed at once by `unsubscribe` (as the
   * SDK's live stream keeps them: client/transports/ws-stream.ts).
   */
  private readonly handlers = new Map<string, StreamHandler>();
  /** The sequence number of the latest unsubscribe of each channel name: a `subscribed` answer to an older subscribe installs no handler. */
  private readonly unsubscribedAt = new Map<string, number>();
  private streamSeq = 0;
  /** The exchange's side: the channels this connection is registered on, by the name subscribed. */
  private readonly subscriptions = new Map<string, Channel<StreamReceiver>>();
  private readonly timeoutMicros: Micros;

  constructor(private readonly options: ConnectionOptions) {
    this.world = options.world;
    this.runtime = options.runtime;
    this.timeoutMicros = options.requestTimeoutMicros ?? 10_000_000;
  }

  // -- order entry ----------------------------------------------------------------------

  request<Op extends OrderEntryOperation>(operation: Op, body: OrderEntryRequestBodies[Op]): Promise<OrderEntryResponse> {
    return new Promise((resolve, reject) => {
      const kernel = this.world.kernel;
      kernel.schedule(this.options.outbound.arrival(kernel.now()), () => {
        const answer = this.world.handle({ kind: "request", op: operation, body });
        if (answer.responseDropped === true) {
          kernel.schedule(kernel.now() + this.timeoutMicros, () => {
            this.runtime.settled();
            reject(new ConnectionError(`no answer to ${operation} within ${this.timeoutMicros / 1_000} ms`));
          });
          return;
        }
        // The Exchange's own answers, already of their spec types: `typed`, so the client does not decode them (client/transport.ts).
        const response: OrderEntryResponse = answer.ok ? { ok: true, payload: answer.payload, typed: true } : { ok: false, error: answer.error, typed: true };
        kernel.schedule(this.options.inbound.arrival(kernel.now()), () => {
          this.runtime.settled();
          resolve(response);
        });
      });
    });
  }

  // -- REST reads -----------------------------------------------------------------------

  /**
   * Runs `read` (the ReadTransport method `name`) at the exchange after the
   * outbound latency; its result, or its refusal as a RequestFailedError,
   * comes back after the inbound latency. The result is deeply frozen, as
   * stream messages are (world.ts): reads hand over the Exchange's own
   * records (executions, ledger entries, the latest summaries), which other
   * agents' reads and streams share; an agent that modifies one gets a
   * TypeError instead of changing them (live, each answer is parsed anew).
   */
  private read<T>(name: keyof ReadTransport, read: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const kernel = this.world.kernel;
      kernel.schedule(this.options.outbound.arrival(kernel.now()), () => {
        let result: T;
        let failure: Error | undefined;
        try {
          result = read();
          deepFreeze(result);
        } catch (error) {
          failure = readFailure(name, error);
        }
        kernel.schedule(this.options.inbound.arrival(kernel.now()), () => {
          this.runtime.settled();
          if (failure !== undefined) reject(failure);
          else resolve(result);
        });
      });
    });
  }

  openOrders(wallet: string): Promise<readonly TolerantOrder[]> {
    return this.read("openOrders", () => this.world.queries.openOrders(checkAddressParam(wallet)) as TolerantOrder[]);
  }

  orderHistory(wallet: string, query: OrderHistoryQuery = {}): Promise<TolerantOrderHistoryList> {
    return this.read("orderHistory", () => {
      checkAddressParam(wallet);
      const { startTime, endTime } = timeFilter(query);
      checkCursor(query.cursor);
      return this.world.queries.orderHistoryPage(wallet, {
        limit: ORDER_HISTORY_LIMIT,
        ...(startTime === undefined ? {} : { startTimeMs: startTime }),
        ...(endTime === undefined ? {} : { endTimeMs: endTime }),
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      }) as TolerantOrderHistoryList;
    });
  }

  depth(symbol: string, query: DepthQuery = {}): Promise<Depth> {
    return this.read("depth", () => {
      checkSymbolParam(symbol);
      const given = integerValue("limit", query.limit);
      const limit = given === undefined ? DEPTH_REST_LIMIT_DEFAULT : checkLimit(given, DEPTH_REST_LIMIT_MAX);
      return this.world.queries.depth(checkMarket(this.world.exchange.marketsBySymbol, symbol), limit) as Depth;
    });
  }

  positions(wallet: string): Promise<readonly Position[]> {
    return this.read("positions", () => this.world.queries.positions(checkAddressParam(wallet)));
  }

  balances(wallet: string): Promise<readonly AccountBalance[]> {
    return this.read("balances", () => this.world.queries.accountBalances(checkAddressParam(wallet)));
  }

  /** The `{data, meta}` page GET /v2/wallet/{address}/perpExecutions answers (src/live/rest.ts `records`): newest first, filtered by time, cut to the limit. */
  perpExecutions(wallet: string, query: ExecutionsQuery = {}): Promise<TolerantPerpExecutionList> {
    return this.read("perpExecutions", () => this.walletRecords(wallet, query, (count) => this.world.queries.perpExecutionsOfWallet(wallet, count)) as TolerantPerpExecutionList);
  }

  /** GET /v2/wallet/{address}/spotExecutions, as perpExecutions. */
  spotExecutions(wallet: string, query: ExecutionsQuery = {}): Promise<TolerantSpotExecutionList> {
    return this.read("spotExecutions", () => this.walletRecords(wallet, query, (count) => this.world.queries.spotExecutionsOfWallet(wallet, count)) as TolerantSpotExecutionList);
  }

  /**
   * GET /v2/wallet/{address}/transfers: the ledger's page (newest first,
   * meta.nextCursor when older entries match), its parameters checked in
   * the route's order: address, limit, startTime/endTime, cursor, type.
   */
  transfers(wallet: string, query: TransfersQuery = {}): Promise<TransferList> {
    return this.read("transfers", () => {
      checkAddressParam(wallet);
      const given = integerValue("limit", query.limit);
      const limit = given === undefined ? TRANSFER_PAGE_LIMIT_DEFAULT : checkLimit(given, TRANSFER_PAGE_LIMIT_MAX);
      const { startTime, endTime } = timeFilter(query);
      checkCursor(query.cursor);
      checkTransferType(query.type);
      const ledgerQuery: TransferQuery = { limit };
      if (query.type !== undefined) ledgerQuery.type = query.type;
      if (startTime !== undefined) ledgerQuery.startTime = startTime;
      if (endTime !== undefined) ledgerQuery.endTime = endTime;
      if (query.cursor !== undefined) ledgerQuery.cursor = query.cursor;
      return this.world.queries.transfers(wallet, ledgerQuery) as TransferList;
    });
  }

  perpMarketsSummary(): Promise<readonly MarketSummary[]> {
    return this.read("perpMarketsSummary", () => this.world.queries.perpMarketsSummary() as MarketSummary[]);
  }

  perpMarketSummary(symbol: string): Promise<MarketSummary> {
    return this.read("perpMarketSummary", () => this.world.queries.perpMarketSummary(checkMarket(this.world.exchange.marketsBySymbol, checkSymbolParam(symbol), "perp")) as MarketSummary);
  }

  spotMarketsSummary(): Promise<readonly SpotMarketSummary[]> {
    return this.read("spotMarketsSummary", () => this.world.queries.spotMarketsSummary() as SpotMarketSummary[]);
  }

  spotMarketSummary(symbol: string): Promise<SpotMarketSummary> {
    return this.read("spotMarketSummary", () => this.world.queries.spotMarketSummary(checkMarket(this.world.exchange.marketsBySymbol, checkSymbolParam(symbol), "spot")) as SpotMarketSummary);
  }

  perpMarketDefinitions(): Promise<readonly MarketDefinition[]> {
    return this.read("perpMarketDefinitions", () => this.world.queries.perpMarketDefinitions());
  }

  spotMarketDefinitions(): Promise<readonly SpotMarketDefinition[]> {
    return this.read("spotMarketDefinitions", () => this.world.queries.spotMarketDefinitions());
  }

  assetDefinitions(): Promise<readonly AssetDefinition[]> {
    return this.read("assetDefinitions", () => this.world.queries.assetDefinitions());
  }

  globalFeeParameters(): Promise<GlobalFeeParameters> {
    return this.read("globalFeeParameters", () => this.world.queries.globalFeeParameters());
  }

  feeTiers(): Promise<readonly FeeTierParameters[]> {
    return this.read("feeTiers", () => this.world.queries.feeTiers() as FeeTierParameters[]);
  }

  assetOraclePrices(): Promise<readonly AssetOraclePrice[]> {
    return this.read("assetOraclePrices", () => this.world.queries.assetOraclePrices() as AssetOraclePrice[]);
  }

  /** GET /v2/market/{symbol}/perpExecutions: a `{data, meta}` page, as perpExecutions; a spot symbol is SYMBOL_NOT_FOUND_ERROR. */
  marketPerpExecutions(symbol: string, query: ExecutionsQuery = {}): Promise<TolerantPerpExecutionList> {
    return this.read("marketPerpExecutions", () => this.marketRecords(symbol, "perp", query, (market, count) => this.world.queries.perpExecutionsOfMarket(market, count)) as TolerantPerpExecutionList);
  }

  /** GET /v2/market/{symbol}/spotExecutions: as marketPerpExecutions; a perp symbol is SYMBOL_NOT_FOUND_ERROR. */
  marketSpotExecutions(symbol: string, query: ExecutionsQuery = {}): Promise<TolerantSpotExecutionList> {
    return this.read("marketSpotExecutions", () => this.marketRecords(symbol, "spot", query, (market, count) => this.world.queries.spotExecutionsOfMarket(market, count)) as TolerantSpotExecutionList);
  }

  /** GET /v2/market/{symbol}/executionBusts: a `{data, meta}` page of a market of either kind. */
  marketExecutionBusts(symbol: string, query: ExecutionsQuery = {}): Promise<ExecutionBustList> {
    return this.read("marketExecutionBusts", () => this.marketRecords(symbol, undefined, query, (market, count) => this.world.queries.bustsOfMarket(market, count)));
  }

  /** GET /v2/wallet/{address}/executionBusts: a `{data, meta}` page, as perpExecutions. */
  walletExecutionBusts(wallet: string, query: ExecutionsQuery = {}): Promise<ExecutionBustList> {
    return this.read("walletExecutionBusts", () => this.walletRecords(wallet, query, (count) => this.world.queries.bustsOfWallet(wallet, count)));
  }

  walletAccounts(wallet: string): Promise<readonly WalletAccount[]> {
    return this.read("walletAccounts", () => this.world.queries.accounts(checkAddressParam(wallet)));
  }

  walletConfiguration(wallet: string): Promise<WalletConfiguration> {
    return this.read("walletConfiguration", () => this.world.queries.walletConfiguration(checkAddressParam(wallet)) as WalletConfiguration);
  }

  /** A wallet's `{data, meta}` page of timestamped records: the address checked, then the query. */
  private walletRecords<T extends { timestamp: number }>(wallet: string, query: ExecutionsQuery, fetch: (count: number) => T[]) {
    checkAddressParam(wallet);
    return this.records(query, fetch);
  }

  /**
   * A market's `{data, meta}` page of timestamped records: the symbol's
   * pattern checked, then the query, then whether it names a market of
   * `kind` (any kind when undefined), in src/live/rest.ts's order.
   */
  private marketRecords<T extends { timestamp: number }>(symbol: string, kind: "perp" | "spot" | undefined, query: ExecutionsQuery, fetch: (symbol: string, count: number) => T[]) {
    checkSymbolParam(symbol);
    return this.records(query, (count) => fetch(checkMarket(this.world.exchange.marketsBySymbol, symbol, kind), count));
  }

  /** The `{data, meta}` page of timestamped records (read-params.ts recordsPage, as src/live/rest.ts answers it), `limit` and the time filter checked as the route checks them. */
  private records<T extends { timestamp: number }>(query: ExecutionsQuery, fetch: (count: number) => T[]) {
    const given = integerValue("limit", query.limit);
    const limit = given === undefined ? EXECUTIONS_LIMIT_DEFAULT : checkLimit(given, EXECUTIONS_LIMIT_MAX);
    return recordsPage(fetch, { limit, ...timeFilter(query) }, this.world.exchange.config.recordsRetained);
  }

  // -- streaming ------------------------------------------------------------------------

  /**
   * Subscribes: registered at the exchange after the outbound latency
   * (snapshot and registration in one step), answered after the
   * market-data latency. `onMessage` gets the channel's messages from the
   * answer on, unless `unsubscribe(channel)` was called after this
   * subscribe; until the answer, a handler held before keeps getting them.
   * A refusal also ends the handler held before when the exchange rolled
   * the subscription back (a failed snapshot), as the SDK's live stream does.
   */
  subscribe<Name extends string>(channel: Name, onMessage: StreamHandler<Name>): Promise<ChannelSubscribed<Name>> {
    const seq = ++this.streamSeq;
    return new Promise((resolve, reject) => {
      const kernel = this.world.kernel;
      kernel.schedule(this.options.outbound.arrival(kernel.now()), () => {
        const answer = this.register(channel);
        kernel.schedule(this.options.marketData.arrival(kernel.now()), () => {
          this.runtime.settled();
          if (answer.ok) {
            // Kept in the map of every channel's handlers; it gets only this channel's messages, which are of the type it declares.
            if ((this.unsubscribedAt.get(channel) ?? 0) < seq) this.handlers.set(channel, onMessage as unknown as StreamHandler);
            resolve(answer.subscribed as ChannelSubscribed<Name>);
            return;
          }
          this.handlers.delete(channel);
          for (const name of answer.dropped) this.handlers.delete(name);
          // As the live stream refuses it (client/transports/ws-stream.ts): an agent's `instanceof` works in both.
          reject(new SubscribeFailedError(channel, answer.error));
        });
      });
    });
  }

  /**
   * Unsubscribes. The agent's handler stops at once: nothing of the channel
   * reaches it after this call, not even a message the exchange sent before
   * it processed the unsubscribe (still in flight for the market-data
   * latency), until a later subscribe's answer. The exchange stops sending
   * after the outbound latency.
   *
   * This is what an agent sees live (the choice, s22): the /ws server
   * (src/live/stream.ts) sends a channel's updates until it processes the
   * unsubscribe, then answers `unsubscribed`, so those updates do reach the
   * socket; but the SDK's stream (client/transports/ws-stream.ts), through
   * which an agent runs live, drops them: it removes the handler when
   * `unsubscribe` is called. The in-process stream is the agent's side of
   * the same interface, so it drops them too. (It used to keep the handler
   * until the exchange processed the unsubscribe: an agent got messages
   * after unsubscribing, and one that subscribed again got the old
   * subscription's in-flight messages on its new handler, before its
   * snapshot.)
   */
  unsubscribe(channel: string): void {
    this.handlers.delete(channel);
    this.unsubscribedAt.set(channel, ++this.streamSeq);
    const kernel = this.world.kernel;
    kernel.schedule(this.options.outbound.arrival(kernel.now()), () => {
      const registered = this.subscriptions.get(channel);
      if (registered === undefined) return;
      this.world.channels.remove(registered, this);
      this.subscriptions.delete(channel);
    });
  }

  /**
   * At the exchange: resolves the name, takes the snapshot and registers, in
   * one step (nothing missed, nothing repeated). The `subscribed` answer is
   * deeply frozen, snapshot included, as every stream message is (world.ts):
   * an agent that modifies it gets a TypeError instead of changing what
   * another agent receives, or the Exchange's records (live, each client
   * parses its own copy). A failed snapshot rolls the subscription back,
   * also one held before, as the live /ws does (src/live/stream.ts):
   * `dropped` names it, and its handler gets nothing after the refusal
   * arrives.
   */
  private register(name: string): { ok: true; subscribed: StreamSubscribed } | { ok: false; error: string; dropped: string[] } {
    const resolved = resolveChannel(name, this.world.exchange.marketsBySymbol);
    if (resolved === undefined) return { ok: false, error: STREAM_ERROR_INVALID_CHANNEL_NAME, dropped: [] };
    let contents: unknown;
    if (channelHasSnapshot(resolved.kind)) {
      if (!this.world.exchange.faults.active("engineUnavailable", this.world.now())) contents = this.world.queries.channelSnapshot(resolved.kind, resolved.key);
      if (contents === undefined) return { ok: false, error: streamSnapshotErrorMessage(name), dropped: this.drop(resolved) };
    }
    this.subscriptions.set(name, this.world.channels.add(resolved, this, name));
    const answer: StreamSubscribed = contents === undefined ? { type: "subscribed", channel: name } : { type: "subscribed", channel: name, contents };
    // Deeply frozen, as stream messages are (world.ts): the transfers snapshot holds the ledger's own entries,
    // which the other agents' snapshots, their transfers messages and the reads share.
    deepFreeze(answer);
    return { ok: true, subscribed: answer };
  }

  /** Ends this connection's subscription to the channel, if it holds one (under any spelling of its name); the names it was held under. */
  private drop(resolved: ResolvedChannel): string[] {
    const held = this.world.channels.find(resolved.kind, resolved.key);
    if (held === undefined || !held.subscribers.has(this)) return [];
    this.world.channels.remove(held, this);
    const names: string[] = [];
    for (const [name, channel] of this.subscriptions) {
      if (channel !== held) continue;
      this.subscriptions.delete(name);
      names.push(name);
    }
    return names;
  }


  /** From the world: a message of a subscribed channel, handed to the agent after the market-data latency. */
  receive(message: StreamChannelData): void {
    const kernel = this.world.kernel;
    kernel.schedule(this.options.marketData.arrival(kernel.now()), () => {
      const handler = this.handlers.get(message.channel);
      if (handler !== undefined) this.runtime.invoke(`stream ${message.channel}`, () => handler(message));
    });
  }
}

/** `startTime`/`endTime` of a read's query, checked as the REST route checks them (integers, start not after end). */
function timeFilter(query: { startTime?: number; endTime?: number }): { startTime?: number; endTime?: number } {
  const startTime = integerValue("startTime", query.startTime);
  const endTime = integerValue("endTime", query.endTime);
  checkTimeRange(startTime, endTime);
  return { ...(startTime === undefined ? {} : { startTime }), ...(endTime === undefined ? {} : { endTime }) };
}

/**
 * A read's failure as the SDK reports it: a refusal (ReadRequestError, or a
 * cursor the listing did not issue) is the RequestFailedError of the
 * RequestError the live server answers with; anything else stays as thrown.
 */
function readFailure(name: keyof ReadTransport, error: unknown): Error {
  let refusal: { error: RequestErrorCode; message: string } | undefined;
  if (error instanceof ReadRequestError) refusal = { error: error.code, message: error.message };
  else if (error instanceof CursorError) refusal = { error: "INPUT_VALIDATION_ERROR", message: error.message };
  if (refusal === undefined) return error as Error;
  // `operation`: the read's name, as the SDK's read transports give it (cast while its type names order entry only).
  return new RequestFailedError(name as string as OrderEntryOperation, refusal, 1);
}
