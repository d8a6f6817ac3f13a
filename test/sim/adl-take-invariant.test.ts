/**
 * checkAdlClose (src/sim/risk-invariants.ts) against the M07 mutant of the
 * mutation study (scratch/s22/mutation-invariants.md), on a whole fuzz
 * seed: each ADL take sized by the liquidated position,
 * `min(remaining, |liquidated.q|)`, instead of by the counterparty's,
 * `min(remaining, |counterparty.q|)`. Since `remaining` starts at
 * |liquidated.q| and only falls, the mutant's take is always `remaining`:
 * the queue's head takes the whole close, and one that holds less is
 * flipped. In the shipped liquidation-cascade the market maker heads the
 * queue and holds more than any long, so the mutant changes nothing there;
 * test/sim/fixtures/cascade-small-short-scenario.ts adds a small short
 * that heads the queue.
 *
 * The take is a line inside adl.ts's autoDeleverage, which vi.mock cannot
 * reach on its own (a module's calls to itself are not mocked). The mock
 * replaces autoDeleverage, which liquidation.ts imports, with `mutantClose`
 * below: autoDeleverage as written in src/risk/adl.ts with the take
 * chosen by `take.mutant`. The copy is held to the original in two ways:
 * the first case checks that the line it swaps is still in adl.ts as
 * written here, and the control runs the copy with the real take and
 * expects the same run (fingerprint and event count) as the original.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdlClose, AdlResult } from "../../src/risk/adl.ts";
import type { PositionState, RiskState } from "../../src/risk/state.ts";
import type { AppliedPerpExecution } from "../../src/risk/types.ts";
import { runFuzzSeed } from "../../src/sim/fuzz.ts";
import { loadScenario } from "../../src/sim/scenario-loader.ts";

/** `original`: delegate to the real autoDeleverage; `copy`: the copy with the real take; `M07`: the copy with the mutant's. */
const take = vi.hoisted(() => ({ mode: "original" as "original" | "copy" | "M07" }));

vi.mock("../../src/risk/adl.ts", async (importOriginal) => {
  const adl = await importOriginal<typeof import("../../src/risk/adl.ts")>();
  const { applyPerpExecution } = await import("../../src/risk/executions.ts");
  const { abs, min } = await import("../../src/risk/fixed.ts");
  const check: (condition: boolean, message: string) => void = (await import("../../src/core/assert.ts")).assert;
  /** src/risk/adl.ts autoDeleverage, line for line, but for the take. */
  function copiedClose(state: RiskState, liquidated: PositionState, priceTicks: number, atMicros: number, record: boolean): AdlResult {
    const market = liquidated.market;
    const step = market.config.step;
    const long = liquidated.q > 0n;
    const executions: AppliedPerpExecution[] = [];
    const mark = market.mark ?? 0n;
    const ranked = adl.adlQueue(market, liquidated, mark);
    const close: AdlClose | undefined = record
      ? {
          liquidatedAccountId: liquidated.account.id,
          marketId: market.config.marketId,
          mark,
          q: liquidated.q,
          oppositeOi: long ? market.oiShort : market.oiLong,
          queue: ranked.map((position) => ({ accountId: position.account.id, q: position.q, k: position.k, pnl: position.q * mark - position.k, entryNotional: abs(position.k) })),
          executions,
        }
      : undefined;
    let remaining = abs(liquidated.q);
    for (const counterparty of ranked) {
      const size = min(remaining, abs((take.mode === "M07" ? liquidated : counterparty).q));
      const qtyLots = Number(size / step);
      const legs = [
        { account: liquidated.account, takerSide: long ? "A" : "B" },
        { account: counterparty.account, takerSide: long ? "B" : "A" },
      ] as const;
      for (const leg of legs) {
        executions.push(
          applyPerpExecution(
            state,
            { type: "ADL", marketId: market.config.marketId, takerAccountId: leg.account.id, takerSide: leg.takerSide, priceTicks, qtyLots, fillId: state.ids.nextFillId(), sequenceNumber: state.ids.nextPerpSequenceNumber() },
            atMicros,
          ),
        );
      }
      remaining -= size;
      if (remaining === 0n) break;
    }
    check(remaining === 0n, `ADL on ${market.config.symbol} found too little opposite interest (long OI must equal short OI)`);
    check(market.oiLong === market.oiShort, `long OI ${market.oiLong} differs from short OI ${market.oiShort} on ${market.config.symbol} after ADL`);
    return { executions, close };
  }
  return {
    ...adl,
    autoDeleverage: (...args: Parameters<typeof adl.autoDeleverage>) => (take.mode === "original" ? adl.autoDeleverage(...args) : copiedClose(...args)),
  };
});

afterEach(() => {
  take.mode = "original";
});

const fixture = `${import.meta.dirname}/fixtures/cascade-small-short-scenario.ts`;
const SEED = 1;

describe("M07 (ADL takes sized by the liquidated position) through the fuzzer's own seed path, on cascade-small-short", () => {
  it("the copy swaps the take line adl.ts has", () => {
    const source = readFileSync(`${import.meta.dirname}/../../src/risk/adl.ts`, "utf8");
    expect(source).toContain("const take = min(remaining, abs(counterparty.q));");
  });

  it("passes the seed with the real code, and the copy with the real take runs it the same", async () => {
    const loaded = await loadScenario(fixture);
    const real = await runFuzzSeed(loaded, SEED, { scenarioPath: fixture });
    expect(real.error).toBeUndefined();
    expect(real.ok).toBe(true);
    take.mode = "copy";
    const copy = await runFuzzSeed(loaded, SEED, { scenarioPath: fixture });
    expect(copy.ok).toBe(true);
    expect([copy.fingerprint, copy.events]).toEqual([real.fingerprint, real.events]);
  }, 120_000);

  it("fails the seed with M07's take, at the first ADL close whose head holds less than the liquidated long", async () => {
    take.mode = "M07";
    const result = await runFuzzSeed(await loadScenario(fixture), SEED, { scenarioPath: fixture });
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe("InvariantError");
    expect(result.error?.message).toMatch(/^ADL of account \d+ on ETHRUSDPERP: fill \d+ is ADL of account \d+ [AB] [\d.]+, but the queue gives ADL of account \d+ [AB] [\d.]+ \(account \d+ holds [\d.]+, [\d.]+ left to close\)$/);
  }, 120_000);
});
