/**
 * Order entry below the SDK's conveniences, for agents that probe the
 * service (agents/chaos.ts):
 *
 * - `noRetryClient`: the agent's client without the retry policy, so a
 *   RATE_LIMITED_ERROR comes back as it is instead of being waited out. It
 *   shares the agent's transport, signer and nonce manager, so its nonces
 *   stay in order with the agent's other requests.
 * - `sendTampered`: builds and signs a valid createOrder with the SDK's own
 *   plan, then changes fields of the body before it is sent (an unknown
 *   symbol, a malformed decimal, a stale nonce): what a buggy or hostile
 *   client puts on the wire. The signature is that of the untampered order,
 *   which does not matter for the rejections probed here (schema and symbol
 *   checks come before the signature check, DESIGN.md "Errors and bad input").
 */
import { createOrderPlan, type CreateOrderParameters } from "../../src/client/actions/createOrder.ts";
import { createClient, type Client } from "../../src/client/client.ts";
import type { OrderEntryResponse } from "../../src/client/transport.ts";
import type { CreateOrderRequest } from "../../src/spec/requests.ts";
import type { AgentContext } from "../../src/sim/agent.ts";

export function noRetryClient(ctx: Pick<AgentContext<unknown>, "client">): Client {
  const client = ctx.client;
  return createClient({
    transport: client.transport,
    signer: client.signer,
    accountId: client.accountId,
    markets: client.markets,
    clock: client.clock,
    exchangeId: client.exchangeId,
    nonceManager: client.nonces,
    retry: false,
  });
}

/** A body field by field, as the tamper function may rewrite it. */
export type LooseBody = Record<string, unknown>;

/** What came back for a raw request: "ok", or the RequestErrorCode. */
export function outcomeOf(response: OrderEntryResponse): string {
  if (response.ok) return "ok";
  const error = response.error as { error?: unknown } | null;
  return typeof error?.error === "string" ? error.error : "unreadable";
}

/**
 * A signed createOrder body for `parameters`, with a fresh nonce, exactly as
 * the SDK would send it (its own plan builds and signs it).
 */
export function signedCreateBody(client: Client, parameters: CreateOrderParameters): CreateOrderRequest | Promise<CreateOrderRequest> {
  const plan = createOrderPlan(client, parameters);
  const { body, signed } = plan.build({ nowMicros: client.clock.now(), nonce: client.nonces.next() });
  if (signed.kind !== "Order") throw new TypeError(`createOrder signs an Order, not ${signed.kind}`);
  const signature = client.signer.sign("Order", signed.message);
  // A synchronous signer lets the caller send within this call, at this virtual time, like the SDK does.
  if (typeof signature === "string") return { ...body, signature };
  return signature.then((value) => ({ ...body, signature: value }));
}

/** Sends `parameters` as a createOrder body changed by `tamper`; resolves with the raw answer. */
export async function sendTampered(client: Client, parameters: CreateOrderParameters, tamper: (body: LooseBody) => LooseBody): Promise<OrderEntryResponse> {
  const signed = signedCreateBody(client, parameters);
  const body = signed instanceof Promise ? await signed : signed;
  return client.transport.request("createOrder", tamper({ ...body }) as unknown as CreateOrderRequest);
}

/** Sends one signed createOrder body twice, back to back (a replay); resolves with both raw answers. */
export async function sendTwice(client: Client, parameters: CreateOrderParameters): Promise<[OrderEntryResponse, OrderEntryResponse]> {
  const signed = signedCreateBody(client, parameters);
  const body = signed instanceof Promise ? await signed : signed;
  return Promise.all([client.transport.request("createOrder", body), client.transport.request("createOrder", { ...body })]);
}
