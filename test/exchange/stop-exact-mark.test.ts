/**
 * A stop fires on the mark itself (issue #3: a long's stop-loss fires when
 * mark <= triggerPx), not on the mark rounded to the tick grid: the risk
 * layer hands the engine the mark's floor and whether it lies between two
 * ticks (feeds.ts MarkChange), and a mark of 2900.004 against a trigger of
 * 2900 (tick 0.01) fires nothing.
 */
import { describe, expect, it } from "vitest";
import { World } from "./world.ts";

/** Moves index and oracle to `price`, then lets a summary tick recompute the mark. */
function markAt(w: World, price: string): void {
  w.now += 1_000_000;
  w.prices(price);
  w.advance(600_000);
}

/** A well funded long of 5 ETH at 3000, settled: [world, long's account]. */
function wellFundedLong(): [World, number] {
  const w = new World();
  return [w, w.longPair("100000")[0]];
}

function triggered(w: World, orderId: string): boolean | undefined {
  return w.exchange.engine.order(orderId)?.triggered;
}

describe("stops fire on the exact mark", () => {
  it("a long's stop-loss at 2900 waits through marks of 2900.006, 2900.005 and 2900.004, and fires at 2900", () => {
    const [w, long] = wellFundedLong();
    const stop = w.sellStop(long, "STOP_LOSS", "2900", "2890");
    for (const price of ["2900.006", "2900.005", "2900.004"]) {
      markAt(w, price);
      expect(triggered(w, stop), `mark ${price}`).toBe(false);
    }
    markAt(w, "2900");
    expect(triggered(w, stop)).toBe(true);
  });

  it("a long's take-profit at 3100 waits through a mark of 3099.996 and fires at 3100.004", () => {
    const [w, long] = wellFundedLong();
    const stop = w.sellStop(long, "TAKE_PROFIT", "3100", "3090");
    markAt(w, "3099.996");
    expect(triggered(w, stop)).toBe(false);
    markAt(w, "3100.004");
    expect(triggered(w, stop)).toBe(true);
  });
});
