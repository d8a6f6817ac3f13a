import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesLast, matchesRemembered, parsePlainBody } from "../../../src/exchange/gateway/validate/plain-body.ts";
import { CancelAllAfterRequest, CancelAllRequest, CancelOrderRequest, CreateOrderRequest, ModifyOrderRequest } from "../../../src/spec/requests.ts";
import { cancelAll, cancelAllAfter, cancelOrder, createGtc, createIoc, createSpot, createStop, modifyLimit, modifyStop, SIGNATURE, WALLET } from "./fixtures.ts";

const SCHEMAS = [
  { name: "createOrder", schema: CreateOrderRequest, bodies: [createGtc, createIoc, createSpot, createStop] },
  { name: "modifyOrder", schema: ModifyOrderRequest, bodies: [modifyLimit, modifyStop] },
  { name: "cancelOrder", schema: CancelOrderRequest, bodies: [cancelOrder] },
  { name: "cancelAll", schema: CancelAllRequest, bodies: [cancelAll] },
  { name: "cancelAllAfter", schema: CancelAllAfterRequest, bodies: [cancelAllAfter] },
] as const;

/** Member values near the edges of every field kind, valid and not. */
const memberValue = fc.oneof(
  fc.constantFrom(0, -0, 1, 42, -1, 1.5, 2 ** 53 - 1, 2 ** 53, Number.NaN, Infinity, true, false, null, undefined, [], {}, 7n),
  fc.constantFrom("", "0", "1.5", "1e5", "-1", "abc", "LIMIT", "GTT", "IOC", "STOP_LOSS", "limit", "18446744073709551615", "18446744073709551616"),
  fc.constantFrom(SIGNATURE, WALLET, WALLET.slice(0, -1), `${SIGNATURE}0`, "0".repeat(78), "1".repeat(79), "00018446744073709551615"),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 2 ** 31 }),
);
const memberKey = fc.oneof(
  fc.constantFrom("exchangeId", "symbol", "accountId", "isBuy", "limitPx", "qty", "orderType", "timeInForce", "triggerPx", "reduceOnly", "postOnly"),
  fc.constantFrom("signature", "nonce", "signerWallet", "deadline", "expiresAfter", "clientOrderId", "orderId", "timeoutMs", "extra", "__proto__", "toString"),
);
const edit = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key: memberKey, value: memberValue }),
  fc.record({ op: fc.constant("delete" as const), key: memberKey }),
);

/** Applies edits as JSON.parse would build the object (an own "__proto__" member included). */
function edited(body: object, edits: readonly { op: "set" | "delete"; key: string; value?: unknown }[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const change of edits) {
    if (change.op === "delete") delete out[change.key];
    else Object.defineProperty(out, change.key, { value: change.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

describe("parsePlainBody accepts only what the schema accepts, and builds the same object", () => {
  for (const { name, schema, bodies } of SCHEMAS) {
    it(`${name}: every realistic body takes the fast path`, () => {
      for (const body of bodies) {
        const plain = parsePlainBody(schema, body);
        expect(plain).toBeDefined();
        expect(Object.keys(plain!)).toEqual(Object.keys(schema.parse(body)));
        expect(plain).toEqual(schema.parse(body));
      }
    });

    it(`${name}: on edited bodies it agrees with zod or steps aside`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...bodies), fc.array(edit, { maxLength: 4 }), (body, edits) => {
          const input = edited(body, edits);
          const plain = parsePlainBody(schema, input);
          if (plain === undefined) return;
          const reference = schema.safeParse(input);
          expect(reference.success).toBe(true);
          expect(Object.keys(plain)).toEqual(Object.keys(reference.data!));
          expect(plain).toStrictEqual(reference.data);
        }),
        { seed: 42, numRuns: 3000 },
      );
    });
  }

  it("builds the same object whether the members come in schema order (the copy) or not (member by member)", () => {
    for (const { schema, bodies } of SCHEMAS) {
      for (const body of bodies) {
        const inOrder = parsePlainBody(schema, body);
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        const shuffled = parsePlainBody(schema, { ...reversed, extra: 1 });
        expect(inOrder).toBeDefined();
        expect(Object.keys(inOrder!)).toEqual(Object.keys(schema.parse(body)));
        expect(shuffled).toStrictEqual(schema.parse({ ...reversed, extra: 1 }));
        expect(shuffled).toStrictEqual({ ...inOrder, extra: 1 });
      }
    }
  });

  it("leaves a symbol-keyed member out, and keeps a non-enumerable schema member, as zod does", () => {
    const tag = Symbol("tag");
    const withSymbol = { ...createGtc, [tag]: "x" };
    const plain = parsePlainBody(CreateOrderRequest, withSymbol);
    expect(plain).toBeDefined();
    expect(Object.getOwnPropertySymbols(plain!)).toEqual([]);
    expect(plain).toStrictEqual(CreateOrderRequest.parse(createGtc));

    const hidden: Record<string, unknown> = { ...createGtc };
    Object.defineProperty(hidden, "symbol", { value: createGtc.symbol, enumerable: false, writable: true, configurable: true });
    const fromHidden = parsePlainBody(CreateOrderRequest, hidden);
    expect(fromHidden).toBeDefined();
    expect(fromHidden!.symbol).toBe(createGtc.symbol);
    expect(fromHidden).toStrictEqual(CreateOrderRequest.parse(hidden));
  });

  it("steps aside for what is not a plain object", () => {
    for (const body of [null, undefined, 1, "x", [createGtc], new Map(), Object.create(null)]) expect(parsePlainBody(CreateOrderRequest, body)).toBeUndefined();
  });
});

describe("remembered pattern checks (addresses, signatures)", () => {
  const HEX4 = /^0x[0-9a-f]{4}$/;

  it("matchesRemembered answers as the pattern does, before and after remembering, through a full set starting over", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom("0xabcd", "0x0000", "0xABCD", "0xabc", "0xabcde", "abcd", ""), fc.string({ maxLength: 6 }), fc.constant(12)), { maxLength: 60 }), (values) => {
        const check = matchesRemembered(HEX4, 3);
        for (const value of values) expect(check(value)).toBe(typeof value === "string" && HEX4.test(value));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("matchesRemembered skips the pattern for a text it remembers, and tests again once its set started over", () => {
    let tests = 0;
    const counting = { test: (text: string) => (tests++, HEX4.test(text)) } as unknown as RegExp;
    const check = matchesRemembered(counting, 2);
    expect([check("0xaaaa"), check("0xaaaa"), check("0xbbbb"), check("0xaaaa")]).toEqual([true, true, true, true]);
    expect(tests).toBe(2);
    expect(check("0xcccc")).toBe(true); // the set was full: it starts over with this one
    expect(check("0xaaaa")).toBe(true);
    expect(tests).toBe(4);
    expect(check("0xaaa")).toBe(false);
    expect(check("0xaaa")).toBe(false); // a refusal is not remembered
    expect(tests).toBe(6);
  });

  it("matchesLast accepts the last matched text without the pattern, and refuses whatever differs from it that the pattern refuses", () => {
    let tests = 0;
    const counting = { test: (text: string) => (tests++, HEX4.test(text)) } as unknown as RegExp;
    const check = matchesLast(counting);
    expect([check("0x1234"), check("0x1234"), check(`0x${"1234".slice(0, 4)}`)]).toEqual([true, true, true]);
    expect(tests).toBe(1);
    expect(check("0x12345")).toBe(false);
    expect(check("0x123")).toBe(false);
    expect(check(1234)).toBe(false);
    expect(check("0x1234")).toBe(true); // still the last match
    expect(check("0x5678")).toBe(true);
    expect(check("0x1234")).toBe(true); // no longer the last: tested again
    expect(tests).toBe(5);
  });

  it("a request whose signature or signer differs from the remembered ones by one character goes to zod", () => {
    const good = createGtc as Record<string, unknown>;
    expect(parsePlainBody(CreateOrderRequest, good)).toBeDefined();
    expect(parsePlainBody(CreateOrderRequest, { ...good, signature: `${SIGNATURE.slice(0, -1)}g` })).toBeUndefined();
    expect(parsePlainBody(CreateOrderRequest, { ...good, signerWallet: `${WALLET.slice(0, -1)}g` })).toBeUndefined();
    expect(parsePlainBody(CreateOrderRequest, good)).toBeDefined();
  });
});

