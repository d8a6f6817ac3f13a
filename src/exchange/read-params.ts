/**
 * Refusals of REST reads, for the drivers that answer reads: the live
 * server's `/v2` routes (src/live/rest.ts) and the simulator's in-process
 * reads (src/sim/transport.ts). A read refused with a RequestError throws
 * ReadRequestError (code and message); each driver turns it into its own
 * answer (an HTTP 400 body, a RequestFailedError of the client SDK).
 *
 * A well-formed symbol that names no market, or a market of the wrong kind,
 * is SYMBOL_NOT_FOUND_ERROR.
 */
import type { RequestErrorCode } from "../spec/errors.ts";
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

/** The symbol, which must name a market (of `kind`, when given): else SYMBOL_NOT_FOUND_ERROR. */
export function checkMarket(markets: ReadonlyMap<string, { readonly kind: "perp" | "spot" }>, symbol: string, kind?: "perp" | "spot"): string {
  const ref = markets.get(symbol);
  if (ref === undefined) throw new ReadRequestError("SYMBOL_NOT_FOUND_ERROR", `symbol ${quote(symbol)} does not resolve to a market`);
  if (kind !== undefined && ref.kind !== kind) throw new ReadRequestError("SYMBOL_NOT_FOUND_ERROR", `symbol ${quote(symbol)} is a ${ref.kind} market, not a ${kind} market`);
  return symbol;
}
