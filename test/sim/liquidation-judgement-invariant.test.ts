/**
 * checkLiquidationJudgement (src/sim/risk-invariants.ts) against the M06
 * mutant of the mutation study (scratch/s22/mutation-invariants.md): a
 * liquidation trigger that compares the settled margin balance with the
 * effective liquidation requirement `lm` (which a pending fill that grows
 * the position raises) instead of the settled `lmS`. Such a trigger
 * liquidates early, and nothing in the outputs shows it: the pass has
 * closed the positions before its first output. The pass's outcome records
 * what each account was judged on, and the check adds it up again.
 *
 * margin.isLiquidatable is swapped (vi.mock) for a switch between the real
 * trigger and the mutant's; each case says which it runs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvariantError } from "../../src/core/assert.ts";
import { Exchange, type ExchangeAnswer } from "../../src/exchange/exchange.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import type { LiquidationJudgement } from "../../src/risk/liquidation.ts";
import { runFuzzSeed } from "../../src/sim/fuzz.ts";
import { ExchangeInvariants } from "../../src/sim/invariants.ts";
import { loadScenario } from "../../src/sim/scenario-loader.ts";
import { checkLiquidationJudgement } from "../../src/sim/risk-invariants.ts";
import { DUMMY_SIGNATURE, START_MICROS, trustedConfig, wallet } from "../exchange/flow.ts";
import { BTC_PERP, T0, match, setPrices, trade, venue } from "../risk/fixtures.ts";

const trigger = vi.hoisted(() => ({ mutant: false }));

vi.mock("../../src/risk/margin.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/risk/margin.ts")>();
  return {
    ...original,
    isLiquidatable: (account: Parameters<typeof original.isLiquidatable>[0], atMicros: number) =>
      trigger.mutant ? account.lmS > 0n && original.equitySettled(account, atMicros) < account.lm : original.isLiquidatable(account, atMicros),
  };
});

afterEach(() => {
  trigger.mutant = false;
});

/**
 * Account 1 long 0.19 BTC at 50000 on 1000 rUSD (balance 996.2 after the
 * fee), with a pending buy of 0.11 more from account 2; then the index
 * falls to 47000, which takes the mark to 48500: settled margin balance
 * 996.2 - 0.19 x 1500 = 711.2, settled requirement 0.19 x 48500 x 0.05 =
 * 460.75 (not liquidatable), effective requirement 0.30 x 48500 x 0.05 =
 * 727.5 (the mutant's trigger fires).
 */
function pendingBuyThenDrop() {
  const risk = venue({ accounts: 2, poolDeposit: "1000000" });
  risk.deposit(1, "RUSD", "1000", T0);
  risk.deposit(2, "RUSD", "100000", T0);
  setPrices(risk, T0);
  trade(risk, BTC_PERP, 1, 2, "B", 500_000, 190, T0);
  risk.addPending(match(BTC_PERP, 1, 2, "B", 500_000, 110));
  const at = T0 + 1;
  return { risk, at, outcome: risk.setIndexPrice("BTC", "47000", at).liquidation };
}

describe("a liquidated account was below its settled requirement when judged", () => {
  it("the real trigger leaves the account of the pending buy alone: settled 711.2 is not below 460.75", () => {
    const { risk, at, outcome } = pendingBuyThenDrop();
    expect(outcome.liquidatedAccountIds).toEqual([]);
    const account = risk.state.accounts.get(1)!;
    expect(account.lmS).toBe(460_750_000n * 10n ** 30n);
    expect(account.lm).toBe(727_500_000n * 10n ** 30n);
    expect(account.positions.get(BTC_PERP)!.q).toBe(190n * 10n ** 15n);
    expect(at).toBe(T0 + 1);
  });

  it("M06 (trigger at the effective requirement) liquidates it early, and the check reports it", () => {
    trigger.mutant = true;
    const { risk, outcome } = pendingBuyThenDrop();
    expect(outcome.liquidatedAccountIds).toEqual([1]);
    expect(risk.state.accounts.get(1)!.positions.get(BTC_PERP)?.q ?? 0n).toBe(0n); // closed against the pool
    const [judgement] = outcome.judgements;
    expect(judgement).toMatchObject({ accountId: 1, marginBalance: 711_200_000n * 10n ** 30n, requirement: 460_750_000n * 10n ** 30n });
    const check = () => checkLiquidationJudgement(risk.state, judgement!);
    expect(check).toThrowError(InvariantError);
    // An Error instance: the message must be equal, not only contained.
    expect(check).toThrow(
      new InvariantError("account 1 was liquidated with a settled margin balance of 711.2, not below its settled liquidation requirement 460.75: an account is liquidated only when its settled margin balance is below it"),
    );
  });

  it("passes a liquidation the real trigger makes (mark 47000: settled 426.2 < 446.5)", () => {
    const { risk, at } = pendingBuyThenDrop();
    const outcome = risk.setOraclePrice(BTC_PERP, "47000", at).liquidation;
    expect(outcome.liquidatedAccountIds).toEqual([1]);
    expect(outcome.judgements).toHaveLength(1);
    expect(outcome.judgements[0]).toMatchObject({ accountId: 1, marginBalance: 426_200_000n * 10n ** 30n, requirement: 446_500_000n * 10n ** 30n });
    expect(() => checkLiquidationJudgement(risk.state, outcome.judgements[0]!)).not.toThrow();
  });

  it("adds the figures up again: a requirement or balance that is not what the positions and balances give is reported", () => {
    const { risk, at } = pendingBuyThenDrop();
    const judgement = risk.setOraclePrice(BTC_PERP, "47000", at).liquidation.judgements[0]!;
    // A running lmS one unit off, or a margin balance that lost the unrealized PnL, as the trigger would have read them.
    const offRequirement: LiquidationJudgement = { ...judgement, requirement: judgement.requirement + 1n };
    expect(() => checkLiquidationJudgement(risk.state, offRequirement)).toThrow(/^account 1 was liquidated on a settled margin balance of \d+ and requirement \d+ \(10\^36, the running sums\), but its positions, balances and funding then give \d+ and \d+$/);
    const position = judgement.positions[0]!;
    const withoutPnl: LiquidationJudgement = { ...judgement, marginBalance: judgement.marginBalance - (position.q * position.mark! - position.k) };
    expect(() => checkLiquidationJudgement(risk.state, withoutPnl)).toThrowError(InvariantError);
  });
});

/**
 * The same situation on an Exchange with the fuzz's checker attached
 * (ExchangeInvariants, as `shadowbook fuzz` runs it): trader 11 (1000 rUSD)
 * buys 3 ETH at 3000 from a maker, settled; the chain then stalls
 * (delayBlocks), and it buys 3 more, pending; WETH and the ETH oracle fall
 * to 2800. Settled margin balance about 1000 - 600 = 394 is above the
 * settled requirement 3 x 2800 x 0.025 = 210 and below the effective one,
 * 6 x 2800 x 0.025 = 420. Returns the checker's stats and the pass's answer.
 */
function stalledBuyThenDrop(): { answer: ExchangeAnswer; thrownByPass: unknown; checker: ExchangeInvariants; exchange: Exchange } {
  const exchange = new Exchange({ config: trustedConfig(), startMicros: START_MICROS, seed: 1 });
  const checker = new ExchangeInvariants(exchange);
  let now = START_MICROS;
  const handle = (input: ExchangeInput): ExchangeAnswer => {
    const answer = exchange.handle(input, now);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    return answer;
  };
  const prices = (price: string): ExchangeInput => ({ kind: "prices", prices: [{ asset: "WETH", price }, { symbol: "ETHRUSDPERP", price }] });
  let nonce = 0;
  const order = (accountId: number, isBuy: boolean, qty: string, timeInForce: "GTC" | "IOC"): ExchangeInput => ({
    kind: "request",
    op: "createOrder",
    body: { exchangeId: 1, symbol: "ETHRUSDPERP", accountId, isBuy, limitPx: "3000", qty, orderType: "LIMIT", timeInForce, ...(timeInForce === "IOC" ? { reduceOnly: false } : {}), signature: DUMMY_SIGNATURE, nonce: String(++nonce), signerWallet: wallet(accountId), deadline: Math.floor(now / 1_000_000) + 60 },
  });
  const trader = 11;
  const maker = 12;
  handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(trader), accountId: trader, deposits: { rUSD: "1000" } } });
  handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(maker), accountId: maker, deposits: { rUSD: "1000000" } } });
  for (const id of [trader, maker]) handle({ kind: "admin", admin: { action: "wallet", wallet: wallet(id), rateTier: 3 } }); // no open-order caps
  handle(prices("3000"));
  now += 1_000;
  handle(order(maker, false, "6", "GTC"));
  handle(order(trader, true, "3", "IOC"));
  now += 1_000_000;
  exchange.advanceTo(now); // a block settles the first buy
  const account = exchange.risk.state.accounts.get(trader)!;
  expect(account.positions.get(1)!.q).toBe(3n * 10n ** 18n);
  handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: 60_000 } });
  handle(order(trader, true, "3", "IOC"));
  expect(account.positions.get(1)!.pq).toBe(3n * 10n ** 18n);
  now += 1_000_000;
  let thrownByPass: unknown;
  let answer: ExchangeAnswer = { ok: true, payload: {} };
  try {
    answer = exchange.handle(prices("2800"), now);
  } catch (error) {
    thrownByPass = error;
  }
  return { answer, thrownByPass, checker, exchange };
}

describe("through the fuzz's checker on an Exchange", () => {
  it("the real trigger: the stalled trader is not liquidated, and the checker passes", () => {
    const { answer, thrownByPass, checker, exchange } = stalledBuyThenDrop();
    expect(thrownByPass).toBeUndefined();
    expect(answer.ok).toBe(true);
    expect(checker.stats.liquidationJudgements).toBe(0);
    const account = exchange.risk.state.accounts.get(11)!;
    expect(account.positions.get(1)!.q).toBe(3n * 10n ** 18n);
    expect(account.lmS).toBeGreaterThan(0n);
    checker.checkState();
  });

  it("M06: the stalled trader is liquidated early, and the checker stops the run at that pass", () => {
    trigger.mutant = true;
    const { thrownByPass, checker } = stalledBuyThenDrop();
    expect(thrownByPass).toBeInstanceOf(InvariantError);
    expect((thrownByPass as Error).message).toMatch(/^account 11 was liquidated with a settled margin balance of 39\d\.\d+, not below its settled liquidation requirement 210: an account is liquidated only when its settled margin balance is below it$/);
    expect(checker.stats.liquidationJudgements).toBe(0); // the first judgement checked failed
  });
});

/** test/sim/fixtures/stalled-build-scenario.ts: the same situation made by agents, as `shadowbook fuzz` runs it. */
describe("through the fuzzer's own seed path, on the stalled-build fixture", () => {
  const fixture = `${import.meta.dirname}/fixtures/stalled-build-scenario.ts`;

  it("passes seed 1 with the real trigger", async () => {
    const result = await runFuzzSeed(await loadScenario(fixture), 1, { scenarioPath: fixture });
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
  }, 60_000);

  it("fails seed 1 with M06's trigger, at the early liquidation", async () => {
    trigger.mutant = true;
    const result = await runFuzzSeed(await loadScenario(fixture), 1, { scenarioPath: fixture });
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe("InvariantError");
    expect(result.error?.message).toMatch(/^account \d+ was liquidated with a settled margin balance of [\d.]+, not below its settled liquidation requirement [\d.]+: an account is liquidated only when its settled margin balance is below it$/);
  }, 60_000);
});
