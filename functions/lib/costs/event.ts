// The cost function's event: {} (the default window: this month and the previous one, UTC),
// {"date"}, or {"from","to"} (each YYYY-MM-DD, or "today-N"), with optional "dataSourceIds" and
// "force". Anything else is refused with a message that names it.
import { calendarNote, DAY_FORMS, dayCount, eventDay, utcDay } from '../dates.ts';
import { EventError } from '../errors.ts';
import { eventFields, flag } from '../input/event-shape.ts';
import type { CostRunRequest } from './run.ts';

const allowedKeys = ['date', 'from', 'to', 'dataSourceIds', 'force'];

export interface EventLimits {
  /** Longest range one invocation may export. */
  readonly maxDays: number;
  /** Months in the default window, the current one included. */
  readonly windowMonths: number;
}

export function parseCostEvent(event: unknown, now: Date, limits: EventLimits): CostRunRequest {
  const e = eventFields(event, allowedKeys, '{"date": "2026-01-31"}');
  if (!e) return { ...defaultWindow(now, limits.windowMonths), followJobs: true };
  const dataSourceIds = parseIds(e.dataSourceIds);
  const force = flag(e, 'force', 'EVENT_BAD_FORCE');
  const range = parseRange(e, now, limits.windowMonths);
  const today = utcDay(now);
  if (range.to > today)
    throw new EventError(
      'EVENT_DATE_IN_FUTURE',
      `${range.to} is after today (${today}, UTC): Cloudforet has no costs for it yet; ask for today or earlier`,
    );
  const days = dayCount(range.from, range.to);
  if (days > limits.maxDays) {
    throw new EventError(
      'EVENT_RANGE_TOO_LONG',
      `event asks for ${days} days (${range.from}..${range.to}); one invocation exports at most ${limits.maxDays}: ` +
        'start the backfill state machine with this event, run the CLI (cloudforet-export costs --from … --to …), or split the range',
    );
  }
  // Only the default window (the schedule's run) also follows the job history: an explicit range
  // exports that range.
  const followJobs = e.date === undefined && e.from === undefined && e.to === undefined;
  return {
    ...range,
    ...(dataSourceIds && { dataSourceIds }),
    ...(force && { force }),
    ...(followJobs && { followJobs }),
  };
}

/** From the first day of the month `months - 1` before this one, to today (UTC). */
export function defaultWindow(now: Date, months: number): { from: string; to: string } {
  const today = utcDay(now);
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
  return { from: utcDay(first), to: today };
}

function parseRange(
  e: Record<string, unknown>,
  now: Date,
  windowMonths: number,
): { from: string; to: string } {
  if (e.date !== undefined) {
    if (e.from !== undefined || e.to !== undefined) {
      throw new EventError('EVENT_DATE_AND_RANGE', 'give either "date" or "from"/"to", not both');
    }
    const date = day('date', e.date, now);
    return { from: date, to: date };
  }
  if (e.from === undefined && e.to === undefined) return defaultWindow(now, windowMonths);
  if (e.from === undefined || e.to === undefined) {
    throw new EventError(
      'EVENT_RANGE_INCOMPLETE',
      `give both "from" and "to" (each ${DAY_FORMS}; inclusive)`,
    );
  }
  const from = day('from', e.from, now);
  const to = day('to', e.to, now);
  if (from > to) {
    throw new EventError(
      'EVENT_RANGE_REVERSED',
      `"from" ${from} is after "to" ${to}: swap them ("from" is the first day, "to" the last, both included)`,
    );
  }
  return { from, to };
}

function day(name: string, value: unknown, now: Date): string {
  const named = eventDay(value, now);
  if (named === undefined) {
    throw new EventError(
      'EVENT_BAD_DATE',
      `"${name}" must be a day as ${DAY_FORMS} (got ${JSON.stringify(value)})${calendarNote(value)}`,
    );
  }
  return named;
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
  const twice = value.filter((id, i) => value.indexOf(id) !== i);
  if (twice.length > 0) {
    throw new EventError(
      'EVENT_BAD_DATA_SOURCE_IDS',
      `"dataSourceIds" names ${[...new Set(twice)].join(', ')} more than once: name each data source once`,
    );
  }
  return value;
}
