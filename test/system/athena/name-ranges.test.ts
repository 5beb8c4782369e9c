// identity_names (inventory/name-ranges.ts) against the daily snapshots it replaces: a history of
// snapshot days made from one real inventory export (the simulator's), with renames, reference
// changes, ids gone for a day or for good, days with no snapshot or no project snapshot, and a
// second scope's snapshot exported later on some days. costs_named_as_of_day over the ranges must
// name every cost row as the view over every snapshot day did (test/support/names-from-snapshots.sql),
// whether the ranges were folded day by day (with a rerun of a day and a day folded late) or rebuilt.
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { ledgerPrefix } from '../../../functions/lib/destination/layout.ts';
import { rebuildNameRanges, updateNameRanges } from '../../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { identityNamesTable, nameKinds } from '../../../functions/lib/tables/ledger.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries, type NamedQuerySql } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';

const TODAY = utcDay(new Date());
const TO = addDays(TODAY, -1);
const COST_DAYS = Array.from({ length: 16 }, (_, i) => addDays(TO, i - 15));
/** Snapshot days: from the third cost day on, less two days with none (the runs failed). */
const HISTORY = COST_DAYS.slice(2).filter((_, i) => i !== 4 && i !== 5);
/** A day with every snapshot but the projects'. */
const NO_PROJECTS = HISTORY[6]!;

/**
 * The snapshot of `day` made from today's, by rules fixed per id (DuckDB's hash) and day index:
 * names change every few days at each id's own offset, references change for some ids from day 8,
 * some ids miss a day now and then, and some are gone for good from day 10.
 */
function historySql(table: string, idColumn: string, ref: string | null, d: number, from: string): string {
  const h = `hash(${idColumn})`;
  const renamed = `CASE WHEN name IS NULL THEN NULL ELSE name || ' #' || CAST((${d} + ${h} % 5) // 5 AS varchar) END`;
  const moved =
    ref && table !== 'data_source_accounts'
      ? `, CASE WHEN ${d} >= 8 AND ${h} % 4 = 0 THEN NULL ELSE ${ref} END AS ${ref}`
      : '';
  const replace = table === 'data_source_accounts' ? '' : `${renamed} AS name`;
  const routing =
    table === 'data_source_accounts'
      ? `CASE WHEN ${d} >= 6 AND ${h} % 2 = 0 THEN 'ws-moved' ELSE workspace_id END AS workspace_id`
      : '';
  const parts = [replace, routing, moved.slice(2)].filter(Boolean).join(', ');
  return (
    `SELECT * ${parts ? `REPLACE (${parts})` : ''} FROM read_parquet('${from}', hive_partitioning = false) ` +
    `WHERE NOT ((${h} + ${d}) % 9 = 0) AND NOT (${d} >= 10 AND ${h} % 7 = 0)`
  );
}

describe('identity names as validity ranges', () => {
  let simulator: Simulator;
  let dir: string;
  let out: string;
  let db: AthenaLike;

  const names = async () => {
    const rows: Record<string, string> = {};
    for (const { kind } of nameKinds) {
      const file = join(out, ledgerPrefix(identityNamesTable.name), `kind=${kind}`, 'ranges.json');
      rows[kind] = await readFile(file, 'utf8').catch(() => '');
    }
    return rows;
  };
  const compare = async () => {
    const columns =
      'cost_id, billed_date, workspace_id, workspace_name, project_name, project_group_path, ' +
      'service_account_name, billing_account_id, billing_account_name, names_snapshot_date';
    const [only] = await db.run(
      `SELECT (SELECT count(*) FROM (SELECT ${columns} FROM costs_named_as_of_day EXCEPT ALL SELECT ${columns} FROM names_from_snapshots)) AS a, ` +
        `(SELECT count(*) FROM (SELECT ${columns} FROM names_from_snapshots EXCEPT ALL SELECT ${columns} FROM costs_named_as_of_day)) AS b, ` +
        '(SELECT count(*) FROM costs_named_as_of_day) AS n, (SELECT count(*) FROM costs) AS c',
    );
    return only!;
  };

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 41, workspaces: 3, to: TO, rowsPerDay: 12 });
    dir = await mkdtemp(join(tmpdir(), 'name-ranges-'));
    out = join(dir, 'out');
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const common = ['--endpoint', simulator.url, '--secret-file', join(dir, 'app.secret'), '--out', out];
    expect(await main(['costs', ...common, '--from', COST_DAYS[0]!, '--to', TO], {}, fakeIo())).toBe(0);
    expect(await main(['inventory', ...common], {}, fakeIo())).toBe(0);
    db = await athenaOver(out);
    for (const kind of nameKinds) {
      const today = join(out, kind.table, `snapshot_date=${TODAY}`, 'domain.parquet');
      for (const [d, day] of HISTORY.entries()) {
        if (day === NO_PROJECTS && kind.table === 'projects') continue;
        const folder = join(out, kind.table, `snapshot_date=${day}`);
        await mkdir(folder, { recursive: true });
        const sql = historySql(kind.table, kind.id, kind.ref, d, today);
        await db.connection.run(`COPY (${sql}) TO '${join(folder, 'domain.parquet')}' (FORMAT parquet)`);
        // A workspace app's snapshot beside it on odd days, exported a second later, its names its own.
        if (d % 2 === 1 && kind.name) {
          await db.connection.run(
            `COPY (SELECT * REPLACE (name || ' (ws)' AS name, exported_at + INTERVAL 1 SECOND AS exported_at) ` +
              `FROM (${sql}) WHERE hash(${kind.id}) % 3 = 0) TO '${join(folder, 'ws-1.parquet')}' (FORMAT parquet)`,
          );
        }
      }
    }
    await db.run(
      (await readFile(join(__dirname, '../../support', 'names-from-snapshots.sql'), 'utf8')).trim(),
    );
  }, 120_000);
  afterAll(async () => {
    db?.close();
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names every cost row as every snapshot day did, rebuilt from the snapshots', async () => {
    const summary = await rebuildNameRanges(dirSink(out));
    // The view is made after the ranges exist: DuckDB's stand-in table reads what is there then.
    const [combined, view] = ['create_costs_combined_view', 'create_costs_named_as_of_day_view'].map(
      (name) => loadNamedQueries().find((q) => q.name === name)!,
    ) as [NamedQuerySql, NamedQuerySql];
    db.close();
    db = await athenaOver(out);
    await db.run(
      (await readFile(join(__dirname, '../../support', 'names-from-snapshots.sql'), 'utf8')).trim(),
    );
    await db.run(combined.sql);
    await db.run(view.sql);

    const { a, b, n, c } = await compare();
    const [{ renamed } = {}] = await db.run(
      "SELECT count(DISTINCT id) AS renamed FROM identity_names WHERE kind = 'project' AND valid_from IS NOT NULL",
    );

    expect(summary).toMatchObject({ how: 'rebuilt', daysRead: HISTORY.length + 1 });
    expect(Number(renamed)).toBeGreaterThan(0);
    expect(Number(n)).toBe(Number(c));
    expect([Number(a), Number(b)]).toEqual([0, 0]);
  });

  it('folds the same ranges day by day as the snapshots arrive, a day rerun and a day folded late included', async () => {
    const sink = dirSink(out);
    await rm(join(out, ledgerPrefix(identityNamesTable.name)), { recursive: true, force: true });
    await rm(join(out, '_ledger-rollup'), { recursive: true, force: true });
    const days = [...HISTORY, TODAY];
    // Every snapshot day put aside, then brought back one day at a time, as the runs would write them.
    const hold = join(dir, 'hold');
    const folder = (root: string, table: string, day: string) => join(root, table, `snapshot_date=${day}`);
    for (const { table } of nameKinds) {
      await mkdir(join(hold, table), { recursive: true });
      for (const day of days) await rename(folder(out, table, day), folder(hold, table, day)).catch(() => {});
    }
    const hows: string[] = [];
    for (const day of days) {
      for (const { table } of nameKinds)
        await rename(folder(hold, table, day), folder(out, table, day)).catch(() => {});
      hows.push((await updateNameRanges(sink, day)).how);
      if (day !== NO_PROJECTS) continue;
      // The projects of NO_PROJECTS arrive late (a rerun of that day's inventory): the day again.
      const today = join(hold, 'projects', `snapshot_date=${TODAY}`, 'domain.parquet');
      const late = folder(out, 'projects', day);
      await mkdir(late, { recursive: true });
      const sql = historySql('projects', 'project_id', 'project_group_id', HISTORY.indexOf(day), today);
      await db.connection.run(`COPY (${sql}) TO '${join(late, 'domain.parquet')}' (FORMAT parquet)`);
      hows.push((await updateNameRanges(sink, day)).how);
    }
    const folded = await names();
    await rebuildNameRanges(sink);

    expect(hows[0]).toBe('rebuilt'); // no ranges yet: the one day there is
    expect(hows.slice(1).filter((h) => h !== 'next-day')).toEqual(['same-day']);
    expect(Object.values(folded).every((text) => text.length > 0)).toBe(true);
    expect(await names()).toEqual(folded);

    // A day folded after a later one: every day is read again, the same ranges come out.
    expect((await updateNameRanges(sink, HISTORY[3]!)).how).toBe('rebuilt');
    expect(await names()).toEqual(folded);
    const { a, b, n, c } = await compare();
    expect(Number(n)).toBe(Number(c));
    expect([Number(a), Number(b)]).toEqual([0, 0]);
  });
});
