/**
 * The invariants added after mutation testing the fuzz checks
 * (src/sim/output-invariants.ts and their hooks in invariants.ts,
 * risk-invariants.ts): each passes on a real flow of orders, fills,
 * settlements and busts, and throws an InvariantError naming itself when
 * the stream or the state is broken the way a realistic bug breaks it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import type { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { ExchangeInvariants } from "../../src/sim/invariants.ts";
import { checkForcedChange, LedgerReplay, PublishedPositions } from "../../src/sim/output-invariants.ts";
import { checkFundingRates, checkPositionValuation, FeeRates } from "../../src/sim/risk-invariants.ts";
import { toE18, formatE18 } from "../../src/core/decimal.ts";
import type { PerpExecution } from "../../src/spec/execution.ts";
import { runFlow } from "../exchange/flow.ts";

let exchange: Exchange;
let invariants: ExchangeInvariants;
let orderMatch: PerpExecution | undefined;

beforeAll(() => {
  const run = runFlow({ seed: 7, accounts: 8, durationMicros: 30_000_000, ordersPerSecond: 40 }, (created) => {
    invariants = new ExchangeInvariants(created);
    created.subscribe((output) => {
      if (output.kind === "perpExecution" && output.record.type === "ORDER_MATCH" && toE18(output.record.takerFee, "takerFee") > 0n) orderMatch ??= structuredClone(output.record);
    });
  });
  exchange = run.exchange;
  exchange.advanceTo(exchange.now() + 5_000_000); // every match reaches its block
}, 60_000);

function expectBroken(action: () => void, message: RegExp): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected an InvariantError matching ${message}`).toBeInstanceOf(InvariantError);
  expect((thrown as Error).message).toMatch(message);
}

/** A checker on the finished flow's exchange, fed by hand (it starts from the state as it is). */
function freshChecker(): ExchangeInvariants {
  const checker = new ExchangeInvariants(exchange);
  checker.stop();
  return checker;
}

const accountWithRusd = () => [...exchange.risk.state.accounts.values()].find((account) => (account.balances.get("rUSD")?.balance ?? 0n) > 0n)!;

function transfer(fields: { accountId: number; type: string; amount: string; netDepositsAfter: string }): ExchangeOutput {
  return { kind: "transfer", wallet: exchange.risk.accountOwner(fields.accountId)!, entry: { id: "999999", asset: "rUSD", timestamp: 0, ...fields } as never };
}

const netDepositsOf = (accountId: number) => exchange.risk.balances(accountId).find((balance) => balance.asset === "rUSD")!.balanceDEPRECATED;

describe("the flow the checks run on", () => {
  it("has settled fills and busts, and passed every check at every block", () => {
    const stats = invariants.stats;
    expect(stats.executions).toBeGreaterThan(50);
    expect(stats.blocksChecked).toBeGreaterThan(100);
    expect(stats.transfersReplayed).toBeGreaterThan(stats.executions);
    expect(() => invariants.checkState()).not.toThrow();
  });
});

describe("ledger replay: balances = the sum of their Transfer entries", () => {
  it("holds for a replay started from the state as it is", () => {
    expect(() => new LedgerReplay(exchange.risk.state).check()).not.toThrow();
  });

  it("throws when an entry is published that the balance does not reflect (or a change is published as no entry)", () => {
    const account = accountWithRusd();
    const replay = new LedgerReplay(exchange.risk.state);
    const output = transfer({ accountId: account.id, type: "REALIZED_PNL", amount: "0.5", netDepositsAfter: netDepositsOf(account.id) });
    if (output.kind === "transfer") replay.transfer(output.entry);
    expectBroken(() => replay.check(), new RegExp(`ledger replay: account ${account.id} holds [0-9.-]+ rUSD but its transfer entries sum to [0-9.-]+: every balance change is one Transfer entry`));
  });

  it("throws when netDepositsAfter is not the running sum of deposits, withdrawals and transfers", () => {
    const account = accountWithRusd();
    // A deposit whose netDepositsAfter was not moved by it.
    expectBroken(
      () => freshChecker().observe(transfer({ accountId: account.id, type: "DEPOSIT", amount: "10", netDepositsAfter: netDepositsOf(account.id) })),
      new RegExp(`transfer 999999 \\(DEPOSIT 10 rUSD, account ${account.id}\\) has netDepositsAfter "[0-9.-]+" but the account's deposits, withdrawals and transfers sum to`),
    );
  });
});

/** Breaks the state, expects the flow's checker to throw at a state check, and restores it whatever happened. */
function corrupted(breakIt: () => () => void, message: RegExp): void {
  const restore = breakIt();
  try {
    expectBroken(() => invariants.checkState(), message);
  } finally {
    restore();
  }
  expect(() => invariants.checkState()).not.toThrow();
}

describe("exposure mirrors: pending matches and resting orders", () => {
  const state = () => exchange.risk.state;

  it("compared resting orders at every block", () => {
    expect(invariants.stats.restingOrdersCompared).toBeGreaterThan(invariants.stats.blocksChecked);
  });

  it("throws when a match settled or busted still counts as pending (a bust that did not release it)", () => {
    corrupted(() => {
      state().pending.set("424242", { fillId: "424242" } as never);
      return () => state().pending.delete("424242");
    }, /fill 424242 still counts as a pending match in the risk layer, but it was settled or busted \(or never reported\)/);
  });

  it("throws when an order in the book is not counted as resting, or counted with another quantity", () => {
    const [orderId, counted] = [...state().resting.values()].map((resting) => [resting.orderId, resting] as const)[0]!;
    corrupted(() => {
      state().resting.delete(orderId);
      return () => state().resting.set(orderId, counted);
    }, new RegExp(`order ${orderId} \\(account \\d+, [A-Z]+ [AB] \\d+ lots at \\d+ ticks\\) rests in the book but the risk layer does not count it as resting`));
    corrupted(() => {
      counted.qty += 1n;
      return () => (counted.qty -= 1n);
    }, new RegExp(`order ${orderId} .* rests in the book but the risk layer counts it as account`));
  });

  it("throws when the risk layer counts an order that left the book (a lost cancel)", () => {
    const counted = [...state().resting.values()][0]!;
    corrupted(() => {
      state().resting.set("77777777", { ...counted, orderId: "77777777" });
      return () => state().resting.delete("77777777");
    }, /the risk layer counts order 77777777 \(account \d+, [AB] [0-9.]+\) as resting, but it is not in the book \(it ended\)/);
  });
});

describe("fee amount: qty x price x a tier's taker rate", () => {
  it("checked every ORDER_MATCH of the flow, and passes the real record", () => {
    expect(orderMatch).toBeDefined();
    expect(() => new FeeRates(exchange.risk.state).check(orderMatch!)).not.toThrow();
  });

  it("throws on a fee on the wrong base (qty, not its notional) or off by one unit", () => {
    const record = orderMatch!;
    const rate = exchange.risk.state.config.feeTiers[0]!.takerRate;
    const onQty = formatE18((toE18(record.qty, "qty") * rate) / 10n ** 18n);
    const fees = new FeeRates(exchange.risk.state);
    expectBroken(() => fees.check({ ...record, takerFee: onQty }), new RegExp(`takerFee "${onQty.replace(".", "\\.")}" of fill ${record.fillId} .* is not qty x price x the taker rate of any fee tier`));
    const oneUnitMore = formatE18(toE18(record.takerFee, "takerFee") + 10n ** 12n);
    expectBroken(() => fees.check({ ...record, takerFee: oneUnitMore }), /is not qty x price x the taker rate of any fee tier/);
  });
});

describe("funding rate: (mark - index) / index within the cap", () => {
  it("checked the markets at the summary ticks, and holds at the end", () => {
    expect(invariants.stats.fundingRateChecks).toBeGreaterThan(invariants.stats.liquidationTicks);
    expect(checkFundingRates(exchange.risk.state, exchange.now())).toBeGreaterThan(0);
  });

  it("throws on a rate of the wrong sign, or beyond the cap", () => {
    const market = [...exchange.risk.state.perps.values()].find((candidate) => candidate.funding.rate !== 0n)!;
    const rate = market.funding.rate;
    const check = () => checkFundingRates(exchange.risk.state, exchange.now());
    for (const wrong of [-rate, market.config.fundingRateCap + 1n]) {
      market.funding.rate = wrong;
      try {
        expectBroken(check, new RegExp(`funding rate of ${market.config.symbol} is -?[0-9.]+ with mark [0-9.]+ and index [0-9.]+: the rate is \\(mark - index\\) / index clamped`));
      } finally {
        market.funding.rate = rate;
      }
    }
    expect(check).not.toThrow();
  });
});

describe("forced position changes: LIQUIDATION and MARKET_CLOSE close whole, ADL only reduces", () => {
  const E18 = 10n ** 18n;

  it("accepts a whole close and an ADL leg that reduces", () => {
    expect(() => checkForcedChange("LIQUIDATION", "1", 5, "ETHRUSDPERP", 2n * E18, -2n * E18)).not.toThrow();
    expect(() => checkForcedChange("MARKET_CLOSE", "1", 5, "ETHRUSDPERP", -3n * E18, 3n * E18)).not.toThrow();
    expect(() => checkForcedChange("ADL", "1", 5, "ETHRUSDPERP", -3n * E18, 1n * E18)).not.toThrow();
    expect(() => checkForcedChange("ADL", "1", 5, "ETHRUSDPERP", 3n * E18, -3n * E18)).not.toThrow();
  });

  it("throws on an ADL leg that flips, grows or opens a position, and on a partial liquidation", () => {
    expectBroken(() => checkForcedChange("ADL", "8", 5, "ETHRUSDPERP", -1n * E18, 3n * E18), /ADL execution of fill 8 moves account 5's ETHRUSDPERP position from -1 by 3: a ADL only reduces the position it names, never opens, grows or flips one/);
    expectBroken(() => checkForcedChange("ADL", "8", 5, "ETHRUSDPERP", -1n * E18, -1n * E18), /from -1 by -1: a ADL only reduces/);
    expectBroken(() => checkForcedChange("ADL", "8", 5, "ETHRUSDPERP", 0n, E18), /from 0 by 1: a ADL only reduces/);
    expectBroken(() => checkForcedChange("LIQUIDATION", "9", 5, "ETHRUSDPERP", 2n * E18, -1n * E18), /LIQUIDATION execution of fill 9 leaves account 5's ETHRUSDPERP position at 1 \(from 2\): a LIQUIDATION closes the position whole/);
  });

  it("is checked on the stream: a second ADL leg that grows the position the first one left", () => {
    const adl = (sequenceNumber: number) => {
      const record = { ...orderMatch!, type: "ADL", takerFee: "0", sequenceNumber, fillId: String(900 + sequenceNumber) } as PerpExecution;
      for (const part of ["protocolFeeCredit", "referrerFeeCredit", "takerRebateCredit", "poolFeeCredit", "makerAccountId", "takerOrderId", "makerOrderId"] as const) delete record[part];
      return { kind: "perpExecution", symbol: record.symbol, wallets: [], record } as const;
    };
    // This checker starts on positions it has not seen: the first leg's "before" is unknown and not checked; the second's is.
    const checker = freshChecker();
    checker.observe(adl(1));
    const record = adl(2).record;
    expectBroken(() => checker.observe(adl(2)), new RegExp(`ADL execution of fill 902 moves account ${record.takerAccountId}'s ${record.symbol} position from -?[0-9.]+ by -?[0-9.]+: a ADL only reduces`));
  });
});

describe("published positions: a message after each execution, equal to the settled positions", () => {
  const E18 = 10n ** 18n;
  const settled = new Map([[5, new Map([["ETHRUSDPERP", 2n * E18]])]]);
  const accountsOf = () => [5];
  const position = (side: "A" | "B", qty: string) => ({ exchangeId: 1, symbol: "ETHRUSDPERP", accountId: 5, qty, side, avgEntryPrice: "3000", avgEntryFundingValue: "0", lastTradeSequenceNumber: 1 }) as never;

  it("compared the flow's wallets at the blocks", () => {
    expect(invariants.stats.positionMessagesCompared).toBeGreaterThan(0);
  });

  it("accepts a message that lists the settled positions", () => {
    const published = new PublishedPositions();
    published.executed(["0xw"], "9");
    published.published("0xw", [position("B", "2")]);
    expect(published.check(accountsOf, (id) => settled.get(id))).toBe(1);
  });

  it("throws when no message followed an execution of the wallet", () => {
    const published = new PublishedPositions();
    published.executed(["0xw"], "9");
    expectBroken(() => published.check(accountsOf, (id) => settled.get(id)), /the execution of fill 9 moved a position of wallet 0xw, but no positions message for it followed/);
  });

  it("throws when the message has the wrong side or quantity, or misses a position", () => {
    const wrong = (positions: never[]) => {
      const published = new PublishedPositions();
      published.published("0xw", positions);
      return () => published.check(accountsOf, (id) => settled.get(id));
    };
    expectBroken(wrong([position("A", "2")]), /the last positions message of wallet 0xw lists account 5 ETHRUSDPERP A 2 but its settled executions sum to 2 \(signed, long > 0\)/);
    expectBroken(wrong([position("B", "1")]), /lists account 5 ETHRUSDPERP B 1 but its settled executions sum to 2/);
    expectBroken(wrong([]), /the last positions message of wallet 0xw lists 0 positions but its accounts hold 1/);
  });
});

describe("position valuation: the settled contributions by their definitions", () => {
  const held = () => [...exchange.risk.state.perps.values()].flatMap((market) => [...market.holders.values()]).filter((position) => position.q !== 0n);

  it("holds for every position of the flow", () => {
    expect(held().length).toBeGreaterThan(0);
    for (const position of held()) expect(() => checkPositionValuation(position)).not.toThrow();
  });

  it("throws when the liquidation requirement is made at the initial rate (or the PnL is off)", () => {
    const position = held()[0]!;
    const saved = { lmSC: position.lmSC, upnlSC: position.upnlSC };
    try {
      position.lmSC = position.imSC;
      expectBroken(() => checkPositionValuation(position), new RegExp(`settled liquidation requirement of account ${position.account.id} in [A-Z]+ is \\d+ but q -?\\d+ and cost -?\\d+ at mark \\d+ give \\d+`));
      position.lmSC = saved.lmSC;
      position.upnlSC += 1n;
      expectBroken(() => checkPositionValuation(position), /settled unrealized PnL of account \d+/);
    } finally {
      position.lmSC = saved.lmSC;
      position.upnlSC = saved.upnlSC;
    }
  });
});
