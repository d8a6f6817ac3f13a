/**
 * `shadowbook replay <log> --until <time> --serve` over a real socket: the
 * replayed Exchange is served live, its REST reads are the state JSON, and a
 * client trades against the replayed book (a crossing order fills the first
 * order in the queue of the best ask, which the run's market maker left there).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { privateKeySigner } from "../../src/client/signer.ts";
import { replayCommand, type ReplayCommandResult } from "../../src/cli/replay.ts";
import type { AccountState, ExchangeState } from "../../src/record/exchange-state.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { TRUSTED_SIGNATURE, agentPrivateKey } from "../../src/sim/agent-host.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { DEFAULT_START_MS } from "../../src/sim/scenario.ts";

const UNTIL_MS = DEFAULT_START_MS + 12_300;

let result: ReplayCommandResult;
let state: ExchangeState;
let base: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-serve-"));
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 20, observers: [recorder] });
  recorder.write(join(dir, "inputs.arrow"));
  result = await replayCommand(join(dir, "inputs.arrow"), { until: String(UNTIL_MS), serve: true, port: "0" });
  state = result.state!;
  base = result.running!.urls.rest;
}, 120_000);

afterAll(async () => {
  await result?.running?.close();
});

async function get(path: string): Promise<unknown> {
  const response = await fetch(`${base}${path}`);
  expect(response.status, path).toBe(200);
  return response.json();
}

/** The state's accounts grouped by owner wallet (a wallet read covers all its accounts). */
function byWallet(): Map<string, AccountState[]> {
  const wallets = new Map<string, AccountState[]>();
  for (const account of state.accounts) wallets.set(account.ownerWallet, [...(wallets.get(account.ownerWallet) ?? []), account]);
  return wallets;
}

describe("replay --serve", () => {
  it("serves the replayed time on a manual clock", async () => {
    const admin = (await (await fetch(base.replace(/\/v2$/, "/admin/state"))).json()) as { virtualTimeMicros: number; clock: string };
    expect(admin.clock).toBe("manual");
    expect(admin.virtualTimeMicros).toBe(state.timeMicros);
    expect(state.timeMicros).toBeLessThanOrEqual(UNTIL_MS * 1_000);
  });

  it("answers openOrders and positions over HTTP exactly as the state JSON holds them", async () => {
    let orders = 0;
    let positions = 0;
    for (const [wallet, accounts] of byWallet()) {
      const expectedOrders = accounts.flatMap((account) => account.openOrders);
      const expectedPositions = accounts.flatMap((account) => account.positions);
      expect(await get(`/wallet/${wallet}/openOrders`)).toEqual(JSON.parse(JSON.stringify(expectedOrders)));
      expect(await get(`/wallet/${wallet}/positions`)).toEqual(JSON.parse(JSON.stringify(expectedPositions)));
      orders += expectedOrders.length;
      positions += expectedPositions.length;
    }
    expect(orders).toBeGreaterThan(0);
    expect(positions).toBeGreaterThan(0);
  });

  it("lets a client trade against the replayed book: a crossing order fills the head of the best ask's queue", async () => {
    const eth = state.markets.find((market) => market.symbol === "ETHRUSDPERP")!;
    const best = eth.asks[0]!;
    const head = best.orders[0]!;
    const maker = state.accounts.find((account) => account.accountId === head.accountId)!;
    const makerBefore = maker.openOrders.find((order) => order.orderId === head.orderId)!;
    const takerWallet = privateKeySigner(agentPrivateKey("noise-eth-1")).address.toLowerCase();
    const taker = state.accounts.find((account) => account.ownerWallet === takerWallet)!;
    expect(taker.accountId).not.toBe(head.accountId);
    const nowSeconds = Math.floor(state.timeMicros / 1e6);
    const response = await fetch(`${base}/createOrder`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        exchangeId: 1,
        symbol: "ETHRUSDPERP",
        accountId: taker.accountId,
        isBuy: true,
        limitPx: best.px,
        qty: "0.01",
        orderType: "LIMIT",
        timeInForce: "IOC",
        reduceOnly: false,
        signature: TRUSTED_SIGNATURE,
        // Above any nonce the run's agents used (they use their virtual time in µs).
        nonce: String(BigInt(state.timeMicros) * 1_000n),
        signerWallet: takerWallet,
        deadline: nowSeconds + 60,
      }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ status: "FILLED", execQty: "0.01", fillCount: 1 });
    const after = (await get(`/wallet/${maker.ownerWallet}/openOrders`)) as { orderId: string; cumQty: string }[];
    const makerAfter = after.find((order) => order.orderId === head.orderId)!;
    expect(Math.round((Number(makerAfter.cumQty) - Number(makerBefore.cumQty)) * 1000)).toBe(10);
  });
});
