/**
 * Review s25: settlement and busts (src/settlement, src/exchange/settlement-desk.ts,
 * and how the Exchange publishes executions and busts).
 *
 * Fixed: chain times that are not whole microseconds (config and
 * delayBlocks, src/settlement/chain.ts); the taker's signature deadline,
 * noted only after its matching round, so that its own fills settled
 * unchecked, a modify's fills were checked against the signature it
 * replaced, and every order that did not rest left its deadline behind
 * (the gateway's commandDeadline, src/exchange/exchange.ts). The fuzz
 * invariants' settlement gaps: test/sim/settlement-invariants.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { RngRoot } from "../../src/core/rng.ts";
import { Chain, type ChainConfig } from "../../src/settlement/chain.ts";
import { Simulation } from "../../src/sim/kernel.ts";
import { ETH, World } from "../exchange/world.ts";

/** Everything of the risk state a match can move (settled, pending, held), bigints as text, per account and market. */
function riskSnapshot(w: World): unknown {
  const state = w.exchange.risk.state;
  const text = (value: unknown) => (typeof value === "bigint" ? value.toString() : value);
  const pick = (object: object, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, text((object as Record<string, unknown>)[key])]));
  const now = w.exchange.now();
  const accounts = [...state.accounts.values()].map((account) => ({
    id: account.id,
    sums: pick(account, ["settlementBalance", "collateral", "upnl", "upnlS", "im", "imS", "lm", "lmS", "imOrders", "f0", "f1", "pendingFees", "pendingSpotLoss"]),
    balances: [...account.balances].map(([asset, balance]) => [asset, pick(balance, ["balance", "netDeposits", "reserved", "pendingOut", "collateralC"])]),
    positions: [...account.positions].map(([marketId, position]) => [marketId, pick(position, ["q", "k", "b", "openingFees", "lastSeq", "pq", "pk", "restBuy", "restSell"])]),
    volume30d: account.wallet.volume30d.sum(now).toString(),
  }));
  const perps = [...state.perps.values()].map((market) => pick(market, ["oiLong", "oiShort", "oiLongEff", "oiShortEff"]));
  return { accounts, perps, protocolFees: [...state.protocolFees].map(([asset, amount]) => [asset, amount.toString()]), pending: state.pending.size };
}

/** A world with a maker and a taker funded in ETH, prices at 3000, and its time in Unix seconds. */
function pair(): { w: World; maker: number; taker: number; nowSec: number } {
  const w = new World();
  const maker = w.account(0xb1, "100000");
  const taker = w.account(0xb2, "100000");
  w.prices("3000");
  return { w, maker, taker, nowSec: Math.floor(w.now / 1e6) };
}

/** 130 s in 10 s steps, prices kept fresh: past a 120 s block delay, so the backlog's block comes. */
function stallThrough(w: World): void {
  for (let i = 0; i < 13; i++) {
    w.advance(10_000_000);
    w.prices("3000");
  }
}

describe("review s25: signature deadlines at settlement", () => {
  it("busts SignatureExpired a taker's match whose block comes after the taker's signature deadline", () => {
    const { w, maker, taker, nowSec } = pair();
    expect(w.handle(w.orderInput(maker, false, "3000", "1", { timeInForce: "GTC", deadline: nowSec + 86_400 })).ok).toBe(true);
    expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 120_000 } } as ExchangeInput).ok).toBe(true);
    const answer = w.handle(w.orderInput(taker, true, "3000", "1", { timeInForce: "IOC", deadline: nowSec + 30 }));
    expect(answer.payload.status).toBe("FILLED");
    stallThrough(w);
    const busts = w.of("bust");
    expect(busts.map((bust) => bust.record.reason)).toEqual([{ reasonName: "SignatureExpired", accountId: taker, deadline: nowSec + 30 }]);
    expect(w.position(taker)).toBeUndefined();
  });

  it("gives an injected SignatureExpired bust of a taker the deadline the taker signed (not 2^53 - 1)", () => {
    const { w, maker, taker, nowSec } = pair();
    expect(w.handle(w.orderInput(maker, false, "3000", "1", { timeInForce: "GTC", deadline: nowSec + 86_400 })).ok).toBe(true);
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "SignatureExpired" } } as ExchangeInput).ok).toBe(true);
    expect(w.handle(w.orderInput(taker, true, "3000", "1", { timeInForce: "IOC", deadline: nowSec + 30 })).payload.status).toBe("FILLED");
    w.advance(1_000_000);
    expect(w.of("bust").map((bust) => bust.record.reason)).toEqual([{ reasonName: "SignatureExpired", accountId: taker, deadline: nowSec + 30 }]);
  });

  it("(control) busts SignatureExpired a resting maker's match whose block comes after the maker's signature deadline", () => {
    const { w, maker, taker, nowSec } = pair();
    expect(w.handle(w.orderInput(maker, false, "3000", "1", { timeInForce: "GTC", deadline: nowSec + 30 })).ok).toBe(true);
    expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 120_000 } } as ExchangeInput).ok).toBe(true);
    expect(w.handle(w.orderInput(taker, true, "3000", "1", { timeInForce: "IOC", deadline: nowSec + 500 })).payload.status).toBe("FILLED");
    stallThrough(w);
    expect(w.of("bust").map((bust) => bust.record.reason)).toEqual([{ reasonName: "SignatureExpired", accountId: maker, deadline: nowSec + 30 }]);
  });

  it("keeps no signature deadline for an order that is no longer open (an IOC taker that filled)", () => {
    const { w, maker, taker } = pair();
    const deadlines = (w.exchange as unknown as { orderDeadlines: { size: number } }).orderDeadlines;
    for (let i = 0; i < 5; i++) {
      w.order(maker, false, "3000", "1");
      expect(w.order(taker, true, "3000", "1", "IOC").status).toBe("FILLED");
    }
    w.advance(1_000_000);
    // Every order is FILLED: none is open, so none has a deadline left to check.
    expect(w.exchange.engine.accountsWithOpenOrders(1)).toEqual([]);
    expect(deadlines.size).toBe(0);
  });

  it("checks a crossing modify's match against the deadline of the modify's signature, not the one it replaced", () => {
    const { w, maker, taker: buyer, nowSec } = pair();
    expect(w.handle(w.orderInput(maker, false, "3000", "1", { timeInForce: "GTC", deadline: nowSec + 86_400 })).ok).toBe(true);
    const resting = w.handle(w.orderInput(buyer, true, "2990", "1", { timeInForce: "GTC", deadline: nowSec + 30 }));
    expect(resting.payload.status).toBe("OPEN");
    expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 120_000 } } as ExchangeInput).ok).toBe(true);
    const modify = w.handle({
      kind: "request",
      op: "modifyOrder",
      body: {
        orderId: resting.payload.orderId,
        exchangeId: 1,
        symbol: ETH,
        accountId: buyer,
        isBuy: true,
        orderType: "LIMIT",
        timeInForce: "GTC",
        reduceOnly: false,
        limitPx: "3000",
        qty: "1",
        postOnly: false,
        signature: `0x${"11".repeat(65)}`,
        nonce: "2",
        signerWallet: w.walletOf(buyer),
        deadline: nowSec + 86_400,
      },
    } as ExchangeInput);
    expect(modify.payload?.status, JSON.stringify(modify)).toBe("FILLED");
    stallThrough(w);
    // The match was signed (by the modify) until nowSec + 86,400: it is not stale at its block.
    expect(w.of("bust").map((bust) => bust.record.reason)).toEqual([]);
    expect(w.position(buyer)).toEqual({ qty: "1", side: "B" });
  });
});

describe("review s25: chain configuration", () => {
  const chainWith = (config: Partial<ChainConfig>) =>
    new Chain<number>(new Simulation({ startMicros: 0 }), new RngRoot(1).stream("chain"), { validate: () => undefined, settle: () => undefined, bust: () => undefined }, config);

  it("refuses a settlement latency that is not a whole number of microseconds (Infinity: every match would stay pending, never settled nor busted)", () => {
    expect(() => chainWith({ settlementLatencyMinMicros: Infinity, settlementLatencyMaxMicros: Infinity })).toThrow(/settlementLatencyMinMicros/);
    expect(() => chainWith({ settlementLatencyMaxMicros: 1.5 })).toThrow(/settlementLatencyMaxMicros/);
    expect(() => chainWith({ settlementLatencyMaxMicros: 2 ** 60 })).toThrow(/settlementLatencyMaxMicros/);
  });

  it("refuses a block interval or jitter that is not a whole number of microseconds (it threw in the first block's timer, mid-run)", () => {
    expect(() => chainWith({ blockIntervalMicros: Infinity })).toThrow(/blockIntervalMicros/);
    expect(() => chainWith({ blockIntervalMicros: 100_000.5 })).toThrow(/blockIntervalMicros/);
    expect(() => chainWith({ blockJitterMicros: 0.5 })).toThrow(/blockJitterMicros/);
  });

  it("delays blocks to a whole microsecond when a delayBlocks fault's duration is a fraction of one (the scenario check accepts 1000 / 3 ms)", () => {
    const w = new World();
    const blocks: number[] = [];
    w.exchange.subscribe((output) => {
      if (output.kind === "block") blocks.push(output.timeMicros);
    });
    expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 1000 / 3 } } as ExchangeInput).ok).toBe(true);
    w.advance(1_000_000);
    // No block before the end of the delay, the first one at its microsecond rounded up, and every time whole
    // (the simulator's scheduler refused the fractional one: "event time must be a safe integer of microseconds").
    expect(blocks[0]).toBe(w.exchange.now() - 1_000_000 + 333_334);
    expect(blocks.every((time) => Number.isSafeInteger(time))).toBe(true);
    expect(Number.isSafeInteger(w.exchange.nextTimerAt())).toBe(true);
  });

  it("still accepts whole microseconds, and keeps its messages for negative and inverted values", () => {
    expect(() => chainWith({ blockIntervalMicros: 1, blockJitterMicros: 0, settlementLatencyMinMicros: 0, settlementLatencyMaxMicros: 5 })).not.toThrow();
    expect(() => chainWith({ blockIntervalMicros: NaN })).toThrow(/blockIntervalMicros must be positive/);
    expect(() => chainWith({ blockJitterMicros: -1 })).toThrow(/must be in \[0/);
    expect(() => chainWith({ settlementLatencyMinMicros: 5, settlementLatencyMaxMicros: 1 })).toThrow(/at least the minimum/);
  });
});

/**
 * A taker round over three makers whose middle fill busts (its maker's
 * signature expired while the chain stalled) leaves the risk state exactly as
 * a world in which only the other two fills were ever made: positions, cost,
 * funding baselines, balances, fees, volume, open interest, nothing held.
 */
describe("review s25: one busted leg of a multi-fill taker round", () => {
  const round = (symbol: string, withMiddle: boolean) => {
    const w = new World();
    const deposits = symbol === ETH ? { rUSD: "100000" } : { rUSD: "100000", WETH: "10" };
    const accountOf = (n: number) => {
      const answer = w.handle({ kind: "admin", admin: { action: "createAccount", wallet: `0x${n.toString(16).padStart(40, "0")}`, deposits } } as ExchangeInput);
      w.handle({ kind: "admin", admin: { action: "wallet", wallet: `0x${n.toString(16).padStart(40, "0")}`, rateTier: 3 } } as ExchangeInput);
      (w as unknown as { wallets: Map<number, string> }).wallets.set(answer.payload.accountId, `0x${n.toString(16).padStart(40, "0")}`);
      return answer.payload.accountId as number;
    };
    const [maker1, maker2, maker3, taker] = [accountOf(0xc1), accountOf(0xc2), accountOf(0xc3), accountOf(0xc4)];
    w.prices("3000");
    const nowSec = Math.floor(w.now / 1e6);
    expect(w.handle(w.orderInput(maker1, false, "3000", "1", { timeInForce: "GTC", deadline: nowSec + 86_400, symbol: symbol })).ok).toBe(true);
    if (withMiddle) expect(w.handle(w.orderInput(maker2, false, "3001", "1", { timeInForce: "GTC", deadline: nowSec + 30, symbol: symbol })).ok).toBe(true);
    expect(w.handle(w.orderInput(maker3, false, "3002", "1", { timeInForce: "GTC", deadline: nowSec + 86_400, symbol: symbol })).ok).toBe(true);
    expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 60_000 } } as ExchangeInput).ok).toBe(true);
    const taken = w.handle(w.orderInput(taker, true, "3002", withMiddle ? "3" : "2", { timeInForce: "IOC", deadline: nowSec + 500, symbol: symbol }));
    expect(taken.payload.status).toBe("FILLED");
    for (let i = 0; i < 7; i++) {
      w.advance(10_000_000);
      w.prices("3000");
    }
    return { w, maker2 };
  };

  for (const symbol of [ETH, "WETHRUSD"]) {
    it(`${symbol}: the other fills settle, the middle one busts, and the state is the world without it`, () => {
      const a = round(symbol, true);
      const b = round(symbol, false);
      const kind = symbol === ETH ? "perpExecution" : "spotExecution";
      expect(a.w.of("bust").map((bust) => [bust.record.makerAccountId, bust.record.reason.reasonName])).toEqual([[a.maker2, "SignatureExpired"]]);
      expect(a.w.of(kind).map((execution) => [execution.record.price, execution.record.takerFee, execution.record.sequenceNumber])).toEqual(
        b.w.of(kind).map((execution) => [execution.record.price, execution.record.takerFee, execution.record.sequenceNumber]),
      );
      expect(riskSnapshot(a.w)).toEqual(riskSnapshot(b.w));
      const transfers = (w: World) => w.of("transfer").map((output) => { const { id: _id, fillId: _fillId, ...rest } = output.entry as unknown as Record<string, unknown>; return rest; });
      expect(transfers(a.w)).toEqual(transfers(b.w));
    });
  }
});
