/**
 * The comb verifier (native/secp256k1-comb) says yes exactly when
 * libsecp256k1's recovery would give the table's key, and the signer cache
 * built on it (known-signers.ts, verify.ts) never changes an answer: random
 * digests and signatures, valid ones and every way of spoiling one, against
 * `ecdsaRecover` itself.
 */
import { secp256k1 as noble } from "@noble/curves/secp256k1";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { COMB_VERIFIER, KnownSigners, type CombTable, type CombVerifier } from "../../src/signing/known-signers.ts";
import { native } from "../../src/signing/native.ts";
import { knownSignerReady, knownSignerStats, recoverSignerNative, setKnownSignersEnabled } from "../../src/signing/verify.ts";
import { anyMessageArb, CURVE_ORDER, SEED } from "./arbitraries.ts";
import { tablesBuilt } from "./known-signers-helpers.ts";

if (native === null) throw new Error("these tests compare with the native recovery: the add-ons must load");
const secp = native.secp256k1;

// `npm ci` builds it (scripts/build-native.mjs); on these machines (Linux x64, g++ and Node's headers) it must have.
const verifier: CombVerifier = COMB_VERIFIER ?? (() => {
  throw new Error("the comb verifier did not load: run `npm run install` (scripts/build-native.mjs) and read its message");
})();

const KEYS = [1, 2, 3].map((seed) => Buffer.alloc(32, seed));
const PUBLIC_KEYS = KEYS.map((key) => Buffer.from(secp.publicKeyCreate(key, false)));
const tables: CombTable[] = [];

function buildTable(publicKey: Uint8Array): Promise<CombTable | null> {
  return new Promise((resolve) => verifier.buildTable(publicKey, resolve));
}

async function builtTable(publicKey: Uint8Array): Promise<CombTable> {
  const table = await buildTable(publicKey);
  if (table === null) throw new Error("table build failed");
  return table;
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
  for (const publicKey of PUBLIC_KEYS) tables.push(await builtTable(publicKey));
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
    // Only a handle from buildTable: never a buffer a caller could free or fill.
    expect(() => verifier.matches(digest, rs, 0, Buffer.alloc(verifier.tableBytes) as never)).toThrow(/table must be a table from buildTable/);
    expect(() => verifier.matches(digest, rs, 0, {} as never)).toThrow(/table must be a table from buildTable/);
    for (const recid of [-1, 4, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32, "0"]) {
      expect(() => verifier.matches(digest, rs, recid as number, tables[0]!)).toThrow(/recid must be 0, 1, 2 or 3/);
    }
    expect(() => verifier.buildTable(Buffer.alloc(33), () => {})).toThrow(/publicKey must be a Uint8Array of 65 bytes/);
    expect(() => verifier.buildTable(PUBLIC_KEYS[0]!, "done" as never)).toThrow(/done must be a function/);
  });

  it("hands null for a key that is not on the curve", async () => {
    expect(await buildTable(Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]))).toBeNull();
  });

  /**
   * Cases signing never produces, built backwards: R is a chosen curve point
   * and Q = r^-1 (s R - e G) the key recovery gives, so that the answer
   * turns on R's x beyond the order (recid 2 and 3), the p - n bound, and r
   * or s written with the order added (which recovery refuses).
   */
  it("agrees with recovery where R's x is past the order, and where r or s overflow", async () => {
    const { ProjectivePoint: Point, CURVE } = noble;
    const n = CURVE.n;
    const p = CURVE.Fp.ORDER;
    const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;
    const e = 4242n;
    const s = 3n;
    /** The curve point with this x (null when x^3 + 7 is not a square). */
    const pointAt = (x: bigint) => {
      try {
        return Point.fromHex(`02${x.toString(16).padStart(64, "0")}`);
      } catch {
        return null;
      }
    };
    const cases: { label: string; rWord: bigint; sWord: bigint; recidHigh: number; x: bigint }[] = [];
    for (let k = 1n, found = 0; found < 6; k++) {
      // x = n + k < p: an R whose x is past the order, r = k, recid 2 or 3.
      if (pointAt(n + k) !== null) {
        cases.push({ label: `x = n + ${k}`, rWord: k, sWord: s, recidHigh: 2, x: n + k });
        found++;
      }
    }
    for (let k = 1n; ; k++) {
      // r = (p - n) + k with recid 2: recovery refuses (r + n would pass p), though r + n is k modulo p, R's x here.
      if (pointAt(k) !== null) {
        cases.push({ label: "r past the p - n bound", rWord: p - n + k, sWord: s, recidHigh: 2, x: k });
        break;
      }
    }
    for (let k = 1n; ; k++) {
      if (pointAt(k) !== null) {
        cases.push({ label: "r written as r + n", rWord: k + n, sWord: s, recidHigh: 0, x: k });
        cases.push({ label: "s written as s + n", rWord: k, sWord: s + n, recidHigh: 0, x: k });
        cases.push({ label: "plain", rWord: k, sWord: s, recidHigh: 0, x: k });
        break;
      }
    }
    let confirmed = 0;
    for (const { label, rWord, sWord, recidHigh, x } of cases) {
      const R = pointAt(x)!;
      const rTrue = mod(rWord, n);
      for (const parity of [0, 1]) {
        const point = (R.toAffine().y & 1n) === BigInt(parity) ? R : R.negate();
        const Q = point.multiply(s).subtract(Point.BASE.multiply(e)).multiply(modInverse(rTrue, n));
        const publicKey = Buffer.from(Q.toRawBytes(false));
        const table = await builtTable(publicKey);
        const rs = Buffer.concat([word(rWord), word(sWord)]);
        const recid = recidHigh | parity;
        const key = recovered(word(e), rs, recid);
        const expected = key !== null && key.equals(publicKey);
        expect(verifier.matches(word(e), rs, recid, table), `${label}, parity ${parity}`).toBe(expected);
        if (expected) confirmed++;
      }
    }
    // The six x-past-the-order points and the plain one, both parities, recover their keys.
    expect(confirmed).toBe(14);
  });
});

function modInverse(a: bigint, m: bigint): bigint {
  let [x, y, u, v] = [((a % m) + m) % m, m, 1n, 0n];
  while (x !== 0n) {
    const q = y / x;
    [x, y] = [y - q * x, x];
    [u, v] = [v - q * u, u];
  }
  return ((v % m) + m) % m;
}

describe("KnownSigners", () => {
  const digest = Buffer.alloc(32, 9);
  const signed = secp.ecdsaSign(digest, KEYS[0]!);
  const rs = Buffer.from(signed.signature);
  const signedByB = secp.ecdsaSign(digest, KEYS[1]!);
  const rsB = Buffer.from(signedByB.signature);
  const A = "0x00000000000000000000000000000000000000aa";
  const B = "0x00000000000000000000000000000000000000bb";

  it("builds a table after buildAfter recoveries, then confirms only its own key", async () => {
    const signers = new KnownSigners(verifier, 2, 4);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    expect(signers.stats()).toMatchObject({ signers: 1, tables: 0 });
    expect(signers.confirm(A, digest, rs, signed.recid)).toBeUndefined();
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    expect(signers.stats().tables).toBe(1);
    await tablesBuilt(signers);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBe(A);
    expect(signers.confirm(A.toUpperCase().replace("0X", "0x"), digest, rs, signed.recid)).toBe(A);
    expect(signers.confirm(A, digest, rs, signed.recid ^ 1)).toBeUndefined();
    expect(signers.confirm(B, digest, rs, signed.recid)).toBeUndefined();
    signers.setEnabled(false);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBeUndefined();
    expect(signers.stats().confirmed).toBe(2);
  });

  it("holds at most maxTables tables, giving a newly due signer the least recently confirmed one's", async () => {
    const signers = new KnownSigners(verifier, 1, 1);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    // B is due while A's table is still being built: none to take, B waits.
    signers.noteRecovered(B, PUBLIC_KEYS[1]!);
    await tablesBuilt(signers);
    expect(signers.stats()).toMatchObject({ signers: 2, tables: 1, tablesReady: 1 });
    expect(signers.confirm(A, digest, rs, signed.recid)).toBe(A);
    expect(signers.confirm(B, digest, rsB, signedByB.recid)).toBeUndefined();
    // B recovered again: it takes A's table.
    signers.noteRecovered(B, PUBLIC_KEYS[1]!);
    await tablesBuilt(signers);
    expect(signers.stats()).toMatchObject({ tables: 1, tablesReady: 1 });
    expect(signers.confirm(B, digest, rsB, signedByB.recid)).toBe(B);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBeUndefined();
  });

  it("forgets the signers it only counted when maxEntries is reached, keeping those with tables", async () => {
    const signers = new KnownSigners(verifier, 2, 4, 3);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    await tablesBuilt(signers);
    for (let i = 0; i < 5; i++) signers.noteRecovered(`0x${String(i).padStart(40, "c")}`, PUBLIC_KEYS[2]!);
    expect(signers.stats().signers).toBeLessThanOrEqual(3);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBe(A);
  });

  it("frees the slot of a key that builds no table", async () => {
    const signers = new KnownSigners(verifier, 1, 1);
    signers.noteRecovered(B, Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]));
    await tablesBuilt(signers);
    expect(signers.stats().tables).toBe(0);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    await tablesBuilt(signers);
    expect(signers.stats()).toMatchObject({ tables: 1, tablesReady: 1 });
    expect(signers.confirm(A, digest, rs, signed.recid)).toBe(A);
  });

  it("without the add-on, confirms nothing and builds nothing", () => {
    const signers = new KnownSigners(null, 1, 1);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBeUndefined();
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
    for (let i = 0; i < 200 && !knownSignerReady(signer.address); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(knownSignerReady(signer.address)).toBe(true);
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
