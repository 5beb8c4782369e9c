// costs_named_as_of_day over real exported files in DuckDB: a project renamed between two
// snapshots shows its old name on the days before the rename and its new one after, where
// costs_named shows the newest name on every day; no cost row is lost or doubled by the ranges.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { rebuildNameRanges } from '../../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';

const TO = addDays(utcDay(new Date()), -1);
const DAYS = Array.from({ length: 5 }, (_, i) => addDays(TO, i - 4));
const RENAMED_ON = DAYS[3]!;
const OLD_NAME = 'Legacy Payments';

describe('costs_named_as_of_day', () => {
  let simulator: Simulator;
  let dir: string;
  let db: AthenaLike;
  let project: { project_id: string; name: string };

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 16, workspaces: 3, to: TO, rowsPerDay: 30 });
    dir = await mkdtemp(join(tmpdir(), 'names-as-of-'));
    const out = join(dir, 'out');
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const common = ['--endpoint', simulator.url, '--secret-file', join(dir, 'app.secret'), '--out', out];
    expect(await main(['costs', ...common, '--from', DAYS[0]!, '--to', TO], {}, fakeIo())).toBe(0);
    expect(await main(['inventory', ...common], {}, fakeIo())).toBe(0);
    const costProjects = new Set(
      simulator.dataSourceIds().flatMap((ds) => simulator.costRows(ds, DAYS[0]!).map((r) => r.project_id)),
    );
    const named = simulator.records('projects').find((p) => costProjects.has(p.project_id))!;
    project = { project_id: String(named.project_id), name: String(named.name) };
    // Two earlier project snapshots, as earlier inventory runs would have left them: on DAYS[0]
    // the project still had its old name; on RENAMED_ON it had the name it has now.
    const today = join(out, 'projects', `snapshot_date=${utcDay(new Date())}`);
    const [file] = await readdir(today);
    db = await athenaOver(out);
    for (const [day, name] of [
      [DAYS[0]!, OLD_NAME],
      [RENAMED_ON, project.name],
    ] as const) {
      await mkdir(join(out, 'projects', `snapshot_date=${day}`), { recursive: true });
      await db.connection.run(
        `COPY (SELECT * REPLACE (CASE WHEN project_id = '${project.project_id}' THEN '${name}' ELSE name END AS name) ` +
          `FROM read_parquet('${join(today, file!)}', hive_partitioning = false)) ` +
          `TO '${join(out, 'projects', `snapshot_date=${day}`, file!)}' (FORMAT parquet)`,
      );
    }
    // What the inventory runs of those days would have folded into identity_names.
    await rebuildNameRanges(dirSink(out));
    for (const view of loadNamedQueries().filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW')))
      await db.run(view.sql);
  });
  afterAll(async () => {
    db?.close();
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names each day from the newest snapshot on or before it (the first snapshot for earlier days)', async () => {
    const rows = await db.run(
      `SELECT DISTINCT billed_date, project_name, names_snapshot_date FROM costs_named_as_of_day ` +
        `WHERE project_id = '${project.project_id}' ORDER BY billed_date`,
    );

    expect(rows.map((r) => [r.billed_date, r.project_name, r.names_snapshot_date])).toEqual(
      DAYS.map((d) => (d < RENAMED_ON ? [d, OLD_NAME, DAYS[0]] : [d, project.name, RENAMED_ON])),
    );
  });

  it('leaves costs_named on the newest name for every day', async () => {
    const rows = await db.run(
      `SELECT DISTINCT billed_date, project_name FROM costs_named WHERE project_id = '${project.project_id}' ORDER BY billed_date`,
    );

    expect(rows.map((r) => [r.billed_date, r.project_name])).toEqual(DAYS.map((d) => [d, project.name]));
  });

  it('keeps every cost row once, with the same cost and the same other names as costs_named', async () => {
    const compare = `
      SELECT count(*) AS n, round(sum(cost), 6) AS cost,
        count(DISTINCT workspace_name) AS workspaces, count(DISTINCT billing_account_name) AS payers
      FROM `;
    const [asOf] = await db.run(`${compare} costs_named_as_of_day`);
    const [latest] = await db.run(`${compare} costs_named`);
    const [all] = await db.run('SELECT count(*) AS n FROM costs');

    expect(Number(asOf!.n)).toBe(Number(all!.n));
    expect(asOf).toEqual(latest);
    expect(Number(asOf!.workspaces)).toBeGreaterThan(0);
  });
});
