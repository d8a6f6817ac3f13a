/**
 * Invariants of a running Exchange, checked from its output stream and its
 * state. Cheap ones are checked on every output; the expensive ones (O(all
 * accounts)) after every block, or every `everyBlocks` blocks (the summary
 * tick's liquidation check at the first tick after as many blocks); an
 * account's margin sums are recomputed only when what they depend on
 * changed since they last passed. A violation throws an InvariantError naming
 * the invariant, so a seeded run that breaks one stops at the same output
 * every time.
 *
 * - Settlement: every match ends, once its block has passed, as exactly one
 *   execution or exactly one bust, never both, never neither.
 * - The chain (checkChain, per state check, O(pending)): every fill neither
 *   settled nor busted is in the chain's queue; each became eligible at the
 *   time it was made plus a latency in [settlementLatencyMinMicros,
 *   settlementLatencyMaxMicros]; none is left more than blockIntervalMicros
 *   + max(blockJitterMicros - 1, 0) after it became eligible unless blocks
 *   are delayed past now (chain.delayedUntilMicros), and right after a block
 *   none eligible before the block's time is left. Blocks keep coming: each
 *   within that slack of the one before it or at the end of a delay (at
 *   every block and summary tick).
 * - Holds (risk-invariants.ts checkHolds, per state check): each account's
 *   fee reserve (pendingFees), pendingSpotLoss, each balance's pendingOut and
 *   reserved, each position's pq, pk, restBuy and restSell equal the sums
 *   over the pending matches and resting orders, exactly.
 * - Ledger entries in settlement (per Transfer entry): an entry naming a
 *   fill follows that fill's execution (never a pending or busted fill's);
 *   while a block settles its matches (before its liquidation step), an
 *   entry naming no fill is an error, and is kept out of the bust check's
 *   picture of the account (a bust of its fill then fails that check).
 * - Sequences: perp execution, spot execution and bust sequence numbers each
 *   increase by exactly 1.
 * - Conservation (per asset, exact): balances + fees + open claims +
 *   residual = net deposits (the risk layer's audit).
 * - Open interest: long = short in every market, settled and effective
 *   (settled + pending); settled long and short each equal to the sum over
 *   positions.
 * - Replay: each account's settled perp position equals the sum of the
 *   settled executions it took part in (so a busted match left no trace).
 * - The engine's own book invariants (never crossed, levels sum to orders).
 * - Ledger replay (output-invariants.ts): each account's balances equal
 *   the replay of its Transfer entries, each entry's netDepositsAfter the
 *   running sum of its deposits, withdrawals and transfers.
 * - Exposure mirrors (output-invariants.ts): the risk layer's pending
 *   matches are the fills in flight, its resting orders the engine's.
 * - Positions (output-invariants.ts): LIQUIDATION and MARKET_CLOSE close
 *   their taker's position whole, ADL only reduces the one it names; each
 *   perp execution is followed by a positions message for its wallets, and
 *   a wallet's last message lists its settled positions.
 * - Risk (risk-invariants.ts): fee parts sum to takerFee (every execution),
 *   and the fee is qty x price x a tier's taker rate (every ORDER_MATCH);
 *   the funding rate follows (mark - index) / index within its cap (after
 *   every checked summary tick);
 *   funding paid by longs = received by shorts, less socialized losses; the
 *   accounts' running margin sums; after a liquidation step (a block's, for
 *   the accounts of its executions; the summary tick's, for every holder of
 *   a market with fresh prices), no account but the pool below its
 *   liquidation requirement.
 * - Liquidation passes (risk-invariants.ts, from each pass's outcome, not
 *   its outputs): each liquidated account was below its settled
 *   requirement when judged (its figures added up again), and each ADL
 *   close took the whole opposite side in rank order (PnL ratio at mark,
 *   highest first), min(left, its size) from each.
 * - Busts (risk-invariants.ts): a bust leaves both accounts' settled
 *   balances and positions as they were without the match.
 * - Orders (order-invariants.ts, every order row): only the transitions of
 *   spec 3.1, FILLED and CANCELLED final, cumQty never decreasing and at
 *   most qty, gap-free fill ids; and every settled ORDER_MATCH execution
 *   (perp or spot) repeats the fill its taker's and its maker's rows
 *   reported (accounts, orders, side, price, qty).
 */
import { assert, InvariantError } from "../core/assert.ts";
import { toE18 } from "../core/decimal.ts";
import type { Exchange } from "../exchange/exchange.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import { conservation } from "../risk/audit.ts";
import type { LiquidationOutcome } from "../risk/liquidation.ts";
import { OrderLifecycleInvariants } from "./order-invariants.ts";
import { checkForcedChange, checkPendingMatches, checkRestingOrders, LedgerReplay, PublishedPositions } from "./output-invariants.ts";
import { AccountSums, checkAdlClose, checkFeeParts, checkHolds, checkLiquidationJudgement, checkFunding, checkFundingRates, checkLiquidationStep, checkLiquidationTick, checkOpenInterest, FeeRates, SettledAccounts } from "./risk-invariants.ts";
import type { Micros } from "../core/time.ts";
import type { Transfer } from "../spec/account.ts";

export interface InvariantStats {
  blocksChecked: number;
  fillsSeen: number;
  executions: number;
  busts: number;
  /** checkState runs (after every `everyBlocks` blocks, and on request). */
  stateChecks: number;
  /** Accounts checked against their liquidation requirement after a block's liquidation step (the accounts of its executions). */
  liquidationBlockAccounts: number;
  /** Summary ticks after whose liquidation steps every holder of a market with fresh prices was checked. */
  liquidationTicks: number;
  /** Accounts whose running margin sums were recomputed (the others' inputs had not changed since they passed). */
  accountSumAudits: number;
  /** Order rows checked for legal transitions, cumQty and fill ids. */
  orderRows: number;
  /** Perp executions whose fee parts were checked. */
  feeChecks: number;
  /** Accounts of busts compared with their settled state before the match. */
  bustAccountsCompared: number;
  /** ORDER_MATCH executions (perp and spot) checked against the taker and maker rows of their fill. */
  executionFillChecks: number;
  /** Transfer entries replayed into the balances they must add up to (output-invariants.ts). */
  transfersReplayed: number;
  /** Resting orders compared with the risk layer's count of them (output-invariants.ts), summed over state checks. */
  restingOrdersCompared: number;
  /** Markets whose funding rate was checked against their mark and index after a summary tick (risk-invariants.ts). */
  fundingRateChecks: number;
  /** Wallets whose last positions message was compared with their settled positions at a state check (output-invariants.ts). */
  positionMessagesCompared: number;
  /** Liquidated accounts whose judgement (settled margin balance below the settled requirement) was checked. */
  liquidationJudgements: number;
  /** ADL closes whose ranking and quantities were checked, and the queue entries they ranked. */
  adlCloses: number;
  adlQueueEntries: number;
  /** Pending matches of the chain checked against their block deadline, summed over state checks. */
  chainMatchesChecked: number;
  /** Accounts whose holds (fee reserve, pendingOut, reserved, pendingSpotLoss, pq/pk, restBuy/restSell) were recomputed, summed over state checks. */
  holdAccountsChecked: number;
  /** Transfer entries naming a fill, checked to follow that fill's execution. */
  fillEntriesChecked: number;
}

export class ExchangeInvariants {
  readonly stats: InvariantStats = { blocksChecked: 0, fillsSeen: 0, executions: 0, busts: 0, stateChecks: 0, liquidationBlockAccounts: 0, liquidationTicks: 0, accountSumAudits: 0, orderRows: 0, feeChecks: 0, bustAccountsCompared: 0, executionFillChecks: 0, transfersReplayed: 0, restingOrdersCompared: 0, fundingRateChecks: 0, positionMessagesCompared: 0, liquidationJudgements: 0, adlCloses: 0, adlQueueEntries: 0, chainMatchesChecked: 0, holdAccountsChecked: 0, fillEntriesChecked: 0 };
  /** Fills seen on order updates that have not yet ended as an execution or a bust, with the time they were made. */
  private readonly openFills = new Map<string, Micros>();
  /** Every fill that ended, and how (to catch a second ending). */
  private readonly ended = new Map<string, "settled" | "busted">();
  private readonly lastSequence = { perp: 0, spot: 0, bust: 0 };
  /** Signed settled position (10^18 fixed point) per accountId, then symbol, summed from the settled executions. */
  private readonly replayed = new Map<number, Map<string, bigint>>();
  private readonly positionsPublished = new PublishedPositions();
  /** No account held a settled position when the checker started: every position is known from the executions seen. */
  private readonly startedFlat: boolean;
  private readonly orders = new OrderLifecycleInvariants();
  private readonly accountSums = new AccountSums();
  private readonly settled: SettledAccounts;
  private readonly ledger: LedgerReplay;
  private readonly feeRates: FeeRates;
  /** Accounts of the executions at `touchedAtMicros` (what a block's liquidation step looked at). */
  private readonly touched = new Set<number>();
  private touchedAtMicros = -1;
  /** blocksChecked when the summary tick was last checked. */
  private lastTickCheck = -Infinity;
  /** Time of the last block (of the checker's start, before one): the next comes by then + blockSlack, or at the delay's end. */
  private lastBlockMicros: Micros;
  /** The last block whose settlement of matches ended: its liquidation step began, or its "block" output came. */
  private settledBlock: number;
  /** The fill of the last execution published (its Transfer entries follow it); undefined after a bust or a block. */
  private lastExecutionFillId: string | undefined;
  /** A Transfer entry booked while a block settled its matches that names no settled execution (flagged at the next output). */
  private strayEntry: Transfer | undefined;
  private readonly unsubscribe: () => void;
  private readonly unobserveLiquidations: () => void;

  constructor(private readonly exchange: Exchange, private readonly options: { everyBlocks?: number } = {}) {
    this.settled = new SettledAccounts(exchange.risk.state);
    this.ledger = new LedgerReplay(exchange.risk.state);
    this.feeRates = new FeeRates(exchange.risk.state);
    this.startedFlat = [...exchange.risk.state.perps.values()].every((market) => market.oiLong === 0n);
    this.lastBlockMicros = exchange.now();
    this.settledBlock = exchange.chain.height;
    this.unsubscribe = exchange.subscribe((output) => this.observe(output));
    this.unobserveLiquidations = exchange.observeLiquidations((outcome) => this.liquidationPass(outcome));
  }

  stop(): void {
    this.unsubscribe();
    this.unobserveLiquidations();
  }

  /** Checks a liquidation pass's outcome (before its outputs); O(positions and queue of each liquidated account), and passes are rare. */
  liquidationPass(outcome: LiquidationOutcome): void {
    // A block's liquidation step (Exchange.afterBlock) comes after all its matches settled or busted: its entries name no fill.
    this.settledBlock = this.exchange.chain.height;
    const state = this.exchange.risk.state;
    for (const judgement of outcome.judgements) {
      checkLiquidationJudgement(state, judgement);
      this.stats.liquidationJudgements++;
    }
    for (const close of outcome.adlCloses) {
      this.stats.adlQueueEntries += checkAdlClose(state, close);
      this.stats.adlCloses++;
    }
  }

  /** Checks one output (the exchange calls it for every output; tests may feed outputs directly). */
  observe(output: ExchangeOutput): void {
    switch (output.kind) {
      case "order": {
        const row = output.row;
        const { firstFillId, fillCount } = row;
        let first: bigint | undefined;
        if (firstFillId !== undefined && fillCount !== undefined) {
          first = BigInt(firstFillId);
          let id = first;
          let now: Micros | undefined;
          for (let i = 0; i < fillCount; i++, id++) {
            const fillId = id.toString();
            if (!this.ended.has(fillId) && !this.openFills.has(fillId)) {
              this.openFills.set(fillId, (now ??= this.exchange.now()));
              this.stats.fillsSeen++;
            }
          }
          this.settled.follow(row.accountId);
        }
        this.orders.check(row, first);
        this.stats.orderRows++;
        break;
      }
      case "perpExecution": {
        const record = output.record;
        this.sequence("perp", record.sequenceNumber);
        if (record.type === "ORDER_MATCH") this.settle(record.fillId);
        this.lastExecutionFillId = record.fillId;
        const qty = toE18(record.qty, "qty");
        const takerDelta = record.side === "B" ? qty : -qty;
        const takerBefore = this.move(record.takerAccountId, record.symbol, takerDelta);
        if (record.makerAccountId !== undefined) this.move(record.makerAccountId, record.symbol, -takerDelta);
        this.positionsPublished.executed(output.wallets, record.fillId);
        checkFeeParts(record);
        this.stats.feeChecks++;
        this.stats.executionFillChecks += this.orders.checkExecution(record);
        this.feeRates.check(record);
        // A position held before the checker started is unknown to it (a checker started on a run in progress).
        if (record.type !== "ORDER_MATCH" && takerBefore !== undefined) checkForcedChange(record.type, record.fillId, record.takerAccountId, record.symbol, takerBefore, takerDelta);
        this.settled.changed(record.takerAccountId);
        this.touch(record.takerAccountId);
        if (record.makerAccountId !== undefined) {
          this.settled.changed(record.makerAccountId);
          this.touch(record.makerAccountId);
        }
        this.stats.executions++;
        break;
      }
      case "spotExecution":
        this.sequence("spot", output.record.sequenceNumber);
        this.settle(output.record.fillId);
        this.lastExecutionFillId = output.record.fillId;
        this.stats.executionFillChecks += this.orders.checkExecution(output.record);
        this.settled.changed(output.record.takerAccountId);
        this.settled.changed(output.record.makerAccountId);
        this.touch(output.record.takerAccountId);
        this.touch(output.record.makerAccountId);
        this.stats.executions++;
        break;
      case "bust": {
        const record = output.record;
        this.sequence("bust", record.sequenceNumber);
        this.end(record.fillId, "busted");
        this.lastExecutionFillId = undefined;
        this.orders.forgetFill(record.fillId);
        this.stats.bustAccountsCompared += this.settled.checkUnchanged(record.takerAccountId, record.fillId);
        this.stats.bustAccountsCompared += this.settled.checkUnchanged(record.makerAccountId, record.fillId);
        this.stats.busts++;
        break;
      }
      case "balances":
        for (const accountId of this.exchange.risk.accountsOf(output.wallet)) this.settled.changed(accountId);
        break;
      case "positions":
        this.positionsPublished.published(output.wallet, output.positions);
        break;
      case "transfer": {
        const entry = output.entry;
        this.ledger.transfer(entry);
        this.stats.transfersReplayed++;
        if (entry.fillId !== undefined) {
          if (entry.fillId !== this.lastExecutionFillId) throw this.misnamedEntry(entry);
          this.stats.fillEntriesChecked++;
        } else if (this.exchange.chain.height > this.settledBlock) {
          // Booked while a block settles its matches, by none of its executions: not taken into the bust check's
          // picture of the account (a bust of this account's fill next compares with the state before it).
          this.strayEntry ??= entry;
          break;
        }
        this.settled.changed(entry.accountId);
        break;
      }
      case "block":
        this.blockCame(output.number, output.timeMicros);
        this.stats.blocksChecked++;
        if (this.stats.blocksChecked % (this.options.everyBlocks ?? 1) === 0) {
          // The block's liquidation step has just run (Exchange.afterBlock emits "block" after it).
          const now = this.exchange.now();
          if (this.touchedAtMicros === now) this.stats.liquidationBlockAccounts += checkLiquidationStep(this.exchange.risk.state, this.touched, now, `block ${output.number}`);
          this.checkState(output.timeMicros);
        }
        this.touched.clear();
        break;
      case "perpSummaries":
        this.checkBlocksRunning();
        // Emitted right after the summary tick's liquidation steps.
        if (this.stats.blocksChecked - this.lastTickCheck >= (this.options.everyBlocks ?? 1)) {
          this.lastTickCheck = this.stats.blocksChecked;
          checkLiquidationTick(this.exchange.risk.state, this.exchange.now());
          this.stats.liquidationTicks++;
          this.stats.fundingRateChecks += checkFundingRates(this.exchange.risk.state, this.exchange.now());
        }
        break;
      default:
        break;
    }
    if (this.strayEntry !== undefined && output.kind !== "transfer") throw this.strayError(output);
  }

  /**
   * The longest a block may take after the one before it, absent a delay (chain.ts scheduleBlock): the interval
   * plus the largest jitter drawn, rng.int(0, blockJitterMicros - 1).
   */
  private blockSlack(): Micros {
    const { blockIntervalMicros, blockJitterMicros } = this.exchange.chain.config;
    return blockIntervalMicros + (blockJitterMicros > 0 ? blockJitterMicros - 1 : 0);
  }

  /** A block came: no later than the one before it + blockSlack, or the end of a block delay. */
  private blockCame(number: number, timeMicros: Micros): void {
    const due = Math.max(this.lastBlockMicros + this.blockSlack(), this.exchange.chain.delayedUntilMicros);
    if (timeMicros > due) throw new InvariantError(`block ${number} came at ${timeMicros}, after ${due}: the block before it was at ${this.lastBlockMicros}, and blocks come every ${this.exchange.chain.config.blockIntervalMicros} us plus a jitter below ${this.exchange.chain.config.blockJitterMicros} us, or at the end of a delay (${this.exchange.chain.delayedUntilMicros})`);
    this.lastBlockMicros = timeMicros;
    this.settledBlock = number;
    this.lastExecutionFillId = undefined;
  }

  /** The chain still makes blocks: one is due by the last one + blockSlack, or the end of a block delay. */
  private checkBlocksRunning(): void {
    const now = this.exchange.now();
    if (now > this.lastBlockMicros + this.blockSlack() && now > this.exchange.chain.delayedUntilMicros) {
      throw new InvariantError(`no block since ${this.lastBlockMicros} (now ${now}): blocks come every ${this.exchange.chain.config.blockIntervalMicros} us plus a jitter below ${this.exchange.chain.config.blockJitterMicros} us, or at the end of a delay (${this.exchange.chain.delayedUntilMicros}); a chain that stops leaves every match pending, and no state check runs`);
    }
  }

  /** A Transfer entry naming a fill must follow that fill's execution (Exchange.publish*Execution books its entries right after it). */
  private misnamedEntry(entry: Transfer): InvariantError {
    const fillId = entry.fillId!;
    const what = `transfer entry ${entry.id} (${entry.type} ${entry.amount} ${entry.asset}, account ${entry.accountId}) names fill ${fillId}`;
    const ended = this.ended.get(fillId);
    const why = this.openFills.has(fillId) || this.exchange.desk.isPending(fillId)
      ? "which has not settled: a pending match moves no balance"
      : ended === "busted"
        ? "which busted: a busted match leaves balances as they were without it"
        : `but it does not follow that fill's execution (the last execution published is ${this.lastExecutionFillId ?? "none since the last bust or block"}): an execution's entries are booked with it`;
    return new InvariantError(`${what}, ${why}`);
  }

  /** The output after a stray entry (one booked while a block settled its matches, naming none of them). */
  private strayError(output: ExchangeOutput): InvariantError {
    const entry = this.strayEntry!;
    const what = `transfer entry ${entry.id} (${entry.type} ${entry.amount} ${entry.asset}, account ${entry.accountId}) was booked while block ${this.exchange.chain.height} settled its matches, and names none of them`;
    if (output.kind === "bust") {
      return new InvariantError(`bust of fill ${output.record.fillId} follows ${what}: a bust moves no balance, and in a block only a settled execution's entries do`);
    }
    return new InvariantError(`${what}: in a block, only a settled execution's entries move balances`);
  }

  private touch(accountId: number): void {
    const now = this.exchange.now();
    if (now !== this.touchedAtMicros) {
      this.touched.clear();
      this.touchedAtMicros = now;
    }
    this.touched.add(accountId);
  }

  private sequence(kind: "perp" | "spot" | "bust", sequenceNumber: number): void {
    if (sequenceNumber !== this.lastSequence[kind] + 1) assert(false, `${kind} sequence jumped from ${this.lastSequence[kind]} to ${sequenceNumber}`);
    this.lastSequence[kind] = sequenceNumber;
  }

  private settle(fillId: string): void {
    this.end(fillId, "settled");
  }

  private end(fillId: string, how: "settled" | "busted"): void {
    const before = this.ended.get(fillId);
    if (before !== undefined) throw new InvariantError(`fill ${fillId} ${how} after it already ${before}`);
    this.ended.set(fillId, how);
    this.openFills.delete(fillId);
  }

  /**
   * Moves the replayed position; returns it as it was before, or undefined
   * when the checker cannot know it: it started on a state holding positions
   * and has seen no execution of this one.
   */
  private move(accountId: number, symbol: string, delta: bigint): bigint | undefined {
    let positions = this.replayed.get(accountId);
    if (positions === undefined) {
      positions = new Map();
      this.replayed.set(accountId, positions);
    }
    const before = positions.get(symbol);
    positions.set(symbol, (before ?? 0n) + delta);
    return before ?? (this.startedFlat ? 0n : undefined);
  }

  /** The expensive checks: run after every block (or every `everyBlocks`), then with the block's time. */
  checkState(blockMicros?: Micros): void {
    const { exchange } = this;
    const now = exchange.now();
    for (const fillId of this.openFills.keys()) {
      if (!exchange.desk.isPending(fillId)) assert(false, `fill ${fillId} neither settled nor busted, yet no longer pending`);
    }
    this.checkChain(now, blockMicros);
    this.checkBlocksRunning();
    const state = exchange.risk.state;
    for (const line of conservation(state, now)) {
      if (line.holdings !== line.netDeposits) assert(false, `conservation of ${line.asset}: holdings ${line.holdings} != net deposits ${line.netDeposits}`);
    }
    checkOpenInterest(state);
    checkFunding(state, now);
    this.stats.accountSumAudits += this.accountSums.check(state);
    this.checkReplay();
    this.stats.positionMessagesCompared += this.positionsPublished.check(
      (wallet) => exchange.risk.accountsOf(wallet),
      (accountId) => this.replayed.get(accountId),
    );
    this.ledger.check();
    checkPendingMatches(state, this.openFills);
    this.stats.restingOrdersCompared += checkRestingOrders(state, exchange.engine);
    // After the mirrors: a hold is recomputed from the pending matches and resting orders they vouched for.
    this.stats.holdAccountsChecked += checkHolds(state);
    exchange.engine.checkInvariants();
    this.stats.stateChecks++;
  }

  /**
   * Every fill neither settled nor busted is in the chain's queue, and no match there is past its block: each
   * became eligible at the time it was made plus a latency in [settlementLatencyMinMicros, settlementLatencyMaxMicros],
   * and the first block after that (within blockSlack, or at the end of a block delay) settles or busts it; right
   * after a block, none eligible before the block's time is left (one made in the block, after its matches, by a
   * stop its executions fired, is eligible at the block's time at the earliest). O(pending).
   */
  private checkChain(now: Micros, blockMicros: Micros | undefined): void {
    const chain = this.exchange.chain;
    const { settlementLatencyMinMicros: latencyMin, settlementLatencyMaxMicros: latencyMax } = chain.config;
    const slack = this.blockSlack();
    const delayedUntil = chain.delayedUntilMicros;
    let held = 0;
    for (const entry of chain.pendingEntries()) {
      const fillId = entry.match.fill.fillId;
      const madeAt = this.openFills.get(fillId);
      if (madeAt !== undefined) {
        held++;
        if (entry.eligibleAt < madeAt + latencyMin || entry.eligibleAt > madeAt + latencyMax) {
          assert(false, `fill ${fillId}, made at ${madeAt}, becomes eligible at ${entry.eligibleAt}: a match becomes eligible after a settlement latency in [${latencyMin}, ${latencyMax}] us`);
        }
      }
      if (now > entry.eligibleAt + slack && now > delayedUntil) {
        assert(false, `fill ${fillId}, eligible since ${entry.eligibleAt}, is neither settled nor busted at ${now}: the first block after it became eligible (within ${slack} us, or at the end of a block delay, ${delayedUntil}) settles or busts it`);
      }
      if (blockMicros !== undefined && entry.eligibleAt < blockMicros) {
        assert(false, `fill ${fillId}, eligible since ${entry.eligibleAt}, is neither settled nor busted at ${now}, after the block of ${blockMicros}: a block settles or busts every match eligible by its time`);
      }
    }
    this.stats.chainMatchesChecked += chain.pendingEntries().length;
    if (held === this.openFills.size) return;
    for (const [fillId, madeAt] of this.openFills) {
      if (!chain.pendingEntries().some((entry) => entry.match.fill.fillId === fillId)) {
        assert(false, `fill ${fillId}, made at ${madeAt}, is neither settled nor busted, but the chain no longer holds it: it will never get a block (eligible by ${madeAt + latencyMax}, its block due by ${Math.max(madeAt + latencyMax + slack, delayedUntil)})`);
      }
    }
  }

  private checkReplay(): void {
    const actual = new Map<string, bigint>();
    for (const account of this.exchange.risk.state.accounts.values()) {
      for (const position of account.positions.values()) {
        if (position.q !== 0n) actual.set(`${account.id}/${position.market.config.symbol}`, position.q);
      }
    }
    let replayedCount = 0;
    for (const [accountId, positions] of this.replayed) {
      for (const [symbol, replayed] of positions) {
        const key = `${accountId}/${symbol}`;
        const held = actual.get(key) ?? 0n;
        if (replayed !== held) assert(false, `position ${key} is ${held} but its settled executions sum to ${replayed} (10^18)`);
        if (replayed !== 0n) replayedCount++;
      }
    }
    if (replayedCount !== actual.size) {
      for (const [key, held] of actual) {
        const [accountId, symbol] = key.split("/") as [string, string];
        if (this.replayed.get(Number(accountId))?.get(symbol) === undefined) assert(false, `position ${key} is ${held} (10^18) with no settled execution`);
      }
    }
  }
}
