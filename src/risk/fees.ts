/**
 * Fees (Fee v3).
 *
 * Tier: a VIP tier when the venue assigned one; otherwise the REGULAR tier
 * with the highest volume30d not above the wallet's rolling 30-day traded
 * notional (settled executions of all its accounts, maker and taker, perp and
 * spot, 1-hour buckets on the virtual clock).
 *
 * Taker fee. The specification writes fee = qty x takerFee; the fee is in
 * rUSD, so qty is read as the traded amount in rUSD:
 *   takerFee (gross)   = qty x price x takerRate
 * The taker pays the gross fee less its discounts, which come back to it as
 * the takerRebateCredit:
 *   discount           = 1 - (1 - ogDiscount if OG) x (1 - refereeDiscount if referee)
 *   takerRebateCredit  = takerFee x discount
 *   referrerFeeCredit  = takerFee x (affiliateReferrerRebate if the referrer
 *                        is an affiliate, else referrerRebate); 0 without a
 *                        referrer (or a referrer without an account)
 *   poolFeeCredit      = takerFee x poolFeeShare (0 until the pool account exists)
 *   protocolFeeCredit  = takerFee - the three above
 * Each product is rounded half-even to the settlement asset's decimals, each
 * part capped by what is left, and the protocol takes the remainder, so the
 * four parts sum to takerFee exactly. Maker fee: none (makerFee omitted).
 */
import { mainAccountOf } from "./accounts.ts";
import { E18, E36, type Money, min, roundMoneyRatio } from "./fixed.ts";
import type { FeeTierConfig } from "./config.ts";
import type { AccountState, RiskState, WalletState } from "./state.ts";

/** The wallet's fee tier at `atMicros`; also stored as wallet.tier. */
export function refreshTier(state: RiskState, wallet: WalletState, atMicros: number): FeeTierConfig {
  const tiers = state.config.feeTiers;
  let tier = tiers[0]!;
  if (wallet.vipTierId !== undefined) {
    tier = tiers.find((candidate) => candidate.tierId === wallet.vipTierId)!;
  } else {
    const volume = wallet.volume30d.sum(atMicros);
    for (const candidate of tiers) {
      if (candidate.tierType === "REGULAR" && candidate.volume30d <= volume) tier = candidate;
    }
  }
  wallet.tier = tier;
  return tier;
}

export interface TakerFeeSplit {
  readonly takerFee: Money;
  readonly takerRebateCredit: Money;
  readonly referrerFeeCredit: Money;
  readonly poolFeeCredit: Money;
  readonly protocolFeeCredit: Money;
  readonly referrer: AccountState | undefined;
  readonly pool: AccountState | undefined;
}

/** Splits the gross taker fee of `notional` (settlement asset) for a wallet at its tier `tier`. */
export function takerFeeSplit(state: RiskState, wallet: WalletState, tier: FeeTierConfig, notional: Money): TakerFeeSplit {
  const unit = state.settlement.config.unit;
  const global = state.config.globalFees;
  const takerFee = roundMoneyRatio(notional * tier.takerRate, E18, unit);
  const keepOg = wallet.og ? E18 - global.ogDiscount : E18;
  const keepReferee = wallet.referee ? E18 - global.refereeDiscount : E18;
  const discount = E36 - keepOg * keepReferee; // a fraction at 10^36
  const takerRebateCredit = min(roundMoneyRatio(takerFee * discount, E36, unit), takerFee);
  const referrer = mainAccountOf(state, wallet.referrer);
  const referrerRate = referrer === undefined ? 0n : referrer.wallet.affiliate ? global.affiliateReferrerRebate : global.referrerRebate;
  const referrerFeeCredit = min(roundMoneyRatio(takerFee * referrerRate, E18, unit), takerFee - takerRebateCredit);
  const pool = state.accounts.get(state.config.poolAccountId);
  const poolShare = pool === undefined ? 0n : global.poolFeeShare;
  const poolFeeCredit = min(roundMoneyRatio(takerFee * poolShare, E18, unit), takerFee - takerRebateCredit - referrerFeeCredit);
  const protocolFeeCredit = takerFee - takerRebateCredit - referrerFeeCredit - poolFeeCredit;
  return { takerFee, takerRebateCredit, referrerFeeCredit, poolFeeCredit, protocolFeeCredit, referrer, pool };
}

/** A conservative fee for pre-trade checks: the gross fee at the wallet's current tier, rounded up. */
export function feeReserve(wallet: WalletState, notional: Money): Money {
  return (notional * wallet.tier.takerRate + E18 - 1n) / E18;
}
