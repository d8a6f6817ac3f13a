/**
 * The live driver: runs the Exchange on a clock for real clients.
 *
 * - `wall` clock: virtual time follows real time from `startMicros`, times
 *   `speed` (1 = real time). A timer wakes the Exchange at its next internal
 *   timer (blocks, expiries, summaries), so time-driven events happen even
 *   when no request arrives.
 * - `manual` clock: virtual time moves only when told (`advanceBy`,
 *   `advanceTo`: the admin clock endpoint), so a client's tests are
 *   deterministic; in-process agents act only as the clock is advanced.
 *
 * Every input goes through `handle`, which stamps it with the current
 * virtual time, appends it to the input log (when recording) before the
 * Exchange sees it, and hands it over; every move of time without an input
 * (a wall-clock wake-up, the manual clock) is a timer-only step of the log.
 * After each step the log gets the run fingerprint. The log is what replay
 * re-executes, step for step.
 *
 * Durability: a surface that answers an input or a clock step (rest.ts,
 * exec.ts, admin.ts) sends the answer from `whenDurable`, so a log that
 * holds answers back (group commit, src/record/live-input-log.ts) releases it
 * once the step is on disk; without a log, or with one that does not wait,
 * the callback runs at once.
 */
import { Fingerprint } from "../core/fingerprint.ts";
import type { Micros } from "../core/time.ts";
import type { Exchange, ExchangeAnswer } from "../exchange/exchange.ts";
import type { PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";

export type ClockMode = "wall" | "manual";

/**
 * Where the driver logs its steps. A step is `append` (an input) or
 * `advance` (timers only), then `endStep` once the Exchange ran it. Only
 * `append` is required (a test may just collect the inputs).
 */
export interface InputLog {
  /** An input is about to be handled at `atMicros`: a step begins. */
  append(atMicros: Micros, input: ExchangeInput): void;
  /** Only the Exchange's timers are about to run, up to `atMicros`: a step begins. */
  advance?(atMicros: Micros): void;
  /** The step begun last has run; `fingerprint` is the run fingerprint after it (64 hex digits). */
  endStep?(fingerprint: string): void;
  /** Calls `callback` once every step ended so far is durable (at once for a log that does not hold answers back). */
  whenDurable?(callback: () => void): void;
  /** Makes every step durable and closes the log; steps after it are not logged. */
  close?(): Promise<void>;
}

/** What an input handed to a closed driver is answered (SERVICE_DISABLED_ERROR). */
export const CLOSED_MESSAGE = "the server is shutting down and takes no more input; retry against the next one";

export interface DriverOptions {
  clock: ClockMode;
  /** The virtual time at start. */
  startMicros: Micros;
  /** Virtual seconds per real second (wall clock only). */
  speed: number;
  log?: InputLog;
  /** Called after time moved (timers fired or an input ran): agents and publishers hook here. */
  onAdvance?: (nowMicros: Micros) => void;
}

/** Real time in microseconds, for the wall clock (a driver may read the clock; the Exchange never does). */
function wallMicros(): number {
  // floor((s * 1e9 + ns) / 1000), as hrtime.bigint() / 1000n gives, without a bigint division per input.
  const [seconds, nanos] = process.hrtime();
  return seconds * 1_000_000 + Math.floor(nanos / 1000);
}

export class LiveDriver {
  private readonly wallStart = wallMicros();
  private wakeTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private closed = false;
  private handled = 0;
  /** The input log, until closed. */
  private log: InputLog | undefined;
  /** The run fingerprint: SHA-256 over the Exchange's canonical output stream (what a replay compares). */
  private readonly runFingerprint = new Fingerprint();

  constructor(readonly exchange: Exchange, private readonly options: DriverOptions) {
    if (!(options.speed > 0)) throw new RangeError(`speed must be positive, got ${options.speed}`);
    this.log = options.log;
    exchange.subscribe((output) => this.runFingerprint.update(output));
  }

  /** The run fingerprint so far (64 hex digits). */
  fingerprint(): string {
    return this.runFingerprint.digest();
  }

  /**
   * Runs `callback` once every step so far is durable in the input log: at
   * once without a log or with one that does not hold answers back. Answers
   * to inputs are sent from here, in the order they were asked for.
   */
  whenDurable(callback: () => void): void {
    const log = this.log;
    if (log?.whenDurable === undefined) callback();
    else log.whenDurable(callback);
  }

  /** Inputs handled so far. */
  get inputsHandled(): number {
    return this.handled;
  }

  get clock(): ClockMode {
    return this.options.clock;
  }

  /** The virtual time now: the wall clock's reading, or the manual clock's. */
  now(): Micros {
    if (this.options.clock === "manual") return this.exchange.now();
    const elapsed = (wallMicros() - this.wallStart) * this.options.speed;
    return Math.max(this.exchange.now(), this.options.startMicros + Math.floor(elapsed));
  }

  /**
   * Stamps, logs and runs one input; returns the Exchange's answer.
   * `recovery`: the request's signature recovered or checked ahead of time
   * (exec.ts: signer-pool.ts, early-confirm.ts); the gateway uses it only
   * for exactly that request (authenticate.ts), so the answer is the same
   * with or without it, and it is not logged (a replay recovers inline).
   */
  handle(input: ExchangeInput, recovery?: PrecomputedRecovery): ExchangeAnswer {
    // Closed: an input now could not be logged, and a replay of the log would not have it. Refused, changing nothing.
    if (this.closed) return { ok: false, error: { error: "SERVICE_DISABLED_ERROR", message: CLOSED_MESSAGE } };
    const at = this.now();
    const log = this.log;
    log?.append(at, input);
    this.handled++;
    let answer: ExchangeAnswer;
    try {
      answer = recovery === undefined ? this.exchange.handle(input, at) : this.exchange.gateway.withRecovery(recovery, () => this.exchange.handle(input, at));
    } finally {
      this.endStep(log);
    }
    this.afterAdvance();
    return answer;
  }

  /** Starts the wall clock's wake-ups (no-op on a manual clock). */
  start(): void {
    if (this.options.clock === "wall") this.scheduleWake();
  }

  stop(): void {
    this.stopped = true;
    if (this.wakeTimer !== undefined) clearTimeout(this.wakeTimer);
  }

  /**
   * Stops, then makes the input log durable and closes it. Inputs handed in
   * from now on are refused with SERVICE_DISABLED_ERROR and change nothing
   * (a request still on its way through a surface, a REST body read just
   * before the shutdown, say): the log holds every input the Exchange ran.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    const log = this.log;
    this.log = undefined;
    await log?.close?.();
  }

  /** True once close() began: inputs are refused and the clock no longer moves (neither could be logged). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Manual clock: moves virtual time forward by `ms` (timers due meanwhile fire). */
  advanceBy(ms: number): Micros {
    return this.advanceTo(this.exchange.now() + Math.round(ms * 1000));
  }

  /** Manual clock: moves virtual time to `atMicros` (never backwards). */
  advanceTo(atMicros: Micros): Micros {
    if (this.options.clock !== "manual") throw new Error("the clock can only be moved by hand in manual mode (--clock manual)");
    if (this.closed) throw new Error(CLOSED_MESSAGE);
    if (atMicros < this.exchange.now()) throw new RangeError(`cannot move the clock back from ${this.exchange.now()} to ${atMicros}`);
    this.runTimers(atMicros);
    this.afterAdvance();
    return this.exchange.now();
  }

  /** A timer-only step: the Exchange's timers due by `atMicros` run, logged as an advance. */
  private runTimers(atMicros: Micros): void {
    const log = this.log;
    log?.advance?.(atMicros);
    try {
      this.exchange.advanceTo(atMicros);
    } finally {
      this.endStep(log);
    }
  }

  private endStep(log: InputLog | undefined): void {
    if (log?.endStep !== undefined) log.endStep(this.runFingerprint.digest());
  }

  private afterAdvance(): void {
    this.options.onAdvance?.(this.exchange.now());
  }

  private scheduleWake(): void {
    if (this.stopped) return;
    const next = this.exchange.nextTimerAt();
    const waitVirtual = Number.isFinite(next) ? next - this.now() : 100_000;
    const waitMs = Math.min(1_000, Math.max(1, waitVirtual / 1000 / this.options.speed));
    this.wakeTimer = setTimeout(() => {
      const now = this.now();
      if (now > this.exchange.now()) {
        this.runTimers(now);
        this.afterAdvance();
      }
      this.scheduleWake();
    }, waitMs);
    this.wakeTimer.unref?.();
  }
}
