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

/** The month views read compacted up to, if any. */
export async function compactedThrough(sink: Sink, dailyTable: string): Promise<string | undefined> {
  const text = await sink.read(compactionStateKey(dailyTable));
  if (text === undefined) return undefined;
  const state = JSON.parse(text) as Partial<CompactionState>;
  return typeof state.through_month === 'string' ? state.through_month : undefined;
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
 * its monthly objects fresh again.
 */
export async function lowerCompactionBelow(sink: Sink, dailyTable: string, month: string): Promise<void> {
  const through = await compactedThrough(sink, dailyTable);
  if (through === undefined || month > through) return;
  const lowered = monthBefore(month);
  await writeCompactionState(sink, dailyTable, lowered < '0001-01' ? undefined : lowered);
}
