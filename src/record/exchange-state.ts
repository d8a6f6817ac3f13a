/**
 * The whole state of an Exchange as plain JSON data: what `shadowbook replay
 * --until` writes, so an incident can be read at the moment before it.
 *
 * Pure reads (nothing here changes the Exchange: calling it between two
 * inputs leaves the run's outputs and fingerprint unchanged), deterministic
 * (keys in a fixed order, lists sorted by id or in book/queue order), and
 * decimals as canonical strings. Where a REST read exists the wire shape is
 * the REST one: open orders are `/v2/wallet/{address}/openOrders` rows,
 * positions and balances the `positions` and `accountBalances` rows, oracle
 * prices `assetOraclePrices`, market summaries the latest computed ones (what
 * `/v2/perpMarkets/summary` serves: mark, oracle, funding).
 *
 * | key                  | content                                                                                 |
 * |----------------------|-----------------------------------------------------------------------------------------|
 * | format               | "exchange-state/1"                                                                      |
 * | timeMicros, time     | the Exchange's virtual time (µs since the epoch) and its ISO-8601 text                  |
 * | markets              | per market in marketId order: flags, mark price, the book (both sides best first, every |
 * |                      | level's px, qty and orders in queue order: orderId, accountId, remaining qty), stops    |
 * | accounts             | per account in id order: owner wallet, signers, the wallet's tiers and flags, the       |
 * |                      | cancelAllAfter deadline if armed, open orders, positions, balances                      |
 * | pendingSettlements   | the chain: block height and the matches waiting for a block, in the order they matched  |
 * | assetOraclePrices    | the fresh index prices                                                                  |
 * | perpSummaries, spotSummaries, summariesAt | the latest computed summaries and when (ms), or [] and null        |
 */
import { formatMicros, microsToMillis, type Micros } from "../core/time.ts";
import type { Exchange } from "../exchange/exchange.ts";
import type { LevelDump } from "../engine/dump.ts";
import type { Market } from "../engine/market.ts";
import { openOrderRow, type WireOrder } from "../engine/wire.ts";
import type { AccountBalance, Position } from "../spec/account.ts";

export const EXCHANGE_STATE_FORMAT = "exchange-state/1";

export interface QueuedOrderState {
  readonly orderId: string;
  readonly accountId: number;
  /** Remaining (unfilled) quantity: what the order adds to its level. */
  readonly qty: string;
}

export interface LevelState {
  readonly px: string;
  /** The level's total remaining quantity. */
  readonly qty: string;
  /** Oldest first: the order that fills next is first. */
  readonly orders: readonly QueuedOrderState[];
}

export interface MarketState {
  readonly symbol: string;
  readonly marketId: number;
  readonly kind: "perp" | "spot";
  readonly halted: boolean;
  readonly reopening: boolean;
  readonly settlementPaused: boolean;
  /** The mark price the engine triggers stops at, or null before the first. */
  readonly markPrice: string | null;
  /** Best first. */
  readonly bids: readonly LevelState[];
  readonly asks: readonly LevelState[];
  /** Armed stop orders (not in the book), by orderId. */
  readonly armedStops: readonly string[];
}

export interface AccountState {
  readonly accountId: number;
  readonly ownerWallet: string;
  readonly signers: readonly string[];
  /** The owner wallet's gateway rate tier, fee tier (as of its last volume change) and flags. */
  readonly rateTier: number;
  readonly feeTierId: number;
  readonly whitelisted: boolean;
  readonly suspended: boolean;
  /** When the account's cancelAllAfter fires (Unix ms); present only while armed. */
  readonly cancelAllAfter?: { readonly triggerAt: number };
  readonly openOrders: readonly WireOrder[];
  readonly positions: readonly Position[];
  readonly balances: readonly AccountBalance[];
}

export interface PendingMatchState {
  readonly fillId: string;
  readonly symbol: string;
  /** When the engine made the match (Unix ms). */
  readonly matchedAt: number;
  readonly takerAccountId: number;
  readonly takerOrderId: string;
  readonly makerAccountId: number;
  readonly makerOrderId: string;
  readonly side: "B" | "A";
  readonly px: string;
  readonly qty: string;
}

export interface ExchangeState {
  readonly format: typeof EXCHANGE_STATE_FORMAT;
  readonly timeMicros: Micros;
  readonly time: string;
  readonly markets: readonly MarketState[];
  readonly accounts: readonly AccountState[];
  readonly pendingSettlements: { readonly blockHeight: number; readonly matches: readonly PendingMatchState[] };
  readonly assetOraclePrices: readonly unknown[];
  readonly perpSummaries: readonly unknown[];
  readonly spotSummaries: readonly unknown[];
  readonly summariesAt: number | null;
}

/** The Exchange's state now, as JSON-able data (see the module comment). */
export function exchangeState(exchange: Exchange): ExchangeState {
  const now = exchange.now();
  const dump = exchange.engine.dumpState();
  const markets = dump.markets.map((marketDump): MarketState => {
    const market = exchange.engine.market(marketDump.marketId)!;
    return {
      symbol: market.symbol,
      marketId: market.marketId,
      kind: market.kind,
      halted: marketDump.halted,
      reopening: marketDump.reopening,
      settlementPaused: marketDump.settlementPaused,
      markPrice: marketDump.markTicks === null ? null : market.units.formatPrice(marketDump.markTicks),
      bids: marketDump.bids.map((level) => levelState(exchange, market, level)),
      asks: marketDump.asks.map((level) => levelState(exchange, market, level)),
      armedStops: [...marketDump.armedStops],
    };
  });
  const latest = exchange.risk.latestSummaries();
  return {
    format: EXCHANGE_STATE_FORMAT,
    timeMicros: now,
    time: formatMicros(now),
    markets: [...markets].sort((a, b) => a.marketId - b.marketId),
    accounts: accountStates(exchange),
    pendingSettlements: {
      blockHeight: exchange.chain.height,
      matches: exchange.chain.pendingMatches().map(({ fill, market }) => ({
        fillId: fill.fillId,
        symbol: market.symbol,
        matchedAt: microsToMillis(fill.atMicros),
        takerAccountId: fill.takerAccountId,
        takerOrderId: fill.takerOrderId,
        makerAccountId: fill.makerAccountId,
        makerOrderId: fill.makerOrderId,
        side: fill.takerSide,
        px: market.units.formatPrice(fill.priceTicks),
        qty: market.units.formatQty(fill.qtyLots),
      })),
    },
    assetOraclePrices: exchange.risk.assetOraclePrices(now),
    perpSummaries: latest === undefined ? [] : [...latest.markets],
    spotSummaries: latest === undefined ? [] : [...latest.spotMarkets],
    summariesAt: latest === undefined ? null : microsToMillis(latest.atMicros),
  };
}

function levelState(exchange: Exchange, market: Market, level: LevelDump): LevelState {
  return {
    px: market.units.formatPrice(level.priceTicks),
    qty: market.units.formatQty(level.totalLots),
    orders: level.orderIds.map((orderId) => {
      const order = exchange.engine.peekOrder(orderId);
      if (order === undefined) throw new Error(`order ${orderId} is in the book of ${market.symbol} but not live`);
      return { orderId, accountId: order.accountId, qty: market.units.formatQty(order.remainingLots) };
    }),
  };
}

function accountStates(exchange: Exchange): AccountState[] {
  const risk = exchange.risk;
  const accountIds = [...risk.state.accounts.keys()].sort((a, b) => a - b);
  return accountIds.map((accountId): AccountState => {
    const account = risk.state.accounts.get(accountId)!;
    const wallet = account.wallet;
    const trigger = exchange.engine.cancelAllAfterTriggerAtMicros(accountId);
    return {
      accountId,
      ownerWallet: wallet.address,
      signers: [...account.signers].sort(),
      rateTier: wallet.rateTier,
      feeTierId: wallet.tier.tierId,
      whitelisted: wallet.whitelisted,
      suspended: wallet.suspended,
      ...(trigger === null ? {} : { cancelAllAfter: { triggerAt: microsToMillis(trigger) } }),
      openOrders: exchange.engine.peekOpenOrders(accountId).map(openOrderRow),
      positions: risk.positions(accountId) as Position[],
      balances: risk.balances(accountId) as AccountBalance[],
    };
  });
}

/** Counts for a one-line digest of a state. */
export function stateCounts(state: ExchangeState): { openOrders: number; positions: number; pendingSettlements: number; accounts: number; restingLevels: number } {
  let openOrders = 0;
  let positions = 0;
  for (const account of state.accounts) {
    openOrders += account.openOrders.length;
    positions += account.positions.length;
  }
  const restingLevels = state.markets.reduce((sum, market) => sum + market.bids.length + market.asks.length, 0);
  return { openOrders, positions, pendingSettlements: state.pendingSettlements.matches.length, accounts: state.accounts.length, restingLevels };
}
