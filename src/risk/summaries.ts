/**
 * Market summaries (spec 2.9, 2.10), computed by the exchange every
 * `summaryCadenceMicros` (500 ms virtual by default).
 *
 * Perp: oiQty = settled one-sided open interest (units); fundingRate = the
 * hourly rate x 100 (a percentage); long/shortFundingValue at the summary
 * time; volume24h = traded notional (settlement asset) of ORDER_MATCH
 * executions over the last 24 h (1-second buckets); pxChange24h = last trade
 * price - the last trade price at or before 24 h ago (absolute; the first
 * trade's price when there is none that old; omitted before any trade);
 * markPrice and oraclePrice only while the market's prices are fresh;
 * throttledMidPrice = the book mid at summary time, omitted on an empty or
 * one-sided book; pricesUpdatedAt = the latest index or oracle update (ms).
 * Spot: volume24h in USD (the quote at its index); pxChange24h absolute;
 * oraclePrice = index(base) / index(quote) while fresh.
 */
import { microsToMillis } from "../core/time.ts";
import { formatE36, formatMoney, formatScaled } from "./fixed.ts";
import { longValueAt, shortValueAt } from "./funding.ts";
import { isFresh, midPrice, perpPricesFresh, pricesUpdatedAtMicros, spotOraclePrice } from "./prices.ts";
import type { PerpMarketState, RiskState, SpotMarketState } from "./state.ts";
import type { AssetOraclePriceView, MarketSummaryView, SpotMarketSummaryView } from "./types.ts";
import type { Mutable } from "../core/mutable.ts";

function price18(value: bigint): string {
  return formatScaled(value, 18);
}

export function marketSummary(state: RiskState, market: PerpMarketState, atMicros: number): MarketSummaryView {
  const funding = market.funding;
  const summary: Mutable<MarketSummaryView> = {
    symbol: market.config.symbol,
    updatedAt: microsToMillis(atMicros),
    oiQty: price18(market.oiLong),
    fundingRate: price18(funding.rate * 100n),
    longFundingValue: formatE36(longValueAt(funding, atMicros)),
    shortFundingValue: formatE36(shortValueAt(funding, atMicros)),
    volume24h: formatE36(market.stats.volume24h.sum(atMicros)),
  };
  const change = market.stats.prices24h.change(atMicros);
  if (change !== undefined) summary.pxChange24h = price18(change);
  if (market.mark !== undefined && !market.closed && perpPricesFresh(state, market, atMicros)) summary.markPrice = price18(market.mark);
  if (isFresh(market.oracle, atMicros, state.config.priceFreshnessMicros)) summary.oraclePrice = price18(market.oracle.price);
  const mid = midPrice(market.book);
  if (mid !== undefined) summary.throttledMidPrice = price18(mid);
  const updated = pricesUpdatedAtMicros(market);
  if (updated !== undefined) summary.pricesUpdatedAt = microsToMillis(updated);
  return summary;
}

export function spotMarketSummary(state: RiskState, market: SpotMarketState, atMicros: number): SpotMarketSummaryView {
  const summary: Mutable<SpotMarketSummaryView> = {
    symbol: market.config.symbol,
    updatedAt: microsToMillis(atMicros),
    volume24h: formatMoney(market.stats.volume24h.sum(atMicros)),
  };
  const change = market.stats.prices24h.change(atMicros);
  if (change !== undefined) summary.pxChange24h = price18(change);
  const oracle = spotOraclePrice(state, market, atMicros);
  if (oracle !== undefined) summary.oraclePrice = price18(oracle);
  const mid = midPrice(market.book);
  if (mid !== undefined) summary.throttledMidPrice = price18(mid);
  return summary;
}

/** Spec 2.18: the fresh index prices (stale ones omitted; the settlement asset, at par, is not listed). */
export function assetOraclePrices(state: RiskState, atMicros: number): AssetOraclePriceView[] {
  const views: AssetOraclePriceView[] = [];
  for (const asset of state.assets.values()) {
    if (!isFresh(asset.index, atMicros, state.config.priceFreshnessMicros)) continue;
    views.push({ asset: asset.config.symbol, oraclePrice: price18(asset.index.price), updatedAt: microsToMillis(asset.index.atMicros) });
  }
  return views;
}
