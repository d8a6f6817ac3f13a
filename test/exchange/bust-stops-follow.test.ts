/**
 * A bust changes no settled position, but it does change the position the
 * engine sizes protective stops by (settled plus pending, the risk layer's
 * positionLots). The engine follows that position after every execution
 * (followPosition: a stop whose position is gone is cancelled
 * POSITION_CLOSED); after a bust it must too (audit s22 R7). Before, a stop
 * armed on a position whose opening fill busted stayed armed on nothing,
 * and would have protected whatever position the account opened next.
 */
import { describe, expect, it } from "vitest";
import { World } from "./world.ts";

describe("after a bust", () => {
  it("a stop armed on the position the busted fill opened is cancelled POSITION_CLOSED", () => {
    const w = new World();
    const long = w.account(0xa2, "100000");
    const short = w.account(0xa3, "100000");
    w.prices("3000");
    w.order(short, false, "3000", "1");
    w.order(long, true, "3000", "1", "IOC"); // pending: long 1
    const stop = w.sellStop(long, "STOP_LOSS", "2700", "2600");
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } }).ok).toBe(true);
    w.advance(1_000_000);
    expect(w.of("bust")).toHaveLength(1);
    expect(w.position(long)).toBeUndefined();
    const rows = w.of("order").filter((output) => output.row.orderId === stop).map((output) => [output.row.status, output.row.cancelReason]);
    expect(rows.at(-1)).toEqual(["CANCELLED", "POSITION_CLOSED"]);
  });

  it("a stop on a position that is still there (settled) stays armed", () => {
    const w = new World();
    const [long, short] = w.longPair("100000"); // settled long 5
    w.order(short, false, "3000", "1");
    w.order(long, true, "3000", "1", "IOC"); // pending: long 6
    const stop = w.sellStop(long, "STOP_LOSS", "2700", "2600");
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } }).ok).toBe(true);
    w.advance(1_000_000);
    expect(w.of("bust")).toHaveLength(1);
    expect(w.position(long)).toEqual({ qty: "5", side: "B" });
    expect(w.exchange.engine.order(stop)?.status).toBe("OPEN");
  });
});
