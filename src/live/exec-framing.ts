/**
 * WebSocket order-entry framing (spec 4.3, 7.4): turns one text frame into a
 * request to run, a ping to answer, or a top-level framing error, and keeps
 * the set of request ids in flight on a connection.
 *
 * - Not JSON, not an object, or without a string `type` and `id` (ping may
 *   omit `id`): MALFORMED_JSON. The error carries `id` only when the frame had
 *   a string id.
 * - `type` not one of the five operations or ping (a client `pong` included):
 *   UNKNOWN_TYPE.
 * - `id` already in flight on this connection: DUPLICATE_REQUEST_ID; the
 *   original request is unaffected, and the id may be used again once answered.
 * - A missing or non-object `payload` is not a framing error: it is answered
 *   `{ok: false, error: INPUT_VALIDATION_ERROR}` (a missing one by exec.ts,
 *   "payload is required"; a non-object one by the operation's own
 *   validation), so the client gets a correlated answer.
 */
import { ORDER_ENTRY_OPERATIONS, type OrderEntryOperation } from "../spec/exec-envelopes.ts";
import type { WsExecFramingErrorCode } from "../spec/errors.ts";

export type ExecFrame =
  | { kind: "request"; type: OrderEntryOperation; id: string; payload: unknown }
  | { kind: "ping"; id?: string }
  | { kind: "error"; code: WsExecFramingErrorCode; message: string; id?: string };

const OPERATIONS = new Set<string>(ORDER_ENTRY_OPERATIONS);

export function parseExecFrame(text: string, inFlight: ReadonlySet<string>): ExecFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return { kind: "error", code: "MALFORMED_JSON", message: "frame is not valid JSON" };
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    return { kind: "error", code: "MALFORMED_JSON", message: "frame must be a JSON object with type and id" };
  }
  const { type, id, payload } = frame as { type?: unknown; id?: unknown; payload?: unknown };
  const idField = typeof id === "string" ? { id } : {};
  if (typeof type !== "string") {
    return { kind: "error", code: "MALFORMED_JSON", message: "frame lacks a string type", ...idField };
  }
  if (type === "ping") {
    if (id !== undefined && typeof id !== "string") {
      return { kind: "error", code: "MALFORMED_JSON", message: "ping id must be a string when present" };
    }
    return { kind: "ping", ...idField };
  }
  if (typeof id !== "string") {
    return { kind: "error", code: "MALFORMED_JSON", message: "frame lacks a string id" };
  }
  if (!OPERATIONS.has(type)) {
    return { kind: "error", code: "UNKNOWN_TYPE", message: `type "${type}" is not one of ${[...OPERATIONS].join(", ")}, ping`, id };
  }
  if (inFlight.has(id)) {
    return { kind: "error", code: "DUPLICATE_REQUEST_ID", message: `id "${id}" is already in flight on this connection`, id };
  }
  return { kind: "request", type: type as OrderEntryOperation, id, payload };
}
