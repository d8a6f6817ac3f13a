/**
 * The settlement desk: what happens to a match between the engine making it
 * and the chain settling or busting it.
 *
 * Each fill the engine keeps is counted as pending exposure in the risk
 * layer (so admission sees it: the optimistic view) and queued on the chain.
 * At its block the chain asks the desk to validate it against settled state
 * at block time, in this order: the market's settlement not paused
 * (MarketPaused), both orders' signatures still valid (SignatureExpired: a
 * signature past its deadline is stale), then the risk layer's settled-state
 * checks (AccountBelowIM, InsufficientBalance, ...). A valid match becomes
 * exactly one PerpExecution or SpotExecution; an invalid one exactly one
 * ExecutionBust, and nothing of the trade happens. Either way the pending
 * exposure is released. The engine's order states are never restored
 * (spec 3.4: FILLED stays FILLED).
 *
 * Record fields (spec 2.14): takerOrderId is omitted when the taker was
 * filled and removed in the matching round that made the fill; makerOrderId
 * when this fill completed the maker.
 */
import { assert } from "../core/assert.ts";
import { SequenceCounter } from "../core/ids.ts";
import { microsToMillis, MICROS_PER_SECOND, type Micros } from "../core/time.ts";
import type { Fill } from "../engine/types.ts";
import type { Market } from "../engine/market.ts";
import type { RiskEngine } from "../risk/risk.ts";
import type { AppliedPerpExecution, AppliedSpotExecution, LedgerEntry, PerpExecutionRecord, SpotExecutionRecord } from "../risk/types.ts";
import type { Mutable } from "../core/mutable.ts";
import type { BustReason, SettlementHandler, BlockInfo } from "../settlement/chain.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";

/** A match waiting for its block, with what the chain checks besides risk. */
export interface PendingMatch {
  readonly fill: Fill;
  readonly market: Market;
  /** Unix seconds: the signature deadlines of the two orders when they matched. */
  readonly takerDeadlineSec: number;
  readonly makerDeadlineSec: number;
  /** Set once the taker's matching round ended with the taker FILLED. */
  takerRemovedInRound: boolean;
}

/** What the desk reports to the exchange for publishing and bookkeeping. */
export interface SettlementEvents {
  perpExecution(applied: AppliedPerpExecution, match: PendingMatch | undefined): void;
  spotExecution(applied: AppliedSpotExecution, match: PendingMatch): void;
  bust(record: ExecutionBust, match: PendingMatch): void;
  afterBlock(block: BlockInfo): void;
}

export class SettlementDesk implements SettlementHandler<PendingMatch> {
  readonly spotSequence = new SequenceCounter();
  readonly bustSequence = new SequenceCounter();
  /** Pending matches by fill id, so order updates can mark their taker's round. */
  private readonly pendingByFillId = new Map<string, PendingMatch>();

  constructor(
    private readonly risk: RiskEngine,
    private readonly nextPerpSequenceNumber: () => number,
    private readonly exchangeId: number,
    private readonly events: SettlementEvents,
  ) {}

  /** Counts a fresh fill as pending exposure; the caller queues it on the chain. */
  admit(match: PendingMatch): void {
    this.risk.addPending(match.fill);
    this.pendingByFillId.set(match.fill.fillId, match);
  }

  /** The taker of the fills [firstFillId, +fillCount) ended its round FILLED: their executions omit takerOrderId. */
  markTakerRemoved(firstFillId: string, fillCount: number): void {
    let id = BigInt(firstFillId);
    for (let i = 0; i < fillCount; i++, id++) {
      const match = this.pendingByFillId.get(id.toString());
      if (match !== undefined) match.takerRemovedInRound = true;
    }
  }

  /** Is this fill still waiting for its block? */
  isPending(fillId: string): boolean {
    return this.pendingByFillId.has(fillId);
  }

  validate(match: PendingMatch, blockTime: Micros): BustReason | undefined {
    const { fill, market } = match;
    if (market.settlementPaused) return { reasonName: "MarketPaused", marketId: market.marketId };
    if (match.takerDeadlineSec * MICROS_PER_SECOND < blockTime) {
      return { reasonName: "SignatureExpired", accountId: fill.takerAccountId, deadline: match.takerDeadlineSec };
    }
    if (match.makerDeadlineSec * MICROS_PER_SECOND < blockTime) {
      return { reasonName: "SignatureExpired", accountId: fill.makerAccountId, deadline: match.makerDeadlineSec };
    }
    return this.risk.validateMatch(fill, blockTime) ?? undefined;
  }

  settle(match: PendingMatch, blockTime: Micros): void {
    const { fill, market } = match;
    const perp = market.kind === "perp";
    // A perp match is released by the risk layer's settlePerpExecution, with its execution (one revaluation per side).
    if (perp) this.forget(fill.fillId);
    else this.release(fill.fillId);
    const input = {
      type: "ORDER_MATCH" as const,
      marketId: fill.marketId,
      takerAccountId: fill.takerAccountId,
      makerAccountId: fill.makerAccountId,
      takerSide: fill.takerSide,
      priceTicks: fill.priceTicks,
      qtyLots: fill.qtyLots,
      fillId: fill.fillId,
      sequenceNumber: perp ? this.nextPerpSequenceNumber() : this.spotSequence.next(),
    };
    if (perp) {
      this.events.perpExecution(this.risk.settlePerpExecution(input, blockTime), match);
    } else {
      this.events.spotExecution(this.risk.applySpotExecution(input, blockTime), match);
    }
  }

  bust(match: PendingMatch, reason: BustReason, blockTime: Micros): void {
    const { fill, market } = match;
    this.release(fill.fillId);
    const record: ExecutionBust = {
      symbol: market.symbol,
      takerAccountId: fill.takerAccountId,
      exchangeId: this.exchangeId,
      makerAccountId: fill.makerAccountId,
      takerOrderId: fill.takerOrderId,
      makerOrderId: fill.makerOrderId,
      qty: market.units.formatQty(fill.qtyLots),
      side: fill.takerSide,
      price: market.units.formatPrice(fill.priceTicks),
      reason: reason as ExecutionBust["reason"],
      timestamp: microsToMillis(blockTime),
      sequenceNumber: this.bustSequence.next(),
      fillId: fill.fillId,
    };
    this.events.bust(record, match);
  }

  afterBlock(block: BlockInfo): void {
    this.events.afterBlock(block);
  }

  /** The reason an injected bust of `reasonName` gives this match (injectedBustReason, with the asset its taker pays with). */
  injectedBustReason(reasonName: string, match: PendingMatch): BustReason {
    return injectedBustReason(reasonName, match, this.paidAsset(match));
  }

  /** The asset the match's taker pays with: the settlement asset on a perp; on a spot market the quote when it buys, the base when it sells. */
  private paidAsset(match: PendingMatch): string {
    const state = this.risk.state;
    const spot = state.spots.get(match.fill.marketId);
    if (spot === undefined) return state.config.settlementAsset;
    return match.fill.takerSide === "B" ? spot.quote.config.symbol : spot.base.config.symbol;
  }

  private release(fillId: string): void {
    this.forget(fillId);
    this.risk.releasePending(fillId);
  }

  private forget(fillId: string): void {
    const known = this.pendingByFillId.delete(fillId);
    if (!known) assert(false, `fill ${fillId} settled or busted twice`);
  }
}

/**
 * The spec's PerpExecution: the risk layer's economic fields plus the order
 * ids the engine knows (appended, as a spread of the record then two stores
 * would put them).
 *
 * Copied member by member with named stores, in the order of
 * PerpExecutionRecord, which is the order the risk layer adds them in (spec
 * 2.14): neither a spread (V8 on Node 20 adds members to a spread clone on a
 * slow path, ~3 us) nor Object.assign, which copies by keyed stores and, past
 * ~20 members, leaves a dictionary-mode object (~1-2.5 us to build, and slow
 * to read and serialize downstream); named stores keep the record a fast
 * object (~0.2 us). PERP_RECORD_KEYS does not compile when the record type
 * gains a member, and test/exchange/settlement-desk.test.ts holds this copy
 * to the list and to the source's key order.
 */
export function perpExecutionRecord(applied: AppliedPerpExecution, match: PendingMatch | undefined): PerpExecution {
  const source = applied.record;
  const record = { exchangeId: source.exchangeId, symbol: source.symbol, takerAccountId: source.takerAccountId } as Mutable<PerpExecution>;
  if (source.makerAccountId !== undefined) record.makerAccountId = source.makerAccountId;
  record.qty = source.qty;
  record.side = source.side;
  record.price = source.price;
  record.takerFee = source.takerFee;
  if (source.protocolFeeCredit !== undefined) record.protocolFeeCredit = source.protocolFeeCredit;
  if (source.referrerFeeCredit !== undefined) record.referrerFeeCredit = source.referrerFeeCredit;
  if (source.takerRebateCredit !== undefined) record.takerRebateCredit = source.takerRebateCredit;
  if (source.poolFeeCredit !== undefined) record.poolFeeCredit = source.poolFeeCredit;
  if (source.takerOpeningFee !== undefined) record.takerOpeningFee = source.takerOpeningFee;
  record.type = source.type;
  record.timestamp = source.timestamp;
  record.sequenceNumber = source.sequenceNumber;
  record.fillId = source.fillId;
  if (source.takerRealizedPnl !== undefined) record.takerRealizedPnl = source.takerRealizedPnl;
  if (source.makerRealizedPnl !== undefined) record.makerRealizedPnl = source.makerRealizedPnl;
  if (source.takerPriceVariationPnl !== undefined) record.takerPriceVariationPnl = source.takerPriceVariationPnl;
  if (source.makerPriceVariationPnl !== undefined) record.makerPriceVariationPnl = source.makerPriceVariationPnl;
  if (source.takerFundingPnl !== undefined) record.takerFundingPnl = source.takerFundingPnl;
  if (source.makerFundingPnl !== undefined) record.makerFundingPnl = source.makerFundingPnl;
  if (match !== undefined) {
    if (!match.takerRemovedInRound) record.takerOrderId = match.fill.takerOrderId;
    if (!match.fill.makerFilled) record.makerOrderId = match.fill.makerOrderId;
  }
  return record;
}

/** The spec's SpotExecution: copied member by member in the order of SpotExecutionRecord, as perpExecutionRecord is. */
export function spotExecutionRecord(applied: AppliedSpotExecution, match: PendingMatch): SpotExecution {
  const source = applied.record;
  const record: Mutable<SpotExecution> = {
    exchangeId: source.exchangeId,
    symbol: source.symbol,
    takerAccountId: source.takerAccountId,
    makerAccountId: source.makerAccountId,
    qty: source.qty,
    side: source.side,
    price: source.price,
    takerFee: source.takerFee,
    type: source.type,
    timestamp: source.timestamp,
    sequenceNumber: source.sequenceNumber,
    fillId: source.fillId,
  };
  if (!match.takerRemovedInRound) record.takerOrderId = match.fill.takerOrderId;
  if (!match.fill.makerFilled) record.makerOrderId = match.fill.makerOrderId;
  return record;
}

/**
 * Every member of the risk layer's records, in the order the copies above
 * write them. `satisfies` and the two checks below fail to compile when a
 * record type gains (or loses) a member, so that the copies cannot silently
 * drop one; the tests hold the copies to these lists.
 */
export const PERP_RECORD_KEYS = [
  "exchangeId",
  "symbol",
  "takerAccountId",
  "makerAccountId",
  "qty",
  "side",
  "price",
  "takerFee",
  "protocolFeeCredit",
  "referrerFeeCredit",
  "takerRebateCredit",
  "poolFeeCredit",
  "takerOpeningFee",
  "type",
  "timestamp",
  "sequenceNumber",
  "fillId",
  "takerRealizedPnl",
  "makerRealizedPnl",
  "takerPriceVariationPnl",
  "makerPriceVariationPnl",
  "takerFundingPnl",
  "makerFundingPnl",
] as const satisfies readonly (keyof PerpExecutionRecord)[];

export const SPOT_RECORD_KEYS = [
  "exchangeId",
  "symbol",
  "takerAccountId",
  "makerAccountId",
  "qty",
  "side",
  "price",
  "takerFee",
  "type",
  "timestamp",
  "sequenceNumber",
  "fillId",
] as const satisfies readonly (keyof SpotExecutionRecord)[];

/** `true` when every member of T is in Listed; a type error otherwise. */
type AllListed<T, Listed> = Exclude<keyof T, Listed> extends never ? true : never;
const perpKeysComplete: AllListed<PerpExecutionRecord, (typeof PERP_RECORD_KEYS)[number]> = true;
const spotKeysComplete: AllListed<SpotExecutionRecord, (typeof SPOT_RECORD_KEYS)[number]> = true;
void perpKeysComplete;
void spotKeysComplete;

export type { LedgerEntry };

/**
 * The reason an injected bust (the bustNext fault) gives a match: a known
 * contract error gets its typed fields from the match (the figures of a
 * fault are zero: nothing was actually short; InsufficientBalance names
 * `paidAsset`, the asset the taker pays with, SettlementDesk.paidAsset),
 * DecodedReason and UnknownReason a message, any other name the unmodeled
 * {reasonName, args}.
 */
export function injectedBustReason(reasonName: string, match: PendingMatch, paidAsset: string): BustReason {
  const { fill, market } = match;
  switch (reasonName) {
    case "AccountBelowIM":
      return { reasonName, accountId: fill.takerAccountId, delta: "0", shortfall: "0" };
    case "InsufficientBalance":
      return { reasonName, accountId: fill.takerAccountId, asset: paidAsset, required: "0", available: "0" };
    case "SignatureExpired":
      return { reasonName, accountId: fill.takerAccountId, deadline: match.takerDeadlineSec };
    case "MarketPaused":
      return { reasonName, marketId: market.marketId };
    case "DecodedReason":
    case "UnknownReason":
      return { reasonName, message: "injected settlement failure" };
    default:
      return { reasonName, args: {} };
  }
}
