/**
 * The encoding rules of signing.md ("Encodings"), applied by the builders to
 * wire bodies, and the input errors of values that cannot be signed.
 */
import { describe, expect, it } from "vitest";
import { DecimalInputError } from "../../src/core/decimal.ts";
import { signingConfig, SPOT_MARKET_ID_OFFSET, TRIGGER_QUANTITY_SENTINEL } from "../../src/signing/domain.ts";
import {
  cancelAllAfterMessage,
  cancelMessage,
  massCancelMessage,
  orderMessage,
  signedMarketId,
} from "../../src/signing/messages.ts";
import type { OrderBody } from "../../src/signing/wire.ts";

const E18 = 10n ** 18n;
const PERP = { marketId: 7n, isSpot: false };
const SPOT = { marketId: 3n, isSpot: true };

function limit(overrides: Partial<OrderBody> = {}): OrderBody {
  return {
    accountId: 1,
    exchangeId: 1,
    isBuy: true,
    orderType: "LIMIT",
    timeInForce: "GTC",
    limitPx: "100.5",
    qty: "2",
    nonce: "5",
    deadline: 1000,
    signerWallet: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    ...overrides,
  };
}

function trigger(overrides: Partial<OrderBody> = {}): OrderBody {
  const { qty: _qty, ...rest } = limit({ orderType: "STOP_LOSS", triggerPx: "90", ...overrides });
  return rest;
}

function inputError(run: () => unknown): DecimalInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof DecimalInputError) return error;
    throw error;
  }
  throw new Error("expected a DecimalInputError");
}

describe("orderMessage", () => {
  it("signs qty and prices as exact 10^18 fixed point, qty signed by side", () => {
    const buy = orderMessage(limit({ qty: "0.000000000000000001", limitPx: "1e3" }), PERP).order;
    expect(buy.quantity).toBe(1n);
    expect(buy.limitPrice).toBe(1000n * E18);
    const sell = orderMessage(limit({ isBuy: false, qty: "123456789.123456789123456789" }), PERP).order;
    expect(sell.quantity).toBe(-123456789123456789123456789n);
  });

  it("signs 0 for an absent clientOrderId, expiresAfter, and for a LIMIT's triggerPrice even if sent", () => {
    const order = orderMessage(limit({ triggerPx: "5" }), PERP).order;
    expect(order.clientOrderId).toBe(0n);
    expect(order.expiresAfter).toBe(0n);
    expect(order.triggerPrice).toBe(0n);
    const gtt = orderMessage(limit({ timeInForce: "GTT", expiresAfter: 2000, clientOrderId: "18446744073709551615" }), PERP).order;
    expect(gtt.expiresAfter).toBe(2000n);
    expect(gtt.clientOrderId).toBe(2n ** 64n - 1n);
    expect(gtt.timeInForce).toBe(2);
  });

  it("signs reduceOnly as sent only for perp IOC limits", () => {
    expect(orderMessage(limit({ timeInForce: "IOC", reduceOnly: true }), PERP).order.reduceOnly).toBe(true);
    expect(orderMessage(limit({ timeInForce: "IOC", reduceOnly: false }), PERP).order.reduceOnly).toBe(false);
    expect(orderMessage(limit({ timeInForce: "GTC", reduceOnly: true }), PERP).order.reduceOnly).toBe(false);
    expect(orderMessage(limit({ timeInForce: "IOC", reduceOnly: true }), SPOT).order.reduceOnly).toBe(false);
    expect(orderMessage(trigger({ timeInForce: "IOC", reduceOnly: true }), PERP).order.reduceOnly).toBe(false);
  });

  it("signs postOnly as sent for limits, false by default", () => {
    expect(orderMessage(limit({ postOnly: true }), SPOT).order.postOnly).toBe(true);
    expect(orderMessage(limit(), PERP).order.postOnly).toBe(false);
  });

  it("signs a trigger's quantity as the raw ±(2^255 - 1) sentinel, its triggerPrice, and false flags", () => {
    const stop = orderMessage(trigger({ postOnly: true, reduceOnly: true, isBuy: false }), PERP).order;
    expect(stop.quantity).toBe(-TRIGGER_QUANTITY_SENTINEL);
    expect(stop.quantity).toBe(-(2n ** 255n - 1n));
    expect(stop.orderType).toBe(1);
    expect(stop.triggerPrice).toBe(90n * E18);
    expect(stop.postOnly).toBe(false);
    expect(stop.reduceOnly).toBe(false);
    const takeProfit = orderMessage(trigger({ orderType: "TAKE_PROFIT", isBuy: true }), PERP).order;
    expect(takeProfit.quantity).toBe(TRIGGER_QUANTITY_SENTINEL);
    expect(takeProfit.orderType).toBe(2);
  });

  it("adds the spot offset once, and refuses an id that already has it", () => {
    expect(orderMessage(limit(), SPOT).order.marketId).toBe(3n + SPOT_MARKET_ID_OFFSET);
    expect(orderMessage(limit(), PERP).order.marketId).toBe(7n);
    expect(signedMarketId({ marketId: 0n, isSpot: true })).toBe(10_000_000_000n);
    expect(() => signedMarketId({ marketId: SPOT_MARKET_ID_OFFSET + 3n, isSpot: true })).toThrow(/already carries/);
  });

  it("binds the configured chain and lowercases the signer", () => {
    const message = orderMessage(limit(), PERP, signingConfig({ verifyingChainId: 1729n }));
    expect(message.verifyingChainId).toBe(1729n);
    expect(message.order.signer).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  });

  it("refuses values it cannot sign, with the error class the gateway maps", () => {
    expect(inputError(() => orderMessage(limit({ qty: "0.0000000000000000001" }), PERP))).toMatchObject({ kind: "format", field: "qty" });
    expect(inputError(() => orderMessage(limit({ qty: "-1" }), PERP))).toMatchObject({ kind: "format", field: "qty" });
    expect(inputError(() => orderMessage(limit({ qty: `${2n ** 255n}` }), PERP))).toMatchObject({ kind: "overflow", field: "qty" });
    expect(inputError(() => orderMessage(limit({ limitPx: "1e60" }), PERP))).toMatchObject({ kind: "overflow", field: "limitPx" });
    expect(inputError(() => orderMessage(limit({ qty: undefined }), PERP))).toMatchObject({ kind: "format", field: "qty" });
    expect(inputError(() => orderMessage(trigger({ triggerPx: undefined }), PERP))).toMatchObject({ kind: "format", field: "triggerPx" });
    expect(inputError(() => orderMessage(limit({ clientOrderId: "18446744073709551616" }), PERP))).toMatchObject({
      kind: "overflow",
      field: "clientOrderId",
    });
    expect(inputError(() => orderMessage(limit({ clientOrderId: "12a" }), PERP))).toMatchObject({ kind: "format", field: "clientOrderId" });
    expect(inputError(() => orderMessage(limit({ nonce: `1${"0".repeat(78)}` }), PERP))).toMatchObject({ kind: "overflow", field: "nonce" });
    expect(inputError(() => orderMessage(limit({ accountId: 2 ** 53 }), PERP))).toMatchObject({ kind: "format", field: "accountId" });
    expect(inputError(() => orderMessage(limit({ deadline: -1 }), PERP))).toMatchObject({ kind: "format", field: "deadline" });
    expect(inputError(() => orderMessage(limit({ signerWallet: "0x1234" }), PERP))).toMatchObject({ kind: "format", field: "signerWallet" });
  });

  it("accepts bigint wire integers up to the field's width", () => {
    const message = orderMessage(limit({ accountId: 2n ** 128n - 1n, deadline: 2n ** 256n - 1n }), PERP);
    expect(message.order.accountId).toBe(2n ** 128n - 1n);
    expect(message.deadline).toBe(2n ** 256n - 1n);
    expect(inputError(() => orderMessage(limit({ accountId: 2n ** 128n }), PERP))).toMatchObject({ kind: "overflow" });
  });
});

describe("cancelMessage", () => {
  const base = { accountId: 9, nonce: "18446744073709551615", deadline: 60 };

  it("signs orderId with clOrdId 0, or clOrdId with orderId 0; orderId wins when both are sent", () => {
    expect(cancelMessage({ ...base, orderId: "77" }, PERP).cancel).toEqual({
      accountId: 9n,
      marketId: 7n,
      orderId: 77n,
      clOrdId: 0n,
      nonce: 2n ** 64n - 1n,
    });
    expect(cancelMessage({ ...base, clientOrderId: "5" }, SPOT).cancel).toMatchObject({ orderId: 0n, clOrdId: 5n, marketId: 3n + SPOT_MARKET_ID_OFFSET });
    expect(cancelMessage({ ...base, orderId: "77", clientOrderId: "5" }, PERP).cancel).toMatchObject({ orderId: 77n, clOrdId: 0n });
    expect(inputError(() => cancelMessage(base, PERP))).toMatchObject({ kind: "format", field: "orderId" });
  });

  it("refuses values beyond the cancel family's uint64", () => {
    expect(inputError(() => cancelMessage({ ...base, orderId: "1", nonce: "18446744073709551616" }, PERP))).toMatchObject({
      kind: "overflow",
      field: "nonce",
    });
    expect(inputError(() => cancelMessage({ ...base, orderId: "1", deadline: 2n ** 64n }, PERP))).toMatchObject({
      kind: "overflow",
      field: "deadline",
    });
  });
});

describe("massCancelMessage", () => {
  const base = { accountId: 9, nonce: "3", deadline: 60 };

  it("signs the market's id, or 0 when the request has no symbol", () => {
    expect(massCancelMessage(base, null).massCancel.marketId).toBe(0n);
    expect(massCancelMessage({ ...base, symbol: "ETHRUSD" }, SPOT).massCancel.marketId).toBe(3n + SPOT_MARKET_ID_OFFSET);
    expect(massCancelMessage({ ...base, symbol: "ETHRUSDPERP" }, PERP).massCancel).toEqual({ accountId: 9n, marketId: 7n, nonce: 3n });
  });

  it("refuses a market without a symbol and a symbol without a market", () => {
    expect(() => massCancelMessage(base, PERP)).toThrow(RangeError);
    expect(() => massCancelMessage({ ...base, symbol: "ETHRUSDPERP" }, null)).toThrow(RangeError);
  });
});

describe("cancelAllAfterMessage", () => {
  it("signs accountId, timeoutMs and nonce, 0 disarming included", () => {
    expect(cancelAllAfterMessage({ accountId: 4, timeoutMs: 0, nonce: "8", deadline: 70 })).toEqual({
      verifyingChainId: 89346162n,
      deadline: 70n,
      cancelAllAfter: { accountId: 4n, timeoutMs: 0n, nonce: 8n },
    });
  });
});
