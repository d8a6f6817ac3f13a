/**
 * Who signed a request: the signature check of the gateway.
 *
 * In signed mode the signer is recovered from the EIP-712 signature over the
 * request as sent, synchronously: on the native fast path (byte-identical to
 * viem), or, when the native packages do not load, on viem's own digest and
 * secp256k1 (about 40x slower, same answers). In trusted mode (fast simulations) the signature is not
 * checked and the signer is the one the request names: `signerWallet` where
 * the request carries it, otherwise (cancelOrder, cancelAll) the signer of
 * the target order or the account's owner. Everything after this stage is
 * the same in both modes.
 *
 * A live driver may recover signatures ahead of time, off its main thread,
 * and hand the result in as a PrecomputedRecovery: the recovery of one
 * (kind, message, signature, config) on one verification path. It is used
 * in one of two ways, and otherwise ignored (the signature is recovered
 * here):
 * - compared: when its kind, message, signature and config equal, field by
 *   field, the ones built here from the validated request, and its path is
 *   the one this thread takes (a signer worker's, signer-pool.ts);
 * - taken on identity: when it carries `validated`, the structure stage's
 *   answer the driver computed for this very body object, operation and
 *   validation context (the gateway's own objects), and its message was
 *   built from that value with this very config object on this path
 *   (live/early-confirm.ts). The gateway takes the value as its structure
 *   stage's answer and the result without building the message again.
 * Either way it is exactly what validating and recovering here would give
 * (both are pure functions of those inputs), so the answer is the same byte
 * for byte, and a replay that recovers inline gives the same outputs. The
 * gateway trusts its driver for the result and the value themselves, as it
 * trusts its own code: clients never supply a PrecomputedRecovery.
 */
import { DecimalInputError } from "../../core/decimal.ts";
import type { SigningConfig } from "../../signing/domain.ts";
import { cancelAllAfterMessage, cancelMessage, massCancelMessage, orderMessage, type MarketRef } from "../../signing/messages.ts";
import type { SignedKind, SignedMessages } from "../../signing/types.ts";
import { recoverSignerSync, sameAddress, verifyPath, type RecoverResult, type VerifyPath } from "../../signing/verify.ts";
import type { OrderBody } from "../../signing/wire.ts";
import type { RequestError } from "../../spec/errors.ts";
import type { OrderEntryOperation } from "../../spec/exec-envelopes.ts";
import type {
  ValidatedCancelAll,
  ValidatedCancelAllAfter,
  ValidatedCancelOrder,
  ValidatedCreateOrder,
  ValidatedModifyOrder,
  ValidationContext,
} from "./validate/types.ts";

export type SignerResult = { ok: true; signer: string } | { ok: false; error: RequestError };

export type Validated = ValidatedCreateOrder | ValidatedModifyOrder | ValidatedCancelOrder | ValidatedCancelAll | ValidatedCancelAllAfter;

function marketRef(market: { marketId: number; kind: "perp" | "spot" }): MarketRef {
  return { marketId: BigInt(market.marketId), isSpot: market.kind === "spot" };
}

/**
 * A signature recovered ahead of time: `result` is recoverSignerSync(kind,
 * message, signature, config) on `path` (the two paths agree on every
 * signer, and a failure's detail text is the path's own).
 */
export interface PrecomputedRecovery {
  readonly path: VerifyPath;
  readonly kind: SignedKind;
  readonly message: SignedMessages[SignedKind];
  readonly signature: string;
  readonly config: SigningConfig;
  readonly result: RecoverResult;
  /**
   * The structure stage's answer the message was built from, when the
   * driver validated the request itself (live/early-confirm.ts):
   * validateRequest(op, body, context) for this very body object and
   * context, with `message` = signedMessage(value, config). The gateway then
   * takes `value` as its own structure stage's answer (a pure function of
   * those) and, seeing its own value, does not build the message again.
   */
  readonly validated?: { readonly op: OrderEntryOperation; readonly body: unknown; readonly context: ValidationContext; readonly value: Validated };
}

/** The typed-data message a validated request signs (throws DecimalInputError for a field it cannot encode). */
export function signedMessage(value: Validated, config: SigningConfig): { kind: SignedKind; message: SignedMessages[SignedKind] } {
  switch (value.operation) {
    case "createOrder":
    case "modifyOrder":
      return { kind: "Order", message: orderMessage(value.request as OrderBody, marketRef(value.market), config) };
    case "cancelOrder":
      return { kind: "OrderCancel", message: cancelMessage(value.request, marketRef(value.market), config) };
    case "cancelAll":
      return { kind: "MassCancel", message: massCancelMessage(value.request, value.market === undefined ? null : marketRef(value.market), config) };
    case "cancelAllAfter":
      return { kind: "CancelAllAfter", message: cancelAllAfterMessage(value.request, config) };
  }
}

/**
 * Recovers the signer, and checks it against `signerWallet` where the
 * request carries one: UNAUTHORIZED_SIGNATURE_ERROR when it cannot be
 * recovered or differs. `likelySigner`, for a request without a
 * signerWallet, is whom the caller expects (the account's last signer): a
 * hint for speed only (recoverSignerNative), never changing the answer.
 */
export function recoverRequestSigner(value: Validated, config: SigningConfig, precomputed?: PrecomputedRecovery, likelySigner?: string): SignerResult {
  if (precomputed?.validated?.value === value && precomputed.path === verifyPath() && precomputed.config === config) {
    // Built from this very value, with this config: the message built here would be the same.
    return signerOutcome(precomputed.result, "signerWallet" in value ? value.signerWallet : undefined);
  }
  let built: { kind: SignedKind; message: SignedMessages[SignedKind] };
  try {
    built = signedMessage(value, config);
  } catch (error) {
    if (error instanceof DecimalInputError) {
      const code = error.kind === "overflow" ? "NUMERIC_OVERFLOW_ERROR" : "INPUT_VALIDATION_ERROR";
      return { ok: false, error: { error: code, message: error.message } };
    }
    throw error;
  }
  const claimed = "signerWallet" in value ? value.signerWallet : undefined;
  const recovered =
    precomputed !== undefined && recoversSame(precomputed, built, value.signature, config)
      ? precomputed.result
      : recoverSignerSync(built.kind, built.message, value.signature, config, claimed ?? likelySigner);
  return signerOutcome(recovered, claimed);
}

/** The signer, or why not: a recovery refused, or a signer other than the one claimed. */
function signerOutcome(recovered: RecoverResult, claimed: string | undefined): SignerResult {
  if (!recovered.ok) {
    return { ok: false, error: { error: "UNAUTHORIZED_SIGNATURE_ERROR", message: `signature does not recover a signer: ${recovered.detail}` } };
  }
  if (claimed !== undefined && !sameAddress(claimed, recovered.address)) {
    return {
      ok: false,
      error: {
        error: "UNAUTHORIZED_SIGNATURE_ERROR",
        message: `recovered signer ${recovered.address} differs from signerWallet ${claimed}`,
      },
    };
  }
  return { ok: true, signer: recovered.address };
}

/** Whether `precomputed` recovered exactly this kind, message, signature and config. */
function recoversSame(precomputed: PrecomputedRecovery, built: { kind: SignedKind; message: SignedMessages[SignedKind] }, signature: string, config: SigningConfig): boolean {
  return (
    precomputed.kind === built.kind &&
    precomputed.signature === signature &&
    precomputed.path === verifyPath() &&
    (precomputed.config === config || samePlain(precomputed.config, config)) &&
    samePlain(precomputed.message, built.message)
  );
}

/** Deep equality of plain data (objects, arrays, primitives compared with ===, bigints by value). */
function samePlain(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !samePlain(left[key], right[key])) return false;
  }
  return true;
}
