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
 */
import { DecimalInputError } from "../../core/decimal.ts";
import type { SigningConfig } from "../../signing/domain.ts";
import { cancelAllAfterMessage, cancelMessage, massCancelMessage, orderMessage, type MarketRef } from "../../signing/messages.ts";
import type { SignedKind, SignedMessages } from "../../signing/types.ts";
import { recoverSignerSync, sameAddress } from "../../signing/verify.ts";
import type { OrderBody } from "../../signing/wire.ts";
import type { RequestError } from "../../spec/errors.ts";
import type {
  ValidatedCancelAll,
  ValidatedCancelAllAfter,
  ValidatedCancelOrder,
  ValidatedCreateOrder,
  ValidatedModifyOrder,
} from "./validate/types.ts";

export type SignerResult = { ok: true; signer: string } | { ok: false; error: RequestError };

export type Validated = ValidatedCreateOrder | ValidatedModifyOrder | ValidatedCancelOrder | ValidatedCancelAll | ValidatedCancelAllAfter;

function marketRef(market: { marketId: number; kind: "perp" | "spot" }): MarketRef {
  return { marketId: BigInt(market.marketId), isSpot: market.kind === "spot" };
}

/** The typed-data message a validated request signs. */
function signedMessage(value: Validated, config: SigningConfig): { kind: SignedKind; message: SignedMessages[SignedKind] } {
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
 * recovered or differs.
 */
export function recoverRequestSigner(value: Validated, config: SigningConfig): SignerResult {
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
  const recovered = recoverSignerSync(built.kind, built.message, value.signature, config);
  if (!recovered.ok) {
    return { ok: false, error: { error: "UNAUTHORIZED_SIGNATURE_ERROR", message: `signature does not recover a signer: ${recovered.detail}` } };
  }
  const claimed = "signerWallet" in value ? value.signerWallet : undefined;
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
