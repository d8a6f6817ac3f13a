/**
 * Prices: three exogenous feeds and the mark.
 *
 * Feeds, each with its update time: the index price of each asset (in the
 * settlement asset; the settlement asset itself is at par), the exchange-mark
 * oracle of each perp (MarketSummary.oraclePrice, not the index), and the
 * book (given by the exchange from the engine's depth). A feed value older
 * than `priceFreshnessMicros` (60 s) is not fresh. A perp market's prices
 * are fresh when its index and its exchange-mark oracle are; a spot market's
 * when the index of its base (and of its quote, unless that is the
 * settlement asset) is.
 *
 * Impact price: the average price of taking `impactNotional` from each book
 * side (impact bid: selling into the bids; impact ask: buying the asks),
 * impact price = (impact bid + impact ask) / 2, undefined when a side is too
 * thin. Premium: impact price - index, a signal that holds its last sample
 * until the next one, smoothed exponentially on the virtual clock with time
 * constant tau, in exact rational steps: when a new sample arrives after dt,
 *   premium += (held sample - premium) x dt / (tau + dt)
 * and the new sample is held from then on (so a sample weighs by how long it
 * was in force, and simultaneous updates weigh nothing).
 * Mark (recomputed on every feed or book update while the market's prices
 * are fresh, otherwise left as it was):
 *   mark = median(impact price, index + smoothed premium, exchange-mark oracle)
 * over the components that exist (the median of two is their mean), each
 * rounding half-even at 18 digits.
 */
import { E18, type Money, type Price, type Qty, divRound, fromSteps } from "./fixed.ts";
import type { AssetState, BookPrices, PerpMarketState, PremiumState, PriceSample, RiskState, SpotMarketState } from "./state.ts";
import type { BookLevel, BookView } from "./types.ts";

/**
 * A price sample is fresh when at most priceFreshnessMicros old (spec 8.5:
 * 60 s), and no oracleStale fault is open (RiskState.oracleStaleUntilMicros):
 * one place decides, so that order entry (NO_PRICES_FOUND_FOR_SYMBOL_ERROR),
 * the published oraclePrice and markPrice (spec 2.9: omitted when no fresh
 * value exists), and the held mark and funding of a stale market (feeds.ts)
 * agree.
 */
export function isFresh(state: RiskState, sample: PriceSample | undefined, atMicros: number): sample is PriceSample {
  return sample !== undefined && atMicros - sample.atMicros <= state.config.priceFreshnessMicros && atMicros >= state.oracleStaleUntilMicros;
}

/** The fresh index price of an asset in the settlement asset (par for the settlement asset itself). */
export function freshIndex(state: RiskState, asset: AssetState, atMicros: number): Price | undefined {
  if (asset.config.isSettlement) return E18;
  return isFresh(state, asset.index, atMicros) ? asset.index.price : undefined;
}

/** The perp's index and exchange-mark oracle are fresh (and a mark has been computed from them). */
export function perpPricesFresh(state: RiskState, market: PerpMarketState, atMicros: number): boolean {
  return (
    market.mark !== undefined &&
    freshIndex(state, market.indexAsset, atMicros) !== undefined &&
    isFresh(state, market.oracle, atMicros)
  );
}

/** Index of the spot base in its quote: index(base) / index(quote), half-even; undefined when not fresh. */
export function spotOraclePrice(state: RiskState, market: SpotMarketState, atMicros: number): Price | undefined {
  const base = freshIndex(state, market.base, atMicros);
  const quote = freshIndex(state, market.quote, atMicros);
  if (base === undefined || quote === undefined) return undefined;
  return divRound(base * E18, quote, "half-even");
}

/**
 * Average price of taking `target` notional from `levels` (best first), or
 * undefined when the side holds less than that:
 *   avg = target / (units taken)   with the last level taken partially.
 */
export function impactSidePrice(levels: readonly BookLevel[], tick: Price, step: Qty, target: Money): Price | undefined {
  let takenNotional = 0n;
  let takenUnits = 0n;
  for (const level of levels) {
    const price = fromSteps(level.priceTicks, tick);
    const units = fromSteps(level.qtyLots, step);
    const levelNotional = units * price;
    if (takenNotional + levelNotional >= target) {
      // units taken in total = takenUnits + (target - takenNotional) / price
      const denominator = takenUnits * price + (target - takenNotional);
      return divRound(target * price, denominator, "half-even");
    }
    takenNotional += levelNotional;
    takenUnits += units;
  }
  return undefined;
}

/** Best prices and impact prices of a book view. */
export function bookPrices(view: BookView, tick: Price, step: Qty, impactNotional: Money | undefined, atMicros: number): BookPrices {
  const bestBid = view.bids[0];
  const bestAsk = view.asks[0];
  return {
    bestBid: bestBid === undefined ? undefined : fromSteps(bestBid.priceTicks, tick),
    bestAsk: bestAsk === undefined ? undefined : fromSteps(bestAsk.priceTicks, tick),
    impactBid: impactNotional === undefined ? undefined : impactSidePrice(view.bids, tick, step, impactNotional),
    impactAsk: impactNotional === undefined ? undefined : impactSidePrice(view.asks, tick, step, impactNotional),
    atMicros,
  };
}

/** The book mid, omitted on an empty or one-sided book. */
export function midPrice(book: BookPrices): Price | undefined {
  if (book.bestBid === undefined || book.bestAsk === undefined) return undefined;
  return divRound(book.bestBid + book.bestAsk, 2n, "half-even");
}

export function impactPrice(book: BookPrices): Price | undefined {
  if (book.impactBid === undefined || book.impactAsk === undefined) return undefined;
  return divRound(book.impactBid + book.impactAsk, 2n, "half-even");
}

/** The median of 1 to 3 values; of two, their mean (half-even). */
export function median(values: readonly Price[]): Price | undefined {
  // The mark's cases by comparisons alone (no sorted copy, no comparator calls); the mean of two is symmetric.
  if (values.length === 3) return medianOfThree(values[0]!, values[1]!, values[2]!);
  if (values.length === 2) return divRound(values[0]! + values[1]!, 2n, "half-even");
  if (values.length === 1) return values[0]!;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0) return undefined;
  if (sorted.length % 2 === 1) return sorted[(sorted.length - 1) / 2]!;
  const upper = sorted.length / 2;
  return divRound(sorted[upper - 1]! + sorted[upper]!, 2n, "half-even");
}

/** The middle one of three values (any order, ties included). */
export function medianOfThree(a: Price, b: Price, c: Price): Price {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}

/** Advances the smoothed premium to `atMicros` and holds `sample` from then on. */
export function advancePremium(previous: PremiumState | undefined, sample: Price | undefined, atMicros: number, tauMicros: number): PremiumState | undefined {
  if (previous === undefined) return sample === undefined ? undefined : { ema: sample, held: sample, atMicros };
  const dt = BigInt(Math.max(0, atMicros - previous.atMicros));
  let ema = previous.ema;
  if (previous.held !== undefined && dt > 0n) ema += divRound((previous.held - ema) * dt, BigInt(tauMicros) + dt, "half-even");
  return { ema, held: sample, atMicros };
}

/**
 * Computes the mark of a perp market at `atMicros` and advances its premium.
 * Returns undefined (and changes nothing) when the market's prices are not fresh.
 */
export function computeMark(state: RiskState, market: PerpMarketState, atMicros: number): { mark: Price; index: Price } | undefined {
  const index = freshIndex(state, market.indexAsset, atMicros);
  if (index === undefined || !isFresh(state, market.oracle, atMicros)) return undefined;
  const impact = impactPrice(market.book);
  market.premium = advancePremium(market.premium, impact === undefined ? undefined : impact - index, atMicros, market.config.premiumSmoothingMicros);
  // median(index + smoothed premium, oracle[, impact]) without an array of them.
  const premiumed = index + (market.premium?.ema ?? 0n);
  const oracle = market.oracle.price;
  const mark = impact === undefined ? divRound(premiumed + oracle, 2n, "half-even") : medianOfThree(premiumed, oracle, impact);
  return { mark: mark > 0n ? mark : market.oracle.price, index };
}

/** The latest update time of the market's price inputs (ms in the summary), if any. */
export function pricesUpdatedAtMicros(market: PerpMarketState): number | undefined {
  const times = [market.indexAsset.index?.atMicros, market.oracle?.atMicros].filter((time): time is number => time !== undefined);
  return times.length === 0 ? undefined : Math.max(...times);
}
