/**
 * Per-wallet rate limits (spec 8.1) at their exact boundaries on the virtual
 * clock, through Exchange.handle in signed mode, for a tier-1 (default)
 * wallet: createOrder, cancelOrder and modifyOrder share one bucket of 30
 * per sliding 60 s; cancelAll has its own bucket of 10; cancelAllAfter never
 * counts; rejected requests never count, RATE_LIMITED_ERROR included. A
 * request at t occupies the window (t - 60 s, t]: at exactly t + 60 s it
 * has left. retryAfterMs is the time until the oldest request leaves,
 * rounded up to whole milliseconds.
 */
import { describe, expect, it } from "vitest";
import { MICROS_PER_MILLI } from "../../../src/core/time.ts";
import { ETH, World, type Party } from "./harness.ts";

const WINDOW_MICROS = 60_000 * MICROS_PER_MILLI;

function gtc(w: World, party: Party, limitPx = "1900") {
  return w.create(party, { symbol: ETH, isBuy: true, qty: "0.001", limitPx, timeInForce: "GTC" });
}

/** The order bucket's requests, 1 s apart: creates, cancels and modifies mixed (30 in all). Returns their times. */
function fillOrderBucket(w: World, party: Party): number[] {
  const times: number[] = [];
  const live: string[] = [];
  for (let i = 0; i < 30; i++) {
    times.push(w.now);
    if (i % 6 === 4) {
      w.ok("cancelOrder", w.cancel(party, { symbol: ETH, orderId: live.pop()! }));
    } else if (i % 6 === 5) {
      const orderId = live[live.length - 1]!;
      w.ok("modifyOrder", w.modify(party, { orderId, symbol: ETH, isBuy: true, qty: "0.002", limitPx: "1900", postOnly: false, timeInForce: "GTC" }));
    } else {
      live.push(w.ok("createOrder", gtc(w, party))["orderId"] as string);
    }
    // A rejection between accepted requests: it must not take a slot (after the 30th it would be RATE_LIMITED_ERROR).
    if (i < 29) w.expectRejected("createOrder", gtc(w, party, "1900.001"), "PRICE_QTY_BOUNDS_ERROR");
    w.advance(1_000);
  }
  return times;
}

describe("Gateway rate limits on the virtual clock (tier 1)", () => {
  it("passes 30 order requests in 60 s, refuses the 31st with the exact retryAfterMs, and passes at exactly oldest + 60 s", () => {
    const w = new World();
    expect(w.exchange.risk.walletFlags(w.alice.address).rateTier).toBe(1);
    w.advance(0, 250); // a sub-millisecond start, so that rounding up shows
    const times = fillOrderBucket(w, w.alice);
    expect(w.usedSlots(w.alice.address, "order")).toBe(30);

    // 31st, half a millisecond into a millisecond: 29,999.5 ms until the oldest leaves -> 30,000.
    w.at(times[0]! + 30_000_500);
    let error = w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR", [w.alice.address, "30"]);
    expect(error.retryAfterMs).toBe(30_000);

    // The refusal was not counted: still refused 1 µs before the oldest leaves, and then only for 1 ms.
    w.refreshPrices();
    w.at(times[0]! + WINDOW_MICROS - 1);
    error = w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
    expect(error.retryAfterMs).toBe(1);

    // At exactly oldest + 60 s the oldest has left: one more passes, and the next waits for the second oldest.
    w.at(times[0]! + WINDOW_MICROS);
    w.ok("createOrder", gtc(w, w.alice));
    error = w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
    expect(error.retryAfterMs).toBe((times[1]! + WINDOW_MICROS - w.now) / MICROS_PER_MILLI);
    expect(error.retryAfterMs).toBe(1_000);
    w.at(times[1]! + WINDOW_MICROS);
    w.ok("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: w.exchange.engine.openOrders(2)[0]!.orderId }));
  });

  it("keeps wallets apart: another tier-1 wallet has its own 30", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
    for (let i = 0; i < 30; i++) w.ok("createOrder", gtc(w, w.bob));
    w.expectRejected("createOrder", gtc(w, w.bob), "RATE_LIMITED_ERROR");
  });

  it("gives cancelAll its own bucket of 10, independent of the order bucket", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    const start = w.now;
    for (let i = 0; i < 10; i++) {
      expect(w.ok("cancelAll", w.cancelAll(w.alice, i % 2 === 0 ? {} : { symbol: ETH }))).toHaveProperty("cancelledCount");
      w.expectRejected("cancelAll", { ...w.cancelAll(w.alice), symbol: "NOPE" }, "SYMBOL_NOT_FOUND_ERROR");
      w.advance(100);
    }
    expect(w.usedSlots(w.alice.address, "cancelAll")).toBe(10);
    const error = w.expectRejected("cancelAll", w.cancelAll(w.alice), "RATE_LIMITED_ERROR", ["cancelAll", "10"]);
    expect(error.retryAfterMs).toBe((start + WINDOW_MICROS - w.now) / MICROS_PER_MILLI);
    // Later, the order requests have left their window and the cancelAlls have not: each bucket on its own.
    w.at(start + WINDOW_MICROS - 1);
    w.refreshPrices();
    w.ok("createOrder", gtc(w, w.alice));
    w.expectRejected("cancelAll", w.cancelAll(w.alice), "RATE_LIMITED_ERROR");
    w.at(start + WINDOW_MICROS);
    w.ok("cancelAll", w.cancelAll(w.alice));
  });

  it("never counts cancelAllAfter, even with both buckets full", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    for (let i = 0; i < 10; i++) w.ok("cancelAll", w.cancelAll(w.alice));
    for (let i = 0; i < 100; i++) {
      const payload = w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: i % 2 === 0 ? 5_000 : 0 }));
      expect(payload["accountId"]).toBe(2);
    }
    expect(w.usedSlots(w.alice.address, "order")).toBe(30);
    expect(w.usedSlots(w.alice.address, "cancelAll")).toBe(10);
    w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
    w.expectRejected("cancelAll", w.cancelAll(w.alice), "RATE_LIMITED_ERROR");
  });

  it("never counts rejections: 100 refused requests of every stage leave the whole budget", () => {
    const w = new World();
    const used = w.alice.nextNonce();
    w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 }, { nonce: used }));
    const rejections: [() => Record<string, unknown>, string][] = [
      [() => gtc(w, w.alice, "1900.001"), "PRICE_QTY_BOUNDS_ERROR"],
      [() => w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "GTC" }, { signWith: w.bob }), "UNAUTHORIZED_SIGNATURE_ERROR"],
      [() => w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "GTC" }, { nonce: used }), "INVALID_NONCE_ERROR"],
      [() => w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", timeInForce: "IOC", deadline: w.nowSeconds() - 1 }), "ORDER_DEADLINE_PASSED_ERROR"],
      [() => w.create(w.alice, { symbol: ETH, isBuy: true, qty: "100", limitPx: "1900", timeInForce: "GTC" }), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR"],
      [() => w.cancel(w.alice, { symbol: ETH, orderId: "4242" }), "CANCEL_ORDER_OTHER_ERROR"],
      [() => w.modify(w.alice, { orderId: "4242", symbol: ETH, isBuy: true, qty: "0.001", limitPx: "1900", postOnly: false, timeInForce: "GTC" }), "ORDER_NOT_FOUND_ERROR"],
    ];
    for (let i = 0; i < 100; i++) {
      const [body, code] = rejections[i % rejections.length]!;
      const op = code === "CANCEL_ORDER_OTHER_ERROR" ? "cancelOrder" : code === "ORDER_NOT_FOUND_ERROR" ? "modifyOrder" : "createOrder";
      w.expectRejected(op, body(), code as never);
    }
    expect(w.usedSlots(w.alice.address, "order")).toBe(0);
    for (let i = 0; i < 30; i++) w.ok("createOrder", gtc(w, w.alice));
    w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
  });

  it("follows the signing wallet's tier: tier 2 takes more than 30", () => {
    const w = new World();
    w.adminOk({ action: "wallet", wallet: w.alice.address, rateTier: 2 });
    for (let i = 0; i < 31; i++) w.ok("createOrder", gtc(w, w.alice));
    w.adminOk({ action: "wallet", wallet: w.alice.address, rateTier: 1 });
    w.expectRejected("createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR");
  });
});
