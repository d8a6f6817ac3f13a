/**
 * checkAdlClose (src/sim/risk-invariants.ts) against two mutants of the
 * mutation study (scratch/s22/mutation-invariants.md) that no output shows:
 * - M18, the ADL ranking reversed (least profitable counterparties first);
 * - M07, each take sized by the liquidated position instead of the
 *   counterparty's (a counterparty holding less than what is left is
 *   flipped).
 * The venue is test/risk/fixtures.ts adlVenue (also test/risk/liquidation.test.ts's
 * ADL case): no pool money, so account 1's long 0.2 BTC is closed by ADL at mark 44000
 * against the shorts of 3 (0.1 at 51000: PnL 700 over 5100), 2 (0.1 at
 * 50000: 600 over 5000) and 4 (0.1 at 50000: 600 over 5000, after 2 on
 * the tie). The engine itself is not mutated here: each mutant's close is
 * the real one with what the mutant would have changed written in
 * (the queue's order, the takes).
 */
import { describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import type { AdlClose } from "../../src/risk/adl.ts";
import type { AppliedPerpExecution } from "../../src/risk/types.ts";
import { checkAdlClose } from "../../src/sim/risk-invariants.ts";
import { BTC_PERP, adlVenue } from "../risk/fixtures.ts";

const E18 = 10n ** 18n;

/** test/risk/fixtures.ts adlVenue with account 5's long: the close and the venue after it. */
function adlClose() {
  const { risk, update } = adlVenue(false);
  const outcome = update.liquidation;
  expect(outcome.liquidatedAccountIds).toEqual([1]);
  expect(outcome.adlCloses).toHaveLength(1);
  return { risk, close: outcome.adlCloses[0]! };
}

/** An ADL leg as the outcome carries it (only what the check reads). */
function leg(fillId: number, accountId: number, side: "A" | "B", qty: string): AppliedPerpExecution {
  return { record: { type: "ADL", fillId: String(fillId), takerAccountId: accountId, side, qty } } as unknown as AppliedPerpExecution;
}

describe("an ADL close takes the whole opposite side in rank order", () => {
  it("records the queue as ranked and passes the real close", () => {
    const { risk, close } = adlClose();
    expect(close).toMatchObject({ liquidatedAccountId: 1, marketId: BTC_PERP, mark: 44_000n * E18, q: E18 / 5n, oppositeOi: (3n * E18) / 10n });
    expect(close.queue.map((entry) => [entry.accountId, entry.pnl / E18 ** 2n, entry.entryNotional / E18 ** 2n])).toEqual([
      [3, 700n, 5100n],
      [2, 600n, 5000n],
      [4, 600n, 5000n],
    ]);
    expect(close.executions.map((execution) => [execution.record.takerAccountId, execution.record.side, execution.record.qty])).toEqual([
      [1, "A", "0.1"],
      [3, "B", "0.1"],
      [1, "A", "0.1"],
      [2, "B", "0.1"],
    ]);
    expect(checkAdlClose(risk.state, close)).toBe(3);
  });

  it("M18 (ranking reversed: 4, 2, 3) is reported", () => {
    const { risk, close } = adlClose();
    const [three, two, four] = close.queue;
    // The reversed comparator also reverses the tie: 4 before 2. It closes 1 against 4, then 2.
    const reversed: AdlClose = { ...close, queue: [four!, two!, three!], executions: [leg(91, 1, "A", "0.1"), leg(92, 4, "B", "0.1"), leg(93, 1, "A", "0.1"), leg(94, 2, "B", "0.1")] };
    expect(() => checkAdlClose(risk.state, reversed)).toThrowError(InvariantError);
    // An Error instance: the message must be equal, not only contained.
    expect(() => checkAdlClose(risk.state, reversed)).toThrow(
      new InvariantError("ADL of account 1 on BTCRUSDPERP: account 4 (PnL 600 over entry 5000) ranked before account 2 (PnL 600 over entry 5000): ADL takes the highest PnL ratio (q x mark - k) / |k| at mark first, ties by accountId ascending"),
    );
    // Only the tie reversed: 3 still first, then 4 before 2.
    const tieReversed: AdlClose = { ...close, queue: [three!, four!, two!] };
    expect(() => checkAdlClose(risk.state, tieReversed)).toThrow(/account 4 \(PnL 600 over entry 5000\) ranked before account 2/);
    // The least profitable first but the tie kept: 2, 4, 3.
    const ratioReversed: AdlClose = { ...close, queue: [two!, four!, three!] };
    expect(() => checkAdlClose(risk.state, ratioReversed)).toThrow(/account 4 \(PnL 600 over entry 5000\) ranked before account 3 \(PnL 700 over entry 5100\)/);
  });

  it("M07 (take sized by the liquidated position: 3, holding 0.1, takes 0.2 and flips long) is reported", () => {
    const { risk, close } = adlClose();
    const mutant: AdlClose = { ...close, executions: [leg(91, 1, "A", "0.2"), leg(92, 3, "B", "0.2")] };
    expect(() => checkAdlClose(risk.state, mutant)).toThrowError(InvariantError);
    expect(() => checkAdlClose(risk.state, mutant)).toThrow(
      new InvariantError("ADL of account 1 on BTCRUSDPERP: fill 91 is ADL of account 1 A 0.2, but the queue gives ADL of account 1 A 0.1 (account 3 holds 0.1, 0.2 left to close)"),
    );
  });

  it("reports a queue that leaves out an opposite position, or a close that stops short", () => {
    const { risk, close } = adlClose();
    const withoutFour: AdlClose = { ...close, queue: close.queue.slice(0, 2) };
    expect(() => checkAdlClose(risk.state, withoutFour)).toThrow(
      new InvariantError("ADL of account 1 on BTCRUSDPERP: the queue's positions sum to 0.2 but the opposite open interest was 0.3: the queue is every opposite position"),
    );
    const short: AdlClose = { ...close, executions: close.executions.slice(0, 2) };
    expect(() => checkAdlClose(risk.state, short)).toThrow(new InvariantError("ADL of account 1 on BTCRUSDPERP: the close ends before account 2's leg, with 0.1 still open"));
  });
});
