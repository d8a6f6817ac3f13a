/**
 * Structure of a cancelAllAfter request (spec 4.2.6, 7.3, 8.5).
 *
 * Precedence, first failure wins: schema (CancelAllAfterRequest, first
 * failing field in schema order); the nonce within uint64 (the
 * CancelAllAfter envelope signs it as uint64, reference/signing.md);
 * timeoutMs 0 (disarm) or within [5000, 60000] (INPUT_VALIDATION_ERROR).
 * No symbol, no market: the switch is per account.
 */
import {
  CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM,
  CANCEL_ALL_AFTER_TIMEOUT_MS_MAX,
  CANCEL_ALL_AFTER_TIMEOUT_MS_MIN,
} from "../../../spec/limits.ts";
import { CancelAllAfterRequest } from "../../../spec/requests.ts";
import { invalid, quote } from "./errors.ts";
import { checkUint64Nonce, parseSchema, wireInteger } from "./fields.ts";
import type { Validation, ValidatedCancelAllAfter, ValidationContext } from "./types.ts";

/**
 * Validates the structure of a cancelAllAfter body; never throws on any
 * input. `context` is taken for a uniform signature; no field needs it.
 */
export function validateCancelAllAfter(body: unknown, _context: ValidationContext): Validation<ValidatedCancelAllAfter> {
  const parsed = parseSchema(CancelAllAfterRequest, body);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const nonce = checkUint64Nonce(request.nonce);
  if (!nonce.ok) return nonce;
  const timeoutMs = wireInteger(request.timeoutMs);
  const armed = timeoutMs >= CANCEL_ALL_AFTER_TIMEOUT_MS_MIN && timeoutMs <= CANCEL_ALL_AFTER_TIMEOUT_MS_MAX;
  if (timeoutMs !== CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM && !armed) {
    return invalid(
      `timeoutMs ${quote(timeoutMs)} must be ${CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM} or within ` +
        `[${CANCEL_ALL_AFTER_TIMEOUT_MS_MIN}, ${CANCEL_ALL_AFTER_TIMEOUT_MS_MAX}]`,
    );
  }
  return {
    ok: true,
    value: {
      operation: "cancelAllAfter",
      request,
      accountId: wireInteger(request.accountId),
      timeoutMs,
      nonce: nonce.value,
      nonceText: request.nonce,
      deadline: wireInteger(request.deadline),
      signature: request.signature,
      signerWallet: request.signerWallet,
    },
  };
}
