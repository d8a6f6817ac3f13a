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
 * - Exposure mirrors (checkPendingMatches, checkRestingOrders, per block,
 *   O(pending + resting orders)): the risk layer's pending matches are
 *   exactly the fills not yet settled or busted, and its resting orders
 *   exactly the engine's, with the same account, side, remaining quantity
 *   and price. Catches a bust or cancel the risk layer was not told of.
 * - Forced position changes (checkForcedChange, per execution): a
 *   LIQUIDATION or MARKET_CLOSE closes its taker's position whole, an ADL
 *   leg only reduces the position it names (an ADL that takes more than a
 *   counterparty holds flips it, and balances OI, so nothing else sees it).
 * - Published positions (PublishedPositions): after each perp execution a
 *   positions message for each of its wallets, and at each block the last
 *   message of a wallet equal to its settled positions.
 */
import { InvariantError } from "../core/assert.ts";
import { E18, formatE18, toE18 } from "../core/decimal.ts";
import type { Engine } from "../engine/engine.ts";
import type { Order } from "../engine/order.ts";
import type { RiskState } from "../risk/state.ts";
import type { Position, Transfer } from "../spec/account.ts";

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

/**
 * The risk layer's exposure that is not settled state mirrors the engine
 * and the chain (checked per block, O(pending + resting)):
 * - pending matches: exactly the fills not yet settled or busted
 *   (`openFills`, from the order rows and the execution and bust records):
 *   one left behind keeps counting in the effective view and in
 *   admission forever;
 * - resting orders: exactly the orders resting in the engine's books, each
 *   with its account, side, remaining quantity and price: one left behind
 *   (a cancel or fill the mirror missed) holds margin (perp) or balance
 *   (spot) for an order that is gone.
 */
export function checkPendingMatches(state: RiskState, openFills: ReadonlyMap<string, unknown>): void {
  for (const fillId of state.pending.keys()) {
    if (!openFills.has(fillId)) throw new InvariantError(`fill ${fillId} still counts as a pending match in the risk layer, but it was settled or busted (or never reported): a settled or busted match releases its exposure`);
  }
  if (state.pending.size !== openFills.size) {
    for (const fillId of openFills.keys()) {
      if (!state.pending.has(fillId)) throw new InvariantError(`fill ${fillId} is waiting for its block but does not count as a pending match in the risk layer`);
    }
  }
}

export function checkRestingOrders(state: RiskState, engine: Engine): number {
  let resting = 0;
  for (const market of engine.markets) {
    const config = (state.perps.get(market.marketId) ?? state.spots.get(market.marketId))?.config;
    if (config === undefined) throw new InvariantError(`market ${market.symbol} of the engine is unknown to the risk layer`);
    for (const side of [market.book.bids, market.book.asks]) {
      for (let depth = 0; depth < side.levelCount; depth++) {
        for (let order = side.levelFromBest(depth)!.head; order !== null; order = order.next) {
          resting++;
          const counted = state.resting.get(order.orderId);
          // The message only on failure: this runs for every resting order at every state check.
          if (counted === undefined) throw new InvariantError(`${restingText(order, market.symbol)} but the risk layer does not count it as resting`);
          if (counted.account.id !== order.accountId || counted.marketId !== market.marketId || counted.side !== (order.isBuy ? "B" : "A") || counted.qty !== BigInt(order.remainingLots) * config.step || counted.price !== BigInt(order.priceTicks) * config.tick) {
            throw new InvariantError(`${restingText(order, market.symbol)} but the risk layer counts it as account ${counted.account.id}, market ${counted.marketId}, ${counted.side} ${formatE18(counted.qty)} at ${formatE18(counted.price)}`);
          }
        }
      }
    }
  }
  if (state.resting.size !== resting) {
    for (const counted of state.resting.values()) {
      const order = engine.peekOrder(counted.orderId);
      if (order === undefined || order.level === null) {
        throw new InvariantError(`the risk layer counts order ${counted.orderId} (account ${counted.account.id}, ${counted.side} ${formatE18(counted.qty)}) as resting, but it is not in the book (${order === undefined ? "it ended" : "not resting"}): its margin or balance stays held`);
      }
    }
  }
  return resting;
}

function restingText(order: Order, symbol: string): string {
  return `order ${order.orderId} (account ${order.accountId}, ${symbol} ${order.isBuy ? "B" : "A"} ${order.remainingLots} lots at ${order.priceTicks} ticks) rests in the book`;
}

/**
 * A position change an execution that comes from no order may make
 * (LIQUIDATION, ADL, MARKET_CLOSE), for the account named as its taker:
 * a LIQUIDATION or MARKET_CLOSE closes the account's position whole; an ADL
 * leg only reduces the position of the account it names (the liquidated
 * one's or a counterparty's), never opens, grows or flips it. `before` is
 * the account's settled position before the execution and `delta` the
 * signed change (10^18). The pool, a LIQUIDATION's maker, may take any side.
 */
export function checkForcedChange(type: string, fillId: string, accountId: number, symbol: string, before: bigint, delta: bigint): void {
  const reduces = before !== 0n && before > 0n !== delta > 0n && (delta < 0n ? -delta : delta) <= (before < 0n ? -before : before);
  if (!reduces) {
    throw new InvariantError(
      `${type} execution of fill ${fillId} moves account ${accountId}'s ${symbol} position from ${formatE18(before)} by ${formatE18(delta)}: a ${type} only reduces the position it names, never opens, grows or flips one`,
    );
  }
  if (type !== "ADL" && before + delta !== 0n) {
    throw new InvariantError(`${type} execution of fill ${fillId} leaves account ${accountId}'s ${symbol} position at ${formatE18(before + delta)} (from ${formatE18(before)}): a ${type} closes the position whole`);
  }
}

/**
 * The positions stream tells each wallet its settled positions (spec
 * 2.11): after a perp execution, a positions message for each of its
 * wallets follows (before the block ends), and at each block the last
 * message of a wallet lists exactly the settled positions of its accounts,
 * side and quantity, that the settled executions add up to. Per output:
 * O(1) bookkeeping; per block: the wallets that traded or were told
 * something since the last, O(their positions).
 */
export class PublishedPositions {
  private readonly last = new Map<string, readonly Position[]>();
  /** Wallets an execution moved since their last positions message, with that execution's fill id. */
  private readonly owed = new Map<string, string>();
  private readonly dirty = new Set<string>();

  executed(wallets: readonly string[], fillId: string): void {
    for (const wallet of wallets) {
      this.owed.set(wallet, fillId);
      this.dirty.add(wallet);
    }
  }

  published(wallet: string, positions: readonly Position[]): void {
    this.last.set(wallet, positions);
    this.owed.delete(wallet);
    this.dirty.add(wallet);
  }

  /**
   * `accountsOf` gives a wallet's accounts; `settled` an account's settled
   * positions by symbol (10^18, signed; zero ones absent). Returns how many
   * wallets were compared.
   */
  check(accountsOf: (wallet: string) => readonly number[], settled: (accountId: number) => ReadonlyMap<string, bigint> | undefined): number {
    for (const [wallet, fillId] of this.owed) {
      throw new InvariantError(`the execution of fill ${fillId} moved a position of wallet ${wallet}, but no positions message for it followed: a wallet is told its positions after each of its executions`);
    }
    const compared = this.dirty.size;
    for (const wallet of this.dirty) {
      const positions = this.last.get(wallet) ?? [];
      const accounts = accountsOf(wallet);
      let held = 0;
      for (const accountId of accounts) for (const q of settled(accountId)?.values() ?? []) if (q !== 0n) held++;
      for (const position of positions) {
        // The message only on failure (lazily, as everywhere in the checks).
        const what = (): string => `the last positions message of wallet ${wallet} lists account ${position.accountId} ${position.symbol} ${position.side} ${position.qty}`;
        if (!accounts.includes(position.accountId)) throw new InvariantError(`${what()}, an account the wallet does not own`);
        const qty = toE18(position.qty, "qty");
        const signed = position.side === "B" ? qty : -qty;
        const actual = settled(position.accountId)?.get(position.symbol) ?? 0n;
        if (qty === 0n || (position.side !== "B" && position.side !== "A") || signed !== actual) {
          throw new InvariantError(`${what()} but its settled executions sum to ${formatE18(actual)} (signed, long > 0)`);
        }
      }
      if (positions.length !== held) throw new InvariantError(`the last positions message of wallet ${wallet} lists ${positions.length} positions but its accounts hold ${held}: a message lists every settled position of the wallet`);
    }
    this.dirty.clear();
    return compared;
  }
}
