/**
 * Per-market conversion between wire decimals and the book's integers:
 * prices in ticks of tickSize, quantities in lots of qtyStepSize.
 *
 * A value off the grid or below minOrderQty is PRICE_QTY_BOUNDS_ERROR (never
 * rounded), a malformed one INPUT_VALIDATION_ERROR, one beyond the numeric
 * range NUMERIC_OVERFLOW_ERROR (DESIGN.md, "Errors and bad input"). The
 * messages name the field, the value and the rule.
 */
import { Dec, DecimalInputError, formatDecimal, fromUnits, parseUnsigned, toUnits } from "../core/decimal.ts";
import type { EngineError, MarketSpec, RequestErrorCode } from "./types.ts";

export type UnitsResult = { readonly ok: true; readonly value: number } | { readonly ok: false; readonly error: EngineError };

const CODE_OF_KIND: Record<DecimalInputError["kind"], RequestErrorCode> = {
  grid: "PRICE_QTY_BOUNDS_ERROR",
  format: "INPUT_VALIDATION_ERROR",
  overflow: "NUMERIC_OVERFLOW_ERROR",
};

export class MarketUnits {
  readonly tickSize: Dec;
  readonly qtyStepSize: Dec;
  readonly minOrderQty: Dec;
  readonly minOrderLots: number;
  /** The value of one tick x one lot: the unit of open-order notional sums. */
  readonly notionalUnit: Dec;

  constructor(readonly spec: MarketSpec) {
    this.tickSize = parseUnsigned(spec.tickSize, "tickSize");
    this.qtyStepSize = parseUnsigned(spec.qtyStepSize, "qtyStepSize");
    this.minOrderQty = parseUnsigned(spec.minOrderQty, "minOrderQty");
    if (this.tickSize.lte(0) || this.qtyStepSize.lte(0)) {
      throw new RangeError(`market ${spec.symbol}: tickSize and qtyStepSize must be positive`);
    }
    // A minimum off the lot grid is a configuration error: no order could meet it exactly.
    this.minOrderLots = Math.max(1, toUnits(this.minOrderQty, this.qtyStepSize, "minOrderQty", "qtyStepSize"));
    this.notionalUnit = this.tickSize.mul(this.qtyStepSize);
  }

  /** A price (limitPx, triggerPx) in ticks: positive and a multiple of tickSize. */
  toTicks(text: string, field = "limitPx"): UnitsResult {
    const converted = convert(text, this.tickSize, field, "tickSize");
    if (!converted.ok) return converted;
    if (converted.value <= 0) return bounds(`${field} "${text}" must be greater than 0`);
    return converted;
  }

  /** A quantity in lots: a multiple of qtyStepSize and at least minOrderQty. */
  toLots(text: string, field = "qty"): UnitsResult {
    const converted = convert(text, this.qtyStepSize, field, "qtyStepSize");
    if (!converted.ok) return converted;
    if (converted.value < this.minOrderLots) {
      return bounds(`${field} "${text}" is below minOrderQty "${formatDecimal(this.minOrderQty)}"`);
    }
    return converted;
  }

  formatPrice(ticks: number): string {
    return formatDecimal(fromUnits(ticks, this.tickSize));
  }

  formatQty(lots: number): string {
    return formatDecimal(fromUnits(lots, this.qtyStepSize));
  }

  /** The quote-currency value of a sum of ticks x lots. */
  notional(tickLots: bigint): Dec {
    return this.notionalUnit.mul(tickLots.toString());
  }
}

function convert(text: string, step: Dec, field: string, stepName: string): UnitsResult {
  try {
    return { ok: true, value: toUnits(parseUnsigned(text, field), step, field, stepName) };
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
    return { ok: false, error: { code: CODE_OF_KIND[error.kind], message: error.message } };
  }
}

function bounds(message: string): UnitsResult {
  return { ok: false, error: { code: "PRICE_QTY_BOUNDS_ERROR", message } };
}
