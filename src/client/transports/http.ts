/**
 * REST order-entry transport for the client SDK: POST {baseUrl}/<operation>
 * with the JSON body. 200 -> the payload; 400 -> the RequestError; 429 (the
 * network edge, no body) -> a RATE_LIMITED_ERROR so the retry policy waits
 * for the edge window to end (spec 8.4: a fixed 60 s window, whose start the
 * client cannot know, so it waits a whole window, or what a Retry-After
 * header says);
 * anything else (500, a dropped connection) -> thrown: the outcome is
 * unknown and the client will not resend by itself (an answered status is
 * thrown as a ConnectionError with `status`, and the ServerError's code and
 * message in `details`).
 */
import { ConnectionError } from "../errors.ts";
import type { OrderEntryOperation, OrderEntryTransport, OrderEntryResponse } from "../transport.ts";

/** The edge limit's window (spec 8.4: 60 s, fixed); a 429 carries no body, so without a Retry-After header the client waits this long. */
const EDGE_RETRY_AFTER_MS = 60_000;

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
        return { ok: false, error: { error: "RATE_LIMITED_ERROR", message: "network-edge limit (HTTP 429): wait for its window to end", retryAfterMs: edgeRetryAfterMs(response.headers.get("retry-after")) } };
      }
      // The outcome is unknown (the client reports TransportFailedError with this as its cause), but what the server
      // said is kept: a 500's ServerError (spec 7.1: `error` INTERNAL_SERVER_ERROR and a `message`), as the reads keep it.
      const text = await response.text().catch(() => "");
      throw new ConnectionError(`POST ${operation} answered HTTP ${response.status}`, { status: response.status, details: serverMessage(text) });
    },
  };
}

/** The `error` and `message` of a ServerError (or any JSON error body), else the start of the body. */
function serverMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null) {
      const { error, message } = body as { error?: unknown; message?: unknown };
      if (typeof error === "string" || typeof message === "string") return [error, message].filter((part) => typeof part === "string").join(": ");
    }
  } catch {
    // Not JSON: the text itself.
  }
  return text.slice(0, 200);
}

/** A Retry-After header's wait (whole seconds, as RFC 9110 gives it in a 429), else the whole edge window. */
export function edgeRetryAfterMs(header: string | null): number {
  if (header !== null && /^\d{1,6}$/.test(header.trim())) return Math.max(1, Number(header.trim())) * 1_000;
  return EDGE_RETRY_AFTER_MS;
}
