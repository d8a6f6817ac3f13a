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
 * four parts sum to takerFee exactly. Maker fee: none (makerFee omitted);
 * a tier's makerFee must be 0 (config.ts refuses any other).
 */
import { mainAccountOf } from "./accounts.ts";
import { E18, E18_MINUS_ONE, E36, type Money, min, roundMoneyRatio } from "./fixed.ts";
import type { FeeTierConfig } from "./config.ts";
import type { AccountState, RiskState, WalletState } from "./state.ts";

/** The wallet's fee tier at `atMicros`; also stored as wallet.tier. */
export function refreshTier(state: RiskState, wallet: WalletState, atMicros: number): FeeTierConfig {
  const tiers = state.config.feeTiers;
  const tier = wallet.vipTierId !== undefined ? tiers.find((candidate) => candidate.tierId === wallet.vipTierId)! : regularTier(tiers, wallet.volume30d.sum(atMicros));
  wallet.tier = tier;
  return tier;
}

/**
 * The REGULAR tier of a 30-day volume: the last one in RiskConfig.feeTiers
 * (REGULAR tiers by ascending volume30d, then VIP) whose volume30d is not
 * above it. With volume 0 this is the default tier, the one a new wallet
 * without a VIP tier is in, whatever order the scenario lists tiers in.
 */
export function regularTier(tiers: readonly FeeTierConfig[], volume: Money): FeeTierConfig {
  let tier = tiers[0]!;
  for (const candidate of tiers) {
    if (candidate.tierType === "REGULAR" && candidate.volume30d <= volume) tier = candidate;
  }
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

/**
 * Splits the gross taker fee of `notional` (settlement asset) for a wallet at its tier `tier`.
 *
 * A settled match asks for the same split twice in a row, once in
 * validateMatch and once in applyPerpExecution (same wallet, tier and
 * notional, nothing changed between them), so the last split is kept on the
 * state with everything it was computed from, and returned again when all of
 * that is as it was.
 */
export function takerFeeSplit(state: RiskState, wallet: WalletState, tier: FeeTierConfig, notional: Money): TakerFeeSplit {
  const referrer = mainAccountOf(state, wallet.referrer);
  const pool = state.accounts.get(state.config.poolAccountId);
  const last = state.lastFeeSplit;
  if (
    last !== undefined &&
    last.wallet === wallet &&
    last.takerRate === tier.takerRate &&
    last.notional === notional &&
    last.og === wallet.og &&
    last.referee === wallet.referee &&
    last.split.referrer === referrer &&
    last.referrerAffiliate === (referrer !== undefined && referrer.wallet.affiliate) &&
    last.split.pool === pool
  ) {
    return last.split;
  }
  const split = computeTakerFeeSplit(state, wallet, tier, notional, referrer, pool);
  state.lastFeeSplit = {
    wallet,
    takerRate: tier.takerRate,
    notional,
    og: wallet.og,
    referee: wallet.referee,
    referrerAffiliate: referrer !== undefined && referrer.wallet.affiliate,
    split,
  };
  return split;
}

/** takerFeeSplit without the memo, given the referrer's main account and the pool account (undefined when absent). */
export function computeTakerFeeSplit(
  state: RiskState,
  wallet: WalletState,
  tier: FeeTierConfig,
  notional: Money,
  referrer: AccountState | undefined,
  pool: AccountState | undefined,
): TakerFeeSplit {
  const unit = state.settlement.config.unit;
  const global = state.config.globalFees;
  const takerFee = roundMoneyRatio(notional * tier.takerRate, E18, unit);
  const keepOg = wallet.og ? E18 - global.ogDiscount : E18;
  const keepReferee = wallet.referee ? E18 - global.refereeDiscount : E18;
  // A part at a zero rate (no discount, no referrer, no pool) is min(0, what is left): no product is made for it.
  const discount = keepOg === E18 && keepReferee === E18 ? 0n : E36 - keepOg * keepReferee; // a fraction at 10^36
  const takerRebateCredit = discount === 0n ? min(0n, takerFee) : min(roundMoneyRatio(takerFee * discount, E36, unit), takerFee);
  let left = takerRebateCredit === 0n ? takerFee : takerFee - takerRebateCredit;
  const referrerRate = referrer === undefined ? 0n : referrer.wallet.affiliate ? global.affiliateReferrerRebate : global.referrerRebate;
  const referrerFeeCredit = referrerRate === 0n ? min(0n, left) : min(roundMoneyRatio(takerFee * referrerRate, E18, unit), left);
  if (referrerFeeCredit !== 0n) left -= referrerFeeCredit;
  const poolShare = pool === undefined ? 0n : global.poolFeeShare;
  const poolFeeCredit = poolShare === 0n ? min(0n, left) : min(roundMoneyRatio(takerFee * poolShare, E18, unit), left);
  const protocolFeeCredit = poolFeeCredit === 0n ? left : left - poolFeeCredit;
  return { takerFee, takerRebateCredit, referrerFeeCredit, poolFeeCredit, protocolFeeCredit, referrer, pool };
}

/** A conservative fee for pre-trade checks: the gross fee at the wallet's current tier, rounded up. */
export function feeReserve(wallet: WalletState, notional: Money): Money {
  return (notional * wallet.tier.takerRate + E18_MINUS_ONE) / E18;
}
