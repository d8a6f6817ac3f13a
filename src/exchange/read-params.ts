/**
 * The checks of REST read parameters, shared by the two drivers that answer
 * reads: the live server's `/v2` routes (src/live/rest.ts) and the
 * simulator's in-process reads (src/sim/transport.ts). One set of checks, so
 * a read the live server answers with a 400 RequestError is refused in the
 * simulator with the same code and message.
 *
 * - Path parameters (spec 2.1): a symbol matches SYMBOL_PATTERN, a wallet
 *   address ADDRESS_PATTERN (either case), else INPUT_VALIDATION_ERROR.
 * - Integer query parameters (`limit`, `startTime`, `endTime`) are read
 *   from their text form (the query string; a number passed in process is
 *   read as `String(value)`, the text an HTTP client would send): digits
 *   only, within the safe integer range.
 * - `limit` within [1, max] (the route's maximum); `startTime` not after
 *   `endTime`; a `cursor` not empty; a transfer `type` one of TRANSFER_TYPES.
 * - A well-formed symbol that names no market, or a market of the wrong
 *   kind, is SYMBOL_NOT_FOUND_ERROR.
 *
 * The checks throw ReadRequestError; each driver turns it into its own
 * answer (an HTTP 400 body, a RequestFailedError of the client SDK).
 */
import type { RequestErrorCode } from "../spec/errors.ts";
import { TRANSFER_TYPES } from "../spec/enums.ts";
import { ADDRESS_PATTERN, SYMBOL_PATTERN } from "../spec/scalars.ts";
import { quote } from "./gateway/validate/errors.ts";

/** A read refused with a RequestError (an HTTP 400 on the live server). */
export class ReadRequestError extends Error {
  override readonly name = "ReadRequestError";
  constructor(
    readonly code: RequestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** An INPUT_VALIDATION_ERROR refusal. */
export function invalidRead(message: string): ReadRequestError {
  return new ReadRequestError("INPUT_VALIDATION_ERROR", message);
}

/** A symbol path parameter, checked against SYMBOL_PATTERN. */
export function checkSymbolParam(symbol: string): string {
  if (!SYMBOL_PATTERN.test(symbol)) throw invalidRead(`symbol ${quote(symbol)} does not match ${SYMBOL_PATTERN.source}`);
  return symbol;
}

/** A wallet address path parameter, checked against ADDRESS_PATTERN. */
export function checkAddressParam(address: string): string {
  if (!ADDRESS_PATTERN.test(address)) throw invalidRead(`address ${quote(address)} does not match ${ADDRESS_PATTERN.source}`);
  return address;
}

/** A non-negative integer query parameter from its text (undefined when not given). */
export function integerParam(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw invalidRead(`${name} ${quote(text)} is not a non-negative integer`);
  // Judged by its significant digits: leading zeros ("0002") do not make a value long.
  const significant = text.replace(/^0+(?=\d)/, "");
  const value = significant.length <= 16 ? Number(significant) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw invalidRead(`${name} ${quote(text)} is beyond the safe integer range (at most ${Number.MAX_SAFE_INTEGER})`);
  return value;
}

/** An integer query parameter given in process as a number: read as the text an HTTP client would send. */
export function integerValue(name: string, value: number | undefined): number | undefined {
  return value === undefined ? undefined : integerParam(name, String(value));
}

/** `limit` within [1, max]. */
export function checkLimit(limit: number, max: number): number {
  if (limit < 1 || limit > max) throw invalidRead(`limit ${limit} is out of range: it must be an integer within [1, ${max}]`);
  return limit;
}

/** `startTime` not after `endTime` (both ms, inclusive). */
export function checkTimeRange(startTime: number | undefined, endTime: number | undefined): void {
  if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw invalidRead(`startTime ${startTime} is after endTime ${endTime}`);
}

/** A page cursor, when given, is not empty (whether this service issued it is the listing's own check). */
export function checkCursor(cursor: string | undefined): void {
  if (cursor === "") throw invalidRead("cursor must not be empty");
}

/** A transfer `type` filter, when given, is a TransferType. */
export function checkTransferType(type: string | undefined): void {
  if (type !== undefined && !(TRANSFER_TYPES as readonly string[]).includes(type)) throw invalidRead(`type ${quote(type)} is not one of ${TRANSFER_TYPES.join(", ")}`);
}

/** The symbol, which must name a market (of `kind`, when given): else SYMBOL_NOT_FOUND_ERROR. */
export function checkMarket(markets: ReadonlyMap<string, { readonly kind: "perp" | "spot" }>, symbol: string, kind?: "perp" | "spot"): string {
  const ref = markets.get(symbol);
  if (ref === undefined) throw new ReadRequestError("SYMBOL_NOT_FOUND_ERROR", `symbol ${quote(symbol)} does not resolve to a market`);
  if (kind !== undefined && ref.kind !== kind) throw new ReadRequestError("SYMBOL_NOT_FOUND_ERROR", `symbol ${quote(symbol)} is a ${ref.kind} market, not a ${kind} market`);
  return symbol;
}

/** A page's bounds: the limit and the optional time range (ms), as checked above. */
export interface PageBounds {
  readonly limit: number;
  readonly startTime?: number | undefined;
  readonly endTime?: number | undefined;
}

/**
 * The `{data, meta}` page of timestamped records a list read answers (the
 * executions and busts of a wallet or market): `fetch(count)` gives the
 * newest `count` records, newest first; with a time range, every retained
 * one (`retained`, ExchangeConfig.recordsRetained) is fetched and filtered,
 * then the page is cut to the limit. `meta` echoes the bounds given.
 */
export function recordsPage<T extends { readonly timestamp: number }>(fetch: (count: number) => T[], bounds: PageBounds, retained: number): { data: T[]; meta: { limit: number; startTime?: number; endTime?: number } } {
  const { limit, startTime, endTime } = bounds;
  const filtered = startTime !== undefined || endTime !== undefined;
  const rows = fetch(filtered ? Math.max(limit, retained) : limit);
  const kept = filtered ? rows.filter((row) => (startTime === undefined || row.timestamp >= startTime) && (endTime === undefined || row.timestamp <= endTime)) : rows;
  return { data: kept.slice(0, limit), meta: { limit, ...(startTime === undefined ? {} : { startTime }), ...(endTime === undefined ? {} : { endTime }) } };
}
