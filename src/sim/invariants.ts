/**
 * Invariants of a running Exchange, checked from its output stream and its
 * state. Cheap ones are checked on every output; the expensive ones (O(all
 * accounts)) after every block. A violation throws an InvariantError naming
 * the invariant, so a seeded run that breaks one stops at the same output
 * every time.
 *
 * - Settlement: every match ends, once its block has passed, as exactly one
 *   execution or exactly one bust, never both, never neither.
 * - Sequences: perp execution, spot execution and bust sequence numbers each
 *   increase by exactly 1.
 * - Conservation (per asset, exact): balances + fees + open claims +
 *   residual = net deposits (the risk layer's audit).
 * - Open interest: long = short in every market.
 * - Replay: each account's settled perp position equals the sum of the
 *   settled executions it took part in (so a busted match left no trace).
 * - The engine's own book invariants (never crossed, levels sum to orders).
 */
import { assert, InvariantError } from "../core/assert.ts";
import { toE18 } from "../core/decimal.ts";
import type { Exchange } from "../exchange/exchange.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import { conservation, openInterest } from "../risk/audit.ts";

export interface InvariantStats {
  blocksChecked: number;
  fillsSeen: number;
  executions: number;
  busts: number;
}

export class ExchangeInvariants {
  readonly stats: InvariantStats = { blocksChecked: 0, fillsSeen: 0, executions: 0, busts: 0 };
  /** Fills seen on order updates that have not yet ended as an execution or a bust. */
  private readonly openFills = new Set<string>();
  /** Every fill that ended, and how (to catch a second ending). */
  private readonly ended = new Map<string, "settled" | "busted">();
  private readonly lastSequence = { perp: 0, spot: 0, bust: 0 };
  /** Signed settled position (10^18 fixed point) per "accountId/symbol", summed from the settled executions. */
  private readonly replayed = new Map<string, bigint>();
  private readonly unsubscribe: () => void;

  constructor(private readonly exchange: Exchange, private readonly options: { everyBlocks?: number } = {}) {
    this.unsubscribe = exchange.subscribe((output) => this.observe(output));
  }

  stop(): void {
    this.unsubscribe();
  }

  private observe(output: ExchangeOutput): void {
    switch (output.kind) {
      case "order": {
        const { firstFillId, fillCount } = output.row;
        if (firstFillId !== undefined && fillCount !== undefined) {
          let id = BigInt(firstFillId);
          for (let i = 0; i < fillCount; i++, id++) {
            const fillId = id.toString();
            if (!this.ended.has(fillId) && !this.openFills.has(fillId)) {
              this.openFills.add(fillId);
              this.stats.fillsSeen++;
            }
          }
        }
        break;
      }
      case "perpExecution": {
        const record = output.record;
        this.sequence("perp", record.sequenceNumber);
        if (record.type === "ORDER_MATCH") this.settle(record.fillId);
        const qty = toE18(record.qty, "qty");
        const takerDelta = record.side === "B" ? qty : -qty;
        this.move(record.takerAccountId, record.symbol, takerDelta);
        if (record.makerAccountId !== undefined) this.move(record.makerAccountId, record.symbol, -takerDelta);
        this.stats.executions++;
        break;
      }
      case "spotExecution":
        this.sequence("spot", output.record.sequenceNumber);
        this.settle(output.record.fillId);
        this.stats.executions++;
        break;
      case "bust":
        this.sequence("bust", output.record.sequenceNumber);
        this.end(output.record.fillId, "busted");
        this.stats.busts++;
        break;
      case "block":
        this.stats.blocksChecked++;
        if (this.stats.blocksChecked % (this.options.everyBlocks ?? 1) === 0) this.checkState();
        break;
      default:
        break;
    }
  }

  private sequence(kind: "perp" | "spot" | "bust", sequenceNumber: number): void {
    assert(sequenceNumber === this.lastSequence[kind] + 1, `${kind} sequence jumped from ${this.lastSequence[kind]} to ${sequenceNumber}`);
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

  private move(accountId: number, symbol: string, delta: bigint): void {
    const key = `${accountId}/${symbol}`;
    this.replayed.set(key, (this.replayed.get(key) ?? 0n) + delta);
  }

  /** The expensive checks: run after every block (or every `everyBlocks`). */
  checkState(): void {
    const { exchange } = this;
    const now = exchange.now();
    for (const fillId of this.openFills) {
      assert(exchange.desk.isPending(fillId), `fill ${fillId} neither settled nor busted, yet no longer pending`);
    }
    for (const line of conservation(exchange.risk.state, now)) {
      assert(line.holdings === line.netDeposits, `conservation of ${line.asset}: holdings ${line.holdings} != net deposits ${line.netDeposits}`);
    }
    for (const line of openInterest(exchange.risk.state)) {
      assert(line.long === line.short, `open interest of market ${line.marketId}: long ${line.long} != short ${line.short}`);
      assert(line.long === line.longFromPositions, `open interest of market ${line.marketId}: long ${line.long} != sum of long positions ${line.longFromPositions}`);
    }
    this.checkReplay();
    exchange.engine.checkInvariants();
  }

  private checkReplay(): void {
    const actual = new Map<string, bigint>();
    for (const account of this.exchange.risk.state.accounts.values()) {
      for (const position of account.positions.values()) {
        if (position.q !== 0n) actual.set(`${account.id}/${position.market.config.symbol}`, position.q);
      }
    }
    for (const [key, replayed] of this.replayed) {
      const held = actual.get(key) ?? 0n;
      assert(replayed === held, `position ${key} is ${held} but its settled executions sum to ${replayed} (10^18)`);
    }
    for (const [key, held] of actual) {
      assert(this.replayed.has(key), `position ${key} is ${held} (10^18) with no settled execution`);
    }
  }
}
