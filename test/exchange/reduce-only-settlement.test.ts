/**
 * Reduce-only at settlement. The engine admits and cuts a reduce-only
 * order against the account's position with its pending matches counted;
 * by the block that settles the fill, a bust of the match that opened the
 * position, a liquidation or an ADL may have closed it. The chain refuses a
 * reduce-only fill that would not reduce the settled position: the match
 * busts (`ReduceOnlyViolation`, an unmodeled contract error of spec 2.16)
 * and opens nothing. Each case below opened a position the other way
 * before (found by an audit, session 20).
 */
import { describe, expect, it } from "vitest";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { ExecutionBust } from "../../src/spec/bust.ts";
import { World } from "./world.ts";

/** The one ReduceOnlyViolation bust of `accountId`'s fill, checked against the spec's bust shape. */
function violationOf(world: World, accountId: number): any {
  const busts = world.of("bust").filter((bust) => bust.record.reason.reasonName === "ReduceOnlyViolation");
  expect(busts).toHaveLength(1);
  const record = busts[0]!.record;
  expect(ExecutionBust.safeParse(record).success).toBe(true);
  expect((record.reason as any).args.accountId).toBe(accountId);
  return record;
}

describe("reduce-only at settlement", () => {
  it("busts a reduce-only fill whose position was opened by a match that busted in the same block", () => {
    const w = new World();
    const maker = w.account(0xf1, "100000");
    const a = w.account(0xf2, "100000");
    w.prices("3000");
    w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } } as ExchangeInput);
    w.order(maker, false, "3000", "2");
    expect(w.order(a, true, "3000", "2", "IOC").status).toBe("FILLED");
    w.order(maker, true, "2999", "2");
    // Admitted: the pending buy makes a long of 2 to reduce.
    expect(w.order(a, false, "2999", "2", "IOC", true).status).toBe("FILLED");
    w.advance(300_000);
    expect(w.position(a)).toBeUndefined();
    expect(w.of("perpExecution").filter((execution) => execution.record.takerAccountId === a)).toEqual([]);
    expect(violationOf(w, a)).toMatchObject({ takerAccountId: a, qty: "2", side: "A", reason: { args: { marketId: 1, position: "0", delta: "-2" } } });
  });

  it("busts a pending reduce-only fill of an account whose position an ADL closed first", () => {
    const w = new World();
    const mm = w.account(0xa1, "1000000");
    const [, short] = w.leveragedPair();
    expect(w.position(short)).toEqual({ qty: "5", side: "A" });
    w.order(mm, false, "2950", "2");
    expect(w.order(short, true, "2950", "2", "IOC", true).status).toBe("FILLED");
    // The same instant: a crash liquidates the long; the empty pool cannot take it, and ADL closes the short's 5.
    w.prices("2700");
    w.advance(500_000);
    expect(w.of("perpExecution").some((execution) => execution.record.type === "ADL" && execution.record.takerAccountId === short)).toBe(true);
    expect(w.position(short)).toBeUndefined();
    expect(w.position(mm)).toBeUndefined();
    expect(violationOf(w, short)).toMatchObject({ takerAccountId: short, makerAccountId: mm, qty: "2", side: "B" });
  });

  it("busts a pending reduce-only fill of an account liquidated before its block", () => {
    const w = new World();
    const mm = w.account(0xa1, "1000000");
    w.handle({ kind: "admin", admin: { action: "deposit", accountId: 1, asset: "rUSD", amount: "1000000" } });
    const [long] = w.leveragedPair();
    w.order(mm, true, "2990", "2");
    expect(w.order(long, false, "2990", "2", "IOC", true).status).toBe("FILLED");
    w.prices("2800");
    w.advance(1_000_000);
    expect(w.of("perpExecution").some((execution) => execution.record.type === "LIQUIDATION" && execution.record.takerAccountId === long)).toBe(true);
    expect(w.position(long)).toBeUndefined();
    expect(violationOf(w, long)).toMatchObject({ takerAccountId: long, makerAccountId: mm, qty: "2", side: "A" });
  });

  it("settles a reduce-only fill that reduces the settled position, pending matches of the same block counted in order", () => {
    const w = new World();
    const maker = w.account(0xf1, "100000");
    const a = w.account(0xf2, "100000");
    w.prices("3000");
    w.order(maker, false, "3000", "2");
    w.order(a, true, "3000", "2", "IOC");
    w.order(maker, true, "2999", "1");
    expect(w.order(a, false, "2999", "1", "IOC", true).status).toBe("FILLED");
    w.advance(300_000);
    expect(w.of("bust")).toEqual([]);
    expect(w.position(a)).toEqual({ qty: "1", side: "B" });
  });
});
