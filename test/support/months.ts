// Dates relative to the real clock, for tests of retention and job history (which follow it).
import { utcDay } from '../../functions/lib/dates.ts';

/** The first day (YYYY-MM-DD) of the UTC month `months` before this one. */
export function monthsBack(months: number, now = new Date()): string {
  return utcDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1)));
}
