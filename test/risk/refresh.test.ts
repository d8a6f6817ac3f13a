/**
 * The running margin sums against a reference written here from the
 * formulas of margin.ts's header (not through refreshPosition), after every
 * step of seeded random streams of resting orders, pending matches,
 * settlements, busts and price moves. The risk layer skips work that cannot
 * change a sum (a refresh of the funding alone when a new rate comes at the
 * same mark, contributions compared before they are moved, the funding terms
 * derived once per re-anchoring): a skip that left a stale contribution
 * shows here as a sum that differs from the reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ACCOUNT_SUM_KEYS } from "../../src/risk/audit.ts";
import { E18, abs, divRound, max } from "../../src/risk/fixed.ts";
import type { RiskEngine } from "../../src/risk/risk.ts";
import type { AccountState, PerpMarketState } from "../../src/risk/state.ts";
import type { BookView, Match, Side } from "../../src/risk/types.ts";
import { BTC_PERP, ETH_PERP, SECOND, T0, venue } from "./fixtures.ts";

type Sums = Record<(typeof ACCOUNT_SUM_KEYS)[number], bigint>;

function ceilRate(value: bigint, rate: bigint): bigint {
  return divRound(value * rate, E18, "ceil");
}

/** The nine sums of an account recomputed from its positions with the formulas as margin.ts's header states them. */
function referenceSums(account: AccountState): Sums {
  const sums: Sums = { upnl: 0n, upnlS: 0n, im: 0n, imS: 0n, lm: 0n, lmS: 0n, imOrders: 0n, f0: 0n, f1: 0n };
  for (const position of account.positions.values()) {
    const market = position.market;
    const { imRate, lmRate } = market.config;
    const mark = market.mark;
    const value = (q: bigint, k: bigint) => (mark === undefined ? { upnl: 0n, notional: abs(k) } : { upnl: q * mark - k, notional: abs(q) * mark });
    const qEff = position.q + position.pq;
    const settled = value(position.q, position.k);
    const effective = value(qEff, position.k + position.pk);
    sums.upnlS += settled.upnl;
    sums.imS += ceilRate(settled.notional, imRate);
    sums.lmS += ceilRate(settled.notional, lmRate);
    sums.upnl += effective.upnl;
    sums.im += ceilRate(effective.notional, imRate);
    sums.lm += ceilRate(effective.notional, lmRate);
    const resting = position.restBuy !== 0n || position.restSell !== 0n;
    sums.imOrders +=
      resting && mark !== undefined ? ceilRate(max(abs(qEff + position.restBuy), abs(qEff - position.restSell)) * mark, imRate) : ceilRate(effective.notional, imRate);
    const { longAnchor, shortAnchor, slope, anchorMicros } = market.funding;
    const anchor = BigInt(anchorMicros);
    if (position.q > 0n) {
      sums.f0 += position.q * (longAnchor + slope * anchor) - position.b;
      sums.f1 += -position.q * slope;
    } else if (position.q < 0n) {
      const units = -position.q;
      sums.f0 += units * (shortAnchor - slope * anchor) - position.b;
      sums.f1 += units * slope;
    } else {
      sums.f0 += -position.b;
    }
  }
  return sums;
}

function expectSumsCurrent(risk: RiskEngine, context: string): void {
  for (const account of risk.state.accounts.values()) {
    const reference = referenceSums(account);
    for (const key of ACCOUNT_SUM_KEYS) expect(account[key], `${key} of account ${account.id} ${context}`).toBe(reference[key]);
  }
}

function perp(risk: RiskEngine, marketId: number): PerpMarketState {
  return risk.state.perps.get(marketId)!;
}

/** A book around `centerTicks`: one level each side, `bidOffset` / `askOffset` ticks away, deep enough for the impact notional. */
function book(centerTicks: number, bidOffset: number, askOffset: number, lots: number): BookView {
  return { bids: [{ priceTicks: centerTicks - bidOffset, qtyLots: lots }], asks: [{ priceTicks: centerTicks + askOffset, qtyLots: lots }] };
}

describe("a new funding rate at the same mark", () => {
  it("moves the funding sums alone, and they match the reference", () => {
    const risk = venue({ accounts: 3 });
    for (const id of [1, 2, 3]) risk.deposit(id, "RUSD", "1000000", T0);
    // Impact below the index first (smoothed premium -2990), then far above: the oracle is the median.
    risk.setIndexPrice("BTC", "49990", T0);
    risk.setBook(BTC_PERP, book(470_000, 10, 10, 5_000), T0);
    risk.setOraclePrice(BTC_PERP, "50000", T0);
    risk.setBook(BTC_PERP, book(530_000, 10, 10, 5_000), T0);
    const market = perp(risk, BTC_PERP);
    expect(market.mark).toBe(50_000n * E18);
    const fill: Match = { fillId: "1", marketId: BTC_PERP, takerAccountId: 1, makerAccountId: 2, makerOrderId: "none", takerSide: "B", priceTicks: 500_000, qtyLots: 2_000 };
    risk.addPending(fill);
    risk.releasePending("1");
    risk.applyPerpExecution({ type: "ORDER_MATCH", ...fill, sequenceNumber: 1 }, T0);
    risk.restOrder({ orderId: "r1", accountId: 3, marketId: BTC_PERP, side: "B", qtyLots: 700, priceTicks: 495_000 });
    risk.addPending({ fillId: "2", marketId: BTC_PERP, takerAccountId: 3, makerAccountId: 1, makerOrderId: "none", takerSide: "A", priceTicks: 500_000, qtyLots: 300 });
    expectSumsCurrent(risk, "before the index moves");
    const rate = market.funding.rate;
    const before = risk.state.accounts.get(1)!;
    const { upnl, im, lm, imOrders, f0, f1 } = before;
    // The index moves, the mark (the oracle, the median) does not: the rate does.
    const update = risk.setIndexPrice("BTC", "49995", T0 + 10 * SECOND);
    expect(update.markChanges).toEqual([]);
    expect(market.mark).toBe(50_000n * E18);
    expect(market.funding.rate).not.toBe(rate);
    expect([before.upnl, before.im, before.lm, before.imOrders]).toEqual([upnl, im, lm, imOrders]);
    expect([before.f0, before.f1]).not.toEqual([f0, f1]);
    expectSumsCurrent(risk, "after a new rate at the same mark");
    // Then the mark moves: every contribution moves with it.
    risk.setOraclePrice(BTC_PERP, "50500", T0 + 20 * SECOND);
    expect(market.mark).toBe(50_500n * E18);
    expect(before.upnl).not.toBe(upnl);
    expectSumsCurrent(risk, "after the mark moved");
  });
});

describe("a fill of a maker's whole resting order", () => {
  it("drops the maker's emptied record and makes a new one after the taker's, as two separate revaluations would", () => {
    // addPending reduces the maker's resting order without revaluing the maker (its movePending does), except when
    // the reduction leaves the record empty: that record is dropped at once, so iteration orders stay as they were.
    const risk = venue({ accounts: 3 });
    for (const id of [1, 2, 3]) risk.deposit(id, "RUSD", "1000000", T0);
    risk.setIndexPrice("BTC", "50000", T0);
    risk.setOraclePrice(BTC_PERP, "50000", T0);
    risk.restOrder({ orderId: "r2", accountId: 2, marketId: BTC_PERP, side: "A", qtyLots: 300, priceTicks: 500_000 });
    risk.restOrder({ orderId: "r3", accountId: 3, marketId: BTC_PERP, side: "B", qtyLots: 100, priceTicks: 490_000 });
    const market = perp(risk, BTC_PERP);
    const before = market.holders.get(2)!;
    expect([...market.holders.keys()]).toEqual([2, 3]);
    risk.addPending({ fillId: "1", marketId: BTC_PERP, takerAccountId: 1, makerAccountId: 2, makerOrderId: "r2", takerSide: "B", priceTicks: 500_000, qtyLots: 300 });
    expect([...market.holders.keys()]).toEqual([3, 1, 2]);
    expect(market.holders.get(2)).not.toBe(before);
    expectSumsCurrent(risk, "after the fill");
    // A partial fill keeps the record where it is.
    risk.restOrder({ orderId: "r3b", accountId: 3, marketId: BTC_PERP, side: "A", qtyLots: 200, priceTicks: 500_000 });
    const kept = market.holders.get(3)!;
    risk.addPending({ fillId: "2", marketId: BTC_PERP, takerAccountId: 1, makerAccountId: 3, makerOrderId: "r3b", takerSide: "B", priceTicks: 500_000, qtyLots: 50 });
    expect([...market.holders.keys()]).toEqual([3, 1, 2]);
    expect(market.holders.get(3)).toBe(kept);
    expectSumsCurrent(risk, "after the partial fill");
  });
});

describe("derived funding terms", () => {
  it("follow every re-anchoring and a socialized loss", async () => {
    const { lowerFundingValue, reanchorFunding } = await import("../../src/risk/funding.ts");
    const risk = venue({ accounts: 2 });
    const funding = perp(risk, ETH_PERP).funding;
    const expectDerived = () => {
      const anchorSlope = funding.slope * BigInt(funding.anchorMicros);
      expect(funding.longBase).toBe(funding.longAnchor + anchorSlope);
      expect(funding.shortBase).toBe(anchorSlope - funding.shortAnchor);
      expect(funding.negSlope).toBe(-funding.slope);
    };
    expectDerived();
    reanchorFunding(funding, T0, 10n ** 15n, 3_000n * E18);
    expectDerived();
    reanchorFunding(funding, T0 + 7 * SECOND, -(10n ** 14n), 2_900n * E18);
    expectDerived();
    lowerFundingValue(funding, true, 12_345n);
    expectDerived();
    lowerFundingValue(funding, false, 678n);
    expectDerived();
  });
});

type Step =
  | { kind: "rest"; accountId: number; marketId: number; side: Side; lots: number; offsetBp: number }
  | { kind: "cancel"; pick: number }
  | { kind: "pend"; marketId: number; taker: number; maker: number; side: Side; lots: number; offsetBp: number; fromResting: boolean }
  | { kind: "settle"; bust: boolean }
  | { kind: "index"; marketId: number; bp: number; seconds: number }
  | { kind: "oracle"; marketId: number; bp: number; seconds: number }
  | { kind: "book"; marketId: number; centerBp: number; empty: boolean; seconds: number };

const ACCOUNTS = 4;
const accountId = fc.integer({ min: 1, max: ACCOUNTS });
const marketId = fc.constantFrom(BTC_PERP, ETH_PERP);
const side = fc.constantFrom<Side>("B", "A");
const seconds = fc.integer({ min: 0, max: 20 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("rest" as const), accountId, marketId, side, lots: fc.integer({ min: 1, max: 400 }), offsetBp: fc.integer({ min: -200, max: 200 }) }),
  fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("pend" as const),
    marketId,
    taker: accountId,
    maker: accountId,
    side,
    lots: fc.integer({ min: 1, max: 400 }),
    offsetBp: fc.integer({ min: -200, max: 200 }),
    fromResting: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("settle" as const), bust: fc.boolean() }),
  fc.record({ kind: fc.constant("index" as const), marketId, bp: fc.integer({ min: -300, max: 300 }), seconds }),
  fc.record({ kind: fc.constant("oracle" as const), marketId, bp: fc.integer({ min: -300, max: 300 }), seconds }),
  fc.record({ kind: fc.constant("book" as const), marketId, centerBp: fc.integer({ min: -600, max: 600 }), empty: fc.boolean(), seconds }),
);

const DIGITS = new Map([
  [BTC_PERP, 1],
  [ETH_PERP, 2],
]);
const INDEX_ASSET = new Map([
  [BTC_PERP, "BTC"],
  [ETH_PERP, "ETH"],
]);

function priceText(ticks: number, marketId: number): string {
  const digits = DIGITS.get(marketId)!;
  const scale = 10 ** digits;
  return `${Math.floor(ticks / scale)}.${String(ticks % scale).padStart(digits, "0")}`;
}

/**
 * What a step leaves that a later one can see besides the sums: the order of
 * each market's holders and of each account's positions (iteration order),
 * the liquidation candidates, and what an applied execution returned.
 */
function snapshot(risk: RiskEngine, applied: unknown): string {
  const holders = [...risk.state.perps.values()].map((market) => [...market.holders.keys()]);
  const positions = [...risk.state.accounts.values()].map((account) => [...account.positions.keys()]);
  const sums = [...risk.state.accounts.values()].map((account) => ACCOUNT_SUM_KEYS.map((key) => String(account[key])));
  return JSON.stringify({ holders, positions, sums, candidates: [...risk.state.candidates], applied }, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
}

/**
 * Plays a stream, comparing every account's sums with the reference after
 * each step; counts the same-mark rate changes, and returns a snapshot per
 * step. A settled match goes through settlePerpExecution (the exchange's
 * path) or, with `fused` false, releasePending then applyPerpExecution.
 */
function play(steps: readonly Step[], fused = true): { sameMarkRateChanges: number; trace: string[] } {
  const risk = venue({ accounts: ACCOUNTS });
  for (let id = 1; id <= ACCOUNTS; id++) risk.deposit(id, "RUSD", "10000000", T0);
  let now = T0;
  const index = new Map([
    [BTC_PERP, 500_000],
    [ETH_PERP, 300_000],
  ]);
  const oracle = new Map(index);
  for (const [id, ticks] of index) {
    risk.setIndexPrice(INDEX_ASSET.get(id)!, priceText(ticks, id), now);
    risk.setOraclePrice(id, priceText(ticks, id), now);
  }
  const resting: { orderId: string; accountId: number; marketId: number; side: Side }[] = [];
  const pending: Match[] = [];
  let counter = 0;
  let sequence = 0;
  let sameMarkRateChanges = 0;
  const trace: string[] = [];
  expectSumsCurrent(risk, "at the start");
  for (const [n, s] of steps.entries()) {
    let applied: unknown;
    const marks = [...risk.state.perps.values()].map((market) => [market.mark, market.funding.rate] as const);
    switch (s.kind) {
      case "rest": {
        counter += 1;
        const priceTicks = Math.max(1, Math.round(oracle.get(s.marketId)! * (1 + s.offsetBp / 10_000)));
        risk.restOrder({ orderId: `o${counter}`, accountId: s.accountId, marketId: s.marketId, side: s.side, qtyLots: s.lots, priceTicks });
        resting.push({ orderId: `o${counter}`, accountId: s.accountId, marketId: s.marketId, side: s.side });
        break;
      }
      case "cancel": {
        if (resting.length === 0) break;
        const [order] = resting.splice(s.pick % resting.length, 1);
        risk.removeRestingOrder(order!.orderId);
        break;
      }
      case "pend": {
        if (s.taker === s.maker) break;
        counter += 1;
        const makerSide: Side = s.side === "B" ? "A" : "B";
        // The maker's resting order on that side, when there is one and it holds enough: the fill reduces it.
        const order = s.fromResting ? resting.find((o) => o.accountId === s.maker && o.marketId === s.marketId && o.side === makerSide) : undefined;
        const rest = order === undefined ? undefined : risk.restingOrder(order.orderId);
        const lots = rest === undefined ? s.lots : Math.min(s.lots, rest.qtyLots);
        if (rest !== undefined && lots === rest.qtyLots) resting.splice(resting.indexOf(order!), 1);
        const priceTicks = Math.max(1, Math.round(oracle.get(s.marketId)! * (1 + s.offsetBp / 10_000)));
        const m: Match = {
          fillId: String(counter),
          marketId: s.marketId,
          takerAccountId: s.taker,
          makerAccountId: s.maker,
          makerOrderId: rest === undefined ? "none" : order!.orderId,
          takerSide: s.side,
          priceTicks,
          qtyLots: lots,
        };
        risk.addPending(m);
        pending.push(m);
        break;
      }
      case "settle": {
        const m = pending.shift();
        if (m === undefined) break;
        const input = { type: "ORDER_MATCH", ...m, sequenceNumber: ++sequence } as const;
        if (s.bust) {
          risk.releasePending(m.fillId);
        } else if (fused) {
          applied = risk.settlePerpExecution(input, now);
        } else {
          risk.releasePending(m.fillId);
          applied = risk.applyPerpExecution(input, now);
        }
        break;
      }
      case "index":
      case "oracle": {
        now += s.seconds * SECOND;
        const prices = s.kind === "index" ? index : oracle;
        const ticks = Math.max(10, Math.round(prices.get(s.marketId)! * (1 + s.bp / 10_000)));
        prices.set(s.marketId, ticks);
        // Both feeds stay fresh: the other one is published again at the same value.
        risk.setIndexPrice(INDEX_ASSET.get(s.marketId)!, priceText(index.get(s.marketId)!, s.marketId), now);
        risk.setOraclePrice(s.marketId, priceText(oracle.get(s.marketId)!, s.marketId), now);
        break;
      }
      case "book": {
        now += s.seconds * SECOND;
        const center = Math.max(100, Math.round(oracle.get(s.marketId)! * (1 + s.centerBp / 10_000)));
        risk.setBook(s.marketId, s.empty ? { bids: [], asks: [] } : book(center, 5, 5, s.marketId === BTC_PERP ? 5_000 : 50_000), now);
        break;
      }
    }
    for (const [i, market] of [...risk.state.perps.values()].entries()) {
      if (market.mark === marks[i]![0] && market.funding.rate !== marks[i]![1]) sameMarkRateChanges += 1;
    }
    expectSumsCurrent(risk, `after step ${n} (${s.kind})`);
    trace.push(snapshot(risk, applied));
  }
  return { sameMarkRateChanges, trace };
}

describe("running margin sums over random streams", () => {
  it("equal the reference after every step", () => {
    let sameMarkRateChanges = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 80 }), (steps) => {
        sameMarkRateChanges += play(steps).sameMarkRateChanges;
      }),
      { seed: 42, numRuns: 150 },
    );
    // The streams reach the funding-only refresh (a new rate at the same mark).
    expect(sameMarkRateChanges).toBeGreaterThan(0);
  });

  it("are the same, with the same records, holders and positions in the same order, whether a match settles in one call or two", () => {
    // settlePerpExecution revalues each side once (its release leaves the effective contributions to the execution's
    // refresh) but must drop and re-create an emptied position as releasePending does, or iteration orders would differ.
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 80 }), (steps) => {
        expect(play(steps, true).trace).toEqual(play(steps, false).trace);
      }),
      { seed: 42, numRuns: 150 },
    );
  });
});
