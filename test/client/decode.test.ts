import { describe, expect, it } from "vitest";
import {
  decodeOrder,
  decodePerpExecution,
  decodeRequestError,
  decodeWith,
  isKnownCancelReason,
  isKnownExecutionType,
  isKnownRequestErrorCode,
  isKnownTimeInForce,
  TolerantOrderHistoryList,
} from "../../src/client/decode.ts";
import { InvalidResponseError, RequestFailedError } from "../../src/client/errors.ts";
import { fakeTransport, testClient } from "./fixtures.ts";

const ORDER_ROW = {
  exchangeId: 1,
  symbol: "ETHPERP",
  accountId: 12345,
  orderId: "1001",
  side: "B",
  limitPx: "3000",
  orderType: "LIMIT",
  timeInForce: "GTC",
  status: "CANCELLED",
  createdAt: 1_718_000_000_000,
  lastUpdateAt: 1_718_000_001_000,
  cancelReason: "USER_CANCEL",
};

const EXECUTION = {
  exchangeId: 1,
  symbol: "ETHPERP",
  takerAccountId: 1,
  makerAccountId: 2,
  qty: "1",
  side: "A",
  price: "3000",
  takerFee: "0.9",
  type: "ORDER_MATCH",
  timestamp: 1_718_000_000_000,
  sequenceNumber: 4,
  fillId: "77",
};

describe("order-entry responses", () => {
  it("keep unknown fields and take an unknown cancelReason as its raw string", async () => {
    const payload = { status: "CANCELLED", orderId: "9", cancelReason: "LIQUIDITY_GUARD", cancelReasonMessage: "new in 3.6", venueLatencyUs: 42 };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: true, payload })) });
    const response = await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "IOC" });
    expect(response).toStrictEqual(payload);
    expect(response.cancelReason).toBe("LIQUIDITY_GUARD");
    expect(isKnownCancelReason(response.cancelReason ?? "")).toBe(false);
    expect(response["venueLatencyUs"]).toBe(42);
  });

  it("turn an unknown RequestErrorCode into a RequestFailedError carrying it", async () => {
    const error = { error: "MARKET_MAKER_PROTECTION_ERROR", message: "mmp tripped", mmpWindowMs: 1000 };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: false, error })) });
    const failure = await client.cancelAll().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RequestFailedError);
    expect(failure).toMatchObject({ code: "MARKET_MAKER_PROTECTION_ERROR", requestError: error });
    expect(isKnownRequestErrorCode((failure as RequestFailedError).code)).toBe(false);
    expect(isKnownRequestErrorCode("RATE_LIMITED_ERROR")).toBe(true);
  });

  it("report a payload that lacks a required field as InvalidResponseError, keeping the payload", async () => {
    const payload = { status: "OPEN" };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: true, payload })) });
    const failure = await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect(failure).toMatchObject({ operation: "createOrder", response: payload });
    expect((failure as InvalidResponseError).details).toContain("orderId");
  });

  it("report an error that is not a RequestError as InvalidResponseError", async () => {
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: false, error: "Bad Gateway" })) });
    await expect(client.cancelAll()).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("keep a cancelAllAfter response's extra fields", async () => {
    const payload = { accountId: 12345, timeoutMs: 10_000, triggerAt: 1, serverTime: 2 };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: true, payload })) });
    expect(await client.cancelAllAfter({ timeoutMs: 10_000 })).toStrictEqual(payload);
  });
});

describe("typed answers (an in-process transport's)", () => {
  it("are handed over as they are, not decoded", async () => {
    // A payload that would not decode (no orderId): marked typed, it is not looked at.
    const payload = { status: "OPEN" };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: true, payload, typed: true })) });
    const response = await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC" });
    expect(response).toBe(payload);
  });

  it("report a typed RequestError as RequestFailedError carrying that very object", async () => {
    const error = { error: "ORDER_NOT_FOUND_ERROR", message: "no such order" };
    const { client } = testClient({ transport: fakeTransport(() => ({ ok: false, error, typed: true })) });
    const failure = await client.cancelOrder({ symbol: "ETHPERP", orderId: "5" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RequestFailedError);
    expect((failure as RequestFailedError).requestError).toBe(error);
    expect((failure as RequestFailedError).code).toBe("ORDER_NOT_FOUND_ERROR");
  });
});

describe("rows", () => {
  it("decode an Order row with an unknown timeInForce, cancelReason and extra fields", () => {
    const row = { ...ORDER_ROW, timeInForce: "FOK", cancelReason: "VENUE_HALT", venueTag: "x" };
    const decoded = decodeOrder(row);
    expect(decoded).toEqual({ ok: true, value: row });
    expect(isKnownTimeInForce("FOK")).toBe(false);
    expect(isKnownTimeInForce("GTT")).toBe(true);
  });

  it("still refuse a malformed known field, naming it", () => {
    const decoded = decodeOrder({ ...ORDER_ROW, orderId: 1001 });
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.issues).toContain("orderId");
    expect(decodeOrder({ ...ORDER_ROW, cancelReason: 5 }).ok).toBe(false);
    // OrderStatus is not announced as growing: it stays strict.
    expect(decodeOrder({ ...ORDER_ROW, status: "REJECTED" }).ok).toBe(false);
  });

  it("decode a PerpExecution with a new execution type", () => {
    const decoded = decodePerpExecution({ ...EXECUTION, type: "BLOCK_TRADE" });
    expect(decoded.ok && decoded.value.type).toBe("BLOCK_TRADE");
    expect(isKnownExecutionType("BLOCK_TRADE")).toBe(false);
    expect(isKnownExecutionType("ADL")).toBe(true);
  });

  it("decode an orderHistory page whose rows carry unknown enum values", () => {
    const page = { data: [ORDER_ROW, { ...ORDER_ROW, orderId: "1002", cancelReason: "NEW_REASON" }], meta: { nextCursor: "abc", pageToken: 1 } };
    expect(decodeWith(TolerantOrderHistoryList, page)).toEqual({ ok: true, value: page });
  });

  it("decode a RequestError with extra fields and keep them", () => {
    const raw = { error: "RATE_LIMITED_ERROR", message: "slow", retryAfterMs: 200, bucket: "create" };
    expect(decodeRequestError(raw)).toEqual({ ok: true, value: raw });
    expect(decodeRequestError({ error: "RATE_LIMITED_ERROR", message: "slow", retryAfterMs: 0 }).ok).toBe(false);
  });
});
