/**
 * Signature checks started when a frame arrives and finished off the main
 * thread, for the live order-entry surface in signed mode (exec.ts).
 *
 * Of the main thread's ~125 µs per signed request, the comb verifier's check
 * was ~30 µs (known-signers.ts), the largest single part. Here, as a frame
 * is read, when the signer it names (or its account's likely signer, the
 * gateway's hint) has a comb table, its request is validated (the gateway's
 * own structure stage, validateRequest), the message it signs built and
 * hashed, and the check posted to the add-on's confirmer thread (verify.ts,
 * `confirmSignerLater`). Its answer comes back on the main thread as a
 * PrecomputedRecovery that carries the structure stage's answer as well
 * (`validated`: for this very payload object and the Exchange's own
 * validation context), so the gateway neither validates the request nor
 * builds its message a second time: it takes both as its own
 * (authenticate.ts says on what identity). The structure stage is a pure
 * function of the payload and the context, and the check answers yes only
 * when recovery would give that signer, so answers are the same byte for
 * byte as when the gateway checks inline, and a replay that checks inline
 * gives the same outputs.
 *
 * A frame this does not start (no table for its signer, no expected signer,
 * a request that does not validate, any failure here) is checked inline by
 * the gateway; only a frame whose signer has a table pays for the early
 * validation, and when its check then fails (not that signer's signature),
 * the gateway validates and recovers it again.
 *
 * The request waits in the exec queue until its answer is back, and holds
 * the ones behind it, so the order never changes (exec.ts).
 */
import { signedMessage, type PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import { validateRequest } from "../exchange/gateway/validate/structure.ts";
import type { ValidatedRequest, ValidationContext } from "../exchange/gateway/validate/types.ts";
import type { SigningConfig } from "../signing/domain.ts";
import type { SignedKind, SignedMessages } from "../signing/types.ts";
import { canConfirmSignerLater, confirmSignerLater, verifyPath } from "../signing/verify.ts";
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";

export class EarlyConfirm {
  /**
   * @param likelySigner whom a request of this account without a
   * signerWallet is likely signed by (the gateway's hint: speed only).
   */
  constructor(
    private readonly context: ValidationContext,
    private readonly signing: SigningConfig,
    private readonly likelySigner: (accountId: number) => string | undefined,
  ) {}

  /**
   * Starts the check of a request's signature; true when started, and then
   * `done` is called later, on this thread, with the recovery for the
   * gateway (undefined: the gateway recovers inline). False when nothing was
   * started (`done` is never called). Never throws.
   */
  start(op: OrderEntryOperation, payload: unknown, done: (recovery: PrecomputedRecovery | undefined) => void): boolean {
    if (!this.worthStarting(payload)) return false;
    let kind: SignedKind;
    let message: SignedMessages[SignedKind];
    let value: ValidatedRequest;
    let expected: string | undefined;
    try {
      const validated = validateRequest(op, payload, this.context);
      if (!validated.ok) return false;
      value = validated.value;
      ({ kind, message } = signedMessage(value, this.signing));
      expected = "signerWallet" in value ? value.signerWallet : this.likelySigner(value.accountId);
    } catch {
      return false; // a message the gateway would refuse while building it: it answers that inline
    }
    if (expected === undefined) return false;
    const path = verifyPath();
    const config = this.signing;
    const signature = value.signature;
    const validated = { op, body: payload, context: this.context, value };
    try {
      return confirmSignerLater(kind, message, signature, config, expected, (address) =>
        done(address === undefined ? undefined : { path, kind, message, signature, config, result: { ok: true, address }, validated }),
      );
    } catch {
      return false; // the confirmer could not start (threads, memory): the gateway checks inline
    }
  }

  /** Whether the signer a raw payload names, or its account's likely signer, has a table: else validating early would be work done twice. */
  private worthStarting(payload: unknown): boolean {
    if (typeof payload !== "object" || payload === null) return false;
    const { signerWallet, accountId } = payload as { signerWallet?: unknown; accountId?: unknown };
    const expected = typeof signerWallet === "string" ? signerWallet : typeof accountId === "number" ? this.likelySigner(accountId) : undefined;
    return expected !== undefined && canConfirmSignerLater(expected);
  }
}
