/**
 * Live orders per account (resting orders, armed stops, resting fired
 * children), in the order they became live, and the account's client order
 * ids.
 *
 * The index is built per account on first need: the first account-level
 * request of an account (a client order id, a stop, cancelAll,
 * cancelAllAfter, an openOrders query) indexes it with one pass over the
 * live orders; from then on its orders are linked in and out as they come
 * and go (an intrusive list through the orders: O(1), no allocation). An
 * account that never asks for anything account-wide costs nothing: a
 * simulation of many one-order accounts does no per-account work, while an
 * agent that cancels all its orders every second pays one pass, once.
 * Indexed accounts stay indexed.
 *
 * An indexed account also remembers, per client order id, the order that
 * last ended with it (its index in the id sequence), so that a cancel by a
 * client id that is no longer live can say whether that order was filled
 * or cancelled. It remembers the ENDED_CLIENT_IDS_PER_ACCOUNT client ids
 * that ended last, as the exchange's order history keeps an account's
 * latest rows: a long-lived server whose clients put a fresh client id on
 * every order would otherwise grow by an entry per order for ever. A
 * client id that ended longer ago reads as unknown, as one never used.
 */
import { assert } from "../core/assert.ts";
import { ShardedMap } from "../core/sharded-map.ts";
import { EndedClientIds } from "./ended-client-ids.ts";
import type { Order } from "./order.ts";

/** Client ids of ended orders remembered per account (the latest to end; about 1 MB at most per account). */
export const ENDED_CLIENT_IDS_PER_ACCOUNT = 10_000;

export class Account {
  head: Order | null = null;
  tail: Order | null = null;
  liveCount = 0;
  /** clientOrderId -> live order. */
  readonly byClientId = new ShardedMap<Order>();
  /** clientOrderId -> index of the latest order with it that is no longer live (the ENDED_CLIENT_IDS_PER_ACCOUNT ids that ended last). */
  readonly endedByClientId = new EndedClientIds(ENDED_CLIENT_IDS_PER_ACCOUNT);

  constructor(readonly accountId: number) {}
}

export class AccountTable {
  private readonly indexed = new Map<number, Account>();

  /** `liveOrders`: every live order, oldest first (the order table's content). */
  constructor(private readonly liveOrders: () => Iterable<Order>) {}

  /** A new live order: linked in if its account is indexed. */
  register(order: Order): void {
    if (this.indexed.size === 0) return;
    const account = this.indexed.get(order.accountId);
    if (account !== undefined) link(account, order);
  }

  /** An order that stopped being live. */
  unregister(order: Order): void {
    if (order.account !== null) unlink(order.account, order);
  }

  /** The account's index, built on first use. */
  index(accountId: number): Account {
    let account = this.indexed.get(accountId);
    if (account !== undefined) return account;
    account = new Account(accountId);
    for (const order of this.liveOrders()) if (order.accountId === accountId) link(account, order);
    this.indexed.set(accountId, account);
    return account;
  }

  /** The accounts indexed so far (for checks; builds nothing). */
  indexedAccounts(): Account[] {
    return [...this.indexed.values()];
  }

  /** The account's oldest live order (follow `accountNext` for the rest), or null. */
  firstLive(accountId: number): Order | null {
    return this.index(accountId).head;
  }

  byClientId(accountId: number, clientOrderId: string): Order | undefined {
    return this.index(accountId).byClientId.get(clientOrderId);
  }

  /** The order index of the latest order of the account that ended with this client id, or -1. */
  endedIndexByClientId(accountId: number, clientOrderId: string): number {
    return this.index(accountId).endedByClientId.get(clientOrderId) ?? -1;
  }

  /**
   * An order with a client id that ended without ever being live (an IOC,
   * or a create filled or cancelled on entry): remembered as `unlink`
   * remembers a live one that ends, so that a cancel by that client id
   * says filled or cancelled, not unknown. Its account is indexed already
   * (the create's duplicate check indexed it).
   */
  rememberEnded(order: Order): void {
    assert(order.clientOrderId !== null && order.account === null, "only an order with a client id that was never live");
    this.index(order.accountId).endedByClientId.remember(order.clientOrderId, order.index);
  }

  /** The account's live orders, oldest first (a copy: safe to cancel while iterating). */
  liveOrdersOf(accountId: number): Order[] {
    const orders: Order[] = [];
    for (let order = this.firstLive(accountId); order !== null; order = order.accountNext) orders.push(order);
    return orders;
  }
}

function link(account: Account, order: Order): void {
  assert(order.account === null, "an order is linked to its account once");
  order.account = account;
  order.accountPrev = account.tail;
  order.accountNext = null;
  if (account.tail === null) account.head = order;
  else account.tail.accountNext = order;
  account.tail = order;
  account.liveCount += 1;
  if (order.clientOrderId !== null) account.byClientId.set(order.clientOrderId, order);
}

function unlink(account: Account, order: Order): void {
  const { accountPrev: prev, accountNext: next } = order;
  if (prev === null) account.head = next;
  else prev.accountNext = next;
  if (next === null) account.tail = prev;
  else next.accountPrev = prev;
  order.account = null;
  order.accountPrev = null;
  order.accountNext = null;
  account.liveCount -= 1;
  if (order.clientOrderId !== null) {
    account.byClientId.delete(order.clientOrderId);
    account.endedByClientId.remember(order.clientOrderId, order.index);
  }
}
