// CID's consolidation view over two tenants exported into one destination, its SQL run unmodified
// through the DuckDB stand-in: across the account it totals every tenant's focus rows once; with
// CID's `focus-tables` parameter naming one tenant's table it totals that tenant alone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { focusTable } from '../../../functions/lib/tables/focus.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { listTableMetadata, runCid } from '../../../tools/cid/run.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { synthStack } from '../../support/synth-stack.ts';

const NOW = new Date();
const TO = addDays(utcDay(NOW), -1);
const FROM = addDays(TO, -3);
const TENANTS = ['acme', 'beta-2'];
const database = (id: string) => `cloudforet_export_${id.replaceAll('-', '_')}`;
// Per billing account and charge day: a row counted twice, or missing, changes a line.
const TOTALS = `SELECT billingaccountid AS account, CAST(chargeperiodstart AS DATE) AS day,
  count(*) AS n, round(sum(billedcost), 6) AS billed, round(sum(effectivecost), 6) AS effective`;

describe("CID's consolidation view over two tenants' focus tables", () => {
  let sims: Simulator[];
  let dir: string;
  let db: AthenaLike;
  let databases: Awaited<ReturnType<typeof listTableMetadata>>;
  const sorted = (rows: Record<string, unknown>[]) =>
    rows
      .map((r) => [String(r.account), String(r.day), Number(r.n), Number(r.billed), Number(r.effective)])
      .sort((a, b) => String(a).localeCompare(String(b)));
  /** Each tenant's focus rows, totalled as the view's are. */
  const own = async (ids: string[]) =>
    sorted(
      await db.run(
        `${TOTALS} FROM (${ids.map((id) => `SELECT * FROM ${database(id)}.focus`).join(' UNION ALL ')}) GROUP BY 1, 2`,
      ),
    );
  /** CID's consolidation view, created by CID with `params`, totalled. */
  const consolidated = async (params: Record<string, unknown>) => {
    const run = await runCid({
      db,
      now: NOW,
      database: database(TENANTS[0]!),
      databases,
      tagAnswers: {},
      workDir: dir,
      params,
      consolidationOnly: true,
      afterCreate: (view) => db.run(`${TOTALS} FROM ${view} GROUP BY 1, 2`),
    });
    expect(run.statements.filter((s) => s.error)).toEqual([]);
    return { run, totals: sorted(run.snapshots.focus_consolidation_view ?? []) };
  };

  beforeAll(async () => {
    sims = await Promise.all([
      startSimulator({ seed: 71, dataSources: 2, from: FROM, to: TO, rowsPerDay: 10 }),
      startSimulator({ seed: 72, dataSources: 2, from: FROM, to: TO, rowsPerDay: 7 }),
    ]);
    const apps = await Promise.all(sims.map((s, i) => appFolder(`cid-tenant-${i}`, s.issueToken())));
    dir = await mkdtemp(join(tmpdir(), 'cid-tenants-'));
    const out = join(dir, 'lake');
    for (const [i, sim] of sims.entries()) {
      const args = ['costs', '--endpoint', sim.url, '--secret-file', apps[i]!.secretFile, '--out', out];
      expect(await main([...args, '--tenant', TENANTS[i]!, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(
        0,
      );
    }
    await Promise.all(apps.map((a) => rm(a.dir, { recursive: true, force: true })));
    db = await athenaOver(join(out, 'tenants', TENANTS[0]!), { now: NOW });
    // Each tenant's database as Athena has it: its focus table over its own folder only.
    for (const id of TENANTS) {
      const glob = join(
        out,
        'tenants',
        id,
        'focus',
        ...(focusTable.dayKey ? ['*', '*'] : ['*']),
        '*.parquet',
      );
      await db.run(`CREATE SCHEMA ${database(id)}`);
      await db.run(
        `CREATE VIEW ${database(id)}.focus AS SELECT * FROM read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false)`,
      );
    }
    const { nested } = synthStack({
      cloudforetEndpoint: 'https://cf.example.com',
      tenants: TENANTS.map((id) => ({ id, secretName: `cloudforet/${id}` })),
    });
    databases = Object.assign({}, ...[...nested.values()].map((t) => listTableMetadata(t)));
  });
  afterAll(async () => {
    db?.close();
    await Promise.all((sims ?? []).map((s) => s.close()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("totals every tenant's focus rows once, across the account's databases", async () => {
    const { run, totals } = await consolidated({});
    const each = await Promise.all(TENANTS.map((id) => own([id])));

    expect(run.discovered.map((t) => `${t.database}.${t.table_name}`).sort()).toEqual(
      TENANTS.map((id) => `${database(id)}.focus`),
    );
    expect(each.every((rows) => rows.length > 0)).toBe(true);
    expect(totals).toEqual(await own(TENANTS));
    const count = (rows: (string | number)[][]) => rows.reduce((s, r) => s + Number(r[2]), 0);
    expect(count(totals)).toBe(count(each[0]!) + count(each[1]!));
  });

  for (const id of TENANTS) {
    it(`totals ${id}'s focus rows alone when CID's focus-tables names its table`, async () => {
      const { run, totals } = await consolidated({ 'focus-tables': `${database(id)}.focus` });

      const created = run.statements.find((s) => s.sql.startsWith('CREATE OR REPLACE VIEW'))!.sql;
      expect(created.match(/FROM\n +"\w+"\."focus"/g)).toEqual([`FROM\n  "${database(id)}"."focus"`]);
      expect(totals).toEqual(await own([id]));
    });
  }
});
