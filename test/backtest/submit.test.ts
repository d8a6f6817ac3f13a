/**
 * ctx.submit refuses a request the exchange would refuse at admission
 * (spec 7.3; DESIGN.md "Errors and bad input"), synchronously, with a
 * ReplayStrategyError naming the field, the rule and the spec's code; a
 * refused request changes nothing (no order id used, no order counted, no
 * local order).
 */
import { describe, expect, it } from "vitest";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import { memoryRecording } from "../../src/backtest/recording.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { defineReplayStrategy, ReplayStrategyError, type OrderRequest } from "../../src/backtest/strategy.ts";
import { decodeRecording } from "../../src/backtest/tape.ts";
import { constantLatency, GRID, snapshot, SYMBOL, update } from "./helpers.ts";

const rows = [snapshot(1_000, [[99, 5]], [[101, 5]]), update(2_000, [[99, 4]], []), update(3_000, [[98, 1]], [])];

/** Submits `bad` then a good order at the start; returns the refusal, the good order's id and what the run counted. */
function refuse(bad: Record<string, unknown>) {
  let refusal: unknown = null;
  let goodId = 0;
  let open = -1;
  const strategy = defineReplayStrategy({
    name: "refused",
    defaults: {},
    init: () => ({}),
    onStart(ctx) {
      try {
        ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 99, qtyLots: 1, ...bad } as OrderRequest);
      } catch (error) {
        refusal = error;
      }
      goodId = ctx.submit({ symbol: SYMBOL, side: "B", priceTicks: 98, qtyLots: 1 });
      open = ctx.orders().length;
    },
  });
  const result = runReplay(decodeRecording(memoryRecording(rows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: constantLatency(100) });
  return { refusal, goodId, open, orders: result.counts.orders, fills: result.fills.length };
}

describe("ctx.submit refusals", () => {
  it.each([
    [{ timeInForce: "IOC", postOnly: true }, 'submit postOnly with timeInForce "IOC": a postOnly order must be GTC (INPUT_VALIDATION_ERROR)'],
    [{ side: "S" }, 'submit side "S" must be B or A (INPUT_VALIDATION_ERROR)'],
    [{ timeInForce: "GTT" }, 'submit timeInForce "GTT" must be GTC or IOC (INPUT_VALIDATION_ERROR)'],
    [{ priceTicks: 99.5 }, 'submit priceTicks "99.5" must be a positive whole number of ticks (PRICE_QTY_BOUNDS_ERROR)'],
    [{ qtyLots: 0 }, 'submit qtyLots "0" must be a positive whole number of lots (PRICE_QTY_BOUNDS_ERROR)'],
    // 2^33 ticks x 2^21 lots: a notional of 2^54 units, beyond the account's safe integers.
    [{ priceTicks: 2 ** 33, qtyLots: 2 ** 21 }, 'submit priceTicks "8589934592" x qtyLots "2097152" is beyond 9007199254740991 ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)'],
    [{ symbol: "NOPE" }, 'submit symbol "NOPE" is not a replayed market (TESTPERP) (SYMBOL_NOT_FOUND_ERROR)'],
  ])("refuses %j and changes nothing", (bad, message) => {
    const { refusal, goodId, open, orders, fills } = refuse(bad);
    expect(refusal).toBeInstanceOf(ReplayStrategyError);
    expect((refusal as Error).message).toBe(message);
    expect(goodId).toBe(1);
    expect(open).toBe(1);
    expect(orders).toBe(1);
    expect(fills).toBe(0);
  });
});

describe("ctx.submit and the accounts' integers", () => {
  it("refuses a sell whose fills at the recording's highest price could not be counted (a sell takes bids above its limit)", () => {
    // Bids at 2^33 ticks for 2^21 lots: a sell of 2^21 lots at 1 tick would take them, a notional of 2^54.
    const high = 2 ** 33;
    const bigRows = [snapshot(1_000, [[high, 2 ** 21]], [[high + 1, 1]]), update(2_000, [[high - 1, 1]], [])];
    let refusal: unknown = null;
    const strategy = defineReplayStrategy({
      name: "big-sell",
      defaults: {},
      init: () => ({}),
      onStart(ctx) {
        try {
          ctx.submit({ symbol: SYMBOL, side: "A", priceTicks: 1, qtyLots: 2 ** 21, timeInForce: "IOC" });
        } catch (error) {
          refusal = error;
        }
      },
    });
    const result = runReplay(decodeRecording(memoryRecording(bigRows), { grids: [GRID] }), { seed: 1, queue: riskAverseQueue, strategy, latency: constantLatency(100) });
    expect((refusal as Error | null)?.message).toBe(
      'submit qtyLots "2097152" x priceTicks "8589934593" (the recording\'s highest price: a sell may fill up to it) is beyond 9007199254740991 ticks x lots of notional (PRICE_QTY_BOUNDS_ERROR)',
    );
    expect(result.counts.orders).toBe(0);
  });
});
