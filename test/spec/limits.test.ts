import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";

describe("limits of spec 8", () => {
  test("per-wallet rate, first tier (8.1)", () => {
    expect(spec.RATE_LIMIT_WINDOW_MS).toBe(60_000);
    expect(spec.CREATE_CANCEL_BUCKET_TIER1).toBe(30);
    expect(spec.CANCEL_ALL_BUCKET_TIER1).toBe(10);
  });

  test("open-order caps, first tier (8.2)", () => {
    expect(spec.OPEN_ORDER_COUNT_MAX_TIER1).toBe(100);
    expect(spec.OPEN_ORDER_NOTIONAL_MAX_USD_TIER1).toBe("5000");
    expect(spec.UnsignedDecimal.safeParse(spec.OPEN_ORDER_NOTIONAL_MAX_USD_TIER1).success).toBe(true);
  });

  test("network edge (8.4)", () => {
    expect(spec.EDGE_LIMIT_REQUESTS).toBe(1000);
    expect(spec.EDGE_LIMIT_WINDOW_MS).toBe(60_000);
  });

  test("other constants (8.5)", () => {
    expect(spec.DEADLINE_HORIZON_SECONDS_MAX).toBe(600);
    expect(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM).toBe(0);
    expect(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_MIN).toBe(5000);
    expect(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_MAX).toBe(60000);
    expect(spec.DEPTH_STREAM_LEVELS).toBe(100);
    expect(spec.DEPTH_REST_LIMIT_DEFAULT).toBe(100);
    expect(spec.DEPTH_REST_LIMIT_MAX).toBe(1000);
    expect(spec.ORDER_HISTORY_LIMIT_MAX).toBe(100);
    expect(spec.ORACLE_FRESHNESS_MS).toBe(60_000);
    expect(spec.SHUTDOWN_DRAIN_MS).toBe(10_000);
    expect(spec.DECIMAL_FRACTION_DIGITS_MAX).toBe(18);
  });

  test("relations hold", () => {
    expect(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM).toBeLessThan(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_MIN);
    expect(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_MIN).toBeLessThan(spec.CANCEL_ALL_AFTER_TIMEOUT_MS_MAX);
    expect(spec.DEPTH_REST_LIMIT_DEFAULT).toBeLessThanOrEqual(spec.DEPTH_REST_LIMIT_MAX);
    expect(spec.DEPTH_STREAM_LEVELS).toBeLessThanOrEqual(spec.DEPTH_REST_LIMIT_MAX);
  });

  test("versioning (spec 9) and close codes (spec 6.3)", () => {
    expect(spec.CONTRACT_VERSION).toBe("3.5.2");
    expect(spec.API_PATH_PREFIX).toBe("/v2");
    expect(spec.CHANNEL_PREFIX).toBe(`${spec.API_PATH_PREFIX}/`);
    expect(spec.STREAM_CLOSE_CODES).toStrictEqual([1013, 1012, 1001]);
    expect(spec.CLOSE_CODE_SLOW_CONSUMER).toBe(1013);
    expect(spec.CLOSE_CODE_RESYNC).toBe(1012);
    expect(spec.CLOSE_CODE_GOING_AWAY).toBe(1001);
  });
});
