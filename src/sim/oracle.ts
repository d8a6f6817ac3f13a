/**
 * The oracle of a simulated run: each asset's index price follows its feed
 * (a seeded geometric Brownian motion with Poisson jumps, or a recorded
 * path), and each perp's exchange-mark oracle follows its index asset with
 * a small seeded basis. Each step (of all feeds due at that instant) is one
 * `prices` input to the Exchange, like any other input: it is logged and
 * replays.
 *
 * GBM step over dt hours: log return = (drift - vol^2 / 2) dt + vol sqrt(dt) Z,
 * plus the sum of N ~ Poisson(perHour dt) jumps, each N(mean, sd), plus the
 * log return of any scheduled shock due at that step (it draws nothing, so
 * a shock leaves the random path as it was: scaled from its step on). Prices
 * are published with the feed's decimals (floats stop here: the Exchange
 * parses the decimal string exactly).
 *
 * Each asset draws from its own stream (`oracle:<asset>`), the basis from
 * `oracle:basis:<symbol>`, so adding a feed changes no other feed's path.
 */
import type { Rng, RngRoot } from "../core/rng.ts";
import { MICROS_PER_HOUR, MICROS_PER_MILLI, MICROS_PER_SECOND, type Micros } from "../core/time.ts";
import type { PriceInput } from "../exchange/inputs.ts";
import type { RiskConfigInput } from "../risk/config.ts";
import type { GbmFeed, PriceFeed } from "./scenario.ts";

/** A recorded path: offsets from the run's start (ms) and prices. */
export interface PricePath {
  readonly offsetsMs: readonly number[];
  readonly prices: readonly number[];
}

export const DEFAULT_STEP_MS = 1_000;
export const DEFAULT_BASIS_SD = 0.0002;

/** Parses `offsetMs,price` lines (a non-numeric first line is a header). */
export function parsePricePath(text: string, where: string): PricePath {
  const offsetsMs: number[] = [];
  const prices: number[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const [offsetText, priceText] = trimmed.split(",");
    const offset = Number(offsetText);
    const price = Number(priceText);
    if (index === 0 && (!Number.isFinite(offset) || !Number.isFinite(price))) return; // header
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`${where}:${index + 1}: offsetMs "${offsetText}" must be a non-negative integer`);
    if (!(price > 0)) throw new RangeError(`${where}:${index + 1}: price "${priceText}" must be a positive number`);
    if (offsetsMs.length > 0 && offset <= offsetsMs[offsetsMs.length - 1]!) throw new RangeError(`${where}:${index + 1}: offsetMs "${offset}" must increase`);
    offsetsMs.push(offset);
    prices.push(price);
  });
  if (offsetsMs.length === 0) throw new RangeError(`${where}: the path has no points`);
  return { offsetsMs, prices };
}

interface FeedState {
  readonly asset: string;
  readonly decimals: number;
  /** The perps that follow this asset: symbol and tick decimals. */
  readonly perps: readonly { symbol: string; decimals: number; basis: Rng }[];
  price: number;
  next(): { atMicros: Micros; price: number } | undefined;
}

function decimalsOf(step: string): number {
  return (step.split(".")[1] ?? "").length;
}

function gbmFeed(feed: GbmFeed, rng: Rng, startMicros: Micros): () => { atMicros: Micros; price: number } {
  const stepMicros = (feed.stepMs ?? DEFAULT_STEP_MS) * MICROS_PER_MILLI;
  const dtHours = stepMicros / MICROS_PER_HOUR;
  const vol = feed.hourlyVolatility;
  const driftStep = ((feed.hourlyDrift ?? 0) - (vol * vol) / 2) * dtHours;
  const volStep = vol * Math.sqrt(dtHours);
  const jumpRate = (feed.jumps?.perHour ?? 0) * dtHours;
  const shocks = [...(feed.shocks ?? [])]
    .map((shock) => ({ atMicros: startMicros + Math.round(shock.atSeconds * MICROS_PER_SECOND), logReturn: shock.logReturn }))
    .sort((a, b) => a.atMicros - b.atMicros);
  let nextShock = 0;
  let price = feed.start;
  let at = startMicros;
  let first = true;
  return () => {
    if (first) {
      first = false;
      return { atMicros: at, price };
    }
    at += stepMicros;
    let logReturn = driftStep + volStep * rng.normal(0, 1);
    if (jumpRate > 0) {
      const jumps = rng.poisson(jumpRate);
      for (let j = 0; j < jumps; j++) logReturn += rng.normal(feed.jumps!.mean, feed.jumps!.sd);
    }
    while (nextShock < shocks.length && shocks[nextShock]!.atMicros <= at) logReturn += shocks[nextShock++]!.logReturn;
    price *= Math.exp(logReturn);
    return { atMicros: at, price };
  };
}

/**
 * Drives the feeds: `start(schedule)` publishes each feed's first price at
 * the start and schedules every later step through `schedule`.
 */
export class Oracle {
  private readonly feeds: FeedState[] = [];

  constructor(
    feeds: readonly PriceFeed[],
    markets: RiskConfigInput,
    rng: RngRoot,
    startMicros: Micros,
    paths: ReadonlyMap<string, PricePath>,
    basis: { readonly sd: number; readonly mean?: number },
  ) {
    for (const feed of feeds) {
      const perps = markets.perpMarkets
        .filter((market) => market.indexAsset === feed.asset)
        .map((market) => ({ symbol: market.symbol, decimals: decimalsOf(market.tickSize), basis: rng.stream(`oracle:basis:${market.symbol}`) }));
      let next: () => { atMicros: Micros; price: number } | undefined;
      if (feed.model === "gbm") {
        next = gbmFeed(feed, rng.stream(`oracle:${feed.asset}`), startMicros);
      } else {
        const path = paths.get(feed.file);
        if (path === undefined) throw new RangeError(`prices: the path file "${feed.file}" of ${feed.asset} was not loaded`);
        let index = 0;
        next = () => (index < path.offsetsMs.length ? { atMicros: startMicros + path.offsetsMs[index]! * MICROS_PER_MILLI, price: path.prices[index++]! } : undefined);
      }
      const state: FeedState = { asset: feed.asset, decimals: feed.decimals ?? 2, perps, price: 0, next };
      this.feeds.push(state);
    }
    this.basisSd = basis.sd;
    this.basisMean = basis.mean ?? 0;
  }

  private readonly basisSd: number;
  private readonly basisMean: number;

  /** The latest index price of `asset` (a float, for agents' and reports' reference; the Exchange has the exact one). */
  price(asset: string): number | undefined {
    return this.feeds.find((feed) => feed.asset === asset)?.price;
  }

  /**
   * Schedules every feed: `schedule(at, fn)` runs fn at a virtual time;
   * `publish(input)` hands a prices input to the Exchange. Steps of several
   * feeds at the same instant go out as one input (feeds in scenario order),
   * as one oracle update would.
   */
  start(schedule: (atMicros: Micros, run: () => void) => void, publish: (input: PriceInput) => void): void {
    const batches = new Map<Micros, { feed: FeedState; price: number }[]>();
    const enqueue = (feed: FeedState, point: { atMicros: Micros; price: number }) => {
      let batch = batches.get(point.atMicros);
      if (batch === undefined) {
        batch = [];
        batches.set(point.atMicros, batch);
        const at = point.atMicros;
        schedule(at, () => {
          const due = batches.get(at)!;
          batches.delete(at);
          const prices: PriceInput["prices"][number][] = [];
          for (const step of due) {
            step.feed.price = step.price;
            prices.push(...this.pricesOf(step.feed));
          }
          publish({ kind: "prices", prices });
          for (const step of due) {
            const following = step.feed.next();
            if (following !== undefined) enqueue(step.feed, following);
          }
        });
      }
      batch.push({ feed, price: point.price });
    };
    for (const feed of this.feeds) {
      const first = feed.next();
      if (first !== undefined) enqueue(feed, first);
    }
  }

  private pricesOf(feed: FeedState): PriceInput["prices"] {
    const prices: { asset?: string; symbol?: string; price: string }[] = [{ asset: feed.asset, price: feed.price.toFixed(feed.decimals) }];
    for (const perp of feed.perps) {
      const basis = this.basisSd > 0 ? perp.basis.normal(this.basisMean, this.basisSd) : this.basisMean;
      prices.push({ symbol: perp.symbol, price: (feed.price * (1 + basis)).toFixed(perp.decimals) });
    }
    return prices;
  }
}
