/**
 * The discrete-event simulation kernel: a virtual clock and the event queue.
 *
 * Time only moves when an event runs: `run` pops the earliest event, sets the
 * clock to its time, and calls its handler, which may schedule more. Events
 * at the same time run in the order they were scheduled. The kernel reads no
 * wall clock; wall time and events per second are measured by the caller
 * (runner, benchmark), outside the deterministic core.
 *
 * It implements `Scheduler`, so the Exchange's timers (GTT expiry,
 * cancelAllAfter, funding, blocks) run on it unchanged.
 *
 * Events scheduled for the current time (`after(0, ...)`: a response handed
 * on, a cascade of cancels) skip the heap and go to a FIFO lane. That keeps
 * the order exact: every heap entry due now was scheduled before the clock
 * reached now, so before anything in the lane, and runs first; the lane runs
 * before the clock moves on. Lane handles are negative, heap handles not.
 */
import { EventQueue, type EventHandle } from "../core/event-queue.ts";
import type { Scheduler, TimerId } from "../core/scheduler.ts";
import { assertMicros, type Micros } from "../core/time.ts";

export type EventHandler = () => void;

export interface SimulationOptions {
  /** The virtual time the clock starts at (microseconds since the epoch). */
  startMicros: Micros;
}

export interface RunOptions {
  /** Stop before any event later than this time; the clock then reads `untilMicros`. */
  untilMicros?: Micros;
  /** Stop after this many events (a guard for runaway scenarios). */
  maxEvents?: number;
  /**
   * Checked after each event: true stops the run there, with the clock at
   * that event's time (not moved to `untilMicros`). The runner uses it to
   * let promise continuations of agents run before time moves on.
   */
  pauseWhen?: () => boolean;
}

/** What one `run` did. */
export interface RunStats {
  eventsProcessed: number;
  startMicros: Micros;
  endMicros: Micros;
  /** Virtual time covered: endMicros - startMicros. */
  spanMicros: Micros;
  /** True when the queue emptied (rather than a bound stopping the run). */
  drained: boolean;
  /** True when `pauseWhen` stopped the run. */
  paused: boolean;
}

export class Simulation implements Scheduler {
  private readonly queue = new EventQueue<EventHandler>();
  /** Handlers due at the current time, in scheduling order; cancelled slots hold undefined. */
  private lane: (EventHandler | undefined)[] = [];
  private laneHead = 0;
  /** Lane sequence number of lane[0]: lane handle = -(laneBase + index) - 1. */
  private laneBase = 0;
  private laneLive = 0;
  private clock: Micros;
  private processed = 0;
  private running = false;

  constructor(options: SimulationOptions) {
    assertMicros(options.startMicros, "startMicros");
    this.clock = options.startMicros;
  }

  now(): Micros {
    return this.clock;
  }

  /** Events processed over the simulation's life. */
  get eventsProcessed(): number {
    return this.processed;
  }

  /** Events waiting to run. */
  get pending(): number {
    return this.queue.size + this.laneLive;
  }

  /** Runs `handler` at virtual time `at`; `at` must not be in the past. */
  schedule(at: Micros, handler: EventHandler): TimerId {
    if (!(at >= this.clock)) {
      throw new RangeError(`cannot schedule at ${at}: the clock already reads ${this.clock}`);
    }
    if (at === this.clock) {
      const index = this.lane.push(handler) - 1;
      this.laneLive++;
      return -(this.laneBase + index) - 1;
    }
    assertMicros(at, "event time");
    return this.queue.push(at, handler);
  }

  /** Runs `handler` after `delayMicros` of virtual time (0 = now, after what is already due now). */
  after(delayMicros: Micros, handler: EventHandler): TimerId {
    return this.schedule(this.clock + delayMicros, handler);
  }

  cancel(id: TimerId | EventHandle): boolean {
    if (id >= 0) return this.queue.cancel(id);
    const index = -id - 1 - this.laneBase;
    if (!(index >= this.laneHead && index < this.lane.length) || this.lane[index] === undefined) return false;
    this.lane[index] = undefined;
    this.laneLive--;
    return true;
  }

  /** Takes the next live handler of the lane, or undefined when the lane is empty. */
  private takeFromLane(): EventHandler | undefined {
    while (this.laneHead < this.lane.length) {
      const handler = this.lane[this.laneHead];
      this.lane[this.laneHead++] = undefined;
      if (handler !== undefined) {
        this.laneLive--;
        if (this.laneLive === 0) this.resetLane();
        return handler;
      }
    }
    this.resetLane();
    return undefined;
  }

  /** Empties the lane's storage; later handles stay unique because the base moves on. */
  private resetLane(): void {
    this.laneBase += this.lane.length;
    this.lane.length = 0;
    this.laneHead = 0;
  }

  /** Processes events in time order until the queue drains or a bound is reached. */
  run(options: RunOptions = {}): RunStats {
    if (this.running) throw new Error("Simulation.run is not re-entrant: a handler called run");
    const until = options.untilMicros ?? Infinity;
    const maxEvents = options.maxEvents ?? Infinity;
    const pauseWhen = options.pauseWhen;
    let paused = false;
    if (until < this.clock) throw new RangeError(`untilMicros ${until} is before the clock ${this.clock}`);
    const startMicros = this.clock;
    const queue = this.queue;
    let processed = 0;
    this.running = true;
    try {
      while (processed < maxEvents) {
        let handler: EventHandler | undefined;
        if (this.laneLive > 0 && queue.peekTime() > this.clock) {
          handler = this.takeFromLane();
        } else {
          handler = queue.popUntil(until);
          if (handler === undefined) break;
          this.clock = queue.poppedTime;
        }
        processed++;
        handler!();
        if (pauseWhen !== undefined && pauseWhen()) {
          paused = true;
          break;
        }
      }
    } finally {
      this.running = false;
      this.processed += processed;
    }
    const drained = this.pending === 0;
    if (until !== Infinity && processed < maxEvents && !paused) this.clock = until;
    return { eventsProcessed: processed, startMicros, endMicros: this.clock, spanMicros: this.clock - startMicros, drained, paused };
  }
}
