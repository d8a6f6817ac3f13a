/**
 * The accountBalances stream of every account an execution's ledger moves.
 * A fill credits more than its taker and maker: the taker's referrer (its
 * share of the taker fee) and the pool (its share). Each credited wallet's
 * last streamed balances must equal its balances as REST reads them, as
 * the taker's and the maker's do (they once stayed stale: found by an
 * audit, session 20).
 */
import { describe, expect, it } from "vitest";
import { World } from "./world.ts";

/** The last balances message streamed to `wallet`, or undefined. */
function lastStreamed(w: World, wallet: string): unknown {
  return w.of("balances").filter((output) => output.wallet === wallet).at(-1)?.balances;
}

describe("balances of the accounts a fill credits", () => {
  it("streams the referrer's and the pool's new balances with the execution that credited them", () => {
    const w = new World();
    const maker = w.account(0xc1, "100000");
    const taker = w.account(0xc2, "100000");
    const referrer = w.account(0xc3, "100");
    const referrerWallet = w.walletOf(referrer);
    w.handle({ kind: "admin", admin: { action: "wallet", wallet: w.walletOf(taker), referrer: referrerWallet } });
    w.prices("3000");
    const streamedBefore = w.of("balances").filter((output) => output.wallet === referrerWallet).length;
    for (let round = 0; round < 3; round++) {
      w.order(maker, false, "3000", "1");
      w.order(taker, true, "3000", "1", "IOC");
      w.advance(300_000);
      const execution = w.of("perpExecution").at(-1)!.record;
      expect(execution.referrerFeeCredit).not.toBe("0");
      expect(execution.poolFeeCredit).not.toBe("0");
      const pool = w.exchange.risk.accountOwner(1);
      expect(pool).toBeDefined();
      for (const wallet of [referrerWallet, pool!, w.walletOf(taker), w.walletOf(maker)]) {
        expect(lastStreamed(w, wallet), wallet).toEqual(w.exchange.balancesOfWallet(wallet));
      }
    }
    // The referrer's stream moved once with each of its three credits.
    expect(w.of("balances").filter((output) => output.wallet === referrerWallet)).toHaveLength(streamedBefore + 3);
  });
});
