/**
 * The comb verifier (native/secp256k1-comb) says yes exactly when
 * libsecp256k1's recovery would give the table's key, and the signer cache
 * built on it (known-signers.ts, verify.ts) never changes an answer: random
 * digests and signatures, valid ones and every way of spoiling one, against
 * `ecdsaRecover` itself.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { COMB_VERIFIER, KnownSigners, type CombVerifier } from "../../src/signing/known-signers.ts";
import { native } from "../../src/signing/native.ts";
import { knownSignerStats, recoverSignerNative, setKnownSignersEnabled } from "../../src/signing/verify.ts";
import { anyMessageArb, CURVE_ORDER, SEED } from "./arbitraries.ts";

if (native === null) throw new Error("these tests compare with the native recovery: the add-ons must load");
const secp = native.secp256k1;

// `npm ci` builds it (scripts/build-native.mjs); on these machines (Linux x64, g++ and Node's headers) it must have.
const verifier: CombVerifier = COMB_VERIFIER ?? (() => {
  throw new Error("the comb verifier did not load: run `npm run install` (scripts/build-native.mjs) and read its message");
})();

const KEYS = [1, 2, 3].map((seed) => Buffer.alloc(32, seed));
const PUBLIC_KEYS = KEYS.map((key) => Buffer.from(secp.publicKeyCreate(key, false)));
const tables: Buffer[] = [];

function buildTable(publicKey: Uint8Array): Promise<Buffer> {
  const table = Buffer.allocUnsafeSlow(verifier.tableBytes);
  return new Promise((resolve, reject) => verifier.buildTable(publicKey, table, (ok) => (ok ? resolve(table) : reject(new Error("table build failed")))));
}

/** What libsecp256k1 recovers from (digest, rs, recid): the uncompressed key, or null when it refuses. */
function recovered(digest: Uint8Array, rs: Uint8Array, recid: number): Buffer | null {
  try {
    return Buffer.from(secp.ecdsaRecover(rs, recid, digest, false, Buffer.alloc(65)));
  } catch {
    return null;
  }
}

function word(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, "0"), "hex");
}

beforeAll(async () => {
  for (const publicKey of PUBLIC_KEYS) tables.push(await buildTable(publicKey));
});

type Spoil = "none" | "flipParity" | "highX" | "digest" | "otherKey" | "randomRs" | "zeroR" | "zeroS" | "rOverOrder" | "sOverOrder";
const spoilArb = fc.constantFrom<Spoil>("none", "none", "none", "flipParity", "highX", "digest", "otherKey", "randomRs", "zeroR", "zeroS", "rOverOrder", "sOverOrder");
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe("comb verifier", () => {
  it("matches exactly when recovery gives the table's key", () => {
    let confirmed = 0;
    let refused = 0;
    fc.assert(
      fc.property(bytes32, fc.integer({ min: 0, max: 2 }), spoilArb, bytes32, bytes32, (digestBytes, keyIndex, spoil, noiseR, noiseS) => {
        const digest = Buffer.from(digestBytes);
        const signed = secp.ecdsaSign(digest, KEYS[keyIndex]!);
        let rs = Buffer.from(signed.signature);
        let recid = signed.recid;
        let tableIndex = keyIndex;
        switch (spoil) {
          case "flipParity":
            recid ^= 1;
            break;
          case "highX":
            recid |= 2;
            break;
          case "digest":
            digest[noiseR[0]! % 32]! ^= 1 + (noiseS[0]! % 255);
            break;
          case "otherKey":
            tableIndex = (keyIndex + 1) % 3;
            break;
          case "randomRs":
            rs = Buffer.concat([noiseR, noiseS]);
            break;
          case "zeroR":
            rs.fill(0, 0, 32);
            break;
          case "zeroS":
            rs.fill(0, 32, 64);
            break;
          case "rOverOrder":
            word(CURVE_ORDER + BigInt(noiseR[0]!)).copy(rs, 0);
            break;
          case "sOverOrder":
            word(CURVE_ORDER + BigInt(noiseS[0]!)).copy(rs, 32);
            break;
        }
        const key = recovered(digest, rs, recid);
        const expected = key !== null && key.equals(PUBLIC_KEYS[tableIndex]!);
        expect(verifier.matches(digest, rs, recid, tables[tableIndex]!)).toBe(expected);
        if (expected) confirmed++;
        else refused++;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    // Both answers were exercised: about a quarter of the cases are unspoiled signatures.
    expect(confirmed).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(1500);
  });

  it("refuses arguments of the wrong shape with a TypeError naming them", () => {
    const digest = Buffer.alloc(32, 1);
    const rs = Buffer.alloc(64, 1);
    expect(() => verifier.matches(digest.subarray(1), rs, 0, tables[0]!)).toThrow(/digest must be a Uint8Array of 32 bytes/);
    expect(() => verifier.matches(digest, rs.subarray(1), 0, tables[0]!)).toThrow(/rs must be a Uint8Array of 64 bytes/);
    expect(() => verifier.matches(digest, rs, 0, Buffer.alloc(64))).toThrow(/table must be a table of tableBytes/);
    expect(() => verifier.buildTable(Buffer.alloc(33), Buffer.allocUnsafeSlow(verifier.tableBytes), () => {})).toThrow(/publicKey must be a Uint8Array of 65 bytes/);
  });

  it("reports a key that is not on the curve as a failed build", async () => {
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]);
    await expect(buildTable(offCurve)).rejects.toThrow(/table build failed/);
  });
});

describe("KnownSigners", () => {
  const digest = Buffer.alloc(32, 9);
  const signed = secp.ecdsaSign(digest, KEYS[0]!);
  const rs = Buffer.from(signed.signature);
  const address = "0x00000000000000000000000000000000000000aa";

  async function ready(signers: KnownSigners): Promise<void> {
    for (let i = 0; i < 200 && signers.stats().tablesReady < signers.stats().tables; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it("builds a table after buildAfter recoveries, then confirms only its own key", async () => {
    const signers = new KnownSigners(verifier, 2, 4);
    signers.noteRecovered(address, PUBLIC_KEYS[0]!);
    expect(signers.stats()).toMatchObject({ signers: 1, tables: 0 });
    expect(signers.confirm(address, digest, rs, signed.recid)).toBeUndefined();
    signers.noteRecovered(address, PUBLIC_KEYS[0]!);
    expect(signers.stats().tables).toBe(1);
    await ready(signers);
    expect(signers.confirm(address, digest, rs, signed.recid)).toBe(address);
    expect(signers.confirm(address.toUpperCase().replace("0X", "0x"), digest, rs, signed.recid)).toBe(address);
    expect(signers.confirm(address, digest, rs, signed.recid ^ 1)).toBeUndefined();
    expect(signers.confirm("0x00000000000000000000000000000000000000bb", digest, rs, signed.recid)).toBeUndefined();
    signers.setEnabled(false);
    expect(signers.confirm(address, digest, rs, signed.recid)).toBeUndefined();
    expect(signers.stats().confirmed).toBe(2);
  });

  it("builds at most maxTables tables", async () => {
    const signers = new KnownSigners(verifier, 1, 1);
    signers.noteRecovered(address, PUBLIC_KEYS[0]!);
    signers.noteRecovered("0x00000000000000000000000000000000000000bb", PUBLIC_KEYS[1]!);
    await ready(signers);
    expect(signers.stats()).toMatchObject({ signers: 2, tables: 1, tablesReady: 1 });
  });

  it("without the add-on, confirms nothing and builds nothing", () => {
    const signers = new KnownSigners(null, 1, 1);
    signers.noteRecovered(address, PUBLIC_KEYS[0]!);
    expect(signers.confirm(address, digest, rs, signed.recid)).toBeUndefined();
    expect(signers.stats()).toMatchObject({ tables: 0, confirmed: 0 });
  });
});

describe("recoverSignerNative with a hint", () => {
  const signer = createFastSigner(`0x${KEYS[1]!.toString("hex")}`, DEFAULT_SIGNING_CONFIG);
  const other = createFastSigner(`0x${KEYS[2]!.toString("hex")}`, DEFAULT_SIGNING_CONFIG);

  afterAll(() => setKnownSignersEnabled(true));

  it("answers as recovery does, confirming the expected signer once its table is ready", async () => {
    // Recover the signer until its table is due, then wait for it.
    const warm = fc.sample(anyMessageArb, { seed: SEED, numRuns: 16 });
    for (const { kind, message } of warm) recoverSignerNative(kind, message, signer.sign(kind, message), DEFAULT_SIGNING_CONFIG, signer.address);
    for (let i = 0; i < 200 && knownSignerStats().tablesReady === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(knownSignerStats().tablesReady).toBeGreaterThan(0);
    const before = knownSignerStats().confirmed;
    let hinted = 0;
    fc.assert(
      fc.property(anyMessageArb, fc.boolean(), fc.constantFrom("signer", "other", "upper", "none"), ({ kind, message }, bySigner, hint) => {
        const signature = (bySigner ? signer : other).sign(kind, message);
        const expectedHint = hint === "signer" ? signer.address : hint === "other" ? other.address : hint === "upper" ? `0x${signer.address.slice(2).toUpperCase()}` : undefined;
        setKnownSignersEnabled(false);
        const reference = recoverSignerNative(kind, message, signature, DEFAULT_SIGNING_CONFIG);
        setKnownSignersEnabled(true);
        expect(reference).toEqual({ ok: true, address: (bySigner ? signer : other).address });
        expect(recoverSignerNative(kind, message, signature, DEFAULT_SIGNING_CONFIG, expectedHint)).toEqual(reference);
        // A spoiled v recovers someone else (or no one): the hint must not hide that.
        const flipped = signature.slice(0, -2) + (signature.endsWith("1b") ? "1c" : "1b");
        setKnownSignersEnabled(false);
        const flippedReference = recoverSignerNative(kind, message, flipped, DEFAULT_SIGNING_CONFIG);
        setKnownSignersEnabled(true);
        expect(recoverSignerNative(kind, message, flipped, DEFAULT_SIGNING_CONFIG, expectedHint)).toEqual(flippedReference);
        if (bySigner && (hint === "signer" || hint === "upper")) hinted++;
      }),
      { seed: SEED, numRuns: 400 },
    );
    // Every correctly hinted signature of the signer was confirmed from its table, without a recovery.
    expect(knownSignerStats().confirmed - before).toBe(hinted);
    expect(hinted).toBeGreaterThan(50);
  });
});
