/**
 * The admin API over a real socket: every endpoint changes what the REST
 * reads and order entry then show; account creation and signer additions
 * are published on the owner's accounts channel; bad bodies get 400 naming
 * the field, and a rejected action changes nothing (same fingerprint, same
 * reads, and no input at all when the check is the admin API's own); the
 * faults body becomes one fault input per fault, in the documented order;
 * the clock moves only on a manual clock; and every action is an input of
 * the log, whose replay gives the live server's fingerprint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { CLOCK_STEP_MAX_MS } from "../../src/live/admin.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { AccountNotification } from "../../src/spec/account.ts";
import { BTC, ETH, NOBODY, Party, SPOT, startRestWorld, START_MICROS, type RestWorld } from "./helpers/rest-world.ts";
import { privateKey } from "../exchange/gateway/harness.ts";

let w: RestWorld;
let dave: Party;
const outputs: ExchangeOutput[] = [];

beforeAll(async () => {
  w = await startRestWorld();
  w.running.context.exchange.subscribe((output) => outputs.push(output));
  dave = new Party("dave", privateKey(4), 2, { now: () => w.now() });
});

afterAll(async () => {
  await w?.close();
});

interface Rejection {
  status?: number;
  code?: string;
  mentions?: string[];
  /** Whether the Exchange saw the action (its own rejection) or the admin API refused it first. */
  reachesExchange?: boolean;
}

/** POSTs an admin action that must be refused, and checks that nothing changed. */
async function refused(path: string, body: unknown, rejection: Rejection = {}): Promise<string> {
  const before = await w.ok("/admin/state");
  const logged = w.log.length;
  const answer = await w.post(`/admin/${path}`, body);
  expect(answer.status, answer.text).toBe(rejection.status ?? 400);
  expect(answer.body).toEqual({ error: rejection.code ?? "INPUT_VALIDATION_ERROR", message: expect.any(String) });
  for (const mention of rejection.mentions ?? []) expect(answer.body.message).toContain(mention);
  const after = await w.ok("/admin/state");
  expect(after.fingerprint).toBe(before.fingerprint);
  const { inputs: _before, ...countsBefore } = before.counts;
  const { inputs: _after, ...countsAfter } = after.counts;
  expect(countsAfter).toEqual(countsBefore);
  expect(w.log.length).toBe(logged + (rejection.reachesExchange === true ? 1 : 0));
  return answer.body.message;
}

async function accountsOf(address: string): Promise<any[]> {
  return w.ok(`/v2/wallet/${address}/accounts`);
}

async function balance(address: string, accountId: number, asset: string): Promise<string | undefined> {
  const balances = await w.ok(`/v2/wallet/${address}/accountBalances`);
  return balances.find((b: any) => b.accountId === accountId && b.asset === asset)?.realBalance;
}

async function createOrder(party: Party, symbol = ETH): Promise<{ status: number; body: any }> {
  return w.post("/v2/createOrder", w.create(party, { symbol, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" }));
}

describe("POST /admin/accounts", () => {
  it("creates accounts, with an explicit or the next id and deposits, and publishes them on the owner's accounts channel", async () => {
    const seen = outputs.length;
    expect(await w.admin("accounts", { wallet: dave.address, accountId: 20, deposits: { rUSD: "50", WETH: "0.5" } })).toEqual({ accountId: 20 });
    expect(await w.admin("accounts", { wallet: dave.address })).toEqual({ accountId: 21 });
    expect((await accountsOf(dave.address)).map((a) => [a.accountId, a.ownerWallet])).toEqual([
      [20, dave.address.toLowerCase()],
      [21, dave.address.toLowerCase()],
    ]);
    expect(await balance(dave.address, 20, "rUSD")).toBe("50");
    expect(await balance(dave.address, 20, "WETH")).toBe("0.5");
    const published = outputs.slice(seen).filter((output) => output.kind === "account");
    expect(published.map((output) => (output.kind === "account" ? [output.wallet, AccountNotification.parse(output.notification).accountId, output.notification.event] : []))).toEqual([
      [dave.address.toLowerCase(), 20, "ACCOUNT_CREATED"],
      [dave.address.toLowerCase(), 21, "ACCOUNT_CREATED"],
    ]);
  });

  it("reaches a client subscribed to the wallet's accounts channel", async () => {
    const erin = new Party("erin", privateKey(5), 40, { now: () => w.now() });
    const channel = `/v2/wallet/${erin.address}/accounts`;
    const socket = new WebSocket(w.running.urls.stream);
    const frames: any[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    try {
      socket.send(JSON.stringify({ type: "subscribe", channel }));
      await expect.poll(() => frames.some((frame) => frame.type === "subscribed")).toBe(true);
      await w.admin("accounts", { wallet: erin.address, accountId: 40 });
      await expect.poll(() => frames.find((frame) => frame.type === "channel_data")).toBeDefined();
      const data = frames.find((frame) => frame.type === "channel_data");
      expect(data.channel).toBe(channel);
      expect(data.data).toEqual([{ accountId: 40, ownerWallet: erin.address.toLowerCase(), event: "ACCOUNT_CREATED", timestamp: w.nowMs() }]);
    } finally {
      socket.close();
    }
  });

  it("refuses bad bodies naming the field, and a rejected creation creates nothing", async () => {
    expect(await refused("accounts", { wallet: "0x12" })).toMatch(/^wallet: /);
    expect(await refused("accounts", { wallet: dave.address, accountId: -1 })).toMatch(/^accountId: /);
    expect(await refused("accounts", { wallet: dave.address, accountId: 1.5 })).toMatch(/^accountId: /);
    expect(await refused("accounts", { wallet: dave.address, color: "red" })).toContain("color");
    expect(await refused("accounts", { accountId: 30 })).toMatch(/^wallet: /);
    await refused("accounts", { wallet: dave.address, accountId: 30, deposits: { DOGE: "1" } }, { mentions: ["deposits.DOGE", '"DOGE" is not a configured asset'] });
    await refused("accounts", { wallet: dave.address, accountId: 30, deposits: { rUSD: "1.1234567" } }, { mentions: ["more than 6 decimals of rUSD"] });
    await refused("accounts", { wallet: dave.address, accountId: 30, deposits: { rUSD: "0" } }, { mentions: ["greater than 0"] });
    await refused("accounts", { wallet: dave.address, accountId: 30, deposits: { rUSD: "-5" } }, { mentions: ["deposits.rUSD"] });
    await refused("accounts", { wallet: dave.address, accountId: 2 }, { mentions: ["accountId 2 already exists"], reachesExchange: true });
    expect((await accountsOf(dave.address)).map((a) => a.accountId)).toEqual([20, 21]);
  });
});

describe("POST /admin/deposits, /admin/withdrawals, /admin/transfers", () => {
  it("moves balances and books ledger entries", async () => {
    const deposit = await w.admin("deposits", { accountId: 20, asset: "rUSD", amount: "5" });
    expect(deposit).toMatchObject({ entries: 1 });
    expect(deposit.balances.find((b: any) => b.asset === "rUSD").realBalance).toBe("55");
    await w.admin("withdrawals", { accountId: 20, asset: "rUSD", amount: "2.5" });
    expect(await balance(dave.address, 20, "rUSD")).toBe("52.5");
    const moved = await w.admin("transfers", { fromAccountId: 20, toAccountId: 21, asset: "rUSD", amount: "10" });
    expect(moved.balances.map((b: any) => [b.accountId, b.asset, b.realBalance])).toEqual([
      [20, "WETH", "0.5"],
      [20, "rUSD", "42.5"],
      [21, "rUSD", "10"],
    ]);
    const ledger = (await w.ok(`/v2/wallet/${dave.address}/transfers?limit=3`)).data;
    expect(ledger.map((entry: any) => [entry.type, entry.accountId, entry.amount])).toEqual([
      ["TRANSFER_IN", 21, "10"],
      ["TRANSFER_OUT", 20, "-10"],
      ["WITHDRAWAL", 20, "-2.5"],
    ]);
  });

  it("refuses bad amounts, unknown accounts and assets, and overdrafts, changing nothing", async () => {
    await refused("withdrawals", { accountId: 20, asset: "rUSD", amount: "1000" }, { code: "INSUFFICIENT_BALANCE_ERROR", mentions: ["accountId 20"], reachesExchange: true });
    await refused("deposits", { accountId: 999, asset: "rUSD", amount: "1" }, { code: "NO_ACCOUNTS_FOUND_ERROR", mentions: ["999"], reachesExchange: true });
    await refused("transfers", { fromAccountId: 20, toAccountId: 998, asset: "rUSD", amount: "1" }, { code: "NO_ACCOUNTS_FOUND_ERROR", reachesExchange: true });
    await refused("transfers", { fromAccountId: 20, toAccountId: 20, asset: "rUSD", amount: "1" }, { mentions: ["toAccountId"] });
    await refused("deposits", { accountId: 20, asset: "DOGE", amount: "1" }, { mentions: ['"DOGE"'] });
    await refused("deposits", { accountId: 20, asset: "rUSD", amount: "abc" }, { mentions: ["amount"] });
    await refused("deposits", { accountId: 20, asset: "rUSD", amount: "1e400" }, { mentions: ['amount "1e400"'] });
    await refused("deposits", { accountId: 20, asset: "rUSD", amount: 5 }, { mentions: ["amount"] });
    await refused("deposits", { accountId: 20, asset: "rUSD" }, { mentions: ["amount"] });
    expect(await balance(dave.address, 20, "rUSD")).toBe("42.5");
  });
});

describe("POST /admin/signers", () => {
  it("permissions a signer on an account: its signed orders are then accepted, and the owner's accounts channel tells", async () => {
    const denied = await createOrder(dave);
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe("UNAUTHORIZED_SIGNATURE_ERROR");
    const seen = outputs.length;
    expect(await w.admin("signers", { accountId: 2, signer: dave.address })).toEqual({ accountId: 2, signer: dave.address });
    expect((await accountsOf(w.alice.address))[0].signers).toEqual([w.alice.address.toLowerCase(), dave.address.toLowerCase()].sort());
    const accepted = await createOrder(dave);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await w.ok(`/v2/wallet/${w.alice.address}/openOrders`)).map((o: any) => o.orderId)).toContain(accepted.body.orderId);
    const published = outputs.slice(seen).find((output) => output.kind === "account");
    expect(published).toMatchObject({ kind: "account", wallet: w.alice.address.toLowerCase(), notification: { accountId: 2, event: "SIGNER_ADDED", signer: dave.address } });
  });

  it("refuses an unknown account or a malformed signer", async () => {
    await refused("signers", { accountId: 777, signer: dave.address }, { code: "NO_ACCOUNTS_FOUND_ERROR", reachesExchange: true });
    expect(await refused("signers", { accountId: 2, signer: "dave" })).toMatch(/^signer: /);
  });
});

describe("POST /admin/assets/{asset}", () => {
  it("sets an asset's status: WITHDRAWAL_ONLY refuses deposits, also those of a new account", async () => {
    expect(await w.admin("assets/WETH", { status: "WITHDRAWAL_ONLY" })).toEqual({ asset: "WETH", status: "WITHDRAWAL_ONLY" });
    expect((await w.ok("/v2/assetDefinitions")).find((a: any) => a.asset === "WETH").status).toBe("WITHDRAWAL_ONLY");
    await refused("deposits", { accountId: 20, asset: "WETH", amount: "1" }, { mentions: ["WITHDRAWAL_ONLY"], reachesExchange: true });
    await refused("accounts", { wallet: dave.address, accountId: 31, deposits: { WETH: "1" } }, { mentions: ["WITHDRAWAL_ONLY"] });
    await w.admin("withdrawals", { accountId: 20, asset: "WETH", amount: "0.1" });
    await w.admin("assets/WETH", { status: "ENABLED" });
    await w.admin("deposits", { accountId: 20, asset: "WETH", amount: "0.1" });
    expect(await balance(dave.address, 20, "WETH")).toBe("0.5");
  });

  it("refuses an unknown or malformed asset and an unknown status", async () => {
    await refused("assets/DOGE", { status: "ENABLED" }, { mentions: ['"DOGE"'] });
    await refused("assets/W-ETH", { status: "ENABLED" }, { mentions: ['asset "W-ETH"'] });
    expect(await refused("assets/WETH", { status: "FROZEN" })).toMatch(/^status: /);
  });
});

describe("POST /admin/prices", () => {
  it("sets oracle prices by asset and by symbol", async () => {
    expect(await w.admin("prices", { prices: [{ asset: "WETH", price: "2050" }, { symbol: ETH, price: "2050" }] })).toEqual({ updated: 2 });
    const prices = await w.ok("/v2/assetOraclePrices");
    expect(prices.find((p: any) => p.asset === "WETH")).toEqual({ asset: "WETH", oraclePrice: "2050", updatedAt: w.nowMs() });
    await w.advance(1_000);
    expect((await w.ok(`/v2/perpMarket/${ETH}/summary`)).oraclePrice).toBe("2050");
  });

  it("refuses a bad list whole: nothing of it is applied", async () => {
    const both = await refused("prices", { prices: [{ asset: "WETH", price: "1" }, { asset: "WETH", symbol: ETH, price: "2100" }] }, { reachesExchange: true });
    expect(both).toContain("prices[1]");
    await refused("prices", { prices: [{ symbol: "DOGERUSDPERP", price: "1" }] }, { mentions: ["DOGERUSDPERP"], reachesExchange: true });
    await refused("prices", { prices: [{ asset: "WETH", price: "0" }] }, { mentions: ["greater than 0"], reachesExchange: true });
    expect(await refused("prices", { prices: [] })).toMatch(/^prices: /);
    expect(await refused("prices", { prices: [{ asset: "WETH", price: 2000 }] })).toMatch(/^prices\[0\]\.price: /);
    expect((await w.ok("/v2/assetOraclePrices")).find((p: any) => p.asset === "WETH").oraclePrice).toBe("2050");
  });
});

describe("POST /admin/clock", () => {
  it("advances the manual clock by ms or to a time, answering the new virtual time; timers fire on the way", async () => {
    const start = w.nowMs();
    expect(await w.admin("clock", { advanceMs: 250 })).toEqual({ virtualTime: start + 250, virtualTimeMicros: (start + 250) * 1000 });
    expect(await w.admin("clock", { to: start + 1_000 })).toEqual({ virtualTime: start + 1_000, virtualTimeMicros: (start + 1_000) * 1000 });
    expect(await w.admin("clock", { advanceMs: 0 })).toMatchObject({ virtualTime: start + 1_000 });
    expect((await w.ok("/admin/state")).virtualTime).toBe(start + 1_000);
    const summary = await w.ok(`/v2/perpMarket/${ETH}/summary`);
    expect(summary.updatedAt).toBeGreaterThan(start); // the summary timer fired as the clock moved
  });

  it("refuses to go back, an ambiguous or empty body, and a negative advance", async () => {
    await refused("clock", { to: w.nowMs() - 1 }, { mentions: ["never goes back"] });
    await refused("clock", { to: w.nowMs() + 5, advanceMs: 5 }, { mentions: ["exactly one"] });
    await refused("clock", {}, { mentions: ["exactly one"] });
    expect(await refused("clock", { advanceMs: -1 })).toMatch(/^advanceMs: /);
  });

  it("refuses a step of more than one day, which would block the server, and leaves the clock where it was", async () => {
    const before = w.nowMs();
    await refused("clock", { advanceMs: CLOCK_STEP_MAX_MS + 1 }, { mentions: [`advanceMs ${CLOCK_STEP_MAX_MS + 1}`, "one day", "in steps"] });
    await refused("clock", { advanceMs: 1e12 }, { mentions: ["advanceMs 1000000000000", "one day"] });
    await refused("clock", { to: before + CLOCK_STEP_MAX_MS + 1 }, { mentions: [`to ${before + CLOCK_STEP_MAX_MS + 1}`, `${CLOCK_STEP_MAX_MS + 1} ms ahead`] });
    expect((await w.ok("/admin/state")).virtualTime).toBe(before);
  });

  it("is refused with 409 on a wall clock", async () => {
    const wall = await startRestWorld({ clock: "wall", bare: true });
    try {
      const answer = await wall.post("/admin/clock", { advanceMs: 1_000 });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: "CLOCK_NOT_MANUAL", message: expect.stringContaining("manual") });
      expect((await wall.ok("/admin/state")).clock).toBe("wall");
    } finally {
      await wall.close();
    }
  });
});

describe("POST /admin/markets/{symbol}", () => {
  it("halts and reopens order entry", async () => {
    await w.admin(`markets/${ETH}`, { halted: true });
    const halted = await createOrder(w.alice);
    expect(halted.body.error).toBe("TRADING_HALTED_ERROR");
    await w.admin(`markets/${ETH}`, { halted: false });
    expect((await createOrder(w.alice)).status).toBe(200);
    await w.admin(`markets/${ETH}`, { orderEntryDisabled: true });
    expect((await createOrder(w.alice)).body.error).toBe("SERVICE_DISABLED_ERROR"); // cancel-only, not halted (admin-durability.test.ts has the flag rules)
    await w.admin(`markets/${ETH}`, { orderEntryDisabled: false });
    expect((await createOrder(w.alice)).status).toBe(200);
  });

  it("pauses settlement: crossing orders are refused meanwhile, and matches not yet settled bust with MarketPaused", async () => {
    await w.rest(w.bob, { isBuy: false, qty: "0.02", limitPx: "2000" });
    await w.admin(`markets/${ETH}`, { settlementPaused: true });
    const ioc = () => w.post("/v2/createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.02", limitPx: "2000", timeInForce: "IOC" }));
    expect((await ioc()).body.error).toBe("CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR");
    await w.admin(`markets/${ETH}`, { settlementPaused: false });
    expect((await ioc()).body.status).toBe("FILLED");
    await w.admin(`markets/${ETH}`, { settlementPaused: true }); // before the block that would settle the match
    await w.advance(200);
    const bust = (await w.ok(`/v2/market/${ETH}/executionBusts?limit=1`)).data[0];
    expect(bust).toMatchObject({ qty: "0.02", takerAccountId: 2, makerAccountId: 3, reason: { reasonName: "MarketPaused", marketId: 1 } });
    await w.admin(`markets/${ETH}`, { settlementPaused: false });
    await w.entry("cancelAll", w.cancelAll(w.bob, {}));
  });

  it("closes a perp market: MARKET_CLOSE executions at the settlement price, then no more orders", async () => {
    await w.rest(w.bob, { symbol: BTC, isBuy: false, qty: "0.01", limitPx: "60000" });
    expect((await w.entry("createOrder", w.create(w.alice, { symbol: BTC, isBuy: true, qty: "0.01", limitPx: "60000", timeInForce: "IOC" }))).status).toBe("FILLED");
    await refused(`markets/${BTC}`, { closed: true }, { mentions: ["pending settlement"] });
    await w.advance(200);
    await refused(`markets/${BTC}`, { closed: true, settlementPrice: "61000.05" }, { mentions: ['"61000.05"'] });
    expect(await w.admin(`markets/${BTC}`, { closed: true, settlementPrice: "61000" })).toEqual({ symbol: BTC });
    const closes = (await w.ok(`/v2/market/${BTC}/perpExecutions`)).data.filter((e: any) => e.type === "MARKET_CLOSE");
    expect(closes.map((e: any) => [e.takerAccountId, e.price, e.qty])).toEqual(
      expect.arrayContaining([
        [2, "61000", "0.01"],
        [3, "61000", "0.01"],
      ]),
    );
    expect((await w.ok(`/v2/wallet/${w.alice.address}/positions`)).filter((p: any) => p.symbol === BTC)).toEqual([]);
    expect((await createOrder(w.alice, BTC)).body.error).toBe("TRADING_HALTED_ERROR");
    await refused(`markets/${BTC}`, { closed: true }, { mentions: ["already closed"] });
    // Halted for good: it cannot be un-halted, and the refusal changes nothing.
    await refused(`markets/${BTC}`, { halted: false, orderEntryDisabled: true }, { mentions: ["is closed", "halted for good"], reachesExchange: true });
    expect((await createOrder(w.alice, BTC)).body.error).toBe("TRADING_HALTED_ERROR");
  });

  it("refuses what it cannot do before touching the market", async () => {
    await refused(`markets/${SPOT}`, { halted: true, closed: true }, { mentions: ["only perp markets"] });
    expect((await w.post("/v2/createOrder", w.create(w.carol, { symbol: SPOT, isBuy: false, qty: "0.01", limitPx: "2500", timeInForce: "GTC" }))).status).toBe(200); // not halted
    await refused(`markets/${ETH}`, {}, { mentions: ["at least one"] });
    await refused(`markets/${ETH}`, { closed: false }, { mentions: ["does not reopen"] });
    await refused(`markets/${ETH}`, { settlementPrice: "2000" }, { mentions: ["closed: true"] });
    expect(await refused(`markets/${ETH}`, { halted: "yes" })).toMatch(/^halted: /);
    await refused("markets/DOGERUSDPERP", { halted: true }, { code: "SYMBOL_NOT_FOUND_ERROR", reachesExchange: true });
    await refused("markets/ETH-PERP", { halted: true }, { mentions: ['symbol "ETH-PERP"'] });
  });
});

describe("POST /admin/wallets/{address}", () => {
  it("sets wallet flags that order entry and the configuration route then show", async () => {
    expect(await w.admin(`wallets/${w.bob.address}`, { suspended: true })).toEqual({ wallet: w.bob.address });
    expect((await createOrder(w.bob)).body.error).toBe("ACCOUNT_SUSPENDED_ERROR");
    await w.admin(`wallets/${w.bob.address}`, { suspended: false });
    expect((await createOrder(w.bob)).status).toBe(200);
    await w.admin(`wallets/${w.bob.address}`, { feeTierId: 10, og: true, affiliate: true, referrer: w.alice.address });
    expect(await w.ok(`/v2/wallet/${w.bob.address}/configuration`)).toEqual({ feeTierId: 10, ogStatus: true, affiliateStatus: true, refereeStatus: true });
    await w.admin(`wallets/${NOBODY}`, {});
    expect((await w.ok(`/v2/wallet/${NOBODY}/configuration`)).feeTierId).toBe(1);
  });

  it("refuses what the risk layer would not take", async () => {
    await refused(`wallets/${w.bob.address}`, { feeTierId: 1 }, { mentions: ["not a VIP fee tier", "10"] });
    await refused(`wallets/${w.bob.address}`, { rateTier: 9 }, { mentions: ["rateTier 9"] });
    expect(await refused(`wallets/${w.bob.address}`, { rateTier: 0 })).toMatch(/^rateTier: /);
    await refused(`wallets/${w.bob.address}`, { referrer: w.bob.address.toUpperCase().replace("0X", "0x") }, { mentions: ["refer itself"] });
    await refused("wallets/0x1234", { og: true }, { mentions: ['address "0x1234"'] });
    expect((await w.ok(`/v2/wallet/${w.bob.address}/configuration`)).feeTierId).toBe(10);
  });
});

describe("POST /admin/faults", () => {
  it("sends one fault input per fault, in the documented order, each with its effect", async () => {
    const logged = w.log.length;
    expect(await w.admin("faults", { oracleStaleMs: 3_000, engineUnavailableMs: 1_000, serviceDisabledMs: 500 })).toEqual({
      faults: ["engineUnavailable", "serviceDisabled", "oracleStale"],
    });
    expect(w.log.slice(logged).map(({ input }) => input)).toEqual([
      { kind: "fault", fault: { fault: "engineUnavailable", durationMs: 1_000 } },
      { kind: "fault", fault: { fault: "serviceDisabled", durationMs: 500 } },
      { kind: "fault", fault: { fault: "oracleStale", durationMs: 3_000 } },
    ]);
    expect((await createOrder(w.alice)).body.error).toBe("SERVICE_DISABLED_ERROR");
    await w.advance(500);
    expect((await createOrder(w.alice)).body.error).toBe("UNAVAILABLE_MATCHING_ENGINE_ERROR");
    await w.advance(500);
    expect((await createOrder(w.alice)).body.error).toBe("NO_PRICES_FOUND_FOR_SYMBOL_ERROR");
    await w.advance(2_000);
    await w.prices();
    expect((await createOrder(w.alice)).status).toBe(200);
    await w.admin("faults", { accountOwnerUnavailableMs: 1_000 });
    expect((await createOrder(w.alice)).body.error).toBe("UNAVAILABLE_ACCOUNT_OWNER_ERROR");
    await w.advance(1_000);
  });

  it("busts the next matches with the reason given", async () => {
    await w.admin("faults", { bustNext: { count: 1, reasonName: "GasPriceTooLow" } });
    await w.trade(w.alice, w.bob, "0.01");
    const busts = (await w.ok(`/v2/wallet/${w.alice.address}/executionBusts?limit=1`)).data;
    expect(busts[0]).toMatchObject({ symbol: ETH, qty: "0.01", reason: { reasonName: "GasPriceTooLow", args: {} } });
    await w.trade(w.alice, w.bob, "0.01");
    expect((await w.ok(`/v2/wallet/${w.alice.address}/perpExecutions?limit=1`)).data[0]).toMatchObject({ qty: "0.01", type: "ORDER_MATCH" });
  });

  it("busts with a modeled reason carry its typed fields, taken from the busted match", async () => {
    await w.admin("faults", { bustNext: { count: 1, reasonName: "AccountBelowIM" } });
    await w.trade(w.alice, w.bob, "0.01");
    const busts = (await w.ok(`/v2/wallet/${w.alice.address}/executionBusts?limit=1`)).data;
    expect(busts[0]).toMatchObject({ qty: "0.01", reason: { reasonName: "AccountBelowIM", delta: "0", shortfall: "0" } });
    expect(busts[0].reason.accountId).toBe(busts[0].takerAccountId);
  });

  it("validates the whole body before sending any fault", async () => {
    await refused("faults", { engineUnavailableMs: 1_000, dropResponses: 0 }, { mentions: ["dropResponses"] });
    await refused("faults", { bustNext: { count: 1, reasonName: "not a name!" } }, { mentions: ["bustNext.reasonName"] });
    await refused("faults", { bustNext: { count: -1 } }, { mentions: ["bustNext.count"] });
    await refused("faults", { engineUnavailableMs: 1.5 }, { mentions: ["engineUnavailableMs"] });
    await refused("faults", { meteorStrike: true }, { mentions: ["meteorStrike"] });
    await refused("faults", {}, { mentions: ["at least one fault"] });
    expect((await createOrder(w.alice)).status).toBe(200);
  });
});

describe("POST /admin/resync and GET /admin/state", () => {
  it("resync closes the stream connections (through the stream surface) and answers how many", async () => {
    const context = w.running.context;
    const original = context.resyncStreams;
    let calls = 0;
    context.resyncStreams = () => {
      calls++;
      return 3;
    };
    try {
      const answer = await w.request("POST", "/admin/resync");
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ closed: 3 });
      expect(calls).toBe(1);
    } finally {
      context.resyncStreams = original;
    }
  });

  it("resync closes a real stream connection with 1012", async () => {
    const socket = new WebSocket(w.running.urls.stream);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    const answer = await w.request("POST", "/admin/resync");
    expect(answer.body).toEqual({ closed: 1 });
    expect(await closed).toBe(1012);
  });

  it("state answers the virtual time, the run fingerprint and the counts", async () => {
    const state = await w.ok("/admin/state");
    expect(state).toEqual({ virtualTime: w.nowMs(), virtualTimeMicros: w.now(), clock: "manual", fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), counts: expect.any(Object) });
    expect(state.counts.inputs).toBe(w.log.length);
    expect(state.counts.account).toBe(outputs.filter((output) => output.kind === "account").length + 3); // the three parties' accounts came before this file subscribed
  });
});

describe("Admin routing", () => {
  it("lists its routes, and answers 404, 405 and bad bodies with JSON", async () => {
    const index = await w.ok("/admin");
    expect(index.routes).toContain("POST /admin/faults");
    expect(index.routes).toHaveLength(14);
    expect((await w.get("/admin/nothing")).body).toEqual({ error: "NOT_FOUND", message: expect.stringContaining("/admin/nothing") });
    const wrong = await w.get("/admin/accounts");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await w.post("/admin/state", {})).status).toBe(405);
    const text = await w.request("POST", "/admin/deposits", { body: "{nope", headers: { "content-type": "application/json" } });
    expect(text.status).toBe(400);
    expect(text.body.message).toContain("not valid JSON");
    const type = await w.request("POST", "/admin/deposits", { body: "{}", headers: { "content-type": "text/plain" } });
    expect(type.status).toBe(400);
    expect(type.body.message).toContain("application/json");
  });
});

describe("Every admin action is an input of the log", () => {
  it("and replaying the log gives the live server's fingerprint", async () => {
    const state = await w.ok("/admin/state");
    const exchange = new Exchange({ config: w.config, startMicros: START_MICROS, seed: 7 });
    const fingerprint = new Fingerprint();
    exchange.subscribe((output) => fingerprint.update(output));
    for (const { atMicros, input } of w.log) exchange.handle(input, atMicros);
    exchange.advanceTo(state.virtualTimeMicros);
    expect(fingerprint.digest()).toBe(state.fingerprint);
    const kinds = new Set(w.log.map(({ input }) => (input.kind === "admin" ? input.admin.action : input.kind)));
    for (const kind of ["createAccount", "deposit", "withdraw", "transfer", "addSigner", "assetStatus", "market", "wallet", "prices", "fault", "request"]) expect(kinds, kind).toContain(kind);
  });
});
