// Which days a cost query can touch, read from its billed_date/billed_month/billed_year
// conditions, so a one-day query generates one day instead of the whole range.

import { dayNumber, isDate, monthDays, yearDays } from './calendar.ts';
import type { Condition } from './filters.ts';

export interface DayWindow {
  lo: number;
  hi: number;
  /** Days an `eq`/`in` condition allows; undefined when none restricts that way. */
  only?: Set<number>;
  /** True when the window says all the conditions say, so rows need no filtering. */
  exact: boolean;
}

const DATE_KEYS = new Set(['billed_date', 'billed_month', 'billed_year']);
const OPERATORS = new Set(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);

/** The inclusive day range a billed_* value names, if it is a well-formed value. */
function spanOf(key: string, value: unknown): [number, number] | undefined {
  if (typeof value !== 'string') return undefined;
  if (key === 'billed_date') return isDate(value) ? [dayNumber(value), dayNumber(value)] : undefined;
  if (key === 'billed_month') return monthDays(value);
  return yearDays(value);
}

export function dayWindow(filter: readonly Condition[]): DayWindow {
  const window: DayWindow = { lo: -Infinity, hi: Infinity, exact: true };
  for (const condition of filter) {
    if (!DATE_KEYS.has(condition.key) || !OPERATORS.has(condition.operator) || !narrow(window, condition)) {
      window.exact = false;
    }
  }
  return window;
}

/** Applies one condition; false when it could not be read (then rows must be filtered). */
function narrow(window: DayWindow, { key, operator, value }: Condition): boolean {
  if (operator === 'in' || operator === 'eq') {
    const spans = (operator === 'in' ? (value as unknown[]) : [value]).map((v) => spanOf(key, v));
    if (spans.some((s) => s === undefined)) return false;
    const days = new Set<number>();
    for (const [lo, hi] of spans as [number, number][]) for (let d = lo; d <= hi; d++) days.add(d);
    window.only = window.only ? new Set([...window.only].filter((d) => days.has(d))) : days;
    return true;
  }
  const span = spanOf(key, value);
  if (!span) return false;
  if (operator === 'gte') window.lo = Math.max(window.lo, span[0]);
  if (operator === 'gt') window.lo = Math.max(window.lo, span[1] + 1);
  if (operator === 'lte') window.hi = Math.min(window.hi, span[1]);
  if (operator === 'lt') window.hi = Math.min(window.hi, span[0] - 1);
  return true;
}

export function daysIn(window: DayWindow, candidates: readonly number[]): number[] {
  return candidates.filter((d) => d >= window.lo && d <= window.hi && (!window.only || window.only.has(d)));
}
