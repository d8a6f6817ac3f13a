/**
 * Precedence of the gateway's checks (order-gateway.ts header, DESIGN.md
 * "Errors and bad input"): a request that fails several checks reports the
 * first one in the documented order. Each test sends a request failing two
 * checks, expects the earlier stage's code (and no effect), then removes the
 * first failure and expects the second code: so both failures are real, and
 * the test fails if the order were swapped.
 */
import { describe, expect, it } from "vitest";
import type { OrderEntryOperation } from "../../../src/exchange/inputs.ts";
import type { RequestErrorCode } from "../../../src/spec/errors.ts";
import { ETH, World, type Party } from "./harness.ts";

type Body = Record<string, unknown>;

function gtc(w: World, party: Party, extra: Record<string, unknown> = {}, options: { nonce?: string; signWith?: Party } = {}) {
  return w.create(party, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC", ...extra }, options);
}

function ioc(w: World, party: Party, extra: Record<string, unknown> = {}, options: { nonce?: string; signWith?: Party } = {}) {
  return w.create(party, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "IOC", ...extra }, options);
}

/** Both failures -> `first`; then, once `fixFirst` removed the first failure, `second` (built afresh). */
function expectPrecedence(
  w: World,
  op: OrderEntryOperation,
  both: Body,
  first: RequestErrorCode,
  then: { fixFirst?: () => void; body: () => Body; second: RequestErrorCode; op?: OrderEntryOperation },
): void {
  w.expectRejected(op, both, first);
  then.fixFirst?.();
  w.expectRejected(then.op ?? op, then.body(), then.second);
}

function fillOrderBucket(w: World, party: Party): void {
  for (let i = 0; i < 30; i++) w.rest(party, { isBuy: true, qty: "0.001", limitPx: "1900" });
}

describe("Gateway precedence: the first failing stage is reported", () => {
  it("a bad signature and a bad tick: UNAUTHORIZED_SIGNATURE_ERROR (a tampered request is always a signature failure)", () => {
    const w = new World();
    expectPrecedence(w, "createOrder", gtc(w, w.alice, { limitPx: "1990.005" }, { signWith: w.bob }), "UNAUTHORIZED_SIGNATURE_ERROR", {
      body: () => gtc(w, w.alice, { limitPx: "1990.005" }),
      second: "PRICE_QTY_BOUNDS_ERROR",
    });
  });

  it("a stale nonce and a past deadline: INVALID_NONCE_ERROR", () => {
    const w = new World();
    const used = w.alice.nextNonce();
    w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 }, { nonce: used }));
    const past = w.nowSeconds() - 1;
    expectPrecedence(w, "createOrder", ioc(w, w.alice, { deadline: past }, { nonce: used }), "INVALID_NONCE_ERROR", {
      body: () => ioc(w, w.alice, { deadline: past }),
      second: "ORDER_DEADLINE_PASSED_ERROR",
    });
  });

  it("a valid signature by an unpermissioned signer on an unknown account: NO_ACCOUNTS_FOUND_ERROR", () => {
    const w = new World();
    const onUnknown = w.signRaw(w.mallory, "createOrder", { ...gtc(w, w.mallory), accountId: 99 });
    expectPrecedence(w, "createOrder", onUnknown, "NO_ACCOUNTS_FOUND_ERROR", { body: () => gtc(w, w.mallory), second: "UNAUTHORIZED_SIGNATURE_ERROR" });
  });

  it("a replayed nonce under a bad signature: UNAUTHORIZED_SIGNATURE_ERROR (nonces cannot be probed without the key)", () => {
    const w = new World();
    const used = w.alice.nextNonce();
    w.ok("createOrder", gtc(w, w.alice, {}, { nonce: used }));
    expectPrecedence(w, "createOrder", gtc(w, w.alice, {}, { nonce: used, signWith: w.bob }), "UNAUTHORIZED_SIGNATURE_ERROR", {
      body: () => gtc(w, w.alice, {}, { nonce: used }),
      second: "INVALID_NONCE_ERROR",
    });
  });

  it("service disabled and a malformed body: SERVICE_DISABLED_ERROR", () => {
    const w = new World();
    w.fault({ fault: "serviceDisabled", durationMs: 1_000 });
    expectPrecedence(w, "createOrder", { ...gtc(w, w.alice), qty: "lots" }, "SERVICE_DISABLED_ERROR", {
      fixFirst: () => w.advance(1_000),
      body: () => ({ ...gtc(w, w.alice), qty: "lots" }),
      second: "INPUT_VALIDATION_ERROR",
    });
  });

  it("a malformed body while owner lookups fail: INPUT_VALIDATION_ERROR (structure first)", () => {
    const w = new World();
    w.fault({ fault: "accountOwnerUnavailable", durationMs: 1_000 });
    expectPrecedence(w, "createOrder", { ...gtc(w, w.alice), isBuy: "yes" }, "INPUT_VALIDATION_ERROR", {
      body: () => gtc(w, w.alice),
      second: "UNAVAILABLE_ACCOUNT_OWNER_ERROR",
    });
  });

  it("an unknown symbol and a bad signature: SYMBOL_NOT_FOUND_ERROR (structure first)", () => {
    const w = new World();
    expectPrecedence(w, "createOrder", { ...gtc(w, w.alice, {}, { signWith: w.bob }), symbol: "NOPE" }, "SYMBOL_NOT_FOUND_ERROR", {
      body: () => gtc(w, w.alice, {}, { signWith: w.bob }),
      second: "UNAUTHORIZED_SIGNATURE_ERROR",
    });
  });

  it("owner lookups failing and an unknown account: UNAVAILABLE_ACCOUNT_OWNER_ERROR", () => {
    const w = new World();
    w.fault({ fault: "accountOwnerUnavailable", durationMs: 1_000 });
    const unknown = () => w.signRaw(w.alice, "createOrder", { ...gtc(w, w.alice), accountId: 99 });
    expectPrecedence(w, "createOrder", unknown(), "UNAVAILABLE_ACCOUNT_OWNER_ERROR", { fixFirst: () => w.advance(1_000), body: unknown, second: "NO_ACCOUNTS_FOUND_ERROR" });
  });

  it("an unpermissioned signer on a suspended account: UNAUTHORIZED_SIGNATURE_ERROR", () => {
    const w = new World();
    w.adminOk({ action: "wallet", wallet: w.alice.address, suspended: true });
    expectPrecedence(w, "createOrder", gtc(w, w.mallory), "UNAUTHORIZED_SIGNATURE_ERROR", { body: () => gtc(w, w.alice), second: "ACCOUNT_SUSPENDED_ERROR" });
  });

  it("a modify by another signer of a non-whitelisted account: UNAUTHORIZED_ACCOUNT_ERROR, then NOT_WHITELISTED_ERROR", () => {
    const w = new World({ risk: (m) => ({ ...m, whitelistEnabled: true }) });
    w.adminOk({ action: "wallet", wallet: w.alice.address, whitelisted: true });
    w.adminOk({ action: "addSigner", accountId: 2, signer: w.dave.address });
    const orderId = w.rest(w.alice, { isBuy: true, qty: "0.02", limitPx: "1990" });
    w.adminOk({ action: "wallet", wallet: w.alice.address, whitelisted: false });
    const modify = (party: Party) => w.modify(party, { orderId, symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", postOnly: false, timeInForce: "GTC" });
    expectPrecedence(w, "modifyOrder", modify(w.dave), "UNAUTHORIZED_ACCOUNT_ERROR", { body: () => modify(w.alice), second: "NOT_WHITELISTED_ERROR" });
  });

  it("not whitelisted and suspended: NOT_WHITELISTED_ERROR", () => {
    const w = new World({ risk: (m) => ({ ...m, whitelistEnabled: true }) });
    w.adminOk({ action: "wallet", wallet: w.alice.address, suspended: true });
    expectPrecedence(w, "createOrder", gtc(w, w.alice), "NOT_WHITELISTED_ERROR", {
      fixFirst: () => w.adminOk({ action: "wallet", wallet: w.alice.address, whitelisted: true }),
      body: () => gtc(w, w.alice),
      second: "ACCOUNT_SUSPENDED_ERROR",
    });
  });

  it("a suspended account and a replayed nonce: ACCOUNT_SUSPENDED_ERROR (permissions before nonces)", () => {
    const w = new World();
    const used = w.alice.nextNonce();
    w.ok("cancelAllAfter", w.cancelAllAfter(w.alice, { timeoutMs: 0 }, { nonce: used }));
    w.adminOk({ action: "wallet", wallet: w.alice.address, suspended: true });
    expectPrecedence(w, "createOrder", gtc(w, w.alice, {}, { nonce: used }), "ACCOUNT_SUSPENDED_ERROR", {
      fixFirst: () => w.adminOk({ action: "wallet", wallet: w.alice.address, suspended: false }),
      body: () => gtc(w, w.alice, {}, { nonce: used }),
      second: "INVALID_NONCE_ERROR",
    });
  });

  it("a past deadline from a rate-limited wallet: ORDER_DEADLINE_PASSED_ERROR", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    expectPrecedence(w, "createOrder", ioc(w, w.alice, { deadline: w.nowSeconds() - 1 }), "ORDER_DEADLINE_PASSED_ERROR", {
      body: () => ioc(w, w.alice),
      second: "RATE_LIMITED_ERROR",
    });
  });

  it("rate-limited and off the tick grid: RATE_LIMITED_ERROR", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    expectPrecedence(w, "createOrder", gtc(w, w.alice, { limitPx: "1990.001" }), "RATE_LIMITED_ERROR", {
      fixFirst: () => w.advance(60_000),
      body: () => gtc(w, w.alice, { limitPx: "1990.001" }),
      second: "PRICE_QTY_BOUNDS_ERROR",
    });
  });

  it("rate-limited in a halted market: RATE_LIMITED_ERROR", () => {
    const w = new World();
    fillOrderBucket(w, w.alice);
    w.adminOk({ action: "market", symbol: ETH, halted: true });
    expectPrecedence(w, "createOrder", gtc(w, w.alice), "RATE_LIMITED_ERROR", {
      fixFirst: () => {
        w.advance(60_000);
        w.refreshPrices();
      },
      body: () => gtc(w, w.alice),
      second: "TRADING_HALTED_ERROR",
    });
  });

  it("off the tick grid and past the open-notional cap: PRICE_QTY_BOUNDS_ERROR (the caps need whole units)", () => {
    const w = new World();
    w.rest(w.alice, { isBuy: true, qty: "2", limitPx: "1990" });
    expectPrecedence(w, "createOrder", gtc(w, w.alice, { qty: "0.6", limitPx: "1990.005" }), "PRICE_QTY_BOUNDS_ERROR", {
      body: () => gtc(w, w.alice, { qty: "0.6" }),
      second: "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR",
    });
  });

  it("past the open-notional cap in a halted market: OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR (limits before market rules)", () => {
    const w = new World();
    w.rest(w.alice, { isBuy: true, qty: "2", limitPx: "1990" });
    w.adminOk({ action: "market", symbol: ETH, halted: true });
    expectPrecedence(w, "createOrder", gtc(w, w.alice, { qty: "0.6" }), "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR", {
      body: () => gtc(w, w.alice, { qty: "0.1" }),
      second: "TRADING_HALTED_ERROR",
    });
  });

  it("engine unavailable in a halted market: UNAVAILABLE_MATCHING_ENGINE_ERROR", () => {
    const w = new World();
    w.adminOk({ action: "market", symbol: ETH, halted: true });
    w.fault({ fault: "engineUnavailable", durationMs: 1_000 });
    expectPrecedence(w, "createOrder", gtc(w, w.alice), "UNAVAILABLE_MATCHING_ENGINE_ERROR", {
      fixFirst: () => w.advance(1_000),
      body: () => gtc(w, w.alice),
      second: "TRADING_HALTED_ERROR",
    });
  });

  it("engine unavailable and an unknown cancel target: UNAVAILABLE_MATCHING_ENGINE_ERROR", () => {
    const w = new World();
    w.fault({ fault: "engineUnavailable", durationMs: 1_000 });
    const cancel = () => w.cancel(w.alice, { symbol: ETH, orderId: "4242" });
    expectPrecedence(w, "cancelOrder", cancel(), "UNAVAILABLE_MATCHING_ENGINE_ERROR", { fixFirst: () => w.advance(1_000), body: cancel, second: "CANCEL_ORDER_OTHER_ERROR" });
  });

  it("halted with stale prices: TRADING_HALTED_ERROR", () => {
    const w = new World();
    w.advance(60_001);
    w.adminOk({ action: "market", symbol: ETH, halted: true });
    expectPrecedence(w, "createOrder", gtc(w, w.alice), "TRADING_HALTED_ERROR", {
      fixFirst: () => w.adminOk({ action: "market", symbol: ETH, halted: false }),
      body: () => gtc(w, w.alice),
      second: "NO_PRICES_FOUND_FOR_SYMBOL_ERROR",
    });
  });

  it("stale prices and an IOC beyond the band: NO_PRICES_FOUND_FOR_SYMBOL_ERROR", () => {
    const w = new World();
    w.fault({ fault: "oracleStale", durationMs: 1_000 });
    const beyond = () => ioc(w, w.alice, { limitPx: "2300" });
    expectPrecedence(w, "createOrder", beyond(), "NO_PRICES_FOUND_FOR_SYMBOL_ERROR", { fixFirst: () => w.advance(1_000), body: beyond, second: "CREATE_ORDER_OTHER_ERROR" });
  });

  it("an IOC beyond the band and beyond the margin: CREATE_ORDER_OTHER_ERROR", () => {
    const w = new World();
    expectPrecedence(w, "createOrder", ioc(w, w.alice, { qty: "200", limitPx: "2300" }), "CREATE_ORDER_OTHER_ERROR", {
      body: () => ioc(w, w.alice, { qty: "200", limitPx: "2100" }),
      second: "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR",
    });
  });

  it("beyond the margin and a post-only cross: ACCOUNT_BELOW_INITIAL_MARGIN_ERROR (pre-trade risk before the engine's rules)", () => {
    const w = new World();
    const erin = w.newParty("erin", 5, 5, { rUSD: "10" });
    w.rest(w.bob, { isBuy: false, qty: "1", limitPx: "2001" });
    expectPrecedence(w, "createOrder", gtc(w, erin, { qty: "1", limitPx: "2001", postOnly: true }), "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR", {
      body: () => gtc(w, erin, { qty: "0.01", limitPx: "2001", postOnly: true }),
      second: "POST_ONLY_WOULD_CROSS_ERROR",
    });
  });

  it("a duplicate clientOrderId and a post-only cross: DUPLICATE_CLIENT_ORDER_ID_ERROR (the engine's own order)", () => {
    const w = new World();
    w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990", clientOrderId: "9" });
    w.rest(w.bob, { isBuy: false, qty: "0.01", limitPx: "2001" });
    expectPrecedence(w, "createOrder", gtc(w, w.alice, { limitPx: "2001", postOnly: true, clientOrderId: "9" }), "DUPLICATE_CLIENT_ORDER_ID_ERROR", {
      body: () => gtc(w, w.alice, { limitPx: "2001", postOnly: true, clientOrderId: "10" }),
      second: "POST_ONLY_WOULD_CROSS_ERROR",
    });
  });

  it("the UNAUTHORIZED_SIGNATURE_ERROR message says which of the two rules failed", () => {
    const w = new World();
    expect(w.expectRejected("createOrder", gtc(w, w.alice, {}, { signWith: w.bob }), "UNAUTHORIZED_SIGNATURE_ERROR").message).toMatch(/differs from signerWallet/);
    expect(w.expectRejected("createOrder", gtc(w, w.mallory), "UNAUTHORIZED_SIGNATURE_ERROR").message).toMatch(/not permissioned/);
  });
});
