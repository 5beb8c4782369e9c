// Through which month the views read a daily table (costs, focus) from its compacted objects: one
// JSON line a daily table, compaction_state/<table>.json, read by Athena as the table
// compaction_state. The views read months up to `through_month` from the compacted table and every
// day after `through_date` from the daily one, so with any value no row is read twice or missed.
// The line is shared, so no unit writes it (two units lowering it by read-modify-write could lose
// one's update, leaving views on a stale monthly object). It is written by a run before its units
// start, lowered below every month its plan (or a mark left before) will change
// (leaveCompactionFor), and by the compaction step, which computes it from the monthly manifests
// (compaction/compact.ts) and raises it only over months it made fresh. A unit about to change a day
// of a month views may still read compacted (a day the plan did not name: a FOCUS unit following
// its costs day) marks the month with an object of its own (markCompactionDirty), which no other
// write can lose; the next run lowers the state below it and the compaction step compacts it again.
// The line holds no time: lowered for a day that then failed, and raised again, it is the same bytes.
import { isIsoMonth } from '../dates.ts';
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { type DayNow, dailyManifestKey, type HeldDay, unprovenDrops } from './day-drops.ts';
import { compactionDirtyKey, compactionDirtyPrefix, compactionStateKey, MANIFESTS_DIR } from './layout.ts';
import type { UnitManifest } from './manifest.ts';
import { objectDifference } from './object-check.ts';

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
  if (!isIsoMonth(month)) {
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

/** The daily tables with compacted months (tables/compacted.ts; test/system/compaction/compaction-absence.test.ts holds them equal). */
export const COMPACTED_DAILY_TABLES: readonly string[] = ['costs', 'focus'];

/**
 * Before a run's units start: views read every month the plan will change, every month a mark
 * names, and every later one, from their days until the compaction step has made their monthly
 * objects fresh. One writer (the run itself, before any unit), so nothing is lost. An unreadable
 * state becomes "none compacted" (every month read from its days, always right); `onUnreadable`
 * hears why, and the compaction step computes the state again at the end of the run. Returns the
 * state each daily table had, which the compaction step says it corrected (a garbled or raised one).
 */
export async function leaveCompactionFor(
  sink: Sink,
  months: Iterable<string>,
  onUnreadable?: (dailyTable: string, why: string) => void,
  onDamaged?: (units: readonly DamagedDailyUnit[]) => void,
): Promise<Map<string, CompactionStateRead>> {
  const planned = [...months];
  const found = new Map<string, CompactionStateRead>();
  for (const table of COMPACTED_DAILY_TABLES) {
    const state = await readCompactionState(sink, table);
    found.set(table, state);
    if (state.unreadable !== undefined) {
      onUnreadable?.(table, state.unreadable);
      await writeCompactionState(sink, table, undefined);
      continue;
    }
    if (state.through === undefined) continue;
    const marked = (await dirtyMarks(sink, table)).map((m) => m.month);
    const first = [...planned, ...marked].sort()[0];
    if (first === undefined || first > state.through) continue;
    // Views read a month's days once it is below the state: never a month one of whose daily units
    // is damaged (its compacted object still holds the rows); the run repairs it, and the units of
    // a month kept compacted mark it (markCompactionDirty) for the compaction step.
    const damaged = await damagedDailyUnits(sink, table, monthBefore(first), state.through);
    if (damaged.length > 0) onDamaged?.(damaged);
    const keep = damaged
      .map((d) => d.month)
      .sort()
      .at(-1);
    const lowered = keep ?? monthBefore(first);
    if (lowered >= state.through) continue;
    await writeCompactionState(sink, table, lowered < '0001-01' ? undefined : lowered);
  }
  return found;
}

/** A daily unit whose object is not what its manifest describes (or whose manifest does not parse). */
export interface DamagedDailyUnit {
  readonly table: string;
  readonly month: string;
  /** The unit's partition value (a day, YYYY-MM-DD) and name (a data source id), when its manifest says. */
  readonly partition?: string;
  readonly name?: string;
  readonly manifestKey: string;
  readonly why: string;
}

/**
 * The daily units of the months after `after` through `through` that a reader must not be sent to:
 * a unit whose object is not what its manifest says, and a day a compacted month holds that the
 * daily side no longer shows (its manifest gone, or naming no object without a proven removal:
 * day-drops.ts). Read from its days, such a month would miss that day's rows.
 */
export async function damagedDailyUnits(
  sink: Sink,
  dailyTable: string,
  after: string,
  through: string,
): Promise<DamagedDailyUnit[]> {
  /** The manifests under `prefix` of the months after `after` through `through`. */
  const inRange = async (prefix: string) => {
    const monthOf = (key: string) => /^[^/=]+=(\d{4}-\d\d)/.exec(key.slice(prefix.length))?.[1];
    return (await sink.list(prefix)).flatMap((k) => {
      const month = monthOf(k);
      return k.endsWith('.json') && month !== undefined && month > after && month <= through
        ? [{ key: k, month }]
        : [];
    });
  };
  const [daily, monthly] = await Promise.all([
    inRange(`${MANIFESTS_DIR}/${dailyTable}/`),
    inRange(`${MANIFESTS_DIR}/${dailyTable}_monthly/`),
  ]);
  if (daily.length === 0 && monthly.length === 0) return [];
  const objects = await sink.listObjects(`${dailyTable}/`);
  const found: DamagedDailyUnit[] = [];
  /** The days each (month, data source) shows now, from its daily manifests. */
  const days = new Map<string, DayNow[]>();
  /** Daily manifests found but unparsable (below: not "missing" but what they are). */
  const unparsable = new Set<string>();
  await forEachLimit(daily, 16, async ({ key: manifestKey, month }) => {
    let m: UnitManifest;
    try {
      m = JSON.parse((await sink.read(manifestKey)) ?? '') as UnitManifest;
      if (typeof m !== 'object' || m === null) throw new Error('not an object');
    } catch {
      found.push({ table: dailyTable, month, manifestKey, why: 'manifest unparsable' });
      unparsable.add(manifestKey);
      return;
    }
    if (typeof m.partition === 'string' && typeof m.dataSourceId === 'string') {
      const unit = `${month} ${m.dataSourceId}`;
      days.set(unit, [
        ...(days.get(unit) ?? []),
        {
          day: m.partition.slice(0, 10),
          key: m.key,
          ...(m.removedBecause && { removedBecause: m.removedBecause }),
        },
      ]);
    }
    if (m.key === null || typeof m.key !== 'string') return;
    const why = await objectDifference(sink, m, m.key, objects.get(m.key), false);
    if (why)
      found.push({
        table: dailyTable,
        month,
        partition: m.partition,
        ...((m.dataSourceId ?? undefined) !== undefined && { name: m.dataSourceId }),
        manifestKey,
        why,
      });
  });
  await forEachLimit(monthly, 16, async ({ key, month }) => {
    let m: { readonly dataSourceId?: unknown; readonly sources?: readonly HeldDay[] };
    try {
      m = JSON.parse((await sink.read(key)) ?? '') as typeof m;
    } catch {
      return; // the compaction step rebuilds an unparsable monthly manifest from its days
    }
    if (typeof m?.dataSourceId !== 'string' || !Array.isArray(m.sources)) return;
    const name = m.dataSourceId;
    const held = m.sources.flatMap((s) =>
      typeof s.day === 'string' ? [{ ...s, day: s.day, rows: s.rows ?? 0 }] : [],
    );
    for (const drop of unprovenDrops(held, days.get(`${month} ${name}`) ?? [])) {
      const manifestKey = dailyManifestKey(key, held.find((s) => s.day === drop.day)!);
      // Also for a day whose manifest did not parse: this entry names the day, so the run repairs it.
      const why = unparsable.has(manifestKey) ? 'its daily manifest does not parse' : drop.why;
      found.push({
        table: dailyTable,
        month,
        partition: drop.day,
        name,
        manifestKey,
        why: `${why}, and the compacted month ${key} holds its rows`,
      });
    }
  });
  return found;
}

/**
 * A unit about to change a day of `month` while views may read it compacted (at or below the
 * state, or the state unreadable): one small mark under a key of its own, never the shared state.
 */
export async function markCompactionDirty(
  sink: Sink,
  dailyTable: string,
  month: string,
  name: string,
  now = new Date(),
): Promise<void> {
  const state = await readCompactionState(sink, dailyTable);
  if (state.unreadable === undefined && (state.through === undefined || month > state.through)) return;
  const mark = { table_name: dailyTable, month, source: name, at: now.toISOString() };
  await sink.put(
    compactionDirtyKey(dailyTable, month, name, now),
    `${JSON.stringify(mark)}\n`,
    'application/json',
  );
}

/** The marks of a daily table: each one's key and month. */
export async function dirtyMarks(
  sink: Sink,
  dailyTable: string,
): Promise<Array<{ readonly key: string; readonly month: string }>> {
  const prefix = compactionDirtyPrefix(dailyTable);
  const marks: Array<{ key: string; month: string }> = [];
  for (const key of await sink.list(prefix)) {
    const month = /^(\d{4}-\d\d)\//.exec(key.slice(prefix.length))?.[1];
    if (month !== undefined) marks.push({ key, month });
  }
  return marks;
}
