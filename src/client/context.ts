/**
 * What every action reads: the client's identity, markets, signer,
 * transport, clock, nonces and retry policy. `createClient` builds it (and
 * binds the actions to it); the actions are free functions of it, viem
 * style, so they can be called and tested without a client object.
 */
import type { Address } from "viem";
import type { MarketDirectory } from "./markets.ts";
import type { Clock, NonceManager } from "./nonce.ts";
import type { RetryPolicy, Sleep } from "./retry.ts";
import type { ClientSigner } from "./signer.ts";
import type { OrderEntryTransport } from "./transport.ts";

/** The retry policy with what it needs to run: a way to wait and a jitter source. */
export interface RetryRuntime {
  readonly policy: RetryPolicy;
  readonly sleep: Sleep;
  /** Uniform in [0, 1). */
  readonly random: () => number;
}

export interface ClientContext {
  /** The signer's address: signerWallet of every request that carries one. */
  readonly address: Address;
  readonly accountId: number;
  readonly exchangeId: number;
  readonly markets: MarketDirectory;
  readonly signer: ClientSigner;
  readonly transport: OrderEntryTransport;
  readonly clock: Clock;
  readonly nonces: NonceManager;
  /** Undefined: no request is retried. */
  readonly retry: RetryRuntime | undefined;
}
