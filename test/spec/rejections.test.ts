import { describe, expect, test } from "vitest";
import type { z } from "zod";
import * as spec from "../../src/spec/index.ts";
import * as fx from "./fixtures.ts";
import { rejectedPaths, rejection } from "./issues.ts";

interface Case {
  readonly schema: z.ZodType;
  readonly input: unknown;
  /** Path of the field the rejection must name. */
  readonly path: string;
}

function without<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

const missingRequired: Record<string, Case> = {
  "MarketDefinition.oiCap": { schema: spec.MarketDefinition, input: without(fx.marketDefinition, "oiCap"), path: "oiCap" },
  "SpotMarketDefinition.baseAsset": {
    schema: spec.SpotMarketDefinition,
    input: without(fx.spotMarketDefinition, "baseAsset"),
    path: "baseAsset",
  },
  "AssetDefinition.displayDecimals": {
    schema: spec.AssetDefinition,
    input: without(fx.assetDefinition, "displayDecimals"),
    path: "displayDecimals",
  },
  "WalletConfiguration.ogStatus": {
    schema: spec.WalletConfiguration,
    input: without(fx.walletConfiguration, "ogStatus"),
    path: "ogStatus",
  },
  "MarketSummary.shortFundingValue": {
    schema: spec.MarketSummary,
    input: without(fx.marketSummary, "shortFundingValue"),
    path: "shortFundingValue",
  },
  "SpotMarketSummary.volume24h": {
    schema: spec.SpotMarketSummary,
    input: without(fx.spotMarketSummary, "volume24h"),
    path: "volume24h",
  },
  "Order.lastUpdateAt": { schema: spec.Order, input: without(fx.restingOrder, "lastUpdateAt"), path: "lastUpdateAt" },
  "OrderHistoryList.meta": { schema: spec.OrderHistoryList, input: without(fx.orderHistoryList, "meta"), path: "meta" },
  "OrderChangesSnapshot.snapshotSequenceNumber": {
    schema: spec.OrderChangesSnapshot,
    input: without(fx.orderChangesSnapshot, "snapshotSequenceNumber"),
    path: "snapshotSequenceNumber",
  },
  "PerpExecution.fillId": { schema: spec.PerpExecution, input: without(fx.perpExecution, "fillId"), path: "fillId" },
  "SpotExecution.makerAccountId (optional on perp, required on spot)": {
    schema: spec.SpotExecution,
    input: without(fx.spotExecution, "makerAccountId"),
    path: "makerAccountId",
  },
  "ExecutionBust.reason": { schema: spec.ExecutionBust, input: without(fx.executionBust, "reason"), path: "reason" },
  "Depth.asks": { schema: spec.Depth, input: without(fx.depth, "asks"), path: "asks" },
  "Position.avgEntryFundingValue": {
    schema: spec.Position,
    input: without(fx.position, "avgEntryFundingValue"),
    path: "avgEntryFundingValue",
  },
  "AccountBalance.balanceDEPRECATED": {
    schema: spec.AccountBalance,
    input: without(fx.accountBalance, "balanceDEPRECATED"),
    path: "balanceDEPRECATED",
  },
  "Transfer.netDepositsAfter": {
    schema: spec.Transfer,
    input: without(fx.transfer, "netDepositsAfter"),
    path: "netDepositsAfter",
  },
  "AccountNotification.ownerWallet": {
    schema: spec.AccountNotification,
    input: without(fx.accountNotification, "ownerWallet"),
    path: "ownerWallet",
  },
  "RequestError.message": { schema: spec.RequestError, input: without(fx.requestError, "message"), path: "message" },
  "CreateOrderRequest.deadline": {
    schema: spec.CreateOrderRequest,
    input: without(fx.createLimitRequest, "deadline"),
    path: "deadline",
  },
  "ModifyOrderRequest.postOnly (optional on create, required on modify)": {
    schema: spec.ModifyOrderRequest,
    input: without(fx.modifyOrderRequest, "postOnly"),
    path: "postOnly",
  },
  "CancelOrderRequest.nonce": { schema: spec.CancelOrderRequest, input: without(fx.cancelOrderRequest, "nonce"), path: "nonce" },
  "CancelAllRequest.signature": {
    schema: spec.CancelAllRequest,
    input: without(fx.cancelAllRequest, "signature"),
    path: "signature",
  },
  "CancelAllAfterRequest.timeoutMs": {
    schema: spec.CancelAllAfterRequest,
    input: without(fx.cancelAllAfterRequest, "timeoutMs"),
    path: "timeoutMs",
  },
  "CreateOrderResponse.orderId": {
    schema: spec.CreateOrderResponse,
    input: without(fx.createOrderResponse, "orderId"),
    path: "orderId",
  },
  "CancelAllResponse.cancelledCount": { schema: spec.CancelAllResponse, input: {}, path: "cancelledCount" },
  "CancelAllAfterResponse.timeoutMs": {
    schema: spec.CancelAllAfterResponse,
    input: without(fx.cancelAllAfterResponse, "timeoutMs"),
    path: "timeoutMs",
  },
  "ExecCreateOrderRequest.id": {
    schema: spec.ExecClientFrame,
    input: without(fx.execFrames.createOrderRequest, "id"),
    path: "id",
  },
  "ExecCancelAllRequest.payload": {
    schema: spec.ExecClientFrame,
    input: without(fx.execFrames.cancelAllRequest, "payload"),
    path: "payload",
  },
  "ExecErrorFrame.error": { schema: spec.ExecServerFrame, input: without(fx.execFrames.error, "error"), path: "error" },
  "StreamSubscribe.channel": {
    schema: spec.StreamClientFrame,
    input: without(fx.streamFrames.subscribe, "channel"),
    path: "channel",
  },
  "StreamChannelData.data": {
    schema: spec.StreamServerFrame,
    input: without(fx.streamFrames.channelData, "data"),
    path: "data",
  },
};

const wrongEnum: Record<string, Case> = {
  "AssetDefinition.status DISABLED": { schema: spec.AssetDefinition, input: { ...fx.assetDefinition, status: "DISABLED" }, path: "status" },
  "FeeTierParameters.tierType GOLD": {
    schema: spec.FeeTierParameters,
    input: { ...fx.feeTierParameters, tierType: "GOLD" },
    path: "tierType",
  },
  "Order.orderType TP (renamed in 3.5.2)": { schema: spec.Order, input: { ...fx.restingOrder, orderType: "TP" }, path: "orderType" },
  "Order.status REJECTED (removed in 3.5.2)": { schema: spec.Order, input: { ...fx.restingOrder, status: "REJECTED" }, path: "status" },
  "Order.timeInForce FOK": { schema: spec.Order, input: { ...fx.restingOrder, timeInForce: "FOK" }, path: "timeInForce" },
  "Order.cancelReason EXPIRED": {
    schema: spec.Order,
    input: { ...fx.cancelledStopOrder, cancelReason: "EXPIRED" },
    path: "cancelReason",
  },
  "Order.side S": { schema: spec.Order, input: { ...fx.restingOrder, side: "S" }, path: "side" },
  "PerpExecution.type DUST (renamed in 3.5.2)": { schema: spec.PerpExecution, input: { ...fx.perpExecution, type: "DUST" }, path: "type" },
  "SpotExecution.type ADL (perp-only)": { schema: spec.SpotExecution, input: { ...fx.spotExecution, type: "ADL" }, path: "type" },
  "Depth.type DELTA": { schema: spec.Depth, input: { ...fx.depth, type: "DELTA" }, path: "type" },
  "DepthSnapshot.type UPDATE": { schema: spec.DepthSnapshot, input: fx.depth, path: "type" },
  "Transfer.type BONUS": { schema: spec.Transfer, input: { ...fx.transfer, type: "BONUS" }, path: "type" },
  "AccountNotification.event ACCOUNT_DELETED": {
    schema: spec.AccountNotification,
    input: { ...fx.accountNotification, event: "ACCOUNT_DELETED" },
    path: "event",
  },
  "RequestError.error RATE_LIMITED (no _ERROR suffix)": {
    schema: spec.RequestError,
    input: { ...fx.requestError, error: "RATE_LIMITED" },
    path: "error",
  },
  "ServerError.error INTERNAL": { schema: spec.ServerError, input: { ...fx.serverError, error: "INTERNAL" }, path: "error" },
  "CreateOrderRequest.orderType MARKET": {
    schema: spec.CreateOrderRequest,
    input: { ...fx.createLimitRequest, orderType: "MARKET" },
    path: "orderType",
  },
  "CancelOrderResponse.status OPEN": {
    schema: spec.CancelOrderResponse,
    input: { ...fx.cancelOrderResponse, status: "OPEN" },
    path: "status",
  },
  "ExecErrorFrame.error.error is a framing code, not a RequestErrorCode": {
    schema: spec.ExecErrorFrame,
    input: { ...fx.execFrames.error, error: { error: "INPUT_VALIDATION_ERROR", message: "x" } },
    path: "error.error",
  },
  "ExecClientFrame.type subscribe": { schema: spec.ExecClientFrame, input: { type: "subscribe", id: "1" }, path: "type" },
  "StreamClientFrame.type createOrder": {
    schema: spec.StreamClientFrame,
    input: { type: "createOrder", channel: "/v2/assetOraclePrices" },
    path: "type",
  },
};

const patternViolation: Record<string, Case> = {
  "MarketDefinition.symbol ETH-PERP": { schema: spec.MarketDefinition, input: { ...fx.marketDefinition, symbol: "ETH-PERP" }, path: "symbol" },
  "MarketDefinition.tickSize .01": { schema: spec.MarketDefinition, input: { ...fx.marketDefinition, tickSize: ".01" }, path: "tickSize" },
  "MarketDefinition.maxLeverage 20.5": { schema: spec.MarketDefinition, input: { ...fx.marketDefinition, maxLeverage: 20.5 }, path: "maxLeverage" },
  "SpotMarketDefinition.quoteAsset r-USD": {
    schema: spec.SpotMarketDefinition,
    input: { ...fx.spotMarketDefinition, quoteAsset: "r-USD" },
    path: "quoteAsset",
  },
  "MarketSummary.fundingRate +0.1": { schema: spec.MarketSummary, input: { ...fx.marketSummary, fundingRate: "+0.1" }, path: "fundingRate" },
  "MarketSummary.updatedAt -1": { schema: spec.MarketSummary, input: { ...fx.marketSummary, updatedAt: -1 }, path: "updatedAt" },
  "Order.qty -1 (unsigned)": { schema: spec.Order, input: { ...fx.restingOrder, qty: "-1" }, path: "qty" },
  "Order.orderId hyphenated (pre-3.5.2 form)": {
    schema: spec.Order,
    input: { ...fx.restingOrder, orderId: "7340032-1234" },
    path: "orderId",
  },
  "Order.fillCount 0": { schema: spec.Order, input: { ...fx.fillUpdateOrder, fillCount: 0 }, path: "fillCount" },
  "Order.limitPx 3,150": { schema: spec.Order, input: { ...fx.restingOrder, limitPx: "3,150" }, path: "limitPx" },
  "PerpExecution.price 1e": { schema: spec.PerpExecution, input: { ...fx.perpExecution, price: "1e" }, path: "price" },
  "ExecutionBust.fillId 12.0": { schema: spec.ExecutionBust, input: { ...fx.executionBust, fillId: "12.0" }, path: "fillId" },
  "Depth.bids[0].px number": { schema: spec.Depth, input: { ...fx.depth, bids: [{ px: 3150, qty: "1" }] }, path: "bids.0.px" },
  "AccountNotification.ownerWallet 39 hex digits": {
    schema: spec.AccountNotification,
    input: { ...fx.accountNotification, ownerWallet: fx.WALLET.slice(0, 41) },
    path: "ownerWallet",
  },
  "Transfer.amount zero": { schema: spec.Transfer, input: { ...fx.transfer, amount: "-0.000e5" }, path: "amount" },
  "RequestError.retryAfterMs 0": { schema: spec.RequestError, input: { ...fx.requestError, retryAfterMs: 0 }, path: "retryAfterMs" },
  "CreateOrderRequest.signature 64 bytes": {
    schema: spec.CreateOrderRequest,
    input: { ...fx.createLimitRequest, signature: fx.SIGNATURE.slice(0, 130) },
    path: "signature",
  },
  "CreateOrderRequest.signerWallet without 0x": {
    schema: spec.CreateOrderRequest,
    input: { ...fx.createLimitRequest, signerWallet: fx.WALLET.slice(2) },
    path: "signerWallet",
  },
  "CreateOrderRequest.nonce 1e5": { schema: spec.CreateOrderRequest, input: { ...fx.createLimitRequest, nonce: "1e5" }, path: "nonce" },
  "CreateOrderRequest.nonce as a number": {
    schema: spec.CreateOrderRequest,
    input: { ...fx.createLimitRequest, nonce: 1718000000000001 },
    path: "nonce",
  },
  "CreateOrderRequest.deadline 1.5": { schema: spec.CreateOrderRequest, input: { ...fx.createLimitRequest, deadline: 1.5 }, path: "deadline" },
  "CreateOrderRequest.clientOrderId as a number": {
    schema: spec.CreateOrderRequest,
    input: { ...fx.createLimitRequest, clientOrderId: 42 },
    path: "clientOrderId",
  },
  "ModifyOrderRequest.limitPx -3149.75": {
    schema: spec.ModifyOrderRequest,
    input: { ...fx.modifyOrderRequest, limitPx: "-3149.75" },
    path: "limitPx",
  },
  "CancelAllAfterRequest.timeoutMs -5000": {
    schema: spec.CancelAllAfterRequest,
    input: { ...fx.cancelAllAfterRequest, timeoutMs: -5000 },
    path: "timeoutMs",
  },
  "StreamChannelData.timestamp as a string": {
    schema: spec.StreamChannelData,
    input: { ...fx.streamFrames.channelData, timestamp: "1718000000000" },
    path: "timestamp",
  },
};

describe.each([
  ["a missing required field", missingRequired],
  ["a wrong enum value", wrongEnum],
  ["a pattern or type violation", patternViolation],
] as const)("rejects %s", (_kind, cases) => {
  test.each(Object.entries(cases))("%s", (_name, { schema, input, path }) => {
    expect(rejectedPaths(schema, input)).toContain(path);
  });
});

describe("ok and error are exclusive in order-entry responses", () => {
  test("a success frame carrying an error is rejected", () => {
    const input = { ...fx.execFrames.createOrderSuccess, error: fx.requestError };
    expect(rejectedPaths(spec.ExecCreateOrderSuccess, input)).toContain("error");
    expect(spec.ExecServerFrame.safeParse(input).success).toBe(false);
  });

  test("a failure frame carrying a payload is rejected", () => {
    const input = { ...fx.execFrames.cancelAllFailure, payload: fx.cancelAllResponse };
    expect(rejectedPaths(spec.ExecCancelAllFailure, input)).toContain("payload");
    expect(spec.ExecServerFrame.safeParse(input).success).toBe(false);
  });

  test("a success frame is checked against the body of its own operation", () => {
    const mismatched = { ...fx.execFrames.cancelAllSuccess, type: "createOrder" };
    expect(spec.ExecServerFrame.safeParse(mismatched).success).toBe(false);
  });
});

describe("requests are structural only", () => {
  test("cross-field rules are left to the gateway", () => {
    const postOnlyIoc = { ...fx.createLimitRequest, timeInForce: "IOC", postOnly: true };
    const qtyOnTrigger = { ...fx.createStopRequest, qty: "1" };
    const cancelWithoutIds = fx.cancelAllRequest;
    expect(spec.CreateOrderRequest.safeParse(postOnlyIoc).success).toBe(true);
    expect(spec.CreateOrderRequest.safeParse(qtyOnTrigger).success).toBe(true);
    expect(spec.CancelOrderRequest.safeParse(cancelWithoutIds).success).toBe(true);
    expect(spec.CancelAllAfterRequest.safeParse({ ...fx.cancelAllAfterRequest, timeoutMs: 3000 }).success).toBe(true);
  });

  test("a trigger create request omits qty", () => {
    expect(spec.CreateOrderRequest.parse(fx.createStopRequest)).toStrictEqual(fx.createStopRequest);
  });

  test("a clientOrderId beyond uint64 is flagged as a numeric overflow", () => {
    const issues = rejection(spec.CreateOrderRequest, { ...fx.createLimitRequest, clientOrderId: "18446744073709551616" });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("clientOrderId");
    expect(issues[0]?.params).toStrictEqual({ reason: spec.NUMERIC_OVERFLOW_REASON });
  });
});
