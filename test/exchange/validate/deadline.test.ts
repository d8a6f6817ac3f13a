import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateCreateOrder } from "../../../src/exchange/gateway/validate/create-order.ts";
import { checkDeadline, type DeadlineSubject, isDeadlineCapped } from "../../../src/exchange/gateway/validate/deadline.ts";
import { accepted, context, createIoc, expectRejected, NOW_MICROS, NOW_S } from "./fixtures.ts";

const IOC: DeadlineSubject = { operation: "createOrder", orderType: "LIMIT", timeInForce: "IOC" };
const GTC: DeadlineSubject = { operation: "createOrder", orderType: "LIMIT", timeInForce: "GTC" };
const GTT: DeadlineSubject = { operation: "createOrder", orderType: "LIMIT", timeInForce: "GTT" };
const STOP_IOC: DeadlineSubject = { operation: "createOrder", orderType: "STOP_LOSS", timeInForce: "IOC" };
const TAKE_PROFIT_IOC: DeadlineSubject = { operation: "createOrder", orderType: "TAKE_PROFIT", timeInForce: "IOC" };
const MODIFY: DeadlineSubject = { operation: "modifyOrder" };
const CANCEL: DeadlineSubject = { operation: "cancelOrder" };
const CANCEL_ALL: DeadlineSubject = { operation: "cancelAll" };
const CANCEL_ALL_AFTER: DeadlineSubject = { operation: "cancelAllAfter" };

const ALL: [string, DeadlineSubject][] = [
  ["IOC createOrder", IOC],
  ["GTC createOrder", GTC],
  ["GTT createOrder", GTT],
  ["IOC STOP_LOSS", STOP_IOC],
  ["modifyOrder", MODIFY],
  ["cancelOrder", CANCEL],
  ["cancelAll", CANCEL_ALL],
  ["cancelAllAfter", CANCEL_ALL_AFTER],
];
const CAPPED: [string, DeadlineSubject][] = [
  ["IOC createOrder", IOC],
  ["cancelOrder", CANCEL],
  ["cancelAll", CANCEL_ALL],
];
const UNCAPPED: [string, DeadlineSubject][] = [
  ["GTC createOrder", GTC],
  ["GTT createOrder", GTT],
  ["IOC STOP_LOSS", STOP_IOC],
  ["IOC TAKE_PROFIT", TAKE_PROFIT_IOC],
  ["modifyOrder", MODIFY],
  ["cancelAllAfter", CANCEL_ALL_AFTER],
];

describe("checkDeadline: past", () => {
  it.each(ALL)("%s: a deadline exactly at now is not past", (_name, op) => {
    expect(checkDeadline(op, NOW_S, NOW_MICROS)).toEqual({ ok: true });
  });

  it.each(ALL)("%s: one microsecond after the deadline is ORDER_DEADLINE_PASSED_ERROR", (_name, op) => {
    const message = expectRejected(checkDeadline(op, NOW_S, NOW_MICROS + 1), "ORDER_DEADLINE_PASSED_ERROR", "deadline");
    expect(message).toBe(`deadline "${NOW_S}" is in the past (now is "${NOW_S}.000001")`);
  });

  it.each(ALL)("%s: a deadline one second ago is ORDER_DEADLINE_PASSED_ERROR", (_name, op) => {
    expectRejected(checkDeadline(op, NOW_S - 1, NOW_MICROS), "ORDER_DEADLINE_PASSED_ERROR", "deadline");
  });

  it("deadline 0 is past", () => {
    expectRejected(checkDeadline(GTC, 0, NOW_MICROS), "ORDER_DEADLINE_PASSED_ERROR", "deadline");
  });
});

describe("checkDeadline: the 600 s horizon", () => {
  it.each(CAPPED)("%s: exactly 600 s ahead passes", (_name, op) => {
    expect(checkDeadline(op, NOW_S + 600, NOW_MICROS)).toEqual({ ok: true });
  });

  it.each(CAPPED)("%s: 600 s + 1 s ahead is ORDER_DEADLINE_TOO_HIGH_ERROR", (_name, op) => {
    const message = expectRejected(checkDeadline(op, NOW_S + 601, NOW_MICROS), "ORDER_DEADLINE_TOO_HIGH_ERROR", "deadline");
    expect(message).toContain("600 seconds");
  });

  it.each(CAPPED)("%s: 600 s + 1 µs ahead is ORDER_DEADLINE_TOO_HIGH_ERROR (exact arithmetic)", (_name, op) => {
    expectRejected(checkDeadline(op, NOW_S + 600, NOW_MICROS - 1), "ORDER_DEADLINE_TOO_HIGH_ERROR", "deadline");
  });

  it.each(CAPPED)("%s: 600 s - 1 µs ahead passes", (_name, op) => {
    expect(checkDeadline(op, NOW_S + 600, NOW_MICROS + 1)).toEqual({ ok: true });
  });

  it.each(UNCAPPED)("%s: is not capped (600 s + 1 s and ten years ahead pass)", (_name, op) => {
    expect(checkDeadline(op, NOW_S + 601, NOW_MICROS)).toEqual({ ok: true });
    expect(checkDeadline(op, NOW_S + 10 * 365 * 86_400, NOW_MICROS)).toEqual({ ok: true });
    expect(checkDeadline(op, Number.MAX_SAFE_INTEGER, NOW_MICROS)).toEqual({ ok: true });
  });

  it("names the request in the message", () => {
    const ioc = expectRejected(checkDeadline(IOC, NOW_S + 601, NOW_MICROS), "ORDER_DEADLINE_TOO_HIGH_ERROR", "deadline");
    expect(ioc).toBe(`deadline "${NOW_S + 601}" is more than 600 seconds ahead of now "${NOW_S}" on an IOC order`);
    const cancel = expectRejected(checkDeadline(CANCEL_ALL, NOW_S + 601, NOW_MICROS), "ORDER_DEADLINE_TOO_HIGH_ERROR", "deadline");
    expect(cancel).toContain("on a cancelAll request");
  });

  it("isDeadlineCapped lists IOC LIMIT creates, cancelOrder and cancelAll", () => {
    expect(CAPPED.every(([, op]) => isDeadlineCapped(op))).toBe(true);
    expect(UNCAPPED.some(([, op]) => isDeadlineCapped(op))).toBe(false);
  });
});

describe("checkDeadline takes a validated request", () => {
  it("reads operation, orderType and timeInForce from a ValidatedCreateOrder", () => {
    const value = accepted(validateCreateOrder({ ...createIoc, deadline: NOW_S + 601 }, context));
    expectRejected(checkDeadline(value, value.deadline, NOW_MICROS), "ORDER_DEADLINE_TOO_HIGH_ERROR", "deadline");
  });

  it("throws on arguments that no validated request can carry (a caller bug)", () => {
    expect(() => checkDeadline(IOC, 1.5, NOW_MICROS)).toThrow(RangeError);
    expect(() => checkDeadline(IOC, NOW_S, 0.5)).toThrow(RangeError);
  });
});

describe("checkDeadline: the safe-integer fast path agrees with exact arithmetic", () => {
  // The verdict, computed here in bigint: past, then (capped only) more than 600 s ahead.
  function exactVerdict(op: DeadlineSubject, deadlineSeconds: number, nowMicros: number): "ok" | "past" | "high" {
    const deadline = BigInt(deadlineSeconds) * 1_000_000n;
    const now = BigInt(nowMicros);
    if (deadline < now) return "past";
    if (isDeadlineCapped(op) && deadline > now + 600_000_000n) return "high";
    return "ok";
  }
  const verdictOf = (check: ReturnType<typeof checkDeadline>) =>
    check.ok ? "ok" : check.error.error === "ORDER_DEADLINE_PASSED_ERROR" ? "past" : "high";

  it("near now, near the horizon, and near the largest safe integers", () => {
    // Safe-integer bounds of the fast path: deadline x 10^6 and now + 600 s must stay exact.
    const maxDeadline = Math.floor(Number.MAX_SAFE_INTEGER / 1_000_000);
    const maxNow = Number.MAX_SAFE_INTEGER - 600_000_000;
    const nowMicros = fc.oneof(
      fc.constantFrom(NOW_MICROS, maxNow - 1, maxNow, maxNow + 1, Number.MAX_SAFE_INTEGER),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    );
    const offsetSeconds = fc.oneof(fc.constantFrom(-1, 0, 1, 599, 600, 601), fc.integer({ min: -10_000, max: 10_000 }));
    // now + 600 s is past 2^53 here, so in doubles it rounds: a deadline 1 us beyond the horizon must still be too high.
    const roundingNow = 9_007_199_255_000_000 - 600_000_001;
    expect(verdictOf(checkDeadline(CANCEL, 9_007_199_255, roundingNow))).toBe("high");
    expect(exactVerdict(CANCEL, 9_007_199_255, roundingNow)).toBe("high");
    fc.assert(
      fc.property(fc.constantFrom(...ALL), nowMicros, offsetSeconds, fc.boolean(), ([, op], now, offset, nearMaxDeadline) => {
        const base = nearMaxDeadline ? maxDeadline : Math.floor(now / 1_000_000);
        const deadline = base + offset;
        if (deadline < 0 || !Number.isSafeInteger(deadline)) return;
        expect(verdictOf(checkDeadline(op, deadline, now))).toBe(exactVerdict(op, deadline, now));
      }),
      { seed: 42, numRuns: 3_000 },
    );
  });
});
