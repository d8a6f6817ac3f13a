/**
 * What the deterministic core asks of its driver: the current virtual time,
 * and timers on that clock. The simulation kernel and the live wall-clock
 * driver both implement it, so nothing below them knows which one runs it.
 */
import type { Micros } from "./time.ts";

export type TimerId = number;

export interface Scheduler {
  /** The current virtual time. */
  now(): Micros;
  /** Runs `callback` at virtual time `at` (>= now), after everything already scheduled for `at`. */
  schedule(at: Micros, callback: () => void): TimerId;
  /** Cancels a pending timer; false when it already ran or was cancelled. */
  cancel(id: TimerId): boolean;
}
