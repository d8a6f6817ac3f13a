import { describe, expect, it } from "vitest";
import { INT256_MAX } from "../../../src/core/decimal.ts";
import { validateModifyOrder } from "../../../src/exchange/gateway/validate/modify-order.ts";
import {
  accepted,
  context,
  DEADLINE_S,
  ETH_PERP,
  expectRejected,
  modifyLimit,
  modifyStop,
  SIGNATURE,
  WALLET,
  WETH_SPOT,
  withField,
  without,
} from "./fixtures.ts";

const validate = (body: unknown) => validateModifyOrder(body, context);

describe("validateModifyOrder accepts realistic modifies and normalizes them exactly", () => {
  it("normalizes a LIMIT reprice looked up by orderId, restating its client id", () => {
    expect(accepted(validate(modifyLimit))).toEqual({
      operation: "modifyOrder",
      request: modifyLimit,
      lookup: { by: "orderId", orderId: "7340032000000001234" },
      orderId: "7340032000000001234",
      market: ETH_PERP,
      exchangeId: 1,
      accountId: 1042,
      isBuy: true,
      side: "B",
      orderType: "LIMIT",
      isTrigger: false,
      timeInForce: "GTC",
      limitPx: { text: "3149.75", e18: 3_149_750_000_000_000_000_000n },
      qty: { text: "1.2", e18: 1_200_000_000_000_000_000n },
      reduceOnly: false,
      postOnly: true,
      deadline: DEADLINE_S,
      clientOrderId: "42",
      nonce: 1_745_000_000_000_006n,
      nonceText: "1745000000000006",
      signature: SIGNATURE,
      signerWallet: WALLET,
      quantityE18: 1_200_000_000_000_000_000n,
      limitPriceE18: 3_149_750_000_000_000_000_000n,
      triggerPriceE18: 0n,
    });
  });

  it("looks up by a non-zero clientOrderId when orderId is absent", () => {
    const value = accepted(validate({ ...without(modifyLimit, "orderId"), clientOrderId: "0042" }));
    expect(value.lookup).toEqual({ by: "clientOrderId", clientOrderId: "42" });
    expect(value.clientOrderId).toBe("42");
    expect(value).not.toHaveProperty("orderId");
  });

  it("canonicalizes orderId", () => {
    expect(accepted(validate({ ...modifyLimit, orderId: "007" })).lookup).toEqual({ by: "orderId", orderId: "7" });
  });

  it("normalizes a stop modify: sentinel quantity, trigger price, no qty", () => {
    const value = accepted(validate(modifyStop));
    expect(value).toMatchObject({ isTrigger: true, reduceOnly: false, postOnly: false, side: "A" });
    expect(value).not.toHaveProperty("qty");
    expect(value.quantityE18).toBe(-INT256_MAX);
    expect(value.triggerPriceE18).toBe(2_940n * 10n ** 18n);
  });

  it("accepts a GTT LIMIT modify with an expiry after the deadline and a spot LIMIT modify", () => {
    expect(accepted(validate({ ...modifyLimit, timeInForce: "GTT", expiresAfter: DEADLINE_S + 10 })).expiresAfter).toBe(DEADLINE_S + 10);
    expect(accepted(validate({ ...modifyLimit, symbol: "WETHRUSD" })).market).toEqual(WETH_SPOT);
  });

  it("accepts a GTT trigger restating its expiry", () => {
    expect(accepted(validate({ ...modifyStop, timeInForce: "GTT", expiresAfter: DEADLINE_S + 600 })).expiresAfter).toBe(DEADLINE_S + 600);
  });

  it("keeps postOnly false on a LIMIT as sent", () => {
    expect(accepted(validate({ ...modifyLimit, postOnly: false })).postOnly).toBe(false);
  });
});

describe("validateModifyOrder: schema", () => {
  it.each(["symbol", "accountId", "exchangeId", "isBuy", "orderType", "timeInForce", "reduceOnly", "limitPx", "postOnly", "signature", "nonce", "signerWallet", "deadline"])(
    "a missing %s is INPUT_VALIDATION_ERROR",
    (field) => {
      expect(expectRejected(validate(without(modifyLimit, field)), "INPUT_VALIDATION_ERROR", field)).toBe(`${field} is required`);
    },
  );

  it("orderId at uint64 max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(validate({ ...modifyLimit, orderId: "18446744073709551615" }).ok).toBe(true);
    expectRejected(validate({ ...modifyLimit, orderId: "18446744073709551616" }), "NUMERIC_OVERFLOW_ERROR", "orderId");
  });

  it("clientOrderId beyond uint64 is NUMERIC_OVERFLOW_ERROR", () => {
    expectRejected(validate({ ...modifyLimit, clientOrderId: "99999999999999999999" }), "NUMERIC_OVERFLOW_ERROR", "clientOrderId");
  });

  it("a decimal with 19 fraction digits is INPUT_VALIDATION_ERROR, beyond int256 NUMERIC_OVERFLOW_ERROR", () => {
    expectRejected(validate({ ...modifyLimit, limitPx: "3149.7500000000000000001" }), "INPUT_VALIDATION_ERROR", "limitPx");
    expectRejected(validate({ ...modifyLimit, qty: "1e60" }), "NUMERIC_OVERFLOW_ERROR", "qty");
  });

  it("an exchangeId mismatch is INPUT_VALIDATION_ERROR and an unknown symbol SYMBOL_NOT_FOUND_ERROR", () => {
    expectRejected(validate({ ...modifyLimit, exchangeId: 0 }), "INPUT_VALIDATION_ERROR", "exchangeId");
    expectRejected(validate({ ...modifyLimit, symbol: "SOLRUSDPERP" }), "SYMBOL_NOT_FOUND_ERROR", "symbol");
  });
});

describe("validateModifyOrder: cross-field rules (spec 4.2.3)", () => {
  describe("lookup key", () => {
    it("neither orderId nor clientOrderId is rejected", () => {
      const message = expectRejected(validate(without(without(modifyLimit, "orderId"), "clientOrderId")), "INPUT_VALIDATION_ERROR", "orderId");
      expect(message).toBe("orderId or a non-zero clientOrderId is required");
    });
    it("clientOrderId 0 without orderId is rejected", () => {
      const message = expectRejected(validate({ ...without(modifyLimit, "orderId"), clientOrderId: "0" }), "INPUT_VALIDATION_ERROR", "clientOrderId");
      expect(message).toBe('clientOrderId "0" must be non-zero when orderId is absent');
    });
    it("clientOrderId 0 beside an orderId restates no client id: accepted and dropped", () => {
      const value = accepted(validate({ ...modifyLimit, clientOrderId: "0" }));
      expect(value).not.toHaveProperty("clientOrderId");
      expect(value.lookup).toEqual({ by: "orderId", orderId: "7340032000000001234" });
    });
  });

  it("a trigger modify on a spot market is INPUT_VALIDATION_ERROR", () => {
    expectRejected(validate({ ...modifyStop, symbol: "WETHRUSD" }), "INPUT_VALIDATION_ERROR", "orderType");
  });

  it("a LIMIT modify with timeInForce IOC is INPUT_VALIDATION_ERROR (an IOC order never rests)", () => {
    expectRejected(validate({ ...modifyLimit, timeInForce: "IOC", postOnly: false }), "INPUT_VALIDATION_ERROR", "timeInForce");
  });

  it("a trigger modify keeps its IOC child", () => {
    expect(accepted(validate(modifyStop)).timeInForce).toBe("IOC");
  });

  describe("qty", () => {
    it("is required for a LIMIT modify", () => {
      expectRejected(validate(without(modifyLimit, "qty")), "INPUT_VALIDATION_ERROR", "qty");
    });
    it("must be omitted for a trigger modify", () => {
      expectRejected(validate({ ...modifyStop, qty: "1" }), "INPUT_VALIDATION_ERROR", "qty");
    });
    it("0 is rejected", () => {
      expectRejected(validate({ ...modifyLimit, qty: "0" }), "INPUT_VALIDATION_ERROR", "qty");
    });
  });

  it("limitPx 0 is rejected", () => {
    expectRejected(validate({ ...modifyLimit, limitPx: "0" }), "INPUT_VALIDATION_ERROR", "limitPx");
    expectRejected(validate({ ...modifyStop, limitPx: "0" }), "INPUT_VALIDATION_ERROR", "limitPx");
  });

  describe("triggerPx", () => {
    it("is required for a trigger modify", () => {
      expectRejected(validate(without(modifyStop, "triggerPx")), "INPUT_VALIDATION_ERROR", "triggerPx");
    });
    it("0 on a trigger modify is rejected", () => {
      expectRejected(validate({ ...modifyStop, triggerPx: "0" }), "INPUT_VALIDATION_ERROR", "triggerPx");
    });
    it("non-zero on a LIMIT modify is rejected, zero tolerated", () => {
      expectRejected(validate({ ...modifyLimit, triggerPx: "1" }), "INPUT_VALIDATION_ERROR", "triggerPx");
      expect(validate({ ...modifyLimit, triggerPx: "0" }).ok).toBe(true);
    });
  });

  describe("reduceOnly and postOnly", () => {
    it("reduceOnly true on a trigger modify is rejected", () => {
      const message = expectRejected(validate({ ...modifyStop, reduceOnly: true }), "INPUT_VALIDATION_ERROR", "reduceOnly");
      expect(message).toBe("reduceOnly must be false on a STOP_LOSS order");
    });
    it("reduceOnly true on a LIMIT modify (GTC/GTT, where it is unsupported) is rejected", () => {
      const message = expectRejected(validate({ ...modifyLimit, reduceOnly: true }), "INPUT_VALIDATION_ERROR", "reduceOnly");
      expect(message).toBe("reduceOnly must be false on a GTC order");
    });
    it("postOnly true on a trigger modify is rejected", () => {
      const message = expectRejected(validate({ ...modifyStop, postOnly: true }), "INPUT_VALIDATION_ERROR", "postOnly");
      expect(message).toBe("postOnly must be false on a STOP_LOSS order");
    });
  });

  describe("expiresAfter", () => {
    it("is required on a GTT LIMIT modify and must exceed the deadline", () => {
      expectRejected(validate({ ...modifyLimit, timeInForce: "GTT" }), "INPUT_VALIDATION_ERROR", "expiresAfter");
      expectRejected(validate({ ...modifyLimit, timeInForce: "GTT", expiresAfter: DEADLINE_S }), "INPUT_VALIDATION_ERROR", "expiresAfter");
    });
    it("must be omitted on a GTC LIMIT modify", () => {
      expectRejected(validate({ ...modifyLimit, expiresAfter: DEADLINE_S + 10 }), "INPUT_VALIDATION_ERROR", "expiresAfter");
    });
    it("on an IOC trigger modify is TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", () => {
      expectRejected(validate({ ...modifyStop, expiresAfter: DEADLINE_S + 10 }), "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", "expiresAfter");
    });
    it("is required on a GTT trigger modify", () => {
      expectRejected(validate({ ...modifyStop, timeInForce: "GTT" }), "INPUT_VALIDATION_ERROR", "expiresAfter");
    });
  });

  it("the lookup key is reported before the other rules", () => {
    const body = { ...without(without(modifyLimit, "orderId"), "clientOrderId"), reduceOnly: true };
    expectRejected(validate(body), "INPUT_VALIDATION_ERROR", "orderId");
    expectRejected(validate(withField(body, "orderId", "1")), "INPUT_VALIDATION_ERROR", "reduceOnly");
  });
});
