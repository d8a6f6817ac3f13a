/**
 * The order state that createOrder and modifyOrder both sign (the complete
 * order), read from action parameters and checked against spec 4.2.1 and
 * 4.2.3. Which fields apply:
 *
 * | field        | LIMIT IOC          | LIMIT GTC / GTT      | trigger (perp only)      |
 * |--------------|--------------------|----------------------|--------------------------|
 * | qty          | required           | required             | omitted (sentinel signed)|
 * | triggerPx    | omitted            | omitted              | required, non-zero       |
 * | reduceOnly   | sent on perp (default false); spot: omitted | omitted | omitted   |
 * | postOnly     | omitted            | sent (default false) | omitted                  |
 * | expiresAfter | omitted            | GTT only, required   | GTT only, required       |
 *
 * (modifyOrder differs: it always sends reduceOnly false and postOnly, see
 * modifyOrder.ts.) An unsupported boolean passed as false is simply
 * omitted; passed as true it is refused.
 */
import { MICROS_PER_SECOND, type Micros } from "../../core/time.ts";
import { ORDER_TYPES, TIME_IN_FORCES } from "../../spec/enums.ts";
import type { OrderType, TimeInForce } from "../../spec/enums.ts";
import type { ClientContext } from "../context.ts";
import { defaultOrderDeadline, GTT_DEADLINE_LEAD_SECONDS, nowSeconds } from "../deadlines.ts";
import { InvalidParameterError } from "../errors.ts";
import type { MarketEntry } from "../markets.ts";
import { checkAbsent, checkBoolean, checkDecimal, checkId, checkInteger, checkNotTrue, checkOneOf } from "./checks.ts";

/** Every order parameter, as JavaScript may hand it over (the typed unions are checked again at run time). */
export interface LooseOrderParameters {
  symbol?: unknown;
  isBuy?: unknown;
  orderType?: unknown;
  timeInForce?: unknown;
  limitPx?: unknown;
  qty?: unknown;
  triggerPx?: unknown;
  reduceOnly?: unknown;
  postOnly?: unknown;
  expiresAfter?: unknown;
  clientOrderId?: unknown;
  deadline?: unknown;
}

/** A checked order: the wire values to send, and the market (to sign for). */
export interface CheckedOrder {
  readonly market: MarketEntry;
  readonly isBuy: boolean;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly isTrigger: boolean;
  readonly limitPx: string;
  /** LIMIT only. */
  readonly qty: string | undefined;
  /** Triggers only. */
  readonly triggerPx: string | undefined;
  /** Present exactly for GTT. */
  readonly expiresAfter: number | undefined;
  /** Undefined when absent or zero. */
  readonly clientOrderId: string | undefined;
  /** The caller's deadline, or undefined for the default. */
  readonly deadline: number | undefined;
}

const TRIGGER_RULE = "for a STOP_LOSS or TAKE_PROFIT order";

/** Reads the fields createOrder and modifyOrder share; the operation-specific booleans are read by the caller. */
export function checkOrder(client: ClientContext, parameters: LooseOrderParameters): CheckedOrder {
  if (typeof parameters.symbol !== "string") throw new InvalidParameterError("symbol", "symbol must be a string");
  const market = client.markets.require(parameters.symbol);
  const isBuy = checkBoolean("isBuy", parameters.isBuy);
  const orderType = parameters.orderType === undefined ? "LIMIT" : checkOneOf("orderType", parameters.orderType, ORDER_TYPES);
  const timeInForce = checkOneOf("timeInForce", parameters.timeInForce, TIME_IN_FORCES);
  const isTrigger = orderType !== "LIMIT";
  const limitPx = checkDecimal("limitPx", parameters.limitPx);
  let qty: string | undefined;
  let triggerPx: string | undefined;
  if (isTrigger) {
    if (market.kind === "spot") {
      throw new InvalidParameterError("orderType", `orderType "${orderType}" is perp only: spot market "${market.symbol}" takes LIMIT orders`);
    }
    checkAbsent("qty", parameters.qty, `${TRIGGER_RULE} (it protects the whole position at fire time)`);
    triggerPx = checkDecimal("triggerPx", parameters.triggerPx, { nonZero: true });
  } else {
    qty = checkDecimal("qty", parameters.qty, { int256: true });
    checkAbsent("triggerPx", parameters.triggerPx, "for a LIMIT order");
  }
  let expiresAfter: number | undefined;
  if (timeInForce === "GTT") {
    if (parameters.expiresAfter === undefined) throw new InvalidParameterError("expiresAfter", "expiresAfter is required for a GTT order");
    expiresAfter = checkInteger("expiresAfter", parameters.expiresAfter);
  } else {
    checkAbsent("expiresAfter", parameters.expiresAfter, `for ${timeInForce} (GTT only)`);
  }
  const clientOrderId = parameters.clientOrderId === undefined ? undefined : checkId("clientOrderId", parameters.clientOrderId);
  const deadline = parameters.deadline === undefined ? undefined : checkInteger("deadline", parameters.deadline);
  if (deadline !== undefined && expiresAfter !== undefined && !(expiresAfter > deadline)) {
    throw new InvalidParameterError("expiresAfter", `expiresAfter "${expiresAfter}" must be greater than deadline "${deadline}"`);
  }
  return {
    market,
    isBuy,
    orderType,
    timeInForce,
    isTrigger,
    limitPx,
    qty,
    triggerPx,
    expiresAfter,
    clientOrderId,
    deadline,
  };
}

/** The two booleans a createOrder sends, each when it applies. */
export interface CreateFlags {
  reduceOnly?: boolean;
  postOnly?: boolean;
}

/** The rules of the two booleans on a createOrder (see the table above); returns the values to send. */
export function checkCreateFlags(order: CheckedOrder, parameters: LooseOrderParameters): CreateFlags {
  if (order.isTrigger) {
    checkNotTrue("reduceOnly", parameters.reduceOnly, TRIGGER_RULE);
    checkNotTrue("postOnly", parameters.postOnly, TRIGGER_RULE);
    return {};
  }
  if (order.timeInForce === "IOC") {
    checkNotTrue("postOnly", parameters.postOnly, "on IOC");
    if (order.market.kind === "spot") {
      checkNotTrue("reduceOnly", parameters.reduceOnly, "on spot markets");
      return {};
    }
    return { reduceOnly: parameters.reduceOnly === undefined ? false : checkBoolean("reduceOnly", parameters.reduceOnly) };
  }
  checkNotTrue("reduceOnly", parameters.reduceOnly, `on ${order.timeInForce} (perp IOC only)`);
  return { postOnly: parameters.postOnly === undefined ? false : checkBoolean("postOnly", parameters.postOnly) };
}

/** The deadline an attempt signs: the caller's, or the default of the order's kind at `nowMicros`. */
export function orderDeadline(order: CheckedOrder, nowMicros: Micros): number {
  if (order.deadline !== undefined) return order.deadline;
  const deadline = defaultOrderDeadline(order.orderType, order.timeInForce, order.expiresAfter, nowMicros);
  // To the microsecond, as the service compares (deadline x 10^6 < now is past): a deadline of this very second is past once the second has begun.
  if (order.timeInForce === "GTT" && deadline * MICROS_PER_SECOND < nowMicros) {
    throw new InvalidParameterError(
      "expiresAfter",
      `expiresAfter "${order.expiresAfter}" is too soon: its default deadline (expiresAfter - ${GTT_DEADLINE_LEAD_SECONDS} s) is before now "${nowSeconds(nowMicros)}"`,
    );
  }
  return deadline;
}
