/**
 * The perp IOC price band, and how far through the oracle a taker's IOC
 * limit may be set so that it stays inside it.
 *
 * The service refuses a perp IOC whose limit price fails the on-chain
 * price-limit check (spec 7.3: CREATE_ORDER_OTHER_ERROR, "check that the
 * limit price can be filled within the on-chain price-limit check"): here a
 * buy may not be priced more than the band above the mark price, a sell not
 * more than that below it (src/exchange/gateway/order-gateway.ts, iocBand).
 * The service publishes no band: IOC_PRICE_BAND_BPS_DEFAULT (spec/limits.ts,
 * 1,000 bps = 10 %) is the simulator's choice, read from the spec module so
 * that the agents depend on the contract only, not on the exchange they run
 * against. Spot IOCs and resting orders have no such band.
 *
 * The takers price from the oracle (the index, lib/oracle.ts), while the
 * band is measured from the mark. The mark is the median of the impact
 * price, the index plus its smoothed premium, and the exchange-mark oracle,
 * so it lies between the last two: within the premium or the oracle basis
 * of the index (at most 32 bps in the default, funding-squeeze and
 * liquidation-cascade scenarios, sampled each second). So a cross is capped
 * at the band less MARK_ALLOWANCE_BPS (900 bps). The room this leaves the
 * mark is not 100 bps either way, since the band scales with the mark: a buy
 * 9 % above the oracle passes while the mark is no more than about 91 bps
 * below the oracle (1.09 / 1.10), a sell 9 % below while it is no more than
 * about 111 bps above (0.91 / 0.90); rounding the limit to the tick grid away
 * from the oracle, and the band to whole ticks toward the mark, takes a
 * little more off each.
 *
 * The cap has a cost: book levels between 9 % through the oracle and the
 * band's edge (10 % from the mark) are allowed by the band but not taken.
 * A sweep that deep is rare, and an IOC the band refuses takes nothing.
 *
 * The cap assumes the default band: the agents cannot read a scenario's
 * `gateway.iocPriceBandBps` (the service publishes none), and a scenario
 * that narrows it below the cap refuses the crosses beyond it.
 */
import { IOC_PRICE_BAND_BPS_DEFAULT } from "../../src/spec/limits.ts";
import { MarketGrid } from "./grid.ts";

/** Room kept inside the band for the mark's distance from the oracle the takers price from, bps (see above: not symmetric). */
export const MARK_ALLOWANCE_BPS = 100;

/** The widest cross through the oracle a perp IOC is sent with: 900 bps. */
export const IOC_CROSS_BPS_MAX = IOC_PRICE_BAND_BPS_DEFAULT - MARK_ALLOWANCE_BPS;

/** `crossBps` as sent on `grid`'s market: capped at IOC_CROSS_BPS_MAX on a perp, unchanged on a spot market (no band). */
export function iocCrossBps(grid: Pick<MarketGrid, "kind">, crossBps: number): number {
  return grid.kind === "perp" ? Math.min(crossBps, IOC_CROSS_BPS_MAX) : crossBps;
}

/**
 * The limit of a taker's IOC `crossBps` through `price` (an oracle price) on `grid`'s market, the cross capped by
 * iocCrossBps: above `price` for a buy, rounded up to the tick grid, below it for a sell, rounded down. The agents that
 * price an IOC a cross through the oracle (momentum, noise-taker, over-leveraged) all go through here, so that none of
 * them can send a cross the default band refuses (the arbitrageur prices at the book's levels; chaos sends bad ones on purpose).
 */
export function iocLimitPx(grid: Pick<MarketGrid, "kind" | "price">, price: number, isBuy: boolean, crossBps: number): string {
  const cross = iocCrossBps(grid, crossBps);
  return grid.price(MarketGrid.shift(price, isBuy ? cross : -cross), isBuy ? "up" : "down");
}
