/**
 * The admin API over real sockets, two guarantees:
 *  - durability: with `serve --record` (sync durability) an admin action is
 *    answered only once its input (or clock step) is on disk, as REST and
 *    /exec order entry are (driver.whenDurable). A server killed with
 *    SIGKILL right after answering a burst of admin actions leaves a log
 *    that holds every one of them, and its replay has each in its state;
 *  - POST /admin/markets/{symbol}: `halted` and `orderEntryDisabled` are two
 *    flags (Exchange.marketAdmin). halted: nothing matches, new orders and
 *    modifies get TRADING_HALTED_ERROR, armed stops wait; orderEntryDisabled:
 *    cancel-only, new orders and modifies get SERVICE_DISABLED_ERROR, the
 *    engine goes on matching (armed stops fire); each set and cleared on its
 *    own.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { BTC, ETH, startRestWorld, type RestWorld } from "./helpers/rest-world.ts";
import { spawnServe } from "../helpers/serve-process.ts";

// -- kill -9 after admin answers ------------------------------------------------------------------

const START_MS = 1_767_225_600_000;
/** Wide enough that a burst of admin actions answered at once would all sit in memory when the kill lands. */
const GROUP_COMMIT_MS = 200;

/** `shadowbook serve --record` in a child process (node with tsx's loader, so SIGKILL reaches the server itself). */
async function spawnServer(dir: string): Promise<{ child: ChildProcess; base: string }> {
  const served = await spawnServe({
    via: "tsx",
    args: ["--clock", "manual", "--port", "0", "--start", String(START_MS), "--record", dir],
    env: { SHADOWBOOK_GROUP_COMMIT_MS: String(GROUP_COMMIT_MS) },
  });
  expect(served.banner).toContain(`(durability: sync, group commit every ≤${GROUP_COMMIT_MS} ms)`);
  return { child: served.child, base: served.origin };
}

const OWNER = "0x00000000000000000000000000000000000000d1";
const OTHER = "0x00000000000000000000000000000000000000d2";
const SIGNER = "0x00000000000000000000000000000000000000d3";

describe("admin answers with --record (sync durability)", () => {
  it("leave only once the action is on disk: after a SIGKILL the log holds every answered admin action and replays to them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shadowbook-admin-durability-"));
    const { child, base } = await spawnServer(dir);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const post = async (path: string, body: unknown): Promise<any> => {
      const response = await fetch(`${base}/admin/${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      const text = await response.text();
      expect(response.status, `${path}: ${text}`).toBe(200);
      return JSON.parse(text);
    };
    try {
      // One burst, each action sent as the last one is answered: far inside one group-commit window were answers not held.
      expect(await post("accounts", { wallet: OWNER, accountId: 500, deposits: { rUSD: "1000" } })).toEqual({ accountId: 500 });
      expect(await post("accounts", { wallet: OTHER, accountId: 501 })).toEqual({ accountId: 501 });
      await post("deposits", { accountId: 500, asset: "rUSD", amount: "250" });
      await post("withdrawals", { accountId: 500, asset: "rUSD", amount: "50" });
      await post("transfers", { fromAccountId: 500, toAccountId: 501, asset: "rUSD", amount: "100" });
      await post("signers", { accountId: 500, signer: SIGNER });
      await post(`wallets/${OWNER}`, { rateTier: 2 });
      const { virtualTimeMicros } = await post("clock", { advanceMs: 1_500 });
      await post("prices", { prices: [{ asset: "WBTC", price: "61234.5" }] });
      await post("faults", { engineUnavailableMs: 60_000 });
      await post("assets/WETH", { status: "WITHDRAWAL_ONLY" });
      await post(`markets/${BTC}`, { halted: true });
      await post(`markets/${ETH}`, { orderEntryDisabled: true });
      child.kill("SIGKILL"); // right after the last answer
      await exited;

      const recorded = readInputLog(join(dir, "inputs.arrow"));
      // The house's own accounts come first (at start): the actions of this test begin with the account of OWNER.
      const first = recorded.steps.findIndex((step) => step.input?.kind === "admin" && step.input.admin.action === "createAccount" && step.input.admin.wallet === OWNER);
      expect(first).toBeGreaterThan(0);
      const mine = recorded.steps.slice(first).flatMap((step) => (step.input !== undefined && step.input.kind !== "request" && step.input.kind !== "prices" ? [step.input] : []));
      const expected: ExchangeInput[] = [
        { kind: "admin", admin: { action: "createAccount", wallet: OWNER, accountId: 500, deposits: { rUSD: "1000" } } },
        { kind: "admin", admin: { action: "createAccount", wallet: OTHER, accountId: 501 } },
        { kind: "admin", admin: { action: "deposit", accountId: 500, asset: "rUSD", amount: "250" } },
        { kind: "admin", admin: { action: "withdraw", accountId: 500, asset: "rUSD", amount: "50" } },
        { kind: "admin", admin: { action: "transfer", fromAccountId: 500, toAccountId: 501, asset: "rUSD", amount: "100" } },
        { kind: "admin", admin: { action: "addSigner", accountId: 500, signer: SIGNER } },
        { kind: "admin", admin: { action: "wallet", wallet: OWNER, rateTier: 2 } },
        { kind: "fault", fault: { fault: "engineUnavailable", durationMs: 60_000 } },
        { kind: "admin", admin: { action: "assetStatus", asset: "WETH", status: "WITHDRAWAL_ONLY" } },
        { kind: "admin", admin: { action: "market", symbol: BTC, halted: true } },
        { kind: "admin", admin: { action: "market", symbol: ETH, orderEntryDisabled: true } },
      ];
      expect(mine).toEqual(expected);
      expect(recorded.steps.some((step) => step.input === undefined && step.timeMicros === virtualTimeMicros)).toBe(true);
      expect(recorded.steps.some((step) => step.input?.kind === "prices" && step.input.prices.some((p) => p.asset === "WBTC" && p.price === "61234.5"))).toBe(true);

      const result = replayInputLog(recorded);
      expect(result.divergence).toBeUndefined();
      expect(result.fingerprint).toBe(recorded.steps.at(-1)!.fingerprint);
      const { exchange } = result;
      const now = exchange.now();
      expect(now).toBe(virtualTimeMicros); // the manual clock moved only by the step asked for
      expect(exchange.risk.accountOwner(500)?.toLowerCase()).toBe(OWNER);
      expect(exchange.risk.accountOwner(501)?.toLowerCase()).toBe(OTHER);
      const rUsd = (accountId: number) => exchange.risk.balances(accountId).find((row) => row.asset === "rUSD")?.realBalance;
      expect(rUsd(500)).toBe("1100"); // 1000 + 250 - 50 - 100
      expect(rUsd(501)).toBe("100");
      expect(exchange.risk.isSigner(500, SIGNER)).toBe(true);
      expect(exchange.risk.walletFlags(OWNER).rateTier).toBe(2);
      expect(exchange.risk.assetOraclePrices(now).find((row) => row.asset === "WBTC")?.oraclePrice).toBe("61234.5");
      expect(exchange.faults.active("engineUnavailable", now)).toBe(true);
      expect(exchange.risk.state.assets.get("WETH")!.status).toBe("WITHDRAWAL_ONLY");
      expect(exchange.engine.market(2)!.halted).toBe(true);
      expect(exchange.engine.market(1)!.halted).toBe(false);
      expect(exchange.isOrderEntryDisabled(ETH)).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }, 120_000);
});

// -- halted and orderEntryDisabled -------------------------------------------------------------------

describe("POST /admin/markets/{symbol}: halted and orderEntryDisabled are separate flags", () => {
  let w: RestWorld;

  beforeEach(async () => {
    w = await startRestWorld();
  });

  afterEach(async () => {
    await w?.close();
  });

  const createOrder = (symbol = ETH) => w.post("/v2/createOrder", w.create(w.alice, { symbol, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" }));
  const modifyOrder = (orderId: string) =>
    w.post("/v2/modifyOrder", w.modify(w.alice, { orderId, symbol: ETH, isBuy: true, qty: "0.02", limitPx: "1850", postOnly: false, timeInForce: "GTC" }));
  const market = (body: Record<string, boolean>) => w.admin(`markets/${ETH}`, body);
  const openOrderIds = async (address: string): Promise<string[]> => (await w.ok(`/v2/wallet/${address}/openOrders`)).map((order: any) => order.orderId);

  /**
   * Alice long 0.02 ETH (settled), a STOP_LOSS sell armed at 1900 (limit 1870),
   * bob's bid of 0.02 at 1880 for its child to hit, and alice's resting bid at
   * 1800 (for modifies and cancels). Returns the stop's and the bid's orderIds.
   */
  async function setUp(): Promise<{ stop: string; bid: string; bobBid: string }> {
    await w.trade(w.alice, w.bob, "0.02");
    const bobBid = await w.rest(w.bob, { isBuy: true, qty: "0.02", limitPx: "1880" });
    const stop = (await w.entry("createOrder", w.create(w.alice, { symbol: ETH, orderType: "STOP_LOSS", isBuy: false, triggerPx: "1900", limitPx: "1870", timeInForce: "GTC" }))).orderId;
    const bid = await w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1800" });
    return { stop, bid, bobBid };
  }

  /** Moves ETH's mark (and index) through the stop's trigger. */
  const dropMark = () => w.prices("1890");

  async function expectStopFired(ids: { stop: string; bobBid: string }): Promise<void> {
    expect(await openOrderIds(w.alice.address)).not.toContain(ids.stop);
    expect(await openOrderIds(w.bob.address)).not.toContain(ids.bobBid); // the stop's child traded with it
  }

  async function expectStopArmed(ids: { stop: string; bobBid: string }): Promise<void> {
    expect(await openOrderIds(w.alice.address)).toContain(ids.stop);
    expect(await openOrderIds(w.bob.address)).toContain(ids.bobBid);
  }

  it("halted alone: new orders and modifies get TRADING_HALTED_ERROR, cancels pass, armed stops wait for the halt to lift", async () => {
    const ids = await setUp();
    await market({ halted: true });
    expect((await createOrder()).body).toEqual({ error: "TRADING_HALTED_ERROR", message: expect.stringContaining(ETH) });
    expect((await modifyOrder(ids.bid)).body.error).toBe("TRADING_HALTED_ERROR");
    expect((await createOrder(BTC)).status).toBe(200); // another market is not halted
    await dropMark();
    await expectStopArmed(ids); // nothing matches while halted
    expect((await w.entry("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: ids.bid }))).status).toBe("CANCELLED");
    await market({ halted: false });
    await expectStopFired(ids); // the due stop fires as the halt lifts
    expect((await createOrder()).status).toBe(200);
    expect(w.running.context.exchange.isOrderEntryDisabled(ETH)).toBe(false);
  });

  it("orderEntryDisabled alone: cancel-only, new orders and modifies get SERVICE_DISABLED_ERROR, the engine goes on matching", async () => {
    const ids = await setUp();
    await market({ orderEntryDisabled: true });
    expect(w.running.context.exchange.engine.market(1)!.halted).toBe(false);
    const refused = await createOrder();
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "SERVICE_DISABLED_ERROR", message: expect.stringContaining(ETH) });
    expect((await modifyOrder(ids.bid)).body.error).toBe("SERVICE_DISABLED_ERROR");
    expect((await createOrder(BTC)).status).toBe(200); // another market takes orders
    await dropMark();
    await expectStopFired(ids); // not halted: the armed stop fires and its child trades
    expect(await w.entry("cancelAll", w.cancelAll(w.alice, { symbol: ETH }))).toEqual({ cancelledCount: 1 }); // the bid at 1800
    // A refusal consumes nothing: the very same signed request (same nonce) is accepted once order entry is back.
    const body = w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" });
    expect((await w.post("/v2/createOrder", body)).body.error).toBe("SERVICE_DISABLED_ERROR");
    await market({ orderEntryDisabled: false });
    expect((await w.post("/v2/createOrder", body)).status).toBe(200);
  });

  it("both: SERVICE_DISABLED_ERROR and no matching; clearing one leaves the other", async () => {
    const ids = await setUp();
    await market({ halted: true, orderEntryDisabled: true });
    expect((await createOrder()).body.error).toBe("SERVICE_DISABLED_ERROR"); // order entry is checked first
    await dropMark();
    await expectStopArmed(ids);
    await market({ orderEntryDisabled: false }); // still halted
    expect((await createOrder()).body.error).toBe("TRADING_HALTED_ERROR");
    await expectStopArmed(ids);
    await market({ orderEntryDisabled: true });
    await market({ halted: false }); // still cancel-only; the halt lifts, so the due stop fires
    expect((await createOrder()).body.error).toBe("SERVICE_DISABLED_ERROR");
    await expectStopFired(ids);
    await market({ orderEntryDisabled: false });
    expect((await createOrder()).status).toBe(200);
  });

  it("one body sets each flag to its own value: {halted: false, orderEntryDisabled: true} and the reverse", async () => {
    await market({ halted: false, orderEntryDisabled: true });
    expect((await createOrder()).body.error).toBe("SERVICE_DISABLED_ERROR");
    expect(w.running.context.exchange.engine.market(1)!.halted).toBe(false);
    await market({ halted: true, orderEntryDisabled: false });
    expect((await createOrder()).body.error).toBe("TRADING_HALTED_ERROR");
    expect(w.running.context.exchange.isOrderEntryDisabled(ETH)).toBe(false);
    await market({ settlementPaused: true }); // a body that names neither leaves both
    expect((await createOrder()).body.error).toBe("TRADING_HALTED_ERROR");
    await market({ halted: false, settlementPaused: false });
    expect((await createOrder()).status).toBe(200);
  });
});
