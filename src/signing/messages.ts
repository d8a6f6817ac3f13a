/**
 * Builders of the signed messages from wire request bodies: the one place
 * where the encoding rules of signing.md ("Encodings") are applied. The
 * gateway (to verify) and the client (to sign) both build through here, so
 * they cannot disagree about what a request signs.
 *
 * The builders encode; they do not enforce business rules. A field that the
 * rules say is not signed (reduceOnly outside perp IOC, a trigger's postOnly,
 * triggerPx on a LIMIT) is encoded as the rules say whatever was sent, and the
 * gateway's schema rejects such requests on its own. A value that cannot be
 * encoded at all (a LIMIT without qty, a number beyond its width) throws
 * DecimalInputError (see wire.ts).
 */
import type { Address } from "viem";
import { DecimalInputError, INT256_MAX, toE18 } from "../core/decimal.ts";
import {
  DEFAULT_SIGNING_CONFIG,
  ORDER_TYPE_CODES,
  SPOT_MARKET_ID_OFFSET,
  TIME_IN_FORCE_CODES,
  TRIGGER_QUANTITY_SENTINEL,
  type SigningConfig,
} from "./domain.ts";
import type { CancelAllAfterMessage, MassCancelMessage, OrderCancelMessage, OrderMessage } from "./types.ts";
import {
  wireUint,
  wireUintString,
  type CancelAllAfterBody,
  type CancelBody,
  type MassCancelBody,
  type OrderBody,
} from "./wire.ts";

/**
 * The market a request addresses, resolved by the caller from its symbol.
 * `marketId` is the id as listed in the market definitions (perp or spot);
 * the builders add SPOT_MARKET_ID_OFFSET for a spot market themselves, and
 * refuse a spot id that already carries it, so the offset is applied exactly
 * once.
 */
export interface MarketRef {
  marketId: bigint;
  isSpot: boolean;
}

/** The marketId a market signs: its listed id, plus 10^10 for a spot market. */
export function signedMarketId(market: MarketRef): bigint {
  if (market.marketId < 0n) throw new RangeError(`marketId ${market.marketId} is negative`);
  if (!market.isSpot) return market.marketId;
  if (market.marketId >= SPOT_MARKET_ID_OFFSET) {
    throw new RangeError(`spot marketId ${market.marketId} already carries the ${SPOT_MARKET_ID_OFFSET} offset; pass the listed id`);
  }
  return market.marketId + SPOT_MARKET_ID_OFFSET;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The signer as signed: lowercased. The encoding of an address does not
 * depend on letter case, but viem refuses a mixed-case address whose EIP-55
 * checksum is wrong, and the wire pattern allows any case.
 */
function signerAddress(value: string): Address {
  if (typeof value !== "string" || !ADDRESS.test(value)) {
    throw new DecimalInputError("format", "signerWallet", String(value), `signerWallet "${String(value)}" is not an address`);
  }
  return value.toLowerCase() as Address;
}

/** The signed quantity: E18 of qty with the side's sign, or the raw sentinel for a trigger. */
function signedQuantity(body: OrderBody, isTrigger: boolean): bigint {
  if (isTrigger) return body.isBuy ? TRIGGER_QUANTITY_SENTINEL : -TRIGGER_QUANTITY_SENTINEL;
  if (body.qty === undefined) throw new DecimalInputError("format", "qty", "", "qty is required for a LIMIT order");
  const magnitude = toE18(body.qty, "qty", { signed: false });
  if (magnitude > INT256_MAX) {
    throw new DecimalInputError("overflow", "qty", body.qty, `qty "${body.qty}" is beyond the int256 range at 18 decimals`);
  }
  return body.isBuy ? magnitude : -magnitude;
}

function signedTriggerPrice(body: OrderBody, isTrigger: boolean): bigint {
  if (!isTrigger) return 0n;
  if (body.triggerPx === undefined) {
    throw new DecimalInputError("format", "triggerPx", "", `triggerPx is required for a ${body.orderType} order`);
  }
  return toE18(body.triggerPx, "triggerPx", { signed: false });
}

/**
 * The `Order` message of a createOrder or modifyOrder body (modifyOrder
 * restates the complete post-modify order, so it signs the same envelope).
 */
export function orderMessage(body: OrderBody, market: MarketRef, config: SigningConfig = DEFAULT_SIGNING_CONFIG): OrderMessage {
  const orderType = ORDER_TYPE_CODES[body.orderType];
  const timeInForce = TIME_IN_FORCE_CODES[body.timeInForce];
  const isTrigger = orderType !== ORDER_TYPE_CODES.LIMIT;
  // reduceOnly is supported only on perp IOC limits; everywhere else it signs false.
  const reduceOnlySupported = !market.isSpot && !isTrigger && timeInForce === TIME_IN_FORCE_CODES.IOC;
  return {
    verifyingChainId: config.verifyingChainId,
    deadline: wireUint(body.deadline, "deadline", 256),
    order: {
      accountId: wireUint(body.accountId, "accountId", 128),
      marketId: signedMarketId(market),
      exchangeId: wireUint(body.exchangeId, "exchangeId", 128),
      orderType,
      quantity: signedQuantity(body, isTrigger),
      limitPrice: toE18(body.limitPx, "limitPx", { signed: false }),
      triggerPrice: signedTriggerPrice(body, isTrigger),
      timeInForce,
      clientOrderId: body.clientOrderId === undefined ? 0n : wireUintString(body.clientOrderId, "clientOrderId", 64),
      reduceOnly: reduceOnlySupported ? body.reduceOnly === true : false,
      postOnly: isTrigger ? false : body.postOnly === true,
      expiresAfter: body.expiresAfter === undefined ? 0n : wireUint(body.expiresAfter, "expiresAfter", 256),
      signer: signerAddress(body.signerWallet),
      nonce: wireUintString(body.nonce, "nonce", 256),
    },
  };
}

/**
 * The `OrderCancel` message of a cancelOrder body. orderId and clOrdId are
 * exclusive: orderId wins when both are sent (spec 4.2.4), and the unused
 * one signs as 0.
 */
export function cancelMessage(body: CancelBody, market: MarketRef, config: SigningConfig = DEFAULT_SIGNING_CONFIG): OrderCancelMessage {
  let orderId = 0n;
  let clOrdId = 0n;
  if (body.orderId !== undefined) {
    orderId = wireUintString(body.orderId, "orderId", 64);
  } else if (body.clientOrderId !== undefined) {
    clOrdId = wireUintString(body.clientOrderId, "clientOrderId", 64);
  } else {
    throw new DecimalInputError("format", "orderId", "", "one of orderId or clientOrderId is required");
  }
  return {
    verifyingChainId: config.verifyingChainId,
    deadline: wireUint(body.deadline, "deadline", 64),
    cancel: {
      accountId: wireUint(body.accountId, "accountId", 64),
      marketId: uint64MarketId(market),
      orderId,
      clOrdId,
      nonce: wireUintString(body.nonce, "nonce", 64),
    },
  };
}

/**
 * The `MassCancel` message of a cancelAll body. `market` is the market of
 * `body.symbol`, or null when the body has no symbol (all markets, signed as
 * marketId 0); a mismatch between the two is a caller bug.
 */
export function massCancelMessage(
  body: MassCancelBody,
  market: MarketRef | null,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): MassCancelMessage {
  if ((body.symbol === undefined) !== (market === null)) {
    throw new RangeError(`massCancelMessage takes a market exactly when the body has a symbol (symbol ${body.symbol ?? "absent"})`);
  }
  return {
    verifyingChainId: config.verifyingChainId,
    deadline: wireUint(body.deadline, "deadline", 64),
    massCancel: {
      accountId: wireUint(body.accountId, "accountId", 64),
      marketId: market === null ? 0n : uint64MarketId(market),
      nonce: wireUintString(body.nonce, "nonce", 64),
    },
  };
}

/** The `CancelAllAfter` message of a cancelAllAfter body. */
export function cancelAllAfterMessage(
  body: CancelAllAfterBody,
  config: SigningConfig = DEFAULT_SIGNING_CONFIG,
): CancelAllAfterMessage {
  return {
    verifyingChainId: config.verifyingChainId,
    deadline: wireUint(body.deadline, "deadline", 64),
    cancelAllAfter: {
      accountId: wireUint(body.accountId, "accountId", 64),
      timeoutMs: wireUint(body.timeoutMs, "timeoutMs", 64),
      nonce: wireUintString(body.nonce, "nonce", 64),
    },
  };
}

/** A market id in the cancel family's uint64 (market definitions are the caller's, so this is a bug check). */
function uint64MarketId(market: MarketRef): bigint {
  const id = signedMarketId(market);
  if (id >= 1n << 64n) throw new RangeError(`marketId ${id} does not fit the cancel family's uint64`);
  return id;
}
