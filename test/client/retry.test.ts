import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClientConfigError, RequestFailedError, TransportFailedError } from "../../src/client/errors.ts";
import {
  backoffCapMs,
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  retryDelayMs,
  retryPolicy,
  type RandomSource,
} from "../../src/client/retry.ts";
import type { CreateClientParameters } from "../../src/client/client.ts";
import { RngRoot } from "../../src/core/rng.ts";
import { orderMessage } from "../../src/signing/messages.ts";
import { recoverSignerNative } from "../../src/signing/verify.ts";
import type { OrderBody } from "../../src/signing/wire.ts";
import { ADDRESS, fakeTransport, PERP_ID, succeed, T0_SECONDS, testClient, testClock, type Responder } from "./fixtures.ts";

const RATE_LIMITED = { error: "RATE_LIMITED_ERROR", message: "createOrder and cancelOrder: 30 per 60 s exceeded", retryAfterMs: 1_500 };

/** Fails the first `failures` requests with `error`, then succeeds. */
function failing(error: unknown, failures = Number.POSITIVE_INFINITY): Responder {
  return (operation, body, index) => (index < failures ? { ok: false, error } : succeed(operation, body, index));
}

/** A client whose sleeps are recorded and advance the test clock, so that time passes as it would. */
function retryingClient(respond: Responder, options: Partial<CreateClientParameters> & { uniform?: number } = {}) {
  const clock = testClock();
  const waits: number[] = [];
  const { uniform = 0.5, ...overrides } = options;
  const random: RandomSource = () => uniform;
  const setup = testClient({
    transport: fakeTransport(respond),
    clock,
    retry: {},
    random,
    sleep: (ms) => {
      waits.push(ms);
      clock.micros += ms * 1_000;
      return Promise.resolve();
    },
    ...overrides,
  });
  return { ...setup, waits };
}

const GTC = { symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC", clientOrderId: "31" } as const;

describe("retry of RATE_LIMITED_ERROR", () => {
  it("waits at least retryAfterMs plus jitter, re-signs with a fresh nonce and the same clientOrderId", async () => {
    const { client, transport, waits } = retryingClient(failing(RATE_LIMITED, 1));
    const response = await client.createOrder(GTC);
    expect(response.orderId).toBe("1001");
    // retryAfterMs + floor(0.5 * (min(8000, 250 * 2^0) + 1)) = 1500 + 125.
    expect(waits).toEqual([1_625]);
    expect(transport.calls).toHaveLength(2);
    const [first, second] = [transport.body(0), transport.body(1)];
    expect(BigInt(second["nonce"] as string)).toBeGreaterThan(BigInt(first["nonce"] as string));
    expect(second["signature"]).not.toBe(first["signature"]);
    expect(second["clientOrderId"]).toBe("31");
    for (const body of [first, second]) {
      const result = recoverSignerNative("Order", orderMessage(body as unknown as OrderBody, { marketId: BigInt(PERP_ID), isSpot: false }), body["signature"] as string);
      expect(result).toEqual({ ok: true, address: ADDRESS });
    }
  });

  it("stops after maxAttempts and throws the last RequestError", async () => {
    const { client, transport, waits } = retryingClient(failing(RATE_LIMITED), { retry: { maxAttempts: 3 } });
    const failure = await client.createOrder(GTC).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestFailedError);
    expect(failure).toMatchObject({ code: "RATE_LIMITED_ERROR", retryAfterMs: 1_500, attempts: 3, operation: "createOrder" });
    expect((failure as RequestFailedError).shortMessage).toBe("createOrder was rejected with RATE_LIMITED_ERROR after 3 attempts");
    expect(transport.calls).toHaveLength(3);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1_500);
  });

  it("floors at baseDelayMs when retryAfterMs is missing", async () => {
    const { client, waits } = retryingClient(failing({ error: "RATE_LIMITED_ERROR", message: "slow down" }, 1), { uniform: 0 });
    await client.cancelAll();
    expect(waits).toEqual([DEFAULT_RETRY_POLICY.baseDelayMs]);
  });

  it("gives up rather than wait beyond retryAfterMsMax", async () => {
    const { client, transport, waits } = retryingClient(failing({ ...RATE_LIMITED, retryAfterMs: 120_000 }));
    await expect(client.cancelAll()).rejects.toMatchObject({ code: "RATE_LIMITED_ERROR", attempts: 1 });
    expect(transport.calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("recomputes a default deadline from the clock at the retry", async () => {
    const { client, transport } = retryingClient(failing({ ...RATE_LIMITED, retryAfterMs: 30_000 }, 1), { uniform: 0 });
    await client.cancelOrder({ symbol: "ETHPERP", orderId: "5" });
    expect(transport.body(0)["deadline"]).toBe(T0_SECONDS + 60);
    expect(transport.body(1)["deadline"]).toBe(T0_SECONDS + 30 + 60);
  });
});

describe("retry of transient errors", () => {
  it.each(["UNAVAILABLE_MATCHING_ENGINE_ERROR", "UNAVAILABLE_ACCOUNT_OWNER_ERROR"])("retries %s with capped exponential full jitter", async (code) => {
    const { client, transport, waits } = retryingClient(failing({ error: code, message: "try again" }, 3), { uniform: 0.9999 });
    await client.cancelAllAfter({ timeoutMs: 10_000 });
    expect(transport.calls).toHaveLength(4);
    // floor(0.9999 * (cap + 1)) with caps 250, 500, 1000.
    expect(waits).toEqual([250, 500, 1_000]);
  });
});

/**
 * A service's nonce check (spec 7.3: a nonce not above the highest accepted is refused) behind a transport
 * whose first request is slow on its connection: the second, signed later with a higher nonce, arrives first.
 */
function reorderingService(): { respond: Responder; accepted: bigint[] } {
  let highest = 0n;
  const accepted: bigint[] = [];
  let releaseFirst: () => void = () => undefined;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  const respond: Responder = async (operation, body, index) => {
    if (index === 0) await firstHeld;
    const nonce = BigInt(body["nonce"] as string);
    if (index === 1) releaseFirst();
    if (nonce <= highest) return { ok: false, error: { error: "INVALID_NONCE_ERROR", message: `nonce ${nonce} is not greater than the last accepted nonce ${highest}` } };
    highest = nonce;
    accepted.push(nonce);
    return succeed(operation, body, index);
  };
  return { respond, accepted };
}

describe("retry of INVALID_NONCE_ERROR", () => {
  it("retries a nonce a later request of the client overtook, re-signed with a fresh nonce: both requests go through", async () => {
    const service = reorderingService();
    const { client, transport, waits } = retryingClient(service.respond);
    const [first, second] = await Promise.all([client.createOrder(GTC), client.cancelAll()]);
    expect(first.orderId).toBeDefined();
    expect(second).toBeDefined();
    expect(transport.calls.map((call) => call.operation)).toEqual(["createOrder", "cancelAll", "createOrder"]);
    const nonces = [0, 1, 2].map((index) => BigInt(transport.body(index)["nonce"] as string));
    expect(service.accepted).toEqual([nonces[1], nonces[2]]);
    expect(nonces[2]).toBeGreaterThan(nonces[1]!);
    // The jitter alone: floor(0.5 * (250 + 1)).
    expect(waits).toEqual([125]);
  });

  it("does not retry a refusal of the newest nonce it handed out (the signer's counter is ahead of this client)", async () => {
    const { client, transport, waits } = retryingClient(failing({ error: "INVALID_NONCE_ERROR", message: "nonce 5 is not greater than the last accepted nonce 9" }));
    await expect(client.createOrder(GTC)).rejects.toMatchObject({ code: "INVALID_NONCE_ERROR", attempts: 1 });
    expect(transport.calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe("what is never retried", () => {
  it("never retries INPUT_VALIDATION_ERROR", async () => {
    const { client, transport, waits } = retryingClient(failing({ error: "INPUT_VALIDATION_ERROR", message: "qty is required" }));
    const failure = await client.createOrder(GTC).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestFailedError);
    expect(failure).toMatchObject({ code: "INPUT_VALIDATION_ERROR", attempts: 1 });
    expect((failure as RequestFailedError).shortMessage).toBe("createOrder was rejected with INPUT_VALIDATION_ERROR");
    expect(transport.calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("never retries a code it does not know, and reports it as sent", async () => {
    const { client, transport } = retryingClient(failing({ error: "SOME_FUTURE_ERROR", message: "new in 3.6", hint: "extra" }));
    const failure = await client.cancelAll().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "SOME_FUTURE_ERROR", requestError: { hint: "extra" } });
    expect(transport.calls).toHaveLength(1);
  });

  it("never resends when the transport throws: the outcome is unknown", async () => {
    const { client, transport, waits } = retryingClient(() => Promise.reject(new Error("socket hang up")));
    const failure = await client.createOrder(GTC).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportFailedError);
    expect((failure as TransportFailedError).walk()).toMatchObject({ message: "socket hang up" });
    expect(transport.calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("does not retry at all with retry: false", async () => {
    const { client, transport } = testClient({ transport: fakeTransport(failing(RATE_LIMITED)), retry: false });
    await expect(client.cancelAll()).rejects.toMatchObject({ code: "RATE_LIMITED_ERROR", attempts: 1 });
    expect(transport.calls).toHaveLength(1);
  });
});

describe("retry configuration", () => {
  it("requires sleep and random unless retry is false", () => {
    expect(() => testClient({ retry: {}, random: () => 0 })).toThrow(new ClientConfigError("retry needs sleep: pass sleep, or retry: false"));
    expect(() => testClient({ retry: {}, sleep: () => Promise.resolve() })).toThrow(ClientConfigError);
    expect(() => testClient({ retry: { maxAttempts: 1 } })).not.toThrow();
  });

  it("refuses an inconsistent policy", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(ClientConfigError);
    expect(() => retryPolicy({ baseDelayMs: 10_000, maxDelayMs: 5_000 })).toThrow(ClientConfigError);
  });

  it("draws its jitter from a seeded Rng stream, reproducibly", async () => {
    const run = async () => {
      const stream = new RngRoot(7).stream("agent:mm-1");
      const { client, waits } = retryingClient(failing({ error: "UNAVAILABLE_MATCHING_ENGINE_ERROR", message: "busy" }, 3), { random: stream });
      await client.cancelAll();
      return waits;
    };
    const first = await run();
    expect(first).toHaveLength(3);
    expect(await run()).toEqual(first);
  });

  it("refuses a random source outside [0, 1)", async () => {
    const { client } = retryingClient(failing(RATE_LIMITED, 1), { random: () => 1 });
    await expect(client.cancelAll()).rejects.toBeInstanceOf(ClientConfigError);
  });
});

describe("retryDelayMs", () => {
  it("lies in [floor, floor + cap] with the cap doubling up to maxDelayMs", () => {
    const policy = retryPolicy({ maxAttempts: 20 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 19 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined }),
        (attempt, u, retryAfterMs) => {
          const error = retryAfterMs === undefined ? { error: "RATE_LIMITED_ERROR", message: "" } : { error: "RATE_LIMITED_ERROR", message: "", retryAfterMs };
          const delay = retryDelayMs(policy, error, attempt, () => u);
          const floor = retryAfterMs ?? policy.baseDelayMs;
          const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
          expect(backoffCapMs(policy, attempt)).toBe(cap);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(floor);
          expect(delay).toBeLessThanOrEqual(floor + cap);
        },
      ),
      { seed: 42, numRuns: 500 },
    );
  });

  it("retries exactly the three documented codes (and INVALID_NONCE_ERROR only when overtaken)", () => {
    expect(isRetryableError("RATE_LIMITED_ERROR")).toBe(true);
    expect(isRetryableError("UNAVAILABLE_MATCHING_ENGINE_ERROR")).toBe(true);
    expect(isRetryableError("UNAVAILABLE_ACCOUNT_OWNER_ERROR")).toBe(true);
    for (const code of ["INPUT_VALIDATION_ERROR", "INVALID_NONCE_ERROR", "NO_PRICES_FOUND_FOR_SYMBOL_ERROR", "CAPACITY_LIMITED_ERROR", "X"]) {
      expect(isRetryableError(code)).toBe(false);
    }
    const refused = { error: "INVALID_NONCE_ERROR", message: "" };
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, refused, 1, () => 0.5)).toBeUndefined();
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, refused, 1, () => 0.5, true)).toBe(125);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, { error: "INPUT_VALIDATION_ERROR", message: "" }, 1, () => 0.5, true)).toBeUndefined();
  });
});
