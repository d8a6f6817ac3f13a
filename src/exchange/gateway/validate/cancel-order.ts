/**
 * Structure of a cancelOrder request (spec 4.2.4, 7.3).
 *
 * Precedence, first failure wins: schema (CancelOrderRequest, first failing
 * field in schema order); the nonce within uint64 (the OrderCancel envelope
 * signs it as uint64, reference/signing.md); symbol; the lookup key (orderId,
 * or a non-zero clientOrderId when orderId is absent).
 *
 * When both are sent, orderId is the key and clientOrderId is not used
 * (spec 4.2.4); a clientOrderId "0" beside an orderId is dropped from the
 * value, since it names no order.
 */
import { CancelOrderRequest } from "../../../spec/requests.ts";
import { canonicalUint, checkUint64Nonce, isZeroUint, orderLookup, parseSchema, resolveSymbol, wireInteger } from "./fields.ts";
import type { Validation, ValidatedCancelOrder, ValidationContext } from "./types.ts";

/** Validates the structure of a cancelOrder body; never throws on any input. */
export function validateCancelOrder(body: unknown, context: ValidationContext): Validation<ValidatedCancelOrder> {
  const parsed = parseSchema(CancelOrderRequest, body);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const nonce = checkUint64Nonce(request.nonce);
  if (!nonce.ok) return nonce;
  const market = resolveSymbol(request.symbol, context);
  if (!market.ok) return market;
  const lookup = orderLookup(request.orderId, request.clientOrderId);
  if (!lookup.ok) return lookup;
  const clientOrderId =
    request.clientOrderId === undefined || isZeroUint(request.clientOrderId) ? undefined : canonicalUint(request.clientOrderId);
  return {
    ok: true,
    value: {
      operation: "cancelOrder",
      request,
      market: market.value,
      accountId: wireInteger(request.accountId),
      lookup: lookup.value,
      ...(request.orderId === undefined ? {} : { orderId: canonicalUint(request.orderId) }),
      ...(clientOrderId === undefined ? {} : { clientOrderId }),
      nonce: nonce.value,
      nonceText: request.nonce,
      deadline: wireInteger(request.deadline),
      signature: request.signature,
    },
  };
}
