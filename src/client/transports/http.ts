/**
 * REST order-entry transport for the client SDK: POST {baseUrl}/<operation>
 * with the JSON body. 200 -> the payload; 400 -> the RequestError; 429 (the
 * network edge, no body) -> a RATE_LIMITED_ERROR so the retry policy waits;
 * anything else (500, a dropped connection) -> thrown: the outcome is
 * unknown and the client will not resend by itself.
 */
import type { OrderEntryOperation, OrderEntryTransport, OrderEntryResponse } from "../transport.ts";

/** The edge limit's window; a 429 carries no body, so the client waits at least this long. */
const EDGE_RETRY_AFTER_MS = 1_000;

export function httpTransport(baseUrl: string): OrderEntryTransport {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    async request(operation: OrderEntryOperation, body: unknown): Promise<OrderEntryResponse> {
      const response = await fetch(`${base}/${operation}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status === 200) return { ok: true, payload: await response.json() };
      if (response.status === 400) return { ok: false, error: await response.json() };
      if (response.status === 429) {
        return { ok: false, error: { error: "RATE_LIMITED_ERROR", message: "network-edge limit (HTTP 429)", retryAfterMs: EDGE_RETRY_AFTER_MS } };
      }
      throw new Error(`POST ${operation} answered HTTP ${response.status}`);
    },
  };
}
