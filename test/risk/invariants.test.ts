/**
 * The risk layer's invariants over seeded random streams of deposits,
 * withdrawals, resting orders, matches (pending, then settled or busted),
 * spot trades, price moves and time:
 *  - conservation, exact, per asset (audit.conservation);
 *  - long OI = short OI in every market, settled and effective, equal to the
 *    sums over positions;
 *  - the running margin sums equal the sums recomputed from the positions;
 *  - funding claims + funding realized = -socialized (longs pay what shorts
 *    receive, until a loss is socialized);
 *  - fee parts sum to takerFee exactly;
 *  - after each liquidation step no account (the pool aside) is below its
 *    liquidation requirement;
 *  - the same stream gives the same outputs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toE18 } from "../../src/core/decimal.ts";
import { auditAccountSums, conservation, openFundingClaims, openInterest } from "../../src/risk/audit.ts";
import { isLiquidatable } from "../../src/risk/margin.ts";
import type { RiskEngine } from "../../src/risk/risk.ts";
import type { Match, PerpExecutionRecord } from "../../src/risk/types.ts";
import { BTC_PERP, BTC_SPOT, ETH_PERP, POOL, SECOND, T0, venue } from "./fixtures.ts";

const ACCOUNTS = 6;
const account = fc.integer({ min: 1, max: ACCOUNTS });
/** The pool's deposit: none (only fee credits: ADL and socialization), small, or ample. */
const pool = fc.constantFrom("0", "50", "20000");

type Command =
  | { kind: "deposit"; accountId: number; amount: number; btc: boolean }
  | { kind: "withdraw"; accountId: number; amount: number }
  | { kind: "match"; marketId: number; taker: number; maker: number; side: "B" | "A"; lots: number; offsetBp: number; keepRest: boolean }
  | { kind: "settle"; bust: boolean }
  | { kind: "move"; marketId: number; bp: number; oracleBp: number; seconds: number }
  | { kind: "spot"; taker: number; maker: number; side: "B" | "A"; lots: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("deposit" as const), accountId: account, amount: fc.integer({ min: 50, max: 3_000 }), btc: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("withdraw" as const), accountId: account, amount: fc.integer({ min: 1, max: 5_000 }) }), weight: 1 },
  { arbitrary: fc.record({
    kind: fc.constant("match" as const),
    marketId: fc.constantFrom(BTC_PERP, ETH_PERP),
    taker: account,
    maker: account,
    side: fc.constantFrom("B" as const, "A" as const),
    lots: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 1_200 })),
    offsetBp: fc.integer({ min: -150, max: 150 }),
    keepRest: fc.boolean(),
  }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("settle" as const), bust: fc.integer({ min: 0, max: 5 }).map((n) => n === 0) }), weight: 4 },
  { arbitrary: fc.record({
    kind: fc.constant("move" as const),
    marketId: fc.constantFrom(BTC_PERP, ETH_PERP),
    bp: fc.integer({ min: -1500, max: 1500 }),
    oracleBp: fc.integer({ min: -30, max: 30 }),
    seconds: fc.integer({ min: 1, max: 900 }),
  }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("spot" as const), taker: account, maker: account, side: fc.constantFrom("B" as const, "A" as const), lots: fc.integer({ min: 1, max: 500 }) }), weight: 1 },
);

function ticksText(ticks: number, tickDigits: number): string {
  const scale = 10 ** tickDigits;
  return `${Math.floor(ticks / scale)}.${String(ticks % scale).padStart(tickDigits, "0")}`;
}

interface Run {
  readonly outputs: unknown[];
  readonly records: PerpExecutionRecord[];
  readonly socialized: boolean;
}

/** Plays a stream, checking the invariants after every step; returns everything it produced. */
function play(commands: readonly Command[], poolDeposit: string, check: boolean): Run {
  const risk = venue({ accounts: ACCOUNTS, ...(poolDeposit === "0" ? {} : { poolDeposit }) });
  const outputs: unknown[] = [];
  const records: PerpExecutionRecord[] = [];
  const marks = new Map<number, number>([
    [BTC_PERP, 500_000],
    [ETH_PERP, 300_000],
  ]);
  const digits = new Map([
    [BTC_PERP, 1],
    [ETH_PERP, 2],
  ]);
  const indexAsset = new Map([
    [BTC_PERP, "BTC"],
    [ETH_PERP, "ETH"],
  ]);
  const pending: Match[] = [];
  let now = T0;
  let counter = 0;
  let sequence = 0;
  const execution = (m: Match) => ({ type: "ORDER_MATCH" as const, ...m, sequenceNumber: ++sequence });
  const publish = (update: ReturnType<RiskEngine["setOraclePrice"]>) => {
    outputs.push(update.markChanges.map((change) => change.markPriceTicks), update.liquidation);
    for (const applied of update.liquidation.executions) records.push(applied.record);
  };
  const setPrice = (marketId: number, ticks: number, oracleTicks: number) => {
    publish(risk.setIndexPrice(indexAsset.get(marketId)!, ticksText(ticks, digits.get(marketId)!), now));
    publish(risk.setOraclePrice(marketId, ticksText(oracleTicks, digits.get(marketId)!), now));
  };
  const refreshAll = () => {
    for (const [marketId, ticks] of marks) setPrice(marketId, ticks, ticks);
  };
  for (let id = 1; id <= ACCOUNTS; id++) risk.deposit(id, "RUSD", String(400 * id), now);
  refreshAll();

  for (const step of commands) {
    switch (step.kind) {
      case "deposit":
        outputs.push(risk.deposit(step.accountId, step.btc ? "BTC" : "RUSD", step.btc ? String(step.amount / 100_000) : String(step.amount), now));
        break;
      case "withdraw":
        outputs.push(risk.withdraw(step.accountId, "RUSD", String(step.amount), now));
        break;
      case "match": {
        if (step.taker === step.maker) break;
        const mark = marks.get(step.marketId)!;
        const priceTicks = Math.max(1, Math.round(mark * (1 + step.offsetBp / 10_000)));
        const makerSide = step.side === "B" ? "A" : "B";
        const refusal = risk.checkOrder({ accountId: step.maker, marketId: step.marketId, side: makerSide, qtyLots: step.lots, priceTicks }, now);
        outputs.push(refusal);
        if (refusal !== null) break;
        counter += 1;
        const orderId = `o${counter}`;
        risk.restOrder({ orderId, accountId: step.maker, marketId: step.marketId, side: makerSide, qtyLots: step.lots, priceTicks });
        const fillLots = step.keepRest ? Math.max(1, Math.floor(step.lots / 2)) : step.lots;
        const m: Match = { fillId: String(counter), marketId: step.marketId, takerAccountId: step.taker, makerAccountId: step.maker, makerOrderId: orderId, takerSide: step.side, priceTicks, qtyLots: fillLots };
        const takerRefusal = risk.checkOrder({ accountId: step.taker, marketId: step.marketId, side: step.side, qtyLots: fillLots, priceTicks }, now);
        const verdict = risk.checkFill(m, now);
        outputs.push(takerRefusal, verdict);
        if (takerRefusal === null && verdict === "ok") {
          risk.addPending(m);
          pending.push(m);
        }
        if (!step.keepRest || verdict !== "ok") risk.removeRestingOrder(orderId);
        break;
      }
      case "settle": {
        const m = pending.shift();
        if (m === undefined) break;
        const reason = risk.validateMatch(m, now);
        risk.releasePending(m.fillId);
        outputs.push(reason);
        if (reason === null && !step.bust) {
          const applied = m.marketId === BTC_SPOT ? risk.applySpotExecution(execution(m), now) : risk.applyPerpExecution(execution(m), now);
          outputs.push(applied);
          if (m.marketId !== BTC_SPOT) records.push(applied.record as PerpExecutionRecord);
          const liquidation = risk.runLiquidations(now);
          outputs.push(liquidation);
          for (const done of liquidation.executions) records.push(done.record);
        }
        break;
      }
      case "move": {
        now += step.seconds * SECOND;
        const ticks = Math.max(10, Math.round(marks.get(step.marketId)! * (1 + step.bp / 10_000)));
        marks.set(step.marketId, ticks);
        for (const [marketId, current] of marks) {
          const oracle = marketId === step.marketId ? Math.max(10, Math.round(current * (1 + step.oracleBp / 10_000))) : current;
          setPrice(marketId, current, oracle);
        }
        break;
      }
      case "spot": {
        if (step.taker === step.maker) break;
        const priceTicks = Math.round(marks.get(BTC_PERP)!);
        counter += 1;
        const m: Match = { fillId: String(counter), marketId: BTC_SPOT, takerAccountId: step.taker, makerAccountId: step.maker, makerOrderId: "none", takerSide: step.side, priceTicks, qtyLots: step.lots };
        const refusal = risk.checkOrder({ accountId: step.taker, marketId: BTC_SPOT, side: step.side, qtyLots: step.lots, priceTicks }, now);
        const verdict = risk.checkFill(m, now);
        outputs.push(refusal, verdict);
        if (refusal === null && verdict === "ok") {
          risk.addPending(m);
          pending.push(m);
        }
        break;
      }
    }
    if (check) checkInvariants(risk, now, step.kind === "move" || step.kind === "settle");
  }
  outputs.push(risk.marketSummaries(now), risk.spotMarketSummaries(now));
  return { outputs, records, socialized: risk.state.socialized > 0n };
}

function checkInvariants(risk: RiskEngine, now: number, afterLiquidationStep: boolean): void {
  const state = risk.state;
  for (const line of conservation(state, now)) expect(line.holdings, `conservation of ${line.asset}`).toBe(line.netDeposits);
  for (const line of openInterest(state)) {
    expect(line.long).toBe(line.short);
    expect(line.longEffective).toBe(line.shortEffective);
    expect(line.long).toBe(line.longFromPositions);
    expect(line.short).toBe(line.shortFromPositions);
  }
  expect(openFundingClaims(state, now) + state.fundingRealized).toBe(-state.socialized);
  for (const account of state.accounts.values()) {
    const { kept, recomputed } = auditAccountSums(account);
    expect(kept).toEqual(recomputed);
    if (afterLiquidationStep && account.id !== POOL) expect(isLiquidatable(account, now), `account ${account.id} left below its liquidation requirement`).toBe(false);
  }
}

function checkFeeParts(records: readonly PerpExecutionRecord[]): void {
  for (const record of records) {
    if (record.type !== "ORDER_MATCH") {
      expect(record.takerFee).toBe("0");
      continue;
    }
    const parts = [record.protocolFeeCredit, record.referrerFeeCredit, record.takerRebateCredit, record.poolFeeCredit].map((part) => toE18(part!, "part"));
    expect(parts.reduce((sum, part) => sum + part, 0n)).toBe(toE18(record.takerFee, "takerFee"));
  }
}

describe("invariants over random streams", () => {
  it("hold after every step", () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(fc.array(command, { minLength: 20, maxLength: 90 }), pool, (commands, poolDeposit) => {
        const run = play(commands, poolDeposit, true);
        checkFeeParts(run.records);
        for (const record of run.records) seen[record.type] = (seen[record.type] ?? 0) + 1;
        if (run.socialized) seen["socialized"] = (seen["socialized"] ?? 0) + 1;
      }),
      { seed: 42, numRuns: 200 },
    );
    // The streams do reach liquidations against the pool, ADL and socialized losses.
    for (const kind of ["ORDER_MATCH", "LIQUIDATION", "ADL", "socialized"]) expect(seen[kind], kind).toBeGreaterThan(0);
  });

  it("replay to the same outputs", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 20, maxLength: 60 }), pool, (commands, poolDeposit) => {
        const text = (run: Run) => JSON.stringify(run.outputs, (_, value) => (typeof value === "bigint" ? value.toString() : value));
        expect(text(play(commands, poolDeposit, false))).toBe(text(play(commands, poolDeposit, false)));
      }),
      { seed: 42, numRuns: 20 },
    );
  });
});
