/**
 * The perp IOC price band, and how far through the oracle a taker's IOC
 * limit may be set so that it stays inside it.
 *
 * The service refuses a perp IOC whose limit price fails the on-chain
 * price-limit check (spec 7.3: CREATE_ORDER_OTHER_ERROR, "check that the
 * limit price can be filled within the on-chain price-limit check"): here a
 * buy may not be priced more than `iocPriceBandBps` above the mark price, a
 * sell not more than that below it (src/exchange/gateway/order-gateway.ts,
 * iocBand; DEFAULT_GATEWAY_CONFIG.iocPriceBandBps, 1,000 bps = 10 %). Spot
 * IOCs and resting orders have no such band.
 *
 * The takers price from the oracle (the index, lib/oracle.ts), while the
 * band is measured from the mark. The mark is the median of the impact
 * price, the index plus its smoothed premium, and the exchange-mark oracle,
 * so it lies between the last two: within the premium or the oracle basis
 * of the index (at most 32 bps in the default, funding-squeeze and
 * liquidation-cascade scenarios, sampled each second). So a cross is capped at the band less
 * MARK_ALLOWANCE_BPS, which leaves the mark that much room on the wrong
 * side of the oracle. A limit 9 % through the oracle takes everything a
 * book offers that the band lets it take anyway.
 *
 * The cap assumes the default band: the agents cannot read a scenario's
 * `gateway.iocPriceBandBps` (the service publishes none), and a scenario
 * that narrows it below the cap refuses the crosses beyond it.
 */
import { DEFAULT_GATEWAY_CONFIG } from "../../src/exchange/config.ts";
import { MarketGrid } from "./grid.ts";

/** The band the exchange enforces on a perp IOC's limit, bps from the mark (default gateway config). */
export const IOC_PRICE_BAND_BPS = DEFAULT_GATEWAY_CONFIG.iocPriceBandBps;

/** Room kept inside the band for the mark's distance from the oracle the takers price from, bps. */
export const MARK_ALLOWANCE_BPS = 100;

/** The widest cross through the oracle a perp IOC is sent with: 900 bps. */
export const IOC_CROSS_BPS_MAX = IOC_PRICE_BAND_BPS - MARK_ALLOWANCE_BPS;

/** `crossBps` as sent on `grid`'s market: capped at IOC_CROSS_BPS_MAX on a perp, unchanged on a spot market (no band). */
export function iocCrossBps(grid: Pick<MarketGrid, "kind">, crossBps: number): number {
  return grid.kind === "perp" ? Math.min(crossBps, IOC_CROSS_BPS_MAX) : crossBps;
}

/**
 * The limit of a taker's IOC `crossBps` through `price` (an oracle price) on `grid`'s market, the cross capped by
 * iocCrossBps: above `price` for a buy, rounded up to the tick grid, below it for a sell, rounded down. Every agent that
 * prices an IOC through the oracle goes through here, so none of them can send a cross the band refuses.
 */
export function iocLimitPx(grid: Pick<MarketGrid, "kind" | "price">, price: number, isBuy: boolean, crossBps: number): string {
  const cross = iocCrossBps(grid, crossBps);
  return grid.price(MarketGrid.shift(price, isBuy ? cross : -cross), isBuy ? "up" : "down");
}
