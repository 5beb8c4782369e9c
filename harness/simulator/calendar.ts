// Cost dates as day numbers (days since 1970-01-01, UTC) so ranges are plain integer loops.

const DAY_MS = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export function isDate(text: unknown): text is string {
  return typeof text === 'string' && DATE_RE.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`));
}

export function dayNumber(date: string): number {
  if (!isDate(date)) throw new Error(`not a YYYY-MM-DD date: ${date}`);
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

export const dayToDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

export const dayToMs = (day: number): number => day * DAY_MS;

export function todayNumber(now = Date.now()): number {
  return Math.floor(now / DAY_MS);
}

/** The inclusive day range of a `YYYY-MM` month. */
export function monthDays(month: string): [number, number] | undefined {
  if (!/^\d{4}-\d{2}$/.test(month)) return undefined;
  const first = `${month}-01`;
  if (!isDate(first)) return undefined;
  const start = dayNumber(first);
  const next = new Date(dayToMs(start));
  next.setUTCMonth(next.getUTCMonth() + 1);
  return [start, next.getTime() / DAY_MS - 1];
}

export function yearDays(year: string): [number, number] | undefined {
  if (!/^\d{4}$/.test(year)) return undefined;
  return [dayNumber(`${year}-01-01`), dayNumber(`${year}-12-31`)];
}

/** The months (YYYY-MM) of a day range, oldest first: the months that have cost rows. */
export function costMonths(range: { readonly fromDay: number; readonly toDay: number }): string[] {
  const months = new Set<string>();
  for (let day = range.fromDay; day <= range.toDay; day++) months.add(dayToDate(day).slice(0, 7));
  return [...months];
}
