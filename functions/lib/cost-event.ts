// The cost function's event: {} (yesterday, UTC), {"date"}, or {"from","to"}, with optional
// "dataSourceIds". Anything else is refused with a message that names it.
import { addDays, dayCount, isIsoDate, utcDay } from './dates.ts';
import { EventError } from './errors.ts';
import type { CostRunRequest } from './cost-run.ts';

const allowedKeys = ['date', 'from', 'to', 'dataSourceIds'];

export function parseCostEvent(event: unknown, now: Date, maxDays: number): CostRunRequest {
  if (event === null || event === undefined) return yesterday(now);
  if (typeof event !== 'object' || Array.isArray(event)) {
    throw new EventError(
      'EVENT_NOT_OBJECT',
      'event must be a JSON object such as {} or {"date": "2026-01-31"}',
    );
  }
  const e = event as Record<string, unknown>;
  const unknown = Object.keys(e).filter((k) => !allowedKeys.includes(k));
  if (unknown.length > 0) {
    throw new EventError(
      'EVENT_UNKNOWN_KEYS',
      `event has unknown key(s): ${unknown.join(', ')}; allowed: ${allowedKeys.join(', ')}`,
    );
  }
  const dataSourceIds = parseIds(e.dataSourceIds);
  const range = parseRange(e, now);
  const today = utcDay(now);
  if (range.to > today)
    throw new EventError('EVENT_DATE_IN_FUTURE', `${range.to} is after today (${today}, UTC)`);
  const days = dayCount(range.from, range.to);
  if (days > maxDays) {
    throw new EventError(
      'EVENT_RANGE_TOO_LONG',
      `event asks for ${days} days (${range.from}..${range.to}); one invocation exports at most ${maxDays}: ` +
        'run a backfill with the CLI (cloudforet-export costs --from … --to …) or split the range',
    );
  }
  return dataSourceIds ? { ...range, dataSourceIds } : range;
}

function yesterday(now: Date): CostRunRequest {
  const day = addDays(utcDay(now), -1);
  return { from: day, to: day };
}

function parseRange(e: Record<string, unknown>, now: Date): { from: string; to: string } {
  if (e.date !== undefined) {
    if (e.from !== undefined || e.to !== undefined) {
      throw new EventError('EVENT_DATE_AND_RANGE', 'give either "date" or "from"/"to", not both');
    }
    return { from: day('date', e.date), to: day('date', e.date) };
  }
  if (e.from === undefined && e.to === undefined) return yesterday(now);
  if (e.from === undefined || e.to === undefined) {
    throw new EventError('EVENT_RANGE_INCOMPLETE', 'give both "from" and "to" (YYYY-MM-DD, inclusive)');
  }
  const from = day('from', e.from);
  const to = day('to', e.to);
  if (from > to) throw new EventError('EVENT_RANGE_REVERSED', `"from" ${from} is after "to" ${to}`);
  return { from, to };
}

function day(name: string, value: unknown): string {
  if (!isIsoDate(value)) {
    throw new EventError(
      'EVENT_BAD_DATE',
      `"${name}" must be a date as YYYY-MM-DD (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function parseIds(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => typeof v === 'string' && v.trim() !== '')
  ) {
    throw new EventError(
      'EVENT_BAD_DATA_SOURCE_IDS',
      '"dataSourceIds" must be a non-empty list of data source ids, e.g. ["ds-…"]',
    );
  }
  return value;
}
