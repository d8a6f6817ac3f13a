/**
 * The simulated chain: blocks on the virtual clock, each settling the
 * matches that became eligible before it.
 *
 * A match enters the pending queue when the engine makes it and becomes
 * eligible after a settlement latency drawn from a seeded stream. Each block
 * (every `blockIntervalMicros`, plus a seeded jitter) takes the eligible
 * matches in the order they were made and asks the handler to validate each
 * against the settled state at block time: a valid match settles, an invalid
 * one busts. Injected faults (a bust probability, "bust the next N", blocks
 * delayed through a window) act here; market pauses and stale signatures are
 * validation failures the handler reports.
 *
 * Why busts happen at all: the engine admits orders against settled state
 * plus pending matches (optimistic), while the chain validates each match
 * against settled state alone at block time, after other matches, funding
 * and price moves have landed. The gap between the two is what busts.
 */
import { assert } from "../core/assert.ts";
import type { Rng } from "../core/rng.ts";
import type { Scheduler } from "../core/scheduler.ts";
import type { Micros } from "../core/time.ts";

/** An ExecutionBust reason: `reasonName` plus the variant's fields (see the spec module). */
export type BustReason = { reasonName: string } & Record<string, unknown>;

export interface ChainConfig {
  /** Time between blocks. Default 100 ms. */
  blockIntervalMicros: Micros;
  /** Each block is late by a uniform draw in [0, blockJitterMicros). Default 0. */
  blockJitterMicros: Micros;
  /** A match becomes eligible after a uniform draw in [min, max] of latency. Default 0..0. */
  settlementLatencyMinMicros: Micros;
  settlementLatencyMaxMicros: Micros;
  /** Probability that a valid match is busted anyway (an injected fault). Default 0. */
  bustProbability: number;
  /** The reason given to injected busts. */
  injectedBustReason: BustReason;
}

export const DEFAULT_CHAIN_CONFIG: ChainConfig = {
  blockIntervalMicros: 100_000,
  blockJitterMicros: 0,
  settlementLatencyMinMicros: 0,
  settlementLatencyMaxMicros: 0,
  bustProbability: 0,
  injectedBustReason: { reasonName: "UnknownReason", message: "injected settlement failure" },
};

export interface SettlementHandler<M> {
  /** Validates a match against settled state at block time: undefined when it can settle. */
  validate(match: M, blockTime: Micros): BustReason | undefined;
  settle(match: M, blockTime: Micros): void;
  bust(match: M, reason: BustReason, blockTime: Micros): void;
  /** After every block, once its matches are settled or busted. */
  afterBlock?(block: BlockInfo): void;
}

export interface BlockInfo {
  number: number;
  timeMicros: Micros;
  settled: number;
  busted: number;
}

/** A match in the chain's queue, and when it becomes eligible (made at + a latency in [min, max]). */
export interface PendingEntry<M> {
  readonly match: M;
  readonly eligibleAt: Micros;
}

type Pending<M> = PendingEntry<M>;

/** Why `config` cannot run a chain, or null. The rules of validateChainConfig, as a message (a scenario's check reports it). */
export function chainConfigProblem(config: ChainConfig): string | null {
  if (!(config.blockIntervalMicros > 0)) return `blockIntervalMicros must be positive, got ${config.blockIntervalMicros}`;
  if (!(config.blockJitterMicros >= 0 && config.blockJitterMicros < config.blockIntervalMicros)) {
    return `blockJitterMicros must be in [0, blockIntervalMicros) = [0, ${config.blockIntervalMicros}), got ${config.blockJitterMicros}`;
  }
  if (!(config.settlementLatencyMinMicros >= 0)) return `settlementLatencyMinMicros must be non-negative, got ${config.settlementLatencyMinMicros}`;
  if (!(config.settlementLatencyMaxMicros >= config.settlementLatencyMinMicros)) {
    return `settlementLatencyMaxMicros must be at least the minimum (${config.settlementLatencyMinMicros}), got ${config.settlementLatencyMaxMicros}`;
  }
  if (!(config.bustProbability >= 0 && config.bustProbability <= 1)) return `bustProbability must be in [0, 1], got ${config.bustProbability}`;
  // Times are whole microseconds (safe integers): a fraction or a number past 2^53 threw later, in a block's timer or in
  // the engine's fill sink (rng.int, the scheduler); an infinite latency left every match pending, never settled nor busted.
  for (const key of ["blockIntervalMicros", "blockJitterMicros", "settlementLatencyMinMicros", "settlementLatencyMaxMicros"] as const) {
    if (!Number.isSafeInteger(config[key])) return `${key} must be a whole number of microseconds (a safe integer), got ${config[key]}`;
  }
  return null;
}

export function validateChainConfig(config: ChainConfig): void {
  const problem = chainConfigProblem(config);
  assert(problem === null, problem ?? "");
}

export class Chain<M> {
  private pending: Pending<M>[] = [];
  private blockNumber = 0;
  private nextBlockTimer: number | undefined;
  private delayedUntil: Micros = -Infinity;
  private bustNextCount = 0;
  private bustNextReason: BustReason | ((match: M) => BustReason) | undefined;
  readonly config: ChainConfig;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly handler: SettlementHandler<M>,
    config: Partial<ChainConfig> = {},
  ) {
    this.config = { ...DEFAULT_CHAIN_CONFIG, ...config };
    validateChainConfig(this.config);
  }

  /** Schedules the first block, one interval from now. */
  start(): void {
    assert(this.nextBlockTimer === undefined, "chain already started");
    this.scheduleBlock(this.scheduler.now() + this.config.blockIntervalMicros);
  }

  /** Queues a match made by the engine now. */
  submit(match: M): void {
    const { settlementLatencyMinMicros: min, settlementLatencyMaxMicros: max } = this.config;
    const latency = max === min ? min : this.rng.int(min, max);
    this.pending.push({ match, eligibleAt: this.scheduler.now() + latency });
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  get height(): number {
    return this.blockNumber;
  }

  /**
   * The queue itself, read-only (for the fuzz invariants): each pending match with the time it becomes eligible,
   * in the order they were made. Not a copy: read it before the chain moves again.
   */
  pendingEntries(): readonly PendingEntry<M>[] {
    return this.pending;
  }

  /**
   * The end of the block-delay window (delayBlocksUntil; -Infinity when blocks were never delayed): no block is
   * produced before it. Absent a delay, the block after one at time t comes at t + blockIntervalMicros + a jitter in
   * [0, blockJitterMicros), so a match eligible at e is settled or busted by max(e + blockIntervalMicros +
   * max(blockJitterMicros - 1, 0), delayedUntilMicros).
   */
  get delayedUntilMicros(): Micros {
    return this.delayedUntil;
  }

  /** Pending matches in the order they were made (for state dumps and optimistic views). */
  pendingMatches(): readonly M[] {
    return this.pending.map((entry) => entry.match);
  }

  /** Busts the next `count` matches that would otherwise settle, with `reason` (or the reason made for each match). */
  bustNext(count: number, reason: BustReason | ((match: M) => BustReason)): void {
    assert(Number.isSafeInteger(count) && count >= 0, "bustNext count must be a non-negative integer");
    this.bustNextCount = count;
    this.bustNextReason = reason;
  }

  /**
   * No block is produced before `untilMicros`; the first one after it settles the backlog. A fraction of a
   * microsecond (a fault of 1000 / 3 ms) is rounded up: blocks stay on whole microseconds, the scheduler's unit
   * (the simulator refused the fractional block time, the manual scheduler ran the exchange on it).
   */
  delayBlocksUntil(untilMicros: Micros): void {
    const until = Math.ceil(untilMicros);
    assert(Number.isSafeInteger(until), `delayBlocksUntil ${untilMicros} must be a safe integer of microseconds`);
    this.delayedUntil = Math.max(this.delayedUntil, until);
  }

  setBustProbability(probability: number): void {
    assert(probability >= 0 && probability <= 1, "bustProbability must be in [0, 1]");
    this.config.bustProbability = probability;
  }

  private scheduleBlock(at: Micros): void {
    const jitter = this.config.blockJitterMicros > 0 ? this.rng.int(0, this.config.blockJitterMicros - 1) : 0;
    const time = Math.max(at + jitter, this.delayedUntil);
    this.nextBlockTimer = this.scheduler.schedule(time, () => this.produceBlock());
  }

  private produceBlock(): void {
    const blockTime = this.scheduler.now();
    if (blockTime < this.delayedUntil) {
      this.nextBlockTimer = this.scheduler.schedule(this.delayedUntil, () => this.produceBlock());
      return;
    }
    this.blockNumber++;
    let settled = 0;
    let busted = 0;
    const stillPending: Pending<M>[] = [];
    const due = this.pending;
    this.pending = stillPending;
    for (const entry of due) {
      if (entry.eligibleAt > blockTime) {
        stillPending.push(entry);
        continue;
      }
      const reason = this.handler.validate(entry.match, blockTime) ?? this.injectedFault(entry.match);
      if (reason === undefined) {
        this.handler.settle(entry.match, blockTime);
        settled++;
      } else {
        this.handler.bust(entry.match, reason, blockTime);
        busted++;
      }
    }
    this.handler.afterBlock?.({ number: this.blockNumber, timeMicros: blockTime, settled, busted });
    this.scheduleBlock(blockTime + this.config.blockIntervalMicros);
  }

  private injectedFault(match: M): BustReason | undefined {
    if (this.bustNextCount > 0) {
      this.bustNextCount--;
      const reason = this.bustNextReason!;
      return typeof reason === "function" ? reason(match) : reason;
    }
    if (this.config.bustProbability > 0 && this.rng.bernoulli(this.config.bustProbability)) {
      return this.config.injectedBustReason;
    }
    return undefined;
  }
}
