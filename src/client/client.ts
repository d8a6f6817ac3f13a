/**
 * `createClient`: the order-entry client that agents and programs use. It
 * binds the five actions to one ClientContext (viem style: the actions are
 * free functions, the client only binds them).
 *
 * Everything that differs between a simulation and a live program is
 * injected, and nothing here reads a clock, Math.random or a timer:
 *
 * | injected  | in a simulation                  | in a live program              |
 * |-----------|----------------------------------|--------------------------------|
 * | transport | the in-process transport         | REST or WebSocket              |
 * | clock     | the kernel (virtual microseconds)| the wall-clock driver          |
 * | random    | a seeded Rng stream              | the driver's source            |
 * | sleep     | a scheduled wake-up              | a timer                        |
 *
 * Retries need `sleep` and `random`; a client without them must say
 * `retry: false`, so that no program runs without the backoff it believes it
 * has.
 */
import type { Address, Hex } from "viem";
import { DEFAULT_SIGNING_CONFIG, type SigningConfig } from "../signing/domain.ts";
import { cancelAll, type CancelAllParameters, type CancelAllReturnType } from "./actions/cancelAll.ts";
import { cancelAllAfter, type CancelAllAfterParameters, type CancelAllAfterReturnType } from "./actions/cancelAllAfter.ts";
import { cancelOrder, type CancelOrderParameters, type CancelOrderReturnType } from "./actions/cancelOrder.ts";
import { createOrder, type CreateOrderParameters, type CreateOrderReturnType } from "./actions/createOrder.ts";
import { modifyOrder, type ModifyOrderParameters, type ModifyOrderReturnType } from "./actions/modifyOrder.ts";
import type { ClientContext, RetryRuntime } from "./context.ts";
import { ClientConfigError } from "./errors.ts";
import type { MarketDirectory } from "./markets.ts";
import { createNonceManager, type Clock, type NonceManager } from "./nonce.ts";
import { retryPolicy, uniformOf, type RandomSource, type RetryPolicy, type Sleep } from "./retry.ts";
import { checkSigningConfig, privateKeySigner, type ClientSigner } from "./signer.ts";
import type { OrderEntryTransport } from "./transport.ts";

/** The exchange id of the reference test deployment (spec 4.2.1: "currently always 1"). */
export const DEFAULT_EXCHANGE_ID = 1;

export interface CreateClientParameters {
  transport: OrderEntryTransport;
  /** A private key (0x and 64 hex digits), signed with the fast signer when available, else viem; or a signer. */
  signer: Hex | ClientSigner;
  accountId: number;
  markets: MarketDirectory;
  clock: Clock;
  /**
   * The signing domain and chain. With a private key: the config to sign
   * under (default: the devnet deployment). With a signer: optional, and
   * then it must be the signer's own config.
   */
  signing?: SigningConfig;
  /** Default 1. */
  exchangeId?: number;
  /** The signer's nonce manager, shared by every client of the same signer. Default: a new one on `clock`. */
  nonceManager?: NonceManager;
  /** The retry policy (overrides of DEFAULT_RETRY_POLICY), or false for none. Default: the default policy. */
  retry?: Partial<RetryPolicy> | false;
  /** Waits between retries; required unless retry is false. */
  sleep?: Sleep;
  /** Jitter of the retries; required unless retry is false. */
  random?: RandomSource;
}

export interface Client extends ClientContext {
  createOrder(parameters: CreateOrderParameters): Promise<CreateOrderReturnType>;
  modifyOrder(parameters: ModifyOrderParameters): Promise<ModifyOrderReturnType>;
  cancelOrder(parameters: CancelOrderParameters): Promise<CancelOrderReturnType>;
  cancelAll(parameters?: CancelAllParameters): Promise<CancelAllReturnType>;
  cancelAllAfter(parameters: CancelAllAfterParameters): Promise<CancelAllAfterReturnType>;
}

function sameConfig(a: SigningConfig, b: SigningConfig): boolean {
  return (
    a.name === b.name &&
    a.version === b.version &&
    a.verifyingContract.toLowerCase() === b.verifyingContract.toLowerCase() &&
    a.verifyingChainId === b.verifyingChainId
  );
}

function resolveSigner(parameters: CreateClientParameters): ClientSigner {
  const { signer, signing } = parameters;
  if (typeof signer === "string") return privateKeySigner(signer, { config: signing ?? DEFAULT_SIGNING_CONFIG });
  checkSigningConfig(signer.config);
  if (signing !== undefined && !sameConfig(signing, signer.config)) {
    throw new ClientConfigError("signing config differs from the signer's config: the domain and the signed chain id must agree");
  }
  return signer;
}

function resolveRetry(parameters: CreateClientParameters): RetryRuntime | undefined {
  if (parameters.retry === false) return undefined;
  const policy = retryPolicy(parameters.retry ?? {});
  if (policy.maxAttempts === 1) return undefined;
  if (parameters.sleep === undefined) throw new ClientConfigError("retry needs sleep: pass sleep, or retry: false");
  if (parameters.random === undefined) throw new ClientConfigError("retry needs random for its jitter: pass random, or retry: false");
  return Object.freeze({ policy, sleep: parameters.sleep, random: uniformOf(parameters.random) });
}

function checkedId(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new ClientConfigError(`${name} "${value}" must be a non-negative safe integer`);
  return value;
}

export function createClient(parameters: CreateClientParameters): Client {
  const signer = resolveSigner(parameters);
  const context: ClientContext = Object.freeze({
    address: signer.address as Address,
    accountId: checkedId("accountId", parameters.accountId),
    exchangeId: checkedId("exchangeId", parameters.exchangeId ?? DEFAULT_EXCHANGE_ID),
    markets: parameters.markets,
    signer,
    transport: parameters.transport,
    clock: parameters.clock,
    nonces: parameters.nonceManager ?? createNonceManager({ clock: parameters.clock }),
    retry: resolveRetry(parameters),
  });
  return Object.freeze({
    ...context,
    createOrder: (p: CreateOrderParameters) => createOrder(context, p),
    modifyOrder: (p: ModifyOrderParameters) => modifyOrder(context, p),
    cancelOrder: (p: CancelOrderParameters) => cancelOrder(context, p),
    cancelAll: (p: CancelAllParameters = {}) => cancelAll(context, p),
    cancelAllAfter: (p: CancelAllAfterParameters) => cancelAllAfter(context, p),
  });
}
