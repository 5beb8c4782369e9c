// Dates relative to the real clock, for tests of retention and job history (which follow it).
import { addDays, utcDay } from '../../functions/lib/dates.ts';

/** The first day (YYYY-MM-DD) of the UTC month `months` before this one (negative: after). */
export function monthsBack(months: number, now = new Date()): string {
  return utcDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1)));
}

/** The UTC month (YYYY-MM) `months` before this one: fixed-looking test dates that never age. */
export function monthBack(months: number, now = new Date()): string {
  return monthsBack(months, now).slice(0, 7);
}

/** The last day (YYYY-MM-DD) of the UTC month `months` before this one. */
export function monthEnd(months: number, now = new Date()): string {
  return addDays(monthsBack(months - 1, now), -1);
}
