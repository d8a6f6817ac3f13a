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
 * Exchange sees it, and hands it over. The log is what replay re-executes.
 */
import type { Micros } from "../core/time.ts";
import type { Exchange, ExchangeAnswer } from "../exchange/exchange.ts";
import type { PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";

export type ClockMode = "wall" | "manual";

export interface InputLog {
  append(atMicros: Micros, input: ExchangeInput): void;
}

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
  return Number(process.hrtime.bigint() / 1000n);
}

export class LiveDriver {
  private readonly wallStart = wallMicros();
  private wakeTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private handled = 0;

  constructor(readonly exchange: Exchange, private readonly options: DriverOptions) {
    if (!(options.speed > 0)) throw new RangeError(`speed must be positive, got ${options.speed}`);
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
   * `recovery`: the request's signature recovered ahead of time (exec.ts,
   * signer-pool.ts); the gateway uses it only if it is exactly the recovery
   * it would compute, so the answer is the same with or without it, and it
   * is not logged (a replay recovers inline).
   */
  handle(input: ExchangeInput, recovery?: PrecomputedRecovery): ExchangeAnswer {
    const at = this.now();
    this.options.log?.append(at, input);
    this.handled++;
    const answer =
      recovery === undefined ? this.exchange.handle(input, at) : this.exchange.gateway.withRecovery(recovery, () => this.exchange.handle(input, at));
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

  /** Manual clock: moves virtual time forward by `ms` (timers due meanwhile fire). */
  advanceBy(ms: number): Micros {
    return this.advanceTo(this.exchange.now() + Math.round(ms * 1000));
  }

  /** Manual clock: moves virtual time to `atMicros` (never backwards). */
  advanceTo(atMicros: Micros): Micros {
    if (this.options.clock !== "manual") throw new Error("the clock can only be moved by hand in manual mode (--clock manual)");
    if (atMicros < this.exchange.now()) throw new RangeError(`cannot move the clock back from ${this.exchange.now()} to ${atMicros}`);
    this.exchange.advanceTo(atMicros);
    this.afterAdvance();
    return this.exchange.now();
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
        this.exchange.advanceTo(now);
        this.afterAdvance();
      }
      this.scheduleWake();
    }, waitMs);
    this.wakeTimer.unref?.();
  }
}
