/**
 * Order state transitions, row by row (spec 3.1; issue 3 "only the
 * transitions of section 3.1 occur").
 *
 * `TransitionChecker` follows every order row of a run, per orderId, and
 * accepts a row only when the pair (previous state -> new state, cancel
 * reason) is legal for the order's kind (LIMIT or stop, and its time in
 * force) and for what produced the row (the command of the batch, and the
 * row's role in it). The legal set is spec 3.1's table, completed by the
 * issue's order behaviours for the transitions the spec leaves "not shown"
 * (risk, OCO, position-closed, protective sweep):
 *
 *  role                  | from                  | to / reason
 *  ----------------------|-----------------------|------------------------------------------------
 *  entry, LIMIT          | (none)                | OPEN (not IOC), FILLED; CANCELLED with
 *  (create response)     |                       |   NO_LIQUIDITY (IOC, nothing filled), IOC_REMAINDER
 *                        |                       |   (IOC, partly filled), SELF_TRADE_PREVENTION, RISK_REJECTED
 *  entry, stop           | (none)                | OPEN, triggered=false, nothing filled (armed)
 *  fire (stop's child    | OPEN, triggered=false | triggered=true and: OPEN (not IOC), FILLED; CANCELLED
 *  taking the book)      |                       |   with NO_LIQUIDITY / IOC_REMAINDER (IOC) or RISK_REJECTED;
 *                        |                       |   never SELF_TRADE_PREVENTION (a child sweeps instead)
 *  modify response, LIMIT| OPEN                  | OPEN, FILLED; CANCELLED with SELF_TRADE_PREVENTION or RISK_REJECTED
 *  modify response, stop | OPEN, armed           | OPEN, armed, nothing filled
 *  cancel response       | OPEN                  | CANCELLED USER_CANCEL
 *  maker fill            | OPEN, resting         | OPEN or FILLED, one fill (fillCount 1)
 *  shrink                | OPEN, resting child   | OPEN, smaller qty (position changed)
 *  passive cancel        | OPEN                  | CANCELLED with MASS_CANCEL (cancelAll), CANCEL_ALL_AFTER
 *                        |                       |   (its timer; never a stop), GTT_EXPIRED (timer; GTT only,
 *                        |                       |   not before the expiry), RISK_CANCELLED or
 *                        |                       |   PROTECTIVE_SELF_TRADE_SWEEP (a resting maker of a round),
 *                        |                       |   OCO_SIBLING_FIRED (a stop, armed or fired, when its sibling fires),
 *                        |                       |   POSITION_CLOSED (stops only: when the position changes,
 *                        |                       |   an armed stop firing without a position, or a resting
 *                        |                       |   child met in a round with nothing left to reduce)
 *
 * and always: nothing after FILLED or CANCELLED; a reason exactly on
 * CANCELLED; cumQty <= qty and never decreasing, execQty = the increase of
 * cumQty, fills exactly on rows that execute; triggered never on a LIMIT
 * and never true -> false; FEED_RESET never. Fill ranges are gap-free over
 * the whole run: the taker rows' [firstFillId, +fillCount) ranges tile the
 * fill-id sequence, and so do the maker rows (one fill each), each fill
 * named by exactly one taker row and one maker row of its own orders.
 *
 * The property drives random command streams (the generator of
 * properties.test.ts, copied: that file exports nothing; abnormal market
 * states made rarer so that more orders trade, and `size: "max"` so that
 * streams really reach up to 200 commands: fast-check's default size keeps
 * arrays within minLength + 30) through the engine, and also asserts that
 * the streams reached every cancel reason
 * and the main transitions, so the check is not vacuous. Unit tests show
 * the checker accepting legal sequences and rejecting hand-made illegal ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/engine.ts";
import type { OrderUpdate } from "../../src/engine/events.ts";
import {
  DEFAULT_ENGINE_CONFIG,
  type CancelReason,
  type CreateOrderCommand,
  type Fill,
  type ModifyOrderCommand,
  type OrderStatus,
  type OrderType,
  type TimeInForce,
} from "../../src/engine/types.ts";
import { commandArbitrary, engineWithStandInRisk, createCommandOf, modifyCommandOf, type Command } from "./command-stream.ts";
import { SEC, T0 } from "./helpers.ts";

// ---------------------------------------------------------------------------
// The checker

/** What the checker reads of one order row. */
interface Row {
  readonly orderId: string;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  readonly status: OrderStatus;
  readonly cancelReason: CancelReason | null;
  readonly qtyLots: number;
  readonly cumLots: number;
  readonly execLots: number;
  readonly fillCount: number;
  readonly firstFillId: bigint | null;
  readonly triggered: boolean;
  /** Unix seconds, 0 when none. */
  readonly expiresAfterSec: number;
  /** The row's update time. */
  readonly atMicros: number;
}

interface FillRef {
  readonly fillId: bigint;
  readonly takerOrderId: string;
  readonly makerOrderId: string;
  readonly qtyLots: number;
}

/** What produced a batch of rows: one engine call. */
type Cause = "create" | "modify" | "cancel" | "cancelAll" | "cancelAllAfter" | "timer" | "mark" | "state" | "position";

interface Batch {
  readonly cause: Cause;
  /** The order a create (its response), modify or cancel names. */
  readonly target?: string;
  /** The request was refused: it must emit nothing. */
  readonly rejected?: boolean;
  readonly rows: readonly Row[];
  readonly fills: readonly FillRef[];
}

interface State {
  readonly status: OrderStatus;
  readonly cumLots: number;
  readonly qtyLots: number;
  readonly triggered: boolean;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
}

type Role = "entry" | "fire" | "modify" | "cancel" | "passive";

/** A stop fires in a batch of these causes (a mark, a market state change, arming or modifying a stop). */
const FIRE_CAUSES: readonly Cause[] = ["mark", "state", "create", "modify"];

class TransitionChecker {
  readonly violations: string[] = [];
  /** Transitions seen, as "KIND from -> to reason" (for coverage). */
  readonly seen = new Set<string>();
  private readonly states = new Map<string, State>();
  private nextTakerFill: bigint;
  private nextMakerFill: bigint;
  private nextFill: bigint;

  constructor(
    firstFillId: bigint = DEFAULT_ENGINE_CONFIG.firstFillId,
    private readonly stopMarginMicros = DEFAULT_ENGINE_CONFIG.stopSettlementMarginMicros,
  ) {
    this.nextTakerFill = firstFillId;
    this.nextMakerFill = firstFillId;
    this.nextFill = firstFillId;
  }

  /** Checks the rows of one engine call; returns the violations it found (also kept in `violations`). */
  batch(batch: Batch): string[] {
    const found: string[] = [];
    const fail = (message: string) => found.push(`${batch.cause}${batch.target === undefined ? "" : ` of ${batch.target}`}: ${message}`);
    if (batch.rejected === true) {
      if (batch.rows.length + batch.fills.length > 0) fail("a rejected request emitted rows or fills");
      this.violations.push(...found);
      return found;
    }
    const fills = new Map<bigint, FillRef>();
    for (const fill of batch.fills) {
      if (fill.fillId !== this.nextFill) fail(`fill id ${fill.fillId} follows ${this.nextFill - 1n}: a gap or a repeat`);
      this.nextFill = fill.fillId + 1n;
      fills.set(fill.fillId, fill);
    }
    const targetRow = batch.rows.find((row) => row.orderId === batch.target);
    const targetIsStop = targetRow !== undefined && targetRow.orderType !== "LIMIT";
    const firesHere = batch.cause === "mark" || batch.cause === "state" || ((batch.cause === "create" || batch.cause === "modify") && targetIsStop);
    let targetSeen = false;
    for (const row of batch.rows) {
      const isTargetRow = row.orderId === batch.target && !targetSeen;
      if (isTargetRow) targetSeen = true;
      const before = this.states.get(row.orderId);
      const problem = this.checkRow(row, before, batch, isTargetRow, firesHere, fills);
      if (problem !== null) fail(`order ${row.orderId} (${kindOf(row)}): ${describeRow(before, row)}: ${problem}`);
      this.states.set(row.orderId, {
        status: row.status,
        cumLots: row.cumLots,
        qtyLots: row.qtyLots,
        triggered: row.triggered,
        orderType: row.orderType,
        timeInForce: row.timeInForce,
      });
      this.seen.add(`${kindOf(row)} ${before === undefined ? "(none)" : stateName(before)} -> ${stateName(row)}${row.cancelReason === null ? "" : ` ${row.cancelReason}`}`);
    }
    if (this.nextTakerFill !== this.nextFill) fail(`taker rows cover fills up to ${this.nextTakerFill - 1n}, the fills go to ${this.nextFill - 1n}`);
    if (this.nextMakerFill !== this.nextFill) fail(`maker rows cover fills up to ${this.nextMakerFill - 1n}, the fills go to ${this.nextFill - 1n}`);
    this.nextTakerFill = this.nextMakerFill = this.nextFill;
    this.violations.push(...found);
    return found;
  }

  private roleOf(row: Row, before: State | undefined, batch: Batch, isTargetRow: boolean): Role | string {
    if (before === undefined) {
      if (batch.cause !== "create" || !isTargetRow) return "a first row that is not the response of the order's own create";
      return "entry";
    }
    if (row.triggered && !before.triggered) return "fire";
    if (isTargetRow && batch.cause === "modify") return "modify";
    if (isTargetRow && batch.cause === "cancel") return "cancel";
    return "passive";
  }

  private checkRow(row: Row, before: State | undefined, batch: Batch, isTargetRow: boolean, firesHere: boolean, fills: Map<bigint, FillRef>): string | null {
    const isStop = row.orderType !== "LIMIT";
    const isIoc = row.timeInForce === "IOC";
    const reason = row.cancelReason;

    // -- rules of every row
    if (before !== undefined && before.status !== "OPEN") return `a row after ${before.status}, which is final`;
    if (before !== undefined && (before.orderType !== row.orderType || before.timeInForce !== row.timeInForce)) return "the order's kind changed";
    if ((row.status === "CANCELLED") !== (reason !== null)) return "a cancel reason must be set exactly on CANCELLED";
    if (reason === "FEED_RESET") return "FEED_RESET is never emitted";
    if (!isStop && row.triggered) return "a LIMIT is never triggered";
    if (before !== undefined && before.triggered && !row.triggered) return "triggered went from true to false";
    const cumBefore = before?.cumLots ?? 0;
    if (row.cumLots < cumBefore) return `cumQty decreased from ${cumBefore}`;
    if (row.cumLots > row.qtyLots) return "cumQty above qty";
    if (row.execLots !== row.cumLots - cumBefore) return `execQty ${row.execLots} is not the increase of cumQty (${row.cumLots - cumBefore})`;
    const hasFills = row.fillCount > 0;
    if (hasFills !== row.execLots > 0 || hasFills !== (row.firstFillId !== null)) return "execQty, fillCount and firstFillId must come together";
    const armed = isStop && !row.triggered;
    if (row.status === "FILLED" && row.cumLots !== row.qtyLots) return "FILLED with cumQty below qty";
    if (row.status === "OPEN" && !armed && row.cumLots >= row.qtyLots) return "OPEN with nothing left to fill";
    if (armed && row.cumLots !== 0) return "an armed stop has filled";

    const role = this.roleOf(row, before, batch, isTargetRow);
    if (role !== "entry" && role !== "fire" && role !== "modify" && role !== "cancel" && role !== "passive") return role;
    const isTaker = role === "entry" ? !isStop : role === "fire" || (role === "modify" && !isStop);
    if (hasFills) {
      const problem = isTaker ? this.takerFills(row, fills) : this.makerFill(row, fills);
      if (problem !== null) return problem;
    }
    const resting = before !== undefined && (isStop ? before.triggered : !isIoc);

    switch (role) {
      case "entry": {
        if (isStop) return row.status === "OPEN" && !row.triggered && row.cumLots === 0 ? null : "a stop is created armed (OPEN, triggered=false, nothing filled)";
        if (row.status === "OPEN") return isIoc ? "an IOC never rests" : null;
        if (row.status === "FILLED") return null;
        return this.takerCancel(row, true);
      }
      case "fire": {
        if (!isStop) return "only a stop fires";
        if (!FIRE_CAUSES.includes(batch.cause) || !firesHere) return `a stop fired in a ${batch.cause} batch`;
        if (row.status === "OPEN") return isIoc ? "an IOC child never rests" : null;
        if (row.status === "FILLED") return null;
        return this.takerCancel(row, false);
      }
      case "modify": {
        if (isStop) {
          if (before!.triggered) return "a fired child is never modified";
          return row.status === "OPEN" && !hasFills && row.qtyLots === before!.qtyLots ? null : "a stop's modify keeps it armed and unfilled";
        }
        if (row.qtyLots <= before!.cumLots) return "a modify sets qty at or below cumQty";
        if (row.status !== "CANCELLED") return null;
        return reason === "SELF_TRADE_PREVENTION" || reason === "RISK_REJECTED" ? null : `${reason} on a modify's own row`;
      }
      case "cancel":
        if (row.status !== "CANCELLED" || reason !== "USER_CANCEL") return "a cancelOrder ends its target with USER_CANCEL";
        return this.unchangedBy(row, before!);
      case "passive":
        return this.passive(row, before!, batch, resting, firesHere);
    }
  }

  /** CANCELLED on a taker's own row (entry or fire): the reasons a matching round may leave. */
  private takerCancel(row: Row, isEntry: boolean): string | null {
    const isIoc = row.timeInForce === "IOC";
    switch (row.cancelReason) {
      case "NO_LIQUIDITY":
        if (!isIoc) return "NO_LIQUIDITY only on an IOC";
        return row.execLots === 0 ? null : "NO_LIQUIDITY after a fill";
      case "IOC_REMAINDER":
        if (!isIoc) return "IOC_REMAINDER only on an IOC";
        return row.execLots > 0 ? null : "IOC_REMAINDER without a fill";
      case "SELF_TRADE_PREVENTION":
        return isEntry ? null : "a fired child sweeps its own makers: never SELF_TRADE_PREVENTION";
      case "RISK_REJECTED":
        return null;
      default:
        return `${row.cancelReason} is not a reason a matching round gives its taker`;
    }
  }

  private passive(row: Row, before: State, batch: Batch, resting: boolean, firesHere: boolean): string | null {
    const isStop = row.orderType !== "LIMIT";
    const matching = FIRE_CAUSES.includes(batch.cause);
    if (row.execLots > 0) {
      if (!matching) return `a fill in a ${batch.cause} batch`;
      if (!resting) return "a maker fill of an order that does not rest";
      if (row.triggered !== before.triggered || row.qtyLots !== before.qtyLots) return "a maker fill changes only cumQty";
      return row.status === "CANCELLED" ? "a maker fill ends OPEN or FILLED" : null;
    }
    if (row.status === "OPEN") {
      // the only row with no fill and no cancel that nobody asked for: a resting child shrinks to the position
      if (batch.cause === "position" && isStop && before.triggered && row.triggered && row.qtyLots < before.qtyLots && row.cumLots === before.cumLots) return null;
      return "an OPEN row with no fill, not asked for by a create, modify or fire";
    }
    if (row.status === "FILLED") return "FILLED without a fill";
    const unchanged = this.unchangedBy(row, before);
    if (unchanged !== null) return unchanged;
    switch (row.cancelReason) {
      case "MASS_CANCEL":
        return batch.cause === "cancelAll" ? null : "MASS_CANCEL outside cancelAll";
      case "CANCEL_ALL_AFTER":
        if (batch.cause !== "timer") return "CANCEL_ALL_AFTER outside its timer";
        return isStop ? "CANCEL_ALL_AFTER spares protective stops" : null;
      case "GTT_EXPIRED": {
        if (batch.cause !== "timer") return "GTT_EXPIRED outside a timer";
        if (row.timeInForce !== "GTT") return "GTT_EXPIRED only on a GTT";
        const due = row.expiresAfterSec * SEC - (isStop ? this.stopMarginMicros : 0);
        return row.atMicros >= due ? null : `GTT_EXPIRED at ${row.atMicros}, before its expiry at ${due}`;
      }
      case "RISK_CANCELLED":
        if (!matching) return "RISK_CANCELLED outside a matching round";
        return resting ? null : "RISK_CANCELLED only on a resting maker";
      case "PROTECTIVE_SELF_TRADE_SWEEP":
        if (!firesHere) return "PROTECTIVE_SELF_TRADE_SWEEP where no stop fires";
        return resting ? null : "PROTECTIVE_SELF_TRADE_SWEEP only on a resting maker";
      case "OCO_SIBLING_FIRED":
        if (!isStop) return "OCO_SIBLING_FIRED only on a stop";
        return firesHere ? null : "OCO_SIBLING_FIRED where no stop fires";
      case "POSITION_CLOSED":
        if (!isStop) return "POSITION_CLOSED only on a stop";
        if (batch.cause === "position") return null;
        // an armed stop (or its sibling) firing with no position left; a resting child met by a taker with nothing left to reduce
        if (before.triggered ? matching : firesHere) return null;
        return `POSITION_CLOSED in a ${batch.cause} batch`;
      default:
        return `${row.cancelReason} on an order that is not the taker of its own request`;
    }
  }

  private unchangedBy(row: Row, before: State): string | null {
    if (row.execLots !== 0 || row.cumLots !== before.cumLots) return "a cancel fills nothing";
    if (row.qtyLots !== before.qtyLots || row.triggered !== before.triggered) return "a cancel changes only the status";
    return null;
  }

  /** A taker's row: its fills are the next ones, contiguous, all its own as taker. */
  private takerFills(row: Row, fills: Map<bigint, FillRef>): string | null {
    const first = row.firstFillId!;
    if (first !== this.nextTakerFill) return `taker range starts at fill ${first}, expected ${this.nextTakerFill}`;
    let lots = 0;
    for (let i = 0n; i < BigInt(row.fillCount); i++) {
      const fill = fills.get(first + i);
      if (fill === undefined) return `fill ${first + i} of the taker range is not a fill of this request`;
      if (fill.takerOrderId !== row.orderId) return `fill ${first + i} has taker ${fill.takerOrderId}`;
      lots += fill.qtyLots;
    }
    if (lots !== row.execLots) return `the taker range holds ${lots} lots, execQty is ${row.execLots}`;
    this.nextTakerFill = first + BigInt(row.fillCount);
    return null;
  }

  /** A maker's row: exactly one fill, the next one, with it as maker. */
  private makerFill(row: Row, fills: Map<bigint, FillRef>): string | null {
    if (row.fillCount !== 1) return `a maker row with fillCount ${row.fillCount}`;
    const id = row.firstFillId!;
    if (id !== this.nextMakerFill) return `maker fill ${id}, expected ${this.nextMakerFill}`;
    const fill = fills.get(id);
    if (fill === undefined) return `fill ${id} is not a fill of this request`;
    if (fill.makerOrderId !== row.orderId) return `fill ${id} has maker ${fill.makerOrderId}`;
    if (fill.qtyLots !== row.execLots) return `fill ${id} is ${fill.qtyLots} lots, execQty is ${row.execLots}`;
    this.nextMakerFill = id + 1n;
    return null;
  }
}

function kindOf(row: { orderType: OrderType; timeInForce: TimeInForce }): string {
  return `${row.orderType === "LIMIT" ? "LIMIT" : "STOP"} ${row.timeInForce}`;
}

function stateName(state: { status: OrderStatus; triggered: boolean; orderType: OrderType }): string {
  return state.orderType === "LIMIT" || state.status !== "OPEN" ? state.status : `OPEN/${state.triggered ? "fired" : "armed"}`;
}

function describeRow(before: State | undefined, row: Row): string {
  return `${before === undefined ? "(none)" : stateName(before)} -> ${stateName(row)}${row.cancelReason === null ? "" : ` ${row.cancelReason}`}`;
}

function rowOf(update: OrderUpdate): Row {
  const firstFillId = update.firstFillId;
  return {
    orderId: update.orderId,
    orderType: update.orderType,
    timeInForce: update.timeInForce,
    status: update.status,
    cancelReason: update.cancelReason,
    qtyLots: update.qtyLots,
    cumLots: update.cumLots,
    execLots: update.execLots,
    fillCount: update.fillCount,
    firstFillId: firstFillId === null ? null : BigInt(firstFillId),
    triggered: update.triggered,
    expiresAfterSec: update.expiresAfterSec,
    atMicros: update.lastUpdateAtMicros,
  };
}

function fillRefOf(fill: Fill): FillRef {
  return { fillId: BigInt(fill.fillId), takerOrderId: fill.takerOrderId, makerOrderId: fill.makerOrderId, qtyLots: fill.qtyLots };
}

// ---------------------------------------------------------------------------
// Random command streams (test/engine/command-stream.ts; abnormal market states rarer than in properties.test.ts)

const command = commandArbitrary(10);

/** One run: the engine, positions kept from the fills (the risk layer's stand-in), a deterministic risk verdict, and the checker. */
class Run {
  readonly engine: Engine;
  readonly checker = new TransitionChecker();
  private readonly positions: Map<string, number>;
  private now = T0;
  private updates: OrderUpdate[] = [];
  private fills: Fill[] = [];
  private readonly seen: { orderId: string; accountId: number; clientOrderId: string | null; marketId: number }[] = [];
  private readonly known = new Set<string>();

  constructor() {
    const { engine, positions } = engineWithStandInRisk({ orderUpdate: (update) => this.updates.push(update), fill: (fill) => this.fills.push(fill) });
    this.engine = engine;
    this.positions = positions;
  }

  /** Hands the rows and fills of one engine call to the checker; throws on the first violation. */
  private flush(cause: Cause, target?: string, rejected = false): void {
    const found = this.checker.batch({
      cause,
      ...(target === undefined ? {} : { target }),
      rejected,
      rows: this.updates.map(rowOf),
      fills: this.fills.map(fillRefOf),
    });
    for (const update of this.updates) {
      if (this.known.has(update.orderId)) continue;
      this.known.add(update.orderId);
      this.seen.push({ orderId: update.orderId, accountId: update.accountId, clientOrderId: update.clientOrderId, marketId: update.marketId });
    }
    this.updates = [];
    this.fills = [];
    if (found.length > 0) throw new Error(found.join("\n"));
  }

  apply(cmd: Command): void {
    if (cmd.kind === "advance") this.now += cmd.dtMicros;
    this.engine.advanceTo(this.now); // timers due now run before the command, in a batch of their own
    this.flush("timer");
    if (cmd.kind === "advance") return;
    const positionsBefore = new Map(this.positions);
    this.run(cmd);
    this.followPositions(positionsBefore);
  }

  private run(cmd: Exclude<Command, { kind: "advance" }>): void {
    const at = this.now;
    switch (cmd.kind) {
      case "create": {
        const result = this.engine.createOrder(this.createCommand(cmd));
        this.flush("create", result.ok ? result.orderId : undefined, !result.ok);
        return;
      }
      case "cancel": {
        const target = this.pick(cmd.pick);
        if (target === undefined) return;
        const by = cmd.byClientId && target.clientOrderId !== null ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId };
        // by client id, the cancel finds the account's live order with that id, which may be a later order than the one picked
        const named = "clientOrderId" in by ? (this.engine.orderByClientId(target.accountId, by.clientOrderId)?.orderId ?? target.orderId) : target.orderId;
        const result = this.engine.cancelOrder({ atMicros: at, marketId: target.marketId, accountId: target.accountId, ...by });
        this.flush("cancel", named, !result.ok);
        return;
      }
      case "modify": {
        const command = this.modifyCommand(cmd);
        if (command === undefined) return;
        const result = this.engine.modifyOrder(command);
        this.flush("modify", command.orderId, !result.ok);
        return;
      }
      case "cancelAll": {
        const result = this.engine.cancelAll({ atMicros: at, accountId: cmd.accountId, ...(cmd.marketId === 0 ? {} : { marketId: cmd.marketId }) });
        this.flush("cancelAll", undefined, !result.ok);
        return;
      }
      case "cancelAllAfter": {
        const result = this.engine.cancelAllAfter({ atMicros: at, accountId: cmd.accountId, timeoutMs: cmd.timeoutMs });
        this.flush("cancelAllAfter", undefined, !result.ok);
        return;
      }
      case "mark": {
        const result = this.engine.setMarkPrice({ atMicros: at, marketId: 1, priceTicks: cmd.priceTicks });
        this.flush("mark", undefined, !result.ok);
        return;
      }
      case "state": {
        const result = this.engine.setMarketState({ atMicros: at, marketId: 1, halted: cmd.halted, reopening: cmd.reopening, settlementPaused: cmd.settlementPaused });
        this.flush("state", undefined, !result.ok);
        return;
      }
    }
  }

  private createCommand(cmd: Extract<Command, { kind: "create" }>): CreateOrderCommand {
    return createCommandOf(cmd, this.now);
  }

  private pick(n: number) {
    return this.seen.length === 0 ? undefined : this.seen[n % this.seen.length];
  }

  private modifyCommand(cmd: Extract<Command, { kind: "modify" }>): (ModifyOrderCommand & { orderId: string }) | undefined {
    const target = this.pick(cmd.pick);
    const order = target === undefined ? undefined : this.engine.order(target.orderId);
    return order === undefined ? undefined : modifyCommandOf(cmd, order, this.now);
  }

  /** What the exchange does after a command: tell the engine whose positions changed (one batch each). */
  private followPositions(before: Map<string, number>): void {
    for (const [key, lots] of this.positions) {
      if ((before.get(key) ?? 0) === lots) continue;
      const accountId = Number(key.split(":")[0]);
      const result = this.engine.positionChanged({ atMicros: this.now, accountId, marketId: 1 });
      this.flush("position", undefined, !result.ok);
    }
  }
}

// ---------------------------------------------------------------------------
// Hand-made rows for the checker's own tests

const defaults: Row = {
  orderId: "1",
  orderType: "LIMIT",
  timeInForce: "GTC",
  status: "OPEN",
  cancelReason: null,
  qtyLots: 10,
  cumLots: 0,
  execLots: 0,
  fillCount: 0,
  firstFillId: null,
  triggered: false,
  expiresAfterSec: 0,
  atMicros: T0,
};

function row(fields: Partial<Row>): Row {
  return { ...defaults, ...fields };
}

const F0 = DEFAULT_ENGINE_CONFIG.firstFillId;

/** Runs batches through a fresh checker; returns every violation. */
function violationsOf(batches: readonly Batch[]): string[] {
  const checker = new TransitionChecker();
  for (const batch of batches) checker.batch(batch);
  return checker.violations;
}

/** A legal start: maker "1" rests 10 lots; taker "2" (IOC) takes 4 of them in fill F0. */
const restAndTake: readonly Batch[] = [
  { cause: "create", target: "1", rows: [row({ orderId: "1" })], fills: [] },
  {
    cause: "create",
    target: "2",
    rows: [
      row({ orderId: "1", cumLots: 4, execLots: 4, fillCount: 1, firstFillId: F0 }),
      row({ orderId: "2", timeInForce: "IOC", status: "FILLED", qtyLots: 4, cumLots: 4, execLots: 4, fillCount: 1, firstFillId: F0 }),
    ],
    fills: [{ fillId: F0, takerOrderId: "2", makerOrderId: "1", qtyLots: 4 }],
  },
];

describe("TransitionChecker on hand-made rows", () => {
  it("accepts legal sequences: rest, partial maker fill, IOC taker, cancel; stop armed, fired (sweeping), filled; GTT expiry", () => {
    expect(
      violationsOf([
        ...restAndTake,
        { cause: "cancel", target: "1", rows: [row({ orderId: "1", status: "CANCELLED", cancelReason: "USER_CANCEL", cumLots: 4 })], fills: [] },
        { cause: "create", target: "3", rows: [row({ orderId: "3", timeInForce: "IOC", status: "CANCELLED", cancelReason: "NO_LIQUIDITY" })], fills: [] },
        // stop 4 armed (qty 0 until it fires), maker 5 of another account, maker 6 of the stop's own account
        { cause: "create", target: "4", rows: [row({ orderId: "4", orderType: "STOP_LOSS", qtyLots: 0 })], fills: [] },
        { cause: "create", target: "5", rows: [row({ orderId: "5", qtyLots: 3 })], fills: [] },
        { cause: "create", target: "6", rows: [row({ orderId: "6", qtyLots: 2 })], fills: [] },
        { cause: "create", target: "7", rows: [row({ orderId: "7", orderType: "TAKE_PROFIT", qtyLots: 0 })], fills: [] },
        {
          cause: "mark",
          rows: [
            row({ orderId: "7", orderType: "TAKE_PROFIT", qtyLots: 0, status: "CANCELLED", cancelReason: "OCO_SIBLING_FIRED" }),
            row({ orderId: "6", qtyLots: 2, status: "CANCELLED", cancelReason: "PROTECTIVE_SELF_TRADE_SWEEP" }),
            row({ orderId: "5", qtyLots: 3, cumLots: 3, execLots: 3, fillCount: 1, firstFillId: F0 + 1n, status: "FILLED" }),
            row({ orderId: "4", orderType: "STOP_LOSS", triggered: true, qtyLots: 3, cumLots: 3, execLots: 3, fillCount: 1, firstFillId: F0 + 1n, status: "FILLED" }),
          ],
          fills: [{ fillId: F0 + 1n, takerOrderId: "4", makerOrderId: "5", qtyLots: 3 }],
        },
        { cause: "create", target: "8", rows: [row({ orderId: "8", timeInForce: "GTT", expiresAfterSec: T0 / SEC + 10 })], fills: [] },
        { cause: "timer", rows: [row({ orderId: "8", timeInForce: "GTT", expiresAfterSec: T0 / SEC + 10, atMicros: T0 + 10 * SEC, status: "CANCELLED", cancelReason: "GTT_EXPIRED" })], fills: [] },
      ]),
    ).toEqual([]);
  });

  it("rejects a GTC created straight into CANCELLED with NO_LIQUIDITY, and IOC_REMAINDER on a GTC", () => {
    expect(violationsOf([{ cause: "create", target: "1", rows: [row({ status: "CANCELLED", cancelReason: "NO_LIQUIDITY" })], fills: [] }])).toEqual([
      "create of 1: order 1 (LIMIT GTC): (none) -> CANCELLED NO_LIQUIDITY: NO_LIQUIDITY only on an IOC",
    ]);
    const found = violationsOf([
      { cause: "create", target: "9", rows: [row({ orderId: "9" })], fills: [] },
      {
        cause: "create",
        target: "1",
        rows: [
          row({ orderId: "9", qtyLots: 10, cumLots: 4, execLots: 4, fillCount: 1, firstFillId: F0 }),
          row({ status: "CANCELLED", cancelReason: "IOC_REMAINDER", cumLots: 4, execLots: 4, fillCount: 1, firstFillId: F0 }),
        ],
        fills: [{ fillId: F0, takerOrderId: "1", makerOrderId: "9", qtyLots: 4 }],
      },
    ]);
    expect(found).toEqual(["create of 1: order 1 (LIMIT GTC): (none) -> CANCELLED IOC_REMAINDER: IOC_REMAINDER only on an IOC"]);
  });

  it("rejects SELF_TRADE_PREVENTION on a resting maker (not its own round), and OCO_SIBLING_FIRED / POSITION_CLOSED on a LIMIT", () => {
    expect(
      violationsOf([
        ...restAndTake,
        { cause: "create", target: "3", rows: [row({ orderId: "1", cumLots: 4, status: "CANCELLED", cancelReason: "SELF_TRADE_PREVENTION" }), row({ orderId: "3" })], fills: [] },
      ]),
    ).toEqual(["create of 3: order 1 (LIMIT GTC): OPEN -> CANCELLED SELF_TRADE_PREVENTION: SELF_TRADE_PREVENTION on an order that is not the taker of its own request"]);
    expect(violationsOf([...restAndTake, { cause: "mark", rows: [row({ orderId: "1", cumLots: 4, status: "CANCELLED", cancelReason: "OCO_SIBLING_FIRED" })], fills: [] }])).toEqual([
      "mark: order 1 (LIMIT GTC): OPEN -> CANCELLED OCO_SIBLING_FIRED: OCO_SIBLING_FIRED only on a stop",
    ]);
    expect(violationsOf([...restAndTake, { cause: "position", rows: [row({ orderId: "1", cumLots: 4, status: "CANCELLED", cancelReason: "POSITION_CLOSED" })], fills: [] }])).toEqual([
      "position: order 1 (LIMIT GTC): OPEN -> CANCELLED POSITION_CLOSED: POSITION_CLOSED only on a stop",
    ]);
  });

  it("rejects a row after FILLED, a decreasing cumQty, triggered true -> false, GTT_EXPIRED on a GTC and a fired IOC child that rests", () => {
    expect(violationsOf([...restAndTake, { cause: "cancel", target: "2", rows: [row({ orderId: "2", timeInForce: "IOC", status: "CANCELLED", cancelReason: "USER_CANCEL", qtyLots: 4, cumLots: 4 })], fills: [] }])).toEqual([
      "cancel of 2: order 2 (LIMIT IOC): FILLED -> CANCELLED USER_CANCEL: a row after FILLED, which is final",
    ]);
    expect(violationsOf([...restAndTake, { cause: "modify", target: "1", rows: [row({ orderId: "1", cumLots: 3, qtyLots: 12 })], fills: [] }])[0]).toContain("cumQty decreased from 4");
    const stop = (fields: Partial<Row>) => row({ orderId: "4", orderType: "STOP_LOSS", ...fields });
    expect(
      violationsOf([
        { cause: "create", target: "4", rows: [stop({ qtyLots: 0 })], fills: [] },
        { cause: "mark", rows: [stop({ triggered: true, qtyLots: 5 })], fills: [] },
        { cause: "position", rows: [stop({ triggered: false, qtyLots: 3 })], fills: [] },
      ]),
    ).toEqual(["position: order 4 (STOP GTC): OPEN/fired -> OPEN/armed: triggered went from true to false"]);
    expect(violationsOf([...restAndTake, { cause: "timer", rows: [row({ orderId: "1", cumLots: 4, status: "CANCELLED", cancelReason: "GTT_EXPIRED" })], fills: [] }])).toEqual([
      "timer: order 1 (LIMIT GTC): OPEN -> CANCELLED GTT_EXPIRED: GTT_EXPIRED only on a GTT",
    ]);
    expect(
      violationsOf([
        { cause: "create", target: "4", rows: [stop({ timeInForce: "IOC", qtyLots: 0 })], fills: [] },
        { cause: "mark", rows: [stop({ timeInForce: "IOC", triggered: true, qtyLots: 5 })], fills: [] },
      ]),
    ).toEqual(["mark: order 4 (STOP IOC): OPEN/armed -> OPEN/fired: an IOC child never rests"]);
  });

  it("rejects fill-id gaps and ranges that do not match the fills", () => {
    // the taker claims two fills where there was one
    const overclaim = violationsOf([
      { cause: "create", target: "1", rows: [row({ orderId: "1" })], fills: [] },
      {
        cause: "create",
        target: "2",
        rows: [
          row({ orderId: "1", cumLots: 4, execLots: 4, fillCount: 1, firstFillId: F0 }),
          row({ orderId: "2", timeInForce: "IOC", status: "FILLED", qtyLots: 4, cumLots: 4, execLots: 4, fillCount: 2, firstFillId: F0 }),
        ],
        fills: [{ fillId: F0, takerOrderId: "2", makerOrderId: "1", qtyLots: 4 }],
      },
    ]);
    expect(overclaim[0]).toContain(`fill ${F0 + 1n} of the taker range is not a fill of this request`);
    // the second round skips a fill id
    const gap = violationsOf([
      ...restAndTake,
      {
        cause: "create",
        target: "3",
        rows: [
          row({ orderId: "1", cumLots: 5, execLots: 1, fillCount: 1, firstFillId: F0 + 2n }),
          row({ orderId: "3", timeInForce: "IOC", status: "FILLED", qtyLots: 1, cumLots: 1, execLots: 1, fillCount: 1, firstFillId: F0 + 2n }),
        ],
        fills: [{ fillId: F0 + 2n, takerOrderId: "3", makerOrderId: "1", qtyLots: 1 }],
      },
    ]);
    expect(gap).toContain(`create of 3: fill id ${F0 + 2n} follows ${F0}: a gap or a repeat`);
    expect(gap.some((v) => v.includes(`maker fill ${F0 + 2n}, expected ${F0 + 1n}`))).toBe(true);
    // a fill no row names
    const unnamed = violationsOf([
      { cause: "create", target: "1", rows: [row({ orderId: "1" })], fills: [] },
      { cause: "create", target: "2", rows: [row({ orderId: "2", timeInForce: "IOC", status: "CANCELLED", cancelReason: "NO_LIQUIDITY" })], fills: [{ fillId: F0, takerOrderId: "2", makerOrderId: "1", qtyLots: 1 }] },
    ]);
    expect(unnamed).toEqual([`create of 2: taker rows cover fills up to ${F0 - 1n}, the fills go to ${F0}`, `create of 2: maker rows cover fills up to ${F0 - 1n}, the fills go to ${F0}`]);
  });

  it("rejects rows of a rejected request, and a first row that is not its create's", () => {
    expect(violationsOf([{ cause: "create", rejected: true, rows: [row({})], fills: [] }])).toEqual(["create: a rejected request emitted rows or fills"]);
    expect(violationsOf([{ cause: "mark", rows: [row({})], fills: [] }])[0]).toContain("a first row that is not the response of the order's own create");
  });
});

// ---------------------------------------------------------------------------
// The property

/** Transitions every seeded run together must reach (else the generator no longer exercises them). */
const MUST_SEE = [
  "LIMIT GTC (none) -> OPEN",
  "LIMIT GTC (none) -> FILLED",
  "LIMIT GTC (none) -> CANCELLED SELF_TRADE_PREVENTION",
  "LIMIT GTC (none) -> CANCELLED RISK_REJECTED",
  "LIMIT IOC (none) -> FILLED",
  "LIMIT IOC (none) -> CANCELLED NO_LIQUIDITY",
  "LIMIT IOC (none) -> CANCELLED IOC_REMAINDER",
  "LIMIT IOC (none) -> CANCELLED SELF_TRADE_PREVENTION",
  "LIMIT GTC OPEN -> OPEN",
  "LIMIT GTC OPEN -> FILLED",
  "LIMIT GTC OPEN -> CANCELLED USER_CANCEL",
  "LIMIT GTC OPEN -> CANCELLED MASS_CANCEL",
  "LIMIT GTC OPEN -> CANCELLED CANCEL_ALL_AFTER",
  "LIMIT GTC OPEN -> CANCELLED RISK_CANCELLED",
  "LIMIT GTC OPEN -> CANCELLED SELF_TRADE_PREVENTION",
  "LIMIT GTC OPEN -> CANCELLED PROTECTIVE_SELF_TRADE_SWEEP",
  "LIMIT GTT OPEN -> CANCELLED GTT_EXPIRED",
  "STOP GTC (none) -> OPEN/armed",
  "STOP GTC OPEN/armed -> OPEN/fired",
  "STOP GTC OPEN/armed -> FILLED",
  "STOP GTC OPEN/armed -> CANCELLED OCO_SIBLING_FIRED",
  "STOP GTC OPEN/armed -> CANCELLED POSITION_CLOSED",
  "STOP GTC OPEN/fired -> CANCELLED POSITION_CLOSED",
  "STOP IOC OPEN/armed -> CANCELLED NO_LIQUIDITY",
  "STOP IOC OPEN/armed -> CANCELLED IOC_REMAINDER",
  "STOP GTT OPEN/armed -> CANCELLED GTT_EXPIRED",
  "STOP GTT OPEN/fired -> CANCELLED GTT_EXPIRED",
  "LIMIT GTC OPEN -> CANCELLED RISK_REJECTED",
  "LIMIT IOC (none) -> CANCELLED RISK_REJECTED",
  "STOP GTC OPEN/armed -> OPEN/armed",
  "STOP GTC OPEN/armed -> CANCELLED RISK_REJECTED",
  "STOP GTC OPEN/armed -> CANCELLED MASS_CANCEL",
  "STOP GTC OPEN/fired -> FILLED",
  "STOP GTC OPEN/fired -> CANCELLED RISK_CANCELLED",
  "STOP IOC OPEN/armed -> FILLED",
];

describe("order transitions over random command streams (spec 3.1)", () => {
  it("every row of every seeded stream is a legal transition, and fill ranges are gap-free", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.array(command, { minLength: 20, maxLength: 200, size: "max" }), (commands) => {
        const run = new Run();
        try {
          for (const cmd of commands) run.apply(cmd);
        } finally {
          for (const key of run.checker.seen) seen.add(key);
        }
      }),
      { seed: 42, numRuns: 250 },
    );
    expect(MUST_SEE.filter((key) => !seen.has(key))).toEqual([]);
  });
});
