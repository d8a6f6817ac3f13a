/**
 * Nonces: one strictly increasing counter per signer, shared by all five
 * operations (spec 5.9, reference/signing.md). The service refuses a nonce
 * that is not above the highest one it accepted from the signer, and a nonce
 * is single-use: a retried request is re-signed with a fresh one.
 *
 * `next()` is what the official clients do: max(now in microseconds,
 * last + 1). Microseconds keep nonces increasing across restarts of a
 * program (as long as the clock does not go back), and `last + 1` keeps them
 * strictly increasing within one microsecond or under a frozen clock (a
 * simulation with several requests at one virtual instant).
 *
 * One manager per signer: clients that share a signer (several accounts, one
 * wallet) must share its manager (createClient's `nonceManager`), or their
 * nonces can collide within a microsecond.
 *
 * The clock is injected (`now(): Micros`), so the manager reads no wall
 * clock and runs inside the deterministic simulator.
 */
import type { Micros } from "../core/time.ts";
import { ClientConfigError } from "./errors.ts";

/** What the SDK reads the time from: virtual time in a simulation, the wall clock in a live program. */
export interface Clock {
  /** Microseconds since the Unix epoch, a safe integer. */
  now(): Micros;
}

export interface NonceManager {
  /** The next nonce, as the decimal string the wire carries. */
  next(): string;
  /** The last nonce handed out, or undefined before the first. */
  readonly last: bigint | undefined;
}

export interface CreateNonceManagerParameters {
  clock: Clock;
  /**
   * A nonce known to be used already (for example the highest one this
   * signer used in an earlier run): every nonce handed out is above it.
   */
  after?: bigint;
}

/** The largest nonce the cancel family can sign (its nonce is uint64), and so the largest any operation may use. */
export const NONCE_MAX = (1n << 64n) - 1n;

export function createNonceManager(parameters: CreateNonceManagerParameters): NonceManager {
  const { clock } = parameters;
  if (parameters.after !== undefined && (parameters.after < 0n || parameters.after >= NONCE_MAX)) {
    throw new ClientConfigError(`nonce manager after "${parameters.after}" is outside [0, ${NONCE_MAX})`);
  }
  let last: bigint | undefined = parameters.after;
  return {
    next(): string {
      const now = clock.now();
      if (!Number.isSafeInteger(now) || now < 0) {
        throw new ClientConfigError(`clock now "${now}" is not a non-negative safe integer of microseconds`);
      }
      const fromClock = BigInt(now);
      const nonce = last === undefined || fromClock > last ? fromClock : last + 1n;
      // Nonce 0 is refused by the service; a clock at the epoch still gives 1.
      const issued = nonce === 0n ? 1n : nonce;
      if (issued > NONCE_MAX) throw new ClientConfigError(`nonce "${issued}" is beyond the uint64 range that cancels sign`);
      last = issued;
      return issued.toString();
    },
    get last(): bigint | undefined {
      return last;
    },
  };
}
