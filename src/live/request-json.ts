/**
 * Request JSON as the live surfaces read it: the text of a WebSocket frame,
 * and the nesting limit of JSON request bodies, on every surface that
 * takes one (REST order entry, /exec payloads, /admin).
 *
 * No request of the specification nests more than three levels. The limit
 * is there because an accepted body is copied and logged whole (the input
 * log's JSON.stringify recurses), and a body a few thousand levels deep,
 * well within the 64 KB body limit, overflows the stack there: it must be
 * refused before it reaches the Exchange, like a body that is not JSON.
 */
import type { RawData } from "ws";

/** The deepest nesting of arrays and objects a request body may have. */
export const JSON_NESTING_MAX = 32;

/**
 * True when `value` holds arrays or objects nested more than `max` levels
 * deep (a scalar is 0 levels, `{}` and `[]` one). Walks at most `max + 1`
 * levels, so it cannot overflow the stack itself.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (max <= 0) return true;
  // No copy of the members: this runs on every order-entry request. (The order of a for-in does not matter to a yes/no answer.)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeperThan(value[i], max - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (Object.hasOwn(record, key) && nestsDeeperThan(record[key], max - 1)) return true;
  return false;
}

/** The refusal's message: `what` names the value ("request body", "payload"). */
export function nestingMessage(what: string): string {
  return `${what} nests deeper than ${JSON_NESTING_MAX} levels of arrays and objects`;
}

/**
 * A WebSocket frame's text: text and binary frames alike are read as UTF-8
 * (on /ws and /exec both; a binary frame of JSON is answered as its text
 * would be). A text frame that is not valid UTF-8 never gets here: `ws`
 * closes the connection with 1007, as RFC 6455 8.1 requires.
 */
export function frameText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}
