/**
 * Fault windows of the order-entry path (the chain's own faults live in the
 * Chain; an oracleStale fault in the risk state, RiskState.oracleStaleUntilMicros,
 * where every reader of price freshness sees it): each is "active until" a
 * virtual time, set by a fault input; the
 * response-drop fault counts down answered requests. Pure state, read by
 * the gateway at each request.
 */
import type { Micros } from "../core/time.ts";

export type WindowFault = "engineUnavailable" | "accountOwnerUnavailable" | "serviceDisabled";

export class FaultWindows {
  private readonly until = new Map<WindowFault, Micros>();
  private responsesToDrop = 0;

  open(fault: WindowFault, fromMicros: Micros, durationMicros: Micros): void {
    const end = fromMicros + durationMicros;
    this.until.set(fault, Math.max(this.until.get(fault) ?? -Infinity, end));
  }

  /** Whether the fault is active at `now` (its window is [start, end)). */
  active(fault: WindowFault, now: Micros): boolean {
    const end = this.until.get(fault);
    return end !== undefined && now < end;
  }

  /** The end of a fault's window, if any was opened. */
  end(fault: WindowFault): Micros | undefined {
    return this.until.get(fault);
  }

  /** Responses still to be dropped. */
  get pendingDrops(): number {
    return this.responsesToDrop;
  }

  dropResponses(count: number): void {
    this.responsesToDrop += count;
  }

  /** True (and counts down) when the next answered request's response is to be dropped. */
  takeDrop(): boolean {
    if (this.responsesToDrop === 0) return false;
    this.responsesToDrop--;
    return true;
  }
}
