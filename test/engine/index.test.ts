import { describe, expect, it } from "vitest";
import * as engine from "../../src/engine/index.ts";

describe("the engine's public exports", () => {
  it("are exactly these (a change here is an API change)", () => {
    expect(Object.keys(engine).sort()).toEqual([
      "CANCEL_ALL_AFTER_MAX_MS",
      "CANCEL_ALL_AFTER_MIN_MS",
      "CANCEL_REASON_MESSAGES",
      "DEFAULT_ENGINE_CONFIG",
      "DEPTH_LIMIT_DEFAULT",
      "DEPTH_LIMIT_MAX",
      "DEPTH_STREAM_LEVELS",
      "DepthStream",
      "Engine",
      "FillRecord",
      "HISTORY_LIMIT_PER_ACCOUNT_DEFAULT",
      "ManualScheduler",
      "MarketUnits",
      "NULL_SINK",
      "OrderHistory",
      "OrderUpdate",
      "cancelAllAfterResponse",
      "cancelResponse",
      "depthMessage",
      "depthView",
      "openOrderRow",
      "orderEventRow",
      "orderHistoryRow",
      "orderResponse",
      "reject",
    ]);
  });
});
