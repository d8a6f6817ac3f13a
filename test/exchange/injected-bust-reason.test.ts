/**
 * An injected InsufficientBalance bust (the bustNext fault) names the asset
 * the taker pays with (audit s22 R8): on a spot market the quote when the
 * taker buys and the base when it sells, on a perp the settlement asset.
 * Before, every one named "rUSD", an asset a selling spot taker does not
 * pay with, and one a venue may not have at all.
 */
import { describe, expect, it } from "vitest";
import { World } from "./world.ts";

function spotAccount(w: World, n: number): number {
  const wallet = `0x${n.toString(16).padStart(40, "0")}`;
  const answer = w.handle({ kind: "admin", admin: { action: "createAccount", wallet, deposits: { rUSD: "100000", WETH: "10" } } });
  expect(answer.ok).toBe(true);
  w.handle({ kind: "admin", admin: { action: "wallet", wallet, rateTier: 3 } });
  return answer.payload.accountId as number;
}

function spotOrder(w: World, accountId: number, n: number, isBuy: boolean, timeInForce: "GTC" | "IOC", nonce: number): void {
  const body: Record<string, unknown> = {
    exchangeId: 1,
    symbol: "WETHRUSD",
    accountId,
    isBuy,
    limitPx: "3000",
    qty: "1",
    orderType: "LIMIT",
    timeInForce,
    signature: `0x${"11".repeat(65)}`,
    nonce: String(nonce),
    signerWallet: `0x${n.toString(16).padStart(40, "0")}`,
    deadline: Math.floor(w.now / 1e6) + 60,
  };
  const answer = w.handle({ kind: "request", op: "createOrder", body } as never);
  expect(answer.ok, JSON.stringify(answer)).toBe(true);
}

function bustedReason(w: World): unknown {
  w.advance(1_000_000);
  const busts = w.of("bust");
  expect(busts).toHaveLength(1);
  return busts[0]!.record.reason;
}

describe("an injected InsufficientBalance bust", () => {
  it.each([
    ["sells", "WETH", false],
    ["buys", "rUSD", true],
  ] as const)("of a spot taker that %s names %s", (_verb, asset, takerBuys) => {
    const w = new World();
    const maker = spotAccount(w, 0xb1);
    const taker = spotAccount(w, 0xb2);
    w.prices("3000");
    spotOrder(w, maker, 0xb1, !takerBuys, "GTC", 1);
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "InsufficientBalance" } }).ok).toBe(true);
    spotOrder(w, taker, 0xb2, takerBuys, "IOC", 1);
    expect(bustedReason(w)).toEqual({ reasonName: "InsufficientBalance", accountId: taker, asset, required: "0", available: "0" });
  });

  it("of a perp taker names the settlement asset", () => {
    const w = new World();
    const long = w.account(0xa2, "100000");
    const short = w.account(0xa3, "100000");
    w.prices("3000");
    w.order(short, false, "3000", "1");
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "InsufficientBalance" } }).ok).toBe(true);
    w.order(long, true, "3000", "1", "IOC");
    expect(bustedReason(w)).toEqual({ reasonName: "InsufficientBalance", accountId: long, asset: "rUSD", required: "0", available: "0" });
  });
});
