// The focus table over simulator exports: one FOCUS row per cost row with its invoiced charge as
// BilledCost (and Cloudforet's cost kept), in the data source's currency; read by three independent readers; re-derived when (and only when)
// its costs object changed; removed only after a proven removal; never replaced by rows without
// names; and derived for archived days that no run re-exports.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { focusManifestKey, focusObjectKey } from '../../../functions/lib/focus/derive.ts';
import { queryDuckDB, readWithArrow, readWithHyparquet } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

const FROM = monthsBack(3);
const TO = addDays(FROM, 9);

let sim: Simulator;
let dir: string;
let secretFile: string;
let out: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 26, dataSources: 3, from: FROM, to: TO, rowsPerDay: 300 });
  ({ dir, secretFile } = await appFolder('focus-table', sim.issueToken()));
  out = join(dir, 'out');
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function exportCosts(
  from = FROM,
  to = TO,
): Promise<{ code: number; summary: Record<string, unknown> }> {
  const io = fakeIo();
  const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out];
  const code = await main([...argv, '--from', from, '--to', to, '--json'], {}, io);
  return { code, summary: JSON.parse(io.out()) };
}

const costsGlob = () => join(out, 'costs', '*', '*.parquet');
const focusGlob = () => join(out, 'focus', '*', '*', '*.parquet');

/**
 * Per (data source, day): rows and cost of each table, and FOCUS rows whose Cloudforet cost is not
 * their row's or whose BilledCost is not the invoiced charge: the Azure plugin's data["Actual
 * Cost"] (this domain app may read it), every other plugin's `cost`.
 */
async function fidelity() {
  const { rows } = await queryDuckDB(`
    WITH c AS (SELECT data_source_id AS ds, billed_date AS d, cost_id, cost, currency,
                      CASE WHEN provider = 'azure' THEN CAST(json_extract(data, '$."Actual Cost"') AS DOUBLE)
                           ELSE cost END AS invoiced
               FROM read_parquet('${costsGlob()}', hive_partitioning = true, hive_types_autocast = false)),
         f AS (SELECT x_data_source_id AS ds, strftime(ChargePeriodStart AT TIME ZONE 'UTC', '%Y-%m-%d') AS d,
                      x_cost_id AS cost_id, BilledCost, BillingCurrency, x_cloudforet_cost
               FROM read_parquet('${focusGlob()}', hive_partitioning = true))
    SELECT coalesce(c.ds, f.ds) AS ds, coalesce(c.d, f.d) AS d,
           count(c.cost_id) AS cost_rows, count(f.cost_id) AS focus_rows,
           sum(c.cost) AS cost, sum(f.BilledCost) AS billed, sum(c.invoiced) AS invoiced,
           count(*) FILTER (WHERE c.cost IS DISTINCT FROM f.x_cloudforet_cost
                               OR c.invoiced IS DISTINCT FROM f.BilledCost) AS differing,
           count(*) FILTER (WHERE c.currency IS DISTINCT FROM f.BillingCurrency) AS other_currency
    FROM c FULL JOIN f ON c.ds = f.ds AND c.d = f.d AND c.cost_id = f.cost_id
    GROUP BY ALL ORDER BY ALL`);
  return rows;
}

async function focusFileTimes(): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  for (const entry of await readdir(join(out, 'focus'), { recursive: true })) {
    if (!entry.endsWith('.parquet')) continue;
    times.set(entry, (await stat(join(out, 'focus', entry))).mtimeMs);
  }
  return times;
}

describe('the focus table', () => {
  it('holds one row per cost row, billed its invoiced charge, in its currency, per data source and day', async () => {
    const { code, summary } = await exportCosts();
    expect(code).toBe(0);

    const days = await fidelity();
    expect(days).toHaveLength(3 * 10);
    for (const day of days) {
      expect(day.focus_rows).toBe(day.cost_rows);
      expect(day.differing).toBe(0n);
      expect(day.other_currency).toBe(0n);
      expect(day.billed).toBeCloseTo(day.invoiced as number, 9);
      expect(day.cost).toBeCloseTo(sim.costTruth(String(day.ds), String(day.d)).costSum, 6);
    }
    expect(summary.focus).toMatchObject({ written: 30, removed: 0, failures: [] });
  });

  it('has every FOCUS mandatory value on every row, and the partition each row belongs to', async () => {
    const { rows } = await queryDuckDB(`
      SELECT count(*) AS n,
        count(*) FILTER (WHERE ChargeCategory IS NULL OR BillingAccountId IS NULL OR BillingCurrency IS NULL
          OR ServiceName IS NULL OR ServiceCategory IS NULL OR ServiceProviderName IS NULL
          OR HostProviderName IS NULL OR InvoiceIssuerName IS NULL OR ChargeFrequency IS NULL) AS missing,
        count(*) FILTER (WHERE strftime(BillingPeriodStart AT TIME ZONE 'UTC', '%Y-%m') <> x_billing_period
          OR strftime(ChargePeriodStart AT TIME ZONE 'UTC', '%d') <> x_charge_day) AS misplaced,
        count(*) FILTER (WHERE ChargePeriodEnd - ChargePeriodStart <> INTERVAL 1 DAY) AS not_a_day,
        count(*) FILTER (WHERE ChargeCategory <> 'Usage' AND ConsumedQuantity IS NOT NULL) AS consumed_off_usage,
        count(DISTINCT BillingAccountId) FILTER (WHERE BillingAccountId <> SubAccountId) AS payers
      FROM read_parquet('${focusGlob()}', hive_partitioning = true, hive_types_autocast = false)`);
    expect(rows[0]).toMatchObject({ missing: 0n, misplaced: 0n, not_a_day: 0n, consumed_off_usage: 0n });
    expect(rows[0]!.n).toBeGreaterThan(0n);
    // Linked accounts are billed to their trusted (payer) accounts, which identity names.
    expect(rows[0]!.payers).toBeGreaterThan(0n);
  });

  it('is read alike by arrow-rs and hyparquet', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    const bytes = await readFile(join(out, focusObjectKey(ds, FROM)));
    const arrow = readWithArrow(bytes);
    const hyparquet = await readWithHyparquet(bytes);

    expect(arrow.rows).toHaveLength(sim.costTruth(ds, FROM).rows);
    expect(hyparquet).toHaveLength(arrow.rows.length);
    expect(hyparquet.map((r) => r.x_cost_id)).toEqual(arrow.rows.map((r) => r.x_cost_id));
    expect(hyparquet.map((r) => r.BilledCost)).toEqual(arrow.rows.map((r) => r.BilledCost));
  });

  it('rewrites nothing when no costs object changed', async () => {
    const before = await focusFileTimes();
    const { code, summary } = await exportCosts();

    expect(code).toBe(0);
    expect(summary.focus).toMatchObject({ written: 0, removed: 0, current: 30 });
    expect(await focusFileTimes()).toEqual(before);
  });

  it('follows a restated day, and only that day', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    const day = addDays(FROM, 4);
    const before = await focusFileTimes();
    sim.resync(ds, day, { costFactor: 2 });

    const { code, summary } = await exportCosts();

    expect(code).toBe(0);
    expect(summary.focus).toMatchObject({ written: 1, removed: 0 });
    const after = await focusFileTimes();
    const changed = [...after].filter(([k, t]) => before.get(k) !== t).map(([k]) => k);
    expect(changed).toEqual([focusObjectKey(ds, day).replace(/^focus\//, '')]);
    const restated = (await fidelity()).find((r) => r.ds === ds && r.d === day)!;
    expect(restated.differing).toBe(0n);
    expect(restated.cost).toBeCloseTo(sim.costTruth(ds, day).costSum, 6);
  });

  it.each([
    ['no service accounts', '/identity/service-account/list', 5, 0],
    ['no trusted accounts, though service accounts name them', '/identity/trusted-account/list', 7, 0],
    // The run lists data sources once before the focus pass does.
    ['no data sources (whose cost metadata decides BilledCost)', '/cost-analysis/data-source/list', 8, 1],
  ])('keeps published rows when Cloudforet answers %s', async (_what, path, offset, afterRequests) => {
    const [, ds] = sim.dataSourceIds() as [string, string];
    const day = addDays(FROM, offset);
    const key = join(out, focusObjectKey(ds, day));
    const bytes = await readFile(key);
    sim.resync(ds, day, { costFactor: 3 });
    sim.injectFault({ path, kind: 'empty', times: 1, afterRequests });

    const { code, summary } = await exportCosts();

    expect(code).toBe(1);
    expect(summary.focus).toMatchObject({
      written: 0,
      failures: [expect.objectContaining({ dataSourceId: ds, date: day, code: 'FOCUS_NAMES_MISSING' })],
    });
    expect(await readFile(key)).toEqual(bytes);

    // The next run, with names, derives the day.
    const again = await exportCosts();
    expect(again.code).toBe(0);
    expect(again.summary.focus).toMatchObject({ written: 1, failures: [] });
    expect((await fidelity()).find((r) => r.ds === ds && r.d === day)!.differing).toBe(0n);
  });

  it('removes a day only with its costs unit, after Cloudforet proved it empty', async () => {
    const [, , ds] = sim.dataSourceIds() as [string, string, string];
    const day = addDays(FROM, 6);
    sim.resync(ds, day, { rowDelta: -sim.costTruth(ds, day).rows });

    const { code, summary } = await exportCosts();

    expect(code).toBe(0);
    expect(summary.focus).toMatchObject({ removed: 1, written: 0 });
    await expect(stat(join(out, focusObjectKey(ds, day)))).rejects.toThrow();
    const manifest = JSON.parse(await readFile(join(out, focusManifestKey(ds, day)), 'utf8'));
    expect(manifest).toMatchObject({ key: null, rows: 0, sourceKey: null });
  });

  it('derives days outside the run window that have none (an archive from before the table)', async () => {
    await rm(join(out, 'focus'), { recursive: true });
    await rm(join(out, '_manifests', 'focus'), { recursive: true });

    const { code, summary } = await exportCosts(TO, TO);

    expect(code).toBe(0);
    // Every published costs object (30 days less the one removed) has its FOCUS rows again.
    expect(summary.focus).toMatchObject({ written: 29, failures: [] });
    for (const day of await fidelity()) {
      expect(day.focus_rows).toBe(day.cost_rows);
      expect(day.differing).toBe(0n);
    }
  });
});
