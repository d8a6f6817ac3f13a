/**
 * One nonce counter per signer is shared by the five operations, and the
 * orders sign theirs as uint256 while the cancels and the switch sign
 * uint64 (reference/signing.md). So an order accepted with a nonce above
 * 2^64 - 1 leaves its signer no nonce a cancel can carry: every later
 * cancelOrder, cancelAll and cancelAllAfter of that signer is refused. The
 * gateway keeps this sharp edge as the service has it (a simulator that
 * hid it would pass a client the service then locks out); the SDK's nonce
 * manager never goes above 2^64 - 1. README "Programs talk to it" says so.
 */
import { describe, expect, it } from "vitest";
import { ETH, World } from "./harness.ts";

const UINT64_MAX = 2n ** 64n - 1n;

describe("nonce widths: uint256 on orders, uint64 on cancels, one counter", () => {
  it("accepts an order nonce above 2^64 - 1; afterwards the signer's cancels and switch are refused, its orders still taken", () => {
    const w = new World();
    const wide = (UINT64_MAX + 1n).toString();
    const created = w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }, { nonce: wide }));
    expect(created["status"]).toBe("OPEN");
    // The largest nonce a cancel can sign is not above the highest accepted one.
    const top = UINT64_MAX.toString();
    w.expectRejected("cancelAll", w.cancelAll(w.alice, {}, { nonce: top }), "INVALID_NONCE_ERROR", [`nonce ${top}`]);
    w.expectRejected("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: created["orderId"] as string }, { nonce: top }), "INVALID_NONCE_ERROR");
    w.expectRejected("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 }, { nonce: top }), "INVALID_NONCE_ERROR");
    // The order stays; an order with a still wider nonce is taken.
    expect(w.exchange.engine.openOrders(w.alice.accountId)).toHaveLength(1);
    w.ok("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1980", timeInForce: "GTC" }, { nonce: (UINT64_MAX + 2n).toString() }));
  });
});
