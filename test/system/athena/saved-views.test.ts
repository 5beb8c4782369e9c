// Every saved view's rows over the small export of support/sql-fixture.ts (Athena's clock at
// 2026-03-16): rates, conversions, month status, names (latest and as of the day), FOCUS columns.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { NOW, writeSqlFixture } from '../../support/sql-fixture.ts';

const views = loadNamedQueries().filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW'));
const numbers = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.values(r).map((v) => (typeof v === 'bigint' ? Number(v) : v)));

describe('saved views over a hand-checkable export (Athena clock 2026-03-16)', () => {
  let dir: string;
  let db: AthenaLike;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'saved-views-'));
    await writeSqlFixture(dir);
    db = await athenaOver(dir, { now: NOW });
    // The fixture holds no focus table; its view is tested over a real export (views-duckdb).
    for (const view of views.filter((v) => !/\bFROM focus(_combined)?\b/.test(v.sql))) await db.run(view.sql);
  });
  afterAll(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exchange_rates: February 1 USD = 1400 KRW = 150 JPY, direct and (JPY) inverse', async () => {
    const rows = await db.run(
      `SELECT from_currency, to_currency, round(rate, 9) AS rate, derivation, confirmed FROM exchange_rates
       WHERE billed_month = '2026-02' ORDER BY from_currency, to_currency`,
    );

    expect(numbers(rows)).toEqual([
      ['JPY', 'KRW', 9.333333333, 'inverse', true],
      ['JPY', 'USD', 0.006666667, 'inverse', true],
      ['KRW', 'JPY', 0.107142857, 'direct', true],
      ['KRW', 'KRW', 1, 'direct', true],
      ['KRW', 'USD', 0.000714286, 'direct', true],
      ['USD', 'JPY', 150, 'direct', true],
      ['USD', 'KRW', 1400, 'direct', true],
      ['USD', 'USD', 1, 'direct', true],
    ]);
  });

  it("costs_converted: each KRW row at its month's rate, January's at the latest known (March)", async () => {
    const rows = await db.run(
      `SELECT cost_id, round(cost_usd, 4) AS usd, rate_month, rate_is_latest_known FROM costs_converted
       WHERE cost_id IN ('c01', 'k01', 'k02') ORDER BY cost_id`,
    );

    expect(numbers(rows)).toEqual([
      ['c01', 1, '2026-03', true],
      ['k01', 100, '2026-02', false],
      ['k02', 46.6667, '2026-03', false],
    ]);
  });

  it('month_status: February confirmed, March open', async () => {
    const rows = await db.run(
      'SELECT billed_month, is_confirmed, confirmed_since, unified_cost_rows FROM month_status ORDER BY 1',
    );

    expect(numbers(rows)).toEqual([
      ['2026-02', true, '2026-02-02', 2],
      ['2026-03', false, null, 2],
    ]);
  });

  it('costs_named: names from the snapshots of the last 7 days only; a routed virtual workspace', async () => {
    const rows = await db.run(
      `SELECT cost_id, workspace_id, workspace_name, project_name, project_group_path, service_account_name,
              billing_account_id, billing_account_name
       FROM costs_named WHERE cost_id IN ('c02', 'c03', 'c06', 'c07') ORDER BY cost_id`,
    );

    expect(numbers(rows)).toEqual([
      ['c02', 'ws-a', 'Alpha', 'Web', 'Platform', 'Prod', '999', 'Payer'],
      ['c03', 'ws-a', 'Alpha', null, null, 'Prod', '999', 'Payer'],
      ['c06', 'ws-b', 'Beta', null, null, null, null, null],
      ['c07', null, null, null, null, 'Prod', '999', 'Payer'],
    ]);
  });

  // The newest snapshot on or before each day: 2026-03-15 still had February's names (the new ones
  // were first seen on 2026-03-16).
  it('costs_named_as_of_day: each day named from the snapshot valid then, not the latest', async () => {
    const rows = await db.run(
      `SELECT cost_id, workspace_name, project_name, names_snapshot_date FROM costs_named_as_of_day
       WHERE cost_id IN ('c02', 'c03', 'c09') ORDER BY cost_id`,
    );

    expect(numbers(rows)).toEqual([
      ['c02', 'Alpha (old)', 'Web (old)', '2026-02-01'],
      ['c03', 'Alpha (old)', 'Gone', '2026-02-01'],
      ['c09', 'Alpha (old)', 'Web (old)', '2026-02-01'],
    ]);
  });

  it('costs_named_converted: every cost row once, with names and the same USD as costs_converted', async () => {
    const [named] = await db.run(
      `SELECT count(*) AS n, round(sum(cost_usd), 4) AS usd, count(workspace_name) AS named FROM costs_named_converted`,
    );
    const [converted] = await db.run(
      'SELECT count(*) AS n, round(sum(cost_usd), 4) AS usd FROM costs_converted',
    );

    // 1 + 10 + 7 + 100 + 1000 + 20000 + 3 + 0.5 + 5.25 USD, 140000 / 1400 + 70000 / 1500.
    expect(numbers([named!])).toEqual([[11, 21273.4167, 10]]);
    expect(numbers([converted!])).toEqual([[11, 21273.4167]]);
  });

  it('costs_combined: with nothing compacted, exactly the rows of costs', async () => {
    const sql = (from: string) =>
      `SELECT count(*) AS n, round(sum(cost), 4) AS cost, count(DISTINCT billed_date) AS days FROM ${from}`;
    const [combined] = await db.run(sql('costs_combined'));
    const [daily] = await db.run(sql('costs'));

    expect(numbers([combined!])).toEqual(numbers([daily!]));
    expect(Number(combined!.n)).toBe(11);
  });

  it('leaves no saved view without a test here', () => {
    const tested = [
      'costs_combined',
      'exchange_rates',
      'costs_converted',
      'month_status',
      'costs_named',
      'costs_named_as_of_day',
      'costs_named_converted',
    ];
    // Tested over a real export (its focus table) in views-duckdb.test.ts.
    // focus_combined (and both combined views with months compacted): test/system/compaction/compaction.test.ts.
    // costs_versions and focus_versions (as of four times of a restated day): test/system/destination/as-of.test.ts.
    const overExports = [
      'focus_consolidation_cloudforet',
      'focus_combined',
      'costs_versions',
      'focus_versions',
    ];

    expect(views.map((v) => /VIEW (\w+) AS/.exec(v.sql)![1]).sort()).toEqual(
      [...tested, ...overExports].sort(),
    );
  });
});
