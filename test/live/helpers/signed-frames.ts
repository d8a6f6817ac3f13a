/**
 * Signed WebSocket order-entry frames for the signer-pool tests: two funded
 * accounts on an Exchange in signed mode, and a fixed sequence of frames
 * over them, accepted and refused (tampered signature, a signerWallet other
 * than the signer, a signer not permissioned on the account, bad v, bad
 * payload, a replayed nonce, cancels, cancelAll).
 */
import type { Hex } from "viem";
import { createClient, type Client } from "../../../src/client/client.ts";
import { createMarketDirectory } from "../../../src/client/markets.ts";
import { privateKeySigner } from "../../../src/client/signer.ts";
import { cancelAllPlan } from "../../../src/client/actions/cancelAll.ts";
import { cancelOrderPlan } from "../../../src/client/actions/cancelOrder.ts";
import { createOrderPlan } from "../../../src/client/actions/createOrder.ts";
import { DEFAULT_MARKETS } from "../../../src/exchange/config.ts";
import type { ExchangeInput } from "../../../src/exchange/inputs.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../../src/signing/domain.ts";
import { createFastSigner } from "../../../src/signing/fast-sign.ts";

export const START_MICROS = 1_767_225_600_000_000;

const MARKETS = createMarketDirectory({
  perp: DEFAULT_MARKETS.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  spot: DEFAULT_MARKETS.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
});

export function key(n: number): Hex {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

export const KEYS = [key(0xa11ce), key(0xb0b)] as const;

export function walletOf(privateKey: Hex): string {
  return privateKeySigner(privateKey, { path: "fast" }).address;
}

/** The inputs that fund both wallets' accounts (accountIds in order from the Exchange's first free id) and set prices. */
export function setupInputs(): ExchangeInput[] {
  return [
    ...KEYS.map((k): ExchangeInput => ({ kind: "admin", admin: { action: "createAccount", wallet: walletOf(k), deposits: { rUSD: "1000000" } } })),
    {
      kind: "prices",
      prices: [
        { asset: "WETH", price: "2000" },
        { symbol: "ETHRUSDPERP", price: "2000" },
      ],
    },
  ];
}

/** One exec frame: its text and its parts. */
export interface Frame {
  readonly text: string;
  readonly type: string;
  readonly id: string;
  readonly payload: Record<string, unknown>;
}

function flipHexDigit(signature: string, at: number): string {
  const digit = signature[at]!;
  return signature.slice(0, at) + (digit === "1" ? "2" : "1") + signature.slice(at + 1);
}

/** The fixed frame sequence over accounts `accountIds` (of KEYS, in order). */
export function signedFrames(accountIds: readonly [number, number], count = 40): Frame[] {
  const nowSeconds = Math.floor(START_MICROS / 1_000_000);
  const noTransport = {
    request(): never {
      throw new Error("the frames are sent by the test");
    },
  };
  const clientFor = (privateKey: Hex, accountId: number): Client =>
    createClient({
      transport: noTransport,
      signer: privateKeySigner(privateKey, { path: "fast", config: DEFAULT_SIGNING_CONFIG }),
      accountId,
      markets: MARKETS,
      clock: { now: () => START_MICROS },
      retry: false,
    });
  const parties = KEYS.map((privateKey, i) => ({
    signer: createFastSigner(privateKey, DEFAULT_SIGNING_CONFIG),
    /** This wallet's client on each account (its own, and the other one, where it is not permissioned). */
    clients: accountIds.map((accountId) => clientFor(privateKey, accountId)),
    nonce: BigInt(START_MICROS) + BigInt(i) * 1_000_000n,
    open: [] as string[],
  }));
  const frames: Frame[] = [];
  const push = (type: string, payload: Record<string, unknown>): void => {
    const id = String(frames.length);
    frames.push({ text: JSON.stringify({ type, id, payload }), type, id, payload });
  };
  const create = (p: number, n: number, accountOf = p): Record<string, unknown> => {
    const party = parties[p]!;
    party.nonce += 1n;
    const isBuy = n % 2 === 0;
    const clientOrderId = String((p + 1) * 1_000_000 + n + 1);
    const built = createOrderPlan(party.clients[accountOf]!, {
      symbol: "ETHRUSDPERP",
      isBuy,
      qty: "0.01",
      limitPx: (isBuy ? 1900 - n : 2100 + n).toFixed(2),
      timeInForce: "GTC",
      postOnly: true,
      clientOrderId,
    }).build({ nowMicros: START_MICROS, nonce: party.nonce.toString() });
    if (built.signed.kind !== "Order") throw new Error("expected an Order message");
    const body = built.body as unknown as Record<string, unknown>;
    body["signature"] = party.signer.sign("Order", built.signed.message);
    if (accountOf === p) party.open.push(clientOrderId);
    return body;
  };
  for (let n = 0; n < count; n++) {
    const p = n % 2;
    const party = parties[p]!;
    switch (n % 10) {
      case 3: {
        const body = create(p, n);
        body["signature"] = flipHexDigit(String(body["signature"]), 20); // tampered r
        push("createOrder", body);
        break;
      }
      case 4: {
        const body = create(p, n);
        body["signerWallet"] = parties[1 - p]!.clients[0]!.address; // claims the other wallet
        push("createOrder", body);
        break;
      }
      case 5:
        push("createOrder", create(p, n, 1 - p)); // signed for the other wallet's account
        break;
      case 6: {
        const body = create(p, n);
        body["signature"] = String(body["signature"]).slice(0, 130) + "1d"; // v = 29
        push("createOrder", body);
        break;
      }
      case 7:
        push("createOrder", { accountId: accountIds[p], symbol: "ETHRUSDPERP" }); // not a whole request
        break;
      case 8: {
        const clientOrderId = party.open.shift();
        if (clientOrderId === undefined) break;
        party.nonce += 1n;
        const built = cancelOrderPlan(party.clients[p]!, { symbol: "ETHRUSDPERP", clientOrderId, deadline: nowSeconds + 500 }).build({
          nowMicros: START_MICROS,
          nonce: party.nonce.toString(),
        });
        if (built.signed.kind !== "OrderCancel") throw new Error("expected an OrderCancel message");
        const body = built.body as unknown as Record<string, unknown>;
        body["signature"] = party.signer.sign("OrderCancel", built.signed.message);
        push("cancelOrder", body);
        // The same request again: its nonce is spent once the first is accepted.
        push("cancelOrder", { ...body });
        break;
      }
      case 9: {
        if (n < count - 10) {
          push("createOrder", create(p, n));
          break;
        }
        party.nonce += 1n;
        const built = cancelAllPlan(party.clients[p]!, { symbol: "ETHRUSDPERP" }).build({ nowMicros: START_MICROS, nonce: party.nonce.toString() });
        if (built.signed.kind !== "MassCancel") throw new Error("expected a MassCancel message");
        const body = built.body as unknown as Record<string, unknown>;
        body["signature"] = party.signer.sign("MassCancel", built.signed.message);
        push("cancelAll", body);
        break;
      }
      default:
        push("createOrder", create(p, n));
    }
  }
  return frames;
}
