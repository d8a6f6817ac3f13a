/**
 * The test harness itself: signed mode is on, the parties' signatures are
 * the real ones, and the state digest that "a rejection changes nothing"
 * relies on does see each kind of change an accepted request makes (so an
 * unchanged digest means something).
 */
import { describe, expect, it } from "vitest";
import { recoverSignerNative } from "../../../src/signing/verify.ts";
import { orderMessage } from "../../../src/signing/messages.ts";
import type { OrderBody } from "../../../src/signing/wire.ts";
import { ETH, marketRef, World, type Digest } from "./harness.ts";

function changedParts(before: Digest, after: Digest): string[] {
  return Object.keys(before).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
}

describe("gateway test harness", () => {
  it("runs the exchange in signed mode with keys 0x..01 and 0x..02, and signs what the client SDK builds", () => {
    const w = new World();
    expect(w.exchange.config.gateway.verifySignatures).toBe(true);
    expect(w.alice.address).toBe("0x7e5f4552091a69125d5dfcb7b8c2659029395bdf");
    expect(w.bob.address).toBe("0x2b5ad5c4795c026514f8317c7a215e218dccd6cf");
    const body = w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" });
    const recovered = recoverSignerNative("Order", orderMessage(body as unknown as OrderBody, marketRef(ETH)), body.signature);
    expect(recovered).toEqual({ ok: true, address: w.alice.address });
  });

  it("sees every kind of change in its digest", () => {
    const w = new World();
    let before = w.digest();
    w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990" });
    let after = w.digest();
    expect(changedParts(before, after).sort()).toEqual(["accounts", "engine", "history", "parties", "resting"].sort());

    before = after;
    w.ok("cancelAll", w.cancelAll(w.bob));
    after = w.digest();
    expect(changedParts(before, after)).toEqual(["parties"]);
    expect(after["parties"]).not.toEqual(before["parties"]);

    before = after;
    w.trade(w.bob, w.carol, "0.01");
    after = w.digest();
    expect(changedParts(before, after)).toEqual(expect.arrayContaining(["engine", "accounts", "pending", "openInterest"]));

    before = w.digest();
    w.adminOk({ action: "wallet", wallet: w.bob.address, suspended: true });
    expect(changedParts(before, w.digest())).toEqual(["wallets"]);

    before = w.digest();
    w.adminOk({ action: "addSigner", accountId: 2, signer: w.dave.address });
    expect(changedParts(before, w.digest())).toEqual(["accounts"]);
  });

  it("counts rate-limit slots through the limiter's public check", () => {
    const w = new World();
    for (let i = 0; i < 3; i++) w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990" });
    w.ok("cancelAll", w.cancelAll(w.alice));
    expect(w.usedSlots(w.alice.address, "order")).toBe(3);
    expect(w.usedSlots(w.alice.address, "cancelAll")).toBe(1);
    expect(w.usedSlots(w.bob.address, "order")).toBe(0);
  });
});
