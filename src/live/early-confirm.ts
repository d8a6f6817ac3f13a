/**
 * Signature checks started when a frame arrives and finished off the main
 * thread, for the live order-entry surface in signed mode (exec.ts).
 *
 * Of the main thread's ~125 µs per signed request, the comb verifier's check
 * was ~30 µs (known-signers.ts), the largest single part. Here, as a frame
 * is read, its request is validated (the gateway's own structure stage,
 * validateRequest), the message it signs is built and hashed, and, when the
 * signer it names (or its account's last signer) has a comb table, the check
 * goes to the add-on's confirmer thread (verify.ts, `confirmSignerLater`).
 * Its answer comes back on the main thread as a PrecomputedRecovery, which
 * the gateway uses only if it is the recovery of exactly the message and
 * signature it builds itself (authenticate.ts): answers are the same byte for
 * byte as when the gateway checks inline, and a replay that checks inline
 * gives the same outputs. The recovery carries the structure stage's answer
 * too (for this very payload object and the Exchange's own validation
 * context), so the gateway neither validates the request nor builds its
 * message a second time. A frame this cannot start (it does not validate, no
 * table yet, no expected signer) is checked inline by the gateway, as before.
 *
 * The request waits in the exec queue until its answer is back, and holds
 * the ones behind it, so the order never changes (exec.ts).
 */
import { signedMessage, type PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import { validateRequest } from "../exchange/gateway/validate/structure.ts";
import type { ValidatedRequest, ValidationContext } from "../exchange/gateway/validate/types.ts";
import type { SigningConfig } from "../signing/domain.ts";
import type { SignedKind, SignedMessages } from "../signing/types.ts";
import { confirmSignerLater, verifyPath } from "../signing/verify.ts";
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";

/** Accounts whose last signer is remembered (a hint for requests without a signerWallet); past it, the hints start afresh. */
const LAST_SIGNERS_MAX = 10_000;

export class EarlyConfirm {
  /** Each account's signer last confirmed here: whom a cancel without a signerWallet is expected from (a hint: speed only). */
  private readonly lastSigners = new Map<number, string>();

  constructor(
    private readonly context: ValidationContext,
    private readonly signing: SigningConfig,
  ) {}

  /**
   * Starts the check of a request's signature; true when started, and then
   * `done` is called later, on this thread, with the recovery for the
   * gateway (undefined: the gateway recovers inline). False when nothing was
   * started (`done` is never called). Never throws for what a client sends.
   */
  start(op: OrderEntryOperation, payload: unknown, done: (recovery: PrecomputedRecovery | undefined) => void): boolean {
    let kind: SignedKind;
    let message: SignedMessages[SignedKind];
    let signature: string;
    let accountId: number;
    let expected: string | undefined;
    let value: ValidatedRequest;
    try {
      const validated = validateRequest(op, payload, this.context);
      if (!validated.ok) return false;
      value = validated.value;
      ({ kind, message } = signedMessage(value, this.signing));
      signature = value.signature;
      accountId = value.accountId;
      expected = "signerWallet" in value ? value.signerWallet : this.lastSigners.get(accountId);
    } catch {
      return false; // a message the gateway would refuse while building it: it answers that inline
    }
    if (expected === undefined) return false;
    const path = verifyPath();
    const config = this.signing;
    return confirmSignerLater(kind, message, signature, config, expected, (address) => {
      if (address === undefined) {
        done(undefined);
        return;
      }
      if (this.lastSigners.size >= LAST_SIGNERS_MAX && !this.lastSigners.has(accountId)) this.lastSigners.clear();
      this.lastSigners.set(accountId, address);
      done({ path, kind, message, signature, config, result: { ok: true, address }, validated: { op, body: payload, context: this.context, value } });
    });
  }
}
