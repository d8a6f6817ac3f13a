/**
 * The checks ExchangeInvariants gained beyond exactly-once settlement,
 * sequences, conservation, settled OI, the replay of positions and the
 * engine's book (src/sim/invariants.ts, order-invariants.ts,
 * risk-invariants.ts):
 * - (a) each passes on a real run of the default scenario (seed 1, through
 *   its first liquidation at about 300 s, with busts), which it leaves
 *   unchanged (same fingerprint as without the checks);
 * - (b) each throws an InvariantError naming its invariant when the stream
 *   or the state is broken on purpose: order rows fed to the checker,
 *   execution records and a block fed to it, the risk state of the finished
 *   run corrupted (and restored), and a real run whose first bust is made
 *   to change an account.
 * The last block covers ORDER_MATCH executions against the order rows of
 * their fill (order-invariants.ts): counted on the real run, broken on
 * records and rows fed by hand.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import { formatE18, toE18 } from "../../src/core/decimal.ts";
import type { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import type { WireOrder } from "../../src/engine/wire.ts";
import { equitySettled } from "../../src/risk/margin.ts";
import type { AccountState, PerpMarketState } from "../../src/risk/state.ts";
import type { ExecutionBust } from "../../src/spec/bust.ts";
import type { PerpExecution, SpotExecution } from "../../src/spec/execution.ts";
import { AgentFailedError } from "../../src/sim/agent-host.ts";
import { ExchangeInvariants } from "../../src/sim/invariants.ts";
import { SimRun } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import type { Scenario } from "../../src/sim/scenario.ts";
import defaultScenario from "../../scenarios/default.ts";

/** Seed 1 of the default scenario liquidates the over-leveraged trader at about 300 s. */
const DURATION_SECONDS = 310;
const WALLET = "0x00000000000000000000000000000000000000aa";

/** Runs a SimRun to its end, letting agent continuations run; rethrows the first failure, an agent's unwrapped. */
async function drive(run: SimRun): Promise<void> {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  try {
    for (;;) {
      const state = run.advance(4_096);
      if (state === "done") break;
      if (state === "drain") await turn();
    }
  } catch (error) {
    throw error instanceof AgentFailedError ? error.failure.error : error;
  }
}

interface RealRun {
  readonly exchange: Exchange;
  readonly invariants: ExchangeInvariants;
  readonly fingerprint: string;
  readonly types: Map<string, number>;
  readonly orderMatch: PerpExecution;
  readonly liquidation: PerpExecution;
}

let real: RealRun;

beforeAll(async () => {
  const types = new Map<string, number>();
  let orderMatch: PerpExecution | undefined;
  let liquidation: PerpExecution | undefined;
  const { run, figures } = await runScenario(defaultScenario, {
    invariants: true,
    durationSeconds: DURATION_SECONDS,
    observers: [
      {
        output(output) {
          if (output.kind === "bust") types.set("bust", (types.get("bust") ?? 0) + 1);
          if (output.kind !== "perpExecution") return;
          const record = output.record;
          types.set(record.type, (types.get(record.type) ?? 0) + 1);
          if (record.type === "ORDER_MATCH" && toE18(record.takerFee, "takerFee") > 0n) orderMatch ??= structuredClone(record);
          if (record.type === "LIQUIDATION") liquidation ??= structuredClone(record);
        },
      },
    ],
  });
  real = { exchange: run.world.exchange, invariants: run.invariants!, fingerprint: figures.fingerprint, types, orderMatch: orderMatch!, liquidation: liquidation! };
}, 60_000);

describe("(a) the added checks on a real run of the default scenario", () => {
  it("pass at every block and output, having had something to check", () => {
    const stats = real.invariants.stats;
    expect(real.types.get("LIQUIDATION")).toBeGreaterThan(0);
    expect(real.types.get("bust")).toBeGreaterThan(0);
    expect(stats.blocksChecked).toBeGreaterThanOrEqual(DURATION_SECONDS * 10 - 5);
    // Open interest (effective too), funding, running margin sums: at every block, and once more at the end.
    expect(stats.stateChecks).toBe(stats.blocksChecked + 1);
    expect(stats.accountSumAudits).toBeGreaterThan(stats.blocksChecked);
    // No account left below its liquidation requirement: after the liquidation step of every
    // block (the accounts of its executions) and of every summary tick (every holder).
    expect(stats.liquidationBlockAccounts).toBeGreaterThan(real.types.get("ORDER_MATCH")!);
    expect(stats.liquidationTicks).toBeGreaterThanOrEqual(DURATION_SECONDS * 2 - 1);
    // Order transitions, cumQty, fill ids: every order row.
    expect(stats.orderRows).toBeGreaterThan(1_000);
    // Fee parts: every perp execution, the liquidation's included.
    const perpExecutions = [...real.types].filter(([type]) => type !== "bust").reduce((sum, [, count]) => sum + count, 0);
    expect(stats.feeChecks).toBe(perpExecutions);
    // A bust left its accounts as they were: both sides of every bust.
    expect(stats.bustAccountsCompared).toBe(2 * real.types.get("bust")!);
    // And they pass on the state as the run left it.
    expect(() => real.invariants.checkState()).not.toThrow();
  });

  it("change no output: the same fingerprint as the run without them", async () => {
    const { figures } = await runScenario(defaultScenario, { durationSeconds: DURATION_SECONDS });
    expect(figures.fingerprint).toBe(real.fingerprint);
  }, 60_000);
});

// -- (b) broken streams and states --------------------------------------------------------

/** A fresh checker on the finished run's exchange (nothing more is emitted there): outputs are fed by hand. */
function freshChecker(): ExchangeInvariants {
  const checker = new ExchangeInvariants(real.exchange);
  checker.stop();
  return checker;
}

/** An order event row (LIMIT, qty 5, nothing executed unless `fields` say so). */
function row(orderId: string, status: WireOrder["status"], fields: Partial<WireOrder> = {}): ExchangeOutput {
  return {
    kind: "order",
    wallet: WALLET,
    onOrderChanges: true,
    row: { exchangeId: 1, symbol: "ETHRUSDPERP", accountId: 2, orderId, side: "B", limitPx: "3000", orderType: "LIMIT", status, createdAt: 0, lastUpdateAt: 0, qty: "5", cumQty: "0", triggered: false, ...fields },
  };
}

const fills = (firstFillId: number, fillCount = 1) => ({ firstFillId: String(firstFillId), fillCount });

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

function feed(checker: ExchangeInvariants, outputs: readonly ExchangeOutput[]): void {
  for (const output of outputs) checker.observe(output);
}

describe("(b) order rows: legal transitions, cumQty, fill ids", () => {
  it("accept the transitions of spec 3.1", () => {
    const checker = freshChecker();
    feed(checker, [
      row("101", "OPEN"),
      row("101", "OPEN", { cumQty: "2", execQty: "2", ...fills(1_000) }),
      row("101", "OPEN", { qty: "4", cumQty: "2" }), // a modify that does not cross
      row("101", "FILLED", { qty: "4", cumQty: "4", execQty: "2", ...fills(1_001) }),
      row("102", "CANCELLED", { cancelReason: "NO_LIQUIDITY" }), // an IOC that found no cross
      row("103", "OPEN", { orderType: "STOP_LOSS", qty: undefined as never, triggered: false }),
      row("103", "OPEN", { orderType: "STOP_LOSS", qty: "3", triggered: true }),
      row("103", "FILLED", { orderType: "STOP_LOSS", qty: "3", cumQty: "3", triggered: true, ...fills(1_002) }),
      row("104", "FILLED", { qty: "2", cumQty: "2", ...fills(1_003, 2) }), // a taker's round of two fills
      row("105", "CANCELLED", { cumQty: "1", ...fills(1_004) }), // IOC remainder cancelled: the fill stands (1004 was seen: no gap)
    ]);
    expect(checker.stats.orderRows).toBe(10);
  });

  it("throw on an update after FILLED or CANCELLED", () => {
    expectBroken(() => feed(freshChecker(), [row("7", "OPEN"), row("7", "FILLED", { cumQty: "5", ...fills(1) }), row("7", "OPEN", { cumQty: "5" })]), /order 7 has a OPEN update after it ended FILLED: FILLED and CANCELLED are final/);
    expectBroken(() => feed(freshChecker(), [row("8", "CANCELLED"), row("8", "CANCELLED")]), /order 8 has a CANCELLED update after it ended CANCELLED: FILLED and CANCELLED are final/);
  });

  it("throw when cumQty decreases or exceeds qty", () => {
    expectBroken(() => feed(freshChecker(), [row("9", "OPEN", { cumQty: "3", ...fills(1) }), row("9", "OPEN", { cumQty: "2" })]), /order 9 cumQty decreased from "3" to "2": cumQty never decreases/);
    expectBroken(() => feed(freshChecker(), [row("10", "OPEN", { cumQty: "6", ...fills(1) })]), /order 10 cumQty "6" exceeds its qty "5"/);
  });

  it("throw on FILLED before the whole qty, FILLED without a fill, and OPEN with the whole qty executed", () => {
    expectBroken(() => feed(freshChecker(), [row("11", "OPEN"), row("11", "FILLED", { cumQty: "3", ...fills(1) })]), /order 11 is FILLED with cumQty "3" of qty "5": FILLED needs the whole qty executed/);
    expectBroken(() => feed(freshChecker(), [row("12", "OPEN", { cumQty: "2", ...fills(1) }), row("12", "FILLED", { qty: "2", cumQty: "2" })]), /order 12 became FILLED on an update without fills/);
    expectBroken(() => feed(freshChecker(), [row("13", "OPEN", { cumQty: "5", ...fills(1) })]), /order 13 is OPEN with its whole qty "5" executed: the fill of the rest makes it FILLED/);
  });

  it("throw when a fired stop re-arms or a LIMIT order is triggered", () => {
    const stop = { orderType: "STOP_LOSS" as const, qty: undefined as never };
    expectBroken(() => feed(freshChecker(), [row("14", "OPEN", { ...stop, triggered: true }), row("14", "OPEN", { ...stop, triggered: false })]), /order 14 went from triggered=true back to triggered=false/);
    expectBroken(() => feed(freshChecker(), [row("15", "OPEN", { triggered: true })]), /LIMIT order 15 reports triggered=true/);
  });

  it("throw when fill ids skip one", () => {
    expectBroken(
      () => feed(freshChecker(), [row("16", "FILLED", { cumQty: "5", ...fills(500, 2) }), row("17", "OPEN", { cumQty: "1", ...fills(503) })]),
      /fill ids jumped from 501 to 503 \(order 17\): fill ids are gap-free/,
    );
  });
});

describe("(b) execution records: fee parts", () => {
  it("accept the run's records as they were", () => {
    const checker = freshChecker();
    feed(checker, [...fillRows(real.orderMatch), perp({ ...real.orderMatch, sequenceNumber: 1 }), perp({ ...real.liquidation, sequenceNumber: 2 })]);
    expect(checker.stats.feeChecks).toBe(2);
  });

  it("throw when the parts do not sum to takerFee", () => {
    const record = real.orderMatch;
    const off = formatE18(toE18(record.protocolFeeCredit!, "protocolFeeCredit") + 10n ** 12n);
    expectBroken(() => feed(freshChecker(), [perp({ ...record, sequenceNumber: 1, protocolFeeCredit: off })]), new RegExp(`fee parts of fill ${record.fillId} sum to "[0-9.]+" but takerFee is "${record.takerFee.replace(".", "\\.")}"`));
    const { poolFeeCredit: _dropped, ...withoutPool } = record;
    expectBroken(() => feed(freshChecker(), [perp({ ...withoutPool, sequenceNumber: 1 })]), /fee parts of fill \d+: poolFeeCredit missing on a Fee v3 ORDER_MATCH/);
  });

  it("throw when a liquidation charges a taker fee", () => {
    expectBroken(() => feed(freshChecker(), [perp({ ...real.liquidation, sequenceNumber: 1, takerFee: "1" })]), /fee parts of LIQUIDATION fill \d+: takerFee "1" .* only an ORDER_MATCH pays a taker fee/);
  });
});

function perp(record: PerpExecution): ExchangeOutput {
  return { kind: "perpExecution", symbol: record.symbol, wallets: [WALLET], record };
}

describe("(b) risk state: open interest, funding, margin sums, liquidation step", () => {
  const state = () => real.exchange.risk.state;
  const market = (): PerpMarketState => [...state().perps.values()].find((candidate) => candidate.oiLong > 0n)!;
  /** An account (not the pool) holding a settled position. */
  const holder = (): AccountState => [...state().accounts.values()].find((account) => account.id !== state().config.poolAccountId && account.lmS > 0n)!;

  /** Breaks the state, expects the checker to throw, and restores it whatever happened. */
  function corrupted(breakIt: () => () => void, check: () => void, message: RegExp): void {
    const restore = breakIt();
    try {
      expectBroken(check, message);
    } finally {
      restore();
    }
    expect(check).not.toThrow();
  }

  const block = (): ExchangeOutput => ({ kind: "block", number: 0, timeMicros: real.exchange.now(), settled: 0, busted: 0 });

  it("holds on the finished run, at a block too", () => {
    expect(market()).toBeDefined();
    expect(holder()).toBeDefined();
    expect(() => real.invariants.checkState()).not.toThrow();
    expect(() => real.invariants.observe(block())).not.toThrow();
  });

  it("throws when effective long OI differs from effective short OI", () => {
    const m = market();
    corrupted(
      () => {
        m.oiLongEff += 1n;
        return () => (m.oiLongEff -= 1n);
      },
      () => real.invariants.checkState(),
      new RegExp(`open interest of market ${m.config.marketId}: effective long \\d+ != effective short \\d+`),
    );
  });

  it("throws when short OI differs from the sum of short positions", () => {
    const m = market();
    corrupted(
      () => {
        m.oiShort += 1n;
        return () => (m.oiShort -= 1n);
      },
      () => real.invariants.checkState(),
      new RegExp(`open interest of market ${m.config.marketId}: short \\d+ != sum of short positions \\d+`),
    );
  });

  it("throws when longs' funding differs from shorts' (claims + realized != -socialized)", () => {
    const s = state();
    corrupted(
      () => {
        s.fundingRealized += 1n;
        return () => (s.fundingRealized -= 1n);
      },
      () => real.invariants.checkState(),
      /funding: open claims -?\d+ \+ realized -?\d+ != -socialized -?\d+ \(10\^54\): what longs pay must equal what shorts receive/,
    );
  });

  it("throws when an account's running margin sums drift from its positions", () => {
    const account = holder();
    corrupted(
      () => {
        account.im += 1n;
        return () => (account.im -= 1n);
      },
      () => real.invariants.checkState(),
      new RegExp(`running margin sum im of account ${account.id} is \\d+ but its positions give \\d+`),
    );
  });

  /** Takes `account` just below its liquidation requirement (nothing flags it); returns the undo. */
  function belowLiquidation(account: AccountState): () => void {
    const cut = equitySettled(account, real.exchange.now()) - account.lmS + 1n;
    expect(cut).toBeGreaterThan(0n);
    account.settlementBalance -= cut;
    return () => (account.settlementBalance += cut);
  }

  it("throws after a summary tick when a holder is left below its liquidation requirement", () => {
    const account = holder();
    const tick: ExchangeOutput = { kind: "perpSummaries", summaries: [] };
    corrupted(
      () => belowLiquidation(account),
      () => freshChecker().observe(tick),
      new RegExp(`account ${account.id} left below its liquidation requirement after the liquidation step of the summary tick: margin balance -?\\d+ < requirement \\d+`),
    );
  });

  it("throws after a block when an account of its executions is left below its liquidation requirement", () => {
    const account = holder();
    // qty 0 (so no position moves) and so no fee (the fee is qty x price x a tier's rate).
    const noFee = { takerFee: "0", protocolFeeCredit: "0", referrerFeeCredit: "0", takerRebateCredit: "0", poolFeeCredit: "0" };
    const record: PerpExecution = { ...real.orderMatch, sequenceNumber: 1, takerAccountId: account.id, qty: "0", ...noFee };
    const execution = [...fillRows(record), perp(record)];
    const undo = belowLiquidation(account);
    try {
      expectBroken(
        () => feed(freshChecker(), [...execution, block()]),
        new RegExp(`account ${account.id} left below its liquidation requirement after the liquidation step of block 0: margin balance -?\\d+ < requirement \\d+`),
      );
    } finally {
      undo();
    }
    // Untouched, the account passes and the block goes on to the state checks (where this fresh
    // checker, which saw none of the run's executions, finds the positions unexplained).
    expectBroken(() => feed(freshChecker(), [...execution, block()]), /position \d+\/\w+ is -?\d+ (but its settled executions sum to 0|\(10\^18\) with no settled execution)/);
  });
});

describe("(b) busts: balances as without the match", () => {
  it("throws in a real run whose first bust changes the taker's balance", async () => {
    // Busts at 30 %, so that one comes within seconds.
    const scenario: Scenario = { ...defaultScenario, settlement: { ...defaultScenario.settlement, bustProbability: 0.3 } };
    const run = new SimRun(scenario, { durationSeconds: 30 });
    const exchange = run.world.exchange;
    let busted: ExecutionBust | undefined;
    // Subscribed before the checker, so the checker sees the bust after the damage.
    exchange.subscribe((output) => {
      if (output.kind !== "bust" || busted !== undefined) return;
      busted = output.record;
      exchange.risk.state.accounts.get(busted.takerAccountId)!.balances.get("rUSD")!.balance += 10n ** 30n;
    });
    const checker = new ExchangeInvariants(exchange);
    let thrown: unknown;
    try {
      await drive(run);
    } catch (error) {
      thrown = error;
    }
    expect(busted, "the run busts a match").toBeDefined();
    expect(thrown).toBeInstanceOf(InvariantError);
    expect((thrown as Error).message).toMatch(
      new RegExp(`bust of fill ${busted!.fillId} changed the settled state of account ${busted!.takerAccountId}: balance rUSD -?\\d+ -> -?\\d+; a busted match leaves balances and positions as they were without it`),
    );
    expect(checker.stats.executions).toBeGreaterThan(0);
  }, 60_000);

  it("passes the same run untouched", async () => {
    const scenario: Scenario = { ...defaultScenario, settlement: { ...defaultScenario.settlement, bustProbability: 0.3 } };
    const run = new SimRun(scenario, { durationSeconds: 10, invariants: true });
    await drive(run);
    expect(run.invariants!.stats.busts).toBeGreaterThan(0);
    expect(run.invariants!.stats.bustAccountsCompared).toBe(2 * run.invariants!.stats.busts);
  }, 60_000);
});

// -- executions against the fills of the order rows ----------------------------------------

/** The synthetic order id of the side of `record` whose id the record omits (that order was FILLED by the fill). */
const filledOrderId = (record: PerpExecution | SpotExecution, role: "taker" | "maker") => `${record.fillId}${role === "taker" ? "01" : "02"}`;

/**
 * The maker's and then the taker's order row of the fill of an ORDER_MATCH
 * `record`, as the engine reports them before the fill settles: each names
 * the one fill, at the record's price and qty; an order the record names is
 * left OPEN with one more unit to fill, one it omits is FILLED by the fill.
 */
function fillRows(record: PerpExecution | SpotExecution): ExchangeOutput[] {
  const qtyE18 = toE18(record.qty, "qty");
  const orderRow = (role: "taker" | "maker", accountId: number | undefined, orderId: string | undefined): ExchangeOutput => {
    const filled = orderId === undefined;
    const side: WireOrder["side"] = (role === "taker") === (record.side === "B") ? "B" : "A";
    return row(orderId ?? filledOrderId(record, role), filled ? "FILLED" : "OPEN", {
      symbol: record.symbol,
      accountId: accountId!,
      side,
      limitPx: record.price,
      qty: filled ? record.qty : formatE18(qtyE18 + 10n ** 18n),
      cumQty: record.qty,
      execQty: record.qty,
      firstFillId: record.fillId,
      fillCount: 1,
    });
  };
  return [orderRow("maker", record.makerAccountId, record.makerOrderId), orderRow("taker", record.takerAccountId, record.takerOrderId)];
}

/** `record` without its order id `field` (omitted, never undefined). */
function without<T extends PerpExecution | SpotExecution>(record: T, field: "takerOrderId" | "makerOrderId"): T {
  const copy = { ...record };
  delete copy[field];
  return copy;
}

/** A spot ORDER_MATCH record on WETHRUSD with the terms of the run's perp match, of the fill after it. */
function spotMatch(): SpotExecution {
  const { exchangeId, takerAccountId, makerAccountId, qty, side, price, timestamp } = real.orderMatch;
  const fillId = String(BigInt(real.orderMatch.fillId) + 1n);
  return { exchangeId, symbol: "WETHRUSD", takerAccountId, makerAccountId: makerAccountId!, takerOrderId: "601", makerOrderId: "602", qty, side, price, takerFee: "0", type: "ORDER_MATCH", timestamp, sequenceNumber: 1, fillId };
}

/** How many fills `checker` keeps the rows of (its order checker's private map, read for the memory bound). */
const keptFills = (checker: ExchangeInvariants): number => (checker as unknown as { orders: { fills: Map<string, unknown> } }).orders.fills.size;

const spot = (record: SpotExecution): ExchangeOutput => ({ kind: "spotExecution", symbol: record.symbol, wallets: [WALLET], record });

describe("executions against the fills of the order rows", () => {
  const match = () => ({ ...real.orderMatch, sequenceNumber: 1 });

  it("check every ORDER_MATCH of the real run, perp and spot, and exempt its liquidations", () => {
    const stats = real.invariants.stats;
    const perpExecutions = [...real.types].filter(([type]) => type !== "bust").reduce((sum, [, count]) => sum + count, 0);
    const spotExecutions = stats.executions - perpExecutions;
    expect(spotExecutions).toBeGreaterThan(0);
    expect(real.types.get("LIQUIDATION")).toBeGreaterThan(0);
    // Every perp ORDER_MATCH and every spot execution; not the LIQUIDATION (no order fill).
    expect(stats.executionFillChecks).toBe(real.types.get("ORDER_MATCH")! + spotExecutions);
    // The fingerprint with the checks on and off: "(a) ... change no output" compares this same run.
  });

  it("accept a record whose rows came before it, perp and spot, and a liquidation without rows", () => {
    const checker = freshChecker();
    const spotRecord = spotMatch();
    const spotRecordFilled = { ...without(without(spotRecord, "takerOrderId"), "makerOrderId"), fillId: String(BigInt(spotRecord.fillId) + 1n) };
    feed(checker, [
      ...fillRows(match()),
      perp(match()),
      perp({ ...real.liquidation, sequenceNumber: 2 }),
      ...fillRows(spotRecord),
      ...fillRows(spotRecordFilled), // both orders FILLED by the fill: the record names neither
      spot(spotRecordFilled), // settled out of fill order
      spot({ ...spotRecord, sequenceNumber: 2 }),
    ]);
    expect(checker.stats.executionFillChecks).toBe(3);
    expect(checker.stats.executions).toBe(4);
    // Nothing is kept of the fills that settled.
    expect(keptFills(checker)).toBe(0);
  });

  it("forget a fill that busted, keeping only the fills in flight", () => {
    const checker = freshChecker();
    const record = match();
    feed(checker, fillRows(record));
    expect(keptFills(checker)).toBe(1);
    const { takerAccountId, makerAccountId, exchangeId, symbol, qty, side, price, timestamp, fillId } = record;
    const bust: ExecutionBust = { symbol, takerAccountId, exchangeId, makerAccountId: makerAccountId!, takerOrderId: "1", makerOrderId: "2", qty, side, price, reason: { reasonName: "MarketPaused", marketId: 1 }, timestamp, sequenceNumber: 1, fillId };
    feed(checker, [{ kind: "bust", symbol, wallets: [WALLET], record: bust }]);
    expect(checker.stats.busts).toBe(1);
    expect(keptFills(checker)).toBe(0);
  });

  it("throw on an execution whose fill no order row reported, or only one", () => {
    expectBroken(() => feed(freshChecker(), [perp(match())]), new RegExp(`ORDER_MATCH execution of fill ${real.orderMatch.fillId} \\(${real.orderMatch.symbol}\\) names a fill no order row reported: every match is on its taker's and its maker's rows`));
    expectBroken(() => feed(freshChecker(), [spot(spotMatch())]), /ORDER_MATCH execution of fill \d+ \(WETHRUSD\) names a fill no order row reported/);
    const [makerRow] = fillRows(match());
    expectBroken(() => feed(freshChecker(), [makerRow!, perp(match())]), /ORDER_MATCH execution of fill \d+ names a fill reported on one order row only \(order \d+\)/);
  });

  it("throw on a third row naming a fill, two rows on one side, and a maker row naming several fills", () => {
    const [makerRow, takerRow] = fillRows(match()) as [Extract<ExchangeOutput, { kind: "order" }>, Extract<ExchangeOutput, { kind: "order" }>];
    const third = row("777", "OPEN", { side: makerRow.row.side, cumQty: "1", ...fills(Number(real.orderMatch.fillId)) });
    expectBroken(() => feed(freshChecker(), [makerRow, takerRow, third]), new RegExp(`fill ${real.orderMatch.fillId} is named by a third order row \\(order 777, after orders \\d+ and \\d+\\): a fill is on one taker row and one maker row`));
    const sameSide = { ...makerRow, row: { ...makerRow.row, side: takerRow.row.side } };
    expectBroken(() => feed(freshChecker(), [sameSide, takerRow, perp(match())]), /names a fill whose two rows \(orders \d+ and \d+\) are both on side [AB]: a taker and its maker are on opposite sides/);
    // The maker's row names the fill and the next one (and the taker's row the same two).
    const two = { firstFillId: real.orderMatch.fillId, fillCount: 2 };
    const makerOfTwo = { ...makerRow, row: { ...makerRow.row, ...two } };
    const takerOfTwo = { ...takerRow, row: { ...takerRow.row, ...two } };
    expectBroken(() => feed(freshChecker(), [makerOfTwo, takerOfTwo, perp(match())]), /its maker row \(order \d+\) names 2 fills from \d+: a maker row names its one fill/);
  });

  it("throw on an execution whose qty or price differs from its fill's", () => {
    const rows = fillRows(match());
    const qty = formatE18(toE18(real.orderMatch.qty, "qty") + 10n ** 16n);
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), qty })]), new RegExp(`has qty "${qty.replace(".", "\\.")}" but its maker row \\(order \\d+\\) execQty reported "${real.orderMatch.qty.replace(".", "\\.")}": an execution repeats the terms of its fill`));
    const price = formatE18(toE18(real.orderMatch.price, "price") + 10n ** 18n);
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), price })]), new RegExp(`has price "${price.replace(".", "\\.")}" but its maker row \\(order \\d+\\) limitPx reported "${real.orderMatch.price.replace(".", "\\.")}"`));
    // The taker's row of a round of one fill reports that fill's qty too.
    const [makerRow, takerRow] = rows as [Extract<ExchangeOutput, { kind: "order" }>, Extract<ExchangeOutput, { kind: "order" }>];
    const takerSaysMore = { ...takerRow, row: { ...takerRow.row, execQty: qty, cumQty: qty, qty: formatE18(toE18(qty, "qty") + 10n ** 18n), ...(takerRow.row.status === "FILLED" ? { status: "OPEN" as const } : {}) } };
    const record = { ...match(), takerOrderId: takerSaysMore.row.orderId };
    expectBroken(() => feed(freshChecker(), [makerRow, takerSaysMore, perp(record)]), /has qty "[0-9.]+" but its taker row \(order \d+\) execQty reported "[0-9.]+"/);
    // The same on a spot execution.
    expectBroken(() => feed(freshChecker(), [...fillRows(spotMatch()), spot({ ...spotMatch(), qty })]), /has qty "[0-9.]+" but its maker row \(order 602\) execQty reported/);
  });

  it("throw on an execution naming the wrong taker or maker order or account", () => {
    const rows = fillRows(match());
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), takerOrderId: "999999" })]), /has takerOrderId "999999" but the row of the fill is order \d+: an execution repeats the terms of its fill/);
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), makerOrderId: "999998" })]), /has makerOrderId "999998" but the row of the fill is order \d+/);
    const otherAccount = real.orderMatch.takerAccountId + real.orderMatch.makerAccountId!;
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), takerAccountId: otherAccount })]), new RegExp(`has takerAccountId "${otherAccount}" but its taker row \\(order \\d+\\) reported "${real.orderMatch.takerAccountId}"`));
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), makerAccountId: otherAccount })]), new RegExp(`has makerAccountId "${otherAccount}" but its maker row \\(order \\d+\\) reported "${real.orderMatch.makerAccountId}"`));
    // The taker side flipped: the rows swap roles, and the accounts no longer match.
    const flipped = real.orderMatch.side === "B" ? "A" : "B";
    expectBroken(() => feed(freshChecker(), [...rows, perp({ ...match(), side: flipped })]), /has takerAccountId "\d+" but its taker row \(order \d+\) reported "\d+"/);
    expectBroken(() => feed(freshChecker(), [...fillRows(spotMatch()), spot({ ...spotMatch(), makerOrderId: "603" })]), /has makerOrderId "603" but the row of the fill is order 602/);
  });

  it("throw when an order id is omitted though the order is not FILLED, or named though it is", () => {
    const open = { ...match(), takerOrderId: "501", makerOrderId: "502" };
    expectBroken(() => feed(freshChecker(), [...fillRows(open), perp(without(open, "takerOrderId"))]), /omits takerOrderId but its order 501 is OPEN on the row of the fill: takerOrderId is omitted only when its taker's round left it FILLED/);
    expectBroken(() => feed(freshChecker(), [...fillRows(open), perp(without(open, "makerOrderId"))]), /omits makerOrderId but its order 502 is OPEN on the row of the fill: makerOrderId is omitted only when this fill left the maker FILLED/);
    const filled = without(without(match(), "takerOrderId"), "makerOrderId");
    const takerId = filledOrderId(filled, "taker");
    const makerId = filledOrderId(filled, "maker");
    expectBroken(() => feed(freshChecker(), [...fillRows(filled), perp({ ...filled, takerOrderId: takerId })]), new RegExp(`has takerOrderId "${takerId}" but order ${takerId} is FILLED on the row of the fill: takerOrderId is omitted when its taker's round left it FILLED`));
    expectBroken(() => feed(freshChecker(), [...fillRows(filled), perp({ ...filled, makerOrderId: makerId })]), new RegExp(`has makerOrderId "${makerId}" but order ${makerId} is FILLED on the row of the fill`));
  });

  it("throw on an execution in another market than its rows", () => {
    expectBroken(() => feed(freshChecker(), [...fillRows(match()), perp({ ...match(), symbol: "BTCRUSDPERP" === real.orderMatch.symbol ? "ETHRUSDPERP" : "BTCRUSDPERP" })]), /has symbol "\w+" but its taker row \(order \d+\) reported "\w+"/);
  });
});
