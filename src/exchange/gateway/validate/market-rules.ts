/**
 * Market rules (DESIGN.md, "Numbers"; spec 2.3, 2.4): the last stage of the
 * gateway pipeline. Prices are whole ticks of the market's tickSize and
 * quantities whole lots of its qtyStepSize, never rounded, and a quantity is
 * at least minOrderQty. Every failure is PRICE_QTY_BOUNDS_ERROR.
 *
 * Order of checks, first failure wins: limitPx on the tick grid, triggerPx
 * on the tick grid, qty on the lot grid, qty >= minOrderQty.
 *
 * A value on the grid whose count of ticks or lots is beyond a safe integer
 * (the books count in JS numbers) is out of the book's bounds:
 * PRICE_QTY_BOUNDS_ERROR too. It cannot be NUMERIC_OVERFLOW_ERROR: the
 * structure stage has already bounded every decimal by int256.
 *
 * The perp IOC price band against the mark price is not here: it needs the
 * mark (the gateway checks it after this).
 */
import { DecimalInputError, fromE18, toE18, toUnits } from "../../../core/decimal.ts";
import { fail, quote } from "./errors.ts";
import type { DecimalField, MarketRef, Validation } from "./types.ts";

/** What the grid rules read of a request: a ValidatedCreateOrder or ValidatedModifyOrder fits. */
export interface GridSubject {
  readonly market: MarketRef;
  readonly limitPx: DecimalField;
  readonly qty?: DecimalField;
  readonly triggerPx?: DecimalField;
}

/** The order's prices and quantity as whole units of its market. */
export interface GridUnits {
  /** limitPx in ticks of tickSize. */
  readonly priceTicks: number;
  /** qty in lots of qtyStepSize; absent on a trigger. */
  readonly qtyLots?: number;
  /** triggerPx in ticks of tickSize; absent on a LIMIT. */
  readonly triggerTicks?: number;
}

/** Checks the tick and lot grids and the minimum quantity; returns the integer units on success. */
export function checkGrid(value: GridSubject): Validation<GridUnits> {
  const { market } = value;
  const priceTicks = units(value.limitPx, "limitPx", market.tickSize, "tickSize");
  if (!priceTicks.ok) return priceTicks;
  let triggerTicks: number | undefined;
  if (value.triggerPx !== undefined) {
    const ticks = units(value.triggerPx, "triggerPx", market.tickSize, "tickSize");
    if (!ticks.ok) return ticks;
    triggerTicks = ticks.value;
  }
  let qtyLots: number | undefined;
  if (value.qty !== undefined) {
    const lots = units(value.qty, "qty", market.qtyStepSize, "qtyStepSize");
    if (!lots.ok) return lots;
    // minOrderQty is configuration, checked when the market is defined: a bad one throws here.
    if (value.qty.e18 < stepE18(market.minOrderQty, "minOrderQty", false)) {
      return fail("PRICE_QTY_BOUNDS_ERROR", `qty ${quote(value.qty.text)} is below minOrderQty ${quote(market.minOrderQty)}`);
    }
    qtyLots = lots.value;
  }
  if (qtyLots === undefined) return { ok: true, value: triggerTicks === undefined ? { priceTicks: priceTicks.value } : { priceTicks: priceTicks.value, triggerTicks } };
  return { ok: true, value: triggerTicks === undefined ? { priceTicks: priceTicks.value, qtyLots } : { priceTicks: priceTicks.value, qtyLots, triggerTicks } };
}

/** The 10^18 fixed point of a configured decimal (a step or minOrderQty), parsed once per text. */
const configE18 = new Map<string, bigint>();

function stepE18(text: string, field: string, signed: boolean): bigint {
  let e18 = configE18.get(text);
  if (e18 === undefined) {
    e18 = toE18(text, field, { signed });
    configE18.set(text, e18);
  }
  return e18;
}

const MAX_SAFE_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

function units(field: DecimalField, name: string, step: string, stepName: string): Validation<number> {
  // Exact on the 10^18 fixed point: value / step is whole exactly when the scaled value is a multiple of the scaled step.
  let stepScaled: bigint | undefined;
  try {
    stepScaled = stepE18(step, stepName, true);
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
  }
  if (stepScaled === undefined || stepScaled <= 0n || field.e18 < 0n) return unitsOfDecimal(field, name, step, stepName);
  if (field.e18 % stepScaled !== 0n) return offGrid(field, name, step, stepName);
  const count = field.e18 / stepScaled;
  if (count > MAX_SAFE_UNITS) return beyondBook(field, name, step, stepName);
  return { ok: true, value: Number(count) };
}

/** The same rule through decimal.js: for what the fixed point cannot hold (a step beyond 18 digits, a bad step). */
function unitsOfDecimal(field: DecimalField, name: string, step: string, stepName: string): Validation<number> {
  try {
    return { ok: true, value: toUnits(fromE18(field.e18), step, name, stepName) };
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
    if (error.kind === "grid") return offGrid(field, name, step, stepName);
    return beyondBook(field, name, step, stepName);
  }
}

function offGrid(field: DecimalField, name: string, step: string, stepName: string): Validation<number> {
  return fail("PRICE_QTY_BOUNDS_ERROR", `${name} ${quote(field.text)} is not a multiple of ${stepName} ${quote(step)}`);
}

function beyondBook(field: DecimalField, name: string, step: string, stepName: string): Validation<number> {
  return fail(
    "PRICE_QTY_BOUNDS_ERROR",
    `${name} ${quote(field.text)} is beyond the book's range (more than ${Number.MAX_SAFE_INTEGER} steps of ${stepName} ${quote(step)})`,
  );
}
