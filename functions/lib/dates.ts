// Calendar days as YYYY-MM-DD strings, always UTC.

const DAY_MS = 86_400_000;

/** A month as YYYY-MM, its month 01-12. */
export function isIsoMonth(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-(0[1-9]|1[0-2])$/.test(value);
}

export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  // Month 13 or day 32 is an Invalid Date, whose toISOString() throws; 02-30 rolls over to March.
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value);
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Why a value shaped YYYY-MM-DD names no day ("": it is not so shaped, or it is a day), so that
 * 2025-02-29 is not told to be written as YYYY-MM-DD, which it is.
 */
export function calendarNote(value: unknown): string {
  const parts = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  if (!parts || isIsoDate(value)) return '';
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12) return `: not a date of the calendar, there is no month ${parts[2]}`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1) return ': not a date of the calendar, there is no day 00';
  return `: not a date of the calendar, ${MONTH_NAMES[month - 1]} ${year} has ${days} days`;
}

/** How an event may name a day: "YYYY-MM-DD", or "today" or "today-N", N days before today (UTC). */
export const DAY_FORMS = '"YYYY-MM-DD", or "today" or "today-N" (N days before today, UTC)';

/**
 * The day an event field names: YYYY-MM-DD as given, or "today" / "today-N" read against `now`
 * (a saved test event or example that names a day relative to today keeps naming one Cloudforet
 * holds). Anything else, undefined.
 */
export function eventDay(value: unknown, now: Date): string | undefined {
  if (isIsoDate(value)) return value;
  const relative = typeof value === 'string' ? /^today(?:-(\d{1,4}))?$/.exec(value) : null;
  return relative ? addDays(utcDay(now), -Number(relative[1] ?? 0)) : undefined;
}

/** The forms a month may take in an event: statements. */
export const MONTH_FORMS = '"YYYY-MM", or "this-month" or "this-month-N" (N months before this one, UTC)';

/**
 * The month an event field names: YYYY-MM as given, or "this-month" / "this-month-N" read against
 * `now` (so a saved event names a month relative to today, as "today-N" does a day). Anything
 * else, undefined.
 */
export function eventMonth(value: unknown, now: Date): string | undefined {
  if (isIsoMonth(value)) return value;
  if (typeof value !== 'string') return undefined;
  const relative = /^this-month(?:-(\d{1,3}))?$/.exec(value);
  if (!relative) return undefined;
  const back = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - Number(relative[1] ?? 0), 1));
  return back.toISOString().slice(0, 7);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Inclusive count of days from..to. */
export function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
  return days;
}
