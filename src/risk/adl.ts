/**
 * Auto-deleveraging and socialized losses: what happens when the backstop
 * pool cannot absorb a liquidation.
 *
 * ADL: the liquidated position is closed against the opposite positions in
 * the same market, most profitable first. Rank: unrealized PnL ratio at mark,
 *   (q x mark - k) / |k|   (PnL over entry notional), highest first,
 * ties by accountId ascending. Each pair of legs is two one-sided ADL
 * executions (maker fields absent) at the mark on the tick grid.
 *
 * Socialization: a deficit the pool cannot cover (the liquidated account's
 * balance below zero once its positions and collateral are gone) is spread
 * over the markets the account was liquidated in, pro rata to the closed
 * notional, and in each market over the side opposite the liquidated
 * position (the side its loss was the profit of), by lowering that side's
 * funding value:
 *   perUnit = ceil(deficit x 10^18 / opposite settled OI)    (10^36 scale)
 * The claims of that side fall by OI x perUnit >= deficit; the excess (below
 * one unit of the last funding digit per unit) goes to the rounding residual.
 * A market where the opposite side holds nothing cannot take a share; a
 * deficit no market can take stays on the account as a negative balance.
 */
import { assert } from "../core/assert.ts";
import { type BookingContext, book } from "./collateral.ts";
import { applyPerpExecution } from "./executions.ts";
import { E18, type Money, type Price, type Qty, abs, divRound, min } from "./fixed.ts";
import { refreshHolders } from "./feeds.ts";
import { lowerFundingValue } from "./funding.ts";
import type { AccountState, PerpMarketState, PositionState, RiskState } from "./state.ts";
import type { AppliedPerpExecution } from "./types.ts";

function compareRank(a: PositionState, b: PositionState, mark: bigint): number {
  // ratio = (q x mark - k) / |k|; compare a.num x b.den with b.num x a.den (denominators positive)
  const left = (a.q * mark - a.k) * abs(b.k);
  const right = (b.q * mark - b.k) * abs(a.k);
  if (left !== right) return left > right ? -1 : 1;
  return a.account.id - b.account.id;
}

/**
 * The opposite positions of a liquidated position, in ADL order at `mark`
 * (the caller reads it once, `market.mark ?? 0n`, so that what it records
 * as the ranking mark is the one this sort used).
 */
export function adlQueue(market: PerpMarketState, liquidated: PositionState, mark: Price): PositionState[] {
  const long = liquidated.q > 0n;
  return [...market.holders.values()]
    .filter((position) => position !== liquidated && (long ? position.q < 0n : position.q > 0n))
    .sort((a, b) => compareRank(a, b, mark));
}

/** One opposite position in an ADL queue, as it was when the queue was ranked. */
export interface AdlQueueEntry {
  readonly accountId: number;
  /** Settled signed quantity and cost basis then. */
  readonly q: Qty;
  readonly k: Money;
  /** The ranking ratio's numerator q x mark - k and denominator |k| (10^36) at the close's mark: what the rule compares. */
  readonly pnl: Money;
  readonly entryNotional: Money;
}

/**
 * One ADL close as a liquidation pass made it: the queue as ranked, with
 * every opposite position's figures at that moment, and the executions it
 * gave. The pass itself never reads it back; it is for the invariant checks
 * (src/sim/risk-invariants.ts checkAdlClose), which cannot see the ranking
 * from the outputs: by the first ADL execution published, the queue's
 * positions have already moved.
 */
export interface AdlClose {
  readonly liquidatedAccountId: number;
  readonly marketId: number;
  /** The mark the queue was ranked at (0 before any mark, as adlQueue reads it). */
  readonly mark: Price;
  /** The liquidated position's settled signed quantity before the close. */
  readonly q: Qty;
  /** The market's settled open interest on the opposite side before the close (the queue's sizes sum to it). */
  readonly oppositeOi: Qty;
  /** Every opposite position, in the order the close took them. */
  readonly queue: readonly AdlQueueEntry[];
  /** The close's executions: per counterparty taken, the liquidated leg then the counterparty's. */
  readonly executions: readonly AppliedPerpExecution[];
}

/** What autoDeleverage did: its executions, and the close's record when asked for one. */
export interface AdlResult {
  readonly executions: readonly AppliedPerpExecution[];
  /** Undefined unless `record`: nothing in the engine reads it. */
  readonly close: AdlClose | undefined;
}

/**
 * Closes the liquidated position against the ADL queue at `priceTicks`.
 * With `record`, also returns the close's AdlClose (the queue's figures
 * are read before any take): only when something observes the pass (see
 * liquidation.ts runLiquidations), since it costs a bigint product per
 * opposite position.
 */
export function autoDeleverage(state: RiskState, liquidated: PositionState, priceTicks: number, atMicros: number, record: boolean): AdlResult {
  const market = liquidated.market;
  const step = market.config.step;
  const long = liquidated.q > 0n;
  const executions: AppliedPerpExecution[] = [];
  const mark = market.mark ?? 0n;
  const ranked = adlQueue(market, liquidated, mark);
  const close: AdlClose | undefined = record
    ? {
        liquidatedAccountId: liquidated.account.id,
        marketId: market.config.marketId,
        mark,
        q: liquidated.q,
        oppositeOi: long ? market.oiShort : market.oiLong,
        queue: ranked.map((position) => ({ accountId: position.account.id, q: position.q, k: position.k, pnl: position.q * mark - position.k, entryNotional: abs(position.k) })),
        executions,
      }
    : undefined;
  let remaining = abs(liquidated.q);
  for (const counterparty of ranked) {
    const take = min(remaining, abs(counterparty.q));
    const qtyLots = Number(take / step);
    const legs = [
      { account: liquidated.account, takerSide: long ? "A" : "B" },
      { account: counterparty.account, takerSide: long ? "B" : "A" },
    ] as const;
    for (const leg of legs) {
      executions.push(
        applyPerpExecution(
          state,
          {
            type: "ADL",
            marketId: market.config.marketId,
            takerAccountId: leg.account.id,
            takerSide: leg.takerSide,
            priceTicks,
            qtyLots,
            fillId: state.ids.nextFillId(),
            sequenceNumber: state.ids.nextPerpSequenceNumber(),
          },
          atMicros,
        ),
      );
    }
    remaining -= take;
    if (remaining === 0n) break;
  }
  assert(remaining === 0n, `ADL on ${market.config.symbol} found too little opposite interest (long OI must equal short OI)`);
  assert(market.oiLong === market.oiShort, `long OI ${market.oiLong} differs from short OI ${market.oiShort} on ${market.config.symbol} after ADL`);
  return { executions, close };
}

/** A market the liquidated account was closed out of: its side and the closed notional. */
export interface ClosedMarket {
  readonly market: PerpMarketState;
  readonly wasLong: boolean;
  readonly notional: Money;
}

/** Spreads `deficit` over the opposite sides of `closed` markets; returns what was socialized. */
export function socializeDeficit(context: BookingContext, account: AccountState, deficit: Money, closed: readonly ClosedMarket[]): Money {
  const state = context.state;
  const unit = state.settlement.config.unit;
  const eligible = closed.filter((entry) => (entry.wasLong ? entry.market.oiShort : entry.market.oiLong) > 0n);
  if (eligible.length === 0 || deficit <= 0n) return 0n;
  const totalNotional = eligible.reduce((sum, entry) => sum + entry.notional, 0n);
  let left = deficit;
  eligible.forEach((entry, index) => {
    const last = index === eligible.length - 1;
    const share = last ? left : divRound((deficit / unit) * entry.notional, totalNotional, "floor") * unit;
    left -= share;
    if (share === 0n) return;
    const oppositeLong = !entry.wasLong;
    const oi = oppositeLong ? entry.market.oiLong : entry.market.oiShort;
    const perUnit = divRound(share * E18, oi, "ceil");
    lowerFundingValue(entry.market.funding, oppositeLong, perUnit);
    state.socialized += oi * perUnit;
    state.roundingResidual += oi * perUnit - share * E18;
    refreshHolders(state, entry.market, context.atMicros, false);
  });
  book(context, account, state.settlement, "SOCIALIZED_LOSS", deficit);
  return deficit;
}
