/**
 * Property: a valid signed request with any single field tampered is
 * rejected and changes nothing. Whenever the tampered body still passes the
 * structure stage, the answer is UNAUTHORIZED_SIGNATURE_ERROR (the one
 * documented exception: an accountId that names no account is
 * NO_ACCOUNTS_FOUND_ERROR, reported before the signature); otherwise it is
 * exactly the structure stage's error.
 *
 * A "tamper" must change what is signed: a change that encodes the same
 * signed message (an exponent form of the same price, leading zeros, the
 * address in another case, reduceOnly false where it signs false anyway, v
 * 27 written as 0) is not one, and is discarded (fc.pre).
 *
 * All runs share one exchange and the same base requests with their nonces:
 * at the end the untouched bases are still accepted, so hundreds of
 * rejections consumed no nonce.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateCancelOrder, validateCreateOrder } from "../../../src/exchange/gateway/validate/structure.ts";
import type { ValidationContext } from "../../../src/exchange/gateway/validate/types.ts";
import { cancelMessage, orderMessage } from "../../../src/signing/messages.ts";
import { parseSignature } from "../../../src/signing/signature.ts";
import type { OrderBody } from "../../../src/signing/wire.ts";
import type { RequestErrorCode } from "../../../src/spec/errors.ts";
import { BTC, ETH, marketRef, SPOT, World } from "./harness.ts";

type Body = Record<string, unknown>;

const DELETE = Symbol("delete");
type Value = unknown;

interface Tamper {
  field: string;
  value: Value;
}

function apply(body: Body, tamper: Tamper): Body {
  const copy: Body = { ...body };
  if (tamper.field === "signature#byte") {
    const { index, mask } = tamper.value as { index: number; mask: number };
    const signature = copy["signature"] as string;
    const at = 2 + 2 * index;
    const byte = Number.parseInt(signature.slice(at, at + 2), 16) ^ mask;
    copy["signature"] = signature.slice(0, at) + byte.toString(16).padStart(2, "0") + signature.slice(at + 2);
  } else if (tamper.value === DELETE) {
    delete copy[tamper.field];
  } else {
    copy[tamper.field] = tamper.value;
  }
  return copy;
}

function context(w: World): ValidationContext {
  return { exchangeId: 1, markets: { bySymbol: (symbol) => w.exchange.marketsBySymbol.get(symbol) } };
}

/** JSON of the signed message (bigints as strings), or null when it cannot be built. */
function signedContent(build: () => unknown): string | null {
  try {
    return JSON.stringify(build(), (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  } catch {
    return null;
  }
}

function sameSignature(a: string, b: string): boolean {
  const x = parseSignature(a);
  const y = parseSignature(b);
  if (typeof x === "string" || typeof y === "string") return a === b;
  return x.recid === y.recid && x.rs.equals(y.rs);
}

/** A positive decimal: integers, fractions, exponent forms, zero, and too many fraction digits. */
const decimal = fc.oneof(
  fc.integer({ min: 0, max: 100_000_000 }).map((n) => (n / 1000).toString()),
  fc.integer({ min: 1, max: 99_999 }).map((n) => `${n}e-2`),
  fc.bigInt({ min: 1n, max: 10n ** 30n }).map((n) => `0.${n.toString().padStart(30, "0")}`),
  fc.constantFrom("0", "0.0", "1e80", "2e3", "1.99e3"),
);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);
const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String);
const signatureByte = fc.record({ index: fc.integer({ min: 0, max: 64 }), mask: fc.integer({ min: 1, max: 255 }) });

function createTampers(w: World, base: Body): fc.Arbitrary<Tamper> {
  const t = (field: string, value: fc.Arbitrary<Value>) => value.map((v) => ({ field, value: v }));
  return fc.oneof(
    t("accountId", fc.constantFrom(3, 4, 99, 0)),
    t("isBuy", fc.constant(!(base["isBuy"] as boolean))),
    t("limitPx", decimal),
    t("qty", decimal),
    t("timeInForce", fc.constantFrom("IOC", "GTC", "GTT")),
    t("reduceOnly", fc.constantFrom(true, false, DELETE)),
    t("postOnly", fc.constantFrom(true, false, DELETE)),
    t("clientOrderId", fc.oneof(uint64, fc.constantFrom("0", "042", "18446744073709551616", DELETE))),
    t("expiresAfter", fc.oneof(fc.integer({ min: 0, max: 4_000_000_000 }), fc.constant(DELETE))),
    t("nonce", fc.oneof(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map(String), fc.constantFrom("1", "1002", "1004"))),
    t("deadline", fc.integer({ min: 0, max: 2 ** 40 })),
    t("signerWallet", fc.oneof(address, fc.constantFrom(w.bob.address, w.alice.address.toUpperCase().replace("0X", "0x")))),
    t("symbol", fc.constantFrom(BTC, SPOT, "XYZ")),
    t("signature#byte", signatureByte),
  );
}

function cancelTampers(otherOrderId: string): fc.Arbitrary<Tamper> {
  const t = (field: string, value: fc.Arbitrary<Value>) => value.map((v) => ({ field, value: v }));
  return fc.oneof(
    t("accountId", fc.constantFrom(3, 4, 99, 0)),
    t("symbol", fc.constantFrom(BTC, SPOT, "XYZ")),
    t("orderId", fc.oneof(uint64, fc.constantFrom(otherOrderId, DELETE))),
    t("clientOrderId", fc.oneof(uint64, fc.constantFrom("0", DELETE))),
    t("nonce", fc.oneof(uint64, fc.constantFrom("0", "18446744073709551616"))),
    t("deadline", fc.integer({ min: 0, max: 2 ** 40 })),
    t("signature#byte", signatureByte),
  );
}

/** Runs one tampered request: the expected rejection (or a discard when nothing signed changed). */
function checkTampered(
  w: World,
  op: "createOrder" | "cancelOrder",
  base: Body,
  tampered: Body,
  validate: (body: unknown) => { ok: true } | { ok: false; error: { error: RequestErrorCode; message: string } },
  message: (body: Body) => string | null,
): RequestErrorCode {
  const structure = validate(tampered);
  if (!structure.ok) {
    const error = w.expectRejected(op, tampered, structure.error.error);
    expect(error.message).toBe(structure.error.message);
    return error.error;
  }
  const unchanged = message(tampered) === message(base) && sameSignature(String(tampered["signature"]), String(base["signature"]));
  fc.pre(!unchanged);
  const accountExists = w.exchange.risk.accountOwner(tampered["accountId"] as number) !== undefined;
  return w.expectRejected(op, tampered, accountExists ? "UNAUTHORIZED_SIGNATURE_ERROR" : "NO_ACCOUNTS_FOUND_ERROR").error;
}

/** Which fields reached the signature check (the structure stage passed): the property is not vacuous. */
class Tally {
  readonly signatureFailures = new Set<string>();
  readonly codes = new Map<string, number>();

  add(field: string, code: RequestErrorCode): void {
    if (code === "UNAUTHORIZED_SIGNATURE_ERROR") this.signatureFailures.add(field);
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
  }
}

describe("Tampered signed requests are rejected and change nothing", () => {
  it("createOrder: any one signed field changed, or one signature byte flipped", () => {
    const w = new World();
    const ctx = context(w);
    const expiresAfter = w.nowSeconds() + 3_600;
    const bases: Body[] = [
      w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.02", limitPx: "1990", timeInForce: "IOC", reduceOnly: false, clientOrderId: "42" }),
      w.create(w.alice, { symbol: ETH, isBuy: false, qty: "0.5", limitPx: "2010.5", timeInForce: "GTT", postOnly: false, expiresAfter, clientOrderId: "43" }),
      w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1980", timeInForce: "GTC", postOnly: true }),
    ];
    const message = (body: Body) =>
      signedContent(() => orderMessage(body as unknown as OrderBody, marketRef(String(body["symbol"]))));
    const validate = (body: unknown) => validateCreateOrder(body, ctx);
    const tally = new Tally();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bases.length - 1 }).chain((index) => fc.tuple(fc.constant(index), createTampers(w, bases[index]!))),
        ([index, tamper]) => {
          const base = bases[index]!;
          tally.add(tamper.field, checkTampered(w, "createOrder", base, apply(base, tamper), validate, message));
        },
      ),
      { seed: 42, numRuns: 400 },
    );
    expect([...tally.signatureFailures].sort()).toEqual(
      ["accountId", "clientOrderId", "deadline", "expiresAfter", "isBuy", "limitPx", "nonce", "postOnly", "qty", "reduceOnly", "signature#byte", "signerWallet", "symbol", "timeInForce"].sort(),
    );
    expect(tally.codes.get("UNAUTHORIZED_SIGNATURE_ERROR")).toBeGreaterThan(200);
    // Nothing was consumed: each base, untouched, is still accepted with its own nonce.
    for (const base of bases) expect(w.send("createOrder", base)).toMatchObject({ ok: true });
  });

  it("cancelOrder: any one signed field changed, or one signature byte flipped", () => {
    const w = new World();
    const ctx = context(w);
    const orderId = w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990", clientOrderId: "5" });
    const otherOrderId = w.rest(w.bob, { isBuy: true, qty: "0.01", limitPx: "1985" });
    const bases: Body[] = [w.cancel(w.alice, { symbol: ETH, orderId }), w.cancel(w.alice, { symbol: ETH, clientOrderId: "5" })];
    const message = (body: Body) => signedContent(() => cancelMessage(body as never, marketRef(String(body["symbol"]))));
    const validate = (body: unknown) => validateCancelOrder(body, ctx);
    const tally = new Tally();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bases.length - 1 }), cancelTampers(otherOrderId), (index, tamper) => {
        const base = bases[index]!;
        tally.add(tamper.field, checkTampered(w, "cancelOrder", base, apply(base, tamper), validate, message));
      }),
      { seed: 42, numRuns: 200 },
    );
    expect([...tally.signatureFailures].sort()).toEqual(["accountId", "clientOrderId", "deadline", "nonce", "orderId", "signature#byte", "symbol"].sort());
    expect(tally.codes.get("UNAUTHORIZED_SIGNATURE_ERROR")).toBeGreaterThan(100);
    expect(w.send("cancelOrder", bases[0])).toMatchObject({ ok: true, payload: { status: "CANCELLED", orderId } });
  });
});

describe("Tampered modifyOrder, cancelAll and cancelAllAfter requests are signature failures too", () => {
  it("rejects each with one signed field changed, and then accepts the untouched originals", () => {
    const w = new World();
    const orderId = w.rest(w.alice, { isBuy: true, qty: "0.02", limitPx: "1990", clientOrderId: "8" });
    const modify = w.modify(w.alice, { orderId, clientOrderId: "8", symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1991", postOnly: false, timeInForce: "GTC" });
    const cancelAll = w.cancelAll(w.alice, { symbol: ETH });
    const cancelAllAfter = w.cancelAllAfter(w.alice, { timeoutMs: 5_000 });
    const cases: [op: "modifyOrder" | "cancelAll" | "cancelAllAfter", base: Body, field: string, value: unknown][] = [
      ["modifyOrder", modify, "limitPx", "1992"],
      ["modifyOrder", modify, "qty", "0.015"],
      ["modifyOrder", modify, "postOnly", true],
      ["modifyOrder", modify, "clientOrderId", "9"],
      ["modifyOrder", modify, "deadline", modify.deadline + 1],
      ["modifyOrder", modify, "nonce", "999999999"],
      ["cancelAll", cancelAll, "symbol", BTC],
      ["cancelAll", cancelAll, "accountId", 3],
      ["cancelAll", cancelAll, "deadline", cancelAll.deadline - 1],
      ["cancelAll", cancelAll, "nonce", "999999999"],
      ["cancelAllAfter", cancelAllAfter, "timeoutMs", 6_000],
      ["cancelAllAfter", cancelAllAfter, "accountId", 3],
      ["cancelAllAfter", cancelAllAfter, "signerWallet", w.bob.address],
      ["cancelAllAfter", cancelAllAfter, "nonce", "999999999"],
    ];
    for (const [op, base, field, value] of cases) {
      w.expectRejected(op, { ...base, [field]: value }, "UNAUTHORIZED_SIGNATURE_ERROR");
    }
    // The clientOrderId tamper names another client id: the signature is checked before the engine's
    // immutable-field rule, so it is not INPUT_VALIDATION_ERROR. A modify's orderId, though, is NOT
    // signed: the Order message (spec 5.5, reference/signing.md) has no orderId member, only the restated
    // order. A changed orderId is a lookup key like any other: here it names no order.
    w.expectRejected("modifyOrder", { ...modify, orderId: "63552420354981999" }, "ORDER_NOT_FOUND_ERROR", ["order 63552420354981999"]);
    for (const [op, base] of [["modifyOrder", modify], ["cancelAll", cancelAll], ["cancelAllAfter", cancelAllAfter]] as const) {
      expect(w.send(op, base)).toMatchObject({ ok: true });
    }
  });
});
