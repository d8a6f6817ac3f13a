import { describe, expect, it } from "vitest";
import { INT256_MAX } from "../../../src/core/decimal.ts";
import { validateCreateOrder } from "../../../src/exchange/gateway/validate/create-order.ts";
import {
  accepted,
  BTC_PERP,
  context,
  createGtc,
  createGtt,
  createIoc,
  createSpot,
  createStop,
  DEADLINE_S,
  ETH_PERP,
  expectRejected,
  SIGNATURE,
  WALLET,
  WETH_SPOT,
  withField,
  without,
} from "./fixtures.ts";

const validate = (body: unknown) => validateCreateOrder(body, context);

describe("validateCreateOrder accepts realistic orders and normalizes them exactly", () => {
  it("normalizes a perp GTC post-only buy", () => {
    const value = accepted(validate(createGtc));
    expect(value).toEqual({
      operation: "createOrder",
      request: createGtc,
      market: ETH_PERP,
      exchangeId: 1,
      accountId: 1042,
      isBuy: true,
      side: "B",
      orderType: "LIMIT",
      isTrigger: false,
      timeInForce: "GTC",
      limitPx: { text: "3150.25", e18: 3_150_250_000_000_000_000_000n },
      qty: { text: "1.5", e18: 1_500_000_000_000_000_000n },
      reduceOnly: false,
      postOnly: true,
      deadline: DEADLINE_S,
      clientOrderId: "42",
      nonce: 1_745_000_000_000_001n,
      nonceText: "1745000000000001",
      signature: SIGNATURE,
      signerWallet: WALLET,
      quantityE18: 1_500_000_000_000_000_000n,
      limitPriceE18: 3_150_250_000_000_000_000_000n,
      triggerPriceE18: 0n,
    });
  });

  it("normalizes a reduce-only perp IOC sell: negative signed quantity, reduceOnly as sent", () => {
    const value = accepted(validate(createIoc));
    expect(value).toMatchObject({ side: "A", reduceOnly: true, postOnly: false, timeInForce: "IOC" });
    expect(value.quantityE18).toBe(-250_000_000_000_000_000n);
    expect(value.limitPriceE18).toBe(3_100_000_000_000_000_000_000n);
    expect(value).not.toHaveProperty("clientOrderId");
    expect(value).not.toHaveProperty("expiresAfter");
    expect(value).not.toHaveProperty("triggerPx");
  });

  it("keeps reduceOnly false as sent on a perp IOC", () => {
    expect(accepted(validate(withField(createIoc, "reduceOnly", false))).reduceOnly).toBe(false);
  });

  it("normalizes a GTT order with its expiry", () => {
    const value = accepted(validate(createGtt));
    expect(value).toMatchObject({ market: BTC_PERP, timeInForce: "GTT", expiresAfter: DEADLINE_S + 3600, postOnly: false });
    expect(value.qty?.e18).toBe(12_500_000_000_000_000n);
  });

  it("normalizes a stop-loss: no qty, the sell sentinel, the trigger price", () => {
    const value = accepted(validate(createStop));
    expect(value).toMatchObject({ orderType: "STOP_LOSS", isTrigger: true, reduceOnly: false, postOnly: false });
    expect(value).not.toHaveProperty("qty");
    expect(value.triggerPx).toEqual({ text: "2950", e18: 2_950n * 10n ** 18n });
    expect(value.quantityE18).toBe(-INT256_MAX);
    expect(value.triggerPriceE18).toBe(2_950n * 10n ** 18n);
  });

  it("signs a buy trigger with the positive sentinel", () => {
    const value = accepted(validate({ ...createStop, orderType: "TAKE_PROFIT", isBuy: true }));
    expect(value.quantityE18).toBe(INT256_MAX);
  });

  it("normalizes a spot order", () => {
    expect(accepted(validate(createSpot))).toMatchObject({ market: WETH_SPOT, side: "A", reduceOnly: false, postOnly: false });
  });

  it("parses exponent forms exactly and keeps the wire text", () => {
    const value = accepted(validate({ ...createGtc, limitPx: "3.15025E3", qty: "15e-1" }));
    expect(value.limitPx.text).toBe("3.15025E3");
    expect(value.limitPriceE18).toBe(3_150_250_000_000_000_000_000n);
    expect(value.qty?.e18).toBe(1_500_000_000_000_000_000n);
  });

  it("canonicalizes clientOrderId and accepts the uint64 maximum", () => {
    expect(accepted(validate({ ...createGtc, clientOrderId: "00042" })).clientOrderId).toBe("42");
    expect(accepted(validate({ ...createGtc, clientOrderId: "18446744073709551615" })).clientOrderId).toBe("18446744073709551615");
  });

  it("ignores unknown extra fields and keeps them in request", () => {
    const value = accepted(validate({ ...createGtc, vendorTag: { a: 1 } }));
    expect(value.request).toHaveProperty("vendorTag", { a: 1 });
  });

  it("reads a JSON -0 as 0", () => {
    expect(Object.is(accepted(validate({ ...createGtc, accountId: -0 })).accountId, 0)).toBe(true);
  });
});

describe("validateCreateOrder: schema failures name the field and the rule", () => {
  const required = [
    "exchangeId",
    "symbol",
    "accountId",
    "isBuy",
    "limitPx",
    "orderType",
    "timeInForce",
    "signature",
    "nonce",
    "signerWallet",
    "deadline",
  ];
  it.each(required)("a missing %s is INPUT_VALIDATION_ERROR", (field) => {
    const message = expectRejected(validate(without(createGtc, field)), "INPUT_VALIDATION_ERROR", field);
    expect(message).toBe(`${field} is required`);
  });

  it.each([
    ["isBuy", "true", "isBuy must be a boolean, got a string"],
    ["accountId", "1042", "accountId must be an integer, got a string"],
    ["accountId", 1.5, 'accountId "1.5" must be an integer'],
    ["accountId", -1, 'accountId "-1" must not be negative'],
    ["deadline", null, "deadline must be an integer, got null"],
    ["limitPx", 3150.25, "limitPx must be a decimal string, got a number"],
    ["qty", "1,5", 'qty "1,5" is not an unsigned decimal (digits, optional fraction, optional exponent)'],
    ["qty", "-1", 'qty "-1" is not an unsigned decimal (digits, optional fraction, optional exponent)'],
    ["qty", "", 'qty "" is not an unsigned decimal (digits, optional fraction, optional exponent)'],
    ["limitPx", ".5", 'limitPx ".5" is not an unsigned decimal (digits, optional fraction, optional exponent)'],
    ["triggerPx", "1e", 'triggerPx "1e" is not an unsigned decimal (digits, optional fraction, optional exponent)'],
    ["nonce", 1745000000000001, "nonce must be a decimal integer string, got a number"],
    ["nonce", "0x10", 'nonce "0x10" is not a decimal integer string (digits only)'],
    ["clientOrderId", 42, "clientOrderId must be a decimal integer string, got a number"],
    ["clientOrderId", "-42", 'clientOrderId "-42" is not a decimal integer string (digits only)'],
    ["orderType", "MARKET", 'orderType "MARKET" is not one of LIMIT, STOP_LOSS, TAKE_PROFIT'],
    ["timeInForce", "FOK", 'timeInForce "FOK" is not one of IOC, GTC, GTT'],
    ["timeInForce", 1, "timeInForce must be one of IOC, GTC, GTT, got a number"],
    ["signature", "0x1234", 'signature "0x1234" is not 0x followed by 130 hex digits (65 bytes)'],
    ["signerWallet", "0xabc", 'signerWallet "0xabc" is not an address (0x followed by 40 hex digits)'],
    ["postOnly", "false", "postOnly must be a boolean, got a string"],
    ["symbol", 7, "symbol must be a string, got a number"],
    ["expiresAfter", [1], "expiresAfter must be an integer, got an array"],
  ])("%s = %j is INPUT_VALIDATION_ERROR", (field, value, message) => {
    expect(expectRejected(validate(withField(createGtc, field, value)), "INPUT_VALIDATION_ERROR", field)).toBe(message);
  });

  it("a present but undefined optional field is rejected, not read as omitted", () => {
    expectRejected(validate(withField(createGtc, "qty", undefined)), "INPUT_VALIDATION_ERROR", "qty");
  });

  it.each([null, [], "createOrder", 42, true])("a body that is not an object (%j) is INPUT_VALIDATION_ERROR", (body) => {
    const result = validate(body);
    expectRejected(result, "INPUT_VALIDATION_ERROR", "body");
    expect(result.ok ? "" : result.error.message).toMatch(/^request body must be a JSON object, got /);
  });

  it("reports the first failing field in schema order", () => {
    const body = { ...without(createGtc, "signature"), accountId: "x" };
    expect(expectRejected(validate(body), "INPUT_VALIDATION_ERROR", "accountId")).toContain("accountId");
  });

  it("cuts a huge quoted value", () => {
    const message = expectRejected(validate({ ...createGtc, qty: "x".repeat(10_000) }), "INPUT_VALIDATION_ERROR", "qty");
    expect(message.length).toBeLessThan(250);
    expect(message).toContain('..."');
  });
});

describe("validateCreateOrder: numbers, overflow and precision", () => {
  const QTY_E18_MAX_TEXT = "57896044618658097711785492504343953926634992332820282019728.792003956564819967";
  const QTY_E18_MAX_PLUS_ONE = "57896044618658097711785492504343953926634992332820282019728.792003956564819968";

  it("accepts qty at exactly int256 max at 18 decimals", () => {
    const value = accepted(validate({ ...createGtc, qty: QTY_E18_MAX_TEXT }));
    expect(value.qty?.e18).toBe(INT256_MAX);
    expect(value.quantityE18).toBe(INT256_MAX);
  });

  it("rejects qty one unit of 10^-18 above it with NUMERIC_OVERFLOW_ERROR", () => {
    const message = expectRejected(validate({ ...createGtc, qty: QTY_E18_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "qty");
    expect(message).toBe(`qty "${QTY_E18_MAX_PLUS_ONE}" is beyond the int256 range at 18 decimals`);
  });

  it.each(["limitPx", "triggerPx"])("%s beyond int256 at 18 decimals (exponent form) is NUMERIC_OVERFLOW_ERROR", (field) => {
    const body = field === "triggerPx" ? { ...createStop, triggerPx: "1e59" } : { ...createGtc, limitPx: "1e59" };
    expectRejected(validate(body), "NUMERIC_OVERFLOW_ERROR", field);
  });

  it("accepts a huge exponent form within int256 (5e58)", () => {
    expect(accepted(validate({ ...createGtc, limitPx: "5e58" })).limitPriceE18).toBe(5n * 10n ** 76n);
  });

  it("accepts 18 fraction digits and rejects 19 with INPUT_VALIDATION_ERROR", () => {
    expect(accepted(validate({ ...createGtc, qty: "0.000000000000000001" })).qty?.e18).toBe(1n);
    const message = expectRejected(validate({ ...createGtc, qty: "0.0000000000000000001" }), "INPUT_VALIDATION_ERROR", "qty");
    expect(message).toBe('qty "0.0000000000000000001" has more than 18 fraction digits');
    expectRejected(validate({ ...createGtc, limitPx: "1e-19" }), "INPUT_VALIDATION_ERROR", "limitPx");
  });

  it("accepts trailing zeros beyond 18 fraction digits (the value is exact)", () => {
    expect(accepted(validate({ ...createGtc, qty: "1.50000000000000000000000" })).qty?.e18).toBe(1_500_000_000_000_000_000n);
  });

  it("clientOrderId at uint64 max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(validate({ ...createGtc, clientOrderId: "18446744073709551615" }).ok).toBe(true);
    const message = expectRejected(
      validate({ ...createGtc, clientOrderId: "18446744073709551616" }),
      "NUMERIC_OVERFLOW_ERROR",
      "clientOrderId",
    );
    expect(message).toBe('clientOrderId "18446744073709551616" is beyond the uint64 range (at most 18446744073709551615)');
  });

  it("nonce at uint256 max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    const max = (2n ** 256n - 1n).toString();
    expect(accepted(validate({ ...createGtc, nonce: max })).nonce).toBe(2n ** 256n - 1n);
    expect(accepted(validate({ ...createGtc, nonce: `000${max}` })).nonce).toBe(2n ** 256n - 1n);
    const message = expectRejected(validate({ ...createGtc, nonce: (2n ** 256n).toString() }), "NUMERIC_OVERFLOW_ERROR", "nonce");
    expect(message).toContain("uint256");
  });

  it.each(["accountId", "exchangeId", "deadline", "expiresAfter"])(
    "%s at MAX_SAFE_INTEGER passes the schema, one above is NUMERIC_OVERFLOW_ERROR",
    (field) => {
      const base = field === "expiresAfter" ? createGtt : createGtc;
      const atMax = validate(withField(base, field, Number.MAX_SAFE_INTEGER));
      // The maximum is a well-formed integer: any later rejection is not about its range.
      if (!atMax.ok) expect(atMax.error.error).not.toBe("NUMERIC_OVERFLOW_ERROR");
      const message = expectRejected(validate(withField(base, field, Number.MAX_SAFE_INTEGER + 1)), "NUMERIC_OVERFLOW_ERROR", field);
      expect(message).toBe(`${field} "9007199254740992" is beyond the safe integer range of a JSON number (at most 9007199254740991)`);
    },
  );

  it("an integer that JSON.parse made Infinity is NUMERIC_OVERFLOW_ERROR, -Infinity is INPUT_VALIDATION_ERROR", () => {
    const body = JSON.parse(JSON.stringify(createGtc).replace('"accountId":1042', '"accountId":1e400')) as unknown;
    expectRejected(validate(body), "NUMERIC_OVERFLOW_ERROR", "accountId");
    expectRejected(validate({ ...createGtc, accountId: -Infinity }), "INPUT_VALIDATION_ERROR", "accountId");
  });

  it("a bigint integer beyond the safe range is NUMERIC_OVERFLOW_ERROR, a small one a wrong type", () => {
    expectRejected(validate({ ...createGtc, accountId: 2n ** 64n }), "NUMERIC_OVERFLOW_ERROR", "accountId");
    expectRejected(validate({ ...createGtc, accountId: 5n }), "INPUT_VALIDATION_ERROR", "accountId");
  });
});

describe("validateCreateOrder: exchange and symbol", () => {
  it("an exchangeId of another exchange is INPUT_VALIDATION_ERROR", () => {
    const message = expectRejected(validate({ ...createGtc, exchangeId: 2 }), "INPUT_VALIDATION_ERROR", "exchangeId");
    expect(message).toBe(`exchangeId "2" does not match this exchange's id "1"`);
  });

  it.each(["FOO", "ethrusdperp", "", "ETH-PERP"])("symbol %j that resolves to no market is SYMBOL_NOT_FOUND_ERROR", (symbol) => {
    const message = expectRejected(validate({ ...createGtc, symbol }), "SYMBOL_NOT_FOUND_ERROR", "symbol");
    expect(message).toBe(`symbol "${symbol}" does not resolve to a market`);
  });
});

describe("validateCreateOrder: cross-field rules (spec 4.2.1)", () => {
  it("a trigger on a spot market is INPUT_VALIDATION_ERROR", () => {
    const message = expectRejected(validate({ ...createStop, symbol: "WETHRUSD" }), "INPUT_VALIDATION_ERROR", "orderType");
    expect(message).toContain("perp");
  });

  describe("qty", () => {
    it("is required on a LIMIT order", () => {
      expect(expectRejected(validate(without(createGtc, "qty")), "INPUT_VALIDATION_ERROR", "qty")).toBe("qty is required on a LIMIT order");
    });
    it.each(["STOP_LOSS", "TAKE_PROFIT"])("must be omitted on %s", (orderType) => {
      expectRejected(validate({ ...createStop, orderType, qty: "1" }), "INPUT_VALIDATION_ERROR", "qty");
    });
    it.each(["0", "0.000", "0e5"])("%j is rejected: a LIMIT needs qty > 0", (qty) => {
      expect(expectRejected(validate({ ...createGtc, qty }), "INPUT_VALIDATION_ERROR", "qty")).toBe(`qty "${qty}" must be greater than 0`);
    });
  });

  describe("limitPx", () => {
    it("0 is rejected on a LIMIT order", () => {
      expect(expectRejected(validate({ ...createGtc, limitPx: "0" }), "INPUT_VALIDATION_ERROR", "limitPx")).toBe(
        'limitPx "0" must be greater than 0',
      );
    });
    it("0 is rejected on a trigger (its child's limit)", () => {
      expectRejected(validate({ ...createStop, limitPx: "0.0" }), "INPUT_VALIDATION_ERROR", "limitPx");
    });
  });

  describe("triggerPx", () => {
    it.each(["STOP_LOSS", "TAKE_PROFIT"])("is required on %s", (orderType) => {
      const message = expectRejected(validate(without({ ...createStop, orderType }, "triggerPx")), "INPUT_VALIDATION_ERROR", "triggerPx");
      expect(message).toBe(`triggerPx is required on a ${orderType} order`);
    });
    it("must be non-zero on a trigger", () => {
      expectRejected(validate({ ...createStop, triggerPx: "0" }), "INPUT_VALIDATION_ERROR", "triggerPx");
    });
    it("non-zero on a LIMIT is rejected", () => {
      const message = expectRejected(validate({ ...createGtc, triggerPx: "3000" }), "INPUT_VALIDATION_ERROR", "triggerPx");
      expect(message).toBe('triggerPx "3000" must be omitted or zero on a LIMIT order');
    });
    it("zero on a LIMIT is accepted and dropped from the value", () => {
      const value = accepted(validate({ ...createGtc, triggerPx: "0.00" }));
      expect(value).not.toHaveProperty("triggerPx");
      expect(value.triggerPriceE18).toBe(0n);
    });
  });

  describe("reduceOnly", () => {
    it("is required on a perp IOC LIMIT", () => {
      const message = expectRejected(validate(without(createIoc, "reduceOnly")), "INPUT_VALIDATION_ERROR", "reduceOnly");
      expect(message).toBe("reduceOnly is required on a perp IOC order");
    });
    it.each([
      ["a perp GTC order", createGtc, "reduceOnly must be omitted or false on a perp GTC order"],
      ["a perp GTT order", createGtt, "reduceOnly must be omitted or false on a perp GTT order"],
      ["a spot GTC order", createSpot, "reduceOnly must be omitted or false on a spot order"],
      ["a spot IOC order", { ...createSpot, timeInForce: "IOC" }, "reduceOnly must be omitted or false on a spot order"],
      ["a trigger", createStop, "reduceOnly must be omitted or false on a STOP_LOSS order"],
    ])("true on %s is rejected", (_name, body, message) => {
      expect(expectRejected(validate({ ...body, reduceOnly: true }), "INPUT_VALIDATION_ERROR", "reduceOnly")).toBe(message);
    });
    it.each([
      ["a perp GTC order", createGtc],
      ["a perp GTT order", createGtt],
      ["a spot order", createSpot],
      ["a spot IOC order", { ...createSpot, timeInForce: "IOC" }],
      ["a trigger", createStop],
    ])("false on %s is tolerated and signs false", (_name, body) => {
      expect(accepted(validate({ ...body, reduceOnly: false })).reduceOnly).toBe(false);
    });
  });

  describe("postOnly", () => {
    it.each([
      ["a perp IOC order", createIoc],
      ["a spot IOC order", { ...createSpot, timeInForce: "IOC" }],
    ])("true on %s is rejected", (_name, body) => {
      const message = expectRejected(validate({ ...body, postOnly: true }), "INPUT_VALIDATION_ERROR", "postOnly");
      expect(message).toBe("postOnly must be omitted or false on an IOC order");
    });
    it("false on an IOC is tolerated", () => {
      expect(accepted(validate({ ...createIoc, postOnly: false })).postOnly).toBe(false);
    });
    it.each([
      ["IOC", "STOP_LOSS"],
      ["GTC", "TAKE_PROFIT"],
    ])("true on a trigger (child %s) is rejected", (timeInForce, orderType) => {
      const message = expectRejected(validate({ ...createStop, timeInForce, orderType, postOnly: true }), "INPUT_VALIDATION_ERROR", "postOnly");
      expect(message).toBe(`postOnly must be omitted or false on a ${orderType} order`);
    });
    it("false on a trigger is tolerated", () => {
      expect(accepted(validate({ ...createStop, postOnly: false })).postOnly).toBe(false);
    });
    it.each([
      ["GTC", createGtc],
      ["GTT", createGtt],
      ["spot GTC", createSpot],
    ])("true on %s is accepted", (_name, body) => {
      expect(accepted(validate({ ...body, postOnly: true })).postOnly).toBe(true);
    });
  });

  describe("expiresAfter", () => {
    it("is required on a GTT order", () => {
      const message = expectRejected(validate(without(createGtt, "expiresAfter")), "INPUT_VALIDATION_ERROR", "expiresAfter");
      expect(message).toBe("expiresAfter is required on a GTT order");
    });
    it("equal to deadline is rejected: strictly greater is required", () => {
      const message = expectRejected(validate({ ...createGtt, expiresAfter: DEADLINE_S }), "INPUT_VALIDATION_ERROR", "expiresAfter");
      expect(message).toBe(`expiresAfter "${DEADLINE_S}" must be greater than deadline "${DEADLINE_S}"`);
    });
    it("deadline + 1 is accepted", () => {
      expect(accepted(validate({ ...createGtt, expiresAfter: DEADLINE_S + 1 })).expiresAfter).toBe(DEADLINE_S + 1);
    });
    it.each([
      ["a GTC order", createGtc, "expiresAfter must be omitted on a GTC order"],
      ["an IOC LIMIT", createIoc, "expiresAfter must be omitted on an IOC order"],
      ["a GTC trigger", { ...createStop, timeInForce: "GTC" }, "expiresAfter must be omitted on a STOP_LOSS order with timeInForce GTC"],
    ])("on %s is INPUT_VALIDATION_ERROR", (_name, body, message) => {
      expect(expectRejected(validate({ ...body, expiresAfter: DEADLINE_S + 3600 }), "INPUT_VALIDATION_ERROR", "expiresAfter")).toBe(message);
    });
    it("0 on a GTC order is rejected too: the field must be omitted", () => {
      expectRejected(validate({ ...createGtc, expiresAfter: 0 }), "INPUT_VALIDATION_ERROR", "expiresAfter");
    });
    it.each(["STOP_LOSS", "TAKE_PROFIT"])("on an IOC %s is TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", (orderType) => {
      const result = validate({ ...createStop, orderType, expiresAfter: DEADLINE_S + 3600 });
      expectRejected(result, "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR", "expiresAfter");
    });
    it("a GTT trigger requires it and keeps it", () => {
      const gttStop = { ...createStop, timeInForce: "GTT" };
      expectRejected(validate(gttStop), "INPUT_VALIDATION_ERROR", "expiresAfter");
      expect(accepted(validate({ ...gttStop, expiresAfter: DEADLINE_S + 60 })).expiresAfter).toBe(DEADLINE_S + 60);
    });
  });

  describe("clientOrderId", () => {
    it.each(["0", "000"])("%j is rejected: when provided it must be non-zero", (clientOrderId) => {
      const message = expectRejected(validate({ ...createGtc, clientOrderId }), "INPUT_VALIDATION_ERROR", "clientOrderId");
      expect(message).toBe(`clientOrderId "${clientOrderId}" must be non-zero when provided`);
    });
    it("may be omitted", () => {
      expect(accepted(validate(without(createGtc, "clientOrderId")))).not.toHaveProperty("clientOrderId");
    });
  });
});

describe("validateCreateOrder: precedence (schema, decimals, exchangeId, symbol, rules)", () => {
  it("a schema failure wins over a decimal overflow", () => {
    expectRejected(validate({ ...createGtc, qty: "1e99", signature: "bad" }), "INPUT_VALIDATION_ERROR", "signature");
  });
  it("a decimal failure wins over an unknown symbol", () => {
    expectRejected(validate({ ...createGtc, qty: "1e99", symbol: "FOO" }), "NUMERIC_OVERFLOW_ERROR", "qty");
  });
  it("exchangeId wins over an unknown symbol", () => {
    expectRejected(validate({ ...createGtc, exchangeId: 9, symbol: "FOO" }), "INPUT_VALIDATION_ERROR", "exchangeId");
  });
  it("an unknown symbol wins over a cross-field rule", () => {
    expectRejected(validate({ ...without(createGtc, "qty"), symbol: "FOO" }), "SYMBOL_NOT_FOUND_ERROR", "symbol");
  });
  it("the rules run in their documented order: qty before postOnly before expiresAfter", () => {
    const body = { ...without(createIoc, "qty"), postOnly: true, expiresAfter: DEADLINE_S + 1 };
    expectRejected(validate(body), "INPUT_VALIDATION_ERROR", "qty");
    expectRejected(validate({ ...body, qty: "1" }), "INPUT_VALIDATION_ERROR", "postOnly");
  });
  it("a spot trigger is reported before its other faults", () => {
    const body = { ...createStop, symbol: "WETHRUSD", qty: "1", reduceOnly: true };
    expectRejected(validate(body), "INPUT_VALIDATION_ERROR", "orderType");
  });
});
