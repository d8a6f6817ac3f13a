/**
 * Balances and collateral.
 *
 * Every balance change goes through `book`, which moves the balance, keeps
 * net deposits (deposits, withdrawals, transfers only), keeps the account's
 * margin sums in step and writes one ledger entry (never a zero one).
 *
 * Collateral value of a non-settlement asset (the settlement asset counts at
 * par):
 *   balance > 0: balance x index x (1 - priceHaircut)   (rounded down)
 *   balance < 0: balance x index                          (a debt, no haircut)
 * An asset without an index price counts 0.
 */
import { assert } from "../core/assert.ts";
import { microsToMillis } from "../core/time.ts";
import { rejection } from "./accounts.ts";
import { E18, E36, type Money, type Price, divFloorE18, formatMoney } from "./fixed.ts";
import type { AccountState, AssetState, BalanceState, RiskState } from "./state.ts";
import type { LedgerEntry, LedgerType, RiskRejection } from "./types.ts";

const NET_DEPOSIT_TYPES: ReadonlySet<LedgerType> = new Set(["DEPOSIT", "WITHDRAWAL", "TRANSFER_IN", "TRANSFER_OUT"]);

export function balanceOf(account: AccountState, asset: AssetState): BalanceState {
  const existing = account.balances.get(asset.config.symbol);
  if (existing !== undefined) return existing;
  const balance: BalanceState = {
    asset,
    balance: 0n,
    netDeposits: 0n,
    reserved: 0n,
    pendingOut: 0n,
    collateralC: 0n,
    shownBalance: 0n,
    shownBalanceText: "0",
    shownNetDeposits: 0n,
    shownNetDepositsText: "0",
  };
  account.balances.set(asset.config.symbol, balance);
  return balance;
}

/** The canonical text of the balance's realBalance (formatted once per value). */
export function realBalanceText(balance: BalanceState): string {
  if (balance.shownBalance !== balance.balance) {
    balance.shownBalanceText = formatMoney(balance.balance);
    balance.shownBalance = balance.balance;
  }
  return balance.shownBalanceText;
}

/** The canonical text of the balance's net deposits (balanceDEPRECATED; formatted once per value). */
export function netDepositsText(balance: BalanceState): string {
  if (balance.shownNetDeposits !== balance.netDeposits) {
    balance.shownNetDepositsText = formatMoney(balance.netDeposits);
    balance.shownNetDeposits = balance.netDeposits;
  }
  return balance.shownNetDepositsText;
}

/** Margin value of `amount` of a non-settlement asset. */
export function collateralValue(asset: AssetState, amount: Money): Money {
  if (asset.config.isSettlement) return amount;
  const index = asset.index;
  if (index === undefined || amount === 0n) return 0n;
  // amount x (index x (1 - haircut)), the same product as amount x index x (1 - haircut); it is not negative (a
  // positive amount and index, a haircut at most 1), so its floor is the truncating division.
  if (amount > 0n) return (amount * haircutPrice(asset, index.price)) / E36;
  return divFloorE18(amount * index.price);
}

/** index x (1 - priceHaircut) (10^36), remembered with the index it was made from: an index step revalues every holder. */
function haircutPrice(asset: AssetState, index: Price): bigint {
  if (asset.haircutPriceFor !== index) {
    asset.haircutPrice = index * (E18 - asset.config.priceHaircut);
    asset.haircutPriceFor = index;
  }
  return asset.haircutPrice;
}

/** Recomputes one balance's collateral contribution (after a balance or index change). */
export function refreshCollateral(account: AccountState, balance: BalanceState): void {
  const asset = balance.asset;
  if (asset.config.isSettlement) {
    account.settlementBalance = balance.balance;
    return;
  }
  const value = collateralValue(asset, balance.balance);
  account.collateral += value - balance.collateralC;
  balance.collateralC = value;
  if (balance.balance === 0n) asset.holders.delete(account);
  else asset.holders.add(account);
}

export interface BookingContext {
  readonly state: RiskState;
  readonly ledger: LedgerEntry[];
  readonly atMicros: number;
  readonly fillId?: string;
}

/**
 * Moves `amount` (a booked Money amount) into the account's balance of
 * `asset`, with its ledger entry. `amountText`, when given, is
 * formatMoney(amount), made by a caller that shows the amount elsewhere too
 * (an execution record), so that it is formatted once.
 */
export function book(
  context: BookingContext,
  account: AccountState,
  asset: AssetState,
  type: LedgerType,
  amount: Money,
  counterparty?: AccountState,
  amountText?: string,
): void {
  if (amount === 0n) return;
  if (amount % asset.config.unit !== 0n) assert(false, `amount ${amount} of ${asset.config.symbol} is not a whole number of its ${asset.config.decimals} decimals`);
  const balance = balanceOf(account, asset);
  balance.balance += amount;
  if (NET_DEPOSIT_TYPES.has(type)) balance.netDeposits += amount;
  refreshCollateral(account, balance);
  const entry: { -readonly [K in keyof LedgerEntry]: LedgerEntry[K] } = {
    accountId: account.id,
    asset: asset.config.symbol,
    type,
    amount: amountText ?? formatMoney(amount),
    netDepositsAfter: netDepositsText(balance),
    timestamp: microsToMillis(context.atMicros),
  };
  if (counterparty !== undefined) entry.counterpartyAccountId = counterparty.id;
  if (context.fillId !== undefined) entry.fillId = context.fillId;
  context.ledger.push(entry);
}

/** Parses a money amount in an asset's decimals (more decimals is an input error). */
export function parseAmount(asset: AssetState, amountE18: bigint, field: string): Money | RiskRejection {
  const money = amountE18 * E18;
  if (money <= 0n) return rejection("INPUT_VALIDATION_ERROR", `${field} "${formatMoney(money)}" must be positive`);
  if (money % asset.config.unit !== 0n) {
    return rejection("INPUT_VALIDATION_ERROR", `${field} "${formatMoney(money)}" has more than ${asset.config.decimals} decimals of ${asset.config.symbol}`);
  }
  return money;
}

/** What the account may take out of `asset` now: balance minus spot reservations and pending outflows. */
export function availableBalance(balance: BalanceState | undefined): Money {
  if (balance === undefined) return 0n;
  return balance.balance - balance.reserved - balance.pendingOut;
}

