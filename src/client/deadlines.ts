/**
 * Default deadlines: the signature-validity time each request is signed
 * with when the caller gives none (Unix seconds).
 *
 * A deadline is checked twice: by the gateway on receipt (past:
 * ORDER_DEADLINE_PASSED_ERROR; IOC, cancelOrder and cancelAll more than 600 s
 * ahead: ORDER_DEADLINE_TOO_HIGH_ERROR), and by the chain when a match
 * settles: a signature past its deadline at settlement block time busts the
 * match. So an order that may match later must be signed to stay valid for
 * as long as it can rest:
 *
 * | request                               | default deadline          |
 * |---------------------------------------|---------------------------|
 * | LIMIT IOC                             | now + 60 s                |
 * | cancelOrder, cancelAll, cancelAllAfter| now + 60 s                |
 * | LIMIT GTC, trigger IOC or GTC         | now + 365 days            |
 * | GTT (LIMIT or trigger)                | expiresAfter - 1 s        |
 *
 * A trigger (STOP_LOSS, TAKE_PROFIT) rests armed until it fires, and its
 * fired child settles under the trigger's signature, so a trigger is signed
 * like a resting order whatever the time in force of its child; the
 * reference SDK signs conditional orders with a far deadline too. (The
 * 600-second horizon is read as applying to an IOC LIMIT, which executes on
 * receipt.) A GTT's deadline sits one second before its expiry: the spec
 * requires expiresAfter > deadline, and the order never matches after it
 * expires. A modify re-signs the resting order, so it takes the defaults of
 * the order it restates.
 *
 * "now" is the client's clock, floored to seconds.
 */
import { MICROS_PER_SECOND, type Micros } from "../core/time.ts";
import { DEADLINE_HORIZON_SECONDS_MAX } from "../spec/limits.ts";
import type { OrderType, TimeInForce } from "../spec/enums.ts";

/** How far ahead immediate requests (IOC LIMIT, cancels, cancelAllAfter) are signed. */
export const SHORT_DEADLINE_SECONDS = 60;
/** How far ahead resting orders without an expiry (GTC, triggers without GTT) are signed. */
export const RESTING_DEADLINE_SECONDS = 365 * 24 * 60 * 60;
/** How long before its expiresAfter a GTT order's signature ends. */
export const GTT_DEADLINE_LEAD_SECONDS = 1;

if (!(SHORT_DEADLINE_SECONDS > 0 && SHORT_DEADLINE_SECONDS <= DEADLINE_HORIZON_SECONDS_MAX)) {
  throw new Error(`SHORT_DEADLINE_SECONDS ${SHORT_DEADLINE_SECONDS} must lie in (0, ${DEADLINE_HORIZON_SECONDS_MAX}]`);
}
if (!(RESTING_DEADLINE_SECONDS > DEADLINE_HORIZON_SECONDS_MAX)) {
  throw new Error("RESTING_DEADLINE_SECONDS must exceed the IOC horizon: resting orders outlive it");
}

export function nowSeconds(nowMicros: Micros): number {
  return Math.floor(nowMicros / MICROS_PER_SECOND);
}

/** The deadline of a request that acts on receipt: IOC LIMIT, cancelOrder, cancelAll, cancelAllAfter. */
export function shortDeadline(nowMicros: Micros): number {
  return nowSeconds(nowMicros) + SHORT_DEADLINE_SECONDS;
}

/**
 * The default deadline of an order (create or modify). `expiresAfter` is
 * the GTT expiry, required exactly when timeInForce is GTT.
 */
export function defaultOrderDeadline(orderType: OrderType, timeInForce: TimeInForce, expiresAfter: number | undefined, nowMicros: Micros): number {
  if (timeInForce === "GTT") {
    if (expiresAfter === undefined) throw new RangeError("a GTT order needs expiresAfter to default its deadline");
    return expiresAfter - GTT_DEADLINE_LEAD_SECONDS;
  }
  if (orderType === "LIMIT" && timeInForce === "IOC") return shortDeadline(nowMicros);
  return nowSeconds(nowMicros) + RESTING_DEADLINE_SECONDS;
}
