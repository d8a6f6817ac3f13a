/**
 * Shared pieces of the client tests: the reference key, a market directory,
 * a settable clock, and an in-memory transport that records every request
 * and answers from a script.
 */
import type { Hex } from "viem";
import { createClient, type Client, type CreateClientParameters } from "../../src/client/client.ts";
import { createMarketDirectory } from "../../src/client/markets.ts";
import type { OrderEntryOperation, OrderEntryRequestBodies, OrderEntryResponse, OrderEntryTransport } from "../../src/client/transport.ts";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";

/** The key and address of reference/signing.md's test vectors. */
export const KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

export const ACCOUNT_ID = 12345;
/** Virtual time of most tests: a non-round microsecond, so flooring to seconds is visible. */
export const T0_MICROS = 1_718_000_000_123_456;
export const T0_SECONDS = 1_718_000_000;
export const DAY_SECONDS = 86_400;
export const RESTING_SECONDS = 365 * DAY_SECONDS;

export const SIGNATURE = /^0x[0-9a-f]{130}$/;

export const PERP_ID = 1;
export const SPOT_ID = 5;

export const markets = createMarketDirectory({
  perp: [
    { symbol: "ETHPERP", marketId: PERP_ID },
    { symbol: "BTCPERP", marketId: 2 },
  ],
  spot: [{ symbol: "WETHRUSD", marketId: SPOT_ID }],
});

export interface TestClock {
  micros: number;
  now(): number;
  advanceSeconds(seconds: number): void;
}

export function testClock(micros = T0_MICROS): TestClock {
  return {
    micros,
    now() {
      return this.micros;
    },
    advanceSeconds(seconds: number) {
      this.micros += seconds * MICROS_PER_SECOND;
    },
  };
}

export interface RecordedRequest<Op extends OrderEntryOperation = OrderEntryOperation> {
  operation: Op;
  body: OrderEntryRequestBodies[Op];
}

export type Responder = (operation: OrderEntryOperation, body: Record<string, unknown>, index: number) => OrderEntryResponse | Promise<OrderEntryResponse>;

/** A plausible success body for each operation, echoing the request. */
export function defaultPayload(operation: OrderEntryOperation, body: Record<string, unknown>): unknown {
  switch (operation) {
    case "createOrder":
      return { status: "OPEN", orderId: "1001", ...(body["clientOrderId"] === undefined ? {} : { clientOrderId: body["clientOrderId"] }) };
    case "modifyOrder":
      return { status: "OPEN", orderId: body["orderId"] ?? "1001" };
    case "cancelOrder":
      return { status: "CANCELLED", orderId: body["orderId"] ?? "1001" };
    case "cancelAll":
      return { cancelledCount: 3 };
    case "cancelAllAfter":
      return body["timeoutMs"] === 0
        ? { accountId: body["accountId"], timeoutMs: 0 }
        : { accountId: body["accountId"], timeoutMs: body["timeoutMs"], triggerAt: 1_718_000_030_000 };
  }
}

export const succeed: Responder = (operation, body) => ({ ok: true, payload: defaultPayload(operation, body) });

export interface FakeTransport extends OrderEntryTransport {
  readonly calls: RecordedRequest[];
  /** The body of the only (or the index-th) request. */
  body(index?: number): Record<string, unknown>;
}

export function fakeTransport(respond: Responder = succeed): FakeTransport {
  const calls: RecordedRequest[] = [];
  return {
    calls,
    request<Op extends OrderEntryOperation>(operation: Op, body: OrderEntryRequestBodies[Op]): Promise<OrderEntryResponse> {
      // A copy: what was on the wire at hand-off, whatever happens to the object later.
      const copy = structuredClone(body);
      calls.push({ operation, body: copy } as RecordedRequest);
      return Promise.resolve(respond(operation, copy as Record<string, unknown>, calls.length - 1));
    },
    body(index?: number) {
      if (index === undefined && calls.length !== 1) throw new Error(`expected exactly one request, got ${calls.length}`);
      const call = calls[index ?? 0];
      if (call === undefined) throw new Error(`no request ${index}`);
      return call.body as Record<string, unknown>;
    },
  };
}

/** A client on the reference key, ETHPERP/BTCPERP/WETHRUSD, a test clock, no retries unless asked. */
export function testClient(overrides: Partial<CreateClientParameters> = {}): {
  client: Client;
  transport: FakeTransport;
  clock: TestClock;
} {
  const transport = (overrides.transport as FakeTransport | undefined) ?? fakeTransport();
  const clock = (overrides.clock as TestClock | undefined) ?? testClock();
  const client = createClient({
    signer: KEY,
    accountId: ACCOUNT_ID,
    markets,
    retry: false,
    ...overrides,
    transport,
    clock,
  });
  return { client, transport, clock };
}
