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
 * Waits out the edges of a UTC day (its last `before` ms, the first `after` ms of the next), so
 * that a test which names "today" when it starts means the same day as every job the simulator
 * dates. not-synced failed in the first minute after midnight: the simulator's `resync` dates its
 * successful job a minute back, so that job began "yesterday" and rightly did not count as the
 * day's last successful sync (job-history.ts `replaced`), and the day was not reported.
 */
export async function clearOfMidnight(
  { before = 30_000, after = 65_000 } = {},
  now = () => Date.now(),
): Promise<void> {
  const into = now() % 86_400_000;
  const wait = into > 86_400_000 - before ? 86_400_000 - into + after : into < after ? after - into : 0;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
