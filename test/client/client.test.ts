/** createClient, the signers, and how requests are handed to the transport. */
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { cancelAll } from "../../src/client/actions/cancelAll.ts";
import { createOrderPlan } from "../../src/client/actions/createOrder.ts";
import { ClientConfigError, ClientError, SigningFailedError } from "../../src/client/errors.ts";
import { send } from "../../src/client/internal/send.ts";
import { privateKeySigner, viemAccountSigner, type ClientSigner } from "../../src/client/signer.ts";
import type { OrderEntryResponse } from "../../src/client/transport.ts";
import { signingConfig } from "../../src/signing/domain.ts";
import type { SignedKind, SignedMessages } from "../../src/signing/types.ts";
import { ADDRESS, fakeTransport, KEY, succeed, testClient } from "./fixtures.ts";

/** A signer that completes each signature only when the test releases it. */
function heldSigner(inner: ClientSigner): ClientSigner & { release(index: number): void } {
  const held: { resolve: () => void }[] = [];
  return {
    address: inner.address,
    config: inner.config,
    sign<K extends SignedKind>(kind: K, message: SignedMessages[K]): Promise<Hex> {
      const signature = Promise.resolve(inner.sign(kind, message));
      return new Promise<void>((resolve) => held.push({ resolve })).then(() => signature);
    },
    release(index: number) {
      held[index]?.resolve();
    },
  };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("createClient", () => {
  it("exposes the signer's address and binds the five actions", () => {
    const { client } = testClient();
    expect(client.address).toBe(ADDRESS);
    expect(client.exchangeId).toBe(1);
    expect(Object.keys(client).filter((key) => typeof (client as unknown as Record<string, unknown>)[key] === "function").sort()).toEqual([
      "cancelAll",
      "cancelAllAfter",
      "cancelOrder",
      "createOrder",
      "modifyOrder",
    ]);
  });

  it("refuses a signing config that differs from the signer's", () => {
    const signer = privateKeySigner(KEY);
    expect(() => testClient({ signer, signing: signingConfig({ verifyingChainId: 1729n }) })).toThrow(ClientConfigError);
    expect(() => testClient({ signer, signing: signingConfig() })).not.toThrow();
  });

  it("signs under the configured chain when given a private key", async () => {
    const config = signingConfig({ verifyingChainId: 1729n, verifyingContract: "0xfc8c96be87da63cecddbf54abfa7b13ee8044739" });
    const { client } = testClient({ signing: config });
    expect(client.signer.config).toBe(config);
  });

  it("refuses a malformed private key and a bad accountId", () => {
    expect(() => testClient({ signer: "0x1234" })).toThrow(ClientConfigError);
    expect(() => testClient({ accountId: -1 })).toThrow(ClientConfigError);
  });
});

describe("signers", () => {
  it("sign the same bytes on the fast path, the viem path and a viem account", async () => {
    const fast = privateKeySigner(KEY, { path: "fast" });
    const slow = privateKeySigner(KEY, { path: "viem" });
    const account = viemAccountSigner(privateKeyToAccount(KEY));
    const message = { verifyingChainId: 89346162n, deadline: 1n, massCancel: { accountId: 1n, marketId: 0n, nonce: 5n } };
    const fastSignature = fast.sign("MassCancel", message);
    expect(typeof fastSignature).toBe("string");
    expect(fast.path).toBe("fast");
    expect(await slow.sign("MassCancel", message)).toBe(fastSignature);
    expect(await account.sign("MassCancel", message)).toBe(fastSignature);
    expect([fast.address, slow.address, account.address]).toEqual([ADDRESS, ADDRESS, ADDRESS]);
  });
});

describe("hand-off to the transport", () => {
  it("is synchronous with a synchronous signer: the request leaves within the call", () => {
    const { client, transport } = testClient();
    const pending = client.createOrder({ symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "1", timeInForce: "IOC" });
    expect(transport.calls).toHaveLength(1);
    return pending;
  });

  it("keeps nonce order with an asynchronous signer whose signatures complete out of order", async () => {
    const signer = heldSigner(privateKeySigner(KEY, { path: "fast" }));
    const { client, transport } = testClient({ signer });
    const first = client.cancelAll();
    const second = client.cancelAll({ symbol: "ETHPERP" });
    const third = client.cancelAllAfter({ timeoutMs: 0 });
    signer.release(2);
    signer.release(1);
    await flush();
    expect(transport.calls).toHaveLength(0);
    signer.release(0);
    await Promise.all([first, second, third]);
    const nonces = transport.calls.map((call) => BigInt(call.body.nonce));
    expect(nonces).toEqual([...nonces].sort((a, b) => (a < b ? -1 : 1)));
    expect(transport.calls.map((call) => call.operation)).toEqual(["cancelAll", "cancelAll", "cancelAllAfter"]);
  });

  it("does not let a failed signature block the requests after it", async () => {
    let calls = 0;
    const inner = privateKeySigner(KEY);
    const signer: ClientSigner = {
      address: inner.address,
      config: inner.config,
      sign: (kind, message) => (++calls === 1 ? Promise.reject(new Error("device locked")) : Promise.resolve(inner.sign(kind, message))),
    };
    const { client, transport } = testClient({ signer });
    const failed = client.cancelAll();
    const ok = client.cancelAll();
    await expect(failed).rejects.toBeInstanceOf(SigningFailedError);
    await expect(ok).resolves.toEqual({ cancelledCount: 3 });
    expect(transport.calls).toHaveLength(1);
  });

  it("keeps nonce order when a request between two others fails to sign early", async () => {
    const inner = privateKeySigner(KEY, { path: "fast" });
    let count = 0;
    let releaseFirst: () => void = () => undefined;
    const signer: ClientSigner = {
      address: inner.address,
      config: inner.config,
      sign: (kind, message) => {
        const signature = inner.sign(kind, message);
        count++;
        if (count === 1) return new Promise<void>((resolve) => (releaseFirst = resolve)).then(() => signature);
        if (count === 2) return Promise.reject(new Error("device busy"));
        return Promise.resolve(signature);
      },
    };
    const { client, transport } = testClient({ signer });
    const first = client.cancelAll();
    const failed = client.cancelAll().catch((e: unknown) => e);
    const third = client.cancelAllAfter({ timeoutMs: 0 });
    expect(await failed).toBeInstanceOf(SigningFailedError);
    await flush();
    expect(transport.calls).toHaveLength(0);
    releaseFirst();
    await Promise.all([first, third]);
    expect(transport.calls.map((call) => call.operation)).toEqual(["cancelAll", "cancelAllAfter"]);
  });

  it("refuses a signer that returns no signature, sending nothing", async () => {
    const inner = privateKeySigner(KEY);
    const signer: ClientSigner = { address: inner.address, config: inner.config, sign: () => "0xdeadbeef" };
    const { client, transport } = testClient({ signer });
    const failure = await client.cancelAll().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SigningFailedError);
    expect(failure).toBeInstanceOf(ClientError);
    expect(transport.calls).toHaveLength(0);
  });

  it("wraps a signer that throws synchronously", async () => {
    const inner = privateKeySigner(KEY);
    const signer: ClientSigner = {
      address: inner.address,
      config: inner.config,
      sign: () => {
        throw new Error("no key");
      },
    };
    const { client } = testClient({ signer });
    const failure = await client.cancelAll().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SigningFailedError);
    expect((failure as SigningFailedError).walk()).toMatchObject({ message: "no key" });
  });

  it("runs the free action on a client as the bound one does", async () => {
    const responses: OrderEntryResponse[] = [];
    const { client, transport } = testClient({
      transport: fakeTransport((operation, body, index) => {
        const response = succeed(operation, body, index);
        responses.push(response as OrderEntryResponse);
        return response;
      }),
    });
    expect(await cancelAll(client, { symbol: "BTCPERP" })).toEqual({ cancelledCount: 3 });
    expect(transport.body()["symbol"]).toBe("BTCPERP");
    expect(responses).toHaveLength(1);
  });
});

describe("ClientError", () => {
  it("formats its message from the short message and details, and walks causes", () => {
    const root = new Error("root");
    const middle = new ClientError("middle", { cause: root });
    const top = new ClientError("top failed", { details: "more here", cause: middle });
    expect(top.message).toBe("top failed\n\nDetails: more here");
    expect(top.shortMessage).toBe("top failed");
    expect(top.walk()).toBe(root);
    expect(top.walk((e) => e instanceof ClientError && e.shortMessage === "middle")).toBe(middle);
    expect(top.walk(() => false)).toBeNull();
  });
});

describe("a signer with a fixed signature (the simulator's trusted mode)", () => {
  it("sends every request with it, without building the signed message or calling sign", async () => {
    const fixedSignature: Hex = `0x${"11".repeat(65)}`;
    const signer: ClientSigner = {
      address: ADDRESS,
      config: signingConfig(),
      fixedSignature,
      sign: () => {
        throw new Error("sign must not be called");
      },
    };
    const { client, transport } = testClient({ signer });
    const plan = createOrderPlan(client, { symbol: "ETHPERP", isBuy: true, qty: "1", limitPx: "3000", timeInForce: "GTC" });
    // The plan's message builder, made to fail: a fixed signature never asks for it.
    Object.assign(plan, {
      signed: () => {
        throw new Error("no message is built");
      },
    });
    await send(client, plan);
    await client.cancelAllAfter({ timeoutMs: 10_000 });
    expect(transport.calls.map((call) => call.body.signature)).toEqual([fixedSignature, fixedSignature]);
  });

  it("is still checked: a malformed one fails before anything is sent", async () => {
    const signer: ClientSigner = { address: ADDRESS, config: signingConfig(), fixedSignature: "0x1234", sign: () => "0x1234" };
    const { client, transport } = testClient({ signer });
    await expect(client.cancelAll()).rejects.toBeInstanceOf(SigningFailedError);
    expect(transport.calls).toHaveLength(0);
  });
});

