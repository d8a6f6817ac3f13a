/**
 * Signing benchmark: 2,000 signed createOrder messages (perp and spot,
 * limits and triggers, buys and sells, 16 signers) built from wire bodies,
 * then signature recovery per second on the native fast path (about 4 s)
 * and on the viem path (its peer, fewer iterations), and fast signing per
 * second. `knownSignerVerifyPerSec`: the same native path told whom to
 * expect (the signerWallet, as the gateway does), once every signer's comb
 * table is built (src/signing/known-signers.ts), with its ratio to
 * `fastVerifyPerSec` (null when the comb add-on is not built). Every
 * recovery is checked against the expected signer; a mismatch
 * is counted in `errors` (it should be 0). Prints one JSON line; it never
 * fails.
 */
import type { Hex } from "viem";
import { RngRoot } from "../../src/core/rng.ts";
import { createFastSigner, type FastSigner } from "../../src/signing/fast-sign.ts";
import { orderMessage } from "../../src/signing/messages.ts";
import { native } from "../../src/signing/native.ts";
import { signOrder } from "../../src/signing/sign.ts";
import type { OrderMessage } from "../../src/signing/types.ts";
import { knownSignerStats, recoverSignerNative, recoverSignerViem } from "../../src/signing/verify.ts";
import { COMB_VERIFIER } from "../../src/signing/known-signers.ts";
import type { OrderBody } from "../../src/signing/wire.ts";

const MESSAGES = 2_000;
const SIGNERS = 16;
const FAST_VERIFY_MS = 4_000;
const VIEM_VERIFY_MS = 2_000;
const FAST_SIGN_MS = 2_000;
const BENCH_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

interface Signed {
  message: OrderMessage;
  signature: Hex;
  address: string;
}

function decimal(rng: ReturnType<RngRoot["stream"]>, maxWhole: number, fractionDigits: number): string {
  const whole = rng.int(0, maxWhole);
  if (fractionDigits === 0) return String(whole);
  const fraction = Array.from({ length: fractionDigits }, () => rng.int(0, 9)).join("");
  return `${whole}.${fraction}`;
}

function workload(): { signers: FastSigner[]; signed: Signed[] } {
  const rng = new RngRoot("bench:signing").stream("workload");
  const signers = Array.from({ length: SIGNERS }, (_, i) => createFastSigner(`0x${(0x1000n + BigInt(i) * 7919n).toString(16).padStart(64, "0")}` as Hex));
  const signed: Signed[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const signer = signers[i % SIGNERS]!;
    const isTrigger = rng.bernoulli(0.2);
    const isSpot = !isTrigger && rng.bernoulli(0.3);
    const timeInForce = (["IOC", "GTC", "GTT"] as const)[rng.int(0, 2)]!;
    const body: OrderBody = {
      accountId: rng.int(1, 1_000_000),
      exchangeId: 1,
      isBuy: rng.bernoulli(0.5),
      orderType: isTrigger ? (rng.bernoulli(0.5) ? "STOP_LOSS" : "TAKE_PROFIT") : "LIMIT",
      timeInForce,
      limitPx: decimal(rng, 100_000, rng.int(0, 4)),
      nonce: String(1_700_000_000_000_000 + i),
      deadline: 1_745_000_000 + rng.int(0, 600),
      signerWallet: signer.address,
      ...(isTrigger ? { triggerPx: decimal(rng, 100_000, 2) } : { qty: decimal(rng, 1_000, rng.int(0, 18)) }),
      ...(timeInForce === "IOC" && !isSpot && !isTrigger ? { reduceOnly: rng.bernoulli(0.3) } : {}),
      ...(timeInForce === "GTT" ? { expiresAfter: 1_745_100_000 } : {}),
      ...(rng.bernoulli(0.5) ? { clientOrderId: String(rng.int(1, 2 ** 40)) } : {}),
    };
    const message = orderMessage(body, { marketId: BigInt(rng.int(1, 50)), isSpot });
    signed.push({ message, signature: signer.sign("Order", message), address: signer.address });
  }
  return { signers, signed };
}

function timed(budgetMs: number, step: (i: number) => void): number {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < budgetMs) {
    for (let j = 0; j < 100; j++) step(count++);
    elapsed = performance.now() - start;
  }
  return (count / elapsed) * 1000;
}

async function timedAsync(budgetMs: number, step: (i: number) => Promise<void>): Promise<number> {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < budgetMs) {
    for (let j = 0; j < 10; j++) await step(count++);
    elapsed = performance.now() - start;
  }
  return (count / elapsed) * 1000;
}

async function main(): Promise<void> {
  const { signed } = workload();
  let errors = 0;
  const at = (i: number): Signed => signed[i % MESSAGES]!;

  // Warm up both paths (JIT, viem's lazy import of noble).
  for (let i = 0; i < 200; i++) recoverSignerNative("Order", at(i).message, at(i).signature);
  for (let i = 0; i < 20; i++) await recoverSignerViem("Order", at(i).message, at(i).signature);

  const fastVerifyPerSec = timed(FAST_VERIFY_MS, (i) => {
    const { message, signature, address } = at(i);
    const result = recoverSignerNative("Order", message, signature);
    if (!result.ok || result.address !== address) errors++;
  });
  // The recoveries above noted every signer: wait for their tables (built on the thread pool).
  for (let i = 0; i < 500 && knownSignerStats().tablesReady < SIGNERS; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const knownSignerVerifyPerSec =
    COMB_VERIFIER === null
      ? null
      : timed(FAST_VERIFY_MS, (i) => {
          const { message, signature, address } = at(i);
          const result = recoverSignerNative("Order", message, signature, undefined, address);
          if (!result.ok || result.address !== address) errors++;
        });
  const viemVerifyPerSec = await timedAsync(VIEM_VERIFY_MS, async (i) => {
    const { message, signature, address } = at(i);
    const result = await recoverSignerViem("Order", message, signature);
    if (!result.ok || result.address !== address) errors++;
  });
  const signer = createFastSigner(BENCH_KEY);
  const fastSignPerSec = timed(FAST_SIGN_MS, (i) => {
    signer.sign("Order", at(i).message);
  });
  const viemSignPerSec = await timedAsync(1_000, async (i) => {
    await signOrder(BENCH_KEY, at(i).message);
  });

  console.log(
    JSON.stringify({
      bench: "signing",
      messages: MESSAGES,
      fastVerifyPerSec: Math.round(fastVerifyPerSec),
      viemVerifyPerSec: Math.round(viemVerifyPerSec),
      ratio: Number((fastVerifyPerSec / viemVerifyPerSec).toFixed(1)),
      knownSignerVerifyPerSec: knownSignerVerifyPerSec === null ? null : Math.round(knownSignerVerifyPerSec),
      knownSignerRatio: knownSignerVerifyPerSec === null ? null : Number((knownSignerVerifyPerSec / fastVerifyPerSec).toFixed(2)),
      knownSignerTables: knownSignerStats().tablesReady,
      fastSignPerSec: Math.round(fastSignPerSec),
      viemSignPerSec: Math.round(viemSignPerSec),
      keccak: native?.keccakVia ?? "unavailable",
      errors,
    }),
  );
}

main().catch((error: unknown) => {
  console.log(JSON.stringify({ bench: "signing", error: error instanceof Error ? error.message : String(error) }));
});
