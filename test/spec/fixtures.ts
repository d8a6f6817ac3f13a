/**
 * Realistic samples of every wire shape, typed with the inferred types so
 * that a drift between schema and type fails the typecheck too.
 */
import type { z } from "zod";
import * as spec from "../../src/spec/index.ts";

export const WALLET = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
export const SIGNER = "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359";
export const SIGNATURE =
  "0x8c1f4d3a9b2e7f60a5c4b3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2" +
  "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091b";
export const T0_MS = 1_718_000_000_000;
export const DEADLINE_S = 1_718_000_060;

export const marketDefinition: spec.MarketDefinition = {
  symbol: "ETHPERP",
  marketId: 1,
  minOrderQty: "0.001",
  qtyStepSize: "0.001",
  tickSize: "0.01",
  liquidationMarginParameter: "0.025",
  initialMarginParameter: "0.05",
  maxLeverage: 20,
  oiCap: "25000",
};

export const spotMarketDefinition: spec.SpotMarketDefinition = {
  symbol: "WETHRUSD",
  marketId: 5,
  baseAsset: "WETH",
  quoteAsset: "RUSD",
  minOrderQty: "0.0001",
  qtyStepSize: "0.0001",
  tickSize: "0.01",
};

export const assetDefinition: spec.AssetDefinition = {
  asset: "WETH",
  spotMarketSymbol: "WETHRUSD",
  priceHaircut: "0.1",
  liquidationDiscount: "0.05",
  status: "ENABLED",
  decimals: 18,
  displayDecimals: 4,
};

export const feeTierParameters: spec.FeeTierParameters = {
  tierId: 0,
  takerFee: "0.0004",
  makerFee: "-0.00005",
  volume30d: "0",
  tierType: "REGULAR",
};

export const globalFeeParameters: spec.GlobalFeeParameters = {
  ogDiscount: "0.1",
  refereeDiscount: "0.05",
  referrerRebate: "0.1",
  affiliateReferrerRebate: "0.2",
};

export const walletConfiguration: spec.WalletConfiguration = {
  feeTierId: 0,
  ogStatus: false,
  affiliateStatus: false,
  refereeStatus: true,
};

export const marketSummary: spec.MarketSummary = {
  symbol: "ETHPERP",
  updatedAt: T0_MS,
  oiQty: "1234.567",
  fundingRate: "-0.00125",
  longFundingValue: "18.2231",
  shortFundingValue: "18.2229",
  volume24h: "98231.5",
  pxChange24h: "-42.1",
  markPrice: "3150.27",
  oraclePrice: "3150.1",
  throttledMidPrice: "3150.255",
  pricesUpdatedAt: T0_MS - 250,
};

export const spotMarketSummary: spec.SpotMarketSummary = {
  symbol: "WETHRUSD",
  updatedAt: T0_MS,
  volume24h: "150000.25",
  pxChange24h: "12.5",
  oraclePrice: "3149.9",
  throttledMidPrice: "3150",
};

export const assetOraclePrice: spec.AssetOraclePrice = { asset: "WETH", oraclePrice: "3149.9", updatedAt: T0_MS };

export const depth: spec.Depth = {
  symbol: "ETHPERP",
  type: "UPDATE",
  bids: [
    { px: "3150.25", qty: "2.5" },
    { px: "3150.2", qty: "0" },
  ],
  asks: [{ px: "3150.3", qty: "1.25" }],
  updatedAt: T0_MS,
};

export const depthSnapshot: spec.DepthSnapshot = { ...depth, type: "SNAPSHOT", bids: [{ px: "3150.25", qty: "2.5" }] };

export const restingOrder: spec.Order = {
  exchangeId: 1,
  symbol: "ETHPERP",
  accountId: 1042,
  orderId: "7340032000000001234",
  clientOrderId: "42",
  qty: "1.5",
  cumQty: "0",
  side: "B",
  limitPx: "3150.25",
  orderType: "LIMIT",
  triggered: false,
  timeInForce: "GTC",
  reduceOnly: false,
  postOnly: true,
  status: "OPEN",
  createdAt: T0_MS,
  lastUpdateAt: T0_MS,
};

export const fillUpdateOrder: spec.Order = {
  ...restingOrder,
  sequenceNumber: 88_123,
  execQty: "0.5",
  cumQty: "0.5",
  firstFillId: "901233",
  fillCount: 1,
  lastUpdateAt: T0_MS + 1234,
};

export const cancelledStopOrder: spec.Order = {
  exchangeId: 1,
  symbol: "BTCPERP",
  accountId: 1042,
  orderId: "7340032000000001301",
  sequenceNumber: 88_200,
  side: "A",
  limitPx: "60500",
  orderType: "STOP_LOSS",
  triggerPx: "61000",
  timeInForce: "GTT",
  expiresAfter: DEADLINE_S + 3600,
  reduceOnly: false,
  postOnly: false,
  status: "CANCELLED",
  createdAt: T0_MS,
  lastUpdateAt: T0_MS + 3_600_000,
  cancelReason: "GTT_EXPIRED",
  cancelReasonMessage: "order expired",
};

export const paginationMeta: spec.PaginationMeta = {
  nextCursor: "eyJzIjo4ODEyM30",
  startTime: T0_MS - 86_400_000,
  endTime: T0_MS,
  limit: 100,
};

export const orderHistoryList: spec.OrderHistoryList = {
  data: [fillUpdateOrder, cancelledStopOrder],
  meta: paginationMeta,
};

export const orderChangesSnapshot: spec.OrderChangesSnapshot = {
  data: [restingOrder],
  snapshotSequenceNumber: 88_122,
};

export const perpExecution: spec.PerpExecution = {
  exchangeId: 1,
  symbol: "ETHPERP",
  takerAccountId: 2001,
  makerAccountId: 1042,
  takerOrderId: "7340032000000001240",
  makerOrderId: "7340032000000001234",
  qty: "0.5",
  side: "A",
  price: "3150.25",
  takerFee: "0.63005",
  protocolFeeCredit: "0.4",
  referrerFeeCredit: "0",
  takerRebateCredit: "0.03",
  poolFeeCredit: "0.20005",
  takerOpeningFee: "0.63005",
  type: "ORDER_MATCH",
  timestamp: T0_MS + 1500,
  sequenceNumber: 5_550_001,
  fillId: "901233",
  takerRealizedPnl: "-1.25",
  takerPriceVariationPnl: "-1.1",
  takerFundingPnl: "-0.15",
};

export const adlExecution: spec.PerpExecution = {
  exchangeId: 1,
  symbol: "ETHPERP",
  takerAccountId: 3003,
  qty: "2",
  side: "B",
  price: "3200",
  takerFee: "0",
  type: "ADL",
  timestamp: T0_MS + 9000,
  sequenceNumber: 5_550_002,
  fillId: "901240",
};

export const spotExecution: spec.SpotExecution = {
  exchangeId: 1,
  symbol: "WETHRUSD",
  takerAccountId: 2001,
  makerAccountId: 1042,
  makerOrderId: "7340032000000001500",
  qty: "0.25",
  side: "B",
  price: "3150",
  takerFee: "0.00005",
  type: "ORDER_MATCH",
  timestamp: T0_MS + 2000,
  sequenceNumber: 77_001,
  fillId: "901300",
};

export const bustReasonAccountBelowIM: spec.BustReasonAccountBelowIM = {
  reasonName: "AccountBelowIM",
  accountId: 2001,
  delta: "-125.5",
  shortfall: "12.75",
};
export const bustReasonInsufficientBalance: spec.BustReasonInsufficientBalance = {
  reasonName: "InsufficientBalance",
  accountId: 2001,
  asset: "RUSD",
  required: "787.5",
  available: "500",
};
export const bustReasonSignatureExpired: spec.BustReasonSignatureExpired = {
  reasonName: "SignatureExpired",
  accountId: 1042,
  deadline: DEADLINE_S,
};
export const bustReasonMarketPaused: spec.BustReasonMarketPaused = { reasonName: "MarketPaused", marketId: 1 };
export const bustReasonDecoded: spec.BustReasonDecoded = { reasonName: "DecodedReason", message: "nonce already used" };
export const bustReasonUnknown: spec.BustReasonUnknown = { reasonName: "UnknownReason", message: "0xdeadbeef" };
export const bustReasonUnmodeled: spec.BustReasonUnmodeled = {
  reasonName: "OraclePriceStale",
  args: { marketId: "1", publishedAt: "1717999900" },
};

export const perpExecutionList: spec.PerpExecutionList = { data: [perpExecution], meta: { limit: 2, startTime: T0_MS, endTime: T0_MS + 3_600_000 } };
export const spotExecutionList: spec.SpotExecutionList = { data: [spotExecution], meta: { limit: 100 } };

export const executionBust: spec.ExecutionBust = {
  symbol: "ETHPERP",
  takerAccountId: 2001,
  exchangeId: 1,
  makerAccountId: 1042,
  takerOrderId: "7340032000000001240",
  makerOrderId: "7340032000000001234",
  qty: "0.5",
  side: "A",
  price: "3150.25",
  reason: bustReasonAccountBelowIM,
  timestamp: T0_MS + 1500,
  sequenceNumber: 311,
  fillId: "901234",
};

export const executionBustList: spec.ExecutionBustList = { data: [executionBust], meta: { limit: 100 } };

export const position: spec.Position = {
  exchangeId: 1,
  symbol: "ETHPERP",
  accountId: 1042,
  qty: "0.5",
  side: "B",
  avgEntryPrice: "3150.25",
  avgEntryFundingValue: "18.2231",
  lastTradeSequenceNumber: 5_550_001,
};

export const accountBalance: spec.AccountBalance = {
  accountId: 1042,
  asset: "RUSD",
  realBalance: "10012.5",
  balanceDEPRECATED: "10000",
};

export const transfer: spec.Transfer = {
  id: "120034",
  accountId: 1042,
  asset: "RUSD",
  type: "PERP_REBATE",
  amount: "0.07875625",
  netDepositsAfter: "10000",
  timestamp: T0_MS + 1500,
  fillId: "901233",
};

export const withdrawal: spec.Transfer = {
  id: "120035",
  accountId: 1042,
  asset: "RUSD",
  type: "TRANSFER_OUT",
  amount: "-250",
  netDepositsAfter: "9750",
  timestamp: T0_MS + 5000,
  counterpartyAccountId: 1043,
};

export const transferList: spec.TransferList = { data: [withdrawal, transfer], meta: { nextCursor: "c2VxOjEyMDAzMw" } };
export const transfersSnapshot: spec.TransfersSnapshot = { data: [withdrawal, transfer] };

export const walletAccount: spec.WalletAccount = { accountId: 1042, ownerWallet: WALLET, signers: [SIGNER, WALLET].sort() };

export const accountNotification: spec.AccountNotification = {
  accountId: 1042,
  ownerWallet: WALLET,
  event: "SIGNER_ADDED",
  signer: SIGNER,
  timestamp: T0_MS,
};

export const requestError: spec.RequestError = {
  error: "RATE_LIMITED_ERROR",
  message: "createOrder/cancelOrder bucket of 30 per 60 s is exhausted",
  retryAfterMs: 1850,
};
export const serverError: spec.ServerError = { error: "INTERNAL_SERVER_ERROR", message: "internal error" };

export const createLimitRequest: spec.CreateOrderRequest = {
  exchangeId: 1,
  symbol: "ETHPERP",
  accountId: 1042,
  isBuy: true,
  limitPx: "3150.25",
  qty: "1.5",
  orderType: "LIMIT",
  timeInForce: "GTT",
  postOnly: true,
  signature: SIGNATURE,
  nonce: "1718000000000001",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
  expiresAfter: DEADLINE_S + 3600,
  clientOrderId: "42",
};

export const createStopRequest: spec.CreateOrderRequest = {
  exchangeId: 1,
  symbol: "ETHPERP",
  accountId: 1042,
  isBuy: false,
  limitPx: "2900",
  orderType: "STOP_LOSS",
  timeInForce: "IOC",
  triggerPx: "2950",
  signature: SIGNATURE,
  nonce: "1718000000000002",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

export const createOrderResponse: spec.CreateOrderResponse = {
  status: "FILLED",
  orderId: "7340032000000001240",
  execQty: "0.5",
  cumQty: "0.5",
  clientOrderId: "43",
  firstFillId: "901233",
  fillCount: 2,
};

export const modifyOrderRequest: spec.ModifyOrderRequest = {
  orderId: "7340032000000001234",
  clientOrderId: "42",
  symbol: "ETHPERP",
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
  nonce: "1718000000000003",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

export const modifyOrderResponse: spec.ModifyOrderResponse = {
  status: "OPEN",
  orderId: "7340032000000001234",
  cumQty: "0.5",
  clientOrderId: "42",
};

export const cancelOrderRequest: spec.CancelOrderRequest = {
  clientOrderId: "42",
  accountId: 1042,
  symbol: "ETHPERP",
  signature: SIGNATURE,
  nonce: "1718000000000004",
  deadline: DEADLINE_S,
};

export const cancelOrderResponse: spec.CancelOrderResponse = {
  status: "CANCELLED",
  orderId: "7340032000000001234",
  clientOrderId: "42",
};

export const cancelAllRequest: spec.CancelAllRequest = {
  accountId: 1042,
  symbol: "ETHPERP",
  signature: SIGNATURE,
  nonce: "1718000000000005",
  deadline: DEADLINE_S,
};

export const cancelAllResponse: spec.CancelAllResponse = { cancelledCount: 7 };

export const cancelAllAfterRequest: spec.CancelAllAfterRequest = {
  accountId: 1042,
  timeoutMs: 15_000,
  signature: SIGNATURE,
  nonce: "1718000000000006",
  signerWallet: WALLET,
  deadline: DEADLINE_S,
};

export const cancelAllAfterResponse: spec.CancelAllAfterResponse = {
  accountId: 1042,
  timeoutMs: 15_000,
  triggerAt: T0_MS + 15_000,
};

export const execFrames = {
  createOrderRequest: { type: "createOrder", id: "c-1", payload: createLimitRequest },
  modifyOrderRequest: { type: "modifyOrder", id: "c-2", payload: modifyOrderRequest },
  cancelOrderRequest: { type: "cancelOrder", id: "c-3", payload: cancelOrderRequest },
  cancelAllRequest: { type: "cancelAll", id: "c-4", payload: cancelAllRequest },
  cancelAllAfterRequest: { type: "cancelAllAfter", id: "c-5", payload: cancelAllAfterRequest },
  ping: { type: "ping", id: "p-1" },
  createOrderSuccess: { type: "createOrder", id: "c-1", ok: true, payload: createOrderResponse },
  createOrderFailure: { type: "createOrder", id: "c-1", ok: false, error: requestError },
  modifyOrderSuccess: { type: "modifyOrder", id: "c-2", ok: true, payload: modifyOrderResponse },
  modifyOrderFailure: {
    type: "modifyOrder",
    id: "c-2",
    ok: false,
    error: { error: "MODIFY_QTY_BELOW_FILLED_ERROR", message: 'qty "0.4" is not above cumQty "0.5"' },
  },
  cancelOrderSuccess: { type: "cancelOrder", id: "c-3", ok: true, payload: cancelOrderResponse },
  cancelOrderFailure: {
    type: "cancelOrder",
    id: "c-3",
    ok: false,
    error: { error: "ORDER_NOT_FOUND_ERROR", message: 'no live order with clientOrderId "42"' },
  },
  cancelAllSuccess: { type: "cancelAll", id: "c-4", ok: true, payload: cancelAllResponse },
  cancelAllFailure: {
    type: "cancelAll",
    id: "c-4",
    ok: false,
    error: { error: "INVALID_NONCE_ERROR", message: 'nonce "5" is not above the last nonce "6"' },
  },
  cancelAllAfterSuccess: { type: "cancelAllAfter", id: "c-5", ok: true, payload: cancelAllAfterResponse },
  cancelAllAfterFailure: {
    type: "cancelAllAfter",
    id: "c-5",
    ok: false,
    error: { error: "INPUT_VALIDATION_ERROR", message: "timeoutMs 3000 is not 0 nor within [5000, 60000]" },
  },
  pong: { type: "pong", id: "p-1" },
  error: { type: "error", id: "c-1", error: { error: "DUPLICATE_REQUEST_ID", message: 'id "c-1" is already in flight' } },
} as const;

export const streamFrames = {
  subscribe: { type: "subscribe", channel: "/v2/market/ETHPERP/depth", id: 7 },
  unsubscribe: { type: "unsubscribe", channel: "/v2/market/ETHPERP/depth" },
  ping: { type: "ping" },
  subscribed: { type: "subscribed", channel: "/v2/market/ETHPERP/depth", contents: depthSnapshot },
  unsubscribed: { type: "unsubscribed", channel: "/v2/market/ETHPERP/depth" },
  channelData: { type: "channel_data", timestamp: T0_MS, channel: "/v2/market/ETHPERP/depth", data: depth },
  error: { type: "error", message: "Invalid channel name", channel: "/v2/market/ETH-PERP/depth" },
  pong: { type: "pong" },
} as const;

/** One sample per schema: name is the export name of the schema. */
export interface Sample {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly sample: unknown;
}

export const SAMPLES: readonly Sample[] = [
  { name: "UnsignedInteger", schema: spec.UnsignedInteger, sample: 0 },
  { name: "UnsignedDecimal", schema: spec.UnsignedDecimal, sample: "1.5e-3" },
  { name: "SignedDecimal", schema: spec.SignedDecimal, sample: "-0.00125" },
  { name: "MarketSymbol", schema: spec.MarketSymbol, sample: "ETHPERP" },
  { name: "Asset", schema: spec.Asset, sample: "RUSD" },
  { name: "Address", schema: spec.Address, sample: WALLET },
  { name: "Side", schema: spec.Side, sample: "A" },
  { name: "Id", schema: spec.Id, sample: "18446744073709551615" },
  { name: "Nonce", schema: spec.Nonce, sample: "1718000000000001" },
  { name: "Signature", schema: spec.Signature, sample: SIGNATURE },
  { name: "OrderType", schema: spec.OrderType, sample: "TAKE_PROFIT" },
  { name: "TriggerOrderType", schema: spec.TriggerOrderType, sample: "STOP_LOSS" },
  { name: "LimitOrderType", schema: spec.LimitOrderType, sample: "LIMIT" },
  { name: "TimeInForce", schema: spec.TimeInForce, sample: "GTT" },
  { name: "OrderStatus", schema: spec.OrderStatus, sample: "FILLED" },
  { name: "CancelReason", schema: spec.CancelReason, sample: "FEED_RESET" },
  { name: "ExecutionType", schema: spec.ExecutionType, sample: "MARKET_CLOSE" },
  { name: "SpotExecutionType", schema: spec.SpotExecutionType, sample: "LIQUIDATION" },
  { name: "DepthType", schema: spec.DepthType, sample: "SNAPSHOT" },
  { name: "TierType", schema: spec.TierType, sample: "VIP" },
  { name: "AssetStatus", schema: spec.AssetStatus, sample: "WITHDRAWAL_ONLY" },
  { name: "TransferType", schema: spec.TransferType, sample: "FUNDING" },
  { name: "AccountEvent", schema: spec.AccountEvent, sample: "OWNER_CHANGED" },
  { name: "RequestErrorCode", schema: spec.RequestErrorCode, sample: "UNAVAILABLE_ACCOUNT_OWNER_ERROR" },
  { name: "WsExecFramingErrorCode", schema: spec.WsExecFramingErrorCode, sample: "MALFORMED_JSON" },
  { name: "RequestError", schema: spec.RequestError, sample: requestError },
  { name: "ServerError", schema: spec.ServerError, sample: serverError },
  { name: "MarketDefinition", schema: spec.MarketDefinition, sample: marketDefinition },
  { name: "SpotMarketDefinition", schema: spec.SpotMarketDefinition, sample: spotMarketDefinition },
  { name: "AssetDefinition", schema: spec.AssetDefinition, sample: assetDefinition },
  { name: "FeeTierParameters", schema: spec.FeeTierParameters, sample: feeTierParameters },
  { name: "GlobalFeeParameters", schema: spec.GlobalFeeParameters, sample: globalFeeParameters },
  { name: "WalletConfiguration", schema: spec.WalletConfiguration, sample: walletConfiguration },
  { name: "MarketSummary", schema: spec.MarketSummary, sample: marketSummary },
  { name: "SpotMarketSummary", schema: spec.SpotMarketSummary, sample: spotMarketSummary },
  { name: "AssetOraclePrice", schema: spec.AssetOraclePrice, sample: assetOraclePrice },
  { name: "DepthLevel", schema: spec.DepthLevel, sample: { px: "3150.25", qty: "0" } },
  { name: "Depth", schema: spec.Depth, sample: depth },
  { name: "DepthSnapshot", schema: spec.DepthSnapshot, sample: depthSnapshot },
  { name: "PaginationMeta", schema: spec.PaginationMeta, sample: paginationMeta },
  { name: "FillCount", schema: spec.FillCount, sample: 1 },
  { name: "Order", schema: spec.Order, sample: fillUpdateOrder },
  { name: "OrderHistoryList", schema: spec.OrderHistoryList, sample: orderHistoryList },
  { name: "OrderChangesSnapshot", schema: spec.OrderChangesSnapshot, sample: orderChangesSnapshot },
  { name: "PerpExecution", schema: spec.PerpExecution, sample: perpExecution },
  { name: "SpotExecution", schema: spec.SpotExecution, sample: spotExecution },
  { name: "PerpExecutionList", schema: spec.PerpExecutionList, sample: perpExecutionList },
  { name: "SpotExecutionList", schema: spec.SpotExecutionList, sample: spotExecutionList },
  { name: "BustReasonAccountBelowIM", schema: spec.BustReasonAccountBelowIM, sample: bustReasonAccountBelowIM },
  { name: "BustReasonInsufficientBalance", schema: spec.BustReasonInsufficientBalance, sample: bustReasonInsufficientBalance },
  { name: "BustReasonSignatureExpired", schema: spec.BustReasonSignatureExpired, sample: bustReasonSignatureExpired },
  { name: "BustReasonMarketPaused", schema: spec.BustReasonMarketPaused, sample: bustReasonMarketPaused },
  { name: "BustReasonDecoded", schema: spec.BustReasonDecoded, sample: bustReasonDecoded },
  { name: "BustReasonUnknown", schema: spec.BustReasonUnknown, sample: bustReasonUnknown },
  { name: "BustReasonUnmodeled", schema: spec.BustReasonUnmodeled, sample: bustReasonUnmodeled },
  { name: "ModeledBustReason", schema: spec.ModeledBustReason, sample: bustReasonMarketPaused },
  { name: "ExecutionBustReason", schema: spec.ExecutionBustReason, sample: bustReasonUnmodeled },
  { name: "ExecutionBust", schema: spec.ExecutionBust, sample: executionBust },
  { name: "ExecutionBustList", schema: spec.ExecutionBustList, sample: executionBustList },
  { name: "Position", schema: spec.Position, sample: position },
  { name: "AccountBalance", schema: spec.AccountBalance, sample: accountBalance },
  { name: "Transfer", schema: spec.Transfer, sample: transfer },
  { name: "TransferList", schema: spec.TransferList, sample: transferList },
  { name: "TransfersSnapshot", schema: spec.TransfersSnapshot, sample: transfersSnapshot },
  { name: "WalletAccount", schema: spec.WalletAccount, sample: walletAccount },
  { name: "AccountNotification", schema: spec.AccountNotification, sample: accountNotification },
  { name: "CreateOrderRequest", schema: spec.CreateOrderRequest, sample: createLimitRequest },
  { name: "ModifyOrderRequest", schema: spec.ModifyOrderRequest, sample: modifyOrderRequest },
  { name: "CancelOrderRequest", schema: spec.CancelOrderRequest, sample: cancelOrderRequest },
  { name: "CancelAllRequest", schema: spec.CancelAllRequest, sample: cancelAllRequest },
  { name: "CancelAllAfterRequest", schema: spec.CancelAllAfterRequest, sample: cancelAllAfterRequest },
  { name: "CreateOrderResponse", schema: spec.CreateOrderResponse, sample: createOrderResponse },
  { name: "ModifyOrderResponse", schema: spec.ModifyOrderResponse, sample: modifyOrderResponse },
  { name: "CancelOrderResponse", schema: spec.CancelOrderResponse, sample: cancelOrderResponse },
  { name: "CancelAllResponse", schema: spec.CancelAllResponse, sample: cancelAllResponse },
  { name: "CancelAllAfterResponse", schema: spec.CancelAllAfterResponse, sample: cancelAllAfterResponse },
  { name: "ExecCreateOrderRequest", schema: spec.ExecCreateOrderRequest, sample: execFrames.createOrderRequest },
  { name: "ExecModifyOrderRequest", schema: spec.ExecModifyOrderRequest, sample: execFrames.modifyOrderRequest },
  { name: "ExecCancelOrderRequest", schema: spec.ExecCancelOrderRequest, sample: execFrames.cancelOrderRequest },
  { name: "ExecCancelAllRequest", schema: spec.ExecCancelAllRequest, sample: execFrames.cancelAllRequest },
  { name: "ExecCancelAllAfterRequest", schema: spec.ExecCancelAllAfterRequest, sample: execFrames.cancelAllAfterRequest },
  { name: "ExecPing", schema: spec.ExecPing, sample: execFrames.ping },
  { name: "ExecClientFrame", schema: spec.ExecClientFrame, sample: execFrames.cancelAllRequest },
  { name: "ExecCreateOrderSuccess", schema: spec.ExecCreateOrderSuccess, sample: execFrames.createOrderSuccess },
  { name: "ExecCreateOrderFailure", schema: spec.ExecCreateOrderFailure, sample: execFrames.createOrderFailure },
  { name: "ExecCreateOrderResponse", schema: spec.ExecCreateOrderResponse, sample: execFrames.createOrderFailure },
  { name: "ExecModifyOrderSuccess", schema: spec.ExecModifyOrderSuccess, sample: execFrames.modifyOrderSuccess },
  { name: "ExecModifyOrderFailure", schema: spec.ExecModifyOrderFailure, sample: execFrames.modifyOrderFailure },
  { name: "ExecModifyOrderResponse", schema: spec.ExecModifyOrderResponse, sample: execFrames.modifyOrderSuccess },
  { name: "ExecCancelOrderSuccess", schema: spec.ExecCancelOrderSuccess, sample: execFrames.cancelOrderSuccess },
  { name: "ExecCancelOrderFailure", schema: spec.ExecCancelOrderFailure, sample: execFrames.cancelOrderFailure },
  { name: "ExecCancelOrderResponse", schema: spec.ExecCancelOrderResponse, sample: execFrames.cancelOrderSuccess },
  { name: "ExecCancelAllSuccess", schema: spec.ExecCancelAllSuccess, sample: execFrames.cancelAllSuccess },
  { name: "ExecCancelAllFailure", schema: spec.ExecCancelAllFailure, sample: execFrames.cancelAllFailure },
  { name: "ExecCancelAllResponse", schema: spec.ExecCancelAllResponse, sample: execFrames.cancelAllFailure },
  { name: "ExecCancelAllAfterSuccess", schema: spec.ExecCancelAllAfterSuccess, sample: execFrames.cancelAllAfterSuccess },
  { name: "ExecCancelAllAfterFailure", schema: spec.ExecCancelAllAfterFailure, sample: execFrames.cancelAllAfterFailure },
  { name: "ExecCancelAllAfterResponse", schema: spec.ExecCancelAllAfterResponse, sample: execFrames.cancelAllAfterSuccess },
  { name: "ExecPong", schema: spec.ExecPong, sample: execFrames.pong },
  { name: "ExecFramingError", schema: spec.ExecFramingError, sample: execFrames.error.error },
  { name: "ExecErrorFrame", schema: spec.ExecErrorFrame, sample: execFrames.error },
  { name: "ExecServerFrame", schema: spec.ExecServerFrame, sample: execFrames.modifyOrderFailure },
  { name: "StreamClientId", schema: spec.StreamClientId, sample: "sub-1" },
  { name: "StreamSubscribe", schema: spec.StreamSubscribe, sample: streamFrames.subscribe },
  { name: "StreamUnsubscribe", schema: spec.StreamUnsubscribe, sample: streamFrames.unsubscribe },
  { name: "StreamPing", schema: spec.StreamPing, sample: streamFrames.ping },
  { name: "StreamClientFrame", schema: spec.StreamClientFrame, sample: streamFrames.subscribe },
  { name: "StreamSubscribed", schema: spec.StreamSubscribed, sample: streamFrames.subscribed },
  { name: "StreamUnsubscribed", schema: spec.StreamUnsubscribed, sample: streamFrames.unsubscribed },
  { name: "StreamChannelData", schema: spec.StreamChannelData, sample: streamFrames.channelData },
  { name: "StreamError", schema: spec.StreamError, sample: streamFrames.error },
  { name: "StreamPong", schema: spec.StreamPong, sample: streamFrames.pong },
  { name: "StreamServerFrame", schema: spec.StreamServerFrame, sample: streamFrames.channelData },
];
