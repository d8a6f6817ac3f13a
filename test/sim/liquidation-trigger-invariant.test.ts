/**
 * The liquidation-step invariant (src/sim/risk-invariants.ts) must not
 * share the trigger it checks: with margin.isLiquidatable replaced by a
 * wrong one (the effective requirement instead of the settled one, the
 * mutation it once let through), an account whose settled margin balance
 * is below its settled liquidation requirement is still reported.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import type { Exchange } from "../../src/exchange/exchange.ts";
import { equitySettled } from "../../src/risk/margin.ts";
import { checkLiquidationStep, checkLiquidationTick } from "../../src/sim/risk-invariants.ts";
import { runFlow } from "../exchange/flow.ts";

vi.mock("../../src/risk/margin.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/risk/margin.ts")>();
  return { ...original, isLiquidatable: (account: { lm: bigint; lmS: bigint }, atMicros: number) => account.lmS > 0n && original.equitySettled(account as never, atMicros) < account.lm };
});

let exchange: Exchange;

beforeAll(() => {
  exchange = runFlow({ seed: 3, accounts: 6, durationMicros: 10_000_000, ordersPerSecond: 40 }).exchange;
  exchange.advanceTo(exchange.now() + 5_000_000);
}, 60_000);

describe("the liquidation-step check reads the settled requirement itself", () => {
  it("reports an account below its settled requirement that a trigger reading the effective one would pass", () => {
    const state = exchange.risk.state;
    const account = [...state.accounts.values()].find((candidate) => candidate.id !== state.config.poolAccountId && candidate.lmS > 0n)!;
    expect(account).toBeDefined();
    const now = exchange.now();
    const saved = { lm: account.lm, balance: account.settlementBalance };
    // Settled margin balance one below the settled requirement; the effective requirement far below it.
    account.settlementBalance -= equitySettled(account, now) - account.lmS + 1n;
    account.lm = -(10n ** 40n);
    try {
      expect(equitySettled(account, now) < account.lmS).toBe(true);
      for (const check of [() => checkLiquidationStep(state, [account.id], now, "a block"), () => checkLiquidationTick(state, now)]) {
        let thrown: unknown;
        try {
          check();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(InvariantError);
        expect((thrown as Error).message).toMatch(new RegExp(`account ${account.id} left below its liquidation requirement after the liquidation step of`));
      }
    } finally {
      account.lm = saved.lm;
      account.settlementBalance = saved.balance;
    }
  });
});
