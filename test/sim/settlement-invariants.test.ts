/**
 * What the fuzz invariants (src/sim/invariants.ts) catch of broken
 * settlement (found by the s25 settlement review).
 */
import { describe, expect, it } from "vitest";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { book, type BookingContext } from "../../src/risk/collateral.ts";
import type { LedgerEntry } from "../../src/risk/types.ts";
import { ExchangeInvariants } from "../../src/sim/invariants.ts";
import { checkHolds } from "../../src/sim/risk-invariants.ts";
import { World } from "../exchange/world.ts";

/**
 * What the fuzz invariants (src/sim/invariants.ts) catch of broken settlement.
 * Each case breaks the state as a settlement bug would, after the outputs
 * that bug would give, and expects the next state check to fail. (Mutations
 * tried by hand, fuzz default seeds 1..4, 60 s: a bust that applies the trade,
 * one that keeps the pending exposure counted, and settling at match time are
 * caught; the three first cases below were not, before the checks of the
 * chain's queue and block times, of the holds, and of the entries booked in
 * a block.)
 */
describe("review s25: the invariants catch broken settlement", () => {
  const settledPair = () => {
    const w = new World();
    const invariants = new ExchangeInvariants(w.exchange);
    const maker = w.account(0xd1, "100000");
    const taker = w.account(0xd2, "100000");
    w.prices("3000");
    w.order(maker, false, "3000", "1");
    expect(w.order(taker, true, "3000", "1", "IOC").status).toBe("FILLED");
    return { w, invariants, maker, taker };
  };
  /** The same match made while blocks are delayed for `delayMs` (so that it is still pending when checked), state checks every `everyBlocks`. */
  const settledPairPending = (delayMs = 0, everyBlocks = 1) => {
    const w = new World();
    const invariants = new ExchangeInvariants(w.exchange, { everyBlocks });
    const maker = w.account(0xd1, "100000");
    const taker = w.account(0xd2, "100000");
    w.prices("3000");
    if (delayMs > 0) expect(w.handle({ kind: "fault", fault: { fault: "delayBlocks", durationMs: delayMs } } as ExchangeInput).ok).toBe(true);
    w.order(maker, false, "3000", "1");
    expect(w.order(taker, true, "3000", "1", "IOC").status).toBe("FILLED");
    expect(w.exchange.risk.state.pending.size).toBe(1);
    return { w, invariants, maker, taker };
  };

  it("a match the chain lost (never settled nor busted, its blocks long past) fails a state check", () => {
    const { w } = settledPair();
    // The chain drops the match: it stays pending in the desk and the risk layer for ever.
    (w.exchange.chain as unknown as { pending: unknown[] }).pending.length = 0;
    expect(() => {
      for (let i = 0; i < 6; i++) {
        w.advance(10_000_000);
        w.prices("3000");
      }
    }).toThrow(/neither settled nor busted|block/);
  });

  it("a fee reserve, balance hold or spot margin hold left behind once no match is pending fails a state check", () => {
    const corruptions: ((w: World, taker: number) => void)[] = [
      (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.pendingFees += 10n ** 36n),
      (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.balances.get("rUSD")!.pendingOut += 10n ** 18n),
      (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.pendingSpotLoss += 10n ** 36n),
    ];
    const caught = corruptions.map((corrupt) => {
      const { w, invariants, taker } = settledPair();
      w.advance(1_000_000);
      expect(w.exchange.risk.state.pending.size).toBe(0);
      invariants.checkState();
      corrupt(w, taker);
      try {
        invariants.checkState();
        return false;
      } catch {
        return true;
      }
    });
    expect(caught).toEqual([true, true, true]);
  });

  it("a bust that keeps a fee from the taker through a booked, published ledger entry fails the bust check", () => {
    const { w, taker } = settledPair();
    const exchange = w.exchange as unknown as { bookLedger(entries: readonly unknown[]): void; publishBust(record: unknown, match: unknown): void };
    const publishBust = exchange.publishBust.bind(w.exchange);
    // The planted bug: before the bust is published, 1 rUSD moves from the taker to the pool, booked and published.
    exchange.publishBust = (record, match) => {
      const kept = w.exchange.risk.transfer(taker, w.exchange.config.risk.poolAccountId, "rUSD", "1", w.exchange.now());
      if (!kept.ok) throw new Error("the planted transfer was refused");
      exchange.bookLedger(kept.ledger);
      publishBust(record, match);
    };
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } } as ExchangeInput).ok).toBe(true);
    expect(() => w.advance(1_000_000)).toThrow(/bust of fill/);
  });
  it("a match the chain keeps past its latency, or skips at its block, fails a state check", () => {
    type Entry = { match: unknown; eligibleAt: number };
    const chainOf = (w: World) => w.exchange.chain as unknown as { pending: Entry[]; produceBlock(): void; handler: { afterBlock(block: unknown): void } };
    // Eligible later than the latency allows (0..0 by default): the latency rule.
    {
      const { w, invariants } = settledPairPending(1_000);
      const entry = chainOf(w).pending[0]!;
      chainOf(w).pending[0] = { ...entry, eligibleAt: entry.eligibleAt + 1 };
      expect(() => invariants.checkState()).toThrow(/becomes eligible at \d+: a match becomes eligible after a settlement latency in \[0, 0\]/);
    }
    // A chain whose blocks leave an eligible match in the queue: the block deadline (interval + jitter, outside a delay).
    {
      const { w } = settledPairPending();
      const chain = chainOf(w);
      const produceBlock = chain.produceBlock.bind(chain);
      const afterBlock = chain.handler.afterBlock.bind(chain.handler);
      // The planted bug: each block sets the queue aside while it settles, and puts it back before its block output.
      let kept: Entry[] = [];
      chain.produceBlock = () => {
        kept = chain.pending;
        chain.pending = [];
        produceBlock();
      };
      chain.handler.afterBlock = (block) => {
        chain.pending.unshift(...kept);
        kept = [];
        afterBlock(block);
      };
      expect(() => w.advance(1_000_000)).toThrow(/is neither settled nor busted at \d+, after the block of \d+: a block settles or busts every match eligible by its time/);
    }
    // The same, checked on request between blocks (no block time to compare with): a block interval after it became eligible.
    {
      const { w, invariants } = settledPairPending(0, 1_000_000);
      const chain = chainOf(w);
      const produceBlock = chain.produceBlock.bind(chain);
      chain.produceBlock = () => {
        const kept = chain.pending;
        chain.pending = [];
        produceBlock();
        chain.pending.unshift(...kept);
      };
      w.advance(100_000);
      expect(() => invariants.checkState()).not.toThrow();
      w.advance(100_000);
      expect(() => invariants.checkState()).toThrow(/is neither settled nor busted at \d+: the first block after it became eligible \(within 100000 us/);
    }
    // Through a block delay, the same match waits without a false alarm, and settles at the delay's end.
    {
      const { w, invariants } = settledPairPending(5_000);
      w.advance(4_900_000);
      invariants.checkState();
      expect(invariants.stats.chainMatchesChecked).toBeGreaterThan(0);
      expect(w.exchange.risk.state.pending.size).toBe(1);
      w.advance(200_000);
      expect(w.exchange.risk.state.pending.size).toBe(0);
      invariants.checkState();
    }
  });

  it("a chain that stops making blocks fails at the next summary tick", () => {
    const { w } = settledPair();
    const chain = w.exchange.chain as unknown as { scheduleBlock(at: number): void };
    chain.scheduleBlock = () => {};
    expect(() => w.advance(5_000_000)).toThrow(/no block since \d+/);
  });

  it("a hold that does not match the pending matches and resting orders fails a state check, while a match is pending too", () => {
    const corruptions: [string, (w: World, taker: number, maker: number) => void][] = [
      ["pq", (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.positions.values().next().value!.pq += 1n)],
      ["pk", (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.positions.values().next().value!.pk -= 1n)],
      ["pendingFees", (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.pendingFees -= 1n)],
      ["restBuy", (w, _taker, maker) => (w.exchange.risk.state.accounts.get(maker)!.positions.values().next().value!.restBuy += 1n)],
      ["reserved", (w, taker) => (w.exchange.risk.state.accounts.get(taker)!.balances.get("rUSD")!.reserved += 1n)],
    ];
    for (const [what, corrupt] of corruptions) {
      const { w, invariants, taker, maker } = settledPairPending(10_000);
      w.order(maker, true, "2900", "1"); // a resting buy of the maker
      invariants.checkState();
      corrupt(w, taker, maker);
      // checkHolds itself: a state check may stop first at the running margin sums, which pq, pk and restBuy feed.
      expect(() => checkHolds(w.exchange.risk.state), what).toThrow(new RegExp(`holds (rUSD )?${what}`));
      expect(() => invariants.checkState(), what).toThrow();
    }
  });

  it("a bust that books a fee entry naming its own fill fails at that entry", () => {
    const { w, taker } = settledPair();
    const exchange = w.exchange as unknown as { bookLedger(entries: readonly unknown[]): void; publishBust(record: { fillId: string }, match: unknown): void };
    const publishBust = exchange.publishBust.bind(w.exchange);
    exchange.publishBust = (record, match) => {
      const state = w.exchange.risk.state;
      const ledger: LedgerEntry[] = [];
      const context: BookingContext = { state, ledger, atMicros: w.exchange.now(), fillId: record.fillId };
      book(context, state.accounts.get(taker)!, state.settlement, "PERP_FEE", -(10n ** 36n));
      book(context, state.accounts.get(w.exchange.config.risk.poolAccountId)!, state.settlement, "PERP_REBATE", 10n ** 36n, state.accounts.get(taker)!);
      exchange.bookLedger(ledger);
      publishBust(record, match);
    };
    expect(w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } } as ExchangeInput).ok).toBe(true);
    expect(() => w.advance(1_000_000)).toThrow(/transfer entry \d+ \(PERP_FEE -1 rUSD, account \d+\) names fill \d+, which has not settled/);
  });

  it("an entry booked in a block by none of its executions fails, though the match settles", () => {
    const { w, taker } = settledPair();
    const exchange = w.exchange as unknown as { bookLedger(entries: readonly unknown[]): void; publishPerpExecution(applied: unknown, match: unknown): void };
    const publishPerpExecution = exchange.publishPerpExecution.bind(w.exchange);
    exchange.publishPerpExecution = (applied, match) => {
      const kept = w.exchange.risk.transfer(taker, w.exchange.config.risk.poolAccountId, "rUSD", "1", w.exchange.now());
      if (!kept.ok) throw new Error("the planted transfer was refused");
      exchange.bookLedger(kept.ledger);
      publishPerpExecution(applied, match);
    };
    expect(() => w.advance(1_000_000)).toThrow(/transfer entry \d+ \(TRANSFER_OUT -1 rUSD, account \d+\) was booked while block \d+ settled its matches, and names none of them/);
  });

  it("a transfer between blocks, and the entries of settled matches, pass", () => {
    const { w, invariants, taker, maker } = settledPair();
    w.advance(1_000_000);
    const transfer = w.exchange.risk.transfer(taker, maker, "rUSD", "1", w.exchange.now());
    expect(transfer.ok).toBe(true);
    (w.exchange as unknown as { bookLedger(entries: readonly unknown[]): void }).bookLedger(transfer.ok ? transfer.ledger : []);
    w.order(maker, false, "3000", "1");
    w.order(taker, true, "3000", "1", "IOC");
    w.advance(1_000_000);
    invariants.checkState();
    expect(invariants.stats.fillEntriesChecked).toBeGreaterThan(0);
  });
});

