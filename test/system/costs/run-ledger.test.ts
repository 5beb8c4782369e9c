// The run ledger against the simulator: export_units and cost_restatements read by DuckDB as
// Athena's JSON SerDe would (one object per line, the export day as a string partition).
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { runInventoryExport } from '../../../functions/lib/inventory/run.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import {
  costRestatementsTable,
  exportUnitsTable,
  type LedgerTableDef,
} from '../../../functions/lib/tables/ledger.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { expectNoSecret } from '../../support/log-capture.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_5 = monthBack(5);

const DUCK_TYPE = { string: 'VARCHAR', bigint: 'BIGINT', double: 'DOUBLE' } as const;
const FROM = `${MONTH_5}-01`;
const TO = `${MONTH_5}-04`;

describe('run ledger', () => {
  let sim: Simulator;
  let dir: string;
  let token: string;
  let deps: Parameters<typeof runCostExport>[0];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 17, dataSources: 2, from: FROM, to: TO, rowsPerDay: 40 });
    dir = await mkdtemp(join(tmpdir(), 'ledger-'));
    token = sim.issueToken();
    const client = new CloudforetClient({ endpoint: sim.url, token, dispatcher: new Agent() });
    deps = { client, sink: dirSink(dir), concurrency: 4, runId: 'run-1' };
    await runCostExport(deps, { from: FROM, to: TO });
    const credential = { domainId: 'domain-1', workspaceId: '*' };
    await runInventoryExport({ ...deps, credential }, { snapshotDate: TO });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  // The columns and types the Glue table declares, as the JSON SerDe would apply them.
  const ledger = (table: LedgerTableDef) => {
    const columns = table.columns.map((c) => `${c.name}: '${DUCK_TYPE[c.type]}'`).join(', ');
    return queryDuckDB(
      `SELECT * FROM read_json('${dir}/ledger/${table.name}/*/*.json', format = 'newline_delimited', ` +
        `columns = {${columns}}, hive_partitioning = true, hive_types_autocast = false)`,
    ).then((r) => r.rows);
  };

  it('holds one export_units row per manifest, for every table', async () => {
    const manifests = await manifestPaths(dir);

    // The first run's rows: the tests below may re-export a unit (a second row for it).
    const rows = (await ledger(exportUnitsTable)).filter((r) => r.run_id === 'run-1');

    expect(rows.map((r) => `${r.table_name}/${r.partition_value}/${r.source}`).sort()).toEqual(
      manifests
        .map((m) =>
          m
            // focus/x_billing_period=YYYY-MM/x_charge_day=DD: the unit's partition is its day.
            .replace(/\/x_billing_period=(\d{4}-\d{2})\/x_charge_day=(\d{2})\//, '/$1-$2/')
            .replace(/\/[a-z_]+=/, '/')
            .replace(/\.json$/, ''),
        )
        .sort(),
    );
    expect(rows.find((r) => r.table_name === 'regions')).toMatchObject({ scope: 'domain domain-1' });
    expect(new Set(rows.map((r) => r.table_name))).toContain('costs');
    expect(new Set(rows.map((r) => r.table_name))).toContain('regions');
  });

  it("gives each unit the figures of its file: rows, cost sum, bytes, and the day's partition", async () => {
    // Each unit's newest row describes the file as it is now, whichever test re-exported it last.
    const newest = new Map<string, Record<string, unknown>>();
    for (const r of await ledger(exportUnitsTable)) {
      const id = `${r.partition_value}/${r.source}`;
      if (r.table_name !== 'costs' || String(r.exported_at) < String(newest.get(id)?.exported_at ?? ''))
        continue;
      newest.set(id, r);
    }
    const costs = [...newest.values()].filter((r) => r.object_key);

    expect(costs.length).toBeGreaterThan(0);
    for (const unit of costs) {
      const manifestPath = join(
        dir,
        '_manifests/costs',
        `billed_date=${unit.partition_value}`,
        `${unit.source}.json`,
      );
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
      const file = join(dir, String(unit.object_key));
      const [read] = (await queryDuckDB(`SELECT count(*)::INTEGER AS n, sum(cost) AS s FROM '${file}'`)).rows;
      expect(Number(unit.row_count)).toBe(read!.n);
      expect(unit.cost_sum as number).toBeCloseTo(read!.s as number, 6);
      expect(Number(unit.bytes)).toBe((await stat(file)).size);
      expect(unit.object_key).toBe(`costs/billed_date=${unit.partition_value}/${unit.source}.parquet`);
      expect(unit).toMatchObject({ run_id: manifest.runId, total_count: unit.row_count, schema_version: 1n });
      expect(unit.export_date).toBe(String(unit.exported_at).slice(0, 10));
    }
  });

  it('appends one cost_restatements row with old and new figures when a published day changes', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    const day = `${MONTH_5}-02`;
    const before = sim.costTruth(ds, day);
    sim.resync(ds, day, { rowDelta: 3 });
    const after = sim.costTruth(ds, day);

    await runCostExport({ ...deps, runId: 'run-2' }, { from: FROM, to: TO });

    // Only this day changed: the run restated it once and replaced nothing else.
    const rows = (await ledger(costRestatementsTable)).filter((r) => r.run_id === 'run-2');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      data_source_id: ds,
      billed_date: day,
      outcome: 'replaced',
      old_rows: BigInt(before.rows),
      new_rows: BigInt(after.rows),
      old_run_id: 'run-1',
      run_id: 'run-2',
    });
    expect(rows[0]!.reason).toMatch(/changed/);
    expect(rows[0]!.old_cost_sum as number).toBeCloseTo(before.costSum, 6);
    expect(rows[0]!.new_cost_sum as number).toBeCloseTo(after.costSum, 6);
  });

  it('appends a removed restatement when a published day loses all its rows', async () => {
    const [, ds] = sim.dataSourceIds() as [string, string];
    const day = `${MONTH_5}-03`;
    const before = sim.costTruth(ds, day);
    sim.resync(ds, day, { rowDelta: -1_000_000 });

    await runCostExport({ ...deps, runId: 'run-3' }, { from: day, to: day });

    const rows = (await ledger(costRestatementsTable)).filter((r) => r.run_id === 'run-3');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      data_source_id: ds,
      billed_date: day,
      outcome: 'removed',
      old_rows: BigInt(before.rows),
      new_rows: 0n,
      new_cost_sum: 0,
    });
  });

  it('never writes the token into a ledger row', async () => {
    const files = await ledgerFiles(join(dir, 'ledger'));

    const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')));

    expect(texts.length).toBeGreaterThan(0);
    expectNoSecret(texts, token);
  });
});

async function manifestPaths(dir: string): Promise<string[]> {
  const entries = await readdir(join(dir, '_manifests'), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(join(dir, '_manifests').length + 1));
}

async function ledgerFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
