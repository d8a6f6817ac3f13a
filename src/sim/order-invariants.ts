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
 *
 * Quantities are compared exactly (10^18) and parsed only when their text
 * changes. The orders that ended are remembered (to catch a row after the
 * end), like the fills in invariants.ts.
 */
import { InvariantError } from "../core/assert.ts";
import { toE18 } from "../core/decimal.ts";
import type { WireOrder } from "../engine/wire.ts";

/** What the checker keeps of an OPEN order: its last texts and their values. */
interface LiveOrder {
  cumQtyText: string;
  cumQty: bigint;
  qtyText: string | undefined;
  qty: bigint | undefined;
  triggered: boolean;
}

export class OrderLifecycleInvariants {
  private readonly live = new Map<string, LiveOrder>();
  /** The final status of every order that ended. */
  private readonly ended = new Map<string, "FILLED" | "CANCELLED">();
  /** The highest fill id seen on a row (undefined before the first). */
  private lastFillId: bigint | undefined;

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
    if (hasFills) this.checkFillIds(row, firstFillId);

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
}
