/**
 * The engine's invariants, checked from the order rows of an Exchange's
 * output stream (every order update reaches it, IOC takers included), one
 * row at a time, O(1) each:
 *
 * - Transitions (spec 3.1): a new order may start OPEN, FILLED or
 *   CANCELLED; an OPEN order may become OPEN, FILLED or CANCELLED; FILLED
 *   and CANCELLED are final (no row follows them). An order is FILLED
 *   exactly when its cumQty reached its qty, by a fill of that update. An
 *   armed stop (triggered=false) may fire (triggered=true), never the
 *   reverse, and a LIMIT order is never triggered.
 * - cumQty never decreases and never exceeds qty.
 * - Fill ids are gap-free: each fill id first seen on a row is the one
 *   after the highest seen so far (taker rows carry a range, maker rows one
 *   fill; the first row seen sets the start).
 * - Executions match fills (checkExecution, for each settled ORDER_MATCH,
 *   perp or spot): its fill id was named by exactly two order rows, the
 *   taker's (the row of its matching round, whose range covers it) and the
 *   maker's (one fill), on opposite sides, and the execution repeats their
 *   terms: symbol, taker side, both accounts, the fill's price and qty (the
 *   maker row's limitPx and execQty; the taker row's execQty too when its
 *   round made this one fill), and the order ids of spec 2.14:
 *   takerOrderId exactly when the taker's round did not leave it FILLED,
 *   makerOrderId exactly when this fill did not leave the maker FILLED.
 *   LIQUIDATION, ADL and MARKET_CLOSE executions come from no order and are
 *   not checked. A third row naming a fill throws at once; the rest is
 *   checked when the fill settles (the rows are told apart by side then, so
 *   no order of rows is assumed).
 *
 * Quantities are compared exactly (10^18) and parsed only when their text
 * changes. The orders that ended are remembered (to catch a row after the
 * end), like the fills in invariants.ts. The fills are remembered from
 * their first row to their execution or bust (`fills`, deleted then), so
 * that memory is bounded by the fills in flight; a row naming several
 * fills is shared by them, not copied.
 */
import { InvariantError } from "../core/assert.ts";
import { toE18 } from "../core/decimal.ts";
import type { WireOrder } from "../engine/wire.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";

/** What the checker keeps of an OPEN order: its last texts and their values. */
interface LiveOrder {
  cumQtyText: string;
  cumQty: bigint;
  qtyText: string | undefined;
  qty: bigint | undefined;
  triggered: boolean;
}

/** The order rows that named a fill so far (its taker's and its maker's, in the order they came). */
interface FillRows {
  readonly first: WireOrder;
  second: WireOrder | undefined;
}

export class OrderLifecycleInvariants {
  private readonly live = new Map<string, LiveOrder>();
  /** The final status of every order that ended. */
  private readonly ended = new Map<string, "FILLED" | "CANCELLED">();
  /** The highest fill id seen on a row (undefined before the first). */
  private lastFillId: bigint | undefined;
  /** The rows of each fill not yet settled or busted, by fill id. */
  private readonly fills = new Map<string, FillRows>();

  /**
   * Checks one order row. `firstFillId` is the row's firstFillId as a bigint
   * (the caller parsed it already), undefined on a row without fills.
   */
  check(row: WireOrder, firstFillId: bigint | undefined): void {
    const { orderId, status } = row;
    const endedAs = this.ended.get(orderId);
    if (endedAs !== undefined) throw new InvariantError(`order ${orderId} has a ${status} update after it ended ${endedAs}: FILLED and CANCELLED are final`);
    if (status !== "OPEN" && status !== "FILLED" && status !== "CANCELLED") throw new InvariantError(`order ${orderId} has status "${String(status)}", not OPEN, FILLED or CANCELLED`);
    const previous = this.live.get(orderId);
    const hasFills = firstFillId !== undefined;
    if (hasFills) {
      this.checkFillIds(row, firstFillId);
      this.rememberFills(row, firstFillId);
    }

    const triggered = row.triggered === true;
    if (triggered && row.orderType === "LIMIT") throw new InvariantError(`LIMIT order ${orderId} reports triggered=true: only stops are triggered`);
    if (previous !== undefined && previous.triggered && row.triggered === false) throw new InvariantError(`order ${orderId} went from triggered=true back to triggered=false: a fired stop cannot re-arm`);

    const cumQtyText = row.cumQty ?? "0";
    const qtyText = row.qty;
    let cumQty: bigint;
    let qty: bigint | undefined;
    if (previous === undefined) {
      cumQty = toE18(cumQtyText, "cumQty");
      qty = qtyText === undefined ? undefined : toE18(qtyText, "qty");
    } else {
      cumQty = cumQtyText === previous.cumQtyText ? previous.cumQty : toE18(cumQtyText, "cumQty");
      qty = qtyText === previous.qtyText ? previous.qty : qtyText === undefined ? undefined : toE18(qtyText, "qty");
      if (cumQty < previous.cumQty) throw new InvariantError(`order ${orderId} cumQty decreased from "${previous.cumQtyText}" to "${cumQtyText}": cumQty never decreases`);
    }
    if (qty !== undefined && cumQty > qty) throw new InvariantError(`order ${orderId} cumQty "${cumQtyText}" exceeds its qty "${qtyText}"`);
    const complete = qty !== undefined && cumQty === qty;
    if (status === "FILLED") {
      if (!complete) throw new InvariantError(`order ${orderId} is FILLED with cumQty "${cumQtyText}" of qty "${qtyText ?? "(none)"}": FILLED needs the whole qty executed`);
      if (!hasFills) throw new InvariantError(`order ${orderId} became FILLED on an update without fills: only a fill of the rest fills an order`);
    } else if (status === "OPEN" && complete) {
      throw new InvariantError(`order ${orderId} is OPEN with its whole qty "${qtyText}" executed: the fill of the rest makes it FILLED`);
    }

    if (status === "OPEN") {
      if (previous === undefined) {
        this.live.set(orderId, { cumQtyText, cumQty, qtyText, qty, triggered });
      } else {
        previous.cumQtyText = cumQtyText;
        previous.cumQty = cumQty;
        previous.qtyText = qtyText;
        previous.qty = qty;
        previous.triggered = triggered;
      }
    } else {
      if (previous !== undefined) this.live.delete(orderId);
      this.ended.set(orderId, status);
    }
  }

  private checkFillIds(row: WireOrder, first: bigint): void {
    const count = row.fillCount ?? 0;
    if (!(Number.isSafeInteger(count) && count >= 1)) throw new InvariantError(`order ${row.orderId} names firstFillId ${first} with fillCount ${count}: fillCount must be at least 1`);
    const last = first + BigInt(count - 1);
    const highest = this.lastFillId;
    if (highest !== undefined && first > highest + 1n) throw new InvariantError(`fill ids jumped from ${highest} to ${first} (order ${row.orderId}): fill ids are gap-free`);
    if (highest === undefined || last > highest) this.lastFillId = last;
  }

  /** Remembers `row` as one of the two rows of each of its fills (after checkFillIds: fillCount >= 1). */
  private rememberFills(row: WireOrder, first: bigint): void {
    const count = row.fillCount!;
    let id = first;
    for (let i = 0; i < count; i++, id++) {
      const fillId = id.toString();
      const rows = this.fills.get(fillId);
      if (rows === undefined) {
        this.fills.set(fillId, { first: row, second: undefined });
      } else if (rows.second === undefined) {
        rows.second = row;
      } else {
        throw new InvariantError(`fill ${fillId} is named by a third order row (order ${row.orderId}, after orders ${rows.first.orderId} and ${rows.second.orderId}): a fill is on one taker row and one maker row`);
      }
    }
  }

  /**
   * Checks a settled execution against the rows of its fill, and forgets the
   * fill. Returns 1 when checked, 0 for an execution that comes from no
   * order (LIQUIDATION, ADL, MARKET_CLOSE).
   */
  checkExecution(record: PerpExecution | SpotExecution): number {
    if (record.type !== "ORDER_MATCH") return 0;
    const { fillId } = record;
    const rows = this.fills.get(fillId);
    const what = `ORDER_MATCH execution of fill ${fillId}`;
    if (rows === undefined) throw new InvariantError(`${what} (${record.symbol}) names a fill no order row reported: every match is on its taker's and its maker's rows`);
    const { first, second } = rows;
    if (second === undefined) throw new InvariantError(`${what} names a fill reported on one order row only (order ${first.orderId}): every match is on its taker's and its maker's rows`);
    if (first.side === second.side) throw new InvariantError(`${what} names a fill whose two rows (orders ${first.orderId} and ${second.orderId}) are both on side ${first.side}: a taker and its maker are on opposite sides`);
    const taker = first.side === record.side ? first : second;
    const maker = taker === first ? second : first;
    const takerRow = `its taker row (order ${taker.orderId})`;
    const makerRow = `its maker row (order ${maker.orderId})`;
    const differ = (field: string, recorded: string | number | undefined, row: string, reported: string | number | undefined) =>
      new InvariantError(`${what} has ${field} "${recorded ?? "(none)"}" but ${row} reported "${reported ?? "(none)"}": an execution repeats the terms of its fill`);
    if (taker.symbol !== record.symbol) throw differ("symbol", record.symbol, takerRow, taker.symbol);
    if (maker.symbol !== record.symbol) throw differ("symbol", record.symbol, makerRow, maker.symbol);
    if (maker.fillCount !== 1) throw new InvariantError(`${what}: ${makerRow} names ${maker.fillCount} fills from ${maker.firstFillId}: a maker row names its one fill`);
    if (record.takerAccountId !== taker.accountId) throw differ("takerAccountId", record.takerAccountId, takerRow, taker.accountId);
    if (record.makerAccountId !== maker.accountId) throw differ("makerAccountId", record.makerAccountId, makerRow, maker.accountId);
    checkOrderId(what, "takerOrderId", record.takerOrderId, taker, "its taker's round left it FILLED");
    checkOrderId(what, "makerOrderId", record.makerOrderId, maker, "this fill left the maker FILLED");
    if (!sameDecimal(record.price, maker.limitPx, "price")) throw differ("price", record.price, `${makerRow} limitPx`, maker.limitPx);
    if (!sameDecimal(record.qty, maker.execQty, "qty")) throw differ("qty", record.qty, `${makerRow} execQty`, maker.execQty);
    if (taker.fillCount === 1 && !sameDecimal(record.qty, taker.execQty, "qty")) throw differ("qty", record.qty, `${takerRow} execQty`, taker.execQty);
    this.fills.delete(fillId);
    return 1;
  }

  /** A bust ended fill `fillId`: forgets its rows. */
  forgetFill(fillId: string): void {
    this.fills.delete(fillId);
  }
}

/**
 * Spec 2.14: an execution names the order `row` (its taker's or its
 * maker's) exactly when the row is not FILLED (`filled` says what FILLED
 * means there), and then by its id.
 */
function checkOrderId(what: string, field: "takerOrderId" | "makerOrderId", recorded: string | undefined, row: WireOrder, filled: string): void {
  const removed = row.status === "FILLED";
  if (recorded === undefined) {
    if (!removed) throw new InvariantError(`${what} omits ${field} but its order ${row.orderId} is ${row.status} on the row of the fill: ${field} is omitted only when ${filled}`);
  } else if (recorded !== row.orderId) {
    throw new InvariantError(`${what} has ${field} "${recorded}" but the row of the fill is order ${row.orderId}: an execution repeats the terms of its fill`);
  } else if (removed) {
    throw new InvariantError(`${what} has ${field} "${recorded}" but order ${recorded} is FILLED on the row of the fill: ${field} is omitted when ${filled}`);
  }
}

/** Whether two decimal texts are the same number (same text, or equal at 10^18); an absent one is never the same. */
function sameDecimal(text: string, other: string | undefined, field: string): boolean {
  if (text === other) return true;
  return other !== undefined && toE18(text, field) === toE18(other, field);
}
