/**
 * The engine benchmark's floors (test/bench/lib) against each other and
 * against the engine: on the same seeded streams, the bare object book (with
 * fresh and with reused order objects) and the typed-array book (with no
 * object per order, pooled objects, fresh objects) end with the same resting quantity and make the same number of
 * fills as the engine does. A floor that matched differently would make
 * the benchmark's ceilings meaningless.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { runBareBook, type BareStream } from "../bench/lib/bare-book.ts";
import { runTypedBareBook } from "../bench/lib/typed-bare-book.ts";

const MARKET = { marketId: 1, symbol: "BTCPERP", kind: "perp" as const, tickSize: "0.1", qtyStepSize: "0.001", minOrderQty: "0.001" };
const FIRST_ORDER_ID = 1_000n;

interface Op {
  readonly cancel: boolean;
  readonly isBuy: boolean;
  readonly offset: number;
  readonly lots: number;
  /** For a cancel: which earlier order (modulo the orders so far). */
  readonly target: number;
}

const opArb = fc.record({
  cancel: fc.boolean(),
  isBuy: fc.boolean(),
  offset: fc.integer({ min: -8, max: 8 }),
  lots: fc.integer({ min: 1, max: 6 }),
  target: fc.nat({ max: 10_000 }),
});

function streamOf(ops: readonly Op[]): BareStream {
  const count = ops.length;
  const stream = {
    ops: count,
    kinds: new Uint8Array(count),
    isBuy: new Uint8Array(count),
    priceTicks: new Int32Array(count),
    qtyLots: new Int32Array(count),
    orderIndex: new Int32Array(count),
  };
  let orders = 0;
  ops.forEach((op, i) => {
    if (op.cancel && orders > 0) {
      stream.kinds[i] = 1;
      stream.orderIndex[i] = op.target % orders;
      return;
    }
    stream.isBuy[i] = op.isBuy ? 1 : 0;
    stream.priceTicks[i] = 1_000 + op.offset;
    stream.qtyLots[i] = op.lots;
    stream.orderIndex[i] = orders++;
  });
  return stream;
}

/** The stream through the engine (each order its own account): resting lots and fills. */
function runEngine(stream: BareStream): { restingLots: number; fills: number } {
  let fills = 0;
  const engine = new Engine({ markets: [MARKET], sink: { fill: () => void fills++ }, config: { firstOrderId: FIRST_ORDER_ID } });
  for (let op = 0; op < stream.ops; op++) {
    const index = stream.orderIndex[op]!;
    if (stream.kinds[op] === 0) {
      const result = engine.createOrder({
        atMicros: 0,
        marketId: 1,
        exchangeId: 1,
        accountId: index + 1,
        ownerId: index + 1,
        isBuy: stream.isBuy[op] === 1,
        orderType: "LIMIT",
        timeInForce: "GTC",
        priceTicks: stream.priceTicks[op]!,
        qtyLots: stream.qtyLots[op]!,
      });
      expect(result.ok).toBe(true);
    } else {
      // A target that has filled or was cancelled already is refused; the floors skip it alike.
      engine.cancelOrder({ atMicros: 0, marketId: 1, accountId: index + 1, orderId: (FIRST_ORDER_ID + BigInt(index)).toString() });
    }
  }
  return { restingLots: engine.market(1)!.book.restingLots(), fills };
}

describe("the engine benchmark's floors", () => {
  it("match as the engine does: same resting lots, same fills, in every layout", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 300 }), (ops) => {
        const stream = streamOf(ops);
        const expected = runEngine(stream);
        for (const objects of ["fresh", "pooled"] as const) {
          const bare = runBareBook(stream, objects);
          expect({ restingLots: bare.restingLots, fills: bare.fills }).toEqual(expected);
        }
        for (const objects of ["none", "pooled", "fresh"] as const) {
          const typed = runTypedBareBook(stream, stream.ops, objects);
          expect({ restingLots: typed.restingLots, fills: typed.fills }).toEqual(expected);
        }
      }),
      { seed: 20261122, numRuns: 200 },
    );
  });

  it("refuses more resting orders than its slab holds", () => {
    const stream = streamOf([
      { cancel: false, isBuy: true, offset: -1, lots: 1, target: 0 },
      { cancel: false, isBuy: true, offset: -2, lots: 1, target: 0 },
    ]);
    expect(() => runTypedBareBook(stream, 1)).toThrow(/more than 1 orders rest at once/);
  });
});
