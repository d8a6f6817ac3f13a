/**
 * A client's signing config is checked when the client (or its signer) is
 * made, as src/signing's signingConfig checks it: a verifyingContract that
 * viem refuses to hash (mixed case with a wrong EIP-55 checksum), or a
 * verifyingChainId beyond uint64, the width the cancel family signs it with
 * (reference/signing.md, "Types"). Such a config could sign orders and then
 * fail the first cancel, so it is refused up front.
 */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ClientConfigError } from "../../src/client/errors.ts";
import { privateKeySigner, viemAccountSigner, type ClientSigner } from "../../src/client/signer.ts";
import { DEFAULT_SIGNING_CONFIG, type SigningConfig } from "../../src/signing/domain.ts";
import { KEY, testClient } from "./fixtures.ts";

const UINT64_MAX = 2n ** 64n - 1n;

const BAD: readonly (readonly [string, SigningConfig])[] = [
  ["a chain id beyond uint64", { ...DEFAULT_SIGNING_CONFIG, verifyingChainId: UINT64_MAX + 1n }],
  ["a negative chain id", { ...DEFAULT_SIGNING_CONFIG, verifyingChainId: -1n }],
  // The devnet gateway with one letter's case changed: not its EIP-55 checksum.
  ["a contract with a wrong checksum", { ...DEFAULT_SIGNING_CONFIG, verifyingContract: "0x7ec89E555c771D2B5939aBE5C4E4291852633D4D" }],
];

describe("a client's signing config", () => {
  it.each(BAD)("with %s is refused when the client is made, not at its first cancel", (_name, config) => {
    expect(() => testClient({ signing: config })).toThrow(ClientConfigError);
    expect(() => privateKeySigner(KEY, { config, path: "fast" })).toThrow(ClientConfigError);
    expect(() => privateKeySigner(KEY, { config, path: "viem" })).toThrow(ClientConfigError);
    expect(() => viemAccountSigner(privateKeyToAccount(KEY), config)).toThrow(ClientConfigError);
    const custom: ClientSigner = { address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", config, sign: () => "0x" };
    expect(() => testClient({ signer: custom })).toThrow(ClientConfigError);
  });

  it("takes the edges that every family can sign, and a lowercase contract", async () => {
    const config: SigningConfig = { ...DEFAULT_SIGNING_CONFIG, verifyingChainId: UINT64_MAX, verifyingContract: "0x7ec89e555c771d2b5939abe5c4e4291852633d4d" };
    const { client, transport } = testClient({ signing: config });
    expect(client.signer.config).toBe(config);
    await client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC" });
    await client.cancelAll();
    await client.cancelAllAfter({ timeoutMs: 0 });
    expect(transport.calls.map((call) => call.operation)).toEqual(["createOrder", "cancelAll", "cancelAllAfter"]);
  });
});
