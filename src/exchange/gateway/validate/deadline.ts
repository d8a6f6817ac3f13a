/**
 * Deadline checks (spec 4.2.1, 4.2.4, 4.2.5, 7.3, 8.5): the signature's
 * validity against the time the request is handled. The third stage of the
 * gateway pipeline, with the nonce.
 *
 * - Past: `deadline` seconds x 10^6 < now (µs) is ORDER_DEADLINE_PASSED_ERROR.
 *   A deadline equal to now, to the microsecond, is not past: only a
 *   deadline strictly before now is. The deadline names the first
 *   microsecond of its second, so a request handled 1 µs into that second is
 *   already past.
 * - Too high: more than 600 s ahead, deadline x 10^6 > now + 600 x 10^6, is
 *   ORDER_DEADLINE_TOO_HIGH_ERROR for a createOrder with timeInForce IOC,
 *   cancelOrder and cancelAll. Exactly 600 s ahead passes.
 * - Uncapped: GTC and GTT createOrder, modifyOrder (whatever the order),
 *   cancelAllAfter, and every trigger (STOP_LOSS, TAKE_PROFIT) whatever its
 *   child's timeInForce. A trigger rests armed until it fires, like a GTC
 *   order, and its signature must still be valid when its child is settled;
 *   the spec's "For IOC" is about an order that executes on receipt.
 *
 * The comparison is exact (bigint): no float rounding at the boundaries.
 */
import { assertMicros, MICROS_PER_SECOND, type Micros } from "../../../core/time.ts";
import type { OrderType, TimeInForce } from "../../../spec/enums.ts";
import { DEADLINE_HORIZON_SECONDS_MAX } from "../../../spec/limits.ts";
import { fail, quote } from "./errors.ts";
import type { Check } from "./types.ts";

/** What the deadline rules read of a request: a Validated* value fits. */
export type DeadlineSubject =
  | { readonly operation: "createOrder"; readonly orderType: OrderType; readonly timeInForce: TimeInForce }
  | { readonly operation: "modifyOrder" | "cancelOrder" | "cancelAll" | "cancelAllAfter" };

/** True when the request's deadline may be at most 600 s ahead (IOC createOrder, cancelOrder, cancelAll). */
export function isDeadlineCapped(op: DeadlineSubject): boolean {
  switch (op.operation) {
    case "createOrder":
      return op.orderType === "LIMIT" && op.timeInForce === "IOC";
    case "cancelOrder":
    case "cancelAll":
      return true;
    case "modifyOrder":
    case "cancelAllAfter":
      return false;
  }
}

const HORIZON_MICROS = DEADLINE_HORIZON_SECONDS_MAX * MICROS_PER_SECOND;
/** Bounds within which deadline x 10^6 and now + the horizon are safe integers. */
const EXACT_DEADLINE_SECONDS_MAX = Math.floor(Number.MAX_SAFE_INTEGER / MICROS_PER_SECOND);
const EXACT_NOW_MICROS_MAX = Number.MAX_SAFE_INTEGER - HORIZON_MICROS;

/** Checks `deadlineSeconds` (Unix s) against `nowMicros` (virtual time); the first failure wins: past, then too high. */
export function checkDeadline(op: DeadlineSubject, deadlineSeconds: number, nowMicros: Micros): Check {
  assertMicros(nowMicros, "nowMicros");
  if (!Number.isSafeInteger(deadlineSeconds) || deadlineSeconds < 0) {
    throw new RangeError(`deadlineSeconds must be a validated non-negative safe integer, got ${deadlineSeconds}`);
  }
  if (deadlineSeconds <= EXACT_DEADLINE_SECONDS_MAX && nowMicros <= EXACT_NOW_MICROS_MAX) {
    // Every figure here is a safe integer, so numbers compare exactly: the
    // verdict of the bigint code below, without its allocations. A failure
    // goes on to that code, which words the message.
    const deadlineMicrosExact = deadlineSeconds * MICROS_PER_SECOND;
    const tooHigh = isDeadlineCapped(op) && deadlineMicrosExact > nowMicros + HORIZON_MICROS;
    if (deadlineMicrosExact >= nowMicros && !tooHigh) return { ok: true };
  }
  const deadlineMicros = BigInt(deadlineSeconds) * BigInt(MICROS_PER_SECOND);
  const now = BigInt(nowMicros);
  if (deadlineMicros < now) {
    return fail("ORDER_DEADLINE_PASSED_ERROR", `deadline ${quote(deadlineSeconds)} is in the past (now is ${quote(secondsText(now))})`);
  }
  const horizonMicros = BigInt(DEADLINE_HORIZON_SECONDS_MAX) * BigInt(MICROS_PER_SECOND);
  if (isDeadlineCapped(op) && deadlineMicros > now + horizonMicros) {
    return fail(
      "ORDER_DEADLINE_TOO_HIGH_ERROR",
      `deadline ${quote(deadlineSeconds)} is more than ${DEADLINE_HORIZON_SECONDS_MAX} seconds ahead of now ` +
        `${quote(secondsText(now))} on ${subjectLabel(op)}`,
    );
  }
  return { ok: true };
}

/** Unix seconds with the microseconds as a fraction, trailing zeros dropped: "1745000000.5". */
function secondsText(micros: bigint): string {
  const perSecond = BigInt(MICROS_PER_SECOND);
  const whole = micros / perSecond;
  const fraction = (micros % perSecond).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

function subjectLabel(op: DeadlineSubject): string {
  return op.operation === "createOrder" ? "an IOC order" : `a ${op.operation} request`;
}
