import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClientConfigError } from "../../src/client/errors.ts";
import { createNonceManager, NONCE_MAX } from "../../src/client/nonce.ts";
import { testClient, testClock, T0_MICROS } from "./fixtures.ts";

describe("createNonceManager", () => {
  it("hands out the clock's microseconds while the clock moves ahead of the last nonce", () => {
    const clock = testClock(1_000);
    const nonces = createNonceManager({ clock });
    expect(nonces.last).toBeUndefined();
    expect(nonces.next()).toBe("1000");
    clock.micros = 5_000;
    expect(nonces.next()).toBe("5000");
    expect(nonces.last).toBe(5_000n);
  });

  it("counts up by one under a frozen clock", () => {
    const nonces = createNonceManager({ clock: testClock(T0_MICROS) });
    const issued = Array.from({ length: 5 }, () => nonces.next());
    expect(issued).toEqual(["1718000000123456", "1718000000123457", "1718000000123458", "1718000000123459", "1718000000123460"]);
  });

  it("keeps increasing when the clock goes back", () => {
    const clock = testClock(10_000);
    const nonces = createNonceManager({ clock });
    expect(nonces.next()).toBe("10000");
    clock.micros = 9_000;
    expect(nonces.next()).toBe("10001");
  });

  it("starts above a nonce known to be used", () => {
    const nonces = createNonceManager({ clock: testClock(100), after: 500n });
    expect(nonces.next()).toBe("501");
  });

  it("never hands out 0, which the service refuses", () => {
    expect(createNonceManager({ clock: testClock(0) }).next()).toBe("1");
  });

  it("refuses a clock that is not a non-negative safe integer of microseconds", () => {
    for (const bad of [1.5, -1, Number.NaN, 2 ** 53]) {
      expect(() => createNonceManager({ clock: testClock(bad) }).next()).toThrow(ClientConfigError);
    }
  });

  it("refuses to go beyond uint64, which cancels sign the nonce as", () => {
    const nonces = createNonceManager({ clock: testClock(0), after: NONCE_MAX - 1n });
    expect(nonces.next()).toBe(NONCE_MAX.toString());
    expect(() => nonces.next()).toThrow(ClientConfigError);
  });

  it("is strictly increasing and never below the clock, whatever the clock does", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 52 }), { minLength: 1, maxLength: 50 }), (readings) => {
        const clock = testClock(0);
        const nonces = createNonceManager({ clock });
        let previous = 0n;
        for (const reading of readings) {
          clock.micros = reading;
          const nonce = BigInt(nonces.next());
          expect(nonce > previous).toBe(true);
          expect(nonce >= BigInt(reading)).toBe(true);
          previous = nonce;
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe("nonces of a client", () => {
  it("strictly increase across all five operations under a frozen clock", async () => {
    const { client, transport } = testClient();
    await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "GTC" });
    await client.modifyOrder({ orderId: "1001", symbol: "ETHPERP", isBuy: true, qty: "2", limitPx: "1", timeInForce: "GTC", postOnly: false });
    await client.cancelOrder({ symbol: "ETHPERP", orderId: "1001" });
    await client.cancelAll();
    await client.cancelAllAfter({ timeoutMs: 10_000 });
    const nonces = transport.calls.map((call) => BigInt(call.body.nonce));
    expect(nonces).toEqual([0n, 1n, 2n, 3n, 4n].map((step) => BigInt(T0_MICROS) + step));
  });

  it("stay strictly increasing across clients that share the signer's manager", async () => {
    const clock = testClock();
    const shared = createNonceManager({ clock });
    const a = testClient({ clock, nonceManager: shared, accountId: 1 });
    const b = testClient({ clock, nonceManager: shared, accountId: 2 });
    await a.client.cancelAll();
    await b.client.cancelAll();
    await a.client.cancelAll();
    const nonces = [...a.transport.calls, ...b.transport.calls].map((call) => BigInt(call.body.nonce)).sort((x, y) => (x < y ? -1 : 1));
    expect(new Set(nonces).size).toBe(3);
    expect(BigInt(b.transport.body(0).nonce as string)).toBe(BigInt(a.transport.body(0).nonce as string) + 1n);
  });
});
