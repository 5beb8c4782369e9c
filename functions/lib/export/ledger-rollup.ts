// The run ledger rolled up: the latest line of each unit, one JSON-lines object per exported table
// and source (ledger/export_units_latest/table_name=<t>/<source>.json), so freshness, completeness
// and reconciliation read a handful of objects instead of every line ever written. The lines stay
// as they are (the audit trail); the rollup is rebuilt from them, never the other way round.
//
// Each run, at its end, reads the lines of the export days since the last rollup's watermark (one
// day earlier: a unit of a concurrent run may record its line after this one listed), merges them
// into the objects they touch (per unit, the line exported last wins) and then moves the
// watermark. A merge only adds or replaces a unit's row, never drops one, so a rollup object never
// has fewer rows than before and no proof is asked (destination/gate.ts). Two runs rolling up at once
// may each write an object the other's lines are missing from; the next run's overlap re-reads
// them: the rollup is exact as of the last run that finished, never older than the day before.
import { addDays, daysBetween, isIsoDate, utcDay } from '../dates.ts';
import { setAsideUnreadable } from '../destination/gate.ts';
import { ledgerPrefix, ledgerRollupKey, ledgerRollupStateKey } from '../destination/layout.ts';
import type { Logger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { exportUnitsLatestTable, exportUnitsTable } from '../tables/ledger.ts';
import type { ExportUnitRecord } from './ledger.ts';

/** A rollup row: an export_units line without its table (the rollup's partition). */
type RollupRow = Omit<ExportUnitRecord, 'table_name'>;

export interface LedgerRollupSummary {
  /** The first export day read; undefined when the whole ledger was (no rollup before). */
  readonly from?: string;
  readonly linesRead: number;
  /** Rollup objects rewritten, and the units they hold in all. */
  readonly objectsWritten: number;
  readonly units: number;
  /** False: lines of later export days are left for the next run (ROLLUP_LINES_PER_RUN). */
  readonly complete: boolean;
  /** Rollup objects that did not parse: set aside (_damaged/), rebuilt from every line by the next rollup. */
  readonly rebuildFromStart?: readonly string[];
  /** Line files that do not parse (damaged): left out of the rollup, named (costs --verify names them too). */
  readonly unreadable?: readonly string[];
}

interface RollupState {
  /** The UTC day the last rollup started: the next reads the lines from the day before it. */
  readonly through: string;
}

const unitOf = (r: Pick<RollupRow, 'partition_value' | 'scope'>) =>
  `${r.partition_value}\u0000${r.scope ?? ''}`;
const READS_AT_ONCE = 8;

/**
 * Lines one rollup reads at most (whole export days, at least one): a ledger of years, rolled up
 * for the first time, is caught up over a few runs instead of holding one past its deadline.
 */
export const ROLLUP_LINES_PER_RUN = 20_000;

/** Brings the rollup up to the ledger's lines; `now` is the run's clock. */
export async function rollUpLedger(
  sink: Sink,
  now = new Date(),
  maxLines = ROLLUP_LINES_PER_RUN,
): Promise<LedgerRollupSummary> {
  const started = utcDay(now);
  const stateKey = ledgerRollupStateKey(exportUnitsLatestTable);
  const state = parseState(await sink.read(stateKey));
  const from = state ? addDays(state.through, -1) : undefined;
  // To the day after: a run whose clock is behind its lines' (a test's, a skewed one) still finds them.
  const byDay = await lineKeys(sink, from, addDays(started, 1));
  const days = [...byDay.keys()].sort();
  const chosen: string[] = [];
  let total = 0;
  for (const day of days) {
    const n = byDay.get(day)!.length;
    if (chosen.length > 0 && total + n > maxLines) break;
    chosen.push(day);
    total += n;
  }
  const complete = chosen.length === days.length;
  // Caught up: the next reads from the day before today. Not yet: from the last day read.
  const through = complete ? started : addDays(chosen.at(-1)!, 1);
  const { records: lines, unreadable } = await readLines(
    sink,
    chosen.flatMap((day) => byDay.get(day)!),
  );
  const known = new Set(exportUnitsLatestTable.values);
  const groups = new Map<string, { table: string; source: string; rows: RollupRow[] }>();
  for (const { table_name, ...row } of lines) {
    if (!known.has(table_name)) continue;
    const id = `${table_name}\u0000${row.source}`;
    const group = groups.get(id) ?? { table: table_name, source: row.source, rows: [] };
    group.rows.push(row);
    groups.set(id, group);
  }
  let units = 0;
  let objectsWritten = 0;
  const damaged: string[] = [];
  await forEachLimit([...groups.values()], READS_AT_ONCE, async ({ table, source, rows }) => {
    const key = ledgerRollupKey(exportUnitsLatestTable, table, source);
    let before: RollupRow[];
    try {
      before = parseRows(await sink.read(key));
    } catch {
      damaged.push(key);
      return;
    }
    const merged = new Map(before.map((r) => [unitOf(r), r]));
    let changed = false;
    for (const row of rows) {
      const held = merged.get(unitOf(row));
      if (held && held.exported_at > row.exported_at) continue;
      if (held && JSON.stringify(held) === JSON.stringify(row)) continue;
      merged.set(unitOf(row), row);
      changed = true;
    }
    // By construction a merge never loses a unit; say so loudly if that ever stops being true.
    if (merged.size < before.length) throw new Error(`${key}: a rollup merge lost units`);
    units += merged.size;
    if (!changed) return;
    const ordered = [...merged.values()].sort((a, b) => (unitOf(a) < unitOf(b) ? -1 : 1));
    await sink.put(key, ordered.map((r) => `${JSON.stringify(r)}\n`).join(''), 'application/x-ndjson');
    objectsWritten++;
  });
  // Last: a run stopped before this line leaves the watermark where it was, and the next re-reads.
  // Nothing new rolled up and nothing left behind: the watermark stays (a run that changed
  // nothing writes nothing).
  // A rollup object that does not parse is derived: set aside, and the whole ledger read again.
  if (damaged.length > 0) await resetDamagedRollups(sink, damaged);
  else if (objectsWritten > 0 || (!complete && through !== state?.through))
    await sink.put(stateKey, `${JSON.stringify({ through } satisfies RollupState)}\n`, 'application/json');
  return {
    ...(from && { from }),
    ...(damaged.length > 0 && { rebuildFromStart: damaged }),
    linesRead: lines.length,
    objectsWritten,
    units,
    complete,
    ...(unreadable.length > 0 && { unreadable }),
  };
}

/**
 * The rollup at a run's end. Its failure fails no unit: the lines are written, the watermark has
 * not moved, and the next run's rollup reads them; it is logged as an error meanwhile.
 */
export async function rollUp(sink: Sink, now: Date, log: Logger): Promise<void> {
  try {
    const summary = await rollUpLedger(sink, now);
    log.info('run ledger rolled up', { ...summary });
    if (summary.unreadable)
      log.warn('run ledger lines that do not parse were left out of the rollup (costs --verify names them)', {
        keys: summary.unreadable.slice(0, 20),
      });
  } catch (error) {
    log.error('run ledger rollup failed; the next run rolls these lines up', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Rollup objects that do not parse: each set aside whole, and the watermark cleared so the next rollup reads every line. */
export async function resetDamagedRollups(sink: Sink, keys: readonly string[]): Promise<void> {
  for (const key of keys) await setAsideUnreadable(sink, key);
  await sink.put(
    ledgerRollupStateKey(exportUnitsLatestTable),
    `${JSON.stringify({ through: null })}\n`,
    'application/json',
  );
}

/** Lines written again (ledger-repair.ts) on export days the rollup has passed: it reads them again from there. */
export async function rewindRollup(sink: Sink, exportDays: readonly string[]): Promise<void> {
  const first = [...exportDays].sort()[0];
  if (first === undefined) return;
  const key = ledgerRollupStateKey(exportUnitsLatestTable);
  const state = parseState(await sink.read(key));
  if (!state || state.through <= first) return;
  await sink.put(key, `${JSON.stringify({ through: first } satisfies RollupState)}\n`, 'application/json');
}

/** Whether `key` is one of the rollup's objects. */
export const isRollupObject = (key: string): boolean =>
  key.startsWith(ledgerPrefix(exportUnitsLatestTable.name)) && key.endsWith('.json');

function parseState(text: string | undefined): RollupState | undefined {
  if (!text) return undefined;
  let parsed: Partial<RollupState>;
  try {
    parsed = JSON.parse(text) as Partial<RollupState>;
  } catch {
    return undefined; // unreadable: read every line again, which rebuilds the same rollup
  }
  return isIsoDate(parsed.through) ? { through: parsed.through } : undefined;
}

function parseRows(text: string | undefined): RollupRow[] {
  if (!text) return [];
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RollupRow);
}

/** The keys of the export_units lines of the export days from..to (all days without `from`), by day. */
async function lineKeys(sink: Sink, from: string | undefined, to: string): Promise<Map<string, string[]>> {
  const prefix = ledgerPrefix(exportUnitsTable.name);
  const span = from ? daysBetween(from, to) : [];
  const keys: string[] = [];
  if (from && span.length <= 62) {
    await forEachLimit(span, READS_AT_ONCE, async (day) => {
      keys.push(...(await sink.list(`${prefix}${exportUnitsTable.partitionKey}=${day}/`)));
    });
  } else keys.push(...(await sink.list(prefix)));
  const byDay = new Map<string, string[]>();
  const pattern = new RegExp(
    `^${prefix}${exportUnitsTable.partitionKey}=(\\d{4}-\\d\\d-\\d\\d)/[^/]+\\.json$`,
  );
  for (const key of keys) {
    const day = pattern.exec(key)?.[1];
    if (!day || (from && (day < from || day > to))) continue;
    const list = byDay.get(day) ?? [];
    list.push(key);
    byDay.set(day, list);
  }
  return byDay;
}

/**
 * The lines of `keys`. A line file that does not parse (cut short, replaced) is left out and
 * named, not fatal: one damaged line must not stop every later rollup; the verifier names it too.
 */
async function readLines(
  sink: Sink,
  keys: readonly string[],
): Promise<{ records: ExportUnitRecord[]; unreadable: string[] }> {
  const records: ExportUnitRecord[] = [];
  const unreadable: string[] = [];
  await forEachLimit(keys, READS_AT_ONCE, async (key) => {
    const text = await sink.read(key);
    let rows: RollupRow[];
    try {
      rows = parseRows(text);
    } catch {
      unreadable.push(key);
      return;
    }
    for (const row of rows) records.push(row as unknown as ExportUnitRecord);
  });
  return { records, unreadable: unreadable.sort() };
}
