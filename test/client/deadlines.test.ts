import { describe, expect, it } from "vitest";
import type { Client } from "../../src/client/client.ts";
import { RESTING_DEADLINE_SECONDS, SHORT_DEADLINE_SECONDS } from "../../src/client/deadlines.ts";
import { DEADLINE_HORIZON_SECONDS_MAX } from "../../src/spec/limits.ts";
import { testClient, testClock } from "./fixtures.ts";

/** Just before a second boundary, so that flooring (not rounding) shows. */
const NOW_MICROS = 1_718_000_000_999_999;
const NOW_S = 1_718_000_000;
const EXPIRES = NOW_S + 3_600;
const FAR = NOW_S + 365 * 86_400;

const cases: { name: string; send: (client: Client) => Promise<unknown>; deadline: number }[] = [
  { name: "LIMIT IOC", send: (c) => c.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "IOC" }), deadline: NOW_S + 60 },
  { name: "spot LIMIT IOC", send: (c) => c.createOrder({ symbol: "WETHRUSD", isBuy: true, qty: "1", limitPx: "1", timeInForce: "IOC" }), deadline: NOW_S + 60 },
  { name: "LIMIT GTC", send: (c) => c.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC" }), deadline: FAR },
  {
    name: "LIMIT GTT",
    send: (c) => c.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTT", expiresAfter: EXPIRES }),
    deadline: EXPIRES - 1,
  },
  {
    name: "STOP_LOSS with an IOC child (rests armed)",
    send: (c) => c.createOrder({ symbol: "ETHPERP", orderType: "STOP_LOSS", isBuy: false, limitPx: "1", triggerPx: "2", timeInForce: "IOC" }),
    deadline: FAR,
  },
  {
    name: "TAKE_PROFIT with a GTC child",
    send: (c) => c.createOrder({ symbol: "ETHPERP", orderType: "TAKE_PROFIT", isBuy: false, limitPx: "1", triggerPx: "2", timeInForce: "GTC" }),
    deadline: FAR,
  },
  {
    name: "STOP_LOSS GTT",
    send: (c) =>
      c.createOrder({ symbol: "ETHPERP", orderType: "STOP_LOSS", isBuy: false, limitPx: "1", triggerPx: "2", timeInForce: "GTT", expiresAfter: EXPIRES }),
    deadline: EXPIRES - 1,
  },
  {
    name: "modify of a GTC",
    send: (c) => c.modifyOrder({ orderId: "1", symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC", postOnly: false }),
    deadline: FAR,
  },
  {
    name: "modify of a GTT",
    send: (c) =>
      c.modifyOrder({ orderId: "1", symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTT", postOnly: false, expiresAfter: EXPIRES }),
    deadline: EXPIRES - 1,
  },
  { name: "cancelOrder", send: (c) => c.cancelOrder({ symbol: "ETHPERP", orderId: "1" }), deadline: NOW_S + 60 },
  { name: "cancelAll", send: (c) => c.cancelAll(), deadline: NOW_S + 60 },
  { name: "cancelAllAfter", send: (c) => c.cancelAllAfter({ timeoutMs: 5_000 }), deadline: NOW_S + 60 },
];

describe("default deadlines", () => {
  it("keep immediate requests within the 600-second horizon and resting ones beyond it", () => {
    expect(SHORT_DEADLINE_SECONDS).toBe(60);
    expect(SHORT_DEADLINE_SECONDS).toBeLessThanOrEqual(DEADLINE_HORIZON_SECONDS_MAX);
    expect(RESTING_DEADLINE_SECONDS).toBe(365 * 86_400);
  });

  it.each(cases)("$name is signed with its default deadline", async ({ send, deadline }) => {
    const { client, transport } = testClient({ clock: testClock(NOW_MICROS) });
    await send(client);
    expect(transport.body()["deadline"]).toBe(deadline);
  });
});
