/**
 * The read models of the Exchange, in the wire shapes of the REST reads
 * (spec 4.1, and the routes the real service has that the spec leaves
 * unshown). Pure reads: nothing here changes state, so the live server may
 * call them at any time between inputs.
 *
 * Wallet reads cover every account the wallet owns. An unknown (but well
 * formed) wallet reads as empty, like the real service.
 */
import { decodeCursor, encodeCursor } from "../core/cursor.ts";
import { formatE18, toE18 } from "../core/decimal.ts";
import { microsToMillis } from "../core/time.ts";
import type { OrderUpdate } from "../engine/events.ts";
import type { HistoryQuery } from "../engine/history.ts";
import { depthMessage, openOrderRow, orderHistoryRow, type WireDepth, type WireOrder } from "../engine/wire.ts";
import type { AccountBalance, Position } from "../spec/account.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import type { SnapshotChannelKind } from "../spec/channels.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";
import type { TransferPage, TransferQuery } from "../settlement/ledger.ts";
import { compareIds } from "../core/ids.ts";
import type { Exchange } from "./exchange.ts";
import { ReadRequestError } from "./read-params.ts";

/** The kind of the orderHistory listing's cursors (core/cursor.ts). */
const ORDER_HISTORY_CURSOR = "o";

/** An orderHistory page (spec 2.13 OrderHistoryList). */
export interface OrderHistoryPage {
  data: WireOrder[];
  meta: { limit: number; startTime?: number; endTime?: number; nextCursor?: string };
}

export const EXECUTIONS_LIMIT_DEFAULT = 100;
export const EXECUTIONS_LIMIT_MAX = 1000;

/** Entries in the transfers channel's snapshot (the REST listing's default page). */
export const TRANSFERS_SNAPSHOT_ENTRIES = 100;

export class ExchangeQueries {
  constructor(private readonly exchange: Exchange) {}

  // -- definitions ------------------------------------------------------------------

  // Definitions are published with canonical decimals (DESIGN: outputs have no exponent and no trailing zeros),
  // not as the configuration spells them ("0.010", "1e5"); the risk layer and the engine checked every one at startup.

  perpMarketDefinitions() {
    return this.exchange.config.risk.perpMarkets.map((m) => ({
      symbol: m.symbol,
      marketId: m.marketId,
      minOrderQty: canonical(m.minOrderQty),
      qtyStepSize: canonical(m.qtyStepSize),
      tickSize: canonical(m.tickSize),
      liquidationMarginParameter: canonical(m.liquidationMarginParameter),
      initialMarginParameter: canonical(m.initialMarginParameter),
      maxLeverage: m.maxLeverage,
      oiCap: canonical(m.oiCap),
    }));
  }

  spotMarketDefinitions() {
    return this.exchange.config.risk.spotMarkets.map((m) => ({
      symbol: m.symbol,
      marketId: m.marketId,
      baseAsset: m.baseAsset,
      quoteAsset: m.quoteAsset,
      minOrderQty: canonical(m.minOrderQty),
      qtyStepSize: canonical(m.qtyStepSize),
      tickSize: canonical(m.tickSize),
    }));
  }

  assetDefinitions() {
    const assets = this.exchange.risk.state.assets;
    return this.exchange.config.risk.assets.map((a) => ({
      asset: a.asset,
      ...(a.spotMarketSymbol === undefined ? {} : { spotMarketSymbol: a.spotMarketSymbol }),
      priceHaircut: canonical(a.priceHaircut),
      liquidationDiscount: canonical(a.liquidationDiscount),
      status: assets.get(a.asset)?.status ?? a.status,
      decimals: a.decimals,
      displayDecimals: a.displayDecimals,
    }));
  }

  globalFeeParameters() {
    const { ogDiscount, refereeDiscount, referrerRebate, affiliateReferrerRebate } = this.exchange.config.risk.globalFees;
    return { ogDiscount: canonical(ogDiscount), refereeDiscount: canonical(refereeDiscount), referrerRebate: canonical(referrerRebate), affiliateReferrerRebate: canonical(affiliateReferrerRebate) };
  }

  /** The tiers as the risk layer parsed them: in the canonical order (REGULAR by volume30d, then VIP), canonical decimals, not the configuration's order and text. */
  feeTiers() {
    return this.exchange.risk.feeTierParameters();
  }

  // -- markets ---------------------------------------------------------------------------

  isPerp(symbol: string): boolean {
    return this.exchange.marketsBySymbol.get(symbol)?.kind === "perp";
  }

  isSpot(symbol: string): boolean {
    return this.exchange.marketsBySymbol.get(symbol)?.kind === "spot";
  }

  /** The latest computed summaries (computed every summary cadence; before the first, made now and not kept: a read changes nothing). */
  private summaries() {
    const risk = this.exchange.risk;
    return risk.latestSummaries() ?? risk.summariesAt(this.exchange.now());
  }

  perpMarketsSummary() {
    return [...this.summaries().markets];
  }

  perpMarketSummary(symbol: string) {
    return this.summaries().markets.find((summary) => summary.symbol === symbol);
  }

  spotMarketsSummary() {
    return [...this.summaries().spotMarkets];
  }

  spotMarketSummary(symbol: string) {
    return this.summaries().spotMarkets.find((summary) => summary.symbol === symbol);
  }

  /**
   * The REST depth view: the best `limit` levels per side (default 100, max
   * 1000), as a SNAPSHOT; undefined for a symbol that names no market. A
   * view the engine refuses (a limit off its range) throws its RequestError
   * as a ReadRequestError: it is not an unknown symbol.
   */
  depth(symbol: string, limit: number): WireDepth | undefined {
    const market = this.exchange.engine.marketBySymbol(symbol);
    if (market === undefined) return undefined;
    const view = this.exchange.engine.depth(market.marketId, limit);
    if (!view.ok) throw new ReadRequestError(view.error.code, view.error.message);
    return depthMessage(market, view, "SNAPSHOT");
  }

  /** The streaming depth SNAPSHOT: the top-100 view that later UPDATEs apply to. */
  depthStreamSnapshot(symbol: string): WireDepth | undefined {
    const market = this.exchange.engine.marketBySymbol(symbol);
    if (market === undefined) return undefined;
    return depthMessage(market, this.exchange.engine.depthStream(market.marketId).snapshot(), "SNAPSHOT");
  }

  /**
   * The `contents` of a subscription to a channel with a snapshot (spec
   * 6.2), as the live /ws and the simulator's in-process stream both send
   * it; undefined when there is none to take (a symbol without a depth
   * stream).
   * - depth: the SNAPSHOT of the top-100 stream view (what later UPDATEs
   *   apply to), not a fresh REST view;
   * - orderChanges: `{data: open orders (no sequenceNumber),
   *   snapshotSequenceNumber}`, the cursor being the sequenceNumber of the
   *   latest order event: every later row is strictly above it;
   * - transfers: `{data}`, the wallet's newest TRANSFERS_SNAPSHOT_ENTRIES
   *   entries, newest first.
   */
  channelSnapshot(kind: SnapshotChannelKind, key: string): unknown {
    switch (kind) {
      case "marketDepth":
        return this.depthStreamSnapshot(key);
      case "walletOrderChanges":
        return { data: this.openOrders(key), snapshotSequenceNumber: this.exchange.lastOrderSequenceNumber };
      case "walletTransfers":
        return { data: this.transfers(key, { limit: TRANSFERS_SNAPSHOT_ENTRIES }).data };
    }
  }

  assetOraclePrices() {
    return this.exchange.risk.assetOraclePrices(this.exchange.now());
  }

  perpExecutionsOfMarket(symbol: string, limit = EXECUTIONS_LIMIT_DEFAULT): PerpExecution[] {
    return this.exchange.perpExecutions.ofMarket(symbol, limit);
  }

  spotExecutionsOfMarket(symbol: string, limit = EXECUTIONS_LIMIT_DEFAULT): SpotExecution[] {
    return this.exchange.spotExecutions.ofMarket(symbol, limit);
  }

  bustsOfMarket(symbol: string, limit = EXECUTIONS_LIMIT_DEFAULT): ExecutionBust[] {
    return this.exchange.busts.ofMarket(symbol, limit);
  }

  // -- wallets ---------------------------------------------------------------------------

  accountIds(wallet: string): readonly number[] {
    return this.exchange.risk.accountsOf(wallet);
  }

  openOrders(wallet: string): WireOrder[] {
    return this.accountIds(wallet).flatMap((accountId) => this.exchange.engine.peekOpenOrders(accountId).map(openOrderRow));
  }

  /** orderHistory: newest first across the wallet's accounts, at most `limit` (<= 100), lastUpdateAt in [startTime, endTime]. */
  orderHistory(wallet: string, query: HistoryQuery & { limit: number }): WireOrder[] {
    return this.historyRows(wallet, query).slice(0, query.limit).map(orderHistoryRow);
  }

  /**
   * The orderHistory page (OrderHistoryList) of a REST read: `orderHistory`'s
   * rows, older than the row `cursor` names when given, and a meta that
   * echoes the limit and the time filters and carries `nextCursor` (kind
   * "o": the last row's sequenceNumber) when older rows match. The cursor
   * reaches rows that paging by endTime cannot: more than a page of rows
   * with one lastUpdateAt (a cancelAll's). Throws CursorError for a cursor
   * this listing did not issue.
   */
  orderHistoryPage(wallet: string, query: HistoryQuery & { limit: number; cursor?: string }): OrderHistoryPage {
    const rowsQuery: HistoryQuery & { limit: number } =
      query.cursor === undefined ? query : { ...query, beforeSequence: Number(decodeCursor(ORDER_HISTORY_CURSOR, query.cursor)) };
    const rows = this.historyRows(wallet, rowsQuery);
    const data = rows.slice(0, query.limit).map(orderHistoryRow);
    const meta: OrderHistoryPage["meta"] = { limit: query.limit };
    if (query.startTimeMs !== undefined) meta.startTime = query.startTimeMs;
    if (query.endTimeMs !== undefined) meta.endTime = query.endTimeMs;
    if (rows.length > query.limit) meta.nextCursor = encodeCursor(ORDER_HISTORY_CURSOR, data[data.length - 1]!.sequenceNumber!);
    return { data, meta };
  }

  /** Every matching history row of the wallet's accounts, newest first (at most limit + 1 per account: enough to fill a page and know whether more follow). */
  private historyRows(wallet: string, query: HistoryQuery & { limit: number }): OrderUpdate[] {
    const perAccount: HistoryQuery = { ...query, limit: query.limit + 1 };
    const rows = this.accountIds(wallet).flatMap((accountId) => this.exchange.history.rows(accountId, perAccount));
    rows.sort((a, b) => b.sequenceNumber - a.sequenceNumber);
    return rows;
  }

  transfers(wallet: string, query: TransferQuery): TransferPage {
    return this.exchange.ledger.list(this.accountIds(wallet), query);
  }

  perpExecutionsOfWallet(wallet: string, limit = EXECUTIONS_LIMIT_DEFAULT): PerpExecution[] {
    return this.exchange.perpExecutions.ofAccounts(this.accountIds(wallet), limit, (a, b) => b.sequenceNumber - a.sequenceNumber);
  }

  spotExecutionsOfWallet(wallet: string, limit = EXECUTIONS_LIMIT_DEFAULT): SpotExecution[] {
    return this.exchange.spotExecutions.ofAccounts(this.accountIds(wallet), limit, (a, b) => b.sequenceNumber - a.sequenceNumber);
  }

  bustsOfWallet(wallet: string, limit = EXECUTIONS_LIMIT_DEFAULT): ExecutionBust[] {
    return this.exchange.busts.ofAccounts(this.accountIds(wallet), limit, (a, b) => b.sequenceNumber - a.sequenceNumber || compareIds(b.fillId, a.fillId));
  }

  positions(wallet: string): Position[] {
    return this.exchange.positionsOfWallet(wallet);
  }

  accountBalances(wallet: string): AccountBalance[] {
    return this.exchange.balancesOfWallet(wallet);
  }

  /** The wallet's accounts (the accounts route is "not shown" in the spec: accountId, owner and signers). */
  accounts(wallet: string) {
    const state = this.exchange.risk.state;
    return this.accountIds(wallet).map((accountId) => {
      const account = state.accounts.get(accountId)!;
      return { accountId, ownerWallet: account.wallet.address, signers: [...account.signers].sort() };
    });
  }

  walletConfiguration(wallet: string) {
    // An unknown wallet reads as a new one would: the default tier, which need not be listed first.
    if (!this.exchange.risk.hasWallet(wallet)) return this.exchange.risk.defaultWalletConfiguration();
    return this.exchange.risk.walletConfiguration(wallet, this.exchange.now());
  }

  /** ms of the Exchange's clock (for frames that carry a timestamp). */
  nowMs(): number {
    return microsToMillis(this.exchange.now());
  }
}

/** The canonical text of a configured, already checked, unsigned decimal (at most 18 fraction digits). */
function canonical(text: string): string {
  return formatE18(toE18(text, "definition", { signed: false }));
}
