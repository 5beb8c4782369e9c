// The shipped views and saved queries run over real exported files (costs and an inventory snapshot
// written by the CLI from the simulator), in DuckDB as harness/duckdb-athena.ts translates them;
// results are checked against the simulator's own truth.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { costTable } from '../../../functions/lib/tables/costs.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';

const TO = addDays(utcDay(new Date()), -1);
const DAYS = Array.from({ length: 5 }, (_, i) => addDays(TO, i - 4));
const queries = loadNamedQueries();
const creates = queries.filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW'));

/** FOCUS 1.2's 21 mandatory columns, as DuckDB types the focus table's Parquet columns. */
const MANDATORY: Record<string, string> = {
  BilledCost: 'DOUBLE',
  BillingAccountId: 'VARCHAR',
  BillingAccountName: 'VARCHAR',
  BillingCurrency: 'VARCHAR',
  BillingPeriodEnd: 'TIMESTAMP WITH TIME ZONE',
  BillingPeriodStart: 'TIMESTAMP WITH TIME ZONE',
  ChargeCategory: 'VARCHAR',
  ChargeClass: 'VARCHAR',
  ChargeDescription: 'VARCHAR',
  ChargePeriodEnd: 'TIMESTAMP WITH TIME ZONE',
  ChargePeriodStart: 'TIMESTAMP WITH TIME ZONE',
  ContractedCost: 'DOUBLE',
  EffectiveCost: 'DOUBLE',
  InvoiceIssuerName: 'VARCHAR',
  ListCost: 'DOUBLE',
  PricingQuantity: 'DOUBLE',
  PricingUnit: 'VARCHAR',
  ProviderName: 'VARCHAR',
  PublisherName: 'VARCHAR',
  ServiceCategory: 'VARCHAR',
  ServiceName: 'VARCHAR',
};

describe('views and saved queries over exported files (DuckDB)', () => {
  let simulator: Simulator;
  let dir: string;
  let db: AthenaLike;
  const run = (name: string) => db.run(queries.find((q) => q.name === name)!.sql);

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 16, workspaces: 3, to: TO, rowsPerDay: 30, cloudServices: 60 });
    dir = await mkdtemp(join(tmpdir(), 'views-'));
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const common = [
      '--endpoint',
      simulator.url,
      '--secret-file',
      join(dir, 'app.secret'),
      '--out',
      join(dir, 'out'),
    ];
    // The cost reports' saved queries read cost_reports and cost_report_status: one report job's reports.
    simulator.runCostReportJob(TO.slice(0, 7), 'DONE');
    expect(
      await main(['costs', ...common, '--from', DAYS[0]!, '--to', TO, '--cost-reports'], {}, fakeIo()),
    ).toBe(0);
    expect(await main(['inventory', ...common], {}, fakeIo())).toBe(0);
    db = await athenaOver(join(dir, 'out'));
    for (const view of creates) await db.run(view.sql);
  });
  afterAll(async () => {
    db?.close();
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Cost per (workspace name, project name) from the simulator's rows, v-workspaces resolved. */
  function truthByNames(): Map<string, number> {
    const name = (kind: 'workspaces' | 'projects', key: string) =>
      new Map(simulator.records(kind).map((r) => [r[key], r.name]));
    const workspaces = name('workspaces', 'workspace_id');
    const projects = name('projects', 'project_id');
    const routing = new Map(
      simulator.records('data_source_accounts').map((a) => [a.v_workspace_id, a.workspace_id]),
    );
    const sums = new Map<string, number>();
    for (const ds of simulator.dataSourceIds()) {
      for (const day of DAYS) {
        for (const row of simulator.costRows(ds, day)) {
          const id = String(row.workspace_id);
          const workspace = id.startsWith('v-workspace-') ? routing.get(id) : id;
          const key = JSON.stringify([
            workspaces.get(workspace) ?? null,
            projects.get(row.project_id) ?? null,
          ]);
          sums.set(key, (sums.get(key) ?? 0) + Number(row.cost ?? 0));
        }
      }
    }
    return sums;
  }

  it('cost by (workspace name, project name) from costs_named equals the simulator truth', async () => {
    const truth = truthByNames();

    const rows = await db.run(
      'SELECT workspace_name, project_name, sum(cost) AS cost FROM costs_named GROUP BY ALL',
    );

    expect(rows.length).toBe(truth.size);
    expect(truth.size).toBeGreaterThan(4);
    for (const r of rows) {
      const key = JSON.stringify([r.workspace_name, r.project_name]);
      expect(r.cost as number, key).toBeCloseTo(truth.get(key)!, 6);
    }
  });

  it('names the project group path from the root, through three nested groups', async () => {
    const rows = await db.run(
      "SELECT DISTINCT project_name, project_group_path FROM costs_named WHERE project_name = 'Core'",
    );

    expect(rows).toEqual([
      { project_name: 'Core', project_group_path: 'Platform / Payments / Card "EU" / Équipe données — 東京' },
    ]);
  });

  it('keeps every costs column, and takes billing accounts from trusted accounts', async () => {
    const columns = (await db.describe('costs_named')).map((c) => c.name);
    const rows = await db.run(`SELECT DISTINCT service_account_id, billing_account_name FROM costs_named`);
    const trusted = new Map(simulator.records('trusted_accounts').map((t) => [t.trusted_account_id, t.name]));
    const payerOf = new Map(
      simulator
        .records('service_accounts')
        .map((s) => [s.service_account_id, trusted.get(s.trusted_account_id)]),
    );

    expect(columns).toEqual(expect.arrayContaining([...costTable.columns.map((c) => c.name), 'billed_date']));
    expect(rows.some((r) => r.billing_account_name === null)).toBe(true);
    for (const r of rows) expect(r.billing_account_name ?? undefined).toBe(payerOf.get(r.service_account_id));
  });

  it('the focus table has all 21 FOCUS 1.2 mandatory columns and the 1.3 provider columns', async () => {
    const types = new Map((await db.describe('focus')).map((c) => [c.name, c.type]));

    expect(Object.keys(MANDATORY)).toHaveLength(21);
    for (const [column, type] of Object.entries(MANDATORY)) expect(types.get(column), column).toBe(type);
    expect(types.get('Tags')).toBe('MAP(VARCHAR, VARCHAR)');
    expect(types.get('ServiceProviderName')).toBe('VARCHAR');
    expect(types.get('HostProviderName')).toBe('VARCHAR');
  });

  it('the focus table carries every cost once, billed its invoiced charge, with names, periods and tags', async () => {
    const [sums] = await db.run(
      `SELECT (SELECT count(*) FROM costs) AS n, (SELECT sum(cost) FROM costs) AS cost,
              sum(CASE WHEN c.provider = 'azure'
                       THEN CAST(json_extract_scalar(c.data, '$["Actual Cost"]') AS double)
                       ELSE c.cost END) AS invoiced,
              sum(f.x_cloudforet_cost) AS kept,
              count(*) AS focus_n, sum(BilledCost) AS billed, count(SubAccountName) AS named,
              count(*) FILTER (WHERE CAST(ChargePeriodStart AS date) <> CAST(c.billed_date AS date)) AS bad_period,
              count(*) FILTER (WHERE element_at(f.Tags, 'team') IS DISTINCT FROM json_extract_scalar(c.tags, '$.team')) AS bad_tags
       FROM focus f JOIN costs c ON c.cost_id = f.x_cost_id AND c.data_source_id = f.x_data_source_id`,
    );

    expect(Number(sums!.focus_n)).toBe(Number(sums!.n));
    // BilledCost is the invoiced charge: the Azure plugin's data["Actual Cost"], other plugins' cost.
    expect(Number(sums!.billed)).toBeCloseTo(Number(sums!.invoiced), 6);
    expect(Number(sums!.kept)).toBeCloseTo(Number(sums!.cost), 6);
    expect(Number(sums!.invoiced)).not.toBeCloseTo(Number(sums!.cost), 0);
    expect(Number(sums!.named)).toBe(Number(sums!.n));
    expect(Number(sums!.bad_period)).toBe(0);
    expect(Number(sums!.bad_tags)).toBe(0);
  });

  it('focus_cost_last_30_days sums every FOCUS row of the window once, per provider, service and sub account', async () => {
    const rows = await run('focus_cost_last_30_days');
    const [all] = await db.run(
      'SELECT count(*) AS n, sum(BilledCost) AS billed, sum(EffectiveCost) AS effective, count(DISTINCT ProviderName) AS providers FROM focus',
    );
    const total = (column: string) => rows.reduce((s, r) => s + Number(r[column]), 0);

    // The export is the last 5 days: the whole focus table is inside the window.
    expect(Number(all!.n)).toBeGreaterThan(100);
    expect(total('charges')).toBe(Number(all!.n));
    expect(total('billed_cost')).toBeCloseTo(Number(all!.billed), 0);
    expect(total('effective_cost')).toBeCloseTo(Number(all!.effective), 0);
    expect(new Set(rows.map((r) => r.ProviderName)).size).toBe(Number(all!.providers));
    expect(rows.map((r) => Number(r.billed_cost))).toEqual(
      rows.map((r) => Number(r.billed_cost)).sort((a, b) => b - a),
    );
  });

  it('gives the column set of the FOCUS consolidation view of AWS, in its order', async () => {
    const columns = (await db.describe('focus_consolidation_cloudforet')).map((c) => c.name);
    const [counts] = await db.run(
      `SELECT count(*) AS n, count(Tags) AS tagged, (SELECT count(Tags) FROM focus) AS focus_tagged
       FROM focus_consolidation_cloudforet`,
    );

    expect(Number(counts!.n)).toBe(Number((await db.run('SELECT count(*) AS n FROM focus'))[0]!.n));
    expect(Number(counts!.tagged)).toBe(Number(counts!.focus_tagged));
    expect(columns).toHaveLength(44);
    expect(columns.slice(0, 3)).toEqual(['AvailabilityZone', 'BilledCost', 'BillingAccountId']);
    expect(columns.at(-1)).toBe('billing_period');
    for (const column of Object.keys(MANDATORY)) expect(columns).toContain(column);
  });

  it.each(queries.filter((q) => !creates.includes(q)).map((q) => [q.name, q.sql]))(
    'saved query %s runs over the exported files',
    async (_name, sql) => {
      const rows = await db.run(sql);

      expect(Array.isArray(rows)).toBe(true);
    },
  );
});
