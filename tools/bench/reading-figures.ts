// Objects per saved query, the reading figure that does not depend on the machine's speed: the
// reading stage's world (reading.ts: the CLI's year of costs, its FOCUS rows, compaction, cost
// reports and inventory snapshots), smaller, exported and asked every saved query and view at a
// fixed clock, so the counts are the same on every run whatever the day (a window that ends "now"
// otherwise moves with the real clock: one more day of data sources, another month's length).
// test/system/athena/reading-guard.test.ts fails when any count grows beyond
// docs/reading-baseline.json; `npm run reading-baseline` rewrites the file, on purpose.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { retentionStart } from '../../functions/lib/costs/planning/job-history.ts';
import { addDays } from '../../functions/lib/dates.ts';
import { rebuildNameRanges } from '../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { athenaOver } from '../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../infra/named-queries.ts';
import { exportYear, indexFiles, profile, type ReadingScale } from './reading.ts';

export const READING_BASELINE_FILE = fileURLToPath(
  new URL('../../docs/reading-baseline.json', import.meta.url),
);

/** The clock the guard's world is exported and asked at: mid-month, so month windows are neither empty nor whole. */
export const GUARD_CLOCK = '2026-06-15T12:00:00.000Z';

/** The reading stage's world, smaller: two data sources, a few rows a day, a month of snapshots. */
export function guardScale(today: string = GUARD_CLOCK.slice(0, 10)): ReadingScale {
  return {
    dataSources: 2,
    from: retentionStart(new Date(`${today}T12:00:00.000Z`)),
    to: addDays(today, -1),
    rowsPerDay: 4,
    snapshotDays: 31,
    cloudServices: 40,
    years: 1,
  };
}

/** Saved query or view name -> Parquet and ledger objects DuckDB read for it. */
export type ObjectsPerQuery = Record<string, number>;

/**
 * Runs `work` with Date reading `iso` plus the real time elapsed since the call. Native readers
 * (DuckDB) keep the real clock; the queries are given the clock explicitly (athenaOver's `now`).
 */
export async function atClock<T>(iso: string, work: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  const offset = RealDate.parse(iso) - RealDate.now();
  class ClockDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ClockDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
}

/** The guard's world exported at GUARD_CLOCK and every saved query and view profiled over it. */
export async function measureObjectsPerQuery(): Promise<ObjectsPerQuery> {
  const dir = await mkdtemp(join(tmpdir(), 'reading-guard-'));
  const out = join(dir, 'out');
  try {
    const scale = guardScale();
    await atClock(GUARD_CLOCK, async () => {
      await exportYear(dir, out, scale);
      await rebuildNameRanges(dirSink(out));
    });
    const index = await indexFiles(out);
    const now = new Date(`${addDays(scale.to, 1)}T12:00:00.000Z`);
    const db = await athenaOver(out, { now });
    const counts: ObjectsPerQuery = {};
    try {
      await db.connection.run('SET enable_external_file_cache = false');
      await db.connection.run('SET parquet_metadata_cache = false');
      const all = loadNamedQueries();
      for (const q of all) if (q.sql.startsWith('CREATE OR REPLACE VIEW')) await db.run(q.sql);
      for (const q of all) {
        const view = /CREATE OR REPLACE VIEW\s+(\w+)/.exec(q.sql)?.[1];
        const read = await profile(db, view ? `SELECT * FROM ${view}` : q.sql, q.name, { index, dir, now });
        counts[q.name] = read.objects;
      }
    } finally {
      db.close();
    }
    return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each query that reads more objects than the baseline, is new, or is gone: empty when none. */
export function objectsGrown(baseline: ObjectsPerQuery, now: ObjectsPerQuery): string[] {
  const grown: string[] = [];
  for (const [query, objects] of Object.entries(now)) {
    const before = baseline[query];
    if (before === undefined) grown.push(`${query}: not in the baseline (${objects} objects)`);
    else if (objects > before) grown.push(`${query}: ${objects} objects, the baseline ${before}`);
  }
  for (const query of Object.keys(baseline))
    if (!(query in now)) grown.push(`${query}: no longer a saved query or view`);
  return grown;
}

/** One line a query whose count moved, or that it did not. */
export function describeObjectsAgainst(baseline: ObjectsPerQuery, now: ObjectsPerQuery): string[] {
  const moved = Object.entries(now)
    .filter(([query, objects]) => baseline[query] !== objects)
    .map(([query, objects]) => `${query}: ${baseline[query] ?? '–'} → ${objects}`);
  const total = Object.values(now).reduce((n, x) => n + x, 0);
  return moved.length > 0
    ? [...moved, `${Object.keys(now).length} queries, ${total} objects in all`]
    : [`${Object.keys(now).length} queries, ${total} objects in all, as the baseline`];
}
