/**
 * A signature-recovery worker of the live order-entry surface (see
 * signer-pool.ts). It gets the markets, the exchangeId and the signing
 * configuration of the Exchange at start, then batches of raw order-entry
 * frames; for each, it validates the request as the gateway does, builds
 * the message it signs, and recovers the signer with the very function the
 * gateway calls (recoverSignerSync). A frame that does not validate, or
 * whose message cannot be built, gets null: the gateway rejects it before
 * the signature stage, or recovers inline.
 *
 * Everything here is advice the gateway checks: it uses a recovery only for
 * exactly the message, signature, configuration and verification path it
 * builds itself (authenticate.ts), so a worker that validated differently
 * costs time, never a different answer.
 */
import { parentPort, workerData } from "node:worker_threads";
import { signedMessage, type PrecomputedRecovery, type Validated } from "../exchange/gateway/authenticate.ts";
import { validateRequest } from "../exchange/gateway/validate/structure.ts";
import type { MarketRef, ValidationContext } from "../exchange/gateway/validate/types.ts";
import type { SigningConfig } from "../signing/domain.ts";
import { ORDER_ENTRY_OPERATIONS, type OrderEntryOperation } from "../spec/exec-envelopes.ts";
import { recoverSignerSync, verifyPath } from "../signing/verify.ts";

/** What the pool hands a worker at start. */
export interface SignerWorkerData {
  readonly exchangeId: number;
  readonly markets: readonly MarketRef[];
  readonly signing: SigningConfig;
}

/** Pool to worker: a batch of exec frames (the text as received). */
export interface RecoveryBatch {
  readonly batch: number;
  readonly frames: readonly string[];
}

/** A recovery as sent back: the config is the pool's own (the worker's is a copy of it). */
export type WorkerRecovery = Omit<PrecomputedRecovery, "config">;

/**
 * Worker to pool: `ready` once loaded, then the recoveries of each batch in
 * order, in chunks of REPLY_CHUNK frames (`offset` is the first frame's index
 * in its batch), so that the main thread can handle the first requests of a
 * batch while the later ones are still being recovered.
 */
export type WorkerReply =
  | { kind: "ready"; path: string }
  | { kind: "recovered"; batch: number; offset: number; recoveries: (WorkerRecovery | null)[] };

/** Frames per reply. */
export const REPLY_CHUNK = 4;

function validate(op: unknown, body: unknown, context: ValidationContext): Validated | null {
  if (typeof op !== "string" || !(ORDER_ENTRY_OPERATIONS as readonly string[]).includes(op)) return null;
  const validated = validateRequest(op as OrderEntryOperation, body, context);
  return validated.ok ? validated.value : null;
}

/**
 * The recovery of one frame's signature, or null when the gateway would not
 * reach the signature stage this way. `lastSigners` (account to its last
 * recovered signer) gives the hint for frames without a signerWallet, as
 * the gateway's own does (authenticate.ts: speed only).
 */
export function recoverFrame(text: string, context: ValidationContext, signing: SigningConfig, lastSigners?: Map<number, string>): WorkerRecovery | null {
  try {
    const frame = JSON.parse(text) as { type?: unknown; payload?: unknown } | null;
    if (typeof frame !== "object" || frame === null) return null;
    const value = validate(frame.type, frame.payload, context);
    if (value === null) return null;
    const built = signedMessage(value, signing);
    const expected = "signerWallet" in value ? value.signerWallet : lastSigners?.get(value.accountId);
    const result = recoverSignerSync(built.kind, built.message, value.signature, signing, expected);
    if (result.ok) lastSigners?.set(value.accountId, result.address);
    return {
      path: verifyPath(),
      kind: built.kind,
      message: built.message,
      signature: value.signature,
      result,
    };
  } catch {
    return null;
  }
}

function run(): void {
  const port = parentPort;
  if (port === null) return;
  const data = workerData as SignerWorkerData;
  const bySymbol = new Map(data.markets.map((market) => [market.symbol, market]));
  const context: ValidationContext = { exchangeId: data.exchangeId, markets: { bySymbol: (symbol) => bySymbol.get(symbol) } };
  const lastSigners = new Map<number, string>();
  port.on("message", (message: RecoveryBatch) => {
    const { batch, frames } = message;
    for (let offset = 0; offset < frames.length; offset += REPLY_CHUNK) {
      const recoveries = frames.slice(offset, offset + REPLY_CHUNK).map((text) => recoverFrame(text, context, data.signing, lastSigners));
      port.postMessage({ kind: "recovered", batch, offset, recoveries } satisfies WorkerReply);
    }
  });
  port.postMessage({ kind: "ready", path: verifyPath() } satisfies WorkerReply);
}

run();
