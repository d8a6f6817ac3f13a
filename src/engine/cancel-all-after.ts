/**
 * cancelAllAfter (spec 3.3): one timer per account, shared by every
 * transport and tied to no connection. timeoutMs in [5000, 60000] arms it
 * (or re-arms it with a fresh countdown from the receipt time); 0 disarms
 * it. When it fires it disarms, and every open order of the account is
 * cancelled with CANCEL_ALL_AFTER except protective stops (armed stops and
 * their fired children).
 *
 * The countdown runs from the receipt time in whole milliseconds, the unit
 * of the response's `triggerAt`: the switch fires at exactly triggerAt
 * (triggerAt x 1000 µs on the virtual clock), never after it. A receipt at
 * 1000.7 ms with timeoutMs 5000 reports triggerAt 6000 and fires at 6000 ms,
 * 0.7 ms short of five seconds from the microsecond receipt, as a service
 * that stamps receipts in milliseconds would.
 */
import { microsToMillis, MICROS_PER_MILLI } from "../core/time.ts";
import type { EngineCore } from "./lifecycle.ts";
import type { CancelAllAfterCommand, CancelAllAfterResponse, EngineResult } from "./types.ts";
import { CANCEL_ALL_AFTER_MAX_MS, CANCEL_ALL_AFTER_MIN_MS, reject } from "./types.ts";

interface ArmedSwitch {
  readonly timerId: number;
  readonly triggerAtMicros: number;
}

export class CancelAllAfterSwitches {
  private readonly armed = new Map<number, ArmedSwitch>();

  constructor(private readonly core: EngineCore) {}

  handle(cmd: CancelAllAfterCommand): EngineResult<CancelAllAfterResponse> {
    const { accountId, timeoutMs } = cmd;
    if (!Number.isSafeInteger(accountId) || accountId < 0) return reject("INPUT_VALIDATION_ERROR", `accountId ${accountId} is not an unsigned integer`);
    const inRange = Number.isSafeInteger(timeoutMs) && timeoutMs >= CANCEL_ALL_AFTER_MIN_MS && timeoutMs <= CANCEL_ALL_AFTER_MAX_MS;
    if (timeoutMs !== 0 && !inRange) {
      return reject("INPUT_VALIDATION_ERROR", `timeoutMs ${timeoutMs} must be 0 or within [${CANCEL_ALL_AFTER_MIN_MS}, ${CANCEL_ALL_AFTER_MAX_MS}]`);
    }
    this.disarm(accountId);
    if (timeoutMs === 0) return { ok: true, accountId, timeoutMs, triggerAtMs: null };
    const triggerAtMs = microsToMillis(cmd.atMicros) + timeoutMs;
    const triggerAtMicros = triggerAtMs * MICROS_PER_MILLI;
    const timerId = this.core.scheduler.schedule(triggerAtMicros, () => this.fire(accountId));
    this.armed.set(accountId, { timerId, triggerAtMicros });
    return { ok: true, accountId, timeoutMs, triggerAtMs };
  }

  /** When the account's switch fires (virtual µs), or null when disarmed. */
  triggerAtMicros(accountId: number): number | null {
    return this.armed.get(accountId)?.triggerAtMicros ?? null;
  }

  /** Armed accounts, ascending (for state dumps). */
  accountIds(): number[] {
    return [...this.armed.keys()].sort((a, b) => a - b);
  }

  private disarm(accountId: number): void {
    const armed = this.armed.get(accountId);
    if (armed === undefined) return;
    this.core.scheduler.cancel(armed.timerId);
    this.armed.delete(accountId);
  }

  private fire(accountId: number): void {
    this.armed.delete(accountId);
    this.core.runTimer(() => {
      for (const order of this.core.accounts.liveOrdersOf(accountId)) {
        if (!order.isTrigger) this.core.cancel(order, "CANCEL_ALL_AFTER");
      }
    });
  }
}
