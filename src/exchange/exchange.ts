/**
 * The Exchange: one deterministic state machine that joins the matching
 * engine, the risk layer, the chain and the gateway.
 *
 * One entry point, `handle(input, atMicros)`, takes every input (an
 * order-entry request, an oracle tick, an admin action, a fault) with its
 * virtual time; time must not go backwards. Before an input at time t, every
 * internal timer due at or before t fires (GTT expiry, cancelAllAfter,
 * blocks, summaries), in time order: so the same inputs at the same times
 * give the same outputs whatever drives the Exchange (the simulator, the
 * live servers, a replay). A driver with no input due calls `advanceTo` at
 * `nextTimerAt()` to let timers fire.
 *
 * Outputs go to subscribers in order (see outputs.ts); read models serve
 * the REST reads.
 */
import { assert } from "../core/assert.ts";
import { formatE18, parseUnsigned, toE18 } from "../core/decimal.ts";
import { IdGenerator, SequenceCounter } from "../core/ids.ts";
import { RngRoot, type Seed } from "../core/rng.ts";
import { ShardedMap } from "../core/sharded-map.ts";
import { MICROS_PER_MILLI, microsToMillis, type Micros } from "../core/time.ts";
import { Engine } from "../engine/engine.ts";
import type { OrderUpdate } from "../engine/events.ts";
import { OrderHistory } from "../engine/history.ts";
import { ManualScheduler } from "../engine/timers.ts";
import type { Fill, MarketSpec } from "../engine/types.ts";
import { depthMessage, orderEventRow } from "../engine/wire.ts";
import type { LiquidationOutcome } from "../risk/liquidation.ts";
import { RiskEngine, type FeedPrice } from "../risk/risk.ts";
import type { AppliedPerpExecution, AppliedSpotExecution, LedgerEntry, PositionView } from "../risk/types.ts";
import { Chain, type BlockInfo } from "../settlement/chain.ts";
import { Ledger } from "../settlement/ledger.ts";
import type { AccountBalance, Position, Transfer } from "../spec/account.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";
import type { ExchangeConfig } from "./config.ts";
import { FaultWindows } from "./faults.ts";
import { OrderGateway, type GatewayAnswer } from "./gateway/order-gateway.ts";
import type { MarketRef, ValidationContext } from "./gateway/validate/types.ts";
import { quote } from "./gateway/validate/errors.ts";
import type { AdminAction, ExchangeInput, FaultAction, PriceInput } from "./inputs.ts";
import type { ExchangeOutput, OutputListener } from "./outputs.ts";
import { OwnerIds } from "./owners.ts";
import { RecordIndex } from "./read-models.ts";
import { perpExecutionRecord, SettlementDesk, spotExecutionRecord, type PendingMatch } from "./settlement-desk.ts";
import { walletSettingsProblem } from "./wallet-settings.ts";

export interface ExchangeOptions {
  config: ExchangeConfig;
  startMicros: Micros;
  seed: Seed;
}

/** The answer to one input: a request's response (or error), an admin action's result. */
export type ExchangeAnswer =
  | { ok: true; payload: Record<string, unknown>; responseDropped?: boolean }
  | { ok: false; error: { error: string; message: string; retryAfterMs?: number }; responseDropped?: boolean };

/**
 * Liquidation, ADL and market-close executions are not engine matches: they
 * take fill ids from their own range, far above the engine's, so the two
 * never collide and the engine's fill ids stay gap-free.
 */
export const RISK_FILL_ID_START = 9_000_000_000_000_000_000n;

/**
 * The largest price an admin or feed price input may set, in ticks of each
 * perp market it feeds: 2^50, far above any real price (ETH at 0.01 would
 * be 1.1e13 USD) and below 2^53 with room for a mark above its inputs (a
 * mean of index plus premium and the oracle).
 */
const PRICE_TICKS_MAX = 2n ** 50n;

export class Exchange {
  readonly timers: ManualScheduler;
  readonly rng: RngRoot;
  readonly config: ExchangeConfig;
  readonly owners = new OwnerIds();
  readonly faults = new FaultWindows();
  readonly risk: RiskEngine;
  readonly engine: Engine;
  readonly chain: Chain<PendingMatch>;
  readonly ledger = new Ledger();
  readonly desk: SettlementDesk;
  readonly gateway: OrderGateway;
  readonly history: OrderHistory;
  readonly perpExecutions: RecordIndex<PerpExecution>;
  readonly spotExecutions: RecordIndex<SpotExecution>;
  readonly busts: RecordIndex<ExecutionBust>;
  readonly marketsBySymbol = new Map<string, MarketRef>();
  /** What the gateway's structure stage reads (the exchangeId and the markets): also for drivers that validate ahead (live/early-confirm.ts). */
  readonly validationContext: ValidationContext;
  private readonly listeners: OutputListener[] = [];
  private readonly liquidationListeners: ((outcome: LiquidationOutcome) => void)[] = [];
  private readonly perpSequence = new SequenceCounter();
  private readonly riskFillIds = new IdGenerator(RISK_FILL_ID_START);
  /** Signature deadline (Unix s) each resting order was last signed with. */
  private readonly orderDeadlines = new ShardedMap<number>();
  /** The signature deadline of the order command the engine runs now, the taker of its fills (GatewayDeps.commandDeadline). */
  private commandDeadlineSec: number | undefined;
  /** What the risk layer counts of each resting order: kept equal to the book. */
  private readonly restingMirror = new ShardedMap<{ priceTicks: number; remainingLots: number }>();
  private readonly nextAccountId: { value: number };
  /**
   * The markets whose depth changed since the last flush, each once, in the
   * first `depthDirtyCount` slots. Not a Set: a Set's clear() allocates a
   * new table, in old space for an old Set, once per flush (once per
   * request in the live server).
   */
  private depthDirty: number[] = [];
  private depthDirtyCount = 0;
  /** Accounts credited by executions (referrer, pool) whose balances are not yet published: flushCredited. */
  private credited: number[] = [];
  /** The other list: a flush walks the one it took while new marks go here (none is lost if an output's listener moves a book mid-flush). */
  private depthDirtySpare: number[] = [];
  /** Symbols of the markets whose order entry is disabled (admin `orderEntryDisabled`; see marketAdmin). */
  private readonly entryDisabled = new Set<string>();
  /** The engine's market specs, in marketId order of the config (made once: the summary tick walks them). */
  private readonly specs: readonly MarketSpec[];
  /** Every market's id, ascending: the order of depth updates (flushDepth). */
  private readonly marketIdsAscending: readonly number[];
  private lastOrderSequence = 0;

  constructor(options: ExchangeOptions) {
    const { config } = options;
    this.config = config;
    this.rng = new RngRoot(options.seed);
    this.timers = new ManualScheduler(options.startMicros);
    this.risk = new RiskEngine(config.risk, {
      ids: { nextFillId: () => this.riskFillIds.next(), nextPerpSequenceNumber: () => this.perpSequence.next() },
      recordLiquidations: false, // until observeLiquidations has a listener: nothing else reads the records
    });
    const specs = this.marketSpecs();
    this.specs = specs;
    this.marketIdsAscending = specs.map((spec) => spec.marketId).sort((a, b) => a - b);
    this.engine = new Engine({
      markets: specs,
      scheduler: this.timers,
      config: config.engine,
      hooks: {
        positionLots: (accountId, marketId) => this.risk.positionLots(accountId, marketId),
        checkFill: (proposal) => this.risk.checkFill(proposal, proposal.atMicros),
      },
      sink: {
        orderUpdate: (update) => this.onOrderUpdate(update),
        fill: (fill) => this.onFill(fill),
        depthChanged: (marketId) => this.markDepthDirty(marketId),
      },
    });
    for (const spec of specs) this.engine.depthStream(spec.marketId);
    this.history = new OrderHistory(config.orderHistoryPerAccount);
    this.perpExecutions = new RecordIndex(config.recordsRetained);
    this.spotExecutions = new RecordIndex(config.recordsRetained);
    this.busts = new RecordIndex(config.recordsRetained);
    this.desk = new SettlementDesk(this.risk, () => this.perpSequence.next(), config.risk.exchangeId, {
      perpExecution: (applied, match) => this.publishPerpExecution(applied, match),
      spotExecution: (applied, match) => this.publishSpotExecution(applied, match),
      bust: (record, match) => this.publishBust(record, match),
      afterBlock: (block) => this.afterBlock(block),
    });
    this.chain = new Chain(this.timers, this.rng.stream("chain"), this.desk, config.chain);
    this.validationContext = { exchangeId: config.gateway.exchangeId, markets: { bySymbol: (symbol) => this.marketsBySymbol.get(symbol) } };
    this.gateway = new OrderGateway({
      engine: this.engine,
      risk: this.risk,
      owners: this.owners,
      faults: this.faults,
      config: config.gateway,
      signing: config.signing,
      context: this.validationContext,
      noteOrderDeadline: (orderId, deadlineSec) => this.orderDeadlines.set(orderId, deadlineSec),
      commandDeadline: (deadlineSec) => (this.commandDeadlineSec = deadlineSec),
    });
    this.risk.createWallet(this.poolWallet());
    this.risk.createAccount(config.risk.poolAccountId, this.poolWallet());
    this.nextAccountId = { value: config.risk.poolAccountId + 1 };
    this.chain.start();
    this.scheduleSummaries(options.startMicros);
  }

  // -- driving --------------------------------------------------------------------

  now(): Micros {
    return this.timers.now();
  }

  /** The time of the next internal timer (Infinity when none). */
  nextTimerAt(): Micros {
    return this.timers.nextAt();
  }

  /** Fires every timer due at or before `atMicros` and moves the clock there. */
  advanceTo(atMicros: Micros): void {
    if (!(atMicros >= this.timers.now())) assert(false, `time went backwards: ${atMicros} < ${this.timers.now()}`);
    this.timers.advanceTo(atMicros);
    this.flushCredited();
    this.flushDepth();
  }

  subscribe(listener: OutputListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /**
   * Hands each liquidation pass that did something (a block's, a price
   * input's, the summary tick's) to `listener`, before its outputs are
   * published. The outcome carries what the outputs cannot: what each
   * liquidated account was judged on and each ADL queue as ranked (for the
   * invariant checks, src/sim/invariants.ts). Listening publishes nothing
   * and changes nothing. The risk layer builds those records only while a
   * listener is attached (RiskState.recordLiquidations).
   */
  observeLiquidations(listener: (outcome: LiquidationOutcome) => void): () => void {
    this.liquidationListeners.push(listener);
    this.risk.state.recordLiquidations = true;
    return () => {
      const index = this.liquidationListeners.indexOf(listener);
      if (index >= 0) this.liquidationListeners.splice(index, 1);
      this.risk.state.recordLiquidations = this.liquidationListeners.length > 0;
    };
  }

  /** The one entry point: handles an input at `atMicros` (after the timers due by then). */
  handle(input: ExchangeInput, atMicros: Micros): ExchangeAnswer {
    this.advanceTo(atMicros);
    let answer: ExchangeAnswer;
    switch (input.kind) {
      case "request":
        answer = this.request(this.orderEntryRefusal(input) ?? this.gateway.handle(input.op, input.body, atMicros));
        break;
      case "prices":
        answer = this.prices(input, atMicros);
        break;
      case "admin":
        answer = this.admin(input.admin, atMicros);
        break;
      case "fault":
        answer = this.fault(input.fault, atMicros);
        break;
      default:
        // Typed callers cannot get here; an input log edited by hand can.
        answer = adminError("INPUT_VALIDATION_ERROR", `input kind ${quote(String((input as { kind: unknown }).kind))} is not an input of the Exchange`);
    }
    this.flushCredited();
    this.flushDepth();
    return answer;
  }

  /**
   * SERVICE_DISABLED_ERROR for a createOrder or modifyOrder whose symbol names
   * a market with order entry disabled, or null. Checked before the gateway,
   * like its service-wide SERVICE_DISABLED_ERROR (stage 0 of its precedence),
   * so the refusal consumes no nonce and no rate-limit slot; a body without
   * a known symbol goes on to the gateway, which reports what is wrong with it.
   */
  private orderEntryRefusal(input: Extract<ExchangeInput, { kind: "request" }>): GatewayAnswer | null {
    if (this.entryDisabled.size === 0 || (input.op !== "createOrder" && input.op !== "modifyOrder")) return null;
    const body = input.body;
    if (typeof body !== "object" || body === null) return null;
    const symbol = (body as { symbol?: unknown }).symbol;
    if (typeof symbol !== "string" || !this.entryDisabled.has(symbol)) return null;
    return {
      ok: false,
      error: { error: "SERVICE_DISABLED_ERROR", message: `order entry is disabled on ${symbol}: ${input.op} is refused, cancels are accepted; retry later` },
    };
  }

  /** Whether order entry is disabled on the market `symbol` (admin `orderEntryDisabled`). */
  isOrderEntryDisabled(symbol: string): boolean {
    return this.entryDisabled.has(symbol);
  }

  private request(answer: GatewayAnswer): ExchangeAnswer {
    return this.faults.takeDrop() ? { ...answer, responseDropped: true } : answer;
  }

  // -- engine events ----------------------------------------------------------------

  /** The sequenceNumber of the latest order event (the orderChanges snapshot cursor). */
  get lastOrderSequenceNumber(): number {
    return this.lastOrderSequence;
  }

  private onOrderUpdate(update: OrderUpdate): void {
    this.lastOrderSequence = update.sequenceNumber;
    this.history.record(update);
    if (update.firstFillId !== null && update.status === "FILLED" && this.isTakerUpdate(update)) {
      this.desk.markTakerRemoved(update.firstFillId, update.fillCount);
    }
    this.mirrorResting(update);
    if (update.status !== "OPEN") this.orderDeadlines.delete(update.orderId);
    const wallet = this.risk.accountOwner(update.accountId);
    if (wallet !== undefined) this.emit({ kind: "order", wallet, row: orderEventRow(update), onOrderChanges: update.onOrderChanges });
  }

  /** A taker update carries the fills of its matching round; a maker's names its single fill, whose taker is another order. */
  private isTakerUpdate(update: OrderUpdate): boolean {
    return update.fillCount > 1 || this.takerOfFill.get(update.firstFillId!) === update.orderId;
  }

  private readonly takerOfFill = new ShardedMap<string>();

  /** Keeps the risk layer's count of resting orders equal to the book (fills are counted by addPending). */
  private mirrorResting(update: OrderUpdate): void {
    const orderId = update.orderId;
    const resting = update.status === "OPEN" && update.resting;
    const remainingLots = update.qtyLots - update.cumLots;
    const known = this.restingMirror.get(orderId);
    if (known !== undefined && resting && known.priceTicks === update.priceTicks && known.remainingLots === remainingLots) return;
    if (known !== undefined) {
      this.risk.removeRestingOrder(orderId);
      this.restingMirror.delete(orderId);
    }
    if (resting && remainingLots > 0) {
      this.risk.restOrder({
        orderId,
        accountId: update.accountId,
        marketId: update.marketId,
        side: update.isBuy ? "B" : "A",
        qtyLots: remainingLots,
        priceTicks: update.priceTicks,
      });
      this.restingMirror.set(orderId, { priceTicks: update.priceTicks, remainingLots });
    }
  }

  private onFill(fill: Fill): void {
    const maker = this.restingMirror.get(fill.makerOrderId);
    if (maker !== undefined) {
      maker.remainingLots -= fill.qtyLots;
      if (maker.remainingLots === 0) this.restingMirror.delete(fill.makerOrderId);
    }
    this.takerOfFill.set(fill.fillId, fill.takerOrderId);
    const match: PendingMatch = {
      fill,
      market: this.engine.market(fill.marketId)!,
      // A signed command's taker: its signature's deadline; a fired stop's child or a liquidation: the stop's, or none.
      takerDeadlineSec: this.commandDeadlineSec ?? this.orderDeadlines.get(fill.takerOrderId) ?? Number.MAX_SAFE_INTEGER,
      makerDeadlineSec: this.orderDeadlines.get(fill.makerOrderId) ?? Number.MAX_SAFE_INTEGER,
      takerRemovedInRound: false,
    };
    this.desk.admit(match);
    this.chain.submit(match);
  }

  /** Notes that `marketId`'s book changed since the last flush (once per market). */
  private markDepthDirty(marketId: number): void {
    if (includesFirst(this.depthDirty, this.depthDirtyCount, marketId)) return;
    this.depthDirty[this.depthDirtyCount++] = marketId;
  }

  /**
   * The depth UPDATE of each market whose book changed, in marketId order.
   * Runs after every input: it walks the markets in their precomputed order
   * rather than sorting a copy of the dirty list each time. A book moved
   * while the flush runs (by an output's listener) is marked in the other
   * list and flushed in another round, so that once an input is handled the
   * depth outputs describe every book; a listener that kept moving books
   * would leave its last marks to the next flush after FLUSH_ROUNDS_MAX.
   */
  private flushDepth(): void {
    for (let round = 0; round < FLUSH_ROUNDS_MAX && this.depthDirtyCount > 0; round++) {
      const dirty = this.depthDirty;
      const count = this.depthDirtyCount;
      this.depthDirty = this.depthDirtySpare;
      this.depthDirtySpare = dirty;
      this.depthDirtyCount = 0;
      for (const marketId of this.marketIdsAscending) {
        if (!includesFirst(dirty, count, marketId)) continue;
        const market = this.engine.market(marketId)!;
        const levels = this.engine.depthStream(marketId).update();
        if (levels !== null) this.emit({ kind: "depth", symbol: market.symbol, depth: depthMessage(market, levels, "UPDATE") });
      }
    }
  }

  // -- settlement events ----------------------------------------------------------------

  private publishPerpExecution(applied: AppliedPerpExecution, match: PendingMatch | undefined): void {
    this.takerOfFill.delete(applied.record.fillId);
    const record = perpExecutionRecord(applied, match);
    const accountIds = record.makerAccountId === undefined ? [record.takerAccountId] : [record.takerAccountId, record.makerAccountId];
    this.perpExecutions.add(record.symbol, accountIds, record);
    this.emit({ kind: "perpExecution", symbol: record.symbol, wallets: this.walletsOf(accountIds), record });
    this.bookLedger(applied.ledger);
    this.afterPositionChange(this.marketIdOf(record.symbol), accountIds);
    this.publishCreditedBalances(applied.ledger, accountIds);
  }

  /**
   * Notes the accounts an execution's ledger credits beyond its taker and
   * maker (whose balances afterPositionChange publishes): the taker's
   * referrer and the pool (fee credits). Their balances are published once
   * per block and at the end of each step (flushCredited), not once per
   * execution: the accountBalances stream carries the latest balances, and
   * the pool is credited by nearly every fill (one message per fill cost the
   * exchange benchmark ~30% of its time).
   */
  private publishCreditedBalances(ledger: readonly LedgerEntry[], published: readonly number[]): void {
    for (const entry of ledger) {
      const accountId = entry.accountId;
      if (!published.includes(accountId) && !this.credited.includes(accountId)) this.credited.push(accountId);
    }
  }

  /** Publishes the balances of the accounts credited since the last flush (publishCreditedBalances). */
  private flushCredited(): void {
    if (this.credited.length === 0) return;
    const accountIds = this.credited;
    this.credited = [];
    this.publishBalances(accountIds);
  }

  private publishSpotExecution(applied: AppliedSpotExecution, match: PendingMatch): void {
    this.takerOfFill.delete(applied.record.fillId);
    const record = spotExecutionRecord(applied, match);
    const accountIds = [record.takerAccountId, record.makerAccountId];
    this.spotExecutions.add(record.symbol, accountIds, record);
    this.emit({ kind: "spotExecution", symbol: record.symbol, wallets: this.walletsOf(accountIds), record });
    this.bookLedger(applied.ledger);
    this.publishBalances(accountIds);
    this.publishCreditedBalances(applied.ledger, accountIds);
  }

  private publishBust(record: ExecutionBust, match: PendingMatch): void {
    this.takerOfFill.delete(record.fillId);
    const accountIds = [record.takerAccountId, record.makerAccountId];
    this.busts.add(record.symbol, accountIds, record);
    this.emit({ kind: "bust", symbol: record.symbol, wallets: this.walletsOf(accountIds), record });
    // A bust moves no settled position, but it does move the one the engine sizes stops by (settled plus pending):
    // the engine follows it as after an execution (a stop whose position is gone is cancelled POSITION_CLOSED).
    if (match.market.kind === "perp") {
      const atMicros = this.now();
      for (const accountId of accountIds) this.engine.positionChanged({ atMicros, accountId, marketId: match.market.marketId });
    }
  }

  private afterBlock(block: BlockInfo): void {
    this.applyLiquidations(this.risk.runLiquidations(this.now()));
    this.flushCredited();
    this.emit({ kind: "block", number: block.number, timeMicros: block.timeMicros, settled: block.settled, busted: block.busted });
  }

  private applyLiquidations(outcome: ReturnType<RiskEngine["runLiquidations"]>): void {
    // A pass that liquidated nothing (nearly every one) has nothing to publish.
    if (outcome.executions.length === 0 && outcome.ledger.length === 0 && outcome.liquidatedAccountIds.length === 0) return;
    for (const listener of this.liquidationListeners) listener(outcome);
    for (const applied of outcome.executions) this.publishPerpExecution(applied, undefined);
    this.bookLedger(outcome.ledger);
    for (const accountId of outcome.liquidatedAccountIds) {
      // Risk cancels a liquidated account's resting orders (spec 7.3: RISK_CANCELLED), in every market.
      this.engine.cancelAll({ atMicros: this.now(), accountId, reason: "RISK_CANCELLED" });
    }
    if (outcome.ledger.length > 0) this.publishBalances([...new Set(outcome.ledger.map((entry) => entry.accountId))]);
  }

  private afterPositionChange(marketId: number, accountIds: readonly number[]): void {
    const atMicros = this.now();
    for (let i = 0; i < accountIds.length; i++) {
      const accountId = accountIds[i]!;
      if (accountIds.indexOf(accountId) === i) this.engine.positionChanged({ atMicros, accountId, marketId });
    }
    const wallets = this.walletsOf(accountIds);
    for (const wallet of wallets) this.emit({ kind: "positions", wallet, positions: this.positionsOfWallet(wallet) });
    for (const wallet of wallets) this.emit({ kind: "balances", wallet, balances: this.balancesOfWallet(wallet) });
  }

  private bookLedger(entries: readonly LedgerEntry[]): void {
    for (const entry of entries) {
      const recorded = this.ledger.record(entry, this.now());
      const wallet = this.risk.accountOwner(entry.accountId);
      if (recorded !== undefined && wallet !== undefined) this.emit({ kind: "transfer", wallet, entry: recorded as Transfer });
    }
  }

  private publishBalances(accountIds: readonly number[]): void {
    for (const wallet of this.walletsOf(accountIds)) {
      this.emit({ kind: "balances", wallet, balances: this.balancesOfWallet(wallet) });
    }
  }

  // -- prices, summaries -------------------------------------------------------------------

  private prices(input: PriceInput, atMicros: Micros): ExchangeAnswer {
    // Every item is checked before any applies; each price is parsed once, to its canonical text.
    const canonical: string[] = [];
    for (const [index, item] of input.prices.entries()) {
      const checked = this.checkPriceItem(item, index);
      if (!checked.ok) return { ok: false, error: { error: "INPUT_VALIDATION_ERROR", message: checked.problem } };
      canonical.push(checked.price);
    }
    // All the items move the feeds together and one liquidation pass runs (in the risk layer, with them). The pass is
    // published, and the liquidated accounts' orders cancelled, before the marks reach the engine: a stop the new mark
    // fires must not trade with a resting order of an account that is already liquidated.
    const update = this.risk.setFeedPrices(
      input.prices.map((item, index) => this.feedPrice(item, canonical[index]!)),
      atMicros,
    );
    this.applyLiquidations(update.liquidation);
    for (const change of update.markChanges) {
      this.engine.setMarkPrice({ atMicros, marketId: change.marketId, priceTicks: change.markFloorTicks, betweenTicks: change.markBetweenTicks });
    }
    this.emit({ kind: "oraclePrices", prices: this.risk.assetOraclePrices(atMicros) as never });
    return { ok: true, payload: { updated: input.prices.length } };
  }

  /** The item's price as canonical text, or why the item is refused. */
  private checkPriceItem(item: PriceInput["prices"][number], index: number): { ok: true; price: string } | { ok: false; problem: string } {
    const where = `prices[${index}]`;
    if ((item.asset === undefined) === (item.symbol === undefined)) return { ok: false, problem: `${where} must name exactly one of asset or symbol` };
    let scaled: bigint;
    try {
      scaled = toE18(item.price, `${where}.price`, { signed: false });
    } catch (error) {
      return { ok: false, problem: (error as Error).message };
    }
    if (scaled <= 0n) return { ok: false, problem: `${where}.price "${item.price}" must be greater than 0` };
    if (item.asset !== undefined && !this.config.risk.assets.some((asset) => asset.asset === item.asset)) return { ok: false, problem: `${where}.asset "${item.asset}" is not a configured asset` };
    if (item.asset !== undefined && item.asset === this.config.risk.settlementAsset) {
      return { ok: false, problem: `${where}.asset "${item.asset}" is the settlement asset: it counts at par and takes no price` };
    }
    if (item.symbol !== undefined && !this.marketsBySymbol.has(item.symbol)) return { ok: false, problem: `${where}.symbol "${item.symbol}" is not a market` };
    const tooHigh = this.priceAboveTickRange(item, scaled);
    if (tooHigh !== null) return { ok: false, problem: `${where}.price "${item.price}" is more than 2^50 ticks of ${tooHigh}: marks are kept in whole ticks` };
    return { ok: true, price: formatE18(scaled) };
  }

  /**
   * The market the price would put more than PRICE_TICKS_MAX ticks in, or
   * null. A price moves the marks of the perp markets it feeds (its own, or
   * those indexed by its asset; a spot symbol's price is its base asset's),
   * and a mark is kept in whole ticks (the engine's stops): checked here, so
   * that such a price is refused whole rather than half applied. A mark is a
   * median or a mean of its inputs, so bounding each input bounds it.
   */
  private priceAboveTickRange(item: PriceInput["prices"][number], scaledE18: bigint): string | null {
    let asset = item.asset;
    let perpMarketId: number | undefined;
    if (asset === undefined) {
      const market = this.marketsBySymbol.get(item.symbol!)!;
      if (market.kind === "perp") perpMarketId = market.marketId;
      else asset = this.config.risk.spotMarkets.find((spot) => spot.symbol === market.symbol)!.baseAsset;
    }
    for (const perp of this.risk.state.perps.values()) {
      const fed = perp.config.marketId === perpMarketId || (asset !== undefined && perp.indexAsset.config.symbol === asset);
      if (fed && scaledE18 / perp.config.tick > PRICE_TICKS_MAX) return perp.config.symbol;
    }
    return null;
  }

  /** A checked price item as the feed it moves: an asset's index, a perp's oracle, or (a spot symbol) its base asset's index. */
  private feedPrice(item: PriceInput["prices"][number], price: string): FeedPrice {
    if (item.asset !== undefined) return { asset: item.asset, price };
    const market = this.marketsBySymbol.get(item.symbol!)!;
    if (market.kind === "perp") return { marketId: market.marketId, price };
    const spot = this.config.risk.spotMarkets.find((candidate) => candidate.symbol === market.symbol)!;
    return { asset: spot.baseAsset, price };
  }

  /** Every summary cadence: feed each book to the risk layer (impact price, mid), then publish summaries. */
  private scheduleSummaries(from: Micros): void {
    const cadence = this.risk.summaryCadenceMicros;
    const tick = () => {
      const now = this.now();
      for (const spec of this.specs) {
        const depth = this.engine.depth(spec.marketId, 100);
        if (!depth.ok) continue;
        const update = this.risk.setBook(spec.marketId, { bids: depth.bids, asks: depth.asks }, now);
        // Liquidations first, as for a prices input: no stop the mark fires trades with a liquidated account's order.
        this.applyLiquidations(update.liquidation);
        for (const change of update.markChanges) {
          this.engine.setMarkPrice({ atMicros: now, marketId: change.marketId, priceTicks: change.markFloorTicks, betweenTicks: change.markBetweenTicks });
        }
      }
      const summaries = this.risk.computeSummaries(now);
      this.emit({ kind: "perpSummaries", summaries: summaries.markets as never });
      this.emit({ kind: "spotSummaries", summaries: summaries.spotMarkets as never });
      this.timers.schedule(now + cadence, tick);
    };
    this.timers.schedule(from + cadence, tick);
  }

  // -- admin and faults ---------------------------------------------------------------------

  private admin(action: AdminAction, atMicros: Micros): ExchangeAnswer {
    switch (action.action) {
      case "createAccount":
        return this.createAccount(action, atMicros);
      case "deposit":
        return this.balanceResult(this.risk.deposit(action.accountId, action.asset, action.amount, atMicros), [action.accountId]);
      case "withdraw":
        return this.balanceResult(this.risk.withdraw(action.accountId, action.asset, action.amount, atMicros), [action.accountId]);
      case "transfer":
        return this.balanceResult(
          this.risk.transfer(action.fromAccountId, action.toAccountId, action.asset, action.amount, atMicros),
          [action.fromAccountId, action.toAccountId],
        );
      case "addSigner": {
        const owner = this.risk.accountOwner(action.accountId);
        if (owner === undefined) return adminError("NO_ACCOUNTS_FOUND_ERROR", `accountId ${action.accountId} does not exist`);
        this.risk.addSigner(action.accountId, action.signer);
        this.emit({
          kind: "account",
          wallet: owner,
          notification: { accountId: action.accountId, ownerWallet: owner, event: "SIGNER_ADDED", signer: action.signer, timestamp: microsToMillis(atMicros) } as never,
        });
        return { ok: true, payload: { accountId: action.accountId, signer: action.signer } };
      }
      case "assetStatus":
        this.risk.setAssetStatus(action.asset, action.status);
        return { ok: true, payload: { asset: action.asset, status: action.status } };
      case "market":
        return this.marketAdmin(action, atMicros);
      case "wallet": {
        const problem = walletSettingsProblem(this.config, action.wallet, action);
        if (problem !== null) return adminError("INPUT_VALIDATION_ERROR", problem);
        if (!this.risk.hasWallet(action.wallet)) this.risk.createWallet(action.wallet);
        this.risk.updateWallet(action.wallet, {
          ...(action.whitelisted === undefined ? {} : { whitelisted: action.whitelisted }),
          ...(action.suspended === undefined ? {} : { suspended: action.suspended }),
          ...(action.rateTier === undefined ? {} : { rateTier: action.rateTier }),
          ...(action.feeTierId === undefined ? {} : { vipTierId: action.feeTierId }),
          ...(action.og === undefined ? {} : { og: action.og }),
          ...(action.affiliate === undefined ? {} : { affiliate: action.affiliate }),
          ...(action.referrer === undefined ? {} : { referrer: action.referrer, referee: true }),
        });
        return { ok: true, payload: { wallet: action.wallet } };
      }
      default:
        // Typed callers cannot get here; an input log edited by hand can.
        return adminError("INPUT_VALIDATION_ERROR", `admin action ${quote(String((action as { action: unknown }).action))} is not an admin action`);
    }
  }

  private createAccount(action: Extract<AdminAction, { action: "createAccount" }>, atMicros: Micros): ExchangeAnswer {
    const accountId = action.accountId ?? this.nextAccountId.value;
    if (action.accountId === undefined && !Number.isSafeInteger(accountId)) {
      return adminError("INPUT_VALIDATION_ERROR", `accountId: none is left to assign (an account holds ${Number.MAX_SAFE_INTEGER}, the largest): give one explicitly`);
    }
    if (!Number.isSafeInteger(accountId) || accountId < 0) return adminError("INPUT_VALIDATION_ERROR", `accountId ${accountId} must be a non-negative integer`);
    if (this.risk.accountOwner(accountId) !== undefined) return adminError("INPUT_VALIDATION_ERROR", `accountId ${accountId} already exists`);
    // Check every deposit before anything changes: the action applies whole or not at all.
    for (const [asset, amount] of Object.entries(action.deposits ?? {})) {
      const problem = this.depositProblem(asset, amount);
      if (problem !== null) return adminError("INPUT_VALIDATION_ERROR", problem);
    }
    if (!this.risk.hasWallet(action.wallet)) this.risk.createWallet(action.wallet);
    this.risk.createAccount(accountId, action.wallet);
    this.nextAccountId.value = Math.max(this.nextAccountId.value, accountId + 1);
    const owner = this.risk.accountOwner(accountId)!;
    this.emit({
      kind: "account",
      wallet: owner,
      notification: { accountId, ownerWallet: owner, event: "ACCOUNT_CREATED", timestamp: microsToMillis(atMicros) } as never,
    });
    for (const [asset, amount] of Object.entries(action.deposits ?? {})) {
      const deposit = this.balanceResult(this.risk.deposit(accountId, asset, amount, atMicros), [accountId]);
      assert(deposit.ok, `a checked deposit of ${amount} ${asset} was refused`);
    }
    return { ok: true, payload: { accountId } };
  }

  /** Why a deposit would be refused, or null: unknown asset, WITHDRAWAL_ONLY, or an amount that is not a positive decimal. */
  private depositProblem(asset: string, amount: string): string | null {
    const state = this.risk.state.assets.get(asset);
    if (state === undefined) return `deposits.${asset}: "${asset}" is not a configured asset`;
    if (state.status !== "ENABLED") return `deposits.${asset}: ${asset} is ${state.status} and accepts no deposits`;
    try {
      if (!parseUnsigned(amount, `deposits.${asset}`).gt(0)) return `deposits.${asset} "${amount}" must be greater than 0`;
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  }

  private balanceResult(result: ReturnType<RiskEngine["deposit"]>, accountIds: readonly number[]): ExchangeAnswer {
    if (!result.ok) return { ok: false, error: { error: result.rejection.error, message: result.rejection.message } };
    this.bookLedger(result.ledger);
    this.publishBalances(accountIds);
    return { ok: true, payload: { entries: result.ledger.length } };
  }

  /**
   * The admin market states. Each flag is independent: a body sets the flags
   * it names and leaves the others as they are.
   * - `halted`: the market is halted. The engine matches nothing: createOrder
   *   and modifyOrder are refused with TRADING_HALTED_ERROR, armed stops do
   *   not fire (those due fire once the halt lifts, at the latest mark).
   *   Resting orders stay on the book and can be cancelled (cancelOrder,
   *   cancelAll, cancelAllAfter); matches already made still settle.
   * - `orderEntryDisabled`: the market is cancel-only. createOrder and
   *   modifyOrder naming it are refused with SERVICE_DISABLED_ERROR (checked
   *   first, before the gateway's own stages, as the service-wide
   *   SERVICE_DISABLED_ERROR is), cancels are accepted, and the market is not
   *   halted: the engine goes on matching what is already in it (armed stops
   *   fire at the mark and their children trade).
   * - Both: SERVICE_DISABLED_ERROR for new orders (order entry is checked
   *   first), and no matching (the halt); clearing one leaves the other.
   * - `reopening`, `settlementPaused`: orders that would cross are refused
   *   (CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR); settlementPaused also
   *   busts the market's matches that reach a block (MarketPaused).
   * - `closed: true` (perp only, final): open orders cancelled, MARKET_CLOSE
   *   executions at `settlementPrice` (default the mark), then halted for good
   *   (a later `halted: false` is refused).
   */
  private marketAdmin(action: Extract<AdminAction, { action: "market" }>, atMicros: Micros): ExchangeAnswer {
    const market = this.marketsBySymbol.get(action.symbol);
    if (market === undefined) return adminError("SYMBOL_NOT_FOUND_ERROR", `symbol "${action.symbol}" does not resolve to a market`);
    // Every check before any change: the action applies whole or not at all.
    if (action.halted === false && market.kind === "perp" && this.risk.state.perps.get(market.marketId)!.closed) {
      return adminError("INPUT_VALIDATION_ERROR", `${market.symbol} is closed: it stays halted for good (halted: false cannot reopen it)`);
    }
    let settlementTicks: number | undefined;
    if (action.closed === true) {
      if (market.kind !== "perp") return adminError("INPUT_VALIDATION_ERROR", `only perp markets can be closed; ${market.symbol} is spot`);
      if (this.risk.state.perps.get(market.marketId)!.closed) return adminError("INPUT_VALIDATION_ERROR", `${market.symbol} is already closed`);
      const pending = [...this.risk.state.pending.values()].filter((match) => match.marketId === market.marketId).length;
      if (pending > 0) return adminError("INPUT_VALIDATION_ERROR", `${market.symbol} has ${pending} matches waiting for their block: close it after they settle`);
      if (action.settlementPrice !== undefined) {
        const ticks = this.engine.market(market.marketId)!.units.toTicks(action.settlementPrice, "settlementPrice");
        if (!ticks.ok) return adminError(ticks.error.code, ticks.error.message);
        settlementTicks = ticks.value;
      } else if (this.risk.markPriceTicks(market.marketId) === undefined) {
        return adminError("INPUT_VALIDATION_ERROR", `${market.symbol} has no mark price: give a settlementPrice to close it`);
      }
    }
    if (action.orderEntryDisabled === true) this.entryDisabled.add(market.symbol);
    else if (action.orderEntryDisabled === false) this.entryDisabled.delete(market.symbol);
    if (action.halted !== undefined || action.reopening !== undefined || action.settlementPaused !== undefined) {
      this.engine.setMarketState({
        atMicros,
        marketId: market.marketId,
        ...(action.halted === undefined ? {} : { halted: action.halted }),
        ...(action.reopening === undefined ? {} : { reopening: action.reopening }),
        ...(action.settlementPaused === undefined ? {} : { settlementPaused: action.settlementPaused }),
      });
    }
    if (action.closed === true) {
      for (const owner of this.accountsWithOrders(market.marketId)) this.engine.cancelAll({ atMicros, accountId: owner, marketId: market.marketId });
      this.engine.setMarketState({ atMicros, marketId: market.marketId, halted: true });
      const executions = this.risk.closeMarket(market.marketId, settlementTicks, atMicros);
      for (const applied of executions) this.publishPerpExecution(applied, undefined);
    }
    return { ok: true, payload: { symbol: market.symbol } };
  }

  private accountsWithOrders(marketId: number): number[] {
    return this.engine.accountsWithOpenOrders(marketId);
  }

  private fault(fault: FaultAction, atMicros: Micros): ExchangeAnswer {
    const ms = (durationMs: number) => durationMs * MICROS_PER_MILLI;
    switch (fault.fault) {
      case "bustNext":
        this.chain.bustNext(fault.count, (match) => this.desk.injectedBustReason(fault.reasonName, match));
        break;
      case "bustProbability":
        this.chain.setBustProbability(fault.probability);
        break;
      case "delayBlocks":
        this.chain.delayBlocksUntil(atMicros + ms(fault.durationMs));
        break;
      case "oracleStale": {
        // The risk layer's freshness decides (prices.ts isFresh): order entry, the published prices, marks and funding agree.
        const state = this.risk.state;
        state.oracleStaleUntilMicros = Math.max(state.oracleStaleUntilMicros, atMicros + ms(fault.durationMs));
        break;
      }
      case "engineUnavailable":
      case "accountOwnerUnavailable":
      case "serviceDisabled":
        this.faults.open(fault.fault, atMicros, ms(fault.durationMs));
        break;
      case "dropResponses":
        this.faults.dropResponses(fault.count);
        break;
      default:
        // Typed callers cannot get here; an input log edited by hand can.
        return adminError("INPUT_VALIDATION_ERROR", `fault ${quote(String((fault as { fault: unknown }).fault))} is not a fault`);
    }
    return { ok: true, payload: { fault: fault.fault } };
  }

  // -- reads ----------------------------------------------------------------------------------

  positionsOfWallet(wallet: string): Position[] {
    const accountIds = this.risk.accountsOf(wallet);
    if (accountIds.length === 1) return this.risk.positions(accountIds[0]!) as PositionView[] as Position[];
    return accountIds.flatMap((accountId) => this.risk.positions(accountId)) as PositionView[] as Position[];
  }

  balancesOfWallet(wallet: string): AccountBalance[] {
    const accountIds = this.risk.accountsOf(wallet);
    if (accountIds.length === 1) return this.risk.balances(accountIds[0]!) as AccountBalance[];
    return accountIds.flatMap((accountId) => this.risk.balances(accountId)) as AccountBalance[];
  }

  private walletsOf(accountIds: readonly number[]): string[] {
    const wallets: string[] = [];
    for (const accountId of accountIds) {
      const wallet = this.risk.accountOwner(accountId);
      if (wallet !== undefined && !wallets.includes(wallet)) wallets.push(wallet);
    }
    return wallets;
  }

  private marketIdOf(symbol: string): number {
    return this.marketsBySymbol.get(symbol)!.marketId;
  }

  private poolWallet(): string {
    return "0x000000000000000000000000000000000000b001";
  }

  private marketSpecs(): MarketSpec[] {
    const { perpMarkets, spotMarkets } = this.config.risk;
    const specs: MarketSpec[] = [
      ...perpMarkets.map((m) => ({ marketId: m.marketId, symbol: m.symbol, kind: "perp" as const, tickSize: m.tickSize, qtyStepSize: m.qtyStepSize, minOrderQty: m.minOrderQty })),
      ...spotMarkets.map((m) => ({ marketId: m.marketId, symbol: m.symbol, kind: "spot" as const, tickSize: m.tickSize, qtyStepSize: m.qtyStepSize, minOrderQty: m.minOrderQty })),
    ];
    for (const spec of specs) this.marketsBySymbol.set(spec.symbol, spec);
    return specs;
  }

  private emit(output: ExchangeOutput): void {
    for (const listener of this.listeners) listener(output);
  }
}

function adminError(error: string, message: string): ExchangeAnswer {
  return { ok: false, error: { error, message } };
}

/** Rounds of one depth flush at most (see flushDepth). */
const FLUSH_ROUNDS_MAX = 16;

/** Whether `value` is among the first `count` entries of `values`. */
function includesFirst(values: readonly number[], count: number, value: number): boolean {
  for (let i = 0; i < count; i++) if (values[i] === value) return true;
  return false;
}
