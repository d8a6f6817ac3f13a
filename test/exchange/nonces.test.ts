import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NonceBook } from "../../src/exchange/gateway/nonces.ts";

const signer = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

describe("NonceBook", () => {
  it("accepts strictly increasing nonces per signer and refuses reused, lower and zero ones", () => {
    const book = new NonceBook();
    const first = book.check(signer, "1700000000000000");
    expect(first).toEqual({ ok: true, nonce: 1700000000000000n });
    book.accept(signer, 1700000000000000n);
    expect(book.check(signer, "1700000000000000")).toMatchObject({ ok: false, message: expect.stringContaining("not greater") });
    expect(book.check(signer, "1699999999999999").ok).toBe(false);
    expect(book.check(signer, "0")).toMatchObject({ ok: false, message: expect.stringContaining('"0"') });
    expect(book.check(signer, "1700000000000001").ok).toBe(true);
    expect(book.check(signer.toLowerCase(), "1700000000000000").ok).toBe(false);
  });

  it("is one counter per signer whatever the case of each call, the lowercase form found as it is", () => {
    const book = new NonceBook();
    const lower = signer.toLowerCase();
    book.accept(lower, 5n);
    book.accept(signer, 7n); // mixed case: the same signer
    expect(book.last(lower)).toBe(7n);
    expect(book.check(signer, "7").ok).toBe(false);
    book.accept(lower, 6n); // lower than the last: no change
    expect(book.last(signer)).toBe(7n);
    book.accept(lower, 9n);
    expect(book.check(signer, "9").ok).toBe(false);
    expect(book.check(lower, "10").ok).toBe(true);
    const other = new NonceBook();
    other.accept(signer, 3n); // first seen in mixed case
    expect(other.check(lower, "3").ok).toBe(false);
    expect(other.last(lower)).toBe(3n);
  });

  it("does not consume a nonce that was only checked (a rejected request)", () => {
    const book = new NonceBook();
    expect(book.check(signer, "5").ok).toBe(true);
    expect(book.check(signer, "5").ok).toBe(true);
    expect(book.last(signer)).toBe(0n);
  });

  it("keeps signers apart and handles nonces beyond 2^64", () => {
    const book = new NonceBook();
    book.accept(signer, 2n ** 70n);
    expect(book.check("0x0000000000000000000000000000000000000001", "1").ok).toBe(true);
    expect(book.check(signer, (2n ** 70n + 1n).toString()).ok).toBe(true);
    expect(book.check(signer, "12a").ok).toBe(false);
  });
});

describe("NonceBook.checkValue", () => {
  it("gives the verdict of check on the nonce's decimal text, before and after accepts", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 2n ** 80n }), { minLength: 1, maxLength: 12 }), (nonces) => {
        const book = new NonceBook();
        for (const nonce of nonces) {
          const byValue = book.checkValue(signer, nonce);
          expect(byValue).toEqual(book.check(signer, nonce.toString()));
          if (byValue.ok) book.accept(signer, nonce);
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
