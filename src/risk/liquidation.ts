/**
 * Liquidation.
 *
 * Detection is incremental: an account is flagged (state.candidates) when a
 * change that touches it leaves it below its liquidation requirement: a mark
 * or funding change of a market it holds, an index change of an asset it
 * holds, an execution of its own. `runLiquidations` then handles only the
 * flagged accounts (ascending accountId), re-checking each on settled state,
 * and repeats while liquidations flag more (socialized losses can).
 *
 * Liquidating an account (settled margin balance < settled liquidation
 * requirement), with the pool being the backstop account:
 *  1. each position (by marketId) is closed at the mark on the tick grid
 *     (half-even): against the pool as a LIQUIDATION execution (account =
 *     taker, pool = maker) when the pool's margin passes after taking it
 *     (margin.fillMarginShortfall on settled state), otherwise by ADL
 *     (adl.ts);
 *  2. penalty = sum of closed notional x liquidationPenalty, at most what the
 *     account has left (settlement balance plus its collateral at the
 *     liquidation price), to the pool (LIQUIDATION_PENALTY entries);
 *  3. while the settlement balance is negative, non-settlement collateral is
 *     sold to the pool (assets by symbol) at index x (1 - liquidationDiscount)
 *     (COLLATERAL_LIQUIDATION entries on both accounts, asset and proceeds);
 *  4. a remaining deficit is covered by the pool as far as its margin allows
 *     (SOCIALIZED_LOSS entries: the pool's LPs bear it), and the rest is
 *     socialized through the funding value of the opposite side (adl.ts).
 * Without a pool account, every close is an ADL and there is no penalty or
 * collateral sale. The pool itself is never liquidated.
 * The exchange should cancel the resting orders of the liquidated accounts.
 *
 * Audit records: with `state.recordLiquidations` set (the exchange sets it
 * while a liquidation listener is attached, Exchange.observeLiquidations),
 * a pass also records what each account was judged on and each ADL queue
 * as ranked (LiquidationJudgement, AdlClose). They only read the state, so
 * a pass decides and outputs the same with or without them; without a
 * listener nothing would read them, and the engine path skips building them.
 */
import { assert } from "../core/assert.ts";
import { type AdlClose, type ClosedMarket, autoDeleverage, socializeDeficit } from "./adl.ts";
import { fundingClaim } from "./audit.ts";
import { type BookingContext, book } from "./collateral.ts";
import { applyPerpExecution } from "./executions.ts";
import { type Claim, E18, E36, type Money, type Price, type Qty, abs, divRound, max, min, roundMoneyRatio, toStepsHalfEven } from "./fixed.ts";
import { equitySettled, fillMarginShortfall, isLiquidatable } from "./margin.ts";
import type { AccountState, AssetState, PositionState, RiskState } from "./state.ts";
import type { AppliedPerpExecution, LedgerEntry } from "./types.ts";

export interface LiquidationOutcome {
  /** LIQUIDATION and ADL executions, in the order applied (each with its own ledger entries). */
  readonly executions: readonly AppliedPerpExecution[];
  /** Penalty, collateral-sale and socialized-loss entries. */
  readonly ledger: readonly LedgerEntry[];
  readonly liquidatedAccountIds: readonly number[];
  /** Accounts whose positions were reduced by ADL (the liquidated ones not included). */
  readonly deleveragedAccountIds: readonly number[];
  /** Liquidated accounts left with a negative balance (pool exhausted, nothing to socialize over). */
  readonly badDebtAccountIds: readonly number[];
  /** Per liquidated account (in liquidatedAccountIds order), what it was judged on; empty unless state.recordLiquidations. */
  readonly judgements: readonly LiquidationJudgement[];
  /** Each ADL close, in the order made: the queue as ranked and its executions (also in `executions`); empty unless state.recordLiquidations. */
  readonly adlCloses: readonly AdlClose[];
}

/**
 * What a liquidated account was judged on: its settled state at the moment
 * the pass found it liquidatable, before any of its positions was closed.
 * The pass records it and never reads it back. It is for the invariant
 * checks (src/sim/risk-invariants.ts checkLiquidationJudgement): by the
 * first output of a liquidation, the pass has already closed the positions
 * and moved the balances, so an account liquidated early (its margin
 * balance still at or above the requirement) cannot be seen from the
 * outputs. The terms are the raw figures, so the check can add the margin
 * balance and the requirement up again from their definitions instead of
 * trusting the running sums.
 */
export interface LiquidationJudgement {
  readonly accountId: number;
  /** margin.equitySettled and account.lmS as kept (Money, 10^36): what the rule compares. */
  readonly marginBalance: Money;
  readonly requirement: Money;
  /** The settlement asset's balance. */
  readonly settlementBalance: Money;
  /** Each non-zero non-settlement balance, with its asset's index price then (undefined: none, valued 0). */
  readonly collateral: readonly { readonly asset: string; readonly amount: Money; readonly index: Price | undefined }[];
  /** Sum of audit.fundingClaim over the positions (10^54, exact); the unrealized funding is its floor at 10^36. */
  readonly fundingClaims: Claim;
  /** Each position record (settled q and k), with its market's mark then. */
  readonly positions: readonly { readonly marketId: number; readonly q: Qty; readonly k: Money; readonly mark: Price | undefined }[];
}

/** A LiquidationOutcome being filled by a pass. */
interface WorkingOutcome {
  readonly executions: AppliedPerpExecution[];
  readonly ledger: LedgerEntry[];
  readonly liquidatedAccountIds: number[];
  readonly deleveragedAccountIds: number[];
  readonly badDebtAccountIds: number[];
  readonly judgements: LiquidationJudgement[];
  readonly adlCloses: AdlClose[];
}

function newOutcome(): WorkingOutcome {
  return { executions: [], ledger: [], liquidatedAccountIds: [], deleveragedAccountIds: [], badDebtAccountIds: [], judgements: [], adlCloses: [] };
}

/**
 * The outcome of a pass with no flagged account, shared and frozen: a pass
 * runs after every block and every price item, and nearly always has nothing
 * to do.
 */
const NOTHING_LIQUIDATED: LiquidationOutcome = Object.freeze({
  executions: Object.freeze([]),
  ledger: Object.freeze([]),
  liquidatedAccountIds: Object.freeze([]),
  deleveragedAccountIds: Object.freeze([]),
  badDebtAccountIds: Object.freeze([]),
  judgements: Object.freeze([]),
  adlCloses: Object.freeze([]),
});

/** Liquidates every flagged account that is below its liquidation requirement. */
export function runLiquidations(state: RiskState, atMicros: number): LiquidationOutcome {
  if (state.candidates.size === 0) return NOTHING_LIQUIDATED;
  const outcome = newOutcome();
  while (state.candidates.size > 0) {
    const accountIds = [...state.candidates].sort((a, b) => a - b);
    state.candidates.clear();
    for (const accountId of accountIds) {
      const account = state.accounts.get(accountId);
      if (account === undefined || accountId === state.config.poolAccountId) continue;
      if (!isLiquidatable(account, atMicros)) continue;
      liquidateAccount(state, account, atMicros, outcome);
    }
  }
  return outcome;
}

function poolCanAbsorb(pool: AccountState, position: PositionState, price: bigint, atMicros: number): boolean {
  const poolPosition = pool.positions.get(position.market.config.marketId);
  return fillMarginShortfall(poolPosition, pool, position.market, { delta: position.q, price, fee: 0n, atMicros, settled: true }) === null;
}

function liquidateAccount(state: RiskState, account: AccountState, atMicros: number, outcome: WorkingOutcome): void {
  const pool = state.accounts.get(state.config.poolAccountId);
  const positions = [...account.positions.values()].filter((position) => position.q !== 0n).sort((a, b) => a.market.config.marketId - b.market.config.marketId);
  const closed: ClosedMarket[] = [];
  let penaltyNumerator = 0n;
  outcome.liquidatedAccountIds.push(account.id);
  if (state.recordLiquidations) outcome.judgements.push(judgement(account, atMicros));
  for (const position of positions) {
    const market = position.market;
    const { tick, step, marketId } = market.config;
    const mark = market.mark ?? divRound(abs(position.k), abs(position.q), "half-even");
    const priceTicks = Math.max(1, toStepsHalfEven(mark, tick));
    const price = BigInt(priceTicks) * tick;
    const q = position.q;
    closed.push({ market, wasLong: q > 0n, notional: abs(q) * price });
    penaltyNumerator += abs(q) * price * market.config.penaltyRate;
    if (pool !== undefined && poolCanAbsorb(pool, position, price, atMicros)) {
      const execution = applyPerpExecution(
        state,
        {
          type: "LIQUIDATION",
          marketId,
          takerAccountId: account.id,
          makerAccountId: pool.id,
          takerSide: q > 0n ? "A" : "B",
          priceTicks,
          qtyLots: Number(abs(q) / step),
          fillId: state.ids.nextFillId(),
          sequenceNumber: state.ids.nextPerpSequenceNumber(),
        },
        atMicros,
      );
      outcome.executions.push(execution);
    } else {
      const { executions, close } = autoDeleverage(state, position, priceTicks, atMicros, state.recordLiquidations);
      if (close !== undefined) outcome.adlCloses.push(close);
      outcome.executions.push(...executions);
      for (const execution of executions) {
        const id = execution.record.takerAccountId;
        if (id !== account.id && !outcome.deleveragedAccountIds.includes(id)) outcome.deleveragedAccountIds.push(id);
      }
    }
  }
  assert(account.lmS === 0n, `account ${account.id} still holds positions after liquidation`);
  const context: BookingContext = { state, ledger: outcome.ledger, atMicros };
  if (pool !== undefined) {
    chargePenalty(context, account, pool, roundMoneyRatio(penaltyNumerator, E18, state.settlement.config.unit));
    sellCollateral(context, account, pool);
  }
  coverDeficit(context, account, pool, closed, outcome);
}

/** The account's settled figures now (see LiquidationJudgement); reads only. */
function judgement(account: AccountState, atMicros: number): LiquidationJudgement {
  const positions: { marketId: number; q: Qty; k: Money; mark: Price | undefined }[] = [];
  let fundingClaims: Claim = 0n;
  for (const position of account.positions.values()) {
    positions.push({ marketId: position.market.config.marketId, q: position.q, k: position.k, mark: position.market.mark });
    fundingClaims += fundingClaim(position, atMicros);
  }
  const collateral: { asset: string; amount: Money; index: Price | undefined }[] = [];
  for (const balance of account.balances.values()) {
    if (balance.asset.config.isSettlement || balance.balance === 0n) continue;
    collateral.push({ asset: balance.asset.config.symbol, amount: balance.balance, index: balance.asset.index?.price });
  }
  return { accountId: account.id, marginBalance: equitySettled(account, atMicros), requirement: account.lmS, settlementBalance: account.settlementBalance, collateral, fundingClaims, positions };
}

/** Proceeds of selling `amount` of an asset at index x (1 - liquidationDiscount), half-even. */
function saleProceeds(state: RiskState, asset: AssetState, amount: Money): Money {
  const index = asset.index;
  if (index === undefined) return 0n;
  return roundMoneyRatio(amount * index.price * (E18 - asset.config.liquidationDiscount), E36, state.settlement.config.unit);
}

function sellableCollateral(account: AccountState): { asset: AssetState; amount: Money }[] {
  return [...account.balances.values()]
    .filter((balance) => !balance.asset.config.isSettlement && balance.balance > 0n && balance.asset.index !== undefined)
    .sort((a, b) => (a.asset.config.symbol < b.asset.config.symbol ? -1 : 1))
    .map((balance) => ({ asset: balance.asset, amount: balance.balance }));
}

function chargePenalty(context: BookingContext, account: AccountState, pool: AccountState, nominal: Money): void {
  const state = context.state;
  const collateral = sellableCollateral(account).reduce((sum, entry) => sum + saleProceeds(state, entry.asset, entry.amount), 0n);
  const charge = min(nominal, max(account.settlementBalance + collateral, 0n));
  book(context, account, state.settlement, "LIQUIDATION_PENALTY", -charge, pool);
  book(context, pool, state.settlement, "LIQUIDATION_PENALTY", charge, account);
}

function sellCollateral(context: BookingContext, account: AccountState, pool: AccountState): void {
  const state = context.state;
  for (const { asset, amount: held } of sellableCollateral(account)) {
    const deficit = -account.settlementBalance;
    if (deficit <= 0n) return;
    const pricePerAmount = asset.index!.price * (E18 - asset.config.liquidationDiscount);
    if (pricePerAmount === 0n) continue;
    const unit = asset.config.unit;
    const needed = divRound(deficit * E36, pricePerAmount * unit, "ceil") * unit;
    const amount = min(needed, held);
    const proceeds = saleProceeds(state, asset, amount);
    book(context, account, asset, "COLLATERAL_LIQUIDATION", -amount, pool);
    book(context, account, state.settlement, "COLLATERAL_LIQUIDATION", proceeds, pool);
    book(context, pool, asset, "COLLATERAL_LIQUIDATION", amount, account);
    book(context, pool, state.settlement, "COLLATERAL_LIQUIDATION", -proceeds, account);
  }
}

function coverDeficit(context: BookingContext, account: AccountState, pool: AccountState | undefined, closed: readonly ClosedMarket[], outcome: WorkingOutcome): void {
  const state = context.state;
  const unit = state.settlement.config.unit;
  let deficit = -account.settlementBalance;
  if (deficit <= 0n) return;
  if (pool !== undefined) {
    const room = equitySettled(pool, context.atMicros) - pool.imS;
    const cover = min(deficit, max(divRound(room, unit, "floor") * unit, 0n));
    book(context, pool, state.settlement, "SOCIALIZED_LOSS", -cover, account);
    book(context, account, state.settlement, "SOCIALIZED_LOSS", cover, pool);
    deficit -= cover;
  }
  if (deficit > 0n && socializeDeficit(context, account, deficit, closed) === 0n) outcome.badDebtAccountIds.push(account.id);
}
