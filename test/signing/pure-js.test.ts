import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { orderMessage } from "../../src/signing/messages.ts";
import { recoverSignerNative, recoverSignerPureJs } from "../../src/signing/verify.ts";

describe("the pure-JS (viem) synchronous recovery path", () => {
  it("recovers the same signer as the native path, and refuses what it refuses", () => {
    const signer = createFastSigner(`0x${"ab".repeat(32)}`, DEFAULT_SIGNING_CONFIG);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.boolean(), fc.integer({ min: 1, max: 10 ** 9 }), (accountId, isBuy, price) => {
        const message = orderMessage(
          {
            accountId, exchangeId: 1, isBuy, limitPx: String(price), qty: "0.5", orderType: "LIMIT", timeInForce: "GTC",
            postOnly: false, nonce: "7", deadline: 1_800_000_000, signerWallet: signer.address,
          },
          { marketId: 1n, isSpot: false },
        );
        const signature = signer.sign("Order", message);
        const pure = recoverSignerPureJs("Order", message, signature);
        expect(pure).toEqual(recoverSignerNative("Order", message, signature));
        expect(pure).toEqual({ ok: true, address: signer.address.toLowerCase() });
        const tampered = { ...message, deadline: message.deadline + 1n };
        expect(recoverSignerPureJs("Order", tampered, signature)).toEqual(recoverSignerNative("Order", tampered, signature));
      }),
      { seed: 7, numRuns: 100 },
    );
    expect(recoverSignerPureJs("Order", {} as never, "0x12")).toMatchObject({ ok: false, reason: "SIGNATURE_FORMAT" });
  });
});
