/**
 * MARKET_CLOSE: closing a perp market (admin or scenario) settles every
 * position at a settlement price (default: the mark on the tick grid) as
 * one-sided MARKET_CLOSE executions (holders by ascending accountId),
 * realizing price and funding PnL, stops funding, drops the market's resting
 * orders from the risk state (the exchange cancels them in the engine) and
 * refuses orders from then on (TRADING_HALTED_ERROR). Pending matches must be
 * settled or busted first: closing with pending matches is refused.
 */
import { assert } from "../core/assert.ts";
import { applyPerpExecution, getPerp } from "./executions.ts";
import { removeRestingOrdersOfMarket } from "./exposure.ts";
import { abs, toStepsHalfEven } from "./fixed.ts";
import { reanchorFunding } from "./funding.ts";
import type { RiskState } from "./state.ts";
import type { AppliedPerpExecution } from "./types.ts";

export function closeMarket(state: RiskState, marketId: number, settlementPriceTicks: number | undefined, atMicros: number): AppliedPerpExecution[] {
  const market = getPerp(state, marketId);
  assert(!market.closed, `${market.config.symbol} is already closed`);
  const pendingCount = [...state.pending.values()].filter((pending) => pending.marketId === marketId).length;
  assert(pendingCount === 0, `${market.config.symbol} has ${pendingCount} pending matches: settle or bust them before closing`);
  const { tick, step } = market.config;
  const priceTicks = settlementPriceTicks ?? (market.mark === undefined ? undefined : Math.max(1, toStepsHalfEven(market.mark, tick)));
  const holders = [...market.holders.values()].filter((position) => position.q !== 0n).sort((a, b) => a.account.id - b.account.id);
  assert(priceTicks !== undefined || holders.length === 0, `${market.config.symbol} has no mark: give a settlement price`);
  removeRestingOrdersOfMarket(state, marketId);
  const executions = holders.map((position) =>
    applyPerpExecution(
      state,
      {
        type: "MARKET_CLOSE",
        marketId,
        takerAccountId: position.account.id,
        takerSide: position.q > 0n ? "A" : "B",
        priceTicks: priceTicks!,
        qtyLots: Number(abs(position.q) / step),
        fillId: state.ids.nextFillId(),
        sequenceNumber: state.ids.nextPerpSequenceNumber(),
      },
      atMicros,
    ),
  );
  assert(market.oiLong === 0n && market.oiShort === 0n, `${market.config.symbol} still has open interest after closing`);
  reanchorFunding(market.funding, Math.max(atMicros, market.funding.anchorMicros), 0n, market.mark ?? 0n);
  market.closed = true;
  return executions;
}
