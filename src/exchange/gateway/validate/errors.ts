/**
 * Building RequestErrors and their messages.
 *
 * Messages follow the project's style: sentence case, no final period, the
 * field named first, values quoted (`qty "0.0015" is not a multiple of
 * qtyStepSize "0.001"`). A quoted value longer than QUOTED_VALUE_CHARS_MAX
 * characters is cut and marked with "...", so that a huge input never makes
 * a huge error message.
 */
import type { RequestError, RequestErrorCode } from "../../../spec/errors.ts";

/** Longest wire value quoted whole in a message (a uint256 nonce has 78 digits). */
export const QUOTED_VALUE_CHARS_MAX = 100;

export function requestError(code: RequestErrorCode, message: string): RequestError {
  return { error: code, message };
}

/** A failed Validation or Check. */
export function fail(code: RequestErrorCode, message: string): { readonly ok: false; readonly error: RequestError } {
  return { ok: false, error: requestError(code, message) };
}

export function invalid(message: string): { readonly ok: false; readonly error: RequestError } {
  return fail("INPUT_VALIDATION_ERROR", message);
}

/** A wire value in double quotes: strings as they are, numbers as JavaScript prints them. */
export function quote(value: string | number | bigint | boolean): string {
  const text = String(value);
  const cut = text.length > QUOTED_VALUE_CHARS_MAX ? `${text.slice(0, QUOTED_VALUE_CHARS_MAX)}...` : text;
  return `"${cut}"`;
}

/** What a JSON value is, for "got ..." in a wrong-type message. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return Number.isNaN(value) ? "NaN" : "a number";
    case "boolean":
      return "a boolean";
    case "bigint":
      return "a bigint";
    case "object":
      return "an object";
    case "undefined":
      return "undefined";
    default:
      return typeof value;
  }
}

/** "an IOC order", "a STOP_LOSS order", "a spot order": the indefinite article of a word. */
export function aOrAn(word: string): string {
  return /^[AEIOaeio]/.test(word) ? `an ${word}` : `a ${word}`;
}
