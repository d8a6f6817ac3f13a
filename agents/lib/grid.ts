/**
 * Prices and quantities on a market's grid.
 *
 * Agents decide in floating point (a fair price, a size in USD), and what
 * they send must be decimal strings on the market's grid: a whole number of
 * ticks of tickSize, a whole number of lots of qtyStepSize, at least
 * minOrderQty. `MarketGrid` rounds a float to whole units in the direction
 * the caller asks for (a bid rounds down, an ask up, so that rounding never
 * makes a quote more aggressive), and formats the units exactly with the
 * project's decimal helpers (src/core/decimal.ts): units times the step in
 * 10^18 fixed point (bigint), no float reaches the wire.
 */
import { formatE18, toE18 } from "../../src/core/decimal.ts";
import type { AgentMarket } from "../../src/sim/agent.ts";

export type Rounding = "down" | "up" | "nearest";

/** Slack for float division: 3000.01 / 0.01 is 300000.99999999994, which is 300001 ticks. */
const EPSILON_UNITS = 1e-7;

function roundUnits(units: number, rounding: Rounding): number {
  // An agent's arithmetic gone wrong (a NaN, an overflow) is its bug: say so here, where it meets the grid,
  // rather than as "cannot be converted to a BigInt" when the units are formatted.
  if (!Number.isFinite(units)) throw new RangeError(`a price or quantity of ${units} units of the market's step is not a finite number`);
  switch (rounding) {
    case "down":
      return Math.floor(units + EPSILON_UNITS);
    case "up":
      return Math.ceil(units - EPSILON_UNITS);
    case "nearest":
      return Math.round(units);
  }
}

export class MarketGrid {
  readonly symbol: string;
  readonly kind: "perp" | "spot";
  /** The asset whose oracle price the market follows. */
  readonly asset: string;
  readonly tick: number;
  readonly step: number;
  readonly minQty: number;
  readonly minLots: number;
  /** tickSize and qtyStepSize in 10^18 fixed point: a price or quantity is units x step, exactly. */
  private readonly tickE18: bigint;
  private readonly stepE18: bigint;

  constructor(readonly market: AgentMarket) {
    this.symbol = market.symbol;
    this.kind = market.kind;
    this.asset = market.asset;
    this.tick = Number(market.tickSize);
    this.step = Number(market.qtyStepSize);
    this.minQty = Number(market.minOrderQty);
    this.minLots = Math.max(1, roundUnits(this.minQty / this.step, "up"));
    this.tickE18 = toE18(market.tickSize, "tickSize", { signed: false });
    this.stepE18 = toE18(market.qtyStepSize, "qtyStepSize", { signed: false });
  }

  /** Whole ticks of `price`, at least one. */
  ticks(price: number, rounding: Rounding): number {
    return Math.max(1, roundUnits(price / this.tick, rounding));
  }

  /** The wire text of `ticks` ticks. */
  formatTicks(ticks: number): string {
    return formatE18(BigInt(ticks) * this.tickE18);
  }

  /** `price` on the tick grid (at least one tick), as wire text. */
  price(price: number, rounding: Rounding): string {
    return this.formatTicks(this.ticks(price, rounding));
  }

  /** Whole lots of `qty`, rounded down; 0 when below minOrderQty. */
  lots(qty: number): number {
    const lots = roundUnits(qty / this.step, "down");
    return lots >= this.minLots ? lots : 0;
  }

  /** The wire text of `lots` lots. */
  formatLots(lots: number): string {
    return formatE18(BigInt(lots) * this.stepE18);
  }

  /** `qty` rounded down to the step, or undefined when that is below minOrderQty. */
  qty(qty: number): string | undefined {
    const lots = this.lots(qty);
    return lots === 0 ? undefined : this.formatLots(lots);
  }

  /** `qty` rounded down to the step, raised to minOrderQty when below it. */
  qtyAtLeastMin(qty: number): string {
    return this.formatLots(Math.max(this.minLots, roundUnits(qty / this.step, "down")));
  }

  /** `price` moved by `bps` basis points (positive = up). */
  static shift(price: number, bps: number): number {
    return price * (1 + bps / 10_000);
  }
}

/** The grid of `symbol` among the agent's markets; throws a message naming the symbol when there is none. */
export function gridOf(markets: readonly AgentMarket[], symbol: string): MarketGrid {
  const market = markets.find((candidate) => candidate.symbol === symbol);
  if (market === undefined) {
    throw new RangeError(`symbol "${symbol}" is not one of the run's markets (${markets.map((m) => m.symbol).join(", ")})`);
  }
  return new MarketGrid(market);
}
