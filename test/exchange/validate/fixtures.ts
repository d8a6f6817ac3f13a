/** Markets, context, realistic request bodies and assertions shared by the validation tests. */
import { expect } from "vitest";
import { RequestError, type RequestErrorCode } from "../../../src/spec/errors.ts";
import type {
  CancelAllAfterRequest,
  CancelAllRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  ModifyOrderRequest,
} from "../../../src/spec/requests.ts";
import type { Check, MarketRef, Validation, ValidationContext } from "../../../src/exchange/gateway/validate/types.ts";

export const SIGNATURE = `0x${"8b7d36f622ad44815d66a6f75678f40c99cdb965088bcc857b53db5f8a7b272d"}${"0204574e11bb9c8109c132490b7f36ff4dc6ee1e93c277a616cf60c2db26cce6"}1c`;
export const WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/** The virtual "now" of the deadline tests, in Unix seconds. */
export const NOW_S = 1_745_000_000;
export const NOW_MICROS = NOW_S * 1_000_000;
export const DEADLINE_S = NOW_S + 60;

export const ETH_PERP: MarketRef = {
  marketId: 1,
  symbol: "ETHRUSDPERP",
  kind: "perp",
  tickSize: "0.01",
  qtyStepSize: "0.001",
  minOrderQty: "0.001",
};
export const BTC_PERP: MarketRef = {
  marketId: 2,
  symbol: "BTCRUSDPERP",
  kind: "perp",
  tickSize: "0.1",
  qtyStepSize: "0.0001",
  minOrderQty: "0.0005",
};
export const WETH_SPOT: MarketRef = {
  marketId: 5,
  symbol: "WETHRUSD",
  kind: "spot",
  tickSize: "0.01",
  qtyStepSize: "0.001",
  minOrderQty: "0.01",
};

const MARKETS = new Map<string, MarketRef>([ETH_PERP, BTC_PERP, WETH_SPOT].map((market) => [market.symbol, market]));

export const context: ValidationContext = {
  exchangeId: 1,
  markets: { bySymbol: (symbol) => MARKETS.get(symbol) },
};

/** A resting perp buy: LIMIT GTC, post-only, with a client id. */
export const createGtc: CreateOrderRequest = {
  exchangeId: 1,
  symbol: "ETHRUSDPERP",
  accountId: 1042,
  isBuy: true,
  limitPx: "3150.25",
  qty: "1.5",
  orderType: "LIMIT",
  timeInForce: "GTC",
  postOnly: true,
  signature: SIGNATURE,
  nonce: "1745000000000001",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
  clientOrderId: "42",
};

/** A perp IOC sell that only reduces. */
export const createIoc: CreateOrderRequest = {
  exchangeId: 1,
  symbol: "ETHRUSDPERP",
  accountId: 1042,
  isBuy: false,
  limitPx: "3100",
  qty: "0.25",
  orderType: "LIMIT",
  timeInForce: "IOC",
  reduceOnly: true,
  signature: SIGNATURE,
  nonce: "1745000000000002",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

/** A perp GTT buy expiring an hour after its deadline. */
export const createGtt: CreateOrderRequest = {
  exchangeId: 1,
  symbol: "BTCRUSDPERP",
  accountId: 1042,
  isBuy: true,
  limitPx: "64000.5",
  qty: "0.0125",
  orderType: "LIMIT",
  timeInForce: "GTT",
  signature: SIGNATURE,
  nonce: "1745000000000003",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
  expiresAfter: DEADLINE_S + 3600,
};

/** A stop-loss protecting a long: fires an IOC sell. */
export const createStop: CreateOrderRequest = {
  exchangeId: 1,
  symbol: "ETHRUSDPERP",
  accountId: 1042,
  isBuy: false,
  limitPx: "2900",
  orderType: "STOP_LOSS",
  timeInForce: "IOC",
  triggerPx: "2950",
  signature: SIGNATURE,
  nonce: "1745000000000004",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

/** A spot GTC sell. */
export const createSpot: CreateOrderRequest = {
  exchangeId: 1,
  symbol: "WETHRUSD",
  accountId: 1042,
  isBuy: false,
  limitPx: "3200",
  qty: "0.5",
  orderType: "LIMIT",
  timeInForce: "GTC",
  signature: SIGNATURE,
  nonce: "1745000000000005",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

/** Reprices createGtc's order, restating it in full. */
export const modifyLimit: ModifyOrderRequest = {
  orderId: "7340032000000001234",
  clientOrderId: "42",
  symbol: "ETHRUSDPERP",
  accountId: 1042,
  exchangeId: 1,
  isBuy: true,
  orderType: "LIMIT",
  timeInForce: "GTC",
  reduceOnly: false,
  limitPx: "3149.75",
  qty: "1.2",
  postOnly: true,
  signature: SIGNATURE,
  nonce: "1745000000000006",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

/** Moves createStop's trigger. */
export const modifyStop: ModifyOrderRequest = {
  orderId: "7340032000000001235",
  symbol: "ETHRUSDPERP",
  accountId: 1042,
  exchangeId: 1,
  isBuy: false,
  orderType: "STOP_LOSS",
  timeInForce: "IOC",
  triggerPx: "2940",
  reduceOnly: false,
  limitPx: "2890",
  postOnly: false,
  signature: SIGNATURE,
  nonce: "1745000000000007",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

export const cancelOrder: CancelOrderRequest = {
  orderId: "63552420354981888",
  accountId: 1042,
  symbol: "ETHRUSDPERP",
  signature: SIGNATURE,
  nonce: "1745000000000008",
  deadline: DEADLINE_S,
};

export const cancelAll: CancelAllRequest = {
  accountId: 1042,
  symbol: "WETHRUSD",
  signature: SIGNATURE,
  nonce: "1745000000000009",
  deadline: DEADLINE_S,
};

export const cancelAllAfter: CancelAllAfterRequest = {
  accountId: 1042,
  timeoutMs: 15_000,
  signature: SIGNATURE,
  nonce: "1745000000000010",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

/** A copy of `body` with `key` set to `value` (any JSON value, or undefined to make the key present but undefined). */
export function withField(body: object, key: string, value: unknown): Record<string, unknown> {
  return { ...body, [key]: value };
}

/** A copy of `body` without `key`. */
export function without(body: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...body };
  delete copy[key];
  return copy;
}

/** The value of an accepted validation, or fails the test with the error. */
export function accepted<T>(result: Validation<T>): T {
  if (!result.ok) throw new Error(`expected acceptance, got ${result.error.error}: ${result.error.message}`);
  return result.value;
}

/**
 * Asserts a rejection with `code` whose message names `field` (as a word)
 * and keeps the message style (no final period, valid RequestError).
 */
export function expectRejected(result: Validation<unknown> | Check, code: RequestErrorCode, field: string): string {
  if (result.ok) throw new Error(`expected ${code} naming ${field}, but the request was accepted`);
  expect(RequestError.safeParse(result.error).success).toBe(true);
  expect({ code: result.error.error, message: result.error.message }).toEqual({
    code,
    message: expect.stringMatching(new RegExp(`(^|[^A-Za-z])${field}([^A-Za-z]|$)`)),
  });
  expect(result.error.message).not.toMatch(/\.$/);
  expect(result.error).not.toHaveProperty("retryAfterMs");
  return result.error.message;
}
