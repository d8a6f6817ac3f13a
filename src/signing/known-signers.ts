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
 * it is built only for a signer recovered BUILD_AFTER times, and for at
 * most MAX_TABLES signers (32 MB): past that, a signer that becomes due
 * takes the table of the one confirmed least recently. Signers are counted
 * up to MAX_ENTRIES; then those without a table are forgotten and counted
 * afresh. So a burst of one-off signers (a fuzzer, or someone signing
 * junk) costs recoveries for a while, never a table for good.
 */
import { ADDON } from "./addon.ts";

/** A table the add-on built and owns (freed when collected); only `matches` reads it. */
export type CombTable = { readonly __combTable: unique symbol };

/** The add-on's calls (comb.c). */
export interface CombVerifier {
  /** Bytes of one table (native memory, reported to the garbage collector). */
  readonly tableBytes: number;
  /** Builds the table of the uncompressed 65-byte `publicKey` on the thread pool, then calls `done` with it (null: not a curve point). */
  buildTable(publicKey: Uint8Array, done: (table: CombTable | null) => void): void;
  /** True exactly when libsecp256k1 would recover the table's key from (digest, rs, recid). */
  matches(digest: Uint8Array, rs: Uint8Array, recid: number, table: CombTable): boolean;
}

/**
 * The add-on's confirmer (comb.c): `matches` on a thread of its own (one per
 * JavaScript thread, started on first use), its answer handed to `done` on
 * this thread from a later macrotask, in the order posted. Missing from an
 * add-on built from older sources.
 */
export interface CombConfirmer {
  /** Copies digest and rs, holds the table until it answers, and runs `matches` on the confirmer's thread. */
  confirmAsync(digest: Uint8Array, rs: Uint8Array, recid: number, table: CombTable, done: (ok: boolean) => void): void;
}

/** Recoveries of a signer before its table is built. */
export const BUILD_AFTER = 8;
/** Tables per thread at most. */
export const MAX_TABLES = 64;
/** Signers counted at most. */
export const MAX_ENTRIES = 10_000;

function loadCombVerifier(): CombVerifier | null {
  // Not built (no compiler, or `npm ci --ignore-scripts`): signatures are recovered every time.
  const addon = ADDON as Partial<CombVerifier> | null;
  if (addon === null) return null;
  const usable = typeof addon.matches === "function" && typeof addon.buildTable === "function" && Number.isInteger(addon.tableBytes);
  return usable ? (addon as CombVerifier) : null;
}

/** The comb verifier, or null when its add-on was not built or does not load. */
export const COMB_VERIFIER: CombVerifier | null = loadCombVerifier();

/** The add-on's confirmer, or null when the add-on lacks it. */
export const COMB_CONFIRMER: CombConfirmer | null =
  COMB_VERIFIER !== null && typeof ADDON?.["confirmAsync"] === "function" ? (ADDON as unknown as CombConfirmer) : null;

interface Entry {
  /** The address as recovery returns it (lowercase). */
  readonly address: string;
  recoveries: number;
  /** Set once its table was asked for (cleared when evicted): while building, held, or given up. */
  building: boolean;
  table: CombTable | null;
  /** When it was last confirmed (or its table built), in confirmations: eviction takes the smallest. */
  lastUsed: number;
}

export interface KnownSignerStats {
  readonly signers: number;
  /** Tables held or being built. */
  readonly tables: number;
  readonly tablesReady: number;
  /** Signatures confirmed without a recovery. */
  readonly confirmed: number;
}

export class KnownSigners {
  private readonly entries = new Map<string, Entry>();
  /** Entries with a table, held or being built (at most maxTables). */
  private readonly withTables = new Set<Entry>();
  private tablesReady = 0;
  private confirmedCount = 0;
  private enabled = true;

  constructor(
    private readonly verifier: CombVerifier | null = COMB_VERIFIER,
    private readonly buildAfter = BUILD_AFTER,
    private readonly maxTables = MAX_TABLES,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly confirmer: CombConfirmer | null = verifier === COMB_VERIFIER ? COMB_CONFIRMER : null,
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
    if (entry === undefined || entry.table === null) return undefined;
    if (!this.verifier!.matches(digest, rs, recid, entry.table)) return undefined;
    entry.lastUsed = ++this.confirmedCount;
    return entry.address;
  }

  /**
   * confirm, off this thread: when `expected`'s table is ready, posts the
   * check to the add-on's confirmer and returns true; `done` gets what
   * confirm would have returned, on this thread, from a later macrotask,
   * and answers come in the order posted. Returns false (and never calls
   * `done`) when confirm would return undefined without checking: no
   * table, turned off, or no confirmer. `digest` and `rs` are copied.
   */
  confirmLater(expected: string, digest: Uint8Array, rs: Uint8Array, recid: number, done: (address: string | undefined) => void): boolean {
    const entry = this.laterEntry(expected);
    if (entry === undefined || this.confirmer === null) return false;
    this.confirmer.confirmAsync(digest, rs, recid, entry.table, (ok) => {
      if (ok) entry.lastUsed = ++this.confirmedCount;
      done(ok ? entry.address : undefined);
    });
    return true;
  }

  /** Whether confirmLater would take a signature expected from `expected` now (so that a caller can skip the work of preparing one). */
  canConfirmLater(expected: string): boolean {
    return this.laterEntry(expected) !== undefined;
  }

  /** `expected`'s entry when confirmLater can take it: on, a confirmer, a ready table. */
  private laterEntry(expected: string): (Entry & { table: CombTable }) | undefined {
    if (!this.enabled || this.tablesReady === 0 || this.confirmer === null) return undefined;
    const entry = this.entries.get(expected) ?? this.entries.get(expected.toLowerCase());
    return entry === undefined || entry.table === null ? undefined : (entry as Entry & { table: CombTable });
  }

  /** A recovery gave `address` from the uncompressed 65-byte `publicKey`: counts it, and builds its table once it is due. */
  noteRecovered(address: string, publicKey: Uint8Array): void {
    if (this.verifier === null || !this.enabled) return;
    let entry = this.entries.get(address);
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.forgetCounted();
      entry = { address, recoveries: 0, building: false, table: null, lastUsed: 0 };
      this.entries.set(address, entry);
    }
    if (entry.building || ++entry.recoveries < this.buildAfter) return;
    if (this.withTables.size >= this.maxTables && !this.evictLeastRecent()) return;
    entry.building = true;
    entry.lastUsed = this.confirmedCount;
    this.withTables.add(entry);
    const built = entry;
    try {
      // The add-on copies the key before returning: the caller's scratch buffer may be reused at once.
      this.verifier.buildTable(publicKey, (table) => {
        if (!this.withTables.has(built)) return; // evicted meanwhile
        if (table === null) {
          // Not a curve point (recovery never gives one): recovered every time, holding no slot.
          this.withTables.delete(built);
          return;
        }
        built.table = table;
        this.tablesReady++;
      });
    } catch {
      // The add-on refused the key (recovery's keys are 65 bytes; it cannot here): recovered every time, holding no slot.
      this.withTables.delete(built);
    }
  }

  /** True when `address` (any case) has a table ready: what a caller waits on before it expects confirmations from that signer. */
  hasTable(address: string): boolean {
    const entry = this.entries.get(address) ?? this.entries.get(address.toLowerCase());
    return entry !== undefined && entry.table !== null;
  }

  stats(): KnownSignerStats {
    return { signers: this.entries.size, tables: this.withTables.size, tablesReady: this.tablesReady, confirmed: this.confirmedCount };
  }

  /** Forgets every signer that holds no table (amortized: once per maxEntries new signers). */
  private forgetCounted(): void {
    for (const [address, entry] of this.entries) if (!this.withTables.has(entry)) this.entries.delete(address);
  }

  /** Frees the table confirmed least recently, of those built; false when none is built yet. */
  private evictLeastRecent(): boolean {
    let victim: Entry | undefined;
    for (const entry of this.withTables) {
      if (entry.table !== null && (victim === undefined || entry.lastUsed < victim.lastUsed)) victim = entry;
    }
    if (victim === undefined) return false;
    this.withTables.delete(victim);
    victim.table = null;
    victim.building = false;
    victim.recoveries = 0;
    this.tablesReady--;
    return true;
  }
}
