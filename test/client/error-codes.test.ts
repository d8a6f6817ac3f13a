/**
 * Every RequestErrorCode of spec 7.2, answered to each of the five actions:
 * decoded (tolerantly) into a RequestFailedError carrying the code and the
 * message, and retried exactly when it says the request was refused for a
 * transient reason (retry.ts): RATE_LIMITED_ERROR (retryAfterMs kept),
 * UNAVAILABLE_MATCHING_ENGINE_ERROR, UNAVAILABLE_ACCOUNT_OWNER_ERROR.
 */
import { describe, expect, it } from "vitest";
import { RequestFailedError } from "../../src/client/errors.ts";
import type { Client } from "../../src/client/client.ts";
import { REQUEST_ERROR_CODES } from "../../src/spec/errors.ts";
import { fakeTransport, testClient } from "./fixtures.ts";

const TRANSIENT = new Set(["RATE_LIMITED_ERROR", "UNAVAILABLE_MATCHING_ENGINE_ERROR", "UNAVAILABLE_ACCOUNT_OWNER_ERROR"]);

const ACTIONS: readonly (readonly [string, (client: Client) => Promise<unknown>])[] = [
  ["createOrder", (c) => c.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC", clientOrderId: "5" })],
  ["modifyOrder", (c) => c.modifyOrder({ orderId: "9", symbol: "ETHPERP", isBuy: true, qty: "2", limitPx: "2000", timeInForce: "GTC", postOnly: false })],
  ["cancelOrder", (c) => c.cancelOrder({ symbol: "ETHPERP", orderId: "9" })],
  ["cancelAll", (c) => c.cancelAll()],
  ["cancelAllAfter", (c) => c.cancelAllAfter({ timeoutMs: 5000 })],
];

function client(error: Record<string, unknown>, retry: boolean) {
  return testClient({
    transport: fakeTransport(() => ({ ok: false, error })),
    ...(retry ? { retry: { maxAttempts: 3 }, sleep: () => Promise.resolve(), random: () => 0 } : {}),
  });
}

describe("every RequestErrorCode, on every action", () => {
  it("the spec lists 41 codes", () => {
    expect(REQUEST_ERROR_CODES).toHaveLength(41);
  });

  it.each(REQUEST_ERROR_CODES)("%s is a RequestFailedError with its code, retried only if transient", async (code) => {
    const error = { error: code, message: `refused: ${code}`, ...(code === "RATE_LIMITED_ERROR" ? { retryAfterMs: 7 } : {}), extra: 1 };
    for (const [operation, act] of ACTIONS) {
      for (const retry of [false, true]) {
        const { client: c, transport } = client(error, retry);
        const failure = await act(c).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failure, `${operation} ${code}`).toBeInstanceOf(RequestFailedError);
        const failed = failure as RequestFailedError;
        expect(failed.operation).toBe(operation);
        expect(failed.code).toBe(code);
        expect(failed.details).toBe(`refused: ${code}`);
        expect(failed.requestError).toMatchObject({ extra: 1 });
        expect(failed.retryAfterMs).toBe(code === "RATE_LIMITED_ERROR" ? 7 : undefined);
        const attempts = retry && TRANSIENT.has(code) ? 3 : 1;
        expect(failed.attempts).toBe(attempts);
        expect(transport.calls.map((call) => call.operation)).toEqual(Array(attempts).fill(operation));
        // Each attempt is signed anew: no nonce is sent twice.
        expect(new Set(transport.calls.map((call) => call.body.nonce)).size).toBe(attempts);
      }
    }
  });
});
