/**
 * The fast path is the viem path, bit for bit: the hand-written digest equals
 * `hashTypedData`, the native signer's bytes equal `signTypedData`'s, and both
 * recovery paths return the signer, over thousands of random messages of all
 * four kinds (full type ranges, extremes weighted in, and orders built from
 * wire bodies).
 */
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG, signingConfig } from "../../src/signing/domain.ts";
import { createTypedDataHasher } from "../../src/signing/digest.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { native } from "../../src/signing/native.ts";
import { signMessage } from "../../src/signing/sign.ts";
import { recoverSignerNative, recoverSignerViem, viemDigest } from "../../src/signing/verify.ts";
import { anyMessageArb, privateKeyArb, SEED } from "./arbitraries.ts";

if (native === null) throw new Error("these tests compare the native path: the add-ons must load");
const hasher = createTypedDataHasher(native.keccak256);
const MAINNET = signingConfig({ verifyingChainId: 1729n, verifyingContract: "0xfc8c96be87da63cecddbf54abfa7b13ee8044739" });
const configArb = fc.constantFrom(DEFAULT_SIGNING_CONFIG, MAINNET);

describe("fast digest", () => {
  it("equals viem's hashTypedData for every kind", () => {
    fc.assert(
      fc.property(anyMessageArb, configArb, ({ kind, message }, config) => {
        const fast = `0x${hasher.digest(kind, message, config).toString("hex")}`;
        expect(fast).toBe(viemDigest(kind, message, config));
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
});

describe("fast signer and both recovery paths", () => {
  it("sign the same bytes as viem and recover the signer, natively and through viem", async () => {
    await fc.assert(
      fc.asyncProperty(anyMessageArb, privateKeyArb, configArb, async ({ kind, message }, privateKey, config) => {
        const expectedAddress = privateKeyToAccount(privateKey).address.toLowerCase();
        const signer = createFastSigner(privateKey, config);
        expect(signer.address).toBe(expectedAddress);
        const signature = await signMessage(kind, privateKey, message, config);
        expect(signer.sign(kind, message)).toBe(signature);
        expect(recoverSignerNative(kind, message, signature, config)).toEqual({ ok: true, address: expectedAddress });
        expect(await recoverSignerViem(kind, message, signature, config)).toEqual({ ok: true, address: expectedAddress });
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
