/**
 * The signature form the client sends (reference/signing.md: 65 bytes
 * r || s || v): whatever equivalent form a custom signer returns (the
 * malleated high-s twin, or v as y parity 0 or 1), the body carries the one
 * form every verifier accepts, low s and v 27 or 28, which is the signature
 * viem's own signer makes for the same message.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import type { Hex } from "viem";
import { signTypedData } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { ClientSigner } from "../../src/client/signer.ts";
import { privateKeySigner } from "../../src/client/signer.ts";
import { typedDataDomain } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { canonicalSignature } from "../../src/signing/signature.ts";
import { SIGNING_TYPES, type SignedKind, type SignedMessages } from "../../src/signing/types.ts";
import { recoverSignerNative } from "../../src/signing/verify.ts";
import { ADDRESS, KEY, testClient } from "./fixtures.ts";

const N = secp256k1.CURVE.n;

/** The high-s twin of a low-s signature: (r, n - s, v flipped), which recovers the same signer. */
function highSTwin(signature: string): Hex {
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = signature.slice(130) === "1b" ? "1c" : "1b";
  return `0x${signature.slice(2, 66)}${(N - s).toString(16).padStart(64, "0")}${v}`;
}

/** The same signature with v written as y parity (27 -> 00, 28 -> 01). */
function parityV(signature: string): Hex {
  return `${signature.slice(0, 130)}${signature.slice(130) === "1b" ? "00" : "01"}` as Hex;
}

/** A signer that signs as viem does, then hands out another form of the same signature; it keeps the last message it signed. */
function rewritingSigner(rewrite: (signature: Hex) => Hex): ClientSigner & { last?: SignedMessages["Order"] } {
  const inner = privateKeySigner(KEY, { path: "viem" });
  const signer: ClientSigner & { last?: SignedMessages["Order"] } = {
    address: inner.address,
    config: inner.config,
    sign: async <K extends SignedKind>(kind: K, message: SignedMessages[K]) => {
      if (kind === "Order") signer.last = message as SignedMessages["Order"];
      return rewrite(await inner.sign(kind, message));
    },
  };
  return signer;
}

const GTC = { symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC" } as const;

describe("the signature a client sends", () => {
  it.each([
    ["the high-s twin", highSTwin],
    ["v as y parity", parityV],
    ["the high-s twin with v as y parity", (signature: Hex) => parityV(highSTwin(signature))],
  ])("is the canonical form when the signer returns %s", async (_name, rewrite) => {
    const signer = rewritingSigner(rewrite);
    const { client, transport } = testClient({ signer });
    await client.createOrder(GTC);
    const message = signer.last!;
    const sent = transport.body()["signature"] as string;
    // Independent reference: viem's signer over the very message the client signed.
    const expected = await signTypedData({ privateKey: KEY, domain: typedDataDomain(client.signer.config), types: SIGNING_TYPES, primaryType: "Order", message });
    expect(rewrite(expected)).not.toBe(expected);
    expect(sent).toBe(expected);
    expect(BigInt(`0x${sent.slice(66, 130)}`) <= N / 2n).toBe(true);
    expect(["1b", "1c"]).toContain(sent.slice(130));
    expect(recoverSignerNative("Order", message, sent)).toEqual({ ok: true, address: ADDRESS });
  });

  it("maps each of many signatures and its three other forms to the signature itself", () => {
    const signer = createFastSigner(KEY);
    for (let nonce = 1n; nonce <= 400n; nonce++) {
      const signature = signer.sign("MassCancel", { verifyingChainId: 1n, deadline: 2n, massCancel: { accountId: 3n, marketId: 0n, nonce } });
      for (const form of [signature, highSTwin(signature), parityV(signature), parityV(highSTwin(signature)), signature.toUpperCase().replace("0X", "0x")]) {
        expect(canonicalSignature(form).toLowerCase()).toBe(signature);
      }
      expect(canonicalSignature(signature)).toBe(signature);
    }
  });

  it("leaves a canonical signature, and one the service must judge (bad v, s not below n), as they are", () => {
    const low = `0x${"11".repeat(32)}${"22".repeat(32)}1c`;
    expect(canonicalSignature(low)).toBe(low);
    expect(canonicalSignature(low.toUpperCase().replace("0X", "0x"))).toBe(low.toUpperCase().replace("0X", "0x"));
    const badV = `0x${"11".repeat(32)}${"22".repeat(32)}1d`;
    expect(canonicalSignature(badV)).toBe(badV);
    const sAtN = `0x${"11".repeat(32)}${N.toString(16)}1b`;
    expect(canonicalSignature(sAtN)).toBe(sAtN);
    const sZero = `0x${"11".repeat(32)}${"00".repeat(32)}00`;
    expect(canonicalSignature(sZero)).toBe(sZero);
  });

  it("replaces s = n / 2 + 1 by its twin n - s with v flipped, and keeps s = n / 2 (the largest low s)", () => {
    const half = N / 2n;
    const r = "33".repeat(32);
    const atHalf = `0x${r}${half.toString(16).padStart(64, "0")}1b`;
    expect(canonicalSignature(atHalf)).toBe(atHalf);
    const aboveHalf = `0x${r}${(half + 1n).toString(16).padStart(64, "0")}1b`;
    expect(canonicalSignature(aboveHalf)).toBe(`0x${r}${(N - half - 1n).toString(16).padStart(64, "0")}1c`);
  });
});
