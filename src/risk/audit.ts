/**
 * Invariants of the risk state, computed from scratch (O(everything): for
 * tests, the simulator's invariant checks and reports, never the hot path).
 *
 * Conservation, per asset, exact at 10^54:
 *   sum of balances (the pool's included, so penalties and pool fees too)
 *   + protocol fees collected
 *   + open claims (settlement asset only: unrealized price PnL and funding
 *     of open positions; they carry the socialized adjustments, and are 0
 *     once every position is closed)
 *   + rounding residual (settlement asset only)
 *   = net deposits
 * Funding: funding claims of open positions + funding realized = -socialized
 * (so without socialized losses, what longs pay equals what shorts receive).
 * Open interest: long = short, settled and effective, and each equals the
 * sum over positions.
 */
import { E18, type Claim, type Money, max } from "./fixed.ts";
import { longValueAt, rebaseFunding, shortValueAt } from "./funding.ts";
import { refreshPosition } from "./margin.ts";
import type { AccountState, PositionState, RiskState } from "./state.ts";

export interface ConservationLine {
  readonly asset: string;
  /** Balances + fees (+ open claims + residual for the settlement asset), 10^54. */
  readonly holdings: Claim;
  readonly netDeposits: Claim;
}

/** Unrealized funding of a settled position at `atMicros`, exact (10^54). */
export function fundingClaim(position: PositionState, atMicros: number): Claim {
  if (position.q === 0n) return -position.b;
  const funding = position.market.funding;
  return position.q > 0n ? position.q * longValueAt(funding, atMicros) - position.b : -position.q * shortValueAt(funding, atMicros) - position.b;
}

/** Unrealized price PnL of every open position (10^54), at each market's mark (or 0). */
function openPriceClaims(state: RiskState): Claim {
  let total = 0n;
  for (const market of state.perps.values()) {
    const mark = market.mark ?? 0n;
    for (const position of market.holders.values()) total += (position.q * mark - position.k) * E18;
  }
  return total;
}

export function openFundingClaims(state: RiskState, atMicros: number): Claim {
  let total = 0n;
  for (const market of state.perps.values()) {
    for (const position of market.holders.values()) total += fundingClaim(position, atMicros);
  }
  return total;
}

export function conservation(state: RiskState, atMicros: number): ConservationLine[] {
  return [...state.assets.values()].map((asset) => {
    const symbol = asset.config.symbol;
    let balances: Money = 0n;
    let deposits: Money = 0n;
    for (const account of state.accounts.values()) {
      const balance = account.balances.get(symbol);
      if (balance === undefined) continue;
      balances += balance.balance;
      deposits += balance.netDeposits;
    }
    let holdings = (balances + (state.protocolFees.get(symbol) ?? 0n)) * E18;
    if (asset.config.isSettlement) holdings += openPriceClaims(state) + openFundingClaims(state, atMicros) + state.roundingResidual;
    return { asset: symbol, holdings, netDeposits: deposits * E18 };
  });
}

export interface OpenInterestLine {
  readonly marketId: number;
  readonly long: bigint;
  readonly short: bigint;
  readonly longEffective: bigint;
  readonly shortEffective: bigint;
  /** Sums over positions, for comparison. */
  readonly longFromPositions: bigint;
  readonly shortFromPositions: bigint;
}

export function openInterest(state: RiskState): OpenInterestLine[] {
  return [...state.perps.values()].map((market) => {
    let longFromPositions = 0n;
    let shortFromPositions = 0n;
    for (const position of market.holders.values()) {
      longFromPositions += max(position.q, 0n);
      shortFromPositions += max(-position.q, 0n);
    }
    return {
      marketId: market.config.marketId,
      long: market.oiLong,
      short: market.oiShort,
      longEffective: market.oiLongEff,
      shortEffective: market.oiShortEff,
      longFromPositions,
      shortFromPositions,
    };
  });
}

/** The account's running margin sums that auditAccountSums compares, in its order. */
export const ACCOUNT_SUM_KEYS = ["upnl", "upnlS", "im", "imS", "lm", "lmS", "imOrders", "f0", "f1"] as const;

/** The account's running sums next to the same sums recomputed from its positions (in ACCOUNT_SUM_KEYS order). */
export function auditAccountSums(account: AccountState): { readonly kept: readonly bigint[]; readonly recomputed: readonly bigint[] } {
  const keys = ACCOUNT_SUM_KEYS;
  const kept = keys.map((key) => account[key]);
  const recomputed = keys.map(() => 0n);
  for (const position of account.positions.values()) {
    // Recompute this position's contributions into a scratch copy, then read them. Object.assign rather than
    // `{ ...x, field: value }`: V8 (Node 20) stores the members after a leading spread on a slow path.
    const scratchAccount = Object.assign({}, account, { positions: new Map(), upnl: 0n, upnlS: 0n, im: 0n, imS: 0n, lm: 0n, lmS: 0n, imOrders: 0n, f0: 0n, f1: 0n });
    // The funding terms derived from the anchors anew, not the market's kept ones (those are audited too).
    const scratchFunding = Object.assign({}, position.market.funding);
    rebaseFunding(scratchFunding);
    const scratchMarket = Object.assign({}, position.market, { holders: new Map(), funding: scratchFunding });
    const zeroed = { upnlC: 0n, upnlSC: 0n, imC: 0n, imSC: 0n, lmC: 0n, lmSC: 0n, imOrdersC: 0n, f0C: 0n, f1C: 0n };
    const copy: PositionState = Object.assign({}, position, zeroed, { account: scratchAccount, market: scratchMarket });
    refreshPosition(copy);
    keys.forEach((key, index) => {
      recomputed[index] = recomputed[index]! + scratchAccount[key];
    });
  }
  return { kept, recomputed };
}
