// Every saved cost, inventory and budget query's result rows over the small export of
// support/sql-fixture.ts, with Athena's clock at 2026-03-16: each figure is a sum of fixture costs
// that can be checked by hand (the fixture lists every row). The ledger queries' rows are asserted in
// ledger-queries.test.ts, the views' in saved-views.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { KRW_COSTS, NOW, USD_COSTS, writeSqlFixture } from '../../support/sql-fixture.ts';

const queries = loadNamedQueries();
const sql = (name: string) => queries.find((q) => q.name === name)!.sql;
/** Rows as arrays of the named columns, numbers as numbers. */
const pick = (rows: Record<string, unknown>[], ...columns: string[]) =>
  rows.map((r) => columns.map((c) => (typeof r[c] === 'bigint' ? Number(r[c]) : r[c])));

describe('saved queries over a hand-checkable export (Athena clock 2026-03-16)', () => {
  let dir: string;
  let db: AthenaLike;
  const run = (name: string) => db.run(sql(name));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'saved-queries-'));
    await writeSqlFixture(dir);
    db = await athenaOver(dir, { now: NOW });
    // The fixture holds no focus table; its view is tested over a real export (views-duckdb).
    for (const view of queries.filter(
      (q) => q.sql.startsWith('CREATE OR REPLACE VIEW') && !/\bFROM focus(_combined)?\b/.test(q.sql),
    ))
      await db.run(view.sql);
  });
  afterAll(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('cost_by_workspace_project_usd: February in USD by names, each row once, unnamed rows labelled', async () => {
    const rows = await run('cost_by_workspace_project_usd');

    // 20000 (v-workspace-1 routed to Beta); 1000 + 140000 KRW / 1400; 10 + 100; 7 (p-gone: named only
    // in a snapshot older than 7 days); 3 (no workspace, no project). c01 (Jan 31), March rows: out.
    expect(pick(rows, 'workspace_name', 'project_name', 'cost_usd', 'billed_month', 'cost_rows')).toEqual([
      ['Beta', '(no project)', 20000, '2026-02', 1],
      ['Beta', 'Data', 1100, '2026-02', 2],
      ['Alpha', 'Web', 110, '2026-02', 2],
      ['Alpha', '(no name)', 7, '2026-02', 1],
      ['(no workspace)', '(no project)', 3, '2026-02', 1],
    ]);
  });

  it('cost_by_workspace_project_usd equals last month’s converted cost rows, computed without the views', async () => {
    const february = (day: string) => day >= '2026-02-01' && day < '2026-03-01';
    const expected =
      USD_COSTS.filter((r) => february(r[1])).reduce((sum, r) => sum + r[7], 0) +
      KRW_COSTS.filter((r) => february(r[1])).reduce((sum, r) => sum + r[7] / 1400, 0);

    const rows = await run('cost_by_workspace_project_usd');

    expect(expected).toBe(21220);
    expect(rows.reduce((sum, r) => sum + Number(r.cost_usd), 0)).toBeCloseTo(expected, 6);
    expect(rows.reduce((sum, r) => sum + Number(r.cost_rows), 0)).toBe(7);
  });

  it('last_month_spend_usd_by_provider_project: February in USD by provider and project', async () => {
    const rows = await run('last_month_spend_usd_by_provider_project');

    expect(
      pick(rows, 'billed_month', 'provider', 'project_id', 'total_cost_usd', 'rate_is_fallback'),
    ).toEqual([
      ['2026-02', 'google_cloud', null, 20000, false],
      ['2026-02', 'aws', 'p-db', 1000, false],
      ['2026-02', 'aws', 'p-web', 110, false],
      ['2026-02', 'azure', 'p-db', 100, false],
      ['2026-02', 'aws', 'p-gone', 7, false],
      ['2026-02', 'aws', null, 3, false],
    ]);
  });

  it('spend_usd_by_confirmed_month: only February, the one month Cloudforet confirmed', async () => {
    const rows = await run('spend_usd_by_confirmed_month');

    expect(pick(rows, 'billed_month', 'provider', 'project_id', 'total_cost_usd')).toEqual([
      ['2026-02', 'google_cloud', null, 20000],
      ['2026-02', 'aws', 'p-db', 1000],
      ['2026-02', 'aws', 'p-web', 110],
      ['2026-02', 'azure', 'p-db', 100],
      ['2026-02', 'aws', 'p-gone', 7],
      ['2026-02', 'aws', null, 3],
    ]);
  });

  it('spend_usd_by_month_last_12_months: April 2025 to March 2026, each month at its rate, confirmed or not', async () => {
    const rows = await run('spend_usd_by_month_last_12_months');

    // c01 (2026-01-31): no unified costs that month, so the latest known rate (it is in USD anyway).
    expect(pick(rows, 'billed_month', 'provider', 'project_id', 'total_cost_usd', 'is_confirmed')).toEqual([
      ['2026-03', 'azure', 'p-db', 46.67, false],
      ['2026-03', 'aws', 'p-web', 5.75, false],
      ['2026-02', 'google_cloud', null, 20000, true],
      ['2026-02', 'aws', 'p-db', 1000, true],
      ['2026-02', 'aws', 'p-web', 110, true],
      ['2026-02', 'azure', 'p-db', 100, true],
      ['2026-02', 'aws', 'p-gone', 7, true],
      ['2026-02', 'aws', null, 3, true],
      ['2026-01', 'aws', 'p-web', 1, false],
    ]);
    expect(pick(rows, 'billed_month', 'rate_is_latest_known').filter(([m]) => m === '2026-01')).toEqual([
      ['2026-01', true],
    ]);
  });

  it('month_to_date_by_workspace_project: March 1 (its first day) to now, in each origin currency', async () => {
    const rows = await run('month_to_date_by_workspace_project');

    expect(pick(rows, 'workspace_id', 'project_id', 'currency', 'total_cost')).toEqual([
      ['ws-b', 'p-db', 'KRW', 70000],
      ['ws-a', 'p-web', 'USD', 5.75],
    ]);
  });

  it('month_to_date_by_workspace_project_name: the same with names and the group path', async () => {
    const rows = await run('month_to_date_by_workspace_project_name');

    expect(
      pick(rows, 'workspace_name', 'project_group_path', 'project_name', 'currency', 'total_cost'),
    ).toEqual([
      ['Beta', null, 'Data', 'KRW', 70000],
      ['Alpha', 'Platform', 'Web', 'USD', 5.75],
    ]);
  });

  it("month_to_date_spend_usd_by_provider_project: March at March's rate (70000 KRW / 1500)", async () => {
    const rows = await run('month_to_date_spend_usd_by_provider_project');

    expect(
      pick(rows, 'provider', 'project_id', 'total_cost_usd', 'rate_is_fallback', 'rate_is_latest_known'),
    ).toEqual([
      ['azure', 'p-db', 46.67, false, false],
      ['aws', 'p-web', 5.75, false, false],
    ]);
  });

  it('daily_cost_by_provider: from 2026-02-14 (30 days back, included) on; 2026-02-13 is out', async () => {
    const rows = await run('daily_cost_by_provider');

    expect(pick(rows, 'billed_date', 'provider', 'currency', 'total_cost')).toEqual([
      ['2026-02-14', 'aws', 'USD', 1000],
      ['2026-02-28', 'azure', 'KRW', 140000],
      ['2026-02-28', 'google_cloud', 'USD', 20000],
      ['2026-02-28', 'aws', 'USD', 3],
      ['2026-03-01', 'aws', 'USD', 0.5],
      ['2026-03-15', 'azure', 'KRW', 70000],
      ['2026-03-15', 'aws', 'USD', 5.25],
    ]);
  });

  it('top_resources_last_30_days: resources by cost over the last 30 days', async () => {
    const rows = await run('top_resources_last_30_days');

    expect(pick(rows, 'provider', 'account_id', 'resource', 'currency', 'total_cost')).toEqual([
      ['azure', 'sub-9', 'r-9', 'KRW', 210000],
      ['google_cloud', '222', 'r-3', 'USD', 20000],
      ['aws', '111', 'r-2', 'USD', 1000],
      ['aws', '111', 'r-1', 'USD', 5.75],
    ]);
  });

  it('cost_by_inventory_resource: the same resources named from the latest inventory snapshot', async () => {
    const rows = await run('cost_by_inventory_resource');

    expect(pick(rows, 'resource', 'name', 'cloud_service_group', 'instance_type', 'total_cost')).toEqual([
      ['r-9', 'vm-9', 'VirtualMachines', null, 210000],
      ['r-3', null, null, null, 20000],
      ['r-2', 'db-1', 'EC2', 'r5.xlarge', 1000],
      ['r-1', 'web-1', 'EC2', 'm5.large', 5.75],
    ]);
  });

  it('cost_by_tag: a nested "team" value is no team, as json_extract_scalar answers in Athena', async () => {
    const rows = await run('cost_by_tag');

    // NULL: c05 ({"team": {"lead": "kim"}}) 1000 + c06 20000 + c07 3.
    expect(pick(rows, 'team', 'currency', 'total_cost')).toEqual([
      ['data', 'KRW', 210000],
      [null, 'USD', 21003],
      ['web', 'USD', 5.75],
    ]);
  });

  it('inventory_counts_by_type: ACTIVE cloud services per snapshot day of the last 90 days', async () => {
    const rows = await run('inventory_counts_by_type');

    expect(pick(rows, 'snapshot_date', 'provider', 'cloud_service_group', 'resources')).toEqual([
      ['2026-02-01', 'aws', 'EC2', 1],
      ['2026-03-16', 'aws', 'EC2', 2],
      ['2026-03-16', 'azure', 'VirtualMachines', 1],
    ]);
  });

  it('budget_vs_actual_forecast: MONTHLY against March to date, TOTAL against January to now', async () => {
    const rows = await run('budget_vs_actual_forecast');

    // b-month: 1500 of 3100; 15 of 31 days complete -> 1500 / 15 x 31 = 3100.
    // b-total: 1000 + 2000 + 700 of 10000; 74 of 120 days (Jan 1 - Apr 30) -> 3700 / 74 x 120 = 6000.
    expect(
      pick(
        rows,
        'budget_id',
        'time_unit',
        'budget_limit',
        'actual',
        'utilization_rate',
        'forecast_for',
        'forecast',
        'forecast_pct',
      ),
    ).toEqual([
      ['b-month', 'MONTHLY', 3100, 1500, 48.39, '2026-03-31', 3100, 100],
      ['b-total', 'TOTAL', 10000, 3700, 37, '2026-04-30', 6000, 60],
    ]);
  });

  it('leaves no saved query without a result test, here, in ledger-queries.test.ts, (cost reports) cost-reports.test.ts, (FOCUS) views-duckdb.test.ts or (as of) as-of.test.ts', async () => {
    const tests = (
      await Promise.all(
        [
          'saved-queries.test.ts',
          'ledger-queries.test.ts',
          '../costs/cost-reports.test.ts',
          'views-duckdb.test.ts',
          '../destination/as-of.test.ts',
        ].map((f) => readFile(new URL(f, import.meta.url), 'utf8')),
      )
    ).join('\n');

    for (const { name } of queries.filter((q) => !q.name.startsWith('create_')))
      expect(tests, name).toMatch(new RegExp(`(run|query)\\('${name}'`));
  });
});
