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

/**
 * Waits out the last `margin` ms of a UTC day, so that a test which names "today" when it starts
 * still means the same day when the product it drives asks the clock. A test that crossed midnight
 * once failed (not-synced: the failed sync then began a day after "today", so the day was no
 * longer one it began before Cloudforet had it, and rightly not reported).
 */
export async function clearOfMidnight(margin = 30_000, now = () => Date.now()): Promise<void> {
  const left = 86_400_000 - (now() % 86_400_000);
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}
