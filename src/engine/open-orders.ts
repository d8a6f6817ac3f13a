/**
 * Open-order accounting (spec 8.2): per owner (the signing wallet), the
 * count and the notional of its resting GTC and GTT orders, across all
 * markets. Armed stops do not count (they are not in the book); fired
 * children that rest do; IOC orders never rest and never count. The
 * notional of an order is its remaining quantity x limitPx, so a partial
 * fill lowers it.
 *
 * The caps themselves are the exchange's (checked at admission, per tier):
 * this module keeps the figures; Engine.openOrderImpactOf* says what an
 * order would do to them.
 *
 * Owners are dense integer ids (`ownerId`: the exchange's index of the
 * signing wallet, which it already looks up for nonces and rate limits), so
 * an owner's figures sit in typed arrays at its id: no hashing, no object
 * per owner, nothing for the garbage collector. Notionals of all markets are
 * summed in one integer unit, 10^-d of the quote currency, where d is the
 * largest number of decimals of any market's tickSize x qtyStepSize: an
 * order adds lots x ticks x its market's multiplier. Sums are exact: the
 * safe-integer part in the array, and a bigint (kept aside, almost always
 * empty) for whatever would leave the safe range.
 */
import { Dec } from "../core/decimal.ts";
import { assert } from "../core/assert.ts";
import type { Market } from "./market.ts";
import type { Order } from "./order.ts";

/** Owner ids are array indices: bounded so that a stray id cannot allocate gigabytes. */
export const OWNER_ID_LIMIT = 1 << 24;
const INITIAL_OWNERS = 1024;

export interface OpenOrderFigures {
  readonly count: number;
  /** In the quote currency (USD). */
  readonly notional: Dec;
}

/** OpenOrderFigures in integer units of 10^-notionalDecimals of the quote currency (per-order checks without decimals). */
export interface OpenOrderUnits {
  readonly count: number;
  readonly notionalUnits: bigint;
}

export class OpenOrderTable {
  /** Per owner, side by side (one cache line): [2 id] = count, [2 id + 1] = safe-integer part of the sum. */
  private figuresOf = new Float64Array(2 * INITIAL_OWNERS);
  private readonly overflow = new Map<number, bigint>();
  /** Per Market.index: the value of one tick x one lot, in units of 10^-decimals. */
  private readonly multipliers: number[];
  private readonly decimals: number;

  constructor(markets: readonly Market[]) {
    this.decimals = Math.max(0, ...markets.map((market) => market.units.notionalUnit.decimalPlaces()));
    const scale = new Dec(10).pow(this.decimals);
    this.multipliers = markets.map((market) => {
      const multiplier = market.units.notionalUnit.mul(scale).toNumber();
      assert(Number.isSafeInteger(multiplier) && multiplier > 0, `${market.symbol}: tickSize x qtyStepSize has a safe integer multiplier`);
      return multiplier;
    });
  }

  /** Starts counting an order that begins to rest. */
  count(order: Order): void {
    const ownerId = order.ownerId;
    if (2 * ownerId >= this.figuresOf.length) this.grow(ownerId);
    this.figuresOf[2 * ownerId]! += 1;
    this.add(ownerId, order.qtyLots - order.cumLots, order.priceTicks, order.market.index);
  }

  /** Stops counting an order that leaves the book (before its qty or price changes). */
  uncount(order: Order): void {
    const ownerId = order.ownerId;
    this.add(ownerId, -(order.qtyLots - order.cumLots), order.priceTicks, order.market.index);
    const count = --this.figuresOf[2 * ownerId]!;
    assert(count >= 0, "an owner's open-order count never goes negative");
  }

  /** A counted order's remaining quantity fell by `lots` (a maker fill, a decrease in place). */
  reduce(order: Order, lots: number): void {
    this.add(order.ownerId, -lots, order.priceTicks, order.market.index);
  }

  /** The decimals of the integer unit of the sums: one unit is 10^-notionalDecimals of the quote currency. */
  get notionalDecimals(): number {
    return this.decimals;
  }

  /** The notional of `lots` x `ticks` in `market`, in units of 10^-notionalDecimals (exact, no decimals involved). */
  unitsOf(market: Market, lots: number, ticks: number): bigint {
    return BigInt(lots) * BigInt(ticks) * BigInt(this.multipliers[market.index]!);
  }

  /** A quote-currency amount in units of 10^-notionalDecimals, rounded down (so `units > floorUnits(cap)` iff `units > cap`). */
  floorUnits(amount: Dec): bigint {
    return BigInt(amount.mul(new Dec(10).pow(this.decimals)).floor().toFixed(0));
  }

  /** The owner's count and notional in integer units (figures() without a decimal). */
  unitFigures(ownerId: number): OpenOrderUnits {
    if (!Number.isSafeInteger(ownerId) || ownerId < 0 || 2 * ownerId >= this.figuresOf.length || this.figuresOf[2 * ownerId] === 0) return { count: 0, notionalUnits: 0n };
    const units = BigInt(this.figuresOf[2 * ownerId + 1]!) + (this.overflow.get(ownerId) ?? 0n);
    return { count: this.figuresOf[2 * ownerId]!, notionalUnits: units };
  }

  figures(ownerId: number): OpenOrderFigures {
    if (!Number.isSafeInteger(ownerId) || ownerId < 0 || 2 * ownerId >= this.figuresOf.length || this.figuresOf[2 * ownerId] === 0) {
      return { count: 0, notional: new Dec(0) };
    }
    const units = BigInt(this.figuresOf[2 * ownerId + 1]!) + (this.overflow.get(ownerId) ?? 0n);
    return { count: this.figuresOf[2 * ownerId]!, notional: new Dec(units.toString()).div(new Dec(10).pow(this.decimals)) };
  }

  /** Owners with resting orders, ascending (for state dumps). */
  ownerIds(): number[] {
    const owners: number[] = [];
    for (let ownerId = 0; 2 * ownerId < this.figuresOf.length; ownerId++) if (this.figuresOf[2 * ownerId]! > 0) owners.push(ownerId);
    return owners;
  }

  private add(ownerId: number, lots: number, ticks: number, marketIndex: number): void {
    const multiplier = this.multipliers[marketIndex]!;
    const product = lots * ticks * multiplier;
    const sum = this.figuresOf[2 * ownerId + 1]! + product;
    if (Number.isSafeInteger(product) && Number.isSafeInteger(sum)) {
      this.figuresOf[2 * ownerId + 1] = sum;
      return;
    }
    const exact = (this.overflow.get(ownerId) ?? 0n) + BigInt(lots) * BigInt(ticks) * BigInt(multiplier);
    if (exact === 0n) this.overflow.delete(ownerId);
    else this.overflow.set(ownerId, exact);
  }

  private grow(ownerId: number): void {
    assert(ownerId < OWNER_ID_LIMIT, `ownerId ${ownerId} is below ${OWNER_ID_LIMIT}`);
    let length = this.figuresOf.length;
    while (length <= 2 * ownerId) length *= 2;
    const figures = new Float64Array(length);
    figures.set(this.figuresOf);
    this.figuresOf = figures;
  }
}
