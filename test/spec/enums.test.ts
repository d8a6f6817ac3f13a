import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";

// The member lists below are copied from the spec text (2.2, 7.2, 7.4, 7.5), in its order.

describe("enumerations of spec 2.2", () => {
  test.each([
    ["OrderType", spec.ORDER_TYPES, spec.OrderType, ["LIMIT", "STOP_LOSS", "TAKE_PROFIT"]],
    ["TriggerOrderType", spec.TRIGGER_ORDER_TYPES, spec.TriggerOrderType, ["STOP_LOSS", "TAKE_PROFIT"]],
    ["LimitOrderType", spec.LIMIT_ORDER_TYPES, spec.LimitOrderType, ["LIMIT"]],
    ["TimeInForce", spec.TIME_IN_FORCES, spec.TimeInForce, ["IOC", "GTC", "GTT"]],
    ["OrderStatus", spec.ORDER_STATUSES, spec.OrderStatus, ["OPEN", "FILLED", "CANCELLED"]],
    [
      "CancelReason",
      spec.CANCEL_REASONS,
      spec.CancelReason,
      [
        "NO_LIQUIDITY",
        "IOC_REMAINDER",
        "SELF_TRADE_PREVENTION",
        "PROTECTIVE_SELF_TRADE_SWEEP",
        "GTT_EXPIRED",
        "USER_CANCEL",
        "MASS_CANCEL",
        "CANCEL_ALL_AFTER",
        "FEED_RESET",
        "RISK_CANCELLED",
        "RISK_REJECTED",
        "OCO_SIBLING_FIRED",
        "POSITION_CLOSED",
      ],
    ],
    ["ExecutionType", spec.EXECUTION_TYPES, spec.ExecutionType, ["ORDER_MATCH", "LIQUIDATION", "ADL", "MARKET_CLOSE"]],
    ["SpotExecutionType", spec.SPOT_EXECUTION_TYPES, spec.SpotExecutionType, ["ORDER_MATCH", "LIQUIDATION"]],
    ["DepthType", spec.DEPTH_TYPES, spec.DepthType, ["SNAPSHOT", "UPDATE"]],
    ["TierType", spec.TIER_TYPES, spec.TierType, ["REGULAR", "VIP"]],
    ["AssetStatus", spec.ASSET_STATUSES, spec.AssetStatus, ["ENABLED", "WITHDRAWAL_ONLY"]],
    ["Side", spec.SIDES, spec.Side, ["B", "A"]],
  ] as const)("%s has exactly the spec's members", (_name, members, schema, expected) => {
    expect(members).toStrictEqual(expected);
    expect(schema.options).toStrictEqual(expected);
    for (const member of expected) expect(schema.safeParse(member).success).toBe(true);
    expect(schema.safeParse(expected[0].toLowerCase()).success).toBe(false);
  });

  test("CancelReason has 13 values including FEED_RESET", () => {
    expect(spec.CANCEL_REASONS).toHaveLength(13);
    expect(spec.CANCEL_REASONS).toContain("FEED_RESET");
  });

  test("trigger and limit order types partition OrderType", () => {
    expect([...spec.LIMIT_ORDER_TYPES, ...spec.TRIGGER_ORDER_TYPES]).toStrictEqual([...spec.ORDER_TYPES]);
  });
});

describe("shadowbook's own lists", () => {
  test("TransferType", () => {
    expect(spec.TRANSFER_TYPES).toStrictEqual([
      "DEPOSIT",
      "WITHDRAWAL",
      "TRANSFER_IN",
      "TRANSFER_OUT",
      "STAKE",
      "UNSTAKE",
      "SPOT_LEG",
      "PERP_FEE",
      "PERP_REBATE",
      "REALIZED_PNL",
      "FUNDING",
      "LIQUIDATION_PENALTY",
      "COLLATERAL_LIQUIDATION",
      "SOCIALIZED_LOSS",
    ]);
    expect(spec.TransferType.options).toStrictEqual([...spec.TRANSFER_TYPES]);
  });

  test("AccountEvent", () => {
    expect(spec.ACCOUNT_EVENTS).toStrictEqual(["ACCOUNT_CREATED", "SIGNER_ADDED", "SIGNER_REMOVED", "OWNER_CHANGED"]);
  });
});

describe("error codes", () => {
  const specCodes = [
    "SYMBOL_NOT_FOUND_ERROR",
    "NO_ACCOUNTS_FOUND_ERROR",
    "NO_PRICES_FOUND_FOR_SYMBOL_ERROR",
    "INPUT_VALIDATION_ERROR",
    "CREATE_ORDER_OTHER_ERROR",
    "CANCEL_ORDER_OTHER_ERROR",
    "ORDER_DEADLINE_PASSED_ERROR",
    "ORDER_DEADLINE_TOO_HIGH_ERROR",
    "INVALID_NONCE_ERROR",
    "UNAVAILABLE_MATCHING_ENGINE_ERROR",
    "UNAUTHORIZED_SIGNATURE_ERROR",
    "NUMERIC_OVERFLOW_ERROR",
    "CANCEL_ALL_AFTER_OTHER_ERROR",
    "ORDER_NOT_FOUND_ERROR",
    "POST_ONLY_WOULD_CROSS_ERROR",
    "MODIFY_QTY_BELOW_FILLED_ERROR",
    "EMPTY_MODIFY_ERROR",
    "MODIFY_ORDER_OTHER_ERROR",
    "RATE_LIMITED_ERROR",
    "INSUFFICIENT_BALANCE_ERROR",
    "PRICE_QTY_BOUNDS_ERROR",
    "SERVICE_DISABLED_ERROR",
    "UNAUTHORIZED_ACCOUNT_ERROR",
    "TRADING_HALTED_ERROR",
    "DUPLICATE_CLIENT_ORDER_ID_ERROR",
    "ACCOUNT_BELOW_LIQUIDATION_MARGIN_ERROR",
    "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
    "OPEN_INTEREST_CAP_ERROR",
    "OPEN_INTEREST_BUDGET_ERROR",
    "REDUCE_ONLY_CONDITION_NOT_MET_ERROR",
    "CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR",
    "TRIGGER_IOC_MUST_NOT_EXPIRE_ERROR",
    "TRIGGER_LIMIT_OUTSIDE_BAND_ERROR",
    "TRIGGER_ALREADY_EXISTS_ERROR",
    "ORDER_EXPIRES_TOO_SOON_ERROR",
    "OPEN_ORDER_COUNT_EXCEEDED_ERROR",
    "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR",
    "CAPACITY_LIMITED_ERROR",
    "NOT_WHITELISTED_ERROR",
    "ACCOUNT_SUSPENDED_ERROR",
    "UNAVAILABLE_ACCOUNT_OWNER_ERROR",
  ];

  test("RequestErrorCode has the 41 codes of spec 7.2 in order", () => {
    expect(specCodes).toHaveLength(41);
    expect(spec.REQUEST_ERROR_CODES).toStrictEqual(specCodes);
    expect(spec.RequestErrorCode.options).toStrictEqual(specCodes);
  });

  test("every code ends in _ERROR and is unique", () => {
    expect(new Set(spec.REQUEST_ERROR_CODES).size).toBe(spec.REQUEST_ERROR_CODES.length);
    for (const code of spec.REQUEST_ERROR_CODES) expect(code).toMatch(/^[A-Z_]+_ERROR$/);
  });

  test("WebSocket order-entry framing codes of spec 7.4", () => {
    expect(spec.WS_EXEC_FRAMING_ERROR_CODES).toStrictEqual(["MALFORMED_JSON", "UNKNOWN_TYPE", "DUPLICATE_REQUEST_ID", "INTERNAL"]);
    for (const code of spec.WS_EXEC_FRAMING_ERROR_CODES) expect(spec.RequestErrorCode.safeParse(code).success).toBe(false);
  });

  test("streaming error messages of spec 7.5", () => {
    expect(spec.STREAM_ERROR_INVALID_JSON).toBe("Invalid JSON");
    expect(spec.STREAM_ERROR_INVALID_TYPE).toBe("Invalid type");
    expect(spec.STREAM_ERROR_INVALID_CHANNEL_NAME).toBe("Invalid channel name");
    expect(spec.streamSnapshotErrorMessage("/v2/market/ETHPERP/depth")).toBe(
      "Error while fetching snapshot from /v2/market/ETHPERP/depth",
    );
  });

  test("ServerError code and HTTP statuses", () => {
    expect(spec.SERVER_ERROR_CODE).toBe("INTERNAL_SERVER_ERROR");
    expect([spec.HTTP_STATUS_REQUEST_ERROR, spec.HTTP_STATUS_SERVER_ERROR, spec.HTTP_STATUS_EDGE_LIMITED, spec.HTTP_STATUS_NOT_READY]).toStrictEqual([
      400, 500, 429, 503,
    ]);
  });
});
