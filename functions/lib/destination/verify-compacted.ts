// The verifier's part for what holds no manifest of its own and for compacted months. The ledger's
// lines and the compaction state are read by Athena as JSON lines: a file that does not parse
// breaks every query over its table, so each is read and every line parsed. A compacted month
// names the daily units it was built from: it must name exactly the month's daily units of its
// data source (compaction/compact.ts builds it from all of them), and a day it holds that the
// daily side no longer has (no manifest, or one naming no object without a proven removal) is a
// day whose last copy may be the monthly object (docs/guarantees.md: absence is never evidence).
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { type CompactionStateRead, parseCompactionState } from './compaction-state.ts';
import { dailyManifestKey, type HeldDay } from './day-drops.ts';
import { COMPACTION_STATE_DIR, LEDGER_DIR } from './layout.ts';

export interface Finding {
  readonly key: string;
  /**
   * missing, size, etag, checksum, stale-derivation, stale-compaction, no-manifest, record-mismatch,
   * unparsable, compacted-day-missing, compacted-day-dropped, compaction-incomplete
   */
  readonly why: string;
}

/** What a monthly manifest and a daily one hold, as far as this check goes. */
export interface UnitFields {
  readonly table?: string;
  readonly partition?: string;
  readonly dataSourceId?: string;
  readonly key?: string | null;
  readonly rows?: number;
  readonly removedBecause?: string;
  readonly sources?: readonly HeldDay[];
}

/**
 * Reads every ledger and compaction_state file, each line JSON (a state line also one the views
 * can use); a bad one is a finding. Returns how many were read and each daily table's state.
 */
export async function checkBookkeeping(
  sink: Sink,
  keys: readonly string[],
  findings: Finding[],
  signal?: AbortSignal,
): Promise<{ files: number; states: Map<string, CompactionStateRead> }> {
  const states = new Map<string, CompactionStateRead>();
  const files = keys.filter(
    (k) =>
      (k.startsWith(`${LEDGER_DIR}/`) || k.startsWith(`${COMPACTION_STATE_DIR}/`)) && k.endsWith('.json'),
  );
  await forEachLimit(files, 16, async (key) => {
    signal?.throwIfAborted();
    const text = (await sink.read(key)) ?? '';
    if (key.startsWith(`${COMPACTION_STATE_DIR}/`)) {
      const state = parseCompactionState(text);
      states.set(key.slice(COMPACTION_STATE_DIR.length + 1, -'.json'.length), state);
      if (state.unreadable !== undefined) findings.push({ key, why: 'unparsable' });
      return;
    }
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    // An empty file is a table with no rows (a rollup of nothing), not damage.
    if (lines.some((l) => !isJsonObject(l))) findings.push({ key, why: 'unparsable' });
  });
  return { files: files.length, states };
}

function isJsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The daily manifests by `<daily table> <month> <data source>`, then day (YYYY-MM-DD). */
export function dailyIndex(
  manifests: ReadonlyMap<string, UnitFields>,
): Map<string, Map<string, { key: string; m: UnitFields }>> {
  const index = new Map<string, Map<string, { key: string; m: UnitFields }>>();
  for (const [key, m] of manifests) {
    if (Array.isArray(m.sources) || typeof m.table !== 'string' || typeof m.partition !== 'string') continue;
    if (typeof m.dataSourceId !== 'string' || !/^\d{4}-\d\d-\d\d/.test(m.partition)) continue;
    const unit = `${m.table} ${m.partition.slice(0, 7)} ${m.dataSourceId}`;
    const days = index.get(unit) ?? new Map<string, { key: string; m: UnitFields }>();
    index.set(unit, days.set(m.partition.slice(0, 10), { key, m }));
  }
  return index;
}

/**
 * A compacted month against its daily units: while views read it compacted (at or below its
 * table's compaction state, or the state unreadable), each named day must still be what its daily
 * manifest says and every daily unit of the month must be named; whatever the state, a named day
 * must still have a daily manifest, and one naming no object only with a proven removal.
 */
export function checkCompactedMonth(
  key: string,
  m: UnitFields,
  daily: ReadonlyMap<string, ReadonlyMap<string, { key: string; m: UnitFields }>>,
  states: ReadonlyMap<string, CompactionStateRead>,
  findings: Finding[],
): void {
  const sources = m.sources ?? [];
  const objectKey = typeof m.key === 'string' ? m.key : key;
  // costs_monthly compacts costs, focus_monthly focus (tables/compacted.ts).
  const table = typeof m.table === 'string' ? m.table.replace(/_monthly$/, '') : undefined;
  const month = m.partition;
  if (table === undefined || month === undefined) return;
  const state = states.get(table);
  const read = state?.unreadable !== undefined || (state?.through !== undefined && month <= state.through);
  const days = daily.get(`${table} ${month} ${m.dataSourceId}`) ?? new Map();
  let stale = false;
  for (const s of sources) {
    const now = s.day === undefined ? undefined : days.get(s.day);
    if (!now) {
      findings.push({ key: dailyManifestKey(key, s), why: 'compacted-day-missing' });
      continue;
    }
    if (s.key !== null && (s.rows ?? 0) > 0 && now.m.key === null && !now.m.removedBecause) {
      findings.push({ key: now.key, why: 'compacted-day-dropped' });
    }
    if (s.key !== null && (now.m.key !== s.key || (now.m as { sha256?: string }).sha256 !== s.sha256)) {
      stale = true;
    }
  }
  if (!read) return;
  if (stale) findings.push({ key: objectKey, why: 'stale-compaction' });
  const named = new Set(sources.map((s) => s.day));
  if ([...days.keys()].some((day) => !named.has(day))) {
    findings.push({ key: objectKey, why: 'compaction-incomplete' });
  }
}
