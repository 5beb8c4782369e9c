// Compaction of confirmed months (functions/lib/compaction/): a cost run over months Cloudforet
// confirmed and one it did not writes one costs_monthly and one focus_monthly object per data
// source and confirmed month, and moves compaction_state; every saved query and every view then
// answers in DuckDB exactly as over the daily objects alone (the same export with the compacted
// tables and the state removed), reads fewer objects, and a restated day of a compacted month
// rebuilds its monthly objects, after which the answers agree again.
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { writeCompactionState } from '../../../functions/lib/destination/compaction-state.ts';
import { COMPACTION_STATE_DIR } from '../../../functions/lib/destination/layout.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { isConfirmed } from '../../../harness/simulator/unified-costs.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack, monthsBack } from '../../support/months.ts';

const NOW = new Date();
const FROM = monthsBack(2, NOW);
const TO = addDays(utcDay(NOW), -1);
const MONTHS = [monthBack(2, NOW), monthBack(1, NOW), monthBack(0, NOW)];
/** The months a run compacts: confirmed ones, from the first, as long as each is. */
const EXPECTED_THROUGH = (() => {
  let through: string | undefined;
  for (const m of MONTHS) {
    if (!isConfirmed(m)) break;
    through = m;
  }
  return through;
})();
const queries = loadNamedQueries();
const creates = queries.filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW'));
const questions = [
  ...queries
    .filter((q) => !q.sql.startsWith('CREATE OR REPLACE VIEW'))
    .map((q) => ({ name: q.name, sql: q.sql })),
  ...creates.map((q) => {
    const view = /VIEW (\w+) AS/.exec(q.sql)![1]!;
    return { name: `SELECT * FROM ${view}`, sql: `SELECT * FROM ${view}` };
  }),
];

let world: CliWorld;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  world = await cliWorld('compaction', {
    seed: 40,
    dataSources: 2,
    workspaces: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 6,
  });
  ({ sim, dir } = world);
  // The saved queries over cost reports need their tables: one month's reports, archived too.
  sim.runCostReportJob(MONTHS[0]!, 'DONE');
}, 60_000);
afterAll(() => world.close());

const costs = (out: string) =>
  world.cli('costs', out, '--json', '--cost-reports', '--from', FROM, '--to', TO);

/** A value as compared: numbers to 12 significant digits (sums over another order of rows). */
function normal(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(12)) : value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(normal);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, normal(v)])
        .sort(),
    );
  }
  return value;
}

/** Every saved query's and view's rows, each row as text, sorted (order-insensitive). */
async function answers(out: string): Promise<Map<string, string[]>> {
  const db: AthenaLike = await athenaOver(out, { now: NOW });
  try {
    for (const view of creates) await db.run(view.sql);
    const all = new Map<string, string[]>();
    for (const q of questions) {
      const rows = await db.run(q.sql);
      all.set(q.name, rows.map((r) => JSON.stringify(normal(r))).sort());
    }
    return all;
  } finally {
    db.close();
  }
}

/** The same export read without compaction: the compacted tables and the state removed. */
async function dailyOnly(out: string, copy: string): Promise<string> {
  await rm(copy, { recursive: true, force: true });
  await cp(out, copy, { recursive: true });
  for (const folder of ['costs_monthly', 'focus_monthly', COMPACTION_STATE_DIR]) {
    await rm(join(copy, folder), { recursive: true, force: true });
  }
  return copy;
}

/** Objects DuckDB opens for one question (its profiler's Total Files Read over every scan). */
async function objectsRead(out: string, sql: string): Promise<number> {
  const db = await athenaOver(out, { now: NOW });
  try {
    for (const view of creates) await db.run(view.sql);
    const profile = join(out, '..', `profile-${Date.now()}.json`);
    await db.run("PRAGMA enable_profiling = 'json'");
    await db.run(`PRAGMA profiling_output = '${profile}'`);
    await db.run(sql);
    await db.run('PRAGMA disable_profiling');
    const text = await readFile(profile, 'utf8');
    return [...text.matchAll(/"Total Files Read":\s*"?(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
  } finally {
    db.close();
  }
}

describe('compaction of confirmed months', () => {
  it('compacts the confirmed months; every query and view answers as over the daily objects alone', async () => {
    expect(EXPECTED_THROUGH).toBeDefined(); // two months back is always confirmed (from day 15 of the next)
    const out = join(dir, 'out');
    const run = await costs(out);
    expect(run.code).toBe(0);
    expect((await world.cli('inventory', out)).code).toBe(0); // the names views read its snapshots
    const byTable = Object.fromEntries(
      run.summary.compaction.tables.map((t: { table: string }) => [t.table, t]),
    );
    expect(byTable.costs_monthly.throughMonth).toBe(EXPECTED_THROUGH);
    expect(byTable.focus_monthly.throughMonth).toBe(EXPECTED_THROUGH);
    const compactedMonths = MONTHS.filter((m) => m <= EXPECTED_THROUGH!);
    expect(byTable.costs_monthly.written).toBe(compactedMonths.length * 2);
    expect(byTable.focus_monthly.written).toBe(compactedMonths.length * 2);
    const state = JSON.parse(await readFile(join(out, COMPACTION_STATE_DIR, 'costs.json'), 'utf8'));
    expect(state.through_month).toBe(EXPECTED_THROUGH);

    const compacted = await answers(out);
    const daily = await answers(await dailyOnly(out, join(dir, 'daily')));
    for (const q of questions) {
      expect({ q: q.name, rows: compacted.get(q.name) }).toEqual({ q: q.name, rows: daily.get(q.name) });
    }
    // Not vacuous: the costs and FOCUS views have rows of every month.
    expect(compacted.get('SELECT * FROM costs_combined')!.length).toBeGreaterThan(0);
    expect(compacted.get('SELECT * FROM focus_consolidation_cloudforet')!.length).toBeGreaterThan(0);
    expect(compacted.get('spend_usd_by_confirmed_month')!.length).toBeGreaterThan(0);

    // And fewer objects: a compacted month is two objects, not two a day.
    const question = 'SELECT count(*) FROM focus_combined';
    const withCompaction = await objectsRead(out, question);
    const without = await objectsRead(join(dir, 'daily'), question);
    expect(withCompaction).toBeLessThan(without);
    // A month-to-date question through the views opens no compacted month (its billed_month
    // filter prunes them): what it reads without compaction, and the state line.
    const monthToDate = queries.find((q) => q.name === 'month_to_date_spend_usd_by_provider_project')!.sql;
    expect(await objectsRead(out, monthToDate)).toBeLessThanOrEqual(
      (await objectsRead(join(dir, 'daily'), monthToDate)) + 2,
    );
  }, 300_000);

  it('a restated day of a compacted month rebuilds its monthly objects; the answers agree again', async () => {
    const out = join(dir, 'out');
    const month = MONTHS[0]!;
    const [ds] = sim.dataSourceIds() as [string];
    const before = await answers(out);
    sim.sync(ds, { start: month, changes: { [addDays(FROM, 3)]: { costFactor: 3 } } });

    const rerun = await costs(out);

    expect(rerun.code).toBe(0);
    const byTable = Object.fromEntries(
      rerun.summary.compaction.tables.map((t: { table: string }) => [t.table, t]),
    );
    // The restated data source's month rebuilt, in both tables; the rest current.
    expect(byTable.costs_monthly.written).toBeGreaterThanOrEqual(1);
    expect(byTable.focus_monthly.written).toBeGreaterThanOrEqual(1);
    expect(byTable.costs_monthly.throughMonth).toBe(EXPECTED_THROUGH);
    const manifest = JSON.parse(
      await readFile(join(out, '_manifests', 'costs_monthly', `billed_month=${month}`, `${ds}.json`), 'utf8'),
    );
    expect(manifest.runId).toBe(rerun.summary.runId);

    const compacted = await answers(out);
    const daily = await answers(await dailyOnly(out, join(dir, 'daily')));
    for (const q of questions) {
      expect({ q: q.name, rows: compacted.get(q.name) }).toEqual({ q: q.name, rows: daily.get(q.name) });
    }
    // The restatement is in the answers: the confirmed month's spend changed.
    expect(compacted.get('spend_usd_by_confirmed_month')).not.toEqual(
      before.get('spend_usd_by_confirmed_month'),
    );
  }, 300_000);

  it('the verifier finds a compacted month read while a day of it is no longer what it was built from', async () => {
    const copy = join(dir, 'verify');
    await rm(copy, { recursive: true, force: true });
    await cp(join(dir, 'out'), copy, { recursive: true });
    const sink = dirSink(copy);
    const [ds] = sim.dataSourceIds() as [string];
    const day = addDays(FROM, 5);
    const key = `_manifests/costs/billed_date=${day}/${ds}.json`;
    const manifest = JSON.parse((await sink.read(key))!);
    // The day's manifest now names other bytes, as a rewrite that bypassed compaction would leave it.
    await sink.put(key, JSON.stringify({ ...manifest, sha256: '0'.repeat(64) }), 'application/json');
    const monthly = `costs_monthly/billed_month=${day.slice(0, 7)}/${ds}.parquet`;

    const read = await verifyDestination(sink, { checksums: false });
    await writeCompactionState(sink, 'costs', undefined);
    const notRead = await verifyDestination(sink, { checksums: false });

    expect(read.findings).toContainEqual({ key: monthly, why: 'stale-compaction' });
    // Once views read the month from its days, the stale monthly object is no damage.
    expect(notRead.findings.filter((f) => f.why === 'stale-compaction')).toEqual([]);
  }, 120_000);
});
