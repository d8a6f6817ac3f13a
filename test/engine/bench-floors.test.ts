/**
 * The engine benchmark's floors (test/bench/lib) against each other and
 * against the engine: on the same seeded streams, the bare object book (with
 * fresh and with reused order objects), the typed-array book (with no
 * object per order, pooled objects, fresh objects) and the records book
 * (the engine's bookkeeping on typed records, with and without an object
 * per order) end with the same resting quantity and make the same number
 * of fills as the engine does; the records book also answers every
 * command as the engine does (a cancel of an order no longer live is
 * refused) and emits as many order rows. A floor that matched differently would make
 * the benchmark's ceilings meaningless.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { runBareBook, type BareStream } from "../bench/lib/bare-book.ts";
import { RecordsBook, type RecordsStream } from "../bench/lib/records-book.ts";
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

/** Operations with prices `minOffset`..`maxOffset` ticks from 1,000. */
const opArb = (minOffset: number, maxOffset: number): fc.Arbitrary<Op> =>
  fc.record({
    cancel: fc.boolean(),
    isBuy: fc.boolean(),
    offset: fc.integer({ min: minOffset, max: maxOffset }),
    lots: fc.integer({ min: 1, max: 6 }),
    target: fc.nat({ max: 10_000 }),
  });

function streamOf(ops: readonly Op[]): RecordsStream {
  const count = ops.length;
  const cancelIds: string[] = [];
  const stream = {
    firstOrderId: FIRST_ORDER_ID,
    cancelIds,
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
      cancelIds.push((FIRST_ORDER_ID + BigInt(op.target % orders)).toString());
      return;
    }
    stream.isBuy[i] = op.isBuy ? 1 : 0;
    stream.priceTicks[i] = 1_000 + op.offset;
    stream.qtyLots[i] = op.lots;
    stream.orderIndex[i] = orders++;
  });
  return stream;
}

interface Outcome {
  readonly restingLots: number;
  readonly fills: number;
  /** Per operation: accepted (true) or refused. */
  readonly accepted: boolean[];
  readonly rows: number;
}

/** The stream through the engine (each order its own account): resting lots, fills, answers and rows. */
function runEngine(stream: BareStream): Outcome {
  let fills = 0;
  let rows = 0;
  const accepted: boolean[] = [];
  const engine = new Engine({ markets: [MARKET], sink: { fill: () => void fills++, orderUpdate: () => void rows++ }, config: { firstOrderId: FIRST_ORDER_ID } });
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
      accepted.push(result.ok);
    } else {
      // A target that has filled or was cancelled already is refused; the floors skip it alike.
      accepted.push(engine.cancelOrder({ atMicros: 0, marketId: 1, accountId: index + 1, orderId: (FIRST_ORDER_ID + BigInt(index)).toString() }).ok);
    }
  }
  return { restingLots: engine.market(1)!.book.restingLots(), fills, accepted, rows };
}

/** The stream through the records book, driven as the engine is. */
function runRecordsBook(stream: RecordsStream, objects: "none" | "pooled"): Outcome {
  let fills = 0;
  let rows = 0;
  const accepted: boolean[] = [];
  const book = new RecordsBook({ fill: () => void fills++, row: () => void rows++, depthChanged: () => {} }, 1, stream.firstOrderId, stream.ops, objects);
  let cancels = 0;
  for (let op = 0; op < stream.ops; op++) {
    const index = stream.orderIndex[op]!;
    const answer =
      stream.kinds[op] === 0
        ? book.createOrder({ atMicros: 0, marketId: 1, exchangeId: 1, accountId: index + 1, ownerId: index + 1, isBuy: stream.isBuy[op] === 1, orderType: "LIMIT", timeInForce: "GTC", priceTicks: stream.priceTicks[op]!, qtyLots: stream.qtyLots[op]! })
        : book.cancelOrder({ atMicros: 0, marketId: 1, accountId: index + 1, orderId: stream.cancelIds[cancels++]! });
    accepted.push(typeof answer !== "string");
  }
  return { restingLots: book.restingLots(), fills, accepted, rows };
}

describe("the engine benchmark's floors", () => {
  it("match as the engine does: same resting lots, same fills, in every layout", () => {
    fc.assert(
      fc.property(fc.array(opArb(-8, 8), { minLength: 1, maxLength: 300 }), (ops) => {
        const stream = streamOf(ops);
        const engine = runEngine(stream);
        const expected = { restingLots: engine.restingLots, fills: engine.fills };
        for (const objects of ["fresh", "pooled"] as const) {
          const bare = runBareBook(stream, objects);
          expect({ restingLots: bare.restingLots, fills: bare.fills }).toEqual(expected);
        }
        for (const objects of ["none", "pooled", "fresh"] as const) {
          const typed = runTypedBareBook(stream, stream.ops, objects);
          expect({ restingLots: typed.restingLots, fills: typed.fills }).toEqual(expected);
        }
        for (const objects of ["none", "pooled"] as const) expect(runRecordsBook(stream, objects)).toEqual(engine);
      }),
      { seed: 20261122, numRuns: 200 },
    );
  });

  it("records book: prices far apart move its window of levels, and it still answers as the engine does", () => {
    fc.assert(
      fc.property(fc.array(opArb(-900, 20_000), { minLength: 1, maxLength: 200 }), (ops) => {
        const stream = streamOf(ops);
        const engine = runEngine(stream);
        for (const objects of ["none", "pooled"] as const) expect(runRecordsBook(stream, objects)).toEqual(engine);
      }),
      { seed: 20261127, numRuns: 200 },
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
