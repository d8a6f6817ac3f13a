/**
 * Invariants of what the Exchange publishes about money and positions,
 * against its own state (ExchangeInvariants, invariants.ts, calls these).
 * Each was added because a realistic one-line bug broke nothing that was
 * checked before (scratch/s22/mutation-invariants.md):
 *
 * - Ledger replay (LedgerReplay): every balance change is a Transfer entry
 *   (spec 2.20) on the transfers stream, so each account's balance of each
 *   asset equals its balance when the checker started plus the amounts of
 *   its entries since, exactly; and each entry's netDepositsAfter is the
 *   running sum of its DEPOSIT, WITHDRAWAL and TRANSFER_IN/OUT amounts.
 *   Per entry: one decimal parse (two for a net-deposit entry); per block:
 *   O(accounts x assets). Catches an entry lost, a wrong amount text, or a
 *   balance moved outside `book`.
 */
import { InvariantError } from "../core/assert.ts";
import { E18, formatE18, toE18 } from "../core/decimal.ts";
import type { RiskState } from "../risk/state.ts";
import type { Transfer } from "../spec/account.ts";

/** The ledger types that move net deposits (collateral.ts NET_DEPOSIT_TYPES). */
const NET_DEPOSIT_TYPES: ReadonlySet<string> = new Set(["DEPOSIT", "WITHDRAWAL", "TRANSFER_IN", "TRANSFER_OUT"]);

/** An account's balance of one asset as replayed from its Transfer entries (10^36, the risk layer's Money). */
interface Replayed {
  balance: bigint;
  netDeposits: bigint;
  /** The text of the last netDepositsAfter seen (an entry that does not move net deposits repeats it). */
  netDepositsText: string | undefined;
}

export class LedgerReplay {
  /** By accountId, then asset symbol. */
  private readonly replayed = new Map<number, Map<string, Replayed>>();

  /** Starts from the balances the state holds now (deposits made before the checker subscribed). */
  constructor(private readonly state: RiskState) {
    for (const account of state.accounts.values()) {
      for (const [asset, balance] of account.balances) this.entry(account.id, asset, balance.balance, balance.netDeposits);
    }
  }

  private entry(accountId: number, asset: string, balance = 0n, netDeposits = 0n): Replayed {
    let assets = this.replayed.get(accountId);
    if (assets === undefined) {
      assets = new Map();
      this.replayed.set(accountId, assets);
    }
    let entry = assets.get(asset);
    if (entry === undefined) {
      entry = { balance, netDeposits, netDepositsText: undefined };
      assets.set(asset, entry);
    }
    return entry;
  }

  /** One Transfer entry of the transfers stream. */
  transfer(entry: Transfer): void {
    const replayed = this.entry(entry.accountId, entry.asset);
    const amount = toE18(entry.amount, "amount") * E18;
    replayed.balance += amount;
    const moves = NET_DEPOSIT_TYPES.has(entry.type);
    if (moves) replayed.netDeposits += amount;
    if (!moves && entry.netDepositsAfter === replayed.netDepositsText) return;
    const after = toE18(entry.netDepositsAfter, "netDepositsAfter") * E18;
    if (after !== replayed.netDeposits) {
      throw new InvariantError(
        `transfer ${entry.id} (${entry.type} ${entry.amount} ${entry.asset}, account ${entry.accountId}) has netDepositsAfter "${entry.netDepositsAfter}" but the account's deposits, withdrawals and transfers sum to "${formatE18(replayed.netDeposits / E18)}"`,
      );
    }
    replayed.netDepositsText = entry.netDepositsAfter;
  }

  /** Every account's balances equal the replay of its Transfer entries. */
  check(): void {
    for (const account of this.state.accounts.values()) {
      const assets = this.replayed.get(account.id);
      for (const [asset, balance] of account.balances) {
        const replayed = assets?.get(asset)?.balance ?? 0n;
        if (replayed !== balance.balance) throw mismatch(account.id, asset, balance.balance, replayed);
      }
      if (assets === undefined) continue;
      for (const [asset, replayed] of assets) {
        if (replayed.balance !== 0n && !account.balances.has(asset)) throw mismatch(account.id, asset, 0n, replayed.balance);
      }
    }
    for (const accountId of this.replayed.keys()) {
      if (!this.state.accounts.has(accountId)) throw new InvariantError(`transfers name account ${accountId}, which does not exist`);
    }
  }
}

function mismatch(accountId: number, asset: string, held: bigint, replayed: bigint): InvariantError {
  return new InvariantError(
    `ledger replay: account ${accountId} holds ${formatE18(held / E18)} ${asset} but its transfer entries sum to ${formatE18(replayed / E18)}: every balance change is one Transfer entry`,
  );
}
