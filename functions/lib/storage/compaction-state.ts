// Through which month the views read a daily table (costs, focus) from its compacted objects: one
// JSON line a daily table, compaction_state/<table>.json, read by Athena as the table
// compaction_state. The views read months up to `through_month` from the compacted table and every
// day after `through_date` from the daily one, so with any value no row is read twice or missed.
// Only the compaction step raises it (after it wrote fresh monthly objects of every month up to
// it); whatever changes a daily object of a month at or below it lowers it first
// (lowerCompactionBelow), so no view reads a monthly object older than its days. The line holds
// no time: lowered for a day that then failed, and raised again, it is the same bytes as before.
import { compactionStateKey } from './layout.ts';
import type { Sink } from './sink.ts';

export interface CompactionState {
  readonly table_name: string;
  /** YYYY-MM, or null: no month is read compacted. */
  readonly through_month: string | null;
  /** The last day of through_month (YYYY-MM-DD), or null. */
  readonly through_date: string | null;
}

/** The month before `month` (YYYY-MM). */
export function monthBefore(month: string): string {
  const [y, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** The last day of a month (YYYY-MM-DD). */
export function lastDayOf(month: string): string {
  const days = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
  return `${month}-${String(days).padStart(2, '0')}`;
}

/**
 * What the state file says: the month views read compacted up to (none: undefined), or why it
 * cannot be read (`unreadable`). The file is derived (the compaction step computes it from the
 * monthly manifests), so a garbled one is never fatal: it is rebuilt, and said to be.
 */
export interface CompactionStateRead {
  readonly through: string | undefined;
  readonly unreadable?: string;
}

/** Parses a state file's text: a line the views can use (a YYYY-MM month and its last day, or nulls). */
export function parseCompactionState(text: string): CompactionStateRead {
  let state: Partial<Record<keyof CompactionState, unknown>>;
  try {
    state = JSON.parse(text) as Partial<Record<keyof CompactionState, unknown>>;
  } catch (error) {
    return { through: undefined, unreadable: `not JSON (${(error as Error).message})` };
  }
  if (!state || typeof state !== 'object' || Array.isArray(state)) {
    return { through: undefined, unreadable: 'not a JSON object' };
  }
  const month = state.through_month;
  if (month === null && state.through_date === null) return { through: undefined };
  if (typeof month !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    return {
      through: undefined,
      unreadable: `through_month is ${JSON.stringify(month)}, not YYYY-MM or null`,
    };
  }
  // The views read days after through_date from the daily table: a date that is not the month's
  // last day would read some days twice or not at all.
  if (state.through_date !== lastDayOf(month)) {
    return {
      through: undefined,
      unreadable: `through_date is ${JSON.stringify(state.through_date)}, not ${lastDayOf(month)}`,
    };
  }
  return { through: month };
}

/** The state of a daily table's compaction as its file says (absent: no month read compacted). */
export async function readCompactionState(sink: Sink, dailyTable: string): Promise<CompactionStateRead> {
  const text = await sink.read(compactionStateKey(dailyTable));
  return text === undefined ? { through: undefined } : parseCompactionState(text);
}

/** The month views read compacted up to, if any (an unreadable state: none can be relied on). */
export async function compactedThrough(sink: Sink, dailyTable: string): Promise<string | undefined> {
  return (await readCompactionState(sink, dailyTable)).through;
}

export async function writeCompactionState(
  sink: Sink,
  dailyTable: string,
  throughMonth: string | undefined,
): Promise<void> {
  const state: CompactionState = {
    table_name: dailyTable,
    through_month: throughMonth ?? null,
    through_date: throughMonth === undefined ? null : lastDayOf(throughMonth),
  };
  await sink.put(compactionStateKey(dailyTable), `${JSON.stringify(state)}\n`, 'application/json');
}

/**
 * Before a daily object of `month` changes: when views read that month compacted, they read it
 * (and every later month) from the daily objects from now on, until the compaction step has made
 * its monthly objects fresh again. An unreadable state is replaced by "none compacted" (every
 * month read from its days, always right); `onUnreadable` hears why, and the compaction step
 * computes it again at the end of the run.
 */
export async function lowerCompactionBelow(
  sink: Sink,
  dailyTable: string,
  month: string,
  onUnreadable?: (why: string) => void,
): Promise<void> {
  const state = await readCompactionState(sink, dailyTable);
  if (state.unreadable !== undefined) {
    onUnreadable?.(state.unreadable);
    await writeCompactionState(sink, dailyTable, undefined);
    return;
  }
  const through = state.through;
  if (through === undefined || month > through) return;
  const lowered = monthBefore(month);
  await writeCompactionState(sink, dailyTable, lowered < '0001-01' ? undefined : lowered);
}
