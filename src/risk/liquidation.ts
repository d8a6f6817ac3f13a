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
 */
import { assert } from "../core/assert.ts";
import { type ClosedMarket, autoDeleverage, socializeDeficit } from "./adl.ts";
import { type BookingContext, book } from "./collateral.ts";
import { applyPerpExecution } from "./executions.ts";
import { E18, E36, type Money, abs, divRound, max, min, roundMoneyRatio, toStepsHalfEven } from "./fixed.ts";
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
}

/** A LiquidationOutcome being filled by a pass. */
interface WorkingOutcome {
  readonly executions: AppliedPerpExecution[];
  readonly ledger: LedgerEntry[];
  readonly liquidatedAccountIds: number[];
  readonly deleveragedAccountIds: number[];
  readonly badDebtAccountIds: number[];
}

function newOutcome(): WorkingOutcome {
  return { executions: [], ledger: [], liquidatedAccountIds: [], deleveragedAccountIds: [], badDebtAccountIds: [] };
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
      const deleveraged = autoDeleverage(state, position, priceTicks, atMicros);
      outcome.executions.push(...deleveraged);
      for (const execution of deleveraged) {
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
