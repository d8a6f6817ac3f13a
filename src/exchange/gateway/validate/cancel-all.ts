/**
 * Structure of a cancelAll request (spec 4.2.5, 7.3).
 *
 * Precedence, first failure wins: schema (CancelAllRequest, first failing
 * field in schema order); the nonce within uint64 (the MassCancel envelope
 * signs it as uint64, reference/signing.md); symbol, when sent. Without a
 * symbol the request covers every market of the account. An empty symbol
 * ("") counts as sent, and resolves to no market.
 */
import { CancelAllRequest } from "../../../spec/requests.ts";
import { checkUint64Nonce, parseSchema, resolveSymbol, wireInteger } from "./fields.ts";
import type { MarketRef, Validation, ValidatedCancelAll, ValidationContext } from "./types.ts";

/** Validates the structure of a cancelAll body; never throws on any input. */
export function validateCancelAll(body: unknown, context: ValidationContext): Validation<ValidatedCancelAll> {
  const parsed = parseSchema(CancelAllRequest, body);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const nonce = checkUint64Nonce(request.nonce);
  if (!nonce.ok) return nonce;
  let market: MarketRef | undefined;
  if (request.symbol !== undefined) {
    const resolved = resolveSymbol(request.symbol, context);
    if (!resolved.ok) return resolved;
    market = resolved.value;
  }
  return {
    ok: true,
    value: {
      operation: "cancelAll",
      request,
      ...(market === undefined ? {} : { market }),
      accountId: wireInteger(request.accountId),
      nonce: nonce.value,
      nonceText: request.nonce,
      deadline: wireInteger(request.deadline),
      signature: request.signature,
    },
  };
}
