/**
 * A Scheduler driven by hand: `advanceTo(t)` runs every timer due at or
 * before t, in (time, scheduling order), with `now()` equal to each timer's
 * time while it runs. The engine uses one when no driver scheduler is given,
 * advancing it to each command's time before handling the command, so a
 * standalone engine still expires GTT orders and fires cancelAllAfter.
 */
import { EventQueue } from "../core/event-queue.ts";
import type { Scheduler, TimerId } from "../core/scheduler.ts";
import type { Micros } from "../core/time.ts";

export class ManualScheduler implements Scheduler {
  private readonly queue = new EventQueue<() => void>();
  private current: Micros;

  constructor(startMicros: Micros = 0) {
    this.current = startMicros;
  }

  now(): Micros {
    return this.current;
  }

  schedule(at: Micros, callback: () => void): TimerId {
    if (at < this.current) throw new RangeError(`timer at ${at} is before now ${this.current}`);
    return this.queue.push(at, callback);
  }

  cancel(id: TimerId): boolean {
    return this.queue.cancel(id);
  }

  /** Runs the timers due at or before `time`, then sets now to `time` (never backwards). */
  advanceTo(time: Micros): void {
    if (this.queue.size !== 0) this.runDue(time);
    if (time > this.current) this.current = time;
  }

  private runDue(time: Micros): void {
    while (this.queue.peekTime() <= time) {
      const callback = this.queue.pop()!;
      this.current = Math.max(this.current, this.queue.poppedTime);
      callback();
    }
  }

  /** The time of the next timer, or Infinity when none is pending. */
  nextAt(): Micros {
    return this.queue.peekTime();
  }
}
