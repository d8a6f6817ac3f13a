/**
 * Virtual time: an integer count of microseconds since the Unix epoch.
 *
 * The wire carries milliseconds (createdAt, timestamp, ...) and Unix seconds
 * (deadline, expiresAfter). Conversions toward coarser units floor, so a
 * time never appears later on the wire than it happened.
 */
export type Micros = number;

export const MICROS_PER_MILLI = 1_000;
export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
export const MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;
export const MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

export function assertMicros(time: number, what = "time"): asserts time is Micros {
  if (!Number.isSafeInteger(time)) throw new RangeError(`${what} must be a safe integer of microseconds, got ${time}`);
}

export function microsToMillis(time: Micros): number {
  return Math.floor(time / MICROS_PER_MILLI);
}

export function millisToMicros(ms: number): Micros {
  const time = ms * MICROS_PER_MILLI;
  assertMicros(time, "milliseconds");
  return time;
}

export function microsToSeconds(time: Micros): number {
  return Math.floor(time / MICROS_PER_SECOND);
}

export function secondsToMicros(seconds: number): Micros {
  const time = seconds * MICROS_PER_SECOND;
  assertMicros(time, "seconds");
  return time;
}

/** ISO-8601 text of a virtual time, for logs and reports (pure arithmetic, no clock read). */
export function formatMicros(time: Micros): string {
  const ms = microsToMillis(time);
  const days = Math.floor(ms / 86_400_000);
  const msOfDay = ms - days * 86_400_000;
  const { year, month, day } = civilFromDays(days);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const h = Math.floor(msOfDay / 3_600_000);
  const m = Math.floor((msOfDay % 3_600_000) / 60_000);
  const s = Math.floor((msOfDay % 60_000) / 1000);
  const frac = msOfDay % 1000;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(h)}:${pad(m)}:${pad(s)}.${pad(frac, 3)}Z`;
}

/** Howard Hinnant's days-to-civil: the calendar date of a day count since 1970-01-01. */
function civilFromDays(daysSinceEpoch: number): { year: number; month: number; day: number } {
  const z = daysSinceEpoch + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
