import { describe, expect, it } from "vitest";
import { validateCancelAll } from "../../../src/exchange/gateway/validate/cancel-all.ts";
import { validateCancelAllAfter } from "../../../src/exchange/gateway/validate/cancel-all-after.ts";
import { validateCancelOrder } from "../../../src/exchange/gateway/validate/cancel-order.ts";
import {
  accepted,
  cancelAll,
  cancelAllAfter,
  cancelOrder,
  context,
  DEADLINE_S,
  ETH_PERP,
  expectRejected,
  SIGNATURE,
  WALLET,
  WETH_SPOT,
  withField,
  without,
} from "./fixtures.ts";

const UINT64_MAX = "18446744073709551615";
const UINT64_MAX_PLUS_ONE = "18446744073709551616";

describe("validateCancelOrder", () => {
  const validate = (body: unknown) => validateCancelOrder(body, context);

  it("normalizes a cancel by orderId exactly", () => {
    expect(accepted(validate(cancelOrder))).toEqual({
      operation: "cancelOrder",
      request: cancelOrder,
      market: ETH_PERP,
      accountId: 1042,
      lookup: { by: "orderId", orderId: "63552420354981888" },
      orderId: "63552420354981888",
      nonce: 1_745_000_000_000_008n,
      nonceText: "1745000000000008",
      deadline: DEADLINE_S,
      signature: SIGNATURE,
    });
  });

  it("looks up by a non-zero clientOrderId when orderId is absent", () => {
    const value = accepted(validate({ ...without(cancelOrder, "orderId"), clientOrderId: "42" }));
    expect(value.lookup).toEqual({ by: "clientOrderId", clientOrderId: "42" });
    expect(value.clientOrderId).toBe("42");
  });

  it("uses orderId when both are sent", () => {
    const value = accepted(validate({ ...cancelOrder, clientOrderId: "42" }));
    expect(value.lookup).toEqual({ by: "orderId", orderId: "63552420354981888" });
    expect(value.clientOrderId).toBe("42");
  });

  it("neither orderId nor clientOrderId is INPUT_VALIDATION_ERROR", () => {
    expectRejected(validate(without(cancelOrder, "orderId")), "INPUT_VALIDATION_ERROR", "orderId");
  });

  it("clientOrderId 0 without orderId is INPUT_VALIDATION_ERROR; beside an orderId it is dropped", () => {
    expectRejected(validate({ ...without(cancelOrder, "orderId"), clientOrderId: "0" }), "INPUT_VALIDATION_ERROR", "clientOrderId");
    expect(accepted(validate({ ...cancelOrder, clientOrderId: "0" }))).not.toHaveProperty("clientOrderId");
  });

  it("orderId and clientOrderId at uint64 max pass, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(validate({ ...cancelOrder, orderId: UINT64_MAX }).ok).toBe(true);
    expectRejected(validate({ ...cancelOrder, orderId: UINT64_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "orderId");
    const byClient = without(cancelOrder, "orderId");
    expect(validate({ ...byClient, clientOrderId: UINT64_MAX }).ok).toBe(true);
    expectRejected(validate({ ...byClient, clientOrderId: UINT64_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "clientOrderId");
  });

  it("the nonce is signed as uint64: max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(accepted(validate({ ...cancelOrder, nonce: UINT64_MAX })).nonce).toBe(2n ** 64n - 1n);
    const message = expectRejected(validate({ ...cancelOrder, nonce: UINT64_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "nonce");
    expect(message).toContain("uint64");
  });

  it("symbol is required and must resolve", () => {
    expectRejected(validate(without(cancelOrder, "symbol")), "INPUT_VALIDATION_ERROR", "symbol");
    expectRejected(validate({ ...cancelOrder, symbol: "NOPE" }), "SYMBOL_NOT_FOUND_ERROR", "symbol");
  });

  it.each(["accountId", "signature", "nonce", "deadline"])("a missing %s is INPUT_VALIDATION_ERROR", (field) => {
    expectRejected(validate(without(cancelOrder, field)), "INPUT_VALIDATION_ERROR", field);
  });

  it("a deadline beyond the safe integer range is NUMERIC_OVERFLOW_ERROR", () => {
    expectRejected(validate({ ...cancelOrder, deadline: 2 ** 53 }), "NUMERIC_OVERFLOW_ERROR", "deadline");
  });
});

describe("validateCancelAll", () => {
  const validate = (body: unknown) => validateCancelAll(body, context);

  it("normalizes a cancelAll on one market exactly", () => {
    expect(accepted(validate(cancelAll))).toEqual({
      operation: "cancelAll",
      request: cancelAll,
      market: WETH_SPOT,
      accountId: 1042,
      nonce: 1_745_000_000_000_009n,
      nonceText: "1745000000000009",
      deadline: DEADLINE_S,
      signature: SIGNATURE,
    });
  });

  it("without symbol covers every market: no market in the value", () => {
    expect(accepted(validate(without(cancelAll, "symbol")))).not.toHaveProperty("market");
  });

  it.each(["FOO", ""])("symbol %j that resolves to no market is SYMBOL_NOT_FOUND_ERROR", (symbol) => {
    expectRejected(validate({ ...cancelAll, symbol }), "SYMBOL_NOT_FOUND_ERROR", "symbol");
  });

  it("a non-string symbol is INPUT_VALIDATION_ERROR", () => {
    expectRejected(validate({ ...cancelAll, symbol: null }), "INPUT_VALIDATION_ERROR", "symbol");
  });

  it("the nonce is signed as uint64: max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(validate({ ...cancelAll, nonce: UINT64_MAX }).ok).toBe(true);
    expectRejected(validate({ ...cancelAll, nonce: UINT64_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "nonce");
  });

  it("accountId beyond the safe integer range is NUMERIC_OVERFLOW_ERROR", () => {
    expectRejected(validate({ ...cancelAll, accountId: Number.MAX_SAFE_INTEGER + 2 }), "NUMERIC_OVERFLOW_ERROR", "accountId");
  });

  it("a malformed signature is INPUT_VALIDATION_ERROR", () => {
    expectRejected(validate({ ...cancelAll, signature: SIGNATURE.slice(0, -2) }), "INPUT_VALIDATION_ERROR", "signature");
  });
});

describe("validateCancelAllAfter", () => {
  const validate = (body: unknown) => validateCancelAllAfter(body, context);

  it("normalizes an arming request exactly", () => {
    expect(accepted(validate(cancelAllAfter))).toEqual({
      operation: "cancelAllAfter",
      request: cancelAllAfter,
      accountId: 1042,
      timeoutMs: 15_000,
      nonce: 1_745_000_000_000_010n,
      nonceText: "1745000000000010",
      deadline: DEADLINE_S,
      signature: SIGNATURE,
      signerWallet: WALLET,
    });
  });

  it.each([0, 5000, 60_000])("timeoutMs %d is accepted", (timeoutMs) => {
    expect(accepted(validate({ ...cancelAllAfter, timeoutMs })).timeoutMs).toBe(timeoutMs);
  });

  it.each([1, 4999, 60_001, 3_600_000])("timeoutMs %d is INPUT_VALIDATION_ERROR naming the range", (timeoutMs) => {
    const message = expectRejected(validate({ ...cancelAllAfter, timeoutMs }), "INPUT_VALIDATION_ERROR", "timeoutMs");
    expect(message).toBe(`timeoutMs "${timeoutMs}" must be 0 or within [5000, 60000]`);
  });

  it("a fractional or negative timeoutMs is INPUT_VALIDATION_ERROR, beyond the safe range NUMERIC_OVERFLOW_ERROR", () => {
    expectRejected(validate({ ...cancelAllAfter, timeoutMs: 5000.5 }), "INPUT_VALIDATION_ERROR", "timeoutMs");
    expectRejected(validate({ ...cancelAllAfter, timeoutMs: -5000 }), "INPUT_VALIDATION_ERROR", "timeoutMs");
    expectRejected(validate({ ...cancelAllAfter, timeoutMs: "15000" }), "INPUT_VALIDATION_ERROR", "timeoutMs");
    expectRejected(validate({ ...cancelAllAfter, timeoutMs: 1e300 }), "NUMERIC_OVERFLOW_ERROR", "timeoutMs");
  });

  it("the nonce is signed as uint64: max passes, max + 1 is NUMERIC_OVERFLOW_ERROR", () => {
    expect(validate({ ...cancelAllAfter, nonce: UINT64_MAX }).ok).toBe(true);
    expectRejected(validate({ ...cancelAllAfter, nonce: UINT64_MAX_PLUS_ONE }), "NUMERIC_OVERFLOW_ERROR", "nonce");
  });

  it.each(["accountId", "timeoutMs", "signature", "nonce", "signerWallet", "deadline"])("a missing %s is INPUT_VALIDATION_ERROR", (field) => {
    expectRejected(validate(without(cancelAllAfter, field)), "INPUT_VALIDATION_ERROR", field);
  });

  it("a bad signerWallet is INPUT_VALIDATION_ERROR", () => {
    expectRejected(validate(withField(cancelAllAfter, "signerWallet", WALLET.slice(0, 41))), "INPUT_VALIDATION_ERROR", "signerWallet");
  });
});
