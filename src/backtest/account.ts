/**
 * Accounting of a replay backtest, per market, in the quote currency
 * (rUSD for every market of the default set), exact:
 *
 * - position in lots (signed), and its cost basis (average-cost method);
 * - cash: minus the notional bought, plus the notional sold, minus fees;
 * - realized PnL: the price moves captured by reducing fills, against the
 *   average entry price;
 * - unrealized PnL: the open position valued at the replayed mid (the last
 *   trade price when a side of the book is empty) minus its cost basis;
 * - fees: notional times the maker or taker rate (negative rate: a rebate).
 *
 * PnL = realized + unrealized - fees = cash + position value.
 *
 * Hot-path arithmetic is integer: a fill's notional is priceTicks x qtyLots
 * units of tickSize x qtyStepSize, fees are notional x the rate's digits in
 * units 10^-rateDigits smaller, both summed as bigint. Only the cost basis
 * needs a division (a reduced position keeps its average price), done
 * exactly in decimal.js on reducing fills. Realized PnL is then
 * gross cash + cost basis. The summary rounds PnL (whose average entry
 * price may not terminate) half-even to `PNL_FRACTION_DIGITS`.
 */
import { Dec, roundTo } from "../core/decimal.ts";
import type { Side } from "./strategy.ts";

/** Fraction digits of the PnL figures of a summary. */
export const PNL_FRACTION_DIGITS = 12;
const pnlText = (value: Dec): string => roundTo(value, PNL_FRACTION_DIGITS).toFixed();

export interface FeeRates {
  readonly makerRate: string;
  readonly takerRate: string;
}

export const DEFAULT_FEES: FeeRates = { makerRate: "0", takerRate: "0.0004" };

export interface FillRecord {
  readonly fillId: number;
  readonly orderId: number;
  readonly symbol: string;
  readonly side: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly maker: boolean;
  /** The fee (quote currency) as a float, for analysis; the exact sums are the account's. */
  readonly fee: number;
  readonly positionLots: number;
  readonly atMicros: number;
}

export interface MarketAccountSummary {
  readonly symbol: string;
  readonly fills: number;
  readonly makerFills: number;
  readonly takerFills: number;
  readonly volumeLots: number;
  /** Decimal strings in the quote currency (base for `position`). */
  readonly position: string;
  readonly volume: string;
  readonly fees: string;
  readonly cash: string;
  readonly realizedPnl: string;
  readonly unrealizedPnl: string;
  readonly pnl: string;
  readonly markPrice: string | null;
}

/** A rate as an integer over 10^digits: "0.00035" -> (35n, 5). */
function rateParts(rate: string, field: string): { units: bigint; digits: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(rate);
  if (match === null) throw new RangeError(`${field} "${rate}" must be a decimal string`);
  const fraction = match[3] ?? "";
  const units = BigInt(`${match[2]}${fraction}`);
  return { units: match[1] === "-" ? -units : units, digits: fraction.length };
}

export class MarketAccount {
  positionLots = 0;
  fills = 0;
  makerFills = 0;
  takerFills = 0;
  volumeLots = 0;
  /** Sum of signed notionals, sells positive (units of tick x step). */
  private grossUnits = 0n;
  private volumeUnits = 0n;
  /** Fees in units of tick x step x 10^-feeDigits. */
  private feeUnits = 0n;
  /**
   * Cost basis of the open position (signed: a short's is negative), in
   * units of tick x step: a safe integer in `basisUnits` while it is one
   * (the usual case: no decimal arithmetic per fill), else exact in
   * `basisDec` (a reduction whose average price does not divide evenly).
   */
  private basisUnits = 0;
  private basisDec: Dec | null = null;
  private readonly unit: Dec;
  private readonly feeUnit: Dec;
  private readonly tick: Dec;
  private readonly step: Dec;
  private readonly makerRate: bigint;
  private readonly takerRate: bigint;
  /** A fee unit as a float (the fill records' analysis value). */
  private readonly feeUnitFloat: number;

  constructor(
    readonly symbol: string,
    tickSize: string,
    qtyStepSize: string,
    rates: FeeRates,
  ) {
    this.tick = new Dec(tickSize);
    this.step = new Dec(qtyStepSize);
    this.unit = this.tick.mul(this.step);
    const maker = rateParts(rates.makerRate, "fees.makerRate");
    const taker = rateParts(rates.takerRate, "fees.takerRate");
    const digits = Math.max(maker.digits, taker.digits);
    this.makerRate = maker.units * 10n ** BigInt(digits - maker.digits);
    this.takerRate = taker.units * 10n ** BigInt(digits - taker.digits);
    this.feeUnit = this.unit.div(new Dec(10).pow(digits));
    this.feeUnitFloat = this.feeUnit.toNumber();
  }

  /** Books one fill; returns its fee as a float (analysis only). */
  fill(side: Side, priceTicks: number, qtyLots: number, maker: boolean): number {
    const notional = priceTicks * qtyLots;
    if (!Number.isSafeInteger(notional)) throw new RangeError(`${this.symbol} fill of ${qtyLots} lots at ${priceTicks} ticks overflows a safe integer of notional units`);
    const notionalUnits = BigInt(notional);
    const feeUnits = notionalUnits * (maker ? this.makerRate : this.takerRate);
    const buy = side === "B";
    const signedLots = buy ? qtyLots : -qtyLots;
    const before = this.positionLots;
    const after = before + signedLots;
    if (before === 0 || (before > 0) === buy) {
      this.addBasis(buy ? notional : -notional);
    } else if (Math.abs(signedLots) < Math.abs(before)) {
      // Reducing: the rest keeps its average price.
      this.scaleBasis(Math.abs(after), Math.abs(before));
    } else {
      // Closing, maybe flipping: what is opened is at this price (a safe integer: |after| <= qtyLots).
      this.basisUnits = after === 0 ? 0 : (after > 0 ? 1 : -1) * priceTicks * Math.abs(after);
      this.basisDec = null;
    }
    this.positionLots = after;
    this.grossUnits += buy ? -notionalUnits : notionalUnits;
    this.volumeUnits += notionalUnits;
    this.feeUnits += feeUnits;
    this.volumeLots += qtyLots;
    this.fills++;
    if (maker) this.makerFills++;
    else this.takerFills++;
    return Number(feeUnits) * this.feeUnitFloat;
  }

  private addBasis(units: number): void {
    if (this.basisDec === null) {
      const sum = this.basisUnits + units;
      if (Number.isSafeInteger(sum)) {
        this.basisUnits = sum;
        return;
      }
      this.basisDec = new Dec(this.basisUnits);
    }
    this.basisDec = this.basisDec.add(units);
  }

  /** basis x numerator / denominator, exact. */
  private scaleBasis(numerator: number, denominator: number): void {
    if (this.basisDec === null) {
      const product = this.basisUnits * numerator;
      if (Number.isSafeInteger(product) && product % denominator === 0) {
        this.basisUnits = product / denominator;
        return;
      }
      this.basisDec = new Dec(this.basisUnits);
    }
    this.basisDec = this.basisDec.mul(numerator).div(denominator);
  }

  /** The cost basis, exact. */
  private get costBasis(): Dec {
    return this.basisDec ?? new Dec(this.basisUnits);
  }

  /** Realized, unrealized and total PnL with the position valued at `markTicks` (NaN: no mark, valued at cost). */
  summary(markTicks: number): MarketAccountSummary {
    const hasMark = Number.isFinite(markTicks);
    const unit = this.unit;
    const fees = this.feeUnit.mul(this.feeUnits.toString());
    const gross = unit.mul(this.grossUnits.toString());
    const basis = unit.mul(this.costBasis);
    // A mark in half ticks (a mid) is exact in decimals: ticks x tickSize.
    const positionValue = hasMark ? this.tick.mul(markTicks).mul(this.step.mul(this.positionLots)) : basis;
    const unrealized = positionValue.sub(basis);
    const realized = gross.add(basis);
    const pnl = realized.add(unrealized).sub(fees);
    return {
      symbol: this.symbol,
      fills: this.fills,
      makerFills: this.makerFills,
      takerFills: this.takerFills,
      volumeLots: this.volumeLots,
      position: this.step.mul(this.positionLots).toFixed(),
      volume: unit.mul(this.volumeUnits.toString()).toFixed(),
      fees: fees.toFixed(),
      cash: pnlText(gross.sub(fees)),
      realizedPnl: pnlText(realized),
      unrealizedPnl: pnlText(unrealized),
      pnl: pnlText(pnl),
      markPrice: hasMark ? this.tick.mul(markTicks).toFixed() : null,
    };
  }
}
