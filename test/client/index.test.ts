/**
 * The public API of the client SDK: the runtime export list of
 * src/client/index.ts, pinned (viem's habit), so that adding, renaming or
 * dropping an export is a visible change to this test. Type-only exports do
 * not exist at run time; the typecheck covers them.
 */
import { expect, it } from "vitest";
import * as client from "../../src/client/index.ts";

it("exports exactly the public API", () => {
  expect(Object.keys(client).sort()).toMatchInlineSnapshot(`
    [
      "ClientConfigError",
      "ClientError",
      "DEFAULT_EXCHANGE_ID",
      "DEFAULT_RETRY_POLICY",
      "GTT_DEADLINE_LEAD_SECONDS",
      "InvalidParameterError",
      "InvalidResponseError",
      "MarketNotFoundError",
      "NONCE_MAX",
      "RESTING_DEADLINE_SECONDS",
      "RETRYABLE_ERROR_CODES",
      "RequestFailedError",
      "SHORT_DEADLINE_SECONDS",
      "SigningFailedError",
      "TolerantCancelAllAfterResponse",
      "TolerantCancelAllResponse",
      "TolerantCancelOrderResponse",
      "TolerantCreateOrderResponse",
      "TolerantModifyOrderResponse",
      "TolerantOrder",
      "TolerantOrderChangesSnapshot",
      "TolerantOrderHistoryList",
      "TolerantPerpExecution",
      "TolerantPerpExecutionList",
      "TolerantRequestError",
      "TolerantSpotExecution",
      "TransportFailedError",
      "backoffCapMs",
      "cancelAll",
      "cancelAllAfter",
      "cancelAllAfterPlan",
      "cancelAllPlan",
      "cancelOrder",
      "cancelOrderPlan",
      "createClient",
      "createMarketDirectory",
      "createNonceManager",
      "createOrder",
      "createOrderPlan",
      "decodeOrder",
      "decodePerpExecution",
      "decodeRequestError",
      "decodeSpotExecution",
      "decodeWith",
      "defaultOrderDeadline",
      "isKnownCancelReason",
      "isKnownExecutionType",
      "isKnownRequestErrorCode",
      "isKnownTimeInForce",
      "isRetryableError",
      "modifyOrder",
      "modifyOrderPlan",
      "privateKeySigner",
      "retryDelayMs",
      "retryPolicy",
      "shortDeadline",
      "signingMarketRef",
      "uniformOf",
      "viemAccountSigner",
    ]
  `);
});
