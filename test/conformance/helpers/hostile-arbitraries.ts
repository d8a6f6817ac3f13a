/**
 * Tools of test/conformance/hostile-clients.test.ts: arbitraries of junk a
 * hostile client sends (JSON texts with edge-case numbers and strings,
 * junk scalars, junk channel names and path segments), the spec's answer
 * shapes as checks, and a digest of everything a live Exchange holds, so
 * that "a rejected request changes nothing" can be compared before and
 * after each request.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { exchangeState } from "../../../src/record/exchange-state.ts";
import type { RunningServer } from "../../../src/live/serve.ts";
import { REQUEST_ERROR_CODES, WS_EXEC_FRAMING_ERROR_CODES } from "../../../src/spec/errors.ts";
import { CancelAllAfterRequest, CancelAllRequest, CancelOrderRequest, CreateOrderRequest, ModifyOrderRequest } from "../../../src/spec/requests.ts";
import { exchangeDigest, type Party } from "../../exchange/gateway/harness.ts";

// -- order-entry operations and their fields -----------------------------------------------------

export const OPS = ["createOrder", "modifyOrder", "cancelOrder", "cancelAll", "cancelAllAfter"] as const;
export type Op = (typeof OPS)[number];

/** The request fields of each operation (spec 4.2), read from the request schemas. */
export const OP_FIELDS: Readonly<Record<Op, readonly string[]>> = {
  createOrder: Object.keys(CreateOrderRequest.shape),
  modifyOrder: Object.keys(ModifyOrderRequest.shape),
  cancelOrder: Object.keys(CancelOrderRequest.shape),
  cancelAll: Object.keys(CancelAllRequest.shape),
  cancelAllAfter: Object.keys(CancelAllAfterRequest.shape),
};

/** Whether `message` names a field of `op`'s request (or the request body as a whole). */
export function namesAField(op: Op, message: string): boolean {
  if (/request body|payload/.test(message)) return true;
  return OP_FIELDS[op].some((field) => new RegExp(`\\b${field}\\b`).test(message));
}

// -- JSON texts ---------------------------------------------------------------------------------------

/** Numeric literals that JSON allows and that JavaScript reads badly or lossily. */
export const EDGE_NUMBER_TEXTS = [
  "-0",
  "0",
  "-1",
  "1e308",
  "-1e308",
  "1e400",
  "-1e400",
  "1e-400",
  "0.1e-7",
  "1E+2",
  "5e-324",
  "9007199254740993",
  "18446744073709551616",
  "123456789012345678901234567890123456789012",
  "0.0000000000000000001",
  "1.5",
  "2.000000000000000000000001",
] as const;

/** Strings that are each a well-known trap: empty, padded, look-alike digits, hex, control characters, astral and lone surrogates. */
export const EDGE_STRINGS = [
  "",
  " ",
  "0",
  "-0",
  " 1",
  "1 ",
  "1,5",
  "0x",
  "0xdeadbeef",
  "0x" + "g".repeat(40),
  "NaN",
  "Infinity",
  "null",
  "true",
  "\u0000",
  "\u0661\u0662", // Arabic-Indic digits
  "\uff11\uff10", // fullwidth digits
  "1e999999999",
  "0.".padEnd(60, "1"),
  "9".repeat(40),
  "\ud83d\udca5",
  "\ud800",
  "__proto__",
  "constructor",
  "ETHRUSDPERP\u0000",
  "ＥＴＨＲＵＳＤＰＥＲＰ",
] as const;

const edgeNumberText = fc.constantFrom(...EDGE_NUMBER_TEXTS);
const anyString = fc.oneof(
  fc.constantFrom(...EDGE_STRINGS),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ maxLength: 3000 }).map((s) => s.repeat(4)),
);

/** A JSON text, written by hand: edge-case numeric literals, duplicate keys and odd strings that JSON.stringify never produces. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string; array: string; scalar: string }>((tie) => ({
  scalar: fc.oneof(
    edgeNumberText,
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    fc.integer().map(String),
    anyString.map((s) => JSON.stringify(s)),
    fc.constantFrom("true", "false", "null"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
  object: fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...OP_FIELDS.createOrder, ...OP_FIELDS.modifyOrder, "__proto__", "type", "id", "payload"), anyString), tie("value")), { maxLength: 6 })
    .map((members) => `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`),
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("scalar"), tie("array"), tie("object")),
})).value;

/** Any JSON value as a JS value (fast-check's own generator), unicode strings included. */
export const jsonValue = fc.jsonValue({ maxDepth: 4, stringUnit: "grapheme" });

/** A JSON text nested `depth` levels deep (arrays or objects), with a payload at the bottom. */
export function deepText(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

// -- junk scalars for mutated fields --------------------------------------------------------------------

/** A junk value for a field: the wrong type, out of range, malformed, or huge. */
export const junkScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, [1], { value: 1 }, -1, -0.5, 0, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1e-7),
  fc.constantFrom<unknown>(...EDGE_STRINGS),
  fc.constantFrom<unknown>("-1", "1.5", "-0.01", "0.0000000000000000001", "1e-19", "1e80", "1e400", "1" + "0".repeat(40), "0".repeat(40), "18446744073709551616"),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 2000 }).map((s) => s.repeat(10)),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

// -- answers -------------------------------------------------------------------------------------------

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
}

/** The RequestError shape of spec 7.1: a code of 7.2, a non-empty message in the project's style, retryAfterMs only with RATE_LIMITED_ERROR. */
/** The longest error message a request may get: values are quoted cut at 100 characters, so no message grows with the input. */
export const REQUEST_ERROR_MESSAGE_CHARS_MAX = 1_000;

export function expectRequestError(error: unknown, what: string): { error: string; message: string } {
  expect(error, what).toBeTypeOf("object");
  const value = error as Record<string, unknown>;
  expect(REQUEST_ERROR_CODES as readonly unknown[], `${what}: error code ${JSON.stringify(value["error"])}`).toContain(value["error"]);
  expect(value["message"], what).toBeTypeOf("string");
  const message = value["message"] as string;
  expect(message.length, `${what}: empty message`).toBeGreaterThan(0);
  expect(message, `${what}: a message ends without a period`).not.toMatch(/\.$/);
  expect(message.length, `${what}: message length`).toBeLessThanOrEqual(REQUEST_ERROR_MESSAGE_CHARS_MAX);
  if (value["error"] === "RATE_LIMITED_ERROR") expect(value["retryAfterMs"], what).toBeGreaterThanOrEqual(1);
  else expect(value, what).not.toHaveProperty("retryAfterMs");
  return { error: value["error"] as string, message };
}

/** An /exec top-level framing error envelope (spec 4.3, 7.4). */
export function expectFramingError(frame: Record<string, unknown>, code: string, id: string | undefined, what: string): void {
  expect(WS_EXEC_FRAMING_ERROR_CODES as readonly string[], what).toContain(code);
  const error = frame["error"] as Record<string, unknown>;
  expect(frame, what).toEqual({ type: "error", ...(id === undefined ? {} : { id }), error: { error: code, message: expect.any(String) } });
  expect((error["message"] as string).length, what).toBeGreaterThan(0);
}

/** What a WebSocket text frame's string becomes on the wire: lone surrogates are sent as U+FFFD. */
export function wireString(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

// -- the state a rejected request must leave alone ------------------------------------------------------------

/**
 * Everything a request could change in the running Exchange: its whole
 * state as `shadowbook replay --until` writes it (books, accounts, open
 * orders, positions, balances, pending settlements, prices, summaries), the
 * engine's dump (clock aside), the risk layer's resting and pending orders,
 * open interest and wallet flags, each party's nonce and rate-limit
 * windows, order history and ledger sizes, fault windows, owner ids, the
 * run fingerprint over every output so far, and the output counts (the
 * count of inputs aside: a rejected request is still an input, logged by
 * design so that a replay sees what the server saw).
 */
export function stateDigest(running: RunningServer, parties: readonly Party[]): Record<string, unknown> {
  const { exchange } = running.context;
  const { inputs: _inputs, ...counts } = running.context.counts();
  const faults = exchange.faults;
  return {
    fingerprint: running.context.fingerprint(),
    counts,
    state: exchangeState(exchange),
    ...exchangeDigest(exchange, parties, exchange.now()),
    faults: {
      windows: (["engineUnavailable", "accountOwnerUnavailable", "serviceDisabled"] as const).map((fault) => faults.end(fault) ?? null),
      oracleStaleUntil: exchange.risk.state.oracleStaleUntilMicros,
      responsesToDrop: faults.pendingDrops,
    },
    owners: exchange.owners.size,
  };
}
