/**
 * The checks of an admin `wallet` action's settings, shared by the Exchange
 * (every path: the live admin API, a scenario's accounts and timeline) and
 * the live admin API (which answers HTTP 400 before any input is logged).
 * A refused action changes nothing, so these run before the wallet is made.
 */
import type { ExchangeConfig } from "./config.ts";

export interface WalletSettings {
  readonly rateTier?: number;
  readonly feeTierId?: number;
  readonly referrer?: string;
}

/** What is wrong with the settings for `wallet`, naming the field and the rule, or null. */
export function walletSettingsProblem(config: ExchangeConfig, wallet: string, settings: WalletSettings): string | null {
  if (settings.rateTier !== undefined && config.gateway.rateLimitsByTier[settings.rateTier] === undefined) {
    return `rateTier ${settings.rateTier} is not a configured rate tier`;
  }
  if (settings.feeTierId !== undefined) {
    const vip = config.risk.feeTiers.filter((tier) => tier.tierType === "VIP");
    if (!vip.some((tier) => tier.tierId === settings.feeTierId)) {
      return `feeTierId ${settings.feeTierId} is not a VIP fee tier (VIP tiers: ${vip.map((tier) => tier.tierId).join(", ") || "none"})`;
    }
  }
  if (settings.referrer !== undefined && settings.referrer.toLowerCase() === wallet.toLowerCase()) return "referrer: a wallet cannot refer itself";
  return null;
}
