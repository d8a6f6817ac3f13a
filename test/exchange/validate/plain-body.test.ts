import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePlainBody } from "../../../src/exchange/gateway/validate/plain-body.ts";
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
