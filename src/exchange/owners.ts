/**
 * Dense integer ids for signing wallets. The engine keeps open-order figures
 * per owner in typed arrays indexed by these ids (spec 8.2 caps follow the
 * signing wallet); the exchange maps wallets to ids and back. Ids are given
 * in order of first appearance, so they are deterministic.
 */
export class OwnerIds {
  private readonly ids = new Map<string, number>();
  private readonly wallets: string[] = [];

  /** The id of a wallet (case-insensitive), assigned on first sight. */
  idOf(wallet: string): number {
    const key = wallet.toLowerCase();
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.wallets.length;
      this.ids.set(key, id);
      this.wallets.push(key);
    }
    return id;
  }

  /** Wallets given an id so far. */
  get size(): number {
    return this.wallets.length;
  }

  /** The wallet (lowercase) of an id. */
  walletOf(id: number): string {
    const wallet = this.wallets[id];
    if (wallet === undefined) throw new RangeError(`no wallet has owner id ${id}`);
    return wallet;
  }
}
