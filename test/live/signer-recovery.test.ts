/**
 * Signatures recovered ahead of time (signer-worker.ts, the gateway's
 * withRecovery): the Exchange's answers and outputs are the same, byte for
 * byte, as when the gateway recovers inline; a recovery of anything but
 * exactly the request's message, signature, config and path is ignored.
 */
import { describe, expect, it } from "vitest";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { PrecomputedRecovery } from "../../src/exchange/gateway/authenticate.ts";
import type { ValidationContext } from "../../src/exchange/gateway/validate/types.ts";
import { validateRequest } from "../../src/exchange/gateway/validate/structure.ts";
import { recoverFrame } from "../../src/live/signer-worker.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { setupInputs, signedFrames, START_MICROS, walletOf, KEYS, type Frame } from "./helpers/signed-frames.ts";

interface World {
  exchange: Exchange;
  fingerprint: Fingerprint;
  frames: Frame[];
  context: ValidationContext;
}

function world(): World {
  const exchange = new Exchange({ config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), startMicros: START_MICROS, seed: 7 });
  expect(exchange.config.gateway.verifySignatures).toBe(true);
  const fingerprint = new Fingerprint();
  exchange.subscribe((output) => fingerprint.update(output));
  const accountIds: number[] = [];
  for (const input of setupInputs()) {
    const answer = exchange.handle(input, START_MICROS);
    if (!answer.ok) throw new Error(answer.error.message);
    if (input.kind === "admin") accountIds.push(Number(answer.payload["accountId"]));
  }
  const context: ValidationContext = { exchangeId: exchange.config.gateway.exchangeId, markets: { bySymbol: (s) => exchange.marketsBySymbol.get(s) } };
  return { exchange, fingerprint, frames: signedFrames([accountIds[0]!, accountIds[1]!]), context };
}

function handle(w: World, frame: Frame, recovery?: PrecomputedRecovery): unknown {
  const input = { kind: "request", op: frame.type, body: frame.payload } as const;
  const run = () => w.exchange.handle(input as never, START_MICROS);
  return recovery === undefined ? run() : w.exchange.gateway.withRecovery(recovery, run);
}

function recovered(w: World, frame: Frame): PrecomputedRecovery | undefined {
  const recovery = recoverFrame(frame.text, w.context, w.exchange.config.signing);
  return recovery === null ? undefined : { ...recovery, config: w.exchange.config.signing };
}

describe("recovering signatures ahead of time", () => {
  it("gives the same answers and outputs as recovering inline, for accepted and refused requests alike", () => {
    const inline = world();
    const ahead = world();
    const codes = new Set<string>();
    let used = 0;
    for (let i = 0; i < inline.frames.length; i++) {
      const frame = inline.frames[i]!;
      expect(ahead.frames[i]!.text).toBe(frame.text);
      const recovery = recovered(ahead, frame);
      if (recovery !== undefined) used++;
      const expected = handle(inline, frame) as { ok: boolean; error?: { error: string } };
      expect(handle(ahead, frame, recovery)).toEqual(expected);
      codes.add(expected.ok ? "ok" : expected.error!.error);
    }
    // The sequence covers acceptances and each kind of refusal.
    for (const code of ["ok", "INPUT_VALIDATION_ERROR", "INVALID_NONCE_ERROR", "UNAUTHORIZED_SIGNATURE_ERROR", "CANCEL_ORDER_OTHER_ERROR"]) {
      expect(codes).toContain(code);
    }
    expect(used).toBeGreaterThan(inline.frames.length / 2);
    expect(ahead.fingerprint.count).toBe(inline.fingerprint.count);
    expect(ahead.fingerprint.digest()).toBe(inline.fingerprint.digest());
  });

  it("uses a recovery only for exactly the request's message, signature, config and path", () => {
    const w = world();
    const [first, second] = w.frames as [Frame, Frame];
    const honest = recovered(w, first)!;
    expect(honest.result).toEqual({ ok: true, address: walletOf(KEYS[0]).toLowerCase() });
    // A result naming another signer: taken when it is the recovery of exactly this request...
    const forged: PrecomputedRecovery = { ...honest, result: { ok: true, address: walletOf(KEYS[1]).toLowerCase() as `0x${string}` } };
    const taken = handle(w, first, forged) as { ok: boolean; error?: { error: string; message: string } };
    expect(taken).toMatchObject({ ok: false, error: { error: "UNAUTHORIZED_SIGNATURE_ERROR" } });
    // ...and ignored (recovered inline) as soon as anything it was computed from differs.
    const otherMessage = recovered(w, second)!;
    const variants: PrecomputedRecovery[] = [
      { ...otherMessage, result: forged.result },
      { ...forged, signature: second.payload["signature"] as string },
      { ...forged, kind: "OrderCancel" },
      { ...forged, path: honest.path === "native" ? "viem" : "native" },
      { ...forged, config: { ...DEFAULT_SIGNING_CONFIG, verifyingChainId: DEFAULT_SIGNING_CONFIG.verifyingChainId + 1n } },
    ];
    for (const variant of variants) {
      const fresh = world();
      expect(handle(fresh, first, variant)).toMatchObject({ ok: true });
    }
  });

  it("takes a prepared structure-stage answer only for the very body object, operation and the Exchange's own context", () => {
    /** The first frame with a recovery carrying a forged structure-stage answer: the request moved to the second frame's account. */
    const attempt = (prepare: (w: World, frame: Frame) => { op: "createOrder" | "modifyOrder"; body: unknown; context: ValidationContext }) => {
      const w = world();
      const [first, second] = w.frames as [Frame, Frame];
      const honest = recovered(w, first)!;
      const validated = validateRequest("createOrder", first.payload, w.exchange.validationContext);
      if (!validated.ok) throw new Error(validated.error.message);
      const value = { ...validated.value, accountId: second.payload["accountId"] as number };
      return handle(w, first, { ...honest, validated: { ...prepare(w, first), value } }) as { ok: boolean; error?: { error: string; message: string } };
    };
    // Taken as the gateway's own answer (the driver is trusted as the gateway's own code): the signer is not on that account.
    expect(attempt((w, frame) => ({ op: "createOrder", body: frame.payload, context: w.exchange.validationContext }))).toMatchObject({
      ok: false,
      error: { error: "UNAUTHORIZED_SIGNATURE_ERROR", message: expect.stringContaining("is not permissioned") },
    });
    // Ignored (validated here) for an equal copy of the body, another context object, or another operation.
    expect(attempt((w, frame) => ({ op: "createOrder", body: { ...frame.payload }, context: w.exchange.validationContext }))).toMatchObject({ ok: true });
    expect(attempt((w, frame) => ({ op: "createOrder", body: frame.payload, context: { ...w.exchange.validationContext } }))).toMatchObject({ ok: true });
    expect(attempt((w, frame) => ({ op: "modifyOrder", body: frame.payload, context: w.exchange.validationContext }))).toMatchObject({ ok: true });
  });

  it("takes a result on the identity of its value only with the gateway's own path and config", () => {
    /** The first frame, its structure-stage answer prepared honestly, with a result naming the other wallet. */
    const attempt = (vary: (recovery: PrecomputedRecovery) => PrecomputedRecovery) => {
      const w = world();
      const [first] = w.frames as [Frame];
      const validated = validateRequest("createOrder", first.payload, w.exchange.validationContext);
      if (!validated.ok) throw new Error(validated.error.message);
      const honest = recovered(w, first)!;
      const forged: PrecomputedRecovery = {
        ...honest,
        result: { ok: true, address: walletOf(KEYS[1]).toLowerCase() as `0x${string}` },
        validated: { op: "createOrder", body: first.payload, context: w.exchange.validationContext, value: validated.value },
      };
      return handle(w, first, vary(forged)) as { ok: boolean; error?: { error: string; message: string } };
    };
    expect(attempt((r) => r)).toMatchObject({ ok: false, error: { error: "UNAUTHORIZED_SIGNATURE_ERROR", message: expect.stringContaining("differs from signerWallet") } });
    expect(attempt((r) => ({ ...r, path: r.path === "native" ? "viem" : "native" }))).toMatchObject({ ok: true });
    expect(attempt((r) => ({ ...r, config: { ...DEFAULT_SIGNING_CONFIG, verifyingChainId: DEFAULT_SIGNING_CONFIG.verifyingChainId + 1n } }))).toMatchObject({ ok: true });
  });

  it("is used once: a request handled after it recovers inline", () => {
    const w = world();
    const [first, second] = w.frames as [Frame, Frame];
    const forgedForSecond: PrecomputedRecovery = { ...recovered(w, second)!, result: { ok: false, reason: "SIGNATURE_INVALID", detail: "forged" } };
    expect(handle(w, first, forgedForSecond)).toMatchObject({ ok: true });
    expect(handle(w, second)).toMatchObject({ ok: true });
  });
});
