/**
 * Request bodies of the order-entry operations (spec 4.2), identical on
 * REST (POST /v2/<operation>) and WebSocket order entry (the `payload`).
 *
 * These schemas are structural: field names, types and patterns. The rules
 * that tie fields together (qty required for LIMIT and omitted for a
 * trigger, triggerPx only on a trigger, reduceOnly only on perp IOC,
 * postOnly not on IOC, expiresAfter only for GTT and after deadline, one of
 * orderId/clientOrderId, a non-zero clientOrderId, timeoutMs 0 or within
 * [5000, 60000], deadline horizons) and the value ranges of decimals belong
 * to the gateway, which answers them with RequestError codes.
 *
 * `symbol` is any string here: a symbol that does not resolve to a market,
 * malformed or not, is SYMBOL_NOT_FOUND_ERROR at the gateway (spec 7.3).
 * Prices and quantities are UnsignedDecimal (they are signed as uint256 and
 * as the magnitude of an int256). Times are integers: `deadline` and
 * `expiresAfter` in Unix seconds, `timeoutMs` in ms.
 */
import { z } from "zod";
import { OrderType, TimeInForce } from "./enums.ts";
import { Address, Id, Nonce, Signature, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/** Spec 4.2.1 createOrder request. */
export const CreateOrderRequest = z
  .looseObject({
    exchangeId: UnsignedInteger,
    symbol: z.string(),
    accountId: UnsignedInteger,
    isBuy: z.boolean(),
    limitPx: UnsignedDecimal,
    qty: UnsignedDecimal.exactOptional(),
    orderType: OrderType,
    timeInForce: TimeInForce,
    triggerPx: UnsignedDecimal.exactOptional(),
    reduceOnly: z.boolean().exactOptional(),
    postOnly: z.boolean().exactOptional(),
    signature: Signature,
    nonce: Nonce,
    signerWallet: Address,
    deadline: UnsignedInteger,
    expiresAfter: UnsignedInteger.exactOptional(),
    clientOrderId: Id.exactOptional(),
  })
  .meta({ id: "CreateOrderRequest" });
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/**
 * Spec 4.2.3 modifyOrder request: the complete post-modify order restated
 * under a fresh signature and nonce. orderId is the lookup key when present,
 * else clientOrderId.
 */
export const ModifyOrderRequest = z
  .looseObject({
    orderId: Id.exactOptional(),
    clientOrderId: Id.exactOptional(),
    symbol: z.string(),
    accountId: UnsignedInteger,
    exchangeId: UnsignedInteger,
    isBuy: z.boolean(),
    orderType: OrderType,
    timeInForce: TimeInForce,
    triggerPx: UnsignedDecimal.exactOptional(),
    reduceOnly: z.boolean(),
    limitPx: UnsignedDecimal,
    qty: UnsignedDecimal.exactOptional(),
    postOnly: z.boolean(),
    expiresAfter: UnsignedInteger.exactOptional(),
    signature: Signature,
    nonce: Nonce,
    signerWallet: Address,
    deadline: UnsignedInteger,
  })
  .meta({ id: "ModifyOrderRequest" });
export type ModifyOrderRequest = z.infer<typeof ModifyOrderRequest>;

/** Spec 4.2.4 cancelOrder request; the signer is recovered from the signature (no signerWallet). */
export const CancelOrderRequest = z
  .looseObject({
    orderId: Id.exactOptional(),
    clientOrderId: Id.exactOptional(),
    accountId: UnsignedInteger,
    symbol: z.string(),
    signature: Signature,
    nonce: Nonce,
    deadline: UnsignedInteger,
  })
  .meta({ id: "CancelOrderRequest" });
export type CancelOrderRequest = z.infer<typeof CancelOrderRequest>;

/** Spec 4.2.5 cancelAll request; omit symbol to cancel across all markets of the account. */
export const CancelAllRequest = z
  .looseObject({
    accountId: UnsignedInteger,
    symbol: z.string().exactOptional(),
    signature: Signature,
    nonce: Nonce,
    deadline: UnsignedInteger,
  })
  .meta({ id: "CancelAllRequest" });
export type CancelAllRequest = z.infer<typeof CancelAllRequest>;

/** Spec 4.2.6 cancelAllAfter request: timeoutMs 0 disarms the account's switch. */
export const CancelAllAfterRequest = z
  .looseObject({
    accountId: UnsignedInteger,
    timeoutMs: UnsignedInteger,
    signature: Signature,
    nonce: Nonce,
    signerWallet: Address,
    deadline: UnsignedInteger,
  })
  .meta({ id: "CancelAllAfterRequest" });
export type CancelAllAfterRequest = z.infer<typeof CancelAllAfterRequest>;
