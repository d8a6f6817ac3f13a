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
import { longValueAt, shortValueAt } from "./funding.ts";
import { isFresh, midPrice, perpPricesFresh, pricesUpdatedAtMicros, spotOraclePrice } from "./prices.ts";
import type { PerpMarketState, RiskState, SpotMarketState } from "./state.ts";
import type { AssetOraclePriceView, MarketSummaryView, SpotMarketSummaryView } from "./types.ts";
import type { Mutable } from "../core/mutable.ts";

// Each figure's text is remembered with its value on the market (state.ts PerpTexts, SpotTexts): between two
// summaries most figures are unchanged (open interest, volume, oracle, price change), and none is formatted again.

export function marketSummary(state: RiskState, market: PerpMarketState, atMicros: number): MarketSummaryView {
  const funding = market.funding;
  const texts = market.texts;
  const summary: Mutable<MarketSummaryView> = {
    symbol: market.config.symbol,
    updatedAt: microsToMillis(atMicros),
    oiQty: texts.oiQty.of(market.oiLong),
    fundingRate: texts.fundingRate.of(funding.rate),
    longFundingValue: texts.longFundingValue.of(longValueAt(funding, atMicros)),
    shortFundingValue: texts.shortFundingValue.of(shortValueAt(funding, atMicros)),
    volume24h: texts.volume24h.of(market.stats.volume24h.sum(atMicros)),
  };
  const change = market.stats.prices24h.change(atMicros);
  if (change !== undefined) summary.pxChange24h = texts.pxChange24h.of(change);
  if (market.mark !== undefined && !market.closed && perpPricesFresh(state, market, atMicros)) summary.markPrice = texts.mark.of(market.mark);
  if (isFresh(state, market.oracle, atMicros)) summary.oraclePrice = texts.oraclePrice.of(market.oracle.price);
  const mid = midPrice(market.book);
  if (mid !== undefined) summary.throttledMidPrice = texts.mid.of(mid);
  const updated = pricesUpdatedAtMicros(market);
  if (updated !== undefined) summary.pricesUpdatedAt = microsToMillis(updated);
  return summary;
}

export function spotMarketSummary(state: RiskState, market: SpotMarketState, atMicros: number): SpotMarketSummaryView {
  const texts = market.texts;
  const summary: Mutable<SpotMarketSummaryView> = {
    symbol: market.config.symbol,
    updatedAt: microsToMillis(atMicros),
    volume24h: texts.volume24h.of(market.stats.volume24h.sum(atMicros)),
  };
  const change = market.stats.prices24h.change(atMicros);
  if (change !== undefined) summary.pxChange24h = texts.pxChange24h.of(change);
  const oracle = spotOraclePrice(state, market, atMicros);
  if (oracle !== undefined) summary.oraclePrice = texts.oraclePrice.of(oracle);
  const mid = midPrice(market.book);
  if (mid !== undefined) summary.throttledMidPrice = texts.mid.of(mid);
  return summary;
}

/** Spec 2.18: the fresh index prices (stale ones omitted; the settlement asset, at par, is not listed). */
export function assetOraclePrices(state: RiskState, atMicros: number): AssetOraclePriceView[] {
  const views: AssetOraclePriceView[] = [];
  for (const asset of state.assets.values()) {
    if (!isFresh(state, asset.index, atMicros)) continue;
    views.push({ asset: asset.config.symbol, oraclePrice: asset.indexText.of(asset.index.price), updatedAt: microsToMillis(asset.index.atMicros) });
  }
  return views;
}
