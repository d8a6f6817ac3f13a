/**
 * Per-market conversion between wire decimals and the book's integers:
 * prices in ticks of tickSize, quantities in lots of qtyStepSize.
 *
 * A value off the grid or below minOrderQty is PRICE_QTY_BOUNDS_ERROR (never
 * rounded), a malformed one INPUT_VALIDATION_ERROR, one beyond the numeric
 * range NUMERIC_OVERFLOW_ERROR (DESIGN.md, "Errors and bad input"). The
 * messages name the field, the value and the rule.
 */
import { Dec, DecimalInputError, formatDecimal, formatSteps, parseUnsigned, stepScale, toUnits, type StepScale } from "../core/decimal.ts";
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
  /** Wire texts of recent prices and quantities, by count of ticks and of lots (see cachedText). */
  private readonly priceTexts = new Map<number, string>();
  private readonly qtyTexts = new Map<number, string>();
  /** tickSize and qtyStepSize as integer x 10^-decimals, to format a text table's misses in integers (formatSteps). */
  private readonly tickScale: StepScale | null;
  private readonly lotScale: StepScale | null;

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
    this.tickScale = stepScale(this.tickSize);
    this.lotScale = stepScale(this.qtyStepSize);
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
    return cachedText(this.priceTexts, ticks, this.tickSize, this.tickScale);
  }

  formatQty(lots: number): string {
    return cachedText(this.qtyTexts, lots, this.qtyStepSize, this.lotScale);
  }

  /** The quote-currency value of a sum of ticks x lots. */
  notional(tickLots: bigint): Dec {
    return this.notionalUnit.mul(tickLots.toString());
  }
}

/** Entries per text table; a full table starts over. */
const TEXTS_MAX = 4096;

/**
 * The wire text of `units` steps, remembered: rows, responses and depth
 * format the same few prices and quantities over and over, and the text is a
 * pure function of the count and the step, so one string serves every call.
 * A miss (a price not seen lately: a drifting market, or a table just
 * started over) is formatted in integers (formatSteps), not through
 * decimal.js, whose product and toFixed cost ~5,000 instructions.
 */
function cachedText(texts: Map<number, string>, units: number, step: Dec, scale: StepScale | null): string {
  let text = texts.get(units);
  if (text === undefined) {
    text = formatSteps(units, step, scale);
    if (texts.size >= TEXTS_MAX) texts.clear();
    texts.set(units, text);
  }
  return text;
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
