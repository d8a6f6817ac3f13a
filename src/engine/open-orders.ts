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
 * per owner, nothing for the garbage collector. The arrays are chunks of
 * 1,024 owners, made on first use and freed (kept as spares, all zero) once
 * none of their owners has a resting order: a run that goes through many
 * owners, each with a few short-lived orders, keeps touching the same few
 * chunks instead of a dense array as large as the largest owner id (fresh
 * memory costs a page fault on first touch, and growing a dense array
 * copies it). Notionals of all markets are
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
/** Owners per chunk of figures (2 x 1,024 doubles: 16 KB). */
const CHUNK_BITS = 10;
const CHUNK_MASK = (1 << CHUNK_BITS) - 1;
/** Freed chunks kept for reuse (all zero, so reused without clearing). */
const MAX_SPARE_CHUNKS = 16;

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
  /**
   * Per chunk of owners (ownerId >> CHUNK_BITS), side by side (one cache
   * line): [2 slot] = count, [2 slot + 1] = safe-integer part of the sum,
   * where slot = ownerId & CHUNK_MASK; undefined where no owner has any.
   */
  private readonly chunks: (Float64Array | undefined)[] = [];
  /** Per chunk: its owners with a non-zero count. */
  private readonly activeOwners: number[] = [];
  private readonly spares: Float64Array[] = [];
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
    const chunkIndex = ownerId >>> CHUNK_BITS;
    const chunk = this.chunks[chunkIndex] ?? this.openChunk(ownerId);
    const slot = (ownerId & CHUNK_MASK) << 1;
    const before = chunk[slot]!;
    chunk[slot] = before + 1;
    if (before === 0) this.activeOwners[chunkIndex]! += 1;
    this.add(chunk, slot, ownerId, order.qtyLots - order.cumLots, order.priceTicks, order.market.index);
  }

  /** Stops counting an order that leaves the book (before its qty or price changes). */
  uncount(order: Order): void {
    const ownerId = order.ownerId;
    const chunkIndex = ownerId >>> CHUNK_BITS;
    const chunk = this.chunks[chunkIndex];
    assert(chunk !== undefined, "an uncounted order's owner has figures");
    const slot = (ownerId & CHUNK_MASK) << 1;
    this.add(chunk, slot, ownerId, -(order.qtyLots - order.cumLots), order.priceTicks, order.market.index);
    const count = --chunk[slot]!;
    assert(count >= 0, "an owner's open-order count never goes negative");
    if (count === 0) this.clearOwner(chunk, slot, ownerId, chunkIndex);
  }

  /** A counted order's remaining quantity fell by `lots` (a maker fill, a decrease in place). */
  reduce(order: Order, lots: number): void {
    const ownerId = order.ownerId;
    this.add(this.chunks[ownerId >>> CHUNK_BITS]!, (ownerId & CHUNK_MASK) << 1, ownerId, -lots, order.priceTicks, order.market.index);
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
    const count = this.countOf(ownerId);
    if (count === 0) return { count: 0, notionalUnits: 0n };
    return { count, notionalUnits: this.unitsOfOwner(ownerId) };
  }

  figures(ownerId: number): OpenOrderFigures {
    const count = this.countOf(ownerId);
    if (count === 0) return { count: 0, notional: new Dec(0) };
    return { count, notional: new Dec(this.unitsOfOwner(ownerId).toString()).div(new Dec(10).pow(this.decimals)) };
  }

  /** Owners with resting orders, ascending (for state dumps). */
  ownerIds(): number[] {
    const owners: number[] = [];
    for (let chunkIndex = 0; chunkIndex < this.chunks.length; chunkIndex++) {
      const chunk = this.chunks[chunkIndex];
      if (chunk === undefined) continue;
      for (let slot = 0; slot <= CHUNK_MASK; slot++) if (chunk[2 * slot]! > 0) owners.push((chunkIndex << CHUNK_BITS) + slot);
    }
    return owners;
  }

  private countOf(ownerId: number): number {
    if (!Number.isSafeInteger(ownerId) || ownerId < 0 || ownerId >= OWNER_ID_LIMIT) return 0;
    const chunk = this.chunks[ownerId >>> CHUNK_BITS];
    return chunk === undefined ? 0 : chunk[(ownerId & CHUNK_MASK) << 1]!;
  }

  private unitsOfOwner(ownerId: number): bigint {
    const chunk = this.chunks[ownerId >>> CHUNK_BITS]!;
    return BigInt(chunk[((ownerId & CHUNK_MASK) << 1) + 1]!) + (this.overflow.get(ownerId) ?? 0n);
  }

  private add(chunk: Float64Array, slot: number, ownerId: number, lots: number, ticks: number, marketIndex: number): void {
    const multiplier = this.multipliers[marketIndex]!;
    const product = lots * ticks * multiplier;
    const sum = chunk[slot + 1]! + product;
    if (Number.isSafeInteger(product) && Number.isSafeInteger(sum)) {
      chunk[slot + 1] = sum;
      return;
    }
    const exact = (this.overflow.get(ownerId) ?? 0n) + BigInt(lots) * BigInt(ticks) * BigInt(multiplier);
    if (exact === 0n) this.overflow.delete(ownerId);
    else this.overflow.set(ownerId, exact);
  }

  /**
   * An owner's count fell to 0: its sum is 0 (its parts cancel out); its
   * chunk is freed once no owner in it has a count. The rare parts (a sum
   * to check, a chunk to free) are functions of their own, so that this
   * one stays small enough for V8 to inline into `uncount`.
   */
  private clearOwner(chunk: Float64Array, slot: number, ownerId: number, chunkIndex: number): void {
    if (chunk[slot + 1] !== 0 || this.overflow.size !== 0) this.clearSum(chunk, slot, ownerId);
    if (--this.activeOwners[chunkIndex]! === 0) this.freeChunk(chunk, chunkIndex);
  }

  private clearSum(chunk: Float64Array, slot: number, ownerId: number): void {
    const rest = this.overflow.get(ownerId) ?? 0n;
    assert(BigInt(chunk[slot + 1]!) + rest === 0n, "an owner without open orders has no open notional");
    chunk[slot + 1] = 0;
    this.overflow.delete(ownerId);
  }

  private freeChunk(chunk: Float64Array, chunkIndex: number): void {
    this.chunks[chunkIndex] = undefined;
    if (this.spares.length < MAX_SPARE_CHUNKS) this.spares.push(chunk);
  }

  private openChunk(ownerId: number): Float64Array {
    assert(ownerId < OWNER_ID_LIMIT, `ownerId ${ownerId} is below ${OWNER_ID_LIMIT}`);
    const chunkIndex = ownerId >>> CHUNK_BITS;
    while (this.chunks.length <= chunkIndex) {
      this.chunks.push(undefined);
      this.activeOwners.push(0);
    }
    const chunk = this.spares.pop() ?? new Float64Array(2 << CHUNK_BITS);
    this.chunks[chunkIndex] = chunk;
    this.activeOwners[chunkIndex] = 0;
    return chunk;
  }
}
