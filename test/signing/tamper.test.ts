/**
 * Every signed field matters: changing any single field of a signed message
 * (or any value of the domain) makes the signature recover a different
 * address, on both paths.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG, signingConfig } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { recoverSignerNative, recoverSignerViem } from "../../src/signing/verify.ts";
import type { SignedKind } from "../../src/signing/types.ts";
import { anyMessageArb, leafFields, privateKeyArb, SEED, tampered } from "./arbitraries.ts";

const tamperingArb = fc.record({
  signed: anyMessageArb,
  privateKey: privateKeyArb,
  fieldIndex: fc.nat(),
  delta: fc.bigInt({ min: 0n, max: 1n << 300n }),
});

describe("tampering", () => {
  it("the leaf fields cover every member of every kind", () => {
    const counts = Object.fromEntries(
      (["Order", "OrderCancel", "MassCancel", "CancelAllAfter"] satisfies SignedKind[]).map((kind) => [kind, leafFields(kind).length]),
    );
    expect(counts).toEqual({ Order: 16, OrderCancel: 7, MassCancel: 5, CancelAllAfter: 5 });
  });

  it("of any single field recovers a different address (native path)", () => {
    fc.assert(
      fc.property(tamperingArb, ({ signed: { kind, message }, privateKey, fieldIndex, delta }) => {
        const signer = createFastSigner(privateKey);
        const signature = signer.sign(kind, message);
        const changed = tampered(kind, message, fieldIndex, delta);
        expect(changed).not.toEqual(message);
        const result = recoverSignerNative(kind, changed, signature);
        expect(result.ok && result.address === signer.address).toBe(false);
        expect(recoverSignerNative(kind, message, signature)).toEqual({ ok: true, address: signer.address });
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("of any single field recovers a different address (viem path)", async () => {
    await fc.assert(
      fc.asyncProperty(tamperingArb, async ({ signed: { kind, message }, privateKey, fieldIndex, delta }) => {
        const signer = createFastSigner(privateKey);
        const signature = signer.sign(kind, message);
        const result = await recoverSignerViem(kind, tampered(kind, message, fieldIndex, delta), signature);
        expect(result.ok && result.address === signer.address).toBe(false);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("of the domain (name, version, contract) recovers a different address on both paths", async () => {
    const others = [
      signingConfig({ name: "Reya2" }),
      signingConfig({ version: "2" }),
      signingConfig({ verifyingContract: "0xfc8c96be87da63cecddbf54abfa7b13ee8044739" }),
    ];
    await fc.assert(
      fc.asyncProperty(anyMessageArb, privateKeyArb, async ({ kind, message }, privateKey) => {
        const signer = createFastSigner(privateKey, DEFAULT_SIGNING_CONFIG);
        const signature = signer.sign(kind, message);
        for (const config of others) {
          const native = recoverSignerNative(kind, message, signature, config);
          const viem = await recoverSignerViem(kind, message, signature, config);
          expect(native.ok && native.address === signer.address).toBe(false);
          expect(viem).toEqual(native);
        }
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
