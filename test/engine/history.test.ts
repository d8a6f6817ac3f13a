import { describe, expect, it } from "vitest";
import { OrderHistory } from "../../src/engine/history.ts";
import { harness, T0 } from "./helpers.ts";

describe("OrderHistory (fed from the engine's order events)", () => {
  it("keeps every row of an account newest first, IOC takers included, bounded per account", () => {
    const history = new OrderHistory(3);
    const fed = harness();
    const resting = fed.sell(1, 100, 5);
    fed.now = T0 + 2_000;
    const ioc = fed.buy(1, 90, 5, { timeInForce: "IOC" });
    fed.now = T0 + 4_000;
    fed.buy(2, 100, 5);
    for (const update of fed.rec.updates) history.record(update);
    expect(history.rows(1).map((row) => [row.orderId, row.status])).toEqual([
      [resting.orderId, "FILLED"],
      [ioc.orderId, "CANCELLED"],
      [resting.orderId, "OPEN"],
    ]);
    expect(history.rows(1, { startTimeMs: T0 / 1000 + 1, endTimeMs: T0 / 1000 + 3 }).map((row) => row.orderId)).toEqual([ioc.orderId]);
    expect(history.rows(1, { limit: 1 })).toHaveLength(1);
    fed.now = T0 + 5_000;
    for (let i = 0; i < 3; i++) history.record(fed.buy(1, 80 - i, 5));
    expect(history.rows(1).map((row) => row.priceTicks)).toEqual([78, 79, 80]);
  });
});
