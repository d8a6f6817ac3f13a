/**
 * Wallets and accounts: a wallet owns numbered accounts; each account has
 * permissioned signers (the owner plus added ones). Wallet flags gate trading
 * (whitelisting, suspension) and feed the fee schedule (VIP assignment, OG,
 * referee, affiliate, referrer) and the gateway (rate tier).
 *
 * Access precedence (first failing check is reported):
 * NO_ACCOUNTS_FOUND_ERROR, UNAUTHORIZED_SIGNATURE_ERROR,
 * NOT_WHITELISTED_ERROR (only while whitelisting is on), ACCOUNT_SUSPENDED_ERROR.
 */
import { assert } from "../core/assert.ts";
import type { AccountState, RiskState, WalletState } from "./state.ts";
import { newVolume30d } from "./state.ts";
import type { RiskErrorCode, RiskRejection, WalletConfigurationView } from "./types.ts";

export interface WalletFlags {
  readonly whitelisted?: boolean;
  readonly suspended?: boolean;
  readonly rateTier?: number;
  /** A VIP tier id, or null to return to the volume-based REGULAR tier. */
  readonly vipTierId?: number | null;
  readonly og?: boolean;
  readonly referee?: boolean;
  readonly affiliate?: boolean;
  /** The referring wallet, or null for none. */
  readonly referrer?: string | null;
}

export function rejection(error: RiskErrorCode, message: string): RiskRejection {
  return { error, message };
}

/** Wallet addresses compare case-insensitively (spec 2.1 allows any letter case). */
export function walletKey(address: string): string {
  return address.toLowerCase();
}

/**
 * The wallet of an address in any case. Keys are lowercase and most callers
 * pass a key itself (an account's owner, a checked signer), so the address
 * is looked up as given first and lowercased only on a miss: the same answer
 * (an address found as given is lowercase) without a lowercasing per read.
 */
export function findWallet(state: RiskState, address: string): WalletState | undefined {
  return state.wallets.get(address) ?? state.wallets.get(walletKey(address));
}

/** Whether a set of lowercase keys (an account's signers) holds an address in any case, looked up as findWallet does. */
export function hasAddress(keys: ReadonlySet<string>, address: string): boolean {
  return keys.has(address) || keys.has(walletKey(address));
}

export function createWallet(state: RiskState, address: string, flags: WalletFlags = {}): WalletState {
  const key = walletKey(address);
  assert(!state.wallets.has(key), `wallet ${address} already exists`);
  const wallet: WalletState = {
    address: key,
    whitelisted: false,
    suspended: false,
    rateTier: 1,
    vipTierId: undefined,
    og: false,
    referee: false,
    affiliate: false,
    referrer: undefined,
    volume30d: newVolume30d(),
    tier: state.config.feeTiers[0]!,
    accountIds: [],
  };
  state.wallets.set(key, wallet);
  updateWalletFlags(state, wallet, flags);
  return wallet;
}

export function updateWalletFlags(state: RiskState, wallet: WalletState, flags: WalletFlags): void {
  if (flags.whitelisted !== undefined) wallet.whitelisted = flags.whitelisted;
  if (flags.suspended !== undefined) wallet.suspended = flags.suspended;
  if (flags.rateTier !== undefined) {
    assert(Number.isSafeInteger(flags.rateTier) && flags.rateTier >= 1, `rateTier ${flags.rateTier} must be a positive integer (tiers count from 1, the default)`);
    wallet.rateTier = flags.rateTier;
  }
  if (flags.vipTierId !== undefined) {
    if (flags.vipTierId !== null) {
      const tier = state.config.feeTiers.find((candidate) => candidate.tierId === flags.vipTierId);
      assert(tier !== undefined && tier.tierType === "VIP", `vipTierId ${flags.vipTierId} is not a VIP fee tier`);
    }
    wallet.vipTierId = flags.vipTierId ?? undefined;
  }
  if (flags.og !== undefined) wallet.og = flags.og;
  if (flags.referee !== undefined) wallet.referee = flags.referee;
  if (flags.affiliate !== undefined) wallet.affiliate = flags.affiliate;
  if (flags.referrer !== undefined) {
    const referrer = flags.referrer === null ? undefined : walletKey(flags.referrer);
    assert(referrer !== wallet.address, `wallet ${wallet.address} cannot refer itself`);
    wallet.referrer = referrer;
  }
}

export function getWallet(state: RiskState, address: string): WalletState {
  const wallet = findWallet(state, address);
  if (wallet === undefined) assert(false, `wallet ${address} does not exist`);
  return wallet;
}

export function createAccount(state: RiskState, accountId: number, ownerAddress: string): AccountState {
  assert(Number.isSafeInteger(accountId) && accountId >= 0, `accountId ${accountId} must be a non-negative integer`);
  assert(!state.accounts.has(accountId), `account ${accountId} already exists`);
  const wallet = getWallet(state, ownerAddress);
  const account: AccountState = {
    id: accountId,
    wallet,
    signers: new Set([wallet.address]),
    balances: new Map(),
    positions: new Map(),
    settlementBalance: 0n,
    collateral: 0n,
    upnl: 0n,
    upnlS: 0n,
    im: 0n,
    imS: 0n,
    lm: 0n,
    lmS: 0n,
    imOrders: 0n,
    f0: 0n,
    f1: 0n,
    pendingFees: 0n,
    pendingSpotLoss: 0n,
    spotOrders: new Map(),
  };
  state.accounts.set(accountId, account);
  wallet.accountIds.push(accountId);
  wallet.accountIds.sort((a, b) => a - b);
  return account;
}

export function getAccount(state: RiskState, accountId: number): AccountState {
  const account = state.accounts.get(accountId);
  if (account === undefined) assert(false, `account ${accountId} does not exist`);
  return account;
}

export function addSigner(state: RiskState, accountId: number, signer: string): void {
  getAccount(state, accountId).signers.add(walletKey(signer));
}

export function removeSigner(state: RiskState, accountId: number, signer: string): void {
  const account = getAccount(state, accountId);
  const key = walletKey(signer);
  assert(key !== account.wallet.address, `the owner ${signer} of account ${accountId} cannot be removed as a signer`);
  account.signers.delete(key);
}

/** Who may trade on the account; null when the account may trade. */
export function checkAccountAccess(state: RiskState, accountId: number, signer: string | undefined): RiskRejection | null {
  const account = state.accounts.get(accountId);
  if (account === undefined) return rejection("NO_ACCOUNTS_FOUND_ERROR", `accountId ${accountId} does not exist`);
  if (signer !== undefined && !hasAddress(account.signers, signer)) {
    return rejection("UNAUTHORIZED_SIGNATURE_ERROR", `signer "${signer}" is not permitted on accountId ${accountId}`);
  }
  const wallet = account.wallet;
  if (state.config.whitelistEnabled && !wallet.whitelisted) {
    return rejection("NOT_WHITELISTED_ERROR", `wallet "${wallet.address}" is not whitelisted`);
  }
  if (wallet.suspended) return rejection("ACCOUNT_SUSPENDED_ERROR", `wallet "${wallet.address}" of accountId ${accountId} is suspended`);
  return null;
}

/** The account that receives a wallet's credits (its lowest-numbered account), if it has one. */
export function mainAccountOf(state: RiskState, address: string | undefined): AccountState | undefined {
  if (address === undefined) return undefined;
  const wallet = state.wallets.get(address);
  const first = wallet?.accountIds[0];
  return first === undefined ? undefined : state.accounts.get(first);
}

export function walletConfiguration(wallet: WalletState): WalletConfigurationView {
  return { feeTierId: wallet.tier.tierId, ogStatus: wallet.og, affiliateStatus: wallet.affiliate, refereeStatus: wallet.referee };
}
