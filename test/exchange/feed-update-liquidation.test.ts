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
