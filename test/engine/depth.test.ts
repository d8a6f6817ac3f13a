import { describe, expect, it } from "vitest";
import type { DepthLevel, DepthLevels } from "../../src/engine/depth.ts";
import { depthMessage } from "../../src/engine/wire.ts";
import { harness, ok, rejected, T0 } from "./helpers.ts";
import type { Harness } from "./helpers.ts";

/** Rests `count` bids of 1 lot at 1000, 999, ... from distinct accounts. */
function bidLadder(h: Harness, count: number, top = 1000): void {
  for (let i = 0; i < count; i++) h.buy(10_000 + i, top - i, 1);
}

describe("REST depth view", () => {
  it("aggregates levels, bids best (highest) first and asks best (lowest) first", () => {
    const h = harness();
    h.buy(1, 99, 2);
    h.buy(2, 99, 3);
    h.buy(3, 98, 1);
    h.sell(4, 101, 4);
    h.sell(5, 102, 6);
    const depth = ok(h.engine.depth(1));
    expect(depth.bids).toEqual([
      { priceTicks: 99, qtyLots: 5 },
      { priceTicks: 98, qtyLots: 1 },
    ]);
    expect(depth.asks).toEqual([
      { priceTicks: 101, qtyLots: 4 },
      { priceTicks: 102, qtyLots: 6 },
    ]);
    const wire = depthMessage(h.engine.market(1)!, depth, "SNAPSHOT");
    expect(wire).toEqual({
      symbol: "BTCPERP",
      type: "SNAPSHOT",
      bids: [
        { px: "49.5", qty: "0.005" },
        { px: "49", qty: "0.001" },
      ],
      asks: [
        { px: "50.5", qty: "0.004" },
        { px: "51", qty: "0.006" },
      ],
      updatedAt: T0 / 1000,
    });
  });

  it("returns 100 levels per side by default, `limit` on request, at most 1000", () => {
    const h = harness();
    bidLadder(h, 1005, 2000);
    expect(ok(h.engine.depth(1)).bids).toHaveLength(100);
    expect(ok(h.engine.depth(1, 7)).bids.map((l) => l.priceTicks)).toEqual([2000, 1999, 1998, 1997, 1996, 1995, 1994]);
    expect(ok(h.engine.depth(1, 1000)).bids).toHaveLength(1000);
    expect(rejected(h.engine.depth(1, 1001))).toEqual({ code: "INPUT_VALIDATION_ERROR", message: "limit 1001 must be an integer within [1, 1000]" });
    expect(rejected(h.engine.depth(1, 0)).code).toBe("INPUT_VALIDATION_ERROR");
    expect(rejected(h.engine.depth(9)).code).toBe("SYMBOL_NOT_FOUND_ERROR");
  });
});

function apply(view: Map<number, number>, levels: readonly DepthLevel[]): void {
  for (const level of levels) {
    if (level.qtyLots === 0) view.delete(level.priceTicks);
    else view.set(level.priceTicks, level.qtyLots);
  }
}

describe("depth stream (top 100, spec 6.2)", () => {
  it("sends only the changed levels, as absolute quantities", () => {
    const h = harness();
    h.buy(1, 99, 2);
    h.sell(2, 101, 4);
    const stream = h.engine.depthStream(1);
    expect(stream.snapshot()).toEqual({ bids: [{ priceTicks: 99, qtyLots: 2 }], asks: [{ priceTicks: 101, qtyLots: 4 }] });
    expect(stream.update()).toBeNull();
    h.buy(3, 99, 5);
    h.buy(4, 97, 1);
    expect(stream.update()).toEqual({
      bids: [
        { priceTicks: 99, qtyLots: 7 },
        { priceTicks: 97, qtyLots: 1 },
      ],
      asks: [],
    });
    h.buy(5, 101, 4); // takes the whole ask level
    expect(stream.update()).toEqual({ bids: [], asks: [{ priceTicks: 101, qtyLots: 0 }] });
    expect(stream.update()).toBeNull();
  });

  it("removes a level leaving the top 100 with qty 0 (orders still rest there) and adds the one entering with its full qty", () => {
    const h = harness();
    bidLadder(h, 101); // 1000 .. 900; the 101st level is 900
    h.buy(1, 900, 6); // below the boundary: 900 now holds 7
    const stream = h.engine.depthStream(1);
    expect(stream.snapshot().bids).toHaveLength(100);
    expect(stream.snapshot().bids.at(-1)).toEqual({ priceTicks: 901, qtyLots: 1 });
    h.buy(2, 1001, 3); // a better level pushes 901 out
    expect(stream.update()).toEqual({
      bids: [
        { priceTicks: 1001, qtyLots: 3 },
        { priceTicks: 901, qtyLots: 0 },
      ],
      asks: [],
    });
    expect(ok(h.engine.depth(1, 1000)).bids.find((l) => l.priceTicks === 901)).toEqual({ priceTicks: 901, qtyLots: 1 });
    ok(h.engine.cancelAll({ atMicros: h.now, accountId: 2 })); // 1001 leaves: 901 enters again, with its full quantity
    expect(stream.update()).toEqual({
      bids: [
        { priceTicks: 1001, qtyLots: 0 },
        { priceTicks: 901, qtyLots: 1 },
      ],
      asks: [],
    });
  });

  it("sends nothing for changes below the boundary", () => {
    const h = harness();
    bidLadder(h, 100);
    const stream = h.engine.depthStream(1);
    h.buy(1, 850, 4);
    h.buy(2, 850, 4);
    expect(stream.update()).toBeNull();
    expect(ok(h.engine.depth(1, 200)).bids.at(-1)).toEqual({ priceTicks: 850, qtyLots: 8 });
  });

  it("carries updatedAt = the time of the latest depth change", () => {
    const h = harness();
    h.buy(1, 99, 2);
    h.now = T0 + 7_000;
    h.buy(2, 98, 2);
    h.now = T0 + 9_000;
    ok(h.engine.cancelAllAfter({ atMicros: h.now, accountId: 3, timeoutMs: 0 })); // no depth change
    const market = h.engine.market(1)!;
    expect(depthMessage(market, h.engine.depthStream(1).snapshot(), "SNAPSHOT").updatedAt).toBe((T0 + 7_000) / 1000);
  });

  it("rebuilds, from the snapshot and the updates, the REST view of the top 100 after every change", () => {
    const h = harness();
    bidLadder(h, 120);
    for (let i = 0; i < 120; i++) h.sell(20_000 + i, 1100 + i, 2);
    const stream = h.engine.depthStream(1);
    const bids = new Map<number, number>();
    const asks = new Map<number, number>();
    const snapshot: DepthLevels = stream.snapshot();
    apply(bids, snapshot.bids);
    apply(asks, snapshot.asks);
    const expectSame = () => {
      const update = stream.update();
      if (update !== null) {
        apply(bids, update.bids);
        apply(asks, update.asks);
      }
      const rest = ok(h.engine.depth(1, 100));
      expect([...bids].sort((a, b) => b[0] - a[0])).toEqual(rest.bids.map((l) => [l.priceTicks, l.qtyLots]));
      expect([...asks].sort((a, b) => a[0] - b[0])).toEqual(rest.asks.map((l) => [l.priceTicks, l.qtyLots]));
    };
    h.buy(1, 1050, 30); // below the asks: a new best bid, pushing the 100th bid level out
    expectSame();
    h.buy(2, 1110, 25); // takes the 22 lots of 1100..1110 and rests 3 at 1110: asks enter from below the boundary
    expectSame();
    h.sell(3, 950, 200); // sweeps the bids down to 950 and rests the remainder
    expectSame();
    ok(h.engine.cancelAll({ atMicros: h.now, accountId: 10_000 + 110 }));
    expectSame();
  });
});
