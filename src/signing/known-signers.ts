/**
 * Signers seen before: the public keys that recoveries gave, with the tables
 * of the comb verifier (native/secp256k1-comb, comb.c), so that a signature
 * expected from one of them is checked in ~22 µs instead of recovered in
 * ~61 µs (libsecp256k1 `ecdsaRecover`; both from JavaScript, this machine).
 *
 * How verify.ts uses it: the caller names the signer it expects (the
 * request's signerWallet, else the account's last signer). When that
 * signer's table is ready and the verifier says that recovering this
 * signature would give exactly its key, its address is the answer, with no
 * recovery. Otherwise the signature is recovered as before, and a
 * successful recovery is noted here. The verifier says yes only when
 * recovery would give that very key (comb.c proves it), so the answers are
 * the same, byte for byte, with or without it, with or without the add-on,
 * and whenever a table becomes ready: only the time differs. That is why a
 * table may be built on libuv's thread pool, outside any virtual clock, and
 * land whenever it lands: nothing a run outputs depends on it.
 *
 * A table is 512 KB and takes ~13 ms to build (off the calling thread), so
 * it is built only for a signer recovered BUILD_AFTER times, for at most
 * MAX_TABLES signers (32 MB), and signers are counted up to MAX_ENTRIES;
 * past those bounds a signer is recovered every time, as before.
 */
import { createRequire } from "node:module";

/** The add-on's calls (comb.c). */
export interface CombVerifier {
  /** Bytes of one table. */
  readonly tableBytes: number;
  /** Fills `table` for the uncompressed 65-byte `publicKey` on the thread pool, then calls `done`. */
  buildTable(publicKey: Uint8Array, table: Uint8Array, done: (ok: boolean) => void): void;
  /** True exactly when libsecp256k1 would recover the table's key from (digest, rs, recid). */
  matches(digest: Uint8Array, rs: Uint8Array, recid: number, table: Uint8Array): boolean;
}

/** Recoveries of a signer before its table is built. */
export const BUILD_AFTER = 8;
/** Tables per thread at most. */
export const MAX_TABLES = 64;
/** Signers counted at most. */
export const MAX_ENTRIES = 10_000;

function loadCombVerifier(): CombVerifier | null {
  try {
    const require = createRequire(import.meta.url);
    const addon = require("../../native/secp256k1-comb/build/Release/comb.node") as Partial<CombVerifier>;
    const usable = typeof addon.matches === "function" && typeof addon.buildTable === "function" && Number.isInteger(addon.tableBytes);
    return usable ? (addon as CombVerifier) : null;
  } catch {
    // Not built (no compiler, or `npm ci --ignore-scripts`): signatures are recovered every time.
    return null;
  }
}

/** The comb verifier, or null when its add-on was not built or does not load. */
export const COMB_VERIFIER: CombVerifier | null = loadCombVerifier();

interface Entry {
  /** The address as recovery returns it (lowercase). */
  readonly address: string;
  recoveries: number;
  /** Allocated when the build starts. */
  table: Buffer | null;
  ready: boolean;
}

export interface KnownSignerStats {
  readonly signers: number;
  readonly tables: number;
  readonly tablesReady: number;
  /** Signatures confirmed without a recovery. */
  readonly confirmed: number;
}

export class KnownSigners {
  private readonly entries = new Map<string, Entry>();
  private tables = 0;
  private tablesReady = 0;
  private confirmedCount = 0;
  private enabled = true;

  constructor(
    private readonly verifier: CombVerifier | null = COMB_VERIFIER,
    private readonly buildAfter = BUILD_AFTER,
    private readonly maxTables = MAX_TABLES,
  ) {}

  /** Off: every signature is recovered (for comparisons); tables already built are kept for when it is on again. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  /**
   * `expected`'s address as recovery returns it, when its table is ready
   * and recovering (digest, rs, recid) would give its key; else undefined,
   * and the caller recovers. `rs` and `recid` as parseSignatureInto gives them.
   */
  confirm(expected: string, digest: Uint8Array, rs: Uint8Array, recid: number): string | undefined {
    if (!this.enabled || this.tablesReady === 0) return undefined;
    const entry = this.entries.get(expected) ?? this.entries.get(expected.toLowerCase());
    if (entry === undefined || !entry.ready) return undefined;
    if (!this.verifier!.matches(digest, rs, recid, entry.table!)) return undefined;
    this.confirmedCount++;
    return entry.address;
  }

  /** A recovery gave `address` from the uncompressed 65-byte `publicKey`: counts it, and builds its table once it is due. */
  noteRecovered(address: string, publicKey: Uint8Array): void {
    if (this.verifier === null || !this.enabled) return;
    let entry = this.entries.get(address);
    if (entry === undefined) {
      if (this.entries.size >= MAX_ENTRIES) return;
      entry = { address, recoveries: 0, table: null, ready: false };
      this.entries.set(address, entry);
    }
    if (entry.table !== null || ++entry.recoveries < this.buildAfter || this.tables >= this.maxTables) return;
    this.tables++;
    const table = Buffer.allocUnsafeSlow(this.verifier.tableBytes);
    entry.table = table;
    const built = entry;
    try {
      this.verifier.buildTable(Buffer.from(publicKey), table, (ok) => {
        built.ready = ok;
        if (ok) this.tablesReady++;
      });
    } catch {
      // The add-on refused the table (a buffer it cannot use): this signer is recovered every time, as without it.
    }
  }

  stats(): KnownSignerStats {
    return { signers: this.entries.size, tables: this.tables, tablesReady: this.tablesReady, confirmed: this.confirmedCount };
  }
}
