/**
 * When and after how long a rejected request is retried.
 *
 * Retried codes, and only these:
 * - RATE_LIMITED_ERROR: wait at least `retryAfterMs` (spec 7.1: a minimum
 *   wait that reserves no capacity), plus jitter, so that clients limited at
 *   the same moment do not come back at the same moment (spec 8.1,
 *   "Recovery"). Without retryAfterMs the floor is `baseDelayMs`.
 * - UNAVAILABLE_MATCHING_ENGINE_ERROR, UNAVAILABLE_ACCOUNT_OWNER_ERROR:
 *   transient (spec 7.3), retried after the jitter alone.
 * - INVALID_NONCE_ERROR, only when the refused nonce was overtaken: this
 *   client handed out a higher nonce since (`nonceOvertaken`), so a later
 *   request may have reached the service first and raised the signer's
 *   counter past it (concurrent REST requests travel on separate
 *   connections, and their order of arrival is not their order of
 *   signing). Retried after the jitter alone, re-signed with a fresh nonce.
 *   A refusal of the newest nonce (another program using the signer, a
 *   nonce manager that started too low) is final.
 * Every other code, and every code this SDK does not know, is final.
 *
 * Jitter is "full jitter" over a capped exponential backoff: after the n-th
 * failed attempt, a whole number of ms drawn uniformly from
 * [0, min(maxDelayMs, baseDelayMs * 2^(n-1))].
 *
 * Why retrying is safe, and what is never retried: a RequestError means the
 * request was rejected and changed nothing, so it is re-signed with a fresh
 * nonce (a nonce is single-use) and sent again; a create keeps its
 * clientOrderId. A request whose response was lost (the transport threw) is
 * NOT retried: it may have been processed, and the service does not
 * de-duplicate by clientOrderId on order entry (spec 4.2.1), so a blind
 * resend could place a second order. Verify through openOrders or
 * perpExecutions first (spec 4.3).
 *
 * Time and randomness are injected: `sleep` waits (virtual time in a
 * simulation), `random` draws the jitter (a seeded Rng stream in a
 * simulation). Nothing here reads a clock or Math.random.
 */
import type { RequestErrorCode } from "../spec/errors.ts";
import { ClientConfigError } from "./errors.ts";
import type { TolerantRequestError } from "./decode.ts";

export interface RetryPolicy {
  /** Attempts in all, the first included: 1 never retries. */
  readonly maxAttempts: number;
  /** The backoff after the first failed attempt, and the floor of a RATE_LIMITED_ERROR without retryAfterMs. */
  readonly baseDelayMs: number;
  /** The cap of the exponential backoff. */
  readonly maxDelayMs: number;
  /** A retryAfterMs above this is not waited for: the error is thrown instead. */
  readonly retryAfterMsMax: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  // The rate window is 60 s (spec 8.1): no legitimate wait is longer.
  retryAfterMsMax: 60_000,
});

/** The codes that are retried (see above). */
export const RETRYABLE_ERROR_CODES: readonly RequestErrorCode[] = Object.freeze([
  "RATE_LIMITED_ERROR",
  "UNAVAILABLE_MATCHING_ENGINE_ERROR",
  "UNAVAILABLE_ACCOUNT_OWNER_ERROR",
]);

/** Waits `ms` milliseconds: a timer in a live program, a scheduled event in a simulation. */
export type Sleep = (ms: number) => Promise<void>;

/** A uniform draw in [0, 1): a function, or anything with `uniform()` (an Rng stream of src/core/rng.ts). */
export type RandomSource = (() => number) | { uniform(): number };

export function uniformOf(source: RandomSource): () => number {
  const draw = typeof source === "function" ? source : () => source.uniform();
  return () => {
    const value = draw();
    if (!(value >= 0 && value < 1)) throw new ClientConfigError(`random source returned "${value}", not a number in [0, 1)`);
    return value;
  };
}

function requireWholeMs(value: number, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new ClientConfigError(`retry ${name} "${value}" must be an integer >= ${min}`);
}

/** The defaults with `overrides` applied, checked. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  requireWholeMs(policy.maxAttempts, "maxAttempts", 1);
  requireWholeMs(policy.baseDelayMs, "baseDelayMs", 1);
  requireWholeMs(policy.maxDelayMs, "maxDelayMs", 1);
  requireWholeMs(policy.retryAfterMsMax, "retryAfterMsMax", 0);
  if (policy.baseDelayMs > policy.maxDelayMs) {
    throw new ClientConfigError(`retry baseDelayMs "${policy.baseDelayMs}" must not exceed maxDelayMs "${policy.maxDelayMs}"`);
  }
  return Object.freeze(policy);
}

export function isRetryableError(code: string): boolean {
  return (RETRYABLE_ERROR_CODES as readonly string[]).includes(code);
}

/** The jitter bound after the `attempt`-th failed attempt (1-based): min(maxDelayMs, baseDelayMs * 2^(attempt-1)). */
export function backoffCapMs(policy: RetryPolicy, attempt: number): number {
  // 2^31 times any base is beyond every cap: stop doubling before it overflows.
  const exponent = Math.min(attempt - 1, 31);
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
}

/**
 * How long to wait before attempt `attempt + 1`, after attempt `attempt`
 * (1-based) failed with `error`; undefined when it must not be retried.
 * `nonceOvertaken`: the attempt's nonce is below one the client handed out
 * since (see above). Draws one uniform, only when it retries.
 */
export function retryDelayMs(policy: RetryPolicy, error: TolerantRequestError, attempt: number, random: () => number, nonceOvertaken = false): number | undefined {
  if (!isRetryableError(error.error) && !(nonceOvertaken && error.error === "INVALID_NONCE_ERROR")) return undefined;
  if (attempt >= policy.maxAttempts) return undefined;
  let floorMs = 0;
  if (error.error === "RATE_LIMITED_ERROR") {
    floorMs = error.retryAfterMs ?? policy.baseDelayMs;
    if (floorMs > policy.retryAfterMsMax) return undefined;
  }
  const jitterMs = Math.floor(random() * (backoffCapMs(policy, attempt) + 1));
  return floorMs + jitterMs;
}
