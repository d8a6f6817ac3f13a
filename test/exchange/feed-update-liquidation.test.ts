/**
 * One prices input moves its feeds together. The simulator's oracle (and
 * any client of the admin prices route) sends an asset's index and its
 * perp's exchange-mark oracle in one input; the liquidation pass runs once,
 * after both, at the mark the whole update sets, and the engine sees that
 * mark only. Before (found by an audit, session 20) a pass ran after each
 * item, and the index alone moved the mark halfway: ADL closed positions at
 * 2850 while the update's mark was 2700.
 */
import { describe, expect, it } from "vitest";
import { ETH, World } from "./world.ts";

describe("a prices input that moves index and oracle together", () => {
  it("liquidates and deleverages at the mark the whole update sets", () => {
    const w = new World();
    const [long] = w.leveragedPair();
    const before = w.outputs.length;
    w.prices("2700");
    const mark = w.exchange.risk.marketSummaries(w.now).find((summary) => summary.symbol === ETH)!.markPrice;
    expect(mark).toBe("2700");
    const closes = w.outputs.slice(before).filter((output) => output.kind === "perpExecution").map((output: any) => output.record);
    expect(closes.length).toBeGreaterThan(0);
    expect(closes.every((record: any) => record.type === "LIQUIDATION" || record.type === "ADL")).toBe(true);
    expect(new Set(closes.map((record: any) => record.price))).toEqual(new Set([mark]));
    expect(w.position(long)).toBeUndefined();
  });
});

describe("a liquidated account's resting orders", () => {
  it("are cancelled with RISK_CANCELLED (risk cancelled them), not as a cancelAll the client sent", () => {
    const w = new World();
    const [long] = w.leveragedPair();
    const resting = w.order(long, false, "3300", "1");
    w.prices("2700");
    const rows = w.of("order").filter((output) => output.row.orderId === resting.orderId);
    expect(rows.at(-1)!.row).toMatchObject({ status: "CANCELLED", cancelReason: "RISK_CANCELLED" });
    expect(rows.at(-1)!.row.cancelReasonMessage).toContain("liquidation");
  });
});

describe("a liquidation and the stops the same update fires (audit s22 R6)", () => {
  /**
   * A: long 5 ETH at 3000 on 2000 rUSD (fee 6: 1994), with a resting bid of
   * 0.5 at 2650. C: long 1 at 3000 with a stop-loss (trigger 2700, limit
   * 2600). One update to 2660: A's margin 1994 - 5 x 340 = 294 is below
   * 0.025 x 5 x 2660 = 332.5, so A is liquidated (by ADL: the pool holds
   * nothing) and pays a penalty of 0.01 x 5 x 2660 = 133, leaving 161; the
   * same mark fires C's stop. The liquidation is published and A's orders
   * cancelled before the engine sees the mark: C's fired sell finds no bid
   * (before, it filled A's bid, and A held a new long of 0.5 right after
   * being liquidated).
   */
  it("cancels the liquidated account's orders before a stop fired by the new mark can trade with them", () => {
    const w = new World();
    const [a, short] = w.longPair("2000");
    const c = w.account(0xa4, "100000");
    w.order(short, false, "3000", "1");
    w.order(c, true, "3000", "1", "IOC");
    w.advance(1_000_000);
    expect(w.position(c)).toEqual({ qty: "1", side: "B" });
    const stop = w.sellStop(c, "STOP_LOSS", "2700", "2600");
    const bid = w.order(a, true, "2650", "0.5");
    const before = w.outputs.length;
    w.now += 1_000_000;
    w.prices("2660");
    const after = w.outputs.slice(before);
    const bidRows = after.filter((output: any) => output.kind === "order" && output.row.orderId === bid.orderId).map((output: any) => output.row);
    expect(bidRows.map((row: any) => [row.status, row.cancelReason])).toEqual([["CANCELLED", "RISK_CANCELLED"]]);
    const firstExecution = after.findIndex((output) => output.kind === "perpExecution");
    const stopFired = after.findIndex((output: any) => output.kind === "order" && output.row.orderId === stop);
    expect(firstExecution).toBeGreaterThanOrEqual(0);
    expect(stopFired).toBeGreaterThan(firstExecution);
    w.advance(1_000_000);
    expect(w.position(a)).toBeUndefined();
    expect(w.exchange.risk.balances(a)).toEqual([{ accountId: a, asset: "rUSD", realBalance: "161", balanceDEPRECATED: "2000" }]);
    expect(w.position(c)).toEqual({ qty: "1", side: "B" });
  });
});
