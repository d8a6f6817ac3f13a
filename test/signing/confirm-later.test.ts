/**
 * The comb check off the calling thread (comb.c's confirmer, known-signers.ts
 * `confirmLater`, verify.ts `confirmSignerLater`): each answer is what the
 * synchronous check answers for the same inputs, answers come in the order
 * posted and never before the call returns, the inputs are copied at once,
 * and a signature the check cannot take is left to the caller.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { createFastSigner } from "../../src/signing/fast-sign.ts";
import { COMB_CONFIRMER, COMB_VERIFIER, KnownSigners, type CombConfirmer, type CombTable, type CombVerifier } from "../../src/signing/known-signers.ts";
import { native } from "../../src/signing/native.ts";
import { confirmSignerLater, knownSignerReady, recoverSignerNative, setKnownSignersEnabled } from "../../src/signing/verify.ts";
import { anyMessageArb, SEED } from "./arbitraries.ts";
import { tablesBuilt } from "./known-signers-helpers.ts";

if (native === null) throw new Error("these tests compare with the native recovery: the add-ons must load");
const secp = native.secp256k1;

// `npm ci` builds the add-on (scripts/build-native.mjs); on these machines it must have.
const verifier: CombVerifier = COMB_VERIFIER ?? (() => {
  throw new Error("the comb verifier did not load: run `npm run install` (scripts/build-native.mjs) and read its message");
})();
const confirmer: CombConfirmer = COMB_CONFIRMER ?? (() => {
  throw new Error("the add-on has no confirmAsync: rebuild it with `npm run install`");
})();

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ADDON_PATH = fileURLToPath(new URL("../../native/secp256k1-comb/build/Release/comb.node", import.meta.url));

const KEYS = [5, 6].map((seed) => Buffer.alloc(32, seed));
const PUBLIC_KEYS = KEYS.map((key) => Buffer.from(secp.publicKeyCreate(key, false)));
const tables: CombTable[] = [];

function builtTable(publicKey: Uint8Array): Promise<CombTable> {
  return new Promise((resolve, reject) => verifier.buildTable(publicKey, (table) => (table === null ? reject(new Error("no table")) : resolve(table))));
}

beforeAll(async () => {
  for (const publicKey of PUBLIC_KEYS) tables.push(await builtTable(publicKey));
});

interface Case {
  digest: Buffer;
  rs: Buffer;
  recid: number;
  table: number;
}

const caseArb = fc
  .record({
    digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    key: fc.integer({ min: 0, max: 1 }),
    table: fc.integer({ min: 0, max: 1 }),
    spoil: fc.constantFrom("none", "none", "parity", "digest", "rs"),
    noise: fc.uint8Array({ minLength: 64, maxLength: 64 }),
  })
  .map(({ digest, key, table, spoil, noise }): Case => {
    const signed = secp.ecdsaSign(Buffer.from(digest), KEYS[key]!);
    const rs = spoil === "rs" ? Buffer.from(noise) : Buffer.from(signed.signature);
    const spoiledDigest = Buffer.from(digest);
    if (spoil === "digest") spoiledDigest[noise[0]! % 32]! ^= 1;
    return { digest: spoiledDigest, rs, recid: spoil === "parity" ? signed.recid ^ 1 : signed.recid, table };
  });

describe("confirmAsync (the add-on's confirmer)", () => {
  it("answers what matches answers, in the order posted, never before the call returns", async () => {
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: 600 });
    const answers: { index: number; ok: boolean }[] = [];
    let returned = false;
    const scratchDigest = Buffer.alloc(32);
    const scratchRs = Buffer.alloc(64);
    const all = Promise.all(
      cases.map(
        (c, index) =>
          new Promise<void>((resolve) => {
            // One buffer for every post, overwritten at once: the add-on must have copied it.
            c.digest.copy(scratchDigest);
            c.rs.copy(scratchRs);
            confirmer.confirmAsync(scratchDigest, scratchRs, c.recid, tables[c.table]!, (ok) => {
              expect(returned).toBe(true);
              answers.push({ index, ok });
              resolve();
            });
            scratchDigest.fill(0xee);
            scratchRs.fill(0xee);
          }),
      ),
    );
    returned = true;
    await all;
    expect(answers.map((a) => a.index)).toEqual(cases.map((_, index) => index));
    const expected = cases.map((c) => verifier.matches(c.digest, c.rs, c.recid, tables[c.table]!));
    expect(answers.map((a) => a.ok)).toEqual(expected);
    // Both answers were exercised.
    expect(expected.filter(Boolean).length).toBeGreaterThan(100);
    expect(expected.filter((ok) => !ok).length).toBeGreaterThan(200);
  });

  it("refuses arguments of the wrong shape with a TypeError naming them, and posts nothing", async () => {
    const digest = Buffer.alloc(32, 1);
    const rs = Buffer.alloc(64, 1);
    const table = tables[0]!;
    let answered = 0;
    const never = (): void => {
      answered++;
    };
    expect(() => confirmer.confirmAsync(digest.subarray(1), rs, 0, table, never)).toThrow(/digest must be a Uint8Array of 32 bytes/);
    expect(() => confirmer.confirmAsync(digest, rs.subarray(1), 0, table, never)).toThrow(/rs must be a Uint8Array of 64 bytes/);
    for (const recid of [-1, 4, 0.5, Number.NaN, "0"]) {
      expect(() => confirmer.confirmAsync(digest, rs, recid as number, table, never)).toThrow(/recid must be 0, 1, 2 or 3/);
    }
    expect(() => confirmer.confirmAsync(digest, rs, 0, Buffer.alloc(verifier.tableBytes) as never, never)).toThrow(/table must be a table from buildTable/);
    expect(() => confirmer.confirmAsync(digest, rs, 0, table, "done" as never)).toThrow(/done must be a function/);
    expect(() => (confirmer.confirmAsync as (...args: unknown[]) => void)(digest, rs, 0, table)).toThrow(/confirmAsync\(digest, rs, recid, table, done\)/);
    // A job posted after them is answered, and nothing else is: the refused calls posted nothing.
    await new Promise<void>((resolve) => confirmer.confirmAsync(digest, rs, 0, table, () => resolve()));
    expect(answered).toBe(0);
  });

  /** Runs `body` in a child Node process with the add-on loaded as `addon` and a table for key 5 as `table`; its stdout. */
  function child(body: string): { status: number | null; stdout: string; stderr: string; ms: number } {
    const script = `
      const addon = require(${JSON.stringify(ADDON_PATH)});
      const secp = require("secp256k1");
      const key = Buffer.alloc(32, 5);
      const digest = Buffer.alloc(32, 9);
      const signed = secp.ecdsaSign(digest, key);
      addon.buildTable(Buffer.from(secp.publicKeyCreate(key, false)), (table) => { ${body} });
    `;
    const started = Date.now();
    const result = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
  }

  it("raises an exception thrown by done as an uncaught exception, as buildTable's callback does", () => {
    const run = child(`
      process.on("uncaughtException", (error) => { console.log("uncaught:" + error.message); process.exit(0); });
      addon.confirmAsync(digest, Buffer.from(signed.signature), signed.recid, table, (ok) => { throw new Error("thrown by done, ok=" + ok); });
    `);
    expect(run.stdout.trim()).toBe("uncaught:thrown by done, ok=true");
    expect(run.status).toBe(0);
  });

  it("holds the process open while an answer is due, and not once it is idle", () => {
    const run = child(`
      let left = 3;
      const next = () => addon.confirmAsync(digest, Buffer.from(signed.signature), signed.recid, table, (ok) => {
        console.log("answered " + ok);
        if (--left > 0) next();
      });
      next();
    `);
    // Every answer arrived (nothing else kept the loop alive meanwhile), then the process ended by itself.
    expect(run.stdout.trim().split("\n")).toEqual(["answered true", "answered true", "answered true"]);
    expect(run.status).toBe(0);
    expect(run.ms).toBeLessThan(10_000);
  });
});

describe("KnownSigners.confirmLater", () => {
  const digest = Buffer.alloc(32, 9);
  const signed = secp.ecdsaSign(digest, KEYS[0]!);
  const rs = Buffer.from(signed.signature);
  const A = "0x00000000000000000000000000000000000000aa";
  const B = "0x00000000000000000000000000000000000000bb";

  function later(signers: KnownSigners, expected: string, rsBytes: Buffer, recid: number): Promise<string | undefined> | false {
    let answer!: (address: string | undefined) => void;
    const promise = new Promise<string | undefined>((resolve) => (answer = resolve));
    return signers.confirmLater(expected, digest, rsBytes, recid, answer) ? promise : false;
  }

  it("takes only a signer with a ready table, and answers as confirm does", async () => {
    const signers = new KnownSigners(verifier, 1, 4);
    expect(later(signers, A, rs, signed.recid)).toBe(false); // never recovered: no table
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    await tablesBuilt(signers);
    expect(await later(signers, A, rs, signed.recid)).toBe(A);
    expect(await later(signers, A.toUpperCase().replace("0X", "0x"), rs, signed.recid)).toBe(A);
    expect(await later(signers, A, rs, signed.recid ^ 1)).toBeUndefined();
    expect(later(signers, B, rs, signed.recid)).toBe(false);
    expect(signers.stats().confirmed).toBe(2);
    signers.setEnabled(false);
    expect(later(signers, A, rs, signed.recid)).toBe(false);
  });

  it("without a confirmer takes nothing", async () => {
    const signers = new KnownSigners(verifier, 1, 4, 100, null);
    signers.noteRecovered(A, PUBLIC_KEYS[0]!);
    await tablesBuilt(signers);
    expect(signers.canConfirmLater(A)).toBe(false);
    expect(later(signers, A, rs, signed.recid)).toBe(false);
    expect(signers.confirm(A, digest, rs, signed.recid)).toBe(A);
  });
});

describe("confirmSignerLater", () => {
  const signer = createFastSigner(`0x${Buffer.alloc(32, 7).toString("hex")}`, DEFAULT_SIGNING_CONFIG);
  const other = createFastSigner(`0x${Buffer.alloc(32, 8).toString("hex")}`, DEFAULT_SIGNING_CONFIG);

  it("answers what recoverSignerNative answers for the expected signer, or leaves the request to the caller", async () => {
    const warm = fc.sample(anyMessageArb, { seed: SEED, numRuns: 16 });
    for (const { kind, message } of warm) recoverSignerNative(kind, message, signer.sign(kind, message), DEFAULT_SIGNING_CONFIG, signer.address);
    for (let i = 0; i < 200 && !knownSignerReady(signer.address); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(knownSignerReady(signer.address)).toBe(true);

    const cases = fc.sample(fc.tuple(anyMessageArb, fc.constantFrom("signer", "other", "flippedV", "malformed")), { seed: SEED + 1, numRuns: 300 });
    const pending: Promise<void>[] = [];
    let started = 0;
    let confirmed = 0;
    for (const [{ kind, message }, how] of cases) {
      const good = signer.sign(kind, message);
      const signature =
        how === "signer"
          ? good
          : how === "other"
            ? other.sign(kind, message)
            : how === "flippedV"
              ? good.slice(0, -2) + (good.endsWith("1b") ? "1c" : "1b")
              : good.slice(0, -4);
      setKnownSignersEnabled(false);
      const reference = recoverSignerNative(kind, message, signature, DEFAULT_SIGNING_CONFIG);
      setKnownSignersEnabled(true);
      let answer!: (address: string | undefined) => void;
      const answered = new Promise<string | undefined>((resolve) => (answer = resolve));
      const began = confirmSignerLater(kind, message, signature, DEFAULT_SIGNING_CONFIG, signer.address, answer);
      if (how === "malformed") {
        // A signature recovery would refuse is never started: the caller answers it.
        expect(began).toBe(false);
        continue;
      }
      // Anything well-formed for a signer with a table is started, and answers the signer or nothing.
      expect(began).toBe(true);
      started++;
      pending.push(
        answered.then((address) => {
          if (address === undefined) {
            expect(reference.ok && reference.address === signer.address).toBe(false);
          } else {
            confirmed++;
            expect(reference).toEqual({ ok: true, address });
          }
        }),
      );
    }
    await Promise.all(pending);
    expect(started).toBeGreaterThan(150);
    // Exactly the signer's own signatures were confirmed.
    expect(confirmed).toBe(cases.filter(([, how]) => how === "signer").length);
  });
});
