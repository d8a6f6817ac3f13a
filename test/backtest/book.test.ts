/**
 * The replayed book follows the recording: applying a recording frame by
 * frame gives, at every frame, the levels rebuilt from the last snapshot
 * plus the updates since (a plain Map model), and the strategy's view of
 * it is the same book as the frames reach it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReplayBook } from "../../src/backtest/book.ts";
import { memoryRecording, type MemoryRow } from "../../src/backtest/recording.ts";
import { riskAverseQueue } from "../../src/backtest/queue.ts";
import { runReplay } from "../../src/backtest/replay.ts";
import { defineReplayStrategy } from "../../src/backtest/strategy.ts";
import { decodeRecording, ROW_ASK, ROW_BID, ROW_CLEAR, ROW_FRAME_END, ROW_TYPE_MASK } from "../../src/backtest/tape.ts";
import { constantLatency, GRID, snapshot, trades, update } from "./helpers.ts";

type Level = [number, number];
type Frame = { snapshot: boolean; bids: Level[]; asks: Level[]; trade: boolean };

const level = fc.tuple(fc.integer({ min: 90, max: 110 }), fc.integer({ min: 0, max: 6 })) as fc.Arbitrary<Level>;
const frame: fc.Arbitrary<Frame> = fc.record({
  snapshot: fc.constant(false),
  bids: fc.array(level, { maxLength: 6 }),
  asks: fc.array(level, { maxLength: 6 }),
  trade: fc.boolean(),
});
// Snapshots are rarer than updates (about 1 in 8), and list only levels with quantity.
const frames = fc.array(fc.tuple(frame, fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 40 }).map((list) =>
  list.map(([f, dice], index) => {
    const isSnapshot = index === 0 || dice === 0;
    const dedupe = (levels: Level[]) => [...new Map(levels.map(([px, qty]) => [px, isSnapshot ? Math.max(qty, 1) : qty])).entries()] as Level[];
    return { ...f, snapshot: isSnapshot, bids: dedupe(f.bids), asks: dedupe(f.asks) };
  }),
);

function rowsOf(list: Frame[]): MemoryRow[] {
  const rows: MemoryRow[] = [];
  list.forEach((f, index) => {
    const time = 1_000 * (index + 1);
    rows.push(index === 0 ? snapshot(time, f.bids, f.asks) : update(time, f.bids, f.asks, f.snapshot ? "SNAPSHOT" : "UPDATE"));
    if (f.trade) rows.push(trades(time + 400, [{ side: "B", price: 100, qty: 1, matchMs: index + 1 }]));
  });
  return rows;
}

/** The reference: the last snapshot plus every update since, as sorted level lists. */
function reference(list: Frame[], through: number): { bids: Level[]; asks: Level[] } {
  let start = through;
  while (!list[start]!.snapshot) start--;
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (let i = start; i <= through; i++) {
    for (const [px, qty] of list[i]!.bids) if (qty === 0) bids.delete(px); else bids.set(px, qty);
    for (const [px, qty] of list[i]!.asks) if (qty === 0) asks.delete(px); else asks.set(px, qty);
  }
  return {
    bids: [...bids.entries()].sort((a, b) => b[0] - a[0]),
    asks: [...asks.entries()].sort((a, b) => a[0] - b[0]),
  };
}

describe("replayed book", () => {
  it("equals the last snapshot plus the updates since, at every frame", () => {
    fc.assert(
      fc.property(frames, (list) => {
        const tape = decodeRecording(memoryRecording(rowsOf(list)), { grids: [GRID] }).tapes[0]!;
        const book = new ReplayBook(tape.symbol, tape.minTicks, tape.maxTicks);
        let frameIndex = 0;
        for (let row = 0; row < tape.length; row++) {
          const kind = tape.kind[row]!;
          const type = kind & ROW_TYPE_MASK;
          if (type === ROW_CLEAR) book.clear();
          else if (type === ROW_BID) book.setBid(tape.priceTicks[row]!, tape.qtyLots[row]!);
          else if (type === ROW_ASK) book.setAsk(tape.priceTicks[row]!, tape.qtyLots[row]!);
          if ((kind & ROW_FRAME_END) === 0) continue;
          while (list[frameIndex]!.bids.length + list[frameIndex]!.asks.length === 0 && !list[frameIndex]!.snapshot) frameIndex++;
          const expected = reference(list, frameIndex);
          expect(book.levels(true)).toEqual(expected.bids);
          expect(book.levels(false)).toEqual(expected.asks);
          expect(Number.isNaN(book.bestBidTicks) ? null : book.bestBidTicks).toBe(expected.bids[0]?.[0] ?? null);
          expect(Number.isNaN(book.bestAskTicks) ? null : book.bestAskTicks).toBe(expected.asks[0]?.[0] ?? null);
          expect(book.bidLevels).toBe(expected.bids.length);
          expect(book.askLevels).toBe(expected.asks.length);
          // The depth window's edge: the worst level held (windowEdge, as settleWindow asks for it once per side).
          for (const windowLevels of [1, 3]) {
            for (let ticks = 88; ticks <= 112; ticks++) {
              // Beyond: the side holds the window's levels and the price is worse than every one of them.
              const bidBeyond = expected.bids.length >= windowLevels && ticks < expected.bids.at(-1)![0];
              const askBeyond = expected.asks.length >= windowLevels && ticks > expected.asks.at(-1)![0];
              expect([book.beyondWindow(true, ticks, windowLevels), book.beyondWindow(false, ticks, windowLevels)]).toEqual([bidBeyond, askBeyond]);
              const edges = [book.windowEdge(true, windowLevels), book.windowEdge(false, windowLevels)];
              expect([book.beyondEdge(true, ticks, edges[0]!), book.beyondEdge(false, ticks, edges[1]!)]).toEqual([bidBeyond, askBeyond]);
            }
          }
          frameIndex++;
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it("is what the strategy sees, frame by frame, in a replay", () => {
    fc.assert(
      fc.property(frames, (list) => {
        const seen: { bids: Level[]; asks: Level[] }[] = [];
        const watcher = defineReplayStrategy({
          name: "watcher",
          defaults: {},
          init: () => ({}),
          onDepth(_ctx, _state, view) {
            seen.push({ bids: view.levels("B", 1_000), asks: view.levels("A", 1_000) });
          },
        });
        const decoded = decodeRecording(memoryRecording(rowsOf(list)), { grids: [GRID] });
        runReplay(decoded, { seed: 1, queue: riskAverseQueue, strategy: watcher, latency: constantLatency(100, 100, 250) });
        const expected = list.flatMap((f, index) => (f.snapshot || f.bids.length + f.asks.length > 0 ? [reference(list, index)] : []));
        expect(seen).toEqual(expected);
      }),
      { seed: 42, numRuns: 100 },
    );
  });

  it("keeps the best prices through removals and refuses a span it cannot hold", () => {
    const book = new ReplayBook("X", 100, 120);
    book.setBid(105, 2);
    book.setBid(110, 1);
    book.setAsk(115, 3);
    book.setAsk(112, 1);
    expect([book.bestBidTicks, book.bestAskTicks]).toEqual([110, 112]);
    book.setBid(110, 0);
    book.setAsk(112, 0);
    expect([book.bestBidTicks, book.bestAskTicks, book.midTicks]).toEqual([105, 115, 110]);
    book.setBid(105, 0);
    expect(book.bestBidTicks).toBeNaN();
    expect(() => new ReplayBook("X", 0, 1 << 25)).toThrow(/spans 33554433 ticks/);
  });

  it("shows a level less what own takers consumed, until the level empties or a snapshot", () => {
    const book = new ReplayBook("X", 100, 120);
    book.setAsk(110, 5);
    book.consume(false, 110, 3);
    expect(book.qtyAt(false, 110)).toBe(2);
    book.setAsk(110, 4); // recorded 4, 3 of them taken: 1 shown
    expect(book.qtyAt(false, 110)).toBe(1);
    book.setAsk(110, 0); // the level empties: the offset goes with it
    book.setAsk(110, 4);
    expect(book.qtyAt(false, 110)).toBe(4);
    book.consume(false, 110, 4);
    expect([book.qtyAt(false, 110), book.bestAskTicks]).toEqual([0, NaN]);
    book.clear();
    book.setAsk(110, 4);
    expect(book.qtyAt(false, 110)).toBe(4);
  });
});
