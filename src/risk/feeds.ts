/**
 * Feed inputs and their effects: a new index price, exchange-mark oracle
 * value or book view recomputes the marks that depend on it (prices.ts),
 * re-anchors funding at the new rate (funding.ts) and refreshes the margin
 * of the holders of that market only, flagging those that fall below their
 * liquidation requirement. An update that leaves mark and rate as they were
 * still re-checks that market's holders (funding accrues with time). An
 * index price of a collateral asset also revalues the accounts that hold it.
 * Nothing here walks all accounts.
 *
 * While a perp's prices are stale (no fresh index or exchange-mark oracle,
 * prices.ts; an oracleStale fault, say), the specification does not say what
 * happens to funding and liquidation. Chosen here: the mark and the funding
 * rate hold their last values, so funding keeps accruing at the held rate
 * (the service's funding accrues continuously); feed updates re-check no
 * holder until prices are fresh again (refreshMark returns early); the
 * liquidation pass after a block values positions at the held mark; and
 * orders in the market are refused with
 * NO_PRICES_FOUND_FOR_SYMBOL_ERROR (pretrade.ts). A liquidated account's
 * matches still pending settlement are not rolled back: each settles or
 * busts at its block on the account's state then (settlement validates it
 * like any other).
 */
import { assert } from "../core/assert.ts";
import { refreshCollateral } from "./collateral.ts";
import { flagIfLiquidatable, getPerp } from "./executions.ts";
import { divRound, type Price, toStepsHalfEven } from "./fixed.ts";
import { fundingRateFor, reanchorFunding } from "./funding.ts";
import { refreshFunding, refreshPosition } from "./margin.ts";
import { bookPrices, computeMark } from "./prices.ts";
import { marketOf } from "./exposure.ts";
import type { PerpMarketState, RiskState } from "./state.ts";
import type { BookView } from "./types.ts";

/**
 * A mark that moved: what the engine's triggers need
 * (setMarkPrice({ priceTicks: markFloorTicks, betweenTicks: markBetweenTicks }):
 * the mark itself, not a rounding of it, decides whether a stop fires).
 */
export interface MarkChange {
  readonly marketId: number;
  /** The mark, canonical decimal. */
  readonly markPrice: string;
  /** The mark on the market's tick grid (half-even): the nearest price an order can have. */
  readonly markPriceTicks: number;
  /** The mark rounded down to the tick grid (0 for a mark below one tick). */
  readonly markFloorTicks: number;
  /** True when the mark is off the grid: strictly between markFloorTicks and markFloorTicks + 1. */
  readonly markBetweenTicks: boolean;
}

/**
 * Refreshes every holder of the market after a mark or funding change. When
 * the mark did not move (`markMoved` false: a new rate at the same mark, a
 * socialized loss), only the funding contributions are recomputed: the
 * valuation ones depend on the mark and on the position, and both are as
 * they were at the position's last refresh.
 */
export function refreshHolders(state: RiskState, market: PerpMarketState, atMicros: number, markMoved: boolean): void {
  // refreshPosition may drop the position it refreshes from `holders` (no other): a Map's iteration allows that.
  for (const position of market.holders.values()) {
    if (markMoved) refreshPosition(position);
    else refreshFunding(position);
    flagIfLiquidatable(state, position.account, atMicros);
  }
}

/** Recomputes a perp's mark and funding rate; returns the change when the mark moved. */
export function refreshMark(state: RiskState, market: PerpMarketState, atMicros: number): MarkChange | undefined {
  if (market.closed) return undefined;
  const computed = computeMark(state, market, atMicros);
  if (computed === undefined) return undefined;
  const { mark, index } = computed;
  const rate = fundingRateFor(mark, index, market.config.fundingRateCap);
  const moved = mark !== market.mark;
  if (!moved && rate === market.funding.rate) {
    // Nothing to recompute, but funding has accrued since: look at the holders again.
    for (const position of market.holders.values()) flagIfLiquidatable(state, position.account, atMicros);
    return undefined;
  }
  reanchorFunding(market.funding, atMicros, rate, mark);
  market.mark = mark;
  market.markAtMicros = atMicros;
  refreshHolders(state, market, atMicros, moved);
  if (!moved) return undefined;
  // The mark's text is the summary's markPrice too (remembered: the summary tick moves the mark, then publishes it).
  const tick = market.config.tick;
  const floorTicks = Number(divRound(mark, tick, "floor"));
  return {
    marketId: market.config.marketId,
    markPrice: market.texts.mark.of(mark),
    markPriceTicks: markTicksOf(market, mark),
    markFloorTicks: floorTicks,
    markBetweenTicks: mark % tick !== 0n,
  };
}

/** The mark on the market's tick grid (half-even, at least one tick), remembered with the mark it was computed from. */
export function markTicksOf(market: PerpMarketState, mark: Price): number {
  if (market.markTicksFor !== mark) {
    market.markTicks = Math.max(1, toStepsHalfEven(mark, market.config.tick));
    market.markTicksFor = mark;
  }
  return market.markTicks;
}

export function setIndexPrice(state: RiskState, assetSymbol: string, price: Price, atMicros: number): MarkChange[] {
  const asset = state.assets.get(assetSymbol);
  if (asset === undefined) assert(false, `asset ${assetSymbol} does not exist`);
  if (asset.config.isSettlement) assert(false, `the settlement asset ${assetSymbol} is at par and takes no index price`);
  if (price <= 0n) assert(false, `index price of ${assetSymbol} must be positive`);
  asset.index = { price, atMicros };
  for (const account of [...asset.holders]) {
    refreshCollateral(account, account.balances.get(assetSymbol)!);
    flagIfLiquidatable(state, account, atMicros);
  }
  const changes: MarkChange[] = [];
  for (const market of state.perps.values()) {
    if (market.indexAsset !== asset) continue;
    const change = refreshMark(state, market, atMicros);
    if (change !== undefined) changes.push(change);
  }
  return changes;
}

export function setOraclePrice(state: RiskState, marketId: number, price: Price, atMicros: number): MarkChange[] {
  const market = getPerp(state, marketId);
  if (price <= 0n) assert(false, `oracle price of ${market.config.symbol} must be positive`);
  market.oracle = { price, atMicros };
  const change = refreshMark(state, market, atMicros);
  return change === undefined ? [] : [change];
}

export function setBook(state: RiskState, marketId: number, view: BookView, atMicros: number): MarkChange[] {
  const market = marketOf(state, marketId);
  if (market === undefined) assert(false, `marketId ${marketId} does not exist`);
  if (market.kind === "spot") {
    market.book = bookPrices(view, market.config.tick, market.config.step, undefined, atMicros);
    return [];
  }
  market.book = bookPrices(view, market.config.tick, market.config.step, market.config.impactNotional, atMicros);
  const change = refreshMark(state, market, atMicros);
  return change === undefined ? [] : [change];
}
