/**
 * exchangeState: the whole state of an Exchange as JSON, after a hand-built
 * sequence of inputs whose outcome follows from the inputs: the book's
 * levels and queues, pending settlements with their fill ids, then the
 * positions once the block settled them; and reading it changes nothing.
 */
import { describe, expect, it } from "vitest";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { Exchange, type ExchangeAnswer } from "../../src/exchange/exchange.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { ExchangeQueries } from "../../src/exchange/queries.ts";
import { exchangeState, stateCounts, type ExchangeState } from "../../src/record/exchange-state.ts";
import { DUMMY_SIGNATURE, runFlow, START_MICROS, trustedConfig, wallet } from "../exchange/flow.ts";

const BLOCK_MICROS = 100_000; // the default chain's block interval
const DEPOSIT = "100000";
const PRICE = "3000";

/** Three accounts (ids 2, 3, 4), prices, and order entry in trusted mode. */
class Desk {
  readonly exchange = new Exchange({ config: trustedConfig(), startMicros: START_MICROS, seed: 5 });
  now = START_MICROS;
  private nonce = 0;

  constructor() {
    for (const n of [0, 1, 2]) this.ok({ kind: "admin", admin: { action: "createAccount", wallet: wallet(100 + n), deposits: { rUSD: DEPOSIT } } });
    this.ok({ kind: "prices", prices: [{ asset: "WETH", price: PRICE }, { symbol: "ETHRUSDPERP", price: PRICE }] });
  }

  ok(input: ExchangeInput): Record<string, unknown> {
    const answer: ExchangeAnswer = this.exchange.handle(input, this.now);
    if (!answer.ok) throw new Error(`${JSON.stringify(input)} refused: ${answer.error.message}`);
    return answer.payload;
  }

  order(accountId: number, isBuy: boolean, limitPx: string, qty: string, timeInForce: "GTC" | "IOC" = "GTC"): Record<string, unknown> {
    this.now += 1_000;
    return this.ok({
      kind: "request",
      op: "createOrder",
      body: {
        exchangeId: 1,
        symbol: "ETHRUSDPERP",
        accountId,
        isBuy,
        limitPx,
        qty,
        orderType: "LIMIT",
        timeInForce,
        ...(timeInForce === "IOC" ? { reduceOnly: false } : {}),
        signature: DUMMY_SIGNATURE,
        nonce: String(++this.nonce),
        signerWallet: wallet(100 + accountId - 2),
        deadline: Math.floor(this.now / 1e6) + (timeInForce === "IOC" ? 60 : 3_600),
      },
    });
  }

  cancelAllAfter(accountId: number, timeoutMs: number): void {
    this.now += 1_000;
    this.ok({
      kind: "request",
      op: "cancelAllAfter",
      body: { accountId, timeoutMs, signature: DUMMY_SIGNATURE, nonce: String(++this.nonce), signerWallet: wallet(100 + accountId - 2), deadline: Math.floor(this.now / 1e6) + 60 },
    });
  }
}

/** Thousandths as a canonical decimal ("0.3", "1", "1.2"). */
const milli = (units: number) => String(units / 1000);

describe("exchangeState", () => {
  // Bids at 2990: A 1.000, B 0.500, A 0.400 (in that order), and A 0.200 at 2980; an ask of B 0.300 at 3010.
  // C sells 1.200 IOC at 2985: it takes A's 1.000 then 0.200 of B's 0.500, at 2990.
  const a1Milli = 1000;
  const b1Milli = 500;
  const a3Milli = 400;
  const sellMilli = 1200;
  const desk = new Desk();
  const a1 = desk.order(2, true, "2990", milli(a1Milli));
  const b1 = desk.order(3, true, "2990", milli(b1Milli));
  const a3 = desk.order(2, true, "2990", milli(a3Milli));
  const a2 = desk.order(2, true, "2980", "0.2");
  const b2 = desk.order(3, false, "3010", "0.3");
  desk.cancelAllAfter(3, 60_000);
  const armedAt = desk.now;
  const taker = desk.order(4, false, "2985", milli(sellMilli), "IOC");
  const matchedAt = desk.now;
  const before = exchangeState(desk.exchange);
  const b1LeftMilli = a1Milli + b1Milli - sellMilli;
  const firstFillId = BigInt(taker["firstFillId"] as string);

  it("holds each book level with its orders in queue order and their remaining quantity", () => {
    const eth = before.markets.find((market) => market.symbol === "ETHRUSDPERP")!;
    expect(eth.bids).toEqual([
      {
        px: "2990",
        qty: milli(b1LeftMilli + a3Milli),
        orders: [
          { orderId: b1["orderId"], accountId: 3, qty: milli(b1LeftMilli) },
          { orderId: a3["orderId"], accountId: 2, qty: milli(a3Milli) },
        ],
      },
      { px: "2980", qty: "0.2", orders: [{ orderId: a2["orderId"], accountId: 2, qty: "0.2" }] },
    ]);
    expect(eth.asks).toEqual([{ px: "3010", qty: "0.3", orders: [{ orderId: b2["orderId"], accountId: 3, qty: "0.3" }] }]);
    expect(before.markets.map((market) => market.marketId)).toEqual([...before.markets.map((market) => market.marketId)].sort((x, y) => x - y));
    expect(before.markets.filter((market) => market.symbol !== "ETHRUSDPERP").every((market) => market.bids.length === 0 && market.asks.length === 0)).toBe(true);
  });

  it("lists the matches waiting for their block, with their fill ids, and no position yet", () => {
    expect(taker["fillCount"]).toBe(2);
    expect(before.timeMicros).toBe(matchedAt);
    const common = { symbol: "ETHRUSDPERP", matchedAt: matchedAt / 1000, takerAccountId: 4, takerOrderId: taker["orderId"], side: "A", px: "2990" };
    expect(before.pendingSettlements).toEqual({
      blockHeight: 0,
      matches: [
        { ...common, fillId: String(firstFillId), makerAccountId: 2, makerOrderId: a1["orderId"], qty: milli(a1Milli) },
        { ...common, fillId: String(firstFillId + 1n), makerAccountId: 3, makerOrderId: b1["orderId"], qty: milli(sellMilli - a1Milli) },
      ],
    });
    for (const account of before.accounts) expect(account.positions).toEqual([]);
    const traders = before.accounts.filter((account) => account.accountId >= 2);
    expect(traders.map((account) => account.balances.map((balance) => [balance.asset, balance.realBalance]))).toEqual([[["rUSD", DEPOSIT]], [["rUSD", DEPOSIT]], [["rUSD", DEPOSIT]]]);
  });

  it("gives each account its owner, open orders in the wire shape, and an armed cancelAllAfter", () => {
    expect(before.accounts.map((account) => account.accountId)).toEqual([1, 2, 3, 4]);
    const byId = new Map(before.accounts.map((account) => [account.accountId, account]));
    expect(byId.get(2)!.ownerWallet).toBe(wallet(100));
    expect(byId.get(4)!.ownerWallet).toBe(wallet(102));
    expect(byId.get(2)!.openOrders.map((order) => order.orderId)).toEqual([a3["orderId"], a2["orderId"]]);
    expect(byId.get(3)!.openOrders.map((order) => [order.orderId, order.qty, order.cumQty])).toEqual([
      [b1["orderId"], milli(b1Milli), milli(b1Milli - b1LeftMilli)],
      [b2["orderId"], "0.3", "0"],
    ]);
    expect(byId.get(4)!.openOrders).toEqual([]);
    const queries = new ExchangeQueries(desk.exchange);
    expect(byId.get(3)!.openOrders).toEqual(queries.openOrders(wallet(101)));
    expect(byId.get(3)!.cancelAllAfter).toEqual({ triggerAt: armedAt / 1000 + 60_000 });
    expect("cancelAllAfter" in byId.get(2)!).toBe(false);
    expect(stateCounts(before)).toMatchObject({ openOrders: 4, positions: 0, pendingSettlements: 2, accounts: 4, restingLevels: 3 });
  });

  it("after the block: nothing pending, and the positions the fills made", () => {
    desk.now = START_MICROS + 2 * BLOCK_MICROS;
    desk.exchange.advanceTo(desk.now);
    const after = exchangeState(desk.exchange);
    expect(after.pendingSettlements.matches).toEqual([]);
    expect(after.pendingSettlements.blockHeight).toBe(2);
    const positions = (accountId: number) => after.accounts.find((account) => account.accountId === accountId)!.positions.map((p) => [p.symbol, p.side, p.qty, p.avgEntryPrice]);
    expect(positions(2)).toEqual([["ETHRUSDPERP", "B", milli(a1Milli), "2990"]]);
    expect(positions(3)).toEqual([["ETHRUSDPERP", "B", milli(sellMilli - a1Milli), "2990"]]);
    expect(positions(4)).toEqual([["ETHRUSDPERP", "A", milli(sellMilli), "2990"]]);
    const queries = new ExchangeQueries(desk.exchange);
    for (const account of after.accounts) {
      expect(account.positions).toEqual(queries.positions(account.ownerWallet).filter((p) => p.accountId === account.accountId));
      expect(account.balances).toEqual(queries.accountBalances(account.ownerWallet).filter((b) => b.accountId === account.accountId));
    }
    // The taker paid a fee at settlement: its rUSD moved off the deposit.
    expect(after.accounts.find((account) => account.accountId === 4)!.balances[0]!.realBalance).not.toBe(DEPOSIT);
    expect(after.timeMicros).toBe(desk.now);
  });

  it("is JSON data: a round trip through JSON text gives it back unchanged", () => {
    const state: ExchangeState = exchangeState(desk.exchange);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(JSON.stringify(exchangeState(desk.exchange))).toBe(JSON.stringify(state));
  });
});

describe("exchangeState reads only", () => {
  it("taken after every input of a flow, it leaves the outputs byte for byte the same", () => {
    const flow = runFlow({ seed: 11, accounts: 6, durationMicros: 10_000_000, ordersPerSecond: 20 });
    const replay = (readEvery: boolean) => {
      const exchange = new Exchange({ config: trustedConfig(), startMicros: START_MICROS, seed: 11 });
      const fingerprint = new Fingerprint();
      exchange.subscribe((output) => fingerprint.update(output));
      const states: string[] = [];
      for (const { atMicros, input } of flow.inputs) {
        exchange.handle(input, atMicros);
        if (readEvery) states.push(JSON.stringify(exchangeState(exchange)));
      }
      exchange.advanceTo(START_MICROS + 11_000_000);
      return { digest: fingerprint.digest(), states, last: JSON.stringify(exchangeState(exchange)) };
    };
    const plain = replay(false);
    const read = replay(true);
    expect(read.digest).toBe(plain.digest);
    expect(read.last).toBe(plain.last);
    expect(new Set(read.states).size).toBeGreaterThan(flow.inputs.length / 2);
  });
});
